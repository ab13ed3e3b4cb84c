"""make check's runner (tools/check.py): every problem at path:line, sorted, with
a summary; exit 1 on any failure, 0 on a clean handbook, 2 when it cannot run.

The runner reads the test roots where they are (it writes nothing into them),
so the paths it prints are relative to the repository."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from conftest import ROOT

spec = importlib.util.spec_from_file_location('check', ROOT / 'tools' / 'check.py')
check = sys.modules['check'] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)


def run(capsys, monkeypatch, root: str, *args: str) -> tuple[int, list[str]]:
    """Run the runner on tests/roots/test-<root>, from the repository."""
    monkeypatch.chdir(ROOT)
    path = f'tests/roots/test-{root}'
    status = check.main(['--srcdir', path, '--confdir', path, *args])
    return status, capsys.readouterr().out.splitlines()


P = 'tests/roots/test-check-'


def test_card_faults(capsys, monkeypatch):
    status, out = run(capsys, monkeypatch, 'check-cards')
    assert status == 1
    p = P + 'cards/index.rst'
    assert [line.split(': ')[0] + ' ' + line.rsplit(' ', 1)[1] for line in out[:-1]] == [
        f'{p}:7 [handbook.card-markup]',    # 「`旋风`」
        f'{p}:8 [handbook.card-markup]',    # 「`旋风`_ …
        f'{p}:9 [handbook.card-markup]',    # 「` 旋风`_」
        f'{p}:10 [handbook.card]',          # unknown name, with a suggestion
        f'{p}:11 [handbook.unlinked]',      # plain 「旋风」
        f'{p}:18 [handbook.card-markup]',   # nested line block, continuation line
        f'{p}:19 [handbook.unlinked]',      # innermost line block
        f'{p}:22 [handbook.card-markup]',   # list item
        f'{p}:25 [handbook.card-markup]',   # nested list item, second line
        f'{p}:30 [handbook.card-markup]',   # admonition, line block
        f'{p}:33 [handbook.unlinked]',      # admonition, paragraph's second line
    ]
    assert out[3] == (f'{p}:10: warning: unknown card name 「旋风的主人」: did you mean 「旋风」? '
                      'If it is a new card, add a row to cards.tsv. [handbook.card]')
    assert out[-1] == ('make check: 11 problems (handbook.card 1, handbook.card-markup 7, '
                       'handbook.unlinked 3)')


def test_docutils_and_sphinx_errors(capsys, monkeypatch):
    status, out = run(capsys, monkeypatch, 'check-docutils')
    assert status == 1
    p = P + 'docutils/index.rst'
    assert out == [
        f'{p}:9: error: Unknown interpreted text role "unknown". [docutils]',
        f'{p}:13: error: Unknown directive type "unknown-directive". [docutils]',
        f"{p}:16: error: anonymous link '`旋风`__' has no target (the page has 1 anonymous links "
        '`…`__ and 0 anonymous targets .. __: URL, which pair up in order): write `旋风 <URL>`__ '
        'with its URL, or 「`旋风`_」 for a card [handbook.anonymous-link]',
        f'{p}:18: warning: `17/3/24 <https://www.db.yugioh-card.com/x>` is not a link: write '
        '`17/3/24 <https://www.db.yugioh-card.com/x>`__ (two underscores after the closing '
        'backquote) [handbook.markup]',
        f'{p}:22: error: Unexpected indentation. [docutils]',
        f'{p}:24: warning: role :ref: not recognised: next to Chinese text write `\\ ` before it, '
        'e.g. 详见\\ :ref:`标签` [handbook.markup]',
        f'{p}:27: warning: Title underline too short. [docutils]',
        'make check: 7 problems (docutils 4, handbook.anonymous-link 1, handbook.markup 2)',
    ]


def test_references_labels_toctree_rulings(capsys, monkeypatch):
    status, out = run(capsys, monkeypatch, 'check-refs')
    assert status == 1
    p = P + 'refs/'
    assert out == [
        f"{p}index.rst:15: warning: undefined label: '没有的标签' [ref.ref]",
        f'{p}index.rst:16: warning: unknown card name 「没有的目标」: check the spelling. '
        'If it is a new card, add a row to cards.tsv. [handbook.card]',
        f"{p}index.rst:19: warning: ruling date '17/2/30' is not a calendar date; check the "
        'month and the day [handbook.ruling]',
        f"{p}index.rst:21: warning: ruling URL 'http://www.db.yugioh-card.com/x' is not https; "
        'link the https page [handbook.ruling]',
        f"{p}orphan.rst:1: warning: document isn't included in any toctree [toc.not_included]",
        f"{p}other.rst:6: warning: duplicate label '同时处理': index.rst:6 defines it already; "
        'labels are unique across the handbook: rename one (and the :ref: that mean it) '
        '[handbook.label]',
        'make check: 6 problems (handbook.card 1, handbook.label 1, handbook.ruling 2, ref.ref 1, '
        'toc.not_included 1)',
    ]


def test_registry_rows(capsys, monkeypatch):
    status, out = run(capsys, monkeypatch, 'check-registry')
    assert status == 1
    p = P + 'registry/cards.tsv'
    assert out == [
        f'{p}:3: error: duplicate card 「旋风」: line 2 already has 「旋风」; keep one row [handbook.registry]',
        f"{p}:4: error: unknown kind 'monster'; the first column is \"card\" or \"series\" "
        '(columns are separated by tabs) [handbook.registry]',
        f'{p}:5: info: card 「没有页面用的卡」 is not linked from any page; keep the row if a page '
        'will need it, else remove it [handbook.unused-card]',
        'make check: 2 problems (handbook.registry 2); 1 info (handbook.unused-card 1)',
    ]


def test_unused_rows_are_information_not_failure(capsys, monkeypatch):
    status, out = run(capsys, monkeypatch, 'check-registry', '-D', 'handbook_cards=unused-only.tsv')
    assert status == 0
    assert out == [
        f'{P}registry/unused-only.tsv:4: info: card 「没有页面用的卡」 is not linked from any page; '
        'keep the row if a page will need it, else remove it [handbook.unused-card]',
        'make check: no problems; 1 info (handbook.unused-card 1)',
    ]


def test_sphinx_lint(capsys, monkeypatch):
    status, out = run(capsys, monkeypatch, 'check-lint')
    assert status == 1
    assert out == [
        f'{P}lint/index.rst:4: warning: trailing whitespace [sphinx-lint.trailing-whitespace]',
        f'{P}lint/index.rst:5: warning: role use a single backtick, double backtick found. '
        '[sphinx-lint.role-with-double-backticks]',
        'make check: 2 problems (sphinx-lint.role-with-double-backticks 1, '
        'sphinx-lint.trailing-whitespace 1)',
    ]


def test_clean_root_reports_nothing(capsys, monkeypatch):
    assert run(capsys, monkeypatch, 'check-clean') == (0, ['make check: no problems'])


def test_github_annotations(capsys, monkeypatch):
    monkeypatch.setenv('GITHUB_ACTIONS', 'true')
    status, out = run(capsys, monkeypatch, 'check-registry')
    assert status == 1
    p = P + 'registry/cards.tsv'
    assert out[1] == (f'::error file={p},line=3,title=handbook.registry::duplicate card 「旋风」: '
                      'line 2 already has 「旋风」; keep one row')
    # information is a warning annotation, not an error
    assert out[5] == (f'::warning file={p},line=5,title=handbook.unused-card::card 「没有页面用的卡」 '
                      'is not linked from any page; keep the row if a page will need it, else remove it')
    assert len(out) == 7


def test_annotation_escapes():
    problem = check.Problem('a,b:c.rst', 3, 'warning', '50% done\nnext', 'x.y')
    assert problem.annotation() == '::error file=a%2Cb%3Ac.rst,line=3,title=x.y::50%25 done%0Anext'


def test_missing_registry_cannot_run(capsys, monkeypatch):
    status, out = run(capsys, monkeypatch, 'check-clean', '-D', 'handbook_cards=missing.tsv')
    assert status == 2
    assert out[0].startswith(f'{P}clean/conf.py:1: error: cannot read the card registry ')
    assert out[-1] == 'make check: 1 problem (config 1)'


def test_handbook_is_clean():
    """make check on the real handbook: nothing to report, exit 0.  In a child
    process, as make runs it: the handbook's extensions load catalogs and
    other per-process state that later tests must not inherit."""
    done = subprocess.run([sys.executable, 'tools/check.py'], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, 'GITHUB_ACTIONS': ''})
    out = done.stdout.splitlines()
    assert [line for line in out if ': warning: ' in line or ': error: ' in line] == []
    assert done.returncode == 0, done.stdout + done.stderr
    assert out[-1].startswith('make check: no problems')


@pytest.mark.parametrize(('root', 'status'), [('check-lint', 1), ('check-clean', 0)])
def test_exit_status_of_the_command(root, status):
    env = {**os.environ, 'GITHUB_ACTIONS': ''}
    path = f'tests/roots/test-{root}'
    done = subprocess.run([sys.executable, 'tools/check.py', '--srcdir', path, '--confdir', path],
                          cwd=ROOT, capture_output=True, text=True, env=env)
    assert done.returncode == status, done.stdout + done.stderr
