"""``make check``: every problem of the handbook, one line each, at its file and line.

Runs, offline and without writing any output:

* Sphinx with the ``dummy`` builder (reads and resolves every page with the
  project's extensions, writes nothing), in a fresh environment so that
  every warning is reported, with its doctrees in a temporary folder;
* sphinx-lint on the sources (the checkers are chosen in ``LINT_CHECKERS``);
* a look at the card registry for rows no page uses (information only).

Prints one line per problem, sorted by file and line::

    source/negation.rst:12: warning: unknown card name 「旋风的主人」: … [handbook.card]

(paths relative to the current folder, the repository), then one summary
line with the counts by kind.  Severities: ``error`` and ``warning`` are
failures; ``info`` (a registry row no page uses) is not.  A problem about a
whole file (a page in no toctree) is reported at its line 1.  With the
environment variable ``GITHUB_ACTIONS`` set, each problem is also printed
as a workflow annotation (``::error file=…,line=…::…``; ``::warning`` for
information), so that it shows on the pull request's diff.

Exit status: 0 when there is no failure, 1 when there is one, 2 when the
check itself could not run (a broken conf.py, an unreadable registry).

Usage: ``python tools/check.py [--srcdir source] [--confdir .] [--jobs N]
[-D name=value]…`` (``make check`` passes SOURCEDIR, CONFDIR, JOBS, CARDS).
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import os
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / '_ext'))

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

#: one record of Sphinx's warning stream (docutils' messages span several lines)
_RECORD = re.compile(r'^(?:(?P<location>.*?): )?(?P<level>WARNING|ERROR|CRITICAL): '
                     r'(?P<message>.*?)(?: \[(?P<kind>[\w.-]+)\])?\s*$', re.S)
_ESCAPES = re.compile(r'\x1b\[[0-9;]*m')


@dataclasses.dataclass(frozen=True, order=True)
class Problem:
    path: str
    line: int
    severity: str  # 'error', 'warning' or 'info'
    message: str
    kind: str

    @property
    def failure(self) -> bool:
        return self.severity != 'info'

    def __str__(self) -> str:
        where = f'{self.path}:{self.line}: ' if self.path else ''
        return f'{where}{self.severity}: {self.message} [{self.kind}]'

    def annotation(self) -> str:
        command = 'error' if self.failure else 'warning'
        props = [f'title={_escape(self.kind, True)}']
        if self.path:
            props[:0] = [f'file={_escape(self.path, True)}', f'line={self.line}']
        return f'::{command} {",".join(props)}::{_escape(self.message)}'


def _escape(text: str, prop: bool = False) -> str:
    text = text.replace('%', '%25').replace('\r', '%0D').replace('\n', '%0A')
    return text.replace(':', '%3A').replace(',', '%2C') if prop else text


def relative(path: str) -> str:
    if not path or path.startswith('<'):
        return ''
    rel = os.path.relpath(os.path.abspath(path))
    return path if rel.startswith('..') else Path(rel).as_posix()


class WarningStream(io.StringIO):
    """Sphinx's warning stream: each write is one record."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[Problem] = []

    def write(self, text: str) -> int:
        m = _RECORD.match(_ESCAPES.sub('', text).strip())
        if m is None:  # not a warning record (should not happen): keep it visible
            self.problems.append(Problem('', 0, 'error', text.strip(), 'sphinx'))
            return len(text)
        path, line = m['location'] or '', 0
        if re.search(r':\d*$', path):
            path, _, number = path.rpartition(':')
            line = int(number or 0)
        path = relative(path)
        severity = 'warning' if m['level'] == 'WARNING' else 'error'
        message = m['message'].split('\n')[0].strip()
        self.problems.append(Problem(path, line or (1 if path else 0), severity, message,
                                     m['kind'] or 'sphinx'))
        return len(text)


def run_sphinx(srcdir: Path, confdir: Path, overrides: dict[str, str],
               jobs: int) -> tuple[list[Problem], object | None]:
    """Read and resolve every page (dummy builder); the problems and the environment."""
    from sphinx.application import Sphinx
    from sphinx.errors import SphinxError
    from sphinx.util.docutils import docutils_namespace, patch_docutils

    stream = WarningStream()
    with tempfile.TemporaryDirectory(prefix='handbook-check-') as tmp, \
            patch_docutils(confdir), docutils_namespace():
        try:
            app = Sphinx(srcdir, confdir, Path(tmp, 'out'), Path(tmp, 'doctrees'), 'dummy',
                         confoverrides=overrides, status=None, warning=stream,
                         freshenv=True, parallel=jobs)
            app.build(force_all=True)
        except SphinxError as err:
            conf = relative(str(confdir / 'conf.py'))
            return [*stream.problems, Problem(conf, 1, 'error', str(err).split('\n')[0],
                                              'config')], None
    return stream.problems, app.env


def unused_cards(env) -> list[Problem]:
    """Registry rows that no page links to (information, not a failure)."""
    registry = getattr(env, 'handbook_cards', None)
    if registry is None or 'card' not in env.domains:
        return []
    from handbook.cards.registry import fold

    used = set().union(*env.domains['card'].usage.values())
    path = relative(str(registry.path))
    problems = []
    for card in registry.cards():
        keys = {card.key, *(fold(alias) for _, alias in card.aliases)}
        if not keys & used:
            problems.append(Problem(path, card.line, 'info',
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
            problems.append(Problem(relative(error.filename), error.line_no, 'warning',
                                    error.msg, f'sphinx-lint.{error.checker_name}'))
    return problems


def summary(problems: list[Problem]) -> str:
    failures = Counter(p.kind for p in problems if p.failure)
    infos = Counter(p.kind for p in problems if not p.failure)

    def counts(counter: Counter) -> str:
        return ', '.join(f'{kind} {n}' for kind, n in sorted(counter.items()))

    total = sum(failures.values())
    text = (f'make check: {total} problem{"s" if total != 1 else ""} ({counts(failures)})'
            if total else 'make check: no problems')
    if infos:
        text += f'; {sum(infos.values())} info ({counts(infos)})'
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog='tools/check.py',
                                     description=__doc__.split('\n\n')[0])
    parser.add_argument('--srcdir', type=Path, default=Path('source'))
    parser.add_argument('--confdir', type=Path, default=Path('.'))
    parser.add_argument('--jobs', '-j', default='1',
                        help='parallel reading processes, or "auto" (default 1)')
    parser.add_argument('-D', dest='define', action='append', default=[], metavar='name=value',
                        help='override a conf.py setting, as sphinx-build -D')
    args = parser.parse_args(argv)
    overrides = dict(item.split('=', 1) for item in args.define)
    jobs = (os.cpu_count() or 1) if args.jobs == 'auto' else int(args.jobs)

    problems, env = run_sphinx(args.srcdir.resolve(), args.confdir.resolve(), overrides, jobs)
    if env is None:
        for problem in problems:
            print(problem)
        print(summary(problems))
        return 2
    problems += unused_cards(env)
    problems += run_lint(args.srcdir)
    problems = sorted(set(problems))
    annotate = bool(os.environ.get('GITHUB_ACTIONS'))
    for problem in problems:
        print(problem)
        if annotate:
            print(problem.annotation())
    print(summary(problems))
    return 1 if any(p.failure for p in problems) else 0


if __name__ == '__main__':
    sys.exit(main())
