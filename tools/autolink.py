"""``make autolink``: link the plain 「卡名」 of pages, as the house style wants.

Rewrites every plain 「name」 whose name is in the card registry (or is an
alias) into 「`name`_」, in the given files (default: every page of the
source folder), and prints each plain 「…」 it could not resolve, as
``path:line: 「…」``, for the editor to look at (a typo, or a card to add to
the registry).  Placeholders (「○○」, 「××」, 「A」: ``is_placeholder`` of
:mod:`handbook.cards.markup`, the rule the build uses) are never linked, even
where the registry has such a row, and not printed.

It changes nothing else: not one other byte of the file (line endings, a
missing final newline and all stay as they were).  Left untouched, as
``card_markup`` (which warns ``handbook.unlinked`` about the same names)
leaves them:

* text quoted in 『…』 (effect text, quoted as printed on the card);
* section titles, comments, literal blocks, directive options, and the
  content of code, math and raw directives;
* anything between backquotes: card links, roles, literals, also where a
  line break splits them (a ``:strike:`…` `` over two lines);
* a 「…」 inside a name that is linked (「`魔界剧场「奇幻剧场」`_」);
* a name that cannot go between backquotes (``LINKABLE``: a space at an edge);
  a registry name with spaces inside its 「」 (「 卡名」) is printed with the
  reason, as the build's warning says it: write the link without the spaces;
* a name in a cell of a grid or simple table whose column has no room for
  the three characters a link adds (the table would no longer parse): it is
  printed with the reason, to widen the column by hand.  Where the cell has
  room, the spaces after its text make way, so the columns stay aligned.

It prints each change it made, ``path:line: 「名」 → 「`名`_」``, once the
page is written.  A page is written whole or not at all
(:func:`handbook.core.files.write_atomically`: a temporary file beside it,
flushed to disk and checked, then moved over it; a symbolic link is
written at its target): a full disk, a killed run or a page it may not
write leaves the page as it was, and that page's error is one line at its
path (a page that is not UTF-8 at the line of the first bad byte); the
other pages are done.  The time is linear in the pages' length.

Usage: ``python tools/autolink.py [--cards cards.tsv] [FILE…]`` or
``make autolink [FILES="source/a.rst source/b.rst"]``.  Exit status 0; 1
when a page could not be read or written; 2 when the registry cannot be
read.
"""

from __future__ import annotations

import argparse
import bisect
import errno
import itertools
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / '_ext'))

from docutils.utils import column_width, punctuation_chars  # noqa: E402

from handbook.cards.markup import LINKABLE, is_placeholder, quotes  # noqa: E402
from handbook.cards.registry import Registry, load  # noqa: E402
from handbook.core import settings  # noqa: E402
from handbook.core.files import write_atomically  # noqa: E402

#: a card link, as pages write it
_CARD_LINK = re.compile(r'「`([^`]+)`_」')

#: where docutils sees inline markup start and end: after whitespace or an
#: opening or delimiting punctuation mark (「 too), before whitespace or a
#: closing or delimiting one; a backquote between two Chinese characters is
#: a backquote, and a literal ends at the last two of a run of backquotes
_STARTS = f'(?<![^\\s{punctuation_chars.openers}{punctuation_chars.delimiters}])'
_ENDS = (f'(?![^\\s{punctuation_chars.closing_delimiters}{punctuation_chars.delimiters}'
         f'{punctuation_chars.closers}])')
#: inline markup between backquotes (literals, roles, links), on one line or
#: over several lines of a paragraph (``:strike:`…` that a line break splits)
_BACKQUOTED = re.compile(
    f'{_STARTS}``(?=\\S).*?(?<=\\S)``{_ENDS}'
    f'|{_STARTS}(?::[A-Za-z][\\w.+-]*:)?`(?=\\S)[^`]*?(?<=\\S)`(?::[A-Za-z][\\w.+-]*:|_{{1,2}})?{_ENDS}',
    re.S)
#: a role whose text runs to the line's end with no closing backquote (docutils
#: warns of it): its text is the role's, not prose to link, once the backquote is there
_UNCLOSED_ROLE = re.compile(f'{_STARTS}:[A-Za-z][\\w.+-]*:`(?=\\S)[^`\n]*$', re.M)
#: why a 「…」 is left as it is
UNKNOWN = 'not in the registry'
#: why a 「…」 holding a backquote is: a card link's markup cut short (「`卡名_」),
#: whose fix make check gives, not a name missing from the registry
MARKUP = 'broken card markup: make check says how to write it'
CRAMPED = 'its table column has no room for the link; widen the column, then run it again'
#: why a registry name with spaces inside its 「」 is left (the build says the same)
SPACED = 'spaces inside its 「」 around a registry name: write 「`{}`_」 without them'
#: the borders of a grid table (``+----+----+``) and of a simple table (``====  ====``)
_GRID_BORDER = re.compile(r'^\s*\+(?:[-=]+\+)+\s*$')
_SIMPLE_BORDER = re.compile(r'^\s*=+(?: +=+)+\s*$')
#: a section title's adornment line
_ADORNMENT = re.compile(r'^([!-/:-@\[-`{-~])\1+\s*$')
#: an explicit markup start: directive, comment, target, footnote, substitution
_EXPLICIT = re.compile(r'^(\s*)\.\.(?:\s|$)')
#: directives whose content is prose (everything else is skipped)
_PROSE_DIRECTIVE = re.compile(r'^\s*\.\.\s+(?:attention|caution|danger|error|hint|important|'
                              r'note|tip|warning|admonition|seealso|versionadded|'
                              r'versionchanged|deprecated|rubric|topic|sidebar|epigraph|'
                              r'highlights|pull-quote|compound|container|only|hlist|'
                              r'centered|list-table|table|csv-table)::')


def indent(line: str) -> int:
    return len(line) - len(line.lstrip(' '))


def prose_lines(lines: list[str]) -> list[bool]:
    """For each line: is it prose, where plain 「…」 may be linked?"""
    prose = [True] * len(lines)
    skip_deeper_than: int | None = None  # inside a skipped block (by indentation)
    literal_next, literal_indent = False, 0  # after a paragraph ending with ::
    for i, raw in enumerate(lines):
        line = raw.rstrip('\r\n')
        if not line.strip():
            prose[i] = False
            continue
        if skip_deeper_than is not None:
            if indent(line) > skip_deeper_than:
                prose[i] = False
                continue
            skip_deeper_than = None
        if literal_next and indent(line) > literal_indent:
            prose[i] = False
            skip_deeper_than = literal_indent
            literal_next = False
            continue
        literal_next = False
        m = _EXPLICIT.match(line)
        if m:
            prose[i] = False  # the directive line itself (arguments, targets, comments)
            if not _PROSE_DIRECTIVE.match(line):
                skip_deeper_than = len(m.group(1))
            continue
        if line.lstrip().startswith(':') and re.match(r'^\s*:[\w -]+:(\s|$)', line) \
                and i and not prose[i - 1] and _EXPLICIT.match(lines[i - 1] or ''):
            prose[i] = False  # a directive option
            continue
        following = lines[i + 1].rstrip('\r\n') if i + 1 < len(lines) else ''
        if _ADORNMENT.match(line) or (_ADORNMENT.match(following) and indent(line) == 0):
            prose[i] = False  # a title or its adornment
            continue
        if line.endswith('::'):
            literal_next, literal_indent = True, indent(line)
    return prose


def table_cells(lines: list[str]) -> dict[int, list[int]]:
    """The rows of the grid and simple tables of a page: for each row's line
    index, where its cells end, in display columns (wide characters count
    two, as docutils measures tables): a grid row's bars after its first, a
    simple table's column ends but the last's (which may run on)."""
    cells: dict[int, list[int]] = {}
    simple: list[int] | None = None  # the column ends of the simple table read
    grid = False
    for i, raw in enumerate(lines):
        line = raw.rstrip('\r\n')
        stripped = line.strip()
        if _GRID_BORDER.match(line):
            grid = True
            continue
        if grid and stripped.startswith('|'):
            cells[i] = [column_width(line[:at]) for at, char in enumerate(line)
                        if char == '|'][1:]
            continue
        if grid and stripped.startswith('+'):
            # a separator under some cells only (a cell spans rows): the table
            # goes on; its text beside the separator keeps its columns too
            cells[i] = [column_width(line[:at]) for at, char in enumerate(line)
                        if char in '|+'][1:]
            continue
        grid = False
        if _SIMPLE_BORDER.match(line):
            following = lines[i + 1].strip() if i + 1 < len(lines) else ''
            ends = [m.end() for m in re.finditer(r'=+', line)][:-1]
            simple = None if simple == ends and not following else ends
            continue
        if simple is not None and stripped:
            cells[i] = simple
    return cells


def fit(line: str, edits: list[tuple[int, int, str]], ends: list[int] | None
        ) -> tuple[str, list[tuple[int, int, str]]]:
    """*line* with each of *edits* ``(start, end, new)`` made; and the edits
    left out.  In a table row whose cells end at *ends* (display columns),
    an edit is made where its cell has room: as many spaces before the
    cell's end make way; the others are left out.  *ends* None: no table."""
    if ends is None:
        for start, end, new in sorted(edits, reverse=True):
            line = line[:start] + new + line[end:]
        return line, []
    grid = line.lstrip().startswith('|')
    body = line.rstrip('\r\n')
    ending, line = line[len(body):], body
    padded = False
    left = []
    for start, end, new in sorted(edits, reverse=True):
        column = column_width(line[:start])
        cell_end = next((e for e in ends if e > column), None)
        if cell_end is None:  # a simple table's last column may run on
            line = line[:start] + new + line[end:]
            continue
        short = cell_end - column_width(line)
        if short > 0:  # a row that ends before the cell does: room up to its end
            line, padded = line + ' ' * short, True
        stop, width = start, column
        while stop < len(line) and width < cell_end:
            width += column_width(line[stop])
            stop += 1
        grow = len(new) - (end - start)
        padding = (stop - end) - len(line[end:stop].rstrip(' '))
        if padding - grow < (1 if grid else 0):  # a grid cell keeps a space before its bar
            left.append((start, end, new))
            continue
        line = line[:start] + new + line[end:stop - grow] + line[stop:]
    if padded:  # no space added at the row's end
        line = line.rstrip(' ')
    return line + ending, left


def masked_lines(lines: list[str], prose: list[bool]) -> list[str]:
    """Each line with its backquoted markup blanked out (``\\0``, the same
    length), markup that spans the lines of a paragraph of prose included."""
    out = list(lines)
    start = 0
    while start < len(lines):
        end = start
        while end < len(lines) and prose[end]:
            end += 1
        masked = _BACKQUOTED.sub(lambda m: '\0' * len(m.group()), ''.join(lines[start:end]))
        masked = _UNCLOSED_ROLE.sub(lambda m: '\0' * len(m.group()), masked)
        at = 0
        for i in range(start, end):  # by offset: a 30,000-line block is one paragraph
            out[i] = masked[at:at + len(lines[i])]
            at += len(lines[i])
        start = end + 1
    return out


def autolink(text: str, registry: Registry) -> tuple[str, list[tuple[int, str, str]]]:
    """The text with its plain registry names linked; and the names left,
    ``(line, 「…」, why)``: not in the registry (:data:`UNKNOWN`), a registry
    name with spaces inside its 「」 (:data:`SPACED`), broken card markup
    (:data:`MARKUP`), or in a table column with no room (:data:`CRAMPED`).

    A 「…」 is linked where it opens and closes on one line of prose; whether
    it is effect text depends on the 『』 opened before it in its paragraph
    (the prose lines since the last blank line), so each paragraph's
    brackets are read once, in one pass: the time is linear in the length
    of the page, however long a line block is."""
    lines = text.splitlines(keepends=True)
    prose = prose_lines(lines)
    masked = masked_lines(lines, prose)
    tables = table_cells(lines)
    unresolved: list[tuple[int, str, str]] = []
    out = list(lines)
    for group in _paragraphs(lines, prose):
        starts = list(itertools.accumulate((len(masked[i]) for i in group), initial=0))
        found: dict[int, list[tuple[int, int, str, bool]]] = {}
        for start, end, content, quoted in quotes(''.join(masked[i] for i in group)):
            k = bisect.bisect_right(starts, start) - 1
            if end <= starts[k + 1]:  # opens and closes on the line
                found.setdefault(k, []).append((start - starts[k], end - starts[k], content,
                                                quoted))
        for k, found_here in found.items():
            i = group[k]
            line, edits, done_until = lines[i], [], -1
            for start, end, content, quoted in found_here:
                if quoted or start < done_until or '\0' in masked[i][start:end] \
                        or is_placeholder(content):
                    continue
                name = content.strip()  # as card_markup reads it: 「 卡名」 is 卡名
                if registry.lookup(content) is not None and LINKABLE.fullmatch(content):
                    edits.append((start, end, f'「`{content}`_」'))
                    done_until = end
                elif name != content and registry.lookup(name) is not None \
                        and LINKABLE.fullmatch(name):
                    unresolved.append((i + 1, f'「{content}」', SPACED.format(name)))
                elif '`' in content:
                    unresolved.append((i + 1, f'「{content}」', MARKUP))
                else:
                    unresolved.append((i + 1, f'「{content}」', UNKNOWN))
            line, cramped = fit(line, edits, tables.get(i))  # a table's columns stay
            unresolved += [(i + 1, lines[i][start:end], CRAMPED) for start, end, _ in cramped]
            out[i] = line
    unresolved.sort(key=lambda item: item[0])  # stable: in order within a line
    return ''.join(out), unresolved


def _paragraphs(lines: list[str], prose: list[bool]) -> list[list[int]]:
    """The indexes of the prose lines of each paragraph (a blank line ends one)."""
    groups: list[list[int]] = [[]]
    for i, (line, is_prose) in enumerate(zip(lines, prose)):
        if not line.strip():
            if groups[-1]:
                groups.append([])
        elif is_prose:
            groups[-1].append(i)
    return [group for group in groups if group]


def changes(before: str, after: str) -> list[tuple[int, str]]:
    """What :func:`autolink` changed, ``(line, '「名」 → 「`名`_」')``, in order."""
    out = []
    for number, (old, new) in enumerate(zip(before.splitlines(keepends=True),
                                            after.splitlines(keepends=True)), start=1):
        if new != old:
            names = Counter(_CARD_LINK.findall(new)) - Counter(_CARD_LINK.findall(old))
            out += [(number, f'「{name}」 → 「`{name}`_」') for name in names.elements()]
    return out


# -- reading and writing pages: located one-line errors, atomic writes ----------------

def read_page(path: Path) -> tuple[str | None, str | None]:
    """``(text, None)``, or ``(None, the error line)``: a page is read as
    UTF-8 bytes for bytes (line endings, a byte-order mark kept)."""
    try:
        data = path.read_bytes()
    except OSError as err:
        return None, f'{path}: error: cannot read it ({err.strerror or err}): not changed'
    try:
        return data.decode('utf-8'), None
    except UnicodeDecodeError as err:
        line = data.count(b'\n', 0, err.start) + 1
        return None, (f'{path}:{line}: error: not UTF-8 text (byte 0x{data[err.start]:02x}): '
                      'not changed; save it as UTF-8')


def save(path: Path, text: str) -> str | None:
    """Write *text* to the page *path* atomically (:func:`write_atomically`):
    None, or the error line, the page left as it was."""
    try:
        write_atomically(path, text.encode('utf-8'))
    except OSError as err:
        hint = {errno.ENOSPC: 'free some disk space and run it again',
                errno.EDQUOT: 'free some disk space and run it again',
                errno.EACCES: 'make it and its folder writable',
                errno.EPERM: 'make it and its folder writable',
                errno.EROFS: 'the disk is read-only'}.get(err.errno, 'run it again')
        return (f'{path}: error: cannot write it ({err.strerror or err}): it is left as it '
                f'was, no change made; {hint}')
    return None


def registry_path(confdir: Path, srcdir: Path) -> Path:
    """The handbook's registry: its settings file's ``cards``
    (:mod:`handbook.core.settings`), else conf.py's handbook_cards, relative
    to conf.py."""
    values = settings.merged(settings.conf_values(confdir), srcdir)
    return confdir / values.get('handbook_cards', 'cards.tsv')


def arguments(prog: str, description: str, argv: list[str] | None) -> argparse.Namespace:
    """The command line of make autolink and make fix: pages, folders, registry."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument('files', nargs='*', type=Path)
    parser.add_argument('--srcdir', type=Path, default=Path('source'),
                        help='the pages, when no file is given (default: source)')
    parser.add_argument('--confdir', type=Path, default=Path('.'))
    parser.add_argument('--cards', type=Path, help="the registry (default: conf.py's)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = arguments('tools/autolink.py', __doc__.split('\n\n')[0], argv)

    try:
        registry = load(args.cards or registry_path(args.confdir, args.srcdir))
    except Exception as err:  # a broken conf.py or registry: say which, no traceback
        print(f'make autolink: cannot read the settings or the registry: {err}', file=sys.stderr)
        return 2
    for problem in registry.problems:
        print(f'{registry.path}:{problem.line}: {problem.message}', file=sys.stderr)
    files = args.files or sorted(args.srcdir.rglob('*.rst'))
    changed = failed = 0
    for path in files:
        text, error = read_page(path)
        if error:
            print(error, file=sys.stderr)
            failed += 1
            continue
        new, unresolved = autolink(text, registry)
        if new != text:
            error = save(path, new)
            if error:
                print(error, file=sys.stderr)
                failed += 1
            else:
                for line, what in changes(text, new):
                    print(f'{path}:{line}: {what}')
                changed += 1
        for line, quoted, why in unresolved:
            print(f'{path}:{line}: {quoted} is not in the registry' if why == UNKNOWN
                  else f'{path}:{line}: {quoted} is not linked: {why}')
    print(f'make autolink: {changed} file{"s" if changed != 1 else ""} changed'
          + (f', {failed} not changed (errors above)' if failed else ''), file=sys.stderr)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
