"""``make fix``: apply every mechanical fix ``make check`` describes, and nothing else.

The fixes, each done only where the result is certain:

* **link plain card names**: a plain 「name」 whose name is in the registry
  (or is an alias) becomes 「`name`_」, as ``make autolink`` does
  (``tools/autolink.py``: effect text in 『』, placeholders such as 「○○」
  and names it cannot resolve stay as they are, and are listed);
* **https for ruling URLs**: the URL of a ruling date,
  ``:ruling:`17/3/24 <http://…>``` or the legacy ```17/3/24 <http://…>`__``
  (also in brackets, ```（17/3/24） <http://…>`__``: every link the build reads
  as a date), written on one line, on a host known to serve https
  (``handbook_ruling_hosts``, else the official FAQ's and the wiki's:
  ``rulings.dates.https_hosts``) becomes the same URL with ``https://``
  (``rulings.dates.https_url``);
* **emphasis split around card links**: reStructuredText cannot nest a link in
  ``**…**`` or ``*…*`` (the reader sees the backquotes), so
  ``**不能连锁发动「`星尘龙`_」的①效果**`` becomes
  ``**不能连锁发动**\\ 「`星尘龙`_」\\ **的①效果**`` (``cards.markup.split_emphasis``);
* **card names out of a page's own roles**: a link cannot sit in a role's text
  either, so in a role the page declares itself (``.. role:: red``, no base
  role), ``:red:`「技能抽取」的效果不能发动。``` becomes
  ``「`技能抽取`_」\\ :red:`的效果不能发动。``` (``cards.markup.split_role``):
  the name linked as above, the role split around it.  The declarations are
  read on the page, in the files it includes (``.. include::``) and in
  conf.py's ``rst_prolog``.  Struck text is left alone (the build links its
  names);
* **tabs and spaces at a line's end** (sphinx-lint's notes), on every line:
  a tab becomes the spaces up to the next multiple of 8 columns, spaces at a
  line's end go, and a page that does not end with a line break gets one
  (the page's own): docutils reads the page so already, nothing a reader
  sees changes (:func:`fix_spaces`);
* **title underlines too short** (docutils' warning): a section title's
  underline, and its overline, as long as the title as docutils measures
  it (a Chinese character counts 2) (:func:`fix_underlines`);
* **repeated registry rows**: a row of the registry that repeats an earlier
  row exactly is removed (``cards.registry.redundant_rows``).  Rows that
  spell one card two ways are aliases: they stay.

Only the pages' prose is touched (but for tabs and spaces at a line's end,
and titles' adornments):
not section titles, comments, literal blocks, directive options or the
content of code directives (autolink's ``prose_lines``), and a fix never
crosses a line.  Everything else stays byte for byte: line endings, the
other rows of the registry.  A second run changes nothing.

It prints each change on its own line, ``path:line: <what changed>`` (the
line as it was before the run: a removed registry row at its old line), and
on stderr the 「…」 it left as they are and a count of the files changed.

**What it guarantees.**  A file is written whole or not at all
(:func:`handbook.core.files.write_atomically`: a temporary file beside it,
flushed to the disk and checked complete, then moved over it; a symbolic
link is written at its target, and the file keeps its permissions).  A
full disk, a page it may not write, a run killed at any moment leave each
page either fixed or as it was, never cut.  A change is printed once its
file is written: what it prints was done.  Each error is one line at the
file (a page that is not UTF-8 at the line of its first bad byte), and the
other files are fixed.  The time is linear in the length of the pages,
however long a line block is (a yearly FAQ page's).

Which pages: FILES, else every ``*.rst`` of the source folder (the registry
excluded when it is kept there).  The registry is fixed in a whole-handbook
run, or when FILES names it.

The settings are the handbook's own, as its build sees them, read without
starting Sphinx (loading every extension takes seconds): ``--cards`` (``make
fix CARDS=…``), else the settings file ``<srcdir>/handbook.toml``
(``handbook.core.settings``), else conf.py's values (read with
``sphinx.config.Config.read``, as Sphinx reads them).  Where none of them
names a registry it is ``cards.tsv`` beside conf.py; the hosts whose ruling
URLs become https are those the build notes (``rulings.dates.https_hosts``).

Usage: ``python tools/fix.py [--srcdir source] [--confdir .] [--cards PATH]
[FILE…]`` or ``make fix [FILES="source/a.rst"] [SOURCEDIR=…] [CARDS=…]``.
Exit status 0, also when something was changed; 1 when a file could not be
read (missing, or not UTF-8 text) or written (the others are fixed); 2 when
the settings or the registry cannot be read.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / '_ext'))
sys.path.insert(0, str(ROOT / 'tools'))

from autolink import (  # noqa: E402
    arguments,
    autolink,
    changes,
    fit,
    prose_lines,
    read_page,
    save,
    table_cells,
)
from docutils.utils import column_width, punctuation_chars  # noqa: E402
from handbook.cards.markup import split_emphasis, split_role  # noqa: E402
from handbook.cards.registry import Registry, load, redundant_rows  # noqa: E402
from handbook.rulings.dates import (  # noqa: E402
    DEFAULT_FAQ_URL,
    https_hosts,
    https_url,
    link_date,
)

#: a card link, as pages write it
_CARD_LINK = re.compile(r'「`([^`]+)`_」')
#: inline literals: never changed
_LITERAL = re.compile(r'``.+?``')
#: the URL of a ruling date: :ruling:`17/3/24 <URL>` or the legacy link
#: `17/3/24 <URL>`__ (``legacy``; without underscores it is no link)
_RULING_URL = re.compile(r'(?::ruling:`[^`<]*<|(?<!`)(?P<legacy>`)(?P<text>[^`<]+)<)'
                         r'(?P<url>(?i:http)://[^>`\s]+)>`(?P<underscores>_*)')
#: where docutils sees inline markup start and end (its Inliner's rules): after
#: whitespace, an opening bracket or a delimiter; before whitespace, a closing
#: bracket or a delimiter.  Chinese text needs `\ ` there (文字\ **强调**).
_START = rf'(?:^|(?<=[\s{punctuation_chars.openers}{punctuation_chars.delimiters}]))'
_END = (rf'(?=$|[\s{punctuation_chars.closing_delimiters}{punctuation_chars.delimiters}'
        rf'{punctuation_chars.closers}])')
#: strong emphasis, or emphasis, on one line (the span is checked by split_emphasis)
_EMPHASIS = re.compile(rf'{_START}(?<!\*)(?:\*\*(?=\S).*?(?<=[^\s\\])\*\*'
                       rf'|\*(?=[^\s*]).*?(?<=[^\s\\*])\*)(?!\*){_END}')


#: a role the page declares itself, its options indented under it
_ROLE_DECLARATION = re.compile(r'^\.\. +role:: *(?P<name>[A-Za-z0-9_.+-]+) *(?P<base>\(.*\))? *\r?$'
                               r'(?P<options>(?:\n[ \t]+\S.*)*)', re.M)
#: the toolchain's own roles (handbook.rulings): a page's declaration keeps them
PROVIDED = ('strike', 'ruling')


@dataclasses.dataclass(frozen=True)
class Change:
    """One change of a file, at its line (before the run)."""

    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f'{self.path}:{self.line}: {self.what}'


@dataclasses.dataclass(frozen=True)
class Settings:
    """What the fixes need from the handbook's settings."""

    registry: Path
    ruling_hosts: tuple[str, ...]
    #: conf.py's rst_prolog, which every page begins with (its role declarations)
    prolog: str = ''


#: the config values the fixes read
SETTINGS = ('handbook_settings', 'handbook_cards', 'handbook_ruling_hosts', 'handbook_faq_url')


def read_settings(confdir: Path, srcdir: Path, cards: Path | None = None) -> Settings:
    """The handbook's settings, as a build would see them: *cards* (the
    command line), else the settings file's (``handbook.toml`` in *srcdir*),
    else conf.py's; a registry ``cards.tsv`` beside conf.py and no ruling
    host where none of them says."""
    from sphinx.config import Config
    from sphinx.util.tags import Tags

    from handbook.core import settings

    config = Config.read(confdir, overrides={}, tags=Tags())
    for name in SETTINGS:  # conf.py's value, or None
        config.add(name, None, 'env', types=frozenset())
    conf = {name: config[name] for name in SETTINGS if config[name] is not None}
    prolog = config['rst_prolog'] or ''
    values = settings.merged(conf, srcdir)
    registry = cards if cards is not None else confdir / values.get('handbook_cards', 'cards.tsv')
    hosts = https_hosts(values.get('handbook_ruling_hosts') or (),
                        values.get('handbook_faq_url') or DEFAULT_FAQ_URL)
    return Settings(registry, tuple(hosts), prolog)


# -- the fixes of one line: (new line, [what changed]) ----------------------------------

def masked(line: str) -> str:
    """*line* with its inline literals blanked out (NULs), same length."""
    return _LITERAL.sub(lambda m: '\0' * len(m.group()), line)


def rewrite(line: str, pattern: re.Pattern, new_of: Callable[[re.Match, str], str | None],
            group: str | int = 0, cells: list[int] | None = None) -> tuple[str, list[str]]:
    """*line* with each span of *group* that *pattern* finds, outside its
    inline literals, replaced by ``new_of(match, span)`` where that gives
    another text; and what changed, ``'span → new'`` each.  In a table's row
    (*cells*: where its cells end, :func:`autolink.table_cells`), only where
    the cell has room, the spaces after the text making way (:func:`autolink.fit`)."""
    edits, raws = [], []
    for m in pattern.finditer(masked(line)):
        if '\0' in m.group(group):
            continue
        raw = line[m.start(group):m.end(group)]
        new = new_of(m, raw)
        if new is not None and new != raw:
            edits.append((m.start(group), m.end(group), new))
            raws.append(raw)
    line, left = fit(line, edits, cells)
    return line, [f'{raw} → {edit[2]}' for edit, raw in zip(edits, raws) if edit not in left]


def fix_https(line: str, hosts: tuple[str, ...], cells: list[int] | None = None
              ) -> tuple[str, list[str]]:
    """The http URLs of ruling dates: of the role, and of the links whose text
    the build reads as a date (``17/3/24``, ``（17/3/24）``: ``link_date``)."""
    return rewrite(line, _RULING_URL, lambda m, url: None if m['legacy'] and (
        not m['underscores'] or link_date(m['text']) is None) else https_url(url, hosts), 'url',
        cells)


def fix_emphasis(line: str, cells: list[int] | None = None) -> tuple[str, list[str]]:
    return rewrite(line, _EMPHASIS,
                   lambda _m, raw: split_emphasis(raw) if _CARD_LINK.search(raw) else None,
                   cells=cells)


def own_roles(text: str) -> re.Pattern | None:
    """A pattern of the roles *text* (a page, after conf.py's prolog)
    declares whose text is plain text to the build, written on one line
    (``:red:`…```): no base role, not the toolchain's, not struck text
    (``:class: strike``); None if none."""
    names = [m['name'] for m in _ROLE_DECLARATION.finditer(text)
             if not m['base'] and m['name'] not in PROVIDED
             and not re.search(r':class:\s*strike\s*$', m['options'], re.M)]
    if not names:
        return None
    alternatives = '|'.join(map(re.escape, sorted(set(names))))
    return re.compile(rf'{_START}(?P<role>:(?:{alternatives}):`)(?P<text>(?=\S)[^`]*?(?<=[^\s\\]))'
                      rf'`{_END}')


_INCLUDE = re.compile(r'^[ \t]*\.\. +include:: *(?P<path>\S.*?) *\r?$', re.M)


def included(page: Path, text: str, srcdir: Path, depth: int = 3) -> str:
    """The text of the files *text* (the page *page*) includes, and of the
    files they include, *depth* levels down: where a page's role
    declarations may be.  Each file is read whole (an include's
    ``:start-after:`` and ``:end-before:`` aside: a role declared outside
    the part included is taken all the same).  A path is docutils': ``/``
    the source folder, else beside the including file; ``<…>`` (docutils'
    own files), and what is no regular file or cannot be read, are left
    out (the build reports those)."""
    out = []
    for m in _INCLUDE.finditer(text):
        name = m['path']
        if name.startswith('<'):
            continue
        path = srcdir / name.lstrip('/') if name.startswith('/') else page.parent / name
        try:
            if not path.is_file():  # a folder, a device (/dev/zero would never end)
                continue
            found = path.read_text(encoding='utf-8')
        except (OSError, UnicodeDecodeError):
            continue
        out.append(found)
        if depth > 1:
            out.append(included(path, found, srcdir, depth - 1))
    return '\n'.join(out)


def fix_roles(line: str, roles: re.Pattern | None, registry: Registry,
              cells: list[int] | None = None) -> tuple[str, list[str]]:
    if roles is None or '「' not in line:
        return line, []

    def split(m: re.Match, _raw: str) -> str | None:
        text = m['text']  # no literal inside: the role's text as a line of prose
        linked, _unresolved = autolink(text, registry)
        return split_role(f'{m["role"]}{linked}`') if linked != text else None

    return rewrite(line, roles, split, cells=cells)


def fix_page(text: str, registry: Registry, hosts: tuple[str, ...], prolog: str = ''
             ) -> tuple[str, list[tuple[int, str]], list[tuple[int, str, str]]]:
    """A page's text with every fix applied; the changes ``(line, what)``;
    the 「…」 left as they are ``(line, 「…」, why)``."""
    linked, unresolved = autolink(text, registry)
    roles = own_roles(f'{prolog}\n{text}')
    lines = linked.splitlines(keepends=True)
    prose = prose_lines(lines)
    tables = table_cells(lines)  # a row's fixes keep its columns
    done: dict[int, list[str]] = {}
    for number, what in changes(text, linked):
        done.setdefault(number, []).append(what)
    for number, (line, is_prose) in enumerate(zip(lines, prose), start=1):
        if not is_prose:
            continue
        body, cells = line.rstrip('\r\n'), tables.get(number - 1)
        body, https = fix_https(body, hosts, cells)
        body, emphasis = fix_emphasis(body, cells)
        body, in_roles = fix_roles(body, roles, registry, cells)
        if https or emphasis or in_roles:
            done.setdefault(number, []).extend(https + emphasis + in_roles)
        lines[number - 1] = body + line[len(line.rstrip('\r\n')):]
    for number, what in fix_whitespace(lines):
        done.setdefault(number, []).append(what)
    for number, what in fix_underlines(lines):
        done.setdefault(number, []).append(what)
    return ''.join(lines), [(n, what) for n in sorted(done) for what in done[n]], unresolved


#: a title's adornment: one punctuation character, repeated (docutils' own set)
_ADORNED = re.compile(r'^([!-/:-@\[-`{-~])\1{3,}$')
#: a line docutils reads as something else before a title: a directive or
#: comment, a line block, a list item, a field
_NOT_A_TITLE = re.compile(r'^(?:\.\.(?:\s|$)|\|(?:\s|$)|[-*+•‣⁃](?:\s|$)|(?:\d+|#|\w)[.)]\s'
                          r'|\((?:\d+|#|\w)\)\s|:)')


def fix_underlines(lines: list[str]) -> list[tuple[int, str]]:
    """Each section title's underline (and overline) that is shorter than
    the title, as docutils measures it (a Chinese character counts 2: its
    warning "Title underline too short"), made as long; the changes.  Only
    a title docutils reads as one: at the line's start, after a blank line
    or its overline, over an adornment of four characters or more (a
    shorter one is text to docutils)."""
    done = []
    bodies = [line.rstrip('\r\n') for line in lines]
    for i in range(1, len(lines)):
        under, title = bodies[i], bodies[i - 1]
        m = _ADORNED.match(under)
        if not m or not title.strip() or title[0].isspace() or _ADORNED.match(title) \
                or _NOT_A_TITLE.match(title):
            continue
        over = i >= 2 and bodies[i - 2] == under
        if not (i == 1 or not bodies[i - 2].strip() or over):
            continue
        wide = column_width(title.rstrip())
        if len(under) >= wide:
            continue
        for at in (i, i - 2) if over else (i,):
            lines[at] = m[1] * wide + lines[at][len(bodies[at]):]
        done.append((i + 1, f'title underline made {wide} characters long, as its title'))
    return done


def fix_whitespace(lines: list[str]) -> list[tuple[int, str]]:
    """Every line of *lines* (each with its line break, as ``splitlines``
    gives them) as docutils reads it (:func:`fix_spaces`), and a line break
    after the last (the page's own); the changes ``(line, what)``."""
    done = []
    for number, line in enumerate(lines, start=1):
        body = line.splitlines()[0] if line.strip('\r\n') else ''  # its break as splitlines
        spaced = fix_spaces(body)  # sees it: \n, \r\n, or U+2028 and its kind
        if spaced != body:
            tabs, spaces = '\t' in body.rstrip(), body != body.rstrip()
            done.append((number, ' and '.join(
                ['tabs written as spaces'] * tabs + ["spaces at the line's end deleted"] * spaces)))
            lines[number - 1] = spaced + line[len(body):]
    if lines and not lines[-1].endswith(('\n', '\r')):
        lines[-1] += line_ending(lines)
        done.append((len(lines), 'final line break added'))
    return done


def fix_spaces(line: str) -> str:
    """*line* as docutils reads it (``docutils.statemachine.string2lines``):
    each tab the spaces up to the next multiple of 8 columns, no spaces at its
    end (sphinx-lint's notes: nothing a reader sees changes)."""
    return line.expandtabs(8).rstrip()


def line_ending(lines: list[str]) -> str:
    """The line ending the page's lines end with (its first): ``\\n`` for a page of one line."""
    first = lines[0]
    return first[len(first.rstrip('\r\n')):] or '\n'


def fix_registry(text: str, redundant: list[int]) -> tuple[str, list[tuple[int, str]]]:
    """The registry without the rows *redundant* (line numbers) names; the changes.
    Its lines end at line feeds only, as the registry counts them."""
    lines = text.split('\n')
    first: dict[str, int] = {}
    changes = []
    for number, line in enumerate(lines, start=1):
        row = line.strip().lstrip('\ufeff')
        if number in redundant:
            earlier = first.get(row)
            shown = row.replace('\t', ' ')
            changes.append((number, f'removed the row {shown!r}: it repeats line {earlier}'
                            if earlier else f'removed the row {shown!r}: it repeats an earlier row'))
        else:
            first.setdefault(row, number)
    kept = [line for number, line in enumerate(lines, start=1) if number not in redundant]
    return '\n'.join(kept), changes


# -- the run --------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    args = arguments('tools/fix.py', __doc__.split('\n\n')[0], argv)

    try:
        settings = read_settings(args.confdir, args.srcdir, args.cards)
        registry = load(settings.registry)
    except Exception as err:  # a broken conf.py or registry: say which, no traceback
        print(f'make fix: cannot read the settings or the registry: {err}', file=sys.stderr)
        return 2
    registry_file = settings.registry.resolve()
    pages = args.files or [p for p in sorted(args.srcdir.rglob('*.rst'))
                           if p.resolve() != registry_file]
    fix_the_registry = not args.files or any(p.resolve() == registry_file for p in args.files)
    changed, failed = 0, 0

    def done(path: Path, text: str, new: str, what: list[tuple[int, str]]) -> None:
        """Write the fixed file, then print what changed: only changes made."""
        nonlocal changed, failed
        if new == text:
            return
        error = save(path, new)
        if error:
            print(error, file=sys.stderr)
            failed += 1
            return
        for line, change in what:
            print(Change(path.as_posix(), line, change))
        changed += 1

    for path in pages:
        if path.resolve() == registry_file:
            continue
        text, error = read_page(path)
        if error:  # a missing or binary file: say so, fix the others
            print(error, file=sys.stderr)
            failed += 1
            continue
        prolog = f'{settings.prolog}\n{included(path, text, args.srcdir)}'
        new, what, unresolved = fix_page(text, registry, settings.ruling_hosts, prolog)
        done(path, text, new, what)
        for line, quoted, why in unresolved:
            print(f'{path.as_posix()}:{line}: {quoted} left as it is: {why}', file=sys.stderr)
    if fix_the_registry:
        text, error = read_page(settings.registry)
        if error:
            print(error, file=sys.stderr)
            failed += 1
        else:
            new, spaced = text, []
            if settings.registry.suffix == '.rst':  # linted as a page (a TSV's tabs: columns)
                lines = text.splitlines(keepends=True)
                spaced = fix_whitespace(lines)  # no line comes or goes: the rows' numbers stay
                new = ''.join(lines)
            new, what = fix_registry(new, redundant_rows(settings.registry))
            done(settings.registry, text, new, sorted([*what, *spaced]))
    print(f'make fix: {changed} file{"s" if changed != 1 else ""} changed'
          + (f', {failed} not changed (errors above)' if failed else ''), file=sys.stderr)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
