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
* a name that cannot go between backquotes (``LINKABLE``: a space at an edge).

Usage: ``python tools/autolink.py [--cards cards.tsv] [FILE…]`` or
``make autolink [FILES="source/a.rst source/b.rst"]``.
"""

from __future__ import annotations

import argparse
import re
import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / '_ext'))

from handbook.cards.markup import LINKABLE, is_placeholder, quotes  # noqa: E402
from handbook.cards.registry import Registry, load  # noqa: E402
from handbook.core import settings  # noqa: E402

#: inline markup between backquotes (literals, roles, links), on one line or
#: over several lines of a paragraph (``:strike:`…` that a line break splits)
_BACKQUOTED = re.compile(r'``.+?``|`[^`]*`_{0,2}', re.S)
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
        for i in range(start, end):
            out[i], masked = masked[:len(lines[i])], masked[len(lines[i]):]
        start = end + 1
    return out


def autolink(text: str, registry: Registry) -> tuple[str, list[tuple[int, str]]]:
    """The text with its plain registry names linked; and the (line, 「…」) not resolved."""
    lines = text.splitlines(keepends=True)
    prose = prose_lines(lines)
    unresolved: list[tuple[int, str]] = []
    out = []
    carry = ''  # the paragraph so far: 『』 may open on an earlier line
    for number, (line, is_prose, masked) in enumerate(
            zip(lines, prose, masked_lines(lines, prose)), start=1):
        if not line.strip():
            carry = ''
        if not is_prose:
            out.append(line)
            continue
        edits = []
        done_until = -1
        for start, end, content, quoted in quotes(carry + masked):
            start, end = start - len(carry), end - len(carry)
            if start < 0 or quoted or start < done_until or '\0' in masked[start:end] \
                    or is_placeholder(content):
                continue
            if registry.lookup(content) is not None and LINKABLE.fullmatch(content):
                edits.append((start, end, f'「`{content}`_」'))
                done_until = end
            else:
                unresolved.append((number, f'「{content}」'))
        for start, end, new in reversed(edits):
            line = line[:start] + new + line[end:]
        carry += masked
        out.append(line)
    return ''.join(out), unresolved


def registry_path(confdir: Path, srcdir: Path) -> Path:
    """The handbook's registry: its settings file's ``cards``
    (:mod:`handbook.core.settings`), else conf.py's handbook_cards, relative
    to conf.py."""
    values = settings.merged(runpy.run_path(str(confdir / 'conf.py')), srcdir)
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

    registry = load(args.cards or registry_path(args.confdir, args.srcdir))
    for problem in registry.problems:
        print(f'{registry.path}:{problem.line}: {problem.message}', file=sys.stderr)
    files = args.files or sorted(args.srcdir.rglob('*.rst'))
    changed = 0
    for path in files:
        with open(path, encoding='utf-8', newline='') as f:
            text = f.read()
        new, unresolved = autolink(text, registry)
        for line, quoted in unresolved:
            print(f'{path}:{line}: {quoted} is not in the registry')
        if new != text:
            with open(path, 'w', encoding='utf-8', newline='') as f:
                f.write(new)
            changed += 1
    print(f'make autolink: {changed} file{"s" if changed != 1 else ""} changed', file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
