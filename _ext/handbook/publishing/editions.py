"""Two editions from one source: the full handbook, and "current rulings only".

**The full edition** (the default) shows every ruling, an overturned one
struck through (``:strike:``, HTML ``<del>``, see :mod:`handbook.rulings.strike`).  **The
current edition** is the same pages built with the Sphinx tag ``current``
(``make html TAGS=current``, i.e. ``sphinx-build -t current``): every
overturned ruling is left out, and with it from everything made of the
pages -- the timeline, ``rulings.json``, the card index, the search index,
the link previews.  The sources are the same; nothing is rewritten.

**What an overturned ruling is.**  A ruling (one ``ruling_line`` of
:mod:`handbook.rulings.lines`: text up to and including its dates) whose own words
are all struck: apart from its ``:strike:`` text, its dates, its card names
(「`卡名`_」, which a role cannot hold), footnote references, spaces and
punctuation (「」，。…), it has no letter or digit (``①`` is one; a ``:ref:``
or another link counts as words).  The house style strikes every word of
the ruling but its card names::

    | 「`神之宣告`_」\\ :strike:`不能发动。`\\ :ruling:`17/3/24` 裁定变更：可以发动。\\ :ruling:`20/1/13`
    | 「`旋风`_」\\ :strike:`和`\\ 「`王宫的铁壁`_」\\ :strike:`不能同时适用。`\\ :ruling:`18/1/13`

The first line holds two rulings: the struck one (card name, struck text,
date) and the one that replaced it, which stays; the second line is one
overturned ruling.  In both editions such a ruling carries the class
``ruling-struck`` (the full edition draws its card names struck too,
``_static/handbook.css``); in the current edition it is removed whole: its
text, card links, dates and permalink.

**Other struck text** -- some words of a ruling that also has unstruck
words (a ruling corrected in place, ``「`旋风`_」的效果\\ :strike:`不能`\\ 可以发动。``),
or struck words outside any ruling, a section title's too -- is removed
alone in the current edition: struck means "no longer valid", and the rest
stays (a section keeps the id its title as written gave it).  Such a ruling
keeps its permalink; in that edition its record (:mod:`handbook.rulings.lines`) has
no struck text, so it is flagged as changed only by its words (裁定变更…).

**What is left empty goes too.**  A line-block line, paragraph, list item,
line block, list, block quote or admonition that has nothing left is
removed, up to the section (sections and titles always stay), except an
element that is a link target (it has an id); a footnote that only removed
text referred to is removed (the others keep their numbers).  Nothing else
is: a line such as ``例：`` whose examples were all struck stays -- where an
edition needs different words, write them with ``.. only:: current`` /
``.. only:: not current``.

**Permalinks are the same in both editions.**  The removal runs after
:mod:`handbook.rulings.lines` has cut the rulings and given them their ids (a
transform at priority 875, after its 870 and before ``doctree-read``, 880,
where the ruling record, the card index record and the other collectors read
the page), so every ruling that stays has the id it has in the full edition,
also one whose twin (same date and card) was removed.  The ``card``
domain's record of the page's card names (taken at 850) is taken again.
The ``gettext`` builder always reads the full edition: the catalogs serve
both.

**Where it is published.**  ``make html TAGS=current`` builds into
``$(BUILDDIR)/html/current/`` (a translation into ``html/current/<lang>/``),
with its own doctrees; ``make html-all`` builds both editions and their
translations, so the published site has the current edition at
``<site>/current/``.  Its ``html_baseurl`` gets the folder ``current/``
(before a translation's ``<lang>/``), so its canonical links, sitemap and
link previews name its own pages.  Every HTML page gets a sidebar snippet
(``templates/handbook-editions.html``, after the search box) linking to the
same page in the other edition; the context variable ``handbook_edition``
is ``'full'`` or ``'current'``.

The edition is recorded on the build environment: building the other
edition with the same doctree folder reads every page again.  Nothing to
configure: the tag's name is ``current``.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.locale import get_translation
from sphinx.transforms import SphinxTransform
from sphinx.util import logging
from sphinx.util.osutil import relative_uri

from handbook.nodes import is_struck, overturned, ruling_line
from handbook.store import State, state

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment

logger = logging.getLogger(__name__)
_ = get_translation('handbook')

#: the Sphinx tag of the current edition, and its folder in the published site
TAG = 'current'
FOLDERS = {'full': '', 'current': 'current/'}
#: what is removed when nothing is left in it (never a section or a title)
CONTAINERS = (nodes.line, nodes.line_block, nodes.paragraph, nodes.list_item,
              nodes.bullet_list, nodes.enumerated_list, nodes.block_quote, nodes.Admonition)
#: the templates of the handbook (the edition switcher)
TEMPLATES = Path(__file__).resolve().parents[1] / 'templates'
SWITCHER = 'handbook-editions.html'


def edition(app: Sphinx) -> str:
    """``'current'`` when the build has the tag, else ``'full'``."""
    return 'current' if app.tags.has(TAG) else 'full'


def attached(node: nodes.Node, document: nodes.document) -> bool:
    """*node* is still part of *document* (no ancestor of it was removed)."""
    while node.parent is not None:
        node = node.parent
    return node is document


def is_empty(node: nodes.Element) -> bool:
    return not any(not isinstance(child, nodes.title) and
                   not (isinstance(child, nodes.Text) and not child.strip())
                   for child in node.children)


class StruckRulings(SphinxTransform):
    """Mark overturned rulings; in the current edition, remove them and
    every other struck text."""

    # after ruling_lines (870: rulings cut, ids given), before doctree-read (880)
    default_priority = 875

    def apply(self, **kwargs: Any) -> None:
        lines = [line for line in self.document.findall(ruling_line) if overturned(line)]
        for line in lines:
            line['classes'].append('ruling-struck')
        if doctree_edition(self.env) != 'current':
            return
        removed = [*lines, *filter(is_struck, self.document.findall(nodes.Element))]
        for node in removed:
            if attached(node, self.document):  # not inside a node removed already
                self.remove(node)

    def remove(self, node: nodes.Element) -> None:
        """Remove *node*, its footnotes if no one else refers to them, and
        the containers it leaves empty."""
        for ref in list(node.findall(nodes.footnote_reference)):
            self.unreference(ref)
        for inner in node.findall(nodes.Element):
            for id_ in inner['ids']:
                self.document.ids.pop(id_, None)
        parent = node.parent
        parent.remove(node)
        while isinstance(parent, CONTAINERS) and not parent['ids'] and is_empty(parent):
            node, parent = parent, parent.parent
            parent.remove(node)

    def unreference(self, ref: nodes.footnote_reference) -> None:
        footnote = self.document.ids.get(ref.get('refid', ''))
        if not isinstance(footnote, nodes.footnote):
            return
        footnote['backrefs'] = [b for b in footnote['backrefs'] if b not in ref['ids']]
        if not footnote['backrefs'] and footnote.parent is not None:
            for id_ in footnote['ids']:
                self.document.ids.pop(id_, None)
            footnote.parent.remove(footnote)


# -- the edition of a build ----------------------------------------------------------------


def place_edition(app: Sphinx, config: Config) -> None:
    """The current edition's pages are in ``<site>/current/``: so is its
    ``html_baseurl``, unless it names that folder already (``make`` passes it)."""
    base = config.html_baseurl
    if edition(app) == 'current' and base and TAG not in base.split('/'):
        config.html_baseurl = base.rstrip('/') + '/' + FOLDERS['current']
    if str(TEMPLATES) not in config.templates_path:
        config.templates_path = [*config.templates_path, str(TEMPLATES)]


def own_book(app: Sphinx, config: Config) -> None:
    """Each edition and language is an EPUB of its own: its language as
    EPUB writes it (BCP 47: zh-TW), and an identifier of its own, derived
    from the full edition's, the same at every build (reading apps take two
    books with one identifier for one; an adopter's round trip found the
    zh_TW and current EPUBs saying zh-CN, with the full edition's identifier)."""
    if config.epub_language:
        config.epub_language = config.epub_language.replace('_', '-')
    language = config.language or ''
    own = [part for part in (
        language if language != getattr(config, 'handbook_source_language', language) else '',
        edition(app) if edition(app) != 'full' else '') if part]
    if own and config.epub_identifier:
        book = f'{config.epub_identifier}/{"/".join(own)}'
        config.epub_identifier = f'urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, book)}'


class EditionState(State):
    """The edition the doctrees were read for (kept in the store, so that
    the doctrees of the other edition are read again), and whether it
    changed in this build."""

    def __init__(self) -> None:
        self.edition: str | None = None
        self.changed = False


def doctree_edition(env: BuildEnvironment) -> str:
    """The edition the pages are read for: ``'full'`` or ``'current'``."""
    return state(env, EditionState).edition or 'full'


def note_edition(app: Sphinx) -> None:
    """The edition the pages are read for (the catalogs, ``gettext``: the full one)."""
    kept = state(app.env, EditionState)
    before = kept.edition
    kept.edition = 'full' if app.builder.name == 'gettext' else edition(app)
    kept.changed = before is not None and before != kept.edition
    if kept.changed:
        logger.info('these doctrees are of the %s edition: every page is read again '
                    'for the %s edition', before, kept.edition)


def pages_of_the_other_edition(app: Sphinx, env: BuildEnvironment, added: Any,
                               changed: Any, removed: Any) -> list[str]:
    """Every page, when the doctrees were read for the other edition."""
    return sorted(env.found_docs) if state(env, EditionState).changed else []


# -- the edition switcher ----------------------------------------------------------------


def edition_links(app: Sphinx, pagename: str) -> list[dict[str, Any]]:
    """Links from *pagename* to the same page in each edition, in the same language;
    none where the build is not the whole site's (:mod:`handbook.core.switchers`)."""
    if not app.config.handbook_switchers:
        return []
    this = edition(app)
    languages = getattr(app.config, 'handbook_languages', None) or {}
    root = next(iter(languages), app.config.language)
    language = '' if app.config.language == root else f'{app.config.language}/'
    page = app.builder.get_target_uri(pagename)
    here = FOLDERS[this] + language + page
    labels = {'full': _('完整版'), 'current': _('现行版')}
    return [{'edition': name, 'label': labels[name], 'current': name == this,
             'url': relative_uri(here, folder + language + page)}
            for name, folder in FOLDERS.items()]


def add_edition_switcher(app: Sphinx, pagename: str, templatename: str,
                         context: dict[str, Any], doctree: nodes.document | None) -> None:
    context['handbook_edition'] = edition(app)
    context['handbook_editions'] = edition_links(app, pagename)
    context['handbook_editions_label'] = _('版本')
    sidebars = context.get('sidebars')
    if context['handbook_editions'] and isinstance(sidebars, list) and SWITCHER not in sidebars:
        after = [i + 1 for i, name in enumerate(sidebars) if 'search' in name]
        at = after[0] if after else len(sidebars)
        context['sidebars'] = [*sidebars[:at], SWITCHER, *sidebars[at:]]


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.rulings.lines')
    app.setup_extension('handbook.rulings.strike')
    app.setup_extension('handbook.publishing.reader_tools')  # the rulings' permalink, copy, §
    app.setup_extension('handbook.core.switchers')  # handbook_switchers
    app.add_transform(StruckRulings)
    # before translations (400: a translation's <lang>/ goes after current/) and site_urls
    app.connect('config-inited', place_edition, priority=300)
    app.connect('config-inited', own_book, priority=600)  # after the handbook's own identity
    app.connect('builder-inited', note_edition)
    app.connect('env-get-outdated', pages_of_the_other_edition)
    app.connect('html-page-context', add_edition_switcher)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
