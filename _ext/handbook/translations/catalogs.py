"""Translated builds: catalogs compiled into the build, card references kept
through translation, problems reported at the ``.po`` line, a language switcher.

The handbook is written in Simplified Chinese (``language = 'zh_CN'``) and
translated with the standard gettext workflow (README, "Translations"):
``make gettext`` extracts one catalog per page, ``make intl-update`` merges
them into ``locale/<lang>/LC_MESSAGES/<page>.po``, and
``make html LANGUAGE=zh_TW`` builds the translated site into
``_build/html/zh_TW``.

**Catalogs.**  ``handbook_locale_dir`` (relative to conf.py, default
``locale``; a handbook's own: ``locale_dir`` in its handbook.toml,
:mod:`handbook.core.settings`) holds ``<lang>/LC_MESSAGES/<page>.po`` and ``handbook.po``, the
catalog of the texts the extensions generate (``_('卡片数据库')`` with
``_ = get_translation('handbook')``; msgids are Chinese); where it lacks
``handbook.po`` or ``theme.po`` (an adopter's catalogs), this project's
``locale/`` gives them (:data:`TOOLCHAIN_CATALOGS`).  A build of a language
other than the pages' own (``handbook_source_language``, zh_CN) with no
catalog of its pages is a warning (:func:`no_catalogs`).  At
``config-inited`` the catalogs of the build's language are compiled with
Babel into ``<doctrees>/locale``, Sphinx's ``locale_dirs`` is pointed there
and the ``handbook`` catalog is registered: nothing is written into
``locale/`` and no ``.mo`` file is kept in the repository.  Fuzzy entries are
compiled only with ``gettext_allow_fuzzy_translations``.  A page is read
again when its catalog changed since the last build, every page when
``handbook.po`` did.  An unreadable catalog is a warning ``handbook.i18n`` at
its file and line.  ``project`` and ``html_title`` are translated with the
root page's catalog, where the same text is the root page's title.

**Translated messages.**  Sphinx's i18n transform
(``sphinx.transforms.i18n.Locale``, priority 20) replaces each translated
paragraph, line or title by its parsed msgstr.  Its reference check compares
the references' source text, so a card written in the target language
(「`旋風`_」 for 「`旋风`_」) would be "inconsistent", and it re-targets names
it does not know to the original's names in an arbitrary order.  This
extension turns that check off (``i18n.inconsistent_references`` is added to
``suppress_warnings``; Sphinx's footnote, citation and term checks share the
name: footnotes and ``:ref:`` are compared here, the handbook has no
citations) and does its own, which knows the card registry:

* every inline node of a translated message gets the location of its text
  in the ``.po`` file, so a warning about it (an unknown card name, a bad
  ruling date, an undefined label) names ``<page>.po:<line>``;
* a reference means what its own name means (or its embedded alias:
  ```發動的效果無效 <发动的效果无效_>`__``): a target of the page (a
  section title, in either language, or a label) stays an internal link,
  any other name is a card name, which the registry resolves in every
  language (the ``aliases`` column of cards.tsv);
* a translation keeps the original's cards (in any spelling), internal
  links, ``:ref:`` targets, ruling dates, URLs and footnotes; a difference
  is a warning ``handbook.i18n`` at the msgstr's line;
* a translation that Sphinx cannot use (parsed on its own, ``1. …`` is a
  list, not a line of text) is a warning at its line too.

**Language switcher.**  ``handbook_languages`` maps each language the site
is built in to its label, ``{'zh_CN': '简体中文', 'zh_TW': '繁體中文'}``.
The first is the site's root; every other is built into ``<root>/<lang>/``
(``make html-all``).  Every HTML page gets a sidebar snippet
(``templates/handbook-languages.html`` beside this module, placed after the
theme's search box) linking to the same page in the other languages by
relative links; the context variable ``handbook_languages`` holds the list.
A translation's ``html_baseurl`` gets its folder (``…/zh_TW/``), so that its
canonical links and sitemap name its own pages.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import PoFileError, read_po, unescape
from docutils import nodes
from sphinx import addnodes
from sphinx.locale import get_translation
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.i18n import docname_to_domain
from sphinx.util.nodes import extract_messages
from sphinx.util.osutil import relative_uri

from handbook.cards.links import registry
from handbook.core import settings
from handbook.nodes import card_of
from handbook.store import State, state

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment

logger = logging.getLogger(__name__)

#: the catalog of the texts the handbook's extensions generate
CATALOG = 'handbook'
_ = get_translation(CATALOG)
#: the toolchain's own catalogs: its texts and the theme's (publishing/theme.py),
#: in this project's locale/, for a handbook whose catalogs lack them (an
#: adopter's, locale_dir in its handbook.toml: its site showed the theme in English)
TOOLCHAIN_CATALOGS = (CATALOG, 'theme')
TOOLCHAIN_LOCALE = Path(__file__).resolve().parents[3] / 'locale'


class CatalogState(State):
    """What the translations keep from build to build (:func:`handbook.store.state`):
    each catalog of the build and its digest, ``{domain: (catalog, digest)}``;
    the domains whose catalog changed in this build."""

    def __init__(self) -> None:
        self.catalogs: dict[str, tuple[str, str]] | None = None
        self.changed: set[str] = set()

TEMPLATES = Path(__file__).resolve().parents[1] / 'templates'
SWITCHER = 'handbook-languages.html'

#: the attribute that carries a message's original references from before
#: the i18n transform to after it
_ORIGINAL = 'handbook_original_references'
#: a reference with an embedded alias, `text <name_>`__: it refers to *name*
_ALIAS = re.compile(r'<([^<>`]+)_>`__?$')


# -- catalogs -------------------------------------------------------------------


def catalog_files(app: Sphinx) -> dict[str, Path]:
    """The build language's ``.po`` files, by gettext domain."""
    language = app.config.language
    if not language:
        return {}
    base = Path(app.confdir, app.config.handbook_locale_dir, language, 'LC_MESSAGES')
    found = {po.relative_to(base).with_suffix('').as_posix(): po
             for po in sorted(base.rglob('*.po'))} if base.is_dir() else {}
    own = TOOLCHAIN_LOCALE / language / 'LC_MESSAGES'
    for domain in TOOLCHAIN_CATALOGS:
        if domain not in found and (own / f'{domain}.po').is_file():
            found[domain] = own / f'{domain}.po'
    return found


#: a line of a .po entry that holds a string: a keyword and its string, or a
#: string continued; its string closed by a quote that is not escaped
_PO_STRING = re.compile(r'^\s*(?:(?:msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+)?"')
_PO_CLOSED = re.compile(r'(?<!\\)(?:\\\\)*"\s*$')


def unclosed_string(text: str) -> int | None:
    """The first line of a ``.po`` file's *text* whose string is not closed,
    or None.  Babel reads ``msgstr "…調整中。`` dropping its last character, and
    the page showed the text cut and run together (an adopter's round trip)."""
    for number, line in enumerate(text.split('\n'), start=1):
        m = _PO_STRING.match(line)
        if m and not _PO_CLOSED.search(line[m.end():]):
            return number
    return None


def read_catalog(path: Path, language: str) -> Catalog | None:
    """The catalog of a ``.po`` file; a warning at its bad line, and None, if unreadable."""
    try:
        line = unclosed_string(path.read_text(encoding='utf-8', errors='replace'))
    except OSError:
        line = None
    if line is not None:
        logger.warning('cannot read this catalog: a string is not closed: end it with " (its '
                       'page is built untranslated until then)', location=f'{path}:{line}',
                       type='handbook', subtype='i18n')
        return None
    try:
        with path.open('rb') as f:
            return read_po(f, locale=language, abort_invalid=True)
    except PoFileError as err:  # its lineno counts from 0, its message ends "on <lineno>"
        reason = str(err.args[0]).rsplit(' on ', 1)[0]
        shown = f' ({err.line.strip()!r})' if err.line.strip() else ''
        logger.warning('cannot read this catalog: %s%s; fix the entry or run make intl-update',
                       reason, shown, location=f'{path}:{err.lineno + 1}',
                       type='handbook', subtype='i18n')
    except (OSError, ValueError) as err:
        logger.warning('cannot read this catalog: %s', err, location=str(path),
                       type='handbook', subtype='i18n')
    return None


def compiled_dir(app: Sphinx) -> Path:
    return Path(app.doctreedir) / 'locale'


def compile_catalogs(app: Sphinx, config: Config) -> None:
    """Compile the build language's catalogs into the doctree folder; use them."""
    config.suppress_warnings = [*config.suppress_warnings, 'i18n.inconsistent_references']
    root = compiled_dir(app)
    config.locale_dirs = [str(root), *config.locale_dirs]
    out = root / (config.language or '') / 'LC_MESSAGES'
    catalogs = catalog_files(app)
    wanted = set()
    for domain, po in catalogs.items():
        catalog = read_catalog(po, config.language)
        if catalog is None:
            continue
        buffer = io.BytesIO()
        write_mo(buffer, catalog, use_fuzzy=config.gettext_allow_fuzzy_translations)
        mo = out / f'{domain}.mo'
        wanted.add(mo)
        if not mo.is_file() or mo.read_bytes() != buffer.getvalue():
            mo.parent.mkdir(parents=True, exist_ok=True)
            mo.write_bytes(buffer.getvalue())
        if domain == docname_to_domain(config.root_doc, config.gettext_compact):
            translate_titles(config, catalog)
    for stale in out.rglob('*.mo') if out.is_dir() else ():
        if stale not in wanted:  # its .po was removed: never translate with it again
            stale.unlink()
    app.add_message_catalog(CATALOG, root)


def no_catalogs(app: Sphinx) -> None:
    """``builder-inited``: a translated build (``make html LANGUAGE=…``) with
    no catalog of its pages is a warning: an adopter's round trip built a
    "zh_TW" edition untranslated, "build succeeded", from ``LANGUAGE=zh_tw``
    or a ``locale_dir`` typo."""
    config = app.config
    if config.language == config.handbook_source_language \
            or set(catalog_files(app)) - set(TOOLCHAIN_CATALOGS):
        return
    folder = Path(app.confdir, config.handbook_locale_dir)
    have = sorted(p.parent.name for p in folder.glob('*/LC_MESSAGES')) if folder.is_dir() else []
    there = (f'it has those of {", ".join(have)}' if have
             else 'it does not exist' if not folder.is_dir() else 'it has none')
    # zh_tw, zh-TW for zh_TW: its catalogs are there (a round trip was told to make
    # a second, misnamed set)
    meant = next((have_one for have_one in have if have_one.replace('-', '_').lower()
                  == config.language.replace('-', '_').lower()), None)
    fix = (f'write LANGUAGE={meant}' if meant else
           f'check LANGUAGE= and locale_dir, or make the catalogs: make intl-update '
           f'LANGUAGES={config.language}')
    logger.warning('the pages have no catalogs of the language %r in %s (%s), so this edition '
                   'is not translated: %s', config.language, folder, there, fix,
                   type='handbook', subtype='i18n',
                   location=settings.where(config, app.srcdir, app.confdir, 'handbook_locale_dir'))


def translate_titles(config: Config, catalog: Catalog) -> None:
    """``project`` and ``html_title`` as the root page's catalog translates them."""
    for name in ('project', 'html_title'):
        message = catalog.get(getattr(config, name) or '')
        if message is not None and message.string and \
                (not message.fuzzy or config.gettext_allow_fuzzy_translations):
            setattr(config, name, message.string)


def note_catalog_changes(app: Sphinx) -> None:
    """Remember each catalog and its digest; note the ones that changed since
    the last build."""
    env = app.env
    fuzzy = b'fuzzy' if env.config.gettext_allow_fuzzy_translations else b''
    new = {domain: (str(po), hashlib.sha256(po.read_bytes() + fuzzy).hexdigest())
           for domain, po in catalog_files(app).items()}
    kept = state(env, CatalogState)
    old = kept.catalogs
    kept.changed = set() if old is None else \
        {d for d in old.keys() | new.keys() if old.get(d) != new.get(d)}
    kept.catalogs = new


def pages_with_changed_catalogs(app: Sphinx, env: BuildEnvironment, added: Any,
                                changed: Any, removed: Any) -> list[str]:
    domains = state(env, CatalogState).changed
    if not domains:
        return []
    compact = env.config.gettext_compact
    pages = {docname_to_domain(doc, compact): doc for doc in env.found_docs}
    if domains - pages.keys():  # generated texts (handbook), the theme's: on any page
        return sorted(env.found_docs)
    return sorted(pages[domain] for domain in domains)


# -- where a message is in its .po file -------------------------------------------


@dataclasses.dataclass(frozen=True)
class Msgstr:
    """A msgstr of a ``.po`` file and where each of its characters is."""

    path: Path
    text: str
    #: (line, first offset, length) of each line of the msgstr, in order
    lines: tuple[tuple[int, int, int], ...]

    @property
    def line(self) -> int:
        """The line where the text starts (after an empty ``msgstr ""``)."""
        return next((line for line, _, length in self.lines if length), self.lines[0][0])

    def line_of(self, offset: int) -> int:
        return next((line for line, start, length in self.lines
                     if start <= offset < start + length), self.line)

    @property
    def location(self) -> str:
        return f'{self.path}:{self.line}'


def msgstrs(path: Path, language: str, fuzzy: bool) -> dict[str, Msgstr]:
    """Every translated message of a ``.po`` file that a build uses (*fuzzy*:
    fuzzy ones too), by msgid, with its lines."""
    try:
        with path.open('rb') as f:
            catalog = read_po(f, locale=language, abort_invalid=True)
        text = path.read_text(encoding='utf-8')
    except (OSError, ValueError, PoFileError):
        return {}  # reported when the catalogs were compiled
    if unclosed_string(text) is not None:
        return {}  # so too: the catalog is not used
    lines = text.splitlines()
    found = {}
    for message in catalog:
        if not message.id or not message.string or not isinstance(message.id, str) \
                or (message.fuzzy and not fuzzy):
            continue
        segments = _msgstr_lines(lines, message.lineno)
        text = ''.join(part for _, part in segments)
        spans, start = [], 0
        for line, part in segments:
            spans.append((line, start, len(part)))
            start += len(part)
        if segments and text == message.string:
            found[message.id] = Msgstr(path, text, tuple(spans))
    return found


def _msgstr_lines(lines: list[str], msgid_line: int) -> list[tuple[int, str]]:
    """``(line number, text)`` of each line of the msgstr of the entry whose
    msgid is on *msgid_line* (1-based)."""
    index = msgid_line - 1
    while index < len(lines) and not lines[index].startswith('msgstr'):
        index += 1
    segments = []
    if index < len(lines):
        segments.append((index + 1, unescape(lines[index][len('msgstr'):].strip())))
        index += 1
        while index < len(lines) and lines[index].startswith('"'):
            segments.append((index + 1, unescape(lines[index].strip())))
            index += 1
    return segments


# -- translated messages ------------------------------------------------------------


def own_name(ref: nodes.reference) -> str:
    """The name a reference refers to: its text, or its embedded alias."""
    alias = _ALIAS.search(ref.rawsource)
    return alias.group(1) if alias else ref.get('name') or ref.astext()


def _card(env: BuildEnvironment, name: str) -> str | None:
    card = registry(env).lookup(name)
    return card.name if card is not None else None


def references(node: nodes.Element, document: nodes.document,
               env: BuildEnvironment) -> dict[str, list]:
    """What a message refers to, by kind, each as ``(identity, text)``."""
    found: dict[str, list] = {'ref': [], 'xref': [], 'ruling': [], 'uri': [], 'footnote': []}
    for child in node.findall(nodes.Element):
        if child is node:
            continue
        if isinstance(child, nodes.reference) and 'refname' in child:
            name = own_name(child)
            refname = nodes.fully_normalize_name(name)
            if document.has_name(refname):
                identity = ('target', document.nameids.get(refname))
            else:
                card = _card(env, name)
                identity = ('card', card) if card else ('unknown', name)
            found['ref'].append((identity, name))
        elif (linked := card_of(child)) is not None:  # a card name struck text links
            name = linked[1]
            card = _card(env, name)
            found['ref'].append((('card', card) if card else ('unknown', name), name))
        elif isinstance(child, addnodes.pending_xref):
            found['xref'].append(((child['refdomain'], child['reftype'], child['reftarget']),
                                  child['reftarget']))
        elif 'ruling_text' in child:
            found['ruling'].append(((child['ruling_text'], child.get('ruling_url')),
                                    child['ruling_text']))
        elif isinstance(child, nodes.reference) and child.get('refuri'):
            found['uri'].append((child['refuri'], child.astext()))
        elif isinstance(child, nodes.footnote_reference):
            found['footnote'].append((child.get('refname') or child.get('auto'),
                                      child.rawsource or child.astext()))
    return found


def page_catalog(env: BuildEnvironment) -> str | None:
    """The ``.po`` file that translates the page being read, if any: a
    page without one (every page of the source language's build, which has
    only the theme's catalog) is neither noted nor compared."""
    domain = docname_to_domain(env.current_document.docname, env.config.gettext_compact)
    po, _digest = (state(env, CatalogState).catalogs or {}).get(domain, (None, None))
    return po


class RememberReferences(SphinxTransform):
    """Before the i18n transform: note what each message refers to."""

    default_priority = 19  # before sphinx.transforms.i18n.Locale (20)

    def apply(self, **kwargs: Any) -> None:
        if page_catalog(self.env) is None:  # nothing of this page is translated
            return
        for node, _msg in extract_messages(self.document):
            if isinstance(node, nodes.TextElement):
                found = references(node, self.document, self.env)
                node[_ORIGINAL] = {kind: items for kind, items in found.items() if items}


#: what to say when a translation does not keep what the original refers to
_CHANGED = {
    'ref': ('the card names and links', "keep each reference; a card may be written in "
            "the translation's language (its alias in cards.tsv)"),
    'xref': ('the :ref: targets', 'keep each :ref: target as it is; only a title may '
             'be translated, :ref:`标题 <target>`'),
    'ruling': ('the ruling dates', 'copy each :ruling: reference as it is'),
    'uri': ('the URLs', 'copy each link target as it is'),
    'footnote': ('the footnote references', 'keep each footnote reference'),
}


class TranslatedMessages(SphinxTransform):
    """After the i18n transform: locations in the .po file, references by
    their own names, the original's references kept."""

    default_priority = 21  # after sphinx.transforms.i18n.Locale (20)

    def apply(self, **kwargs: Any) -> None:
        po = page_catalog(self.env)
        if po is None:  # nothing translated, nothing noted (RememberReferences)
            return
        fuzzy = self.config.gettext_allow_fuzzy_translations
        translations = msgstrs(Path(po), self.config.language, fuzzy)
        for node, msg in list(extract_messages(self.document)):
            original = node.attributes.pop(_ORIGINAL, None)
            msgstr = translations.get(msg)
            if not isinstance(node, nodes.TextElement) or msgstr is None or msgstr.text == msg:
                continue
            if not node.get('translated'):
                logger.warning(
                    'this translation is not used: parsed on its own it is not a line of '
                    'text (a line that starts like "1. ", "a) " or "- " is a list); escape '
                    r'the marker, as in "1\. "', location=msgstr.location,
                    type='handbook', subtype='i18n')
                continue
            self.locate(node, msgstr)
            self.retarget(node)
            if original is not None:
                self.compare(node, original, msgstr)

    def locate(self, node: nodes.Element, msgstr: Msgstr) -> None:
        """Give each inline node of the message its line in the .po file."""
        seen: Counter[tuple[type, str]] = Counter()
        for child in node.findall(nodes.Element):
            if child is node:
                continue
            raw = getattr(child, 'rawsource', '')
            offset = -1
            if raw:
                k = seen[type(child), raw]
                seen[type(child), raw] += 1
                for _ in range(k + 1):
                    offset = msgstr.text.find(raw, offset + 1)
                    if offset < 0:
                        break
            if offset >= 0:
                line = msgstr.line_of(offset)
            elif child.parent is not node and child.parent.source == str(msgstr.path):
                line = child.parent.line
            else:
                line = msgstr.line
            child.source, child.line = str(msgstr.path), line

    def retarget(self, node: nodes.Element) -> None:
        """A reference means what its own name means (undo Sphinx's re-targeting)."""
        for ref in node.findall(nodes.reference):
            if 'refname' not in ref or 'name' not in ref:
                continue
            own = nodes.fully_normalize_name(own_name(ref))
            if ref['refname'] != own:
                noted = self.document.refnames.get(ref['refname'], [])
                if ref in noted:
                    noted.remove(ref)
                ref['refname'] = own
                self.document.note_refname(ref)

    def compare(self, node: nodes.Element, original: dict[str, list], msgstr: Msgstr) -> None:
        translated = references(node, self.document, self.env)
        for kind, (what, fix) in _CHANGED.items():
            before, after = original.get(kind, []), translated[kind]
            if not _kept(kind, before, after):
                logger.warning('the translation does not keep %s of the original: it has '
                               '%s, the original %s; %s', what, _listing(after, kind),
                               _listing(before, kind), fix, location=msgstr.location,
                               type='handbook', subtype='i18n')


def _kept(kind: str, before: list, after: list) -> bool:
    """Does the translation refer to what the original does (in any order)?"""
    if kind != 'ref':
        return Counter(i for i, _ in before) == Counter(i for i, _ in after)
    # an unknown card name is reported by card_links at its line: count it only
    known = Counter(i for i, _ in after if i[0] != 'unknown')
    return len(before) == len(after) and not known - Counter(i for i, _ in before)


def _listing(items: list, kind: str = '') -> str:
    """The references for a message: a link with its URL (an adopter's round
    trip read "the URLs … the original 「21/1/6」", a text, not a URL)."""
    if not items:
        return 'none'
    if kind == 'uri':
        return '、'.join(f'「{text}」 ({uri})' for uri, text in items)
    return '、'.join(f'「{text}」' for _, text in items)


# -- the language switcher -------------------------------------------------------------


def language_links(app: Sphinx, pagename: str) -> list[dict[str, Any]]:
    """Links from *pagename* to the same page in each language of the site."""
    languages: dict[str, str] = app.config.handbook_languages
    current = app.config.language
    # off where one language is built (make html: handbook.core.switchers)
    if len(languages) < 2 or not app.config.handbook_switchers:
        return []
    root = next(iter(languages))

    def uri(language: str) -> str:
        folder = '' if language == root else f'{language}/'
        return folder + app.builder.get_target_uri(pagename)

    here = uri(current)
    return [{'language': language, 'label': label, 'tag': language.replace('_', '-'),
             'current': language == current, 'url': relative_uri(here, uri(language))}
            for language, label in languages.items()]


def add_language_switcher(app: Sphinx, pagename: str, templatename: str,
                          context: dict[str, Any], doctree: nodes.document | None) -> None:
    links = language_links(app, pagename)
    context['handbook_languages'] = links
    context['handbook_languages_label'] = _('语言')
    sidebars = context.get('sidebars')
    if links and isinstance(sidebars, list) and SWITCHER not in sidebars:
        after = [i + 1 for i, name in enumerate(sidebars) if 'search' in name]
        at = after[0] if after else len(sidebars)
        context['sidebars'] = [*sidebars[:at], SWITCHER, *sidebars[at:]]


def place_translated_site(app: Sphinx, config: Config) -> None:
    """A translation's pages are in ``<root>/<lang>/``: so is its ``html_baseurl``
    (canonical links, sitemap), unless it names a language folder already."""
    languages = config.handbook_languages
    base = config.html_baseurl
    if not languages or not base or config.language == next(iter(languages)):
        return
    folders = {config.language.lower(), config.language.lower().replace('_', '-')}
    if not folders & {part.lower() for part in base.split('/')}:
        config.html_baseurl = base.rstrip('/') + f'/{config.language}/'


def add_templates(app: Sphinx, config: Config) -> None:
    if str(TEMPLATES) not in config.templates_path:
        config.templates_path = [*config.templates_path, str(TEMPLATES)]


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.cards.links')
    app.setup_extension('handbook.core.settings')  # where locale_dir is set, for messages
    app.setup_extension('handbook.core.switchers')  # handbook_switchers
    app.add_config_value('handbook_source_language', 'zh_CN', 'env', types=frozenset({str}),
                         description='the language the pages are written in (a build of '
                                     'another language is a translation)')
    app.add_config_value('handbook_locale_dir', 'locale', 'env', types=frozenset({str}),
                         description='folder of <lang>/LC_MESSAGES/*.po, relative to conf.py')
    app.add_config_value('handbook_languages', {}, 'html', types=frozenset({dict}),
                         description='language -> label of every language the site is '
                                     'built in; the first is the site root')
    app.connect('config-inited', compile_catalogs)
    app.connect('builder-inited', no_catalogs)
    app.connect('config-inited', add_templates)
    # before the extensions that derive URLs from html_baseurl (site_urls)
    app.connect('config-inited', place_translated_site, priority=400)
    app.connect('builder-inited', note_catalog_changes)
    app.connect('env-get-outdated', pages_with_changed_catalogs)
    app.connect('html-page-context', add_language_switcher)
    app.add_transform(RememberReferences)
    app.add_transform(TranslatedMessages)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
