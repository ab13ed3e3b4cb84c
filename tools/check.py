"""``make check``: every problem of the handbook, one line each, at its file and line.

Runs, offline and without writing any output:

* Sphinx with the ``dummy`` builder (reads and resolves every page with the
  project's extensions, writes nothing), in a fresh environment so that
  every warning is reported, with its doctrees in a temporary folder;
* sphinx-lint on the sources (the checkers are chosen in ``LINT_CHECKERS``),
  with ``-j`` above 1 in a process of its own while Sphinx resolves the pages;
* a look at the card registry for rows no page links to (a note).

Every report has one of three severities (``_ext/handbook/core/reports.py``):
``error`` (broken for readers; Sphinx's ``ERROR`` and ``CRITICAL``),
``warning`` (a house rule; Sphinx's ``WARNING``, and sphinx-lint's
findings) and ``note`` (style with a mechanical fix, or information).  Notes
are not warnings: the extensions log them at info level, to Sphinx's status
stream, as ``path:line: note: … [handbook.<subtype>]``; this runner reads
them there and ignores every other line of that stream (progress, docutils'
INFO-level messages).

It prints one line per error and warning, sorted by file and line::

    source/negation.rst:12: error: unknown card name 「旋风的主人」: … [handbook.card]

(paths relative to the current folder, the repository; a problem about a
whole file, such as a page in no toctree, is at its line 1), then the notes
grouped, one line per kind, with their count and first three locations::

    note: handbook.ruling-https ×142 (source/a.rst:3, source/a.rst:9, source/b.rst:1, …): …

(the text says what the kind is and how to fix it, from ``NOTE_KINDS``; a
kind not listed there gets a line per message, its quoted texts and numbers
aside, with ``e.g.`` and the first note's message where it has more than one
note), then the folder and registry read, and one summary line with the
counts of errors and warnings by kind and the number of notes::

    make check: 2 errors (handbook.card 1, handbook.registry 1), 1 warning (handbook.unlinked 1); 143 notes

``--notes each`` (``make check NOTES=each``) prints every note on its own
line instead, sorted among the errors and warnings.  ``make fix``
(``tools/fix.py``) applies the mechanical fixes that notes and some
warnings describe.

With the environment variable ``GITHUB_ACTIONS`` set, each error and warning
is also printed as a workflow annotation (``::error file=…,line=…::…``,
``::warning …``), so that it shows on the pull request's diff, and each kind
of note as one ``::notice`` at its first location: GitHub shows only a few
annotations of each type per step, and a hundred notes of one kind say
nothing more than one that gives their count.

Exit status: 0 when there is no error or warning (notes never fail), 1 when
there is one, 2 when the check itself could not run (a broken conf.py, an
unreadable registry).

Usage: ``python tools/check.py [--srcdir source] [--confdir .] [--jobs N]
[-D name=value]… [--notes grouped|each]`` (``make check`` passes SOURCEDIR,
CONFDIR, JOBS, CARDS).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import io
import multiprocessing
import os
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / '_ext'))

from handbook.core.reports import NOTE  # noqa: E402

#: sphinx-lint's checkers that run, and why the others do not
LINT_CHECKERS = {
    'enable': [],  # nothing beyond sphinx-lint's default set
    'disable': [
        # off by default already; `卡名` without a role is reported, with the
        # card-specific fix, by card_markup (handbook.card-markup) in every build
        'default-role',
        # off by default already; a ruling is one line of Chinese prose,
        # often over 80 characters, and reflowing it would break line blocks
        'line-too-long',
        # the house style's :ruling:`17/3/24 <https://…>` looks to it like a link
        # without its underscore; a date link written `17/3/24 <https://…>`
        # without __ is reported by card_markup (handbook.markup)
        'missing-underscore-after-hyperlink',
        # next to Chinese text the fix is `\ `, not a space (详见\ :ref:`标签`);
        # card_markup reports such a role, with that fix (handbook.markup)
        'missing-space-before-role',
    ],
}

#: sphinx-lint's checkers of style with a mechanical fix: notes (they fail no
#: build: nothing a reader sees changes), in words that say the fix (its own
#: say none: "OMG TABS!!!1"); its other checkers' reports are warnings
LINT_STYLE = {
    'horizontal-tab': 'a tab: write spaces instead (docutils reads a tab as the spaces up to '
                      'the next multiple of 8 columns; make fix does it)',
    'trailing-whitespace': 'spaces at the end of the line: delete them (make fix does it)',
    'missing-final-newline': 'the file does not end with a line break: add one (make fix does '
                             'it)',
}

#: what a kind of note is and how to fix it: the text of its grouped line
NOTE_KINDS = {
    'sphinx-lint.horizontal-tab': 'tabs: write spaces instead (docutils reads a tab as the '
                                  'spaces up to the next multiple of 8 columns; make fix does '
                                  'it)',
    'sphinx-lint.trailing-whitespace': 'spaces at the ends of lines: delete them (make fix '
                                       'does it)',
    'sphinx-lint.missing-final-newline': 'files that do not end with a line break: add one '
                                         '(make fix does it)',
    'handbook.ruling-https': 'http:// ruling URLs on hosts that serve https; make fix '
                             'rewrites them',
    'handbook.registry-alias': 'registry rows that spell an earlier row\'s card another way: '
                               'both spellings link that card; keep both while pages write both',
    'handbook.unused-card': 'registry rows that no page links to; keep a row if a page '
                            'will need it, else remove it',
}
#: locations shown on a grouped note line
NOTE_LOCATIONS = 3

#: one record of Sphinx's warning stream (docutils' messages span several lines)
_RECORD = re.compile(r'^(?:(?P<location>.*?): )?(?P<level>WARNING|ERROR|CRITICAL): '
                     r'(?P<message>.*?)(?: \[(?P<kind>[\w.-]+)\])?\s*$', re.S)
#: one note of Sphinx's status stream (core/reports.py's note())
_NOTE = re.compile(rf'^(?:(?P<location>[^\n]*?): )?{NOTE}(?P<message>.*?) '
                   r'\[(?P<kind>handbook\.[\w.-]+)\]$', re.S)
_ESCAPES = re.compile(r'\x1b\[[0-9;]*[A-Za-z]')
#: the card an unknown name's report suggests (cards/links.py's did-you-mean)
_DID_YOU_MEAN = re.compile(r'did you mean 「(.+?)」\?')


@dataclasses.dataclass(frozen=True, order=True)
class Problem:
    path: str
    line: int
    severity: str  # 'error', 'warning' or 'note'
    message: str
    kind: str

    @property
    def failure(self) -> bool:
        return self.severity != 'note'

    @property
    def where(self) -> str:
        return f'{self.path}:{self.line}' if self.path else ''

    def __str__(self) -> str:
        where = f'{self.where}: ' if self.path else ''
        return f'{where}{self.severity}: {self.message} [{self.kind}]'

    def annotation(self, message: str | None = None) -> str:
        """The GitHub workflow command showing this problem (with *message*
        instead of its own, for a group of notes)."""
        command = {'error': 'error', 'warning': 'warning'}.get(self.severity, 'notice')
        props = [f'title={_escape(self.kind, True)}']
        if self.path:
            props[:0] = [f'file={_escape(self.path, True)}', f'line={self.line}']
        return f'::{command} {",".join(props)}::{_escape(message or self.message)}'


def _escape(text: str, prop: bool = False) -> str:
    text = text.replace('%', '%25').replace('\r', '%0D').replace('\n', '%0A')
    return text.replace(':', '%3A').replace(',', '%2C') if prop else text


def relative(path: str) -> str:
    if not path or path.startswith('<'):
        return ''
    rel = os.path.relpath(os.path.abspath(path))
    return path if rel.startswith('..') else Path(rel).as_posix()


def located(location: str | None, severity: str, message: str, kind: str) -> Problem:
    """A problem at Sphinx's ``path:line`` location (a path alone: its line 1)."""
    path, line = location or '', 0
    if re.search(r':\d*$', path):
        path, _, number = path.rpartition(':')
        line = int(number or 0)
    path = relative(path)
    return Problem(path, line or (1 if path else 0), severity, message, kind)


def _underline_fix(message: str, block: str) -> str:
    from docutils.utils import column_width

    lines = [line for line in block.splitlines() if line.strip()]
    if len(lines) < 2:
        return message
    line = 'Overline and underline' if 'overline' in message else 'Underline'
    return (f'{message} {line} it with {column_width(lines[-2].rstrip())} characters or '
            'more: a Chinese character counts 2 (readers see the title all the same; make fix '
            'does it)')


#: Sphinx's and docutils' messages that say no fix: (the message's pattern, the
#: message with its fix, made from the match and the source block docutils
#: quotes after it, and the severity where the library's undersays it)
LIBRARY_FIXES: list[tuple[re.Pattern, Callable[[re.Match, str], str], str | None]] = [
    (re.compile(r'^Problems with "include" directive path: InputError: \[Errno 2\] No such '
                r"file or directory: '(?P<path>[^']*)'\.?$"),
     lambda m, _b: f"the included file {m['path']} does not exist: create it, or correct the "
                   "path (relative to the page)", None),
    (re.compile(r'^image file not readable: (?P<path>.+)$'),
     lambda m, _b: f"image file not readable: {m['path']}: add it, or correct the path "
                   '(relative to the page)', 'error'),  # readers see a broken image
    (re.compile(r"^toctree contains reference to nonexisting document '(?P<doc>[^']*)'$"),
     lambda m, _b: f"toctree contains reference to nonexisting document '{m['doc']}': remove "
                   f"the entry, or restore its page, {m['doc']}.rst", None),
    (re.compile(r"^document isn't included in any toctree$"),
     lambda _m, _b: "document isn't included in any toctree: add it to a toctree (the index "
                    "page's), or write :orphan: as its first line if links alone lead to it",
     None),
    (re.compile(r'^Unknown (?P<what>directive type|interpreted text role) "(?P<name>[^"]*)"\.$'),
     lambda m, _b: f'{m[0]} Check its name: no extension loaded gives a '
                   f"{'directive' if m['what'].startswith('directive') else 'role'} "
                   f"{m['name']!r}", None),
    (re.compile(r'^Unexpected indentation\.$'),
     lambda m, _b: f'{m[0]} Indent the line as the line above it, or leave a blank line '
                   'before it if it starts a block of its own', None),
    (re.compile(r'^Title (?:underline|overline) too short\.$'),
     lambda m, block: _underline_fix(m[0], block), None),
]


def with_fix(message: str, block: str, severity: str) -> tuple[str, str]:
    """*message* (Sphinx's or docutils') with its fix, where it says none,
    and its severity (a CI maintainer's round trip: every report needs one)."""
    for pattern, fixed, raised in LIBRARY_FIXES:
        m = pattern.match(message)
        if m:
            return fixed(m, block), raised or severity
    return message, severity


class WarningStream(io.StringIO):
    """Sphinx's warning stream: each write is one record (an error or a warning)."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[Problem] = []

    def write(self, text: str) -> int:
        m = _RECORD.match(_ESCAPES.sub('', text).strip())
        if m is None:  # not a warning record (should not happen): keep it visible
            self.problems.append(Problem('', 0, 'error', text.strip(), 'sphinx'))
            return len(text)
        severity = 'warning' if m['level'] == 'WARNING' else 'error'
        # its first paragraph, on one line (an include's reason is on its second
        # line); docutils quotes the source block after it
        said, _, block = m['message'].strip().partition('\n\n')
        message, severity = with_fix(re.sub(r'\s*\n\s*', ' ', said), block, severity)
        self.problems.append(located(m['location'], severity, message, m['kind'] or 'sphinx'))
        return len(text)


class StatusStream(io.StringIO):
    """Sphinx's status stream: each write is one record, or a piece of a
    progress line.  Keeps the notes; drops everything else (progress,
    docutils' INFO-level messages) without storing it."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[Problem] = []

    def write(self, text: str) -> int:
        # a progress line may still be open before the note (no newline, or a \r)
        record = _ESCAPES.sub('', text).rstrip('\n').rpartition('\r')[2].strip()
        m = _NOTE.match(record)
        if m is not None:
            message = re.sub(r'\s*\n\s*', ' ', m['message'].strip())  # on one line
            self.problems.append(located(m['location'], 'note', message, m['kind']))
        return len(text)


def run_sphinx(srcdir: Path, confdir: Path, overrides: dict[str, str], jobs: int,
               after_read: Callable[[], object] | None = None,
               ) -> tuple[list[Problem], object | None]:
    """Read and resolve every page (dummy builder); the problems and the
    environment.  *after_read* is called once every page is read."""
    from sphinx.application import Sphinx
    from sphinx.errors import SphinxError
    from sphinx.util.docutils import docutils_namespace, patch_docutils

    stream, status = WarningStream(), StatusStream()
    with tempfile.TemporaryDirectory(prefix='handbook-check-') as tmp, \
            patch_docutils(confdir), docutils_namespace():
        try:
            app = Sphinx(srcdir, confdir, Path(tmp, 'out'), Path(tmp, 'doctrees'), 'dummy',
                         confoverrides=overrides, status=status, warning=stream,
                         freshenv=True, parallel=jobs)
            if after_read is not None:
                def read(app, env) -> None:  # (what env-updated returns is pages to write)
                    after_read()
                app.connect('env-updated', read)
            app.build(force_all=True)
        except SphinxError as err:
            conf = relative(str(confdir / 'conf.py'))
            return [*stream.problems, Problem(conf, 1, 'error', str(err).split('\n')[0],
                                              'config')], None
    return stream.problems + status.problems, app.env


def unused_cards(env, reported: list[Problem] = ()) -> list[Problem]:
    """Registry rows that no page links to: notes ``handbook.unused-card``
    (``suppress_warnings`` can silence them, as any note); but not a row that
    a did-you-mean of *reported* names (a page misspells its card: the
    row is the one to keep), nor one a page quotes plainly, 「卡名」 (the
    unlinked warning says to link it: the row is needed)."""
    from handbook.cards.links import registry as card_registry
    from handbook.cards.links import used_keys
    from handbook.cards.markup import QUOTES
    from handbook.cards.registry import fold
    from handbook.core.reports import suppressed
    from handbook.store import store

    if 'card' not in env.domains or suppressed(env.config, 'unused-card'):
        return []  # a handbook without card links
    if getattr(env.config, 'handbook_not_built', None):
        return []  # a page that cannot be read may use any row (a round trip was told to
        # remove the rows it alone uses)
    registry = card_registry(env)

    used = used_keys(env).union(*(page.extra.get(QUOTES, frozenset())
                                  for page in store(env).pages.values()))
    meant = {fold(name) for problem in reported if problem.kind == 'handbook.card'
             for name in _DID_YOU_MEAN.findall(problem.message)}
    path = relative(str(registry.path))
    problems = []
    for card in registry.cards():
        keys = {card.key, *(fold(alias) for _, alias in card.aliases)}
        if not keys & (used | meant):
            problems.append(Problem(path, card.line, 'note',
                                    f'{card.kind} 「{card.name}」 is not linked from any page; '
                                    'keep the row if a page will need it, else remove it',
                                    'handbook.unused-card'))
    return problems


def run_lint(srcdir: Path) -> list[Problem]:
    """sphinx-lint on every page source."""
    from sphinxlint import check_file
    from sphinxlint.checkers import all_checkers

    names = {name for name, checker in all_checkers.items() if checker.enabled}
    names = (names | set(LINT_CHECKERS['enable'])) - set(LINT_CHECKERS['disable'])
    checkers = {all_checkers[name] for name in names}
    problems = []
    for page in sorted(srcdir.rglob('*.rst')):
        for error in check_file(str(page), checkers):
            if isinstance(error, str):  # the file could not be read
                problems.append(Problem(relative(str(page)), 1, 'error', error, 'sphinx-lint'))
                continue
            style = LINT_STYLE.get(error.checker_name)
            problems.append(Problem(relative(error.filename), error.line_no,
                                    'note' if style else 'warning', style or error.msg,
                                    f'sphinx-lint.{error.checker_name}'))
    return problems


def without_repeats(lint: list[Problem], others: list[Problem]) -> list[Problem]:
    """sphinx-lint's findings but its warnings at a line where the build
    reports an error or a warning already, which says the fault with its fix
    (an editor's round trip: a registry row with an empty name, ``.. _``:``,
    was also sphinx-lint's "unbalanced inline literal markup", with none)."""
    failing = {(p.path, p.line) for p in others if p.failure}
    # a file it cannot decode: the build says where, at its first bad byte's line
    # (a hostile-input round trip: sphinx-lint said line 1 and a byte offset)
    undecodable = {p.path for p in others if p.failure and 'UTF-8' in p.message}
    return [p for p in lint if not (p.severity == 'warning' and (p.path, p.line) in failing)
            and not (p.severity == 'error' and p.path in undecodable)]


#: what differs between two notes of one message: a quoted text, a number
_PARTICULARS = re.compile(r"'[^']*'|\"[^\"]*\"|「[^」]*」|\d+")


#: docutils' report of what the toolchain reports at the same line with its fix
#: (cards/markup.py: a role left open)
_SAID_BY_OURS = ('Inline interpreted text or phrase reference start-string without end-string.',)


def registry_notes(env) -> list[Problem]:
    """Every note of the registry: a build prints the first few of each kind
    and counts the rest (cards/links.py), make check lists them all."""
    from handbook.cards.links import registry as card_registry
    from handbook.core.reports import suppressed

    if 'card' not in env.domains:
        return []
    registry = card_registry(env)
    path = relative(str(registry.path))
    return [Problem(path, p.line, 'note', p.message, f'handbook.{p.subtype}')
            for p in registry.problems
            if p.severity == 'note' and not suppressed(env.config, p.subtype)]


def without_library_repeats(problems: list[Problem]) -> list[Problem]:
    """The problems but docutils' report of a fault that the toolchain
    reports at its line, with the fix (a CI maintainer's round trip: an
    unclosed role was said twice, once without one)."""
    ours = {(p.path, p.line) for p in problems if p.failure and p.kind.startswith('handbook.')}
    return [p for p in problems if not (p.kind == 'docutils' and p.message in _SAID_BY_OURS
                                        and (p.path, p.line) in ours)]


def grouped_notes(notes: list[Problem]) -> list[tuple[Problem, str]]:
    """One entry per kind of note, by kind: its first note, and the text of
    its line after ``note: <kind> ``: ``×count (first locations): text``.  A
    kind that ``NOTE_KINDS`` does not say in general gets an entry per
    message, its particulars aside (a CI maintainer's round trip: three
    slips of one kind, each with its own fix, were shown one's)."""
    by_kind: dict[tuple[str, str], list[Problem]] = {}
    for note in sorted(notes):
        shape = '' if note.kind in NOTE_KINDS else _PARTICULARS.sub('…', note.message)
        by_kind.setdefault((note.kind, shape), []).append(note)
    out = []
    for (kind, shape), group in list(by_kind.items()):
        if shape and 1 < len(group) <= NOTE_LOCATIONS:  # each its own fix, a few lines
            del by_kind[kind, shape]
            by_kind.update({(kind, f'{shape}\0{n}'): [note] for n, note in enumerate(group)})
    for (kind, _shape), group in sorted(by_kind.items(), key=lambda item: (item[0][0],
                                                                           item[1][0])):
        places = [n.where or '?' for n in group[:NOTE_LOCATIONS]]
        if len(group) > NOTE_LOCATIONS:
            places.append('…')
        text = group[0].message
        if len(group) > 1:
            text = NOTE_KINDS.get(kind, f'e.g. {text}')
        out.append((group[0], f'×{len(group)} ({", ".join(places)}): {text}'))
    return out


def plural(n: int, word: str) -> str:
    return f'{n} {word}{"s" if n != 1 else ""}'


def summary(problems: list[Problem]) -> str:
    """``make check: 1 error (kind 1), 2 warnings (kind 2); 3 notes``."""
    parts = []
    for severity in ('error', 'warning'):
        kinds = Counter(p.kind for p in problems if p.severity == severity)
        if kinds:
            counts = ', '.join(f'{kind} {n}' for kind, n in sorted(kinds.items()))
            parts.append(f'{plural(sum(kinds.values()), severity)} ({counts})')
    text = f'make check: {", ".join(parts) or "no problems"}'
    notes = sum(1 for p in problems if p.severity == 'note')
    return text + f'; {plural(notes, "note")}' if notes else text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog='tools/check.py',
                                     description=__doc__.split('\n\n')[0])
    parser.add_argument('--srcdir', type=Path, default=Path('source'))
    parser.add_argument('--confdir', type=Path, default=Path('.'))
    parser.add_argument('--jobs', '-j', default='1',
                        help='parallel reading processes, or "auto" (default 1)')
    parser.add_argument('-D', dest='define', action='append', default=[], metavar='name=value',
                        help='override a conf.py setting, as sphinx-build -D')
    parser.add_argument('--notes', choices=('grouped', 'each'), default='grouped',
                        help='the notes one line per kind (default), or each on its own line')
    args = parser.parse_args(argv)
    # fewer garbage collections for the whole run, the lint too: the
    # process reads every page and ends (handbook.speed.gc_policy's reason)
    thresholds = gc.get_threshold()
    if 0 < thresholds[0] < YOUNG:
        gc.set_threshold(YOUNG, *thresholds[1:])
    try:
        return check(args)
    finally:
        gc.set_threshold(*thresholds)


#: the collector's first threshold while make check runs (Python's: 700)
YOUNG = 10_000


def check(args: argparse.Namespace) -> int:
    """Run the check *args* describe; the exit status."""
    overrides = dict(item.split('=', 1) for item in args.define)
    jobs = (os.cpu_count() or 1) if args.jobs == 'auto' else int(args.jobs)

    # sphinx-lint runs in a process of its own once Sphinx has read every page:
    # Sphinx resolves the pages in this one process, which leaves the other cores idle
    lint: list[Future] = []
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context('fork')) as pool:
        problems, env = run_sphinx(
            args.srcdir.resolve(), args.confdir.resolve(), overrides, jobs,
            after_read=(lambda: lint.append(pool.submit(run_lint, args.srcdir))) if jobs > 1
            else None)
        if env is None:
            for problem in problems:
                print(problem)
            print(summary(problems))
            return 2
        problems = [p for p in problems if p.kind != 'handbook.registry-notes']
        problems += registry_notes(env) + unused_cards(env, problems)
        problems += without_repeats(lint[0].result() if lint else run_lint(args.srcdir),
                                    problems)
    problems = sorted(set(without_library_repeats(problems)))
    annotate = bool(os.environ.get('GITHUB_ACTIONS'))
    each = args.notes == 'each'
    for problem in problems:
        if problem.failure or each:
            print(problem)
            if annotate and problem.failure:
                print(problem.annotation())
    for first, text in grouped_notes([p for p in problems if not p.failure]):
        if not each:
            print(f'note: {first.kind} {text}')
        if annotate:
            print(first.annotation(text))
    # what was checked: with make -C, a relative SOURCEDIR is the clone's folder
    # (an adopter's round trip checked this project's pages and was told no problems)
    registry = getattr(env.config, 'handbook_cards', None)
    print(f'make check: read {plural(len(env.found_docs), "page")} of {args.srcdir.resolve()}'
          + (f', the registry {Path(env.srcdir, registry)}' if registry else ''))
    print(summary(problems))
    return 1 if any(p.failure for p in problems) else 0


if __name__ == '__main__':
    sys.exit(main())
