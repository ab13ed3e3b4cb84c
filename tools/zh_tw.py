r"""Fill the Traditional Chinese (zh_TW) catalogs: OpenCC converts every
message that no one has translated by hand.

Usage (``make intl-zh_TW`` runs ``make intl-update LANGUAGES=zh_TW``, then this)::

    python tools/zh_tw.py [--registry cards.tsv] [--locale-dir locale] [--config s2tw]

1. **Registry.**  Every card and series of the registry without a ``zh_TW``
   alias gets one: its name converted.  Nothing is added where the conversion
   is the name itself, or where it already names another card (reported; the
   messages then keep that card's Simplified name, which links all the same).
   An alias that is there, converted or written by hand (an official
   Traditional name), is kept.
2. **Catalogs** ``<locale-dir>/zh_TW/LC_MESSAGES/*.po``.  Every message that
   is untranslated, fuzzy (its source sentence changed) or machine-converted
   (flag ``opencc``) gets the conversion of its msgid, the flag ``opencc`` and
   no ``fuzzy`` flag.  A reviewer who has checked a message removes its
   ``opencc`` flag: from then on it is theirs and is never converted again,
   until its source sentence changes (``make intl-update`` marks it fuzzy).

The conversion keeps the markup: only text is converted -- plain text, the
text of ``**strong**`` and ``*emphasis*``, of the prose role ``:strike:``
and of a ``:ref:``'s explicit title.  Everything else is kept byte for byte:
roles (``:ruling:`` dates and URLs, ``:ref:`` labels), literals, link URLs,
footnote and substitution references and escapes.  References:

* a card, 「`旋风`_」, gets the converted name when the registry resolves it
  to the same card (「`旋風`_」), else the card's zh_TW alias, else stays as
  written: it links to the same card in every case;
* a label of the page, ```多步效果的适用`_`` or ``多步效果的适用_``, keeps
  its name as the target and shows it converted:
  ```多步效果的適用 <多步效果的适用_>`__``;
* a ``:ref:`` to a section not written yet (``handbook_planned_sections``
  in conf.py), which shows its label, gets the converted label as its title:
  ``:ref:`調整中 <调整中>```.

A message that starts like a list item (``1. 入连锁的效果``) gets its marker
escaped (``1\. ``): alone in a msgstr it would be parsed as a list, and Sphinx
would not use the translation.

The converter is OpenCC's ``s2tw`` (characters and Taiwan variant forms; no
change of vocabulary, so game terms and card names stay the handbook's).
"""

from __future__ import annotations

import argparse
import io
import re
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / '_ext'))

from handbook.cards import registry as card_registry  # noqa: E402  (after the sys.path entry)
from handbook.cards.registry import KINDS, Registry, fold  # noqa: E402
from handbook.core import settings  # noqa: E402

LANGUAGE = 'zh_TW'
FLAG = 'opencc'
#: the width sphinx-intl writes catalogs with: the files stay as it writes them
WIDTH = 76
#: the comment that keeps a translation by hand whose original changed
HAND = 'by hand, before the original changed: '
#: roles whose text is prose, converted like the text around them
PROSE_ROLES = frozenset({'strike'})

Convert = Callable[[str], str]

#: inline markup of a message, the longest forms first
MARKUP = re.compile(r'''
    (?P<escape>\\.)                                          # \* or "\ "
  | (?P<literal>``.+?``)                                     # ``literal``
  | (?P<role>:(?P<rolename>[\w.+-]+(?::[\w.+-]+)*):`(?P<roletext>[^`]*)`)   # :role:`text`
  | (?P<ref>`(?P<refname>[^`]+)`_(?!_))                      # `name`_: a card or a label
  | (?P<simple>(?<![\w.:+-])(?P<simplename>\w+(?:[-.:+]\w+)*)_(?![\w_]))   # name_ (no quotes)
  | (?P<interpreted>_?`[^`]*`(?:__?)?)                       # `text <url>`_, `x`__, _`target`
  | (?P<strong>\*\*(?P<strongtext>[^*]+)\*\*)                # **strong**
  | (?P<emphasis>\*(?P<emtext>[^*\s][^*]*)\*)                # *emphasis*
  | (?P<footnote>\[[^\]\s]*\]_)                              # [#]_, [1]_
  | (?P<substitution>\|[^|\s][^|]*\|(?:__?)?)                # |name|
''', re.X | re.S)
#: the text of a role or reference with an explicit title or target: title <target>
_TITLED = re.compile(r'^(?P<title>.*?)(?P<target>(?:^|\s+)<[^<>]*>)$', re.S)
#: a simple reference name (docutils' rule)
_SIMPLE_NAME = re.compile(r'\w+(?:[-.:+]\w+)*')
#: a message that starts like a list item: 1. a) (1) #. - * +
_LIST_START = re.compile(r'^(\(?(?:\d+|[A-Za-z]|[ivxlcdmIVXLCDM]+|#))([.)])(?=\s)|^([-*+•‣⁃])(?=\s)')


def opencc_converter(config: str = 's2tw') -> Convert:
    import opencc  # only the command needs it, not the build

    return opencc.OpenCC(config).convert


def convert_message(text: str, convert: Convert, registry: Registry,
                    planned: frozenset[str] = frozenset()) -> str:
    """*text* (reStructuredText inline markup) with its text converted.

    *planned* are the labels of sections not written yet (conf.py's
    ``handbook_planned_sections``): a ``:ref:`` to one shows the label, so it
    gets the converted label as its title."""
    out, pos = [], 0
    for m in MARKUP.finditer(text):
        out.append(convert(text[pos:m.start()]))
        out.append(_convert_markup(m, convert, registry, planned))
        pos = m.end()
    out.append(convert(text[pos:]))
    # alone in the msgstr, "1. …" would be parsed as a list and not used
    return _LIST_START.sub(lambda m: f'{m[1]}\\{m[2]}' if m[1] else f'\\{m[3]}', ''.join(out))


def _convert_markup(m: re.Match, convert: Convert, registry: Registry,
                    planned: frozenset[str]) -> str:
    whole = m.group()
    if m['ref'] or m['simple']:
        name = m['refname'] or m['simplename']
        if m['ref'] and _TITLED.match(name):
            return whole  # `text <URL>`_ or `text <name_>`_: kept
        return reference(name, convert, registry, simple=bool(m['simple']))
    if m['strong']:
        return f'**{convert(m["strongtext"])}**'
    if m['emphasis']:
        return f'*{convert(m["emtext"])}*'
    if m['role']:
        name, text = m['rolename'], m['roletext']
        if name in PROSE_ROLES:
            return f':{name}:`{_convert_prose(text, convert, registry)}`'
        titled = _TITLED.match(text)
        if name == 'ref' and titled and titled['title']:
            return f':{name}:`{convert(titled["title"])}{titled["target"]}`'
        if name == 'ref' and text in planned and convert(text) != text:
            return f':{name}:`{convert(text)} <{text}>`'
    return whole


#: a name in 「」, which struck text writes plain (the strike role links it)
_QUOTED_NAME = re.compile(r'「(?P<name>[^「」`\n]+)」')


def _convert_prose(text: str, convert: Convert, registry: Registry) -> str:
    """A prose role's text (``:strike:`…```) converted, but its plain card
    names given the name the translation writes for them (:func:`card_name`),
    as links are: the role links them (an adopter's round trip: 「死者蘇生」,
    no card's name, failed the zh_TW build)."""
    out, pos = [], 0
    for m in _QUOTED_NAME.finditer(text):
        if registry.lookup(m['name']) is None:
            continue
        out.append(convert(text[pos:m.start()]))
        out.append(f'「{card_name(m["name"], convert, registry)}」')
        pos = m.end()
    out.append(convert(text[pos:]))
    return ''.join(out)


def reference(name: str, convert: Convert, registry: Registry, simple: bool = False) -> str:
    """A converted reference to *name*: a card by its converted name, a label
    of the page with the converted name shown (`轉換 <原名_>`__)."""
    card = registry.lookup(name)
    if card is None:  # a label of the page (an unknown card name fails the build)
        shown = convert(name)
        if shown == name:
            return f'{name}_' if simple else f'`{name}`_'
        return f'`{shown} <{name}_>`__'
    new = card_name(name, convert, registry)
    return f'{new}_' if simple and _SIMPLE_NAME.fullmatch(new) else f'`{new}`_'


def card_name(name: str, convert: Convert, registry: Registry) -> str:
    """The name a converted message gives the card written *name*."""
    card = registry.lookup(name)
    if card is None:
        return name
    converted = convert(name)
    if registry.lookup(converted) is card:
        return converted
    alias = card.name_in(LANGUAGE)
    return alias if alias != card.name else name


def registry_rows(path: Path) -> int:
    """The rows of the registry's own format (``kind<TAB>name…``) in *path*:
    none in a legacy link file."""
    lines = path.read_text(encoding='utf-8-sig').splitlines()
    return sum(1 for line in lines if line.split('\t', 1)[0].strip() in KINDS and '\t' in line)


def refresh_aliases(path: Path, convert: Convert) -> tuple[int, list[str]]:
    """Add the converted name as the zh_TW alias of every card without one.

    Returns the number of aliases added and the problems (``path:line: …``).
    Rows are rewritten only in their aliases column; everything else stays."""
    registry = card_registry.load(path)
    taken = dict(registry.items())  # folded name -> card, aliases included
    text = path.read_text(encoding='utf-8-sig')
    lines = text.splitlines(keepends=True)
    added, problems = 0, []
    for index, raw in enumerate(lines):
        body = raw.rstrip('\r\n')
        cols = body.split('\t')
        if len(cols) < 2 or cols[0].strip() not in KINDS:
            continue
        card = registry.lookup(cols[1].strip())
        if card is None or card.line != index + 1:
            continue  # a bad or duplicate row: the build reports it
        if any(lang == LANGUAGE for lang, _ in card.aliases):
            continue
        alias = convert(card.name)
        if fold(alias) == card.key:
            continue
        other = taken.get(fold(alias))
        if other is not None:
            problems.append(f'{path}:{index + 1}: 「{card.name}」 converts to 「{alias}」, '
                            f'which names 「{other.name}」 (line {other.line}); no {LANGUAGE} '
                            f'alias added: write the card\'s Traditional name by hand')
            continue
        taken[fold(alias)] = card
        cols += [''] * (5 - len(cols))
        cols[4] = ';'.join(filter(None, [cols[4].strip(), f'{LANGUAGE}={alias}']))
        lines[index] = '\t'.join(cols) + raw[len(body):]
        added += 1
    new = ''.join(lines)
    if new != text:
        path.write_text(new, encoding='utf-8')
    return added, problems


def planned_sections(conf: Path, srcdir: Path | None = None) -> frozenset[str]:
    """The handbook's ``handbook_planned_sections``: conf.py's, under its
    settings file's (``<srcdir>/handbook.toml``, :mod:`handbook.core.settings`)."""
    if not conf.is_file():
        return frozenset()
    values = settings.merged(settings.conf_values(conf.parent), srcdir or conf.parent / 'source')
    return frozenset(values.get('handbook_planned_sections', ()))


def fill_catalog(path: Path, convert: Convert, registry: Registry,
                 planned: frozenset[str] = frozenset()) -> Counter:
    """Convert the catalog's messages that no one has translated by hand."""
    with path.open('rb') as f:
        catalog = read_po(f, locale=LANGUAGE, abort_invalid=True)
    counts: Counter = Counter()
    for message in catalog:
        if not message.id or not isinstance(message.id, str):
            continue  # the header; plural forms are not used
        if message.string and not message.fuzzy and FLAG not in message.flags:
            counts['reviewed'] += 1
            continue
        string = convert_message(message.id, convert, registry, planned)
        if message.string and message.fuzzy and FLAG not in message.flags:
            # a translation by hand whose original changed (make intl-update made it
            # fuzzy): converted again, and kept above it for its review (an
            # adopter's round trip: it was replaced without a word)
            message.user_comments = [*message.user_comments,
                                     f'{HAND}{message.string}']
            counts['hand'] += 1
        counts['changed'] += (string, message.fuzzy, FLAG in message.flags) != \
            (message.string, False, True)
        message.string = string
        message.flags.discard('fuzzy')
        message.flags.add(FLAG)
        message.previous_id = []
        counts['converted'] += 1
    if not counts['changed']:  # nothing converted: a catalog written by hand stays as written
        return counts
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=WIDTH)
    if buffer.getvalue() != path.read_bytes():
        path.write_bytes(buffer.getvalue())
        counts['files changed'] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--registry', type=Path, default=ROOT / 'cards.tsv',
                        help='the card registry (TSV) whose zh_TW aliases are refreshed')
    parser.add_argument('--locale-dir', type=Path, default=ROOT / 'locale',
                        help='the catalogs: <dir>/zh_TW/LC_MESSAGES/*.po')
    parser.add_argument('--config', default='s2tw', help='the OpenCC configuration')
    parser.add_argument('--srcdir', type=Path, default=ROOT / 'source',
                        help='the pages (their handbook.toml has the planned sections)')
    parser.add_argument('--conf', type=Path, default=ROOT / 'conf.py',
                        help="conf.py, for handbook_planned_sections")
    args = parser.parse_args(argv)

    catalogs = sorted((args.locale_dir / LANGUAGE / 'LC_MESSAGES').rglob('*.po'))
    if not catalogs:
        print(f'no catalogs in {args.locale_dir / LANGUAGE / "LC_MESSAGES"}: '
              'run make intl-update LANGUAGES=zh_TW first', file=sys.stderr)
        return 1
    convert = opencc_converter(args.config)
    added, problems = refresh_aliases(args.registry, convert)
    for problem in problems:
        print(problem, file=sys.stderr)
    registry = card_registry.load(args.registry)
    if not registry_rows(args.registry):
        print(f'{args.registry}: a link file (.. _`名`: URL) has no alias column: its cards '
              f'keep their names in the {LANGUAGE} messages, and link all the same; a card '
              f'whose {LANGUAGE} name a translation writes needs a row of that name (its URL)')
    else:
        print(f'{args.registry}: {added} {LANGUAGE} aliases added')
    planned = planned_sections(args.conf, args.srcdir)
    total: Counter = Counter()
    for path in catalogs:
        counts = fill_catalog(path, convert, registry, planned)
        total += counts
        print(f'{path}: {counts["converted"]} machine-converted ({counts["changed"]} new or '
              f'changed), {counts["reviewed"]} reviewed by hand'
              + (f'; {counts["hand"]} translated by hand before their original changed: '
                 f'converted again, the translation by hand kept in a comment above each '
                 f'("# {HAND}…"): review them' if counts['hand'] else ''))
    print(f'{len(catalogs)} catalogs: {total["converted"]} messages machine-converted '
          f'({total["changed"]} new or changed; flag {FLAG}: review them, then remove the '
          f'flag), {total["reviewed"]} reviewed by hand')
    return 0


if __name__ == '__main__':
    sys.exit(main())
