"""make check's runner (tools/check.py): every error and warning at path:line,
sorted, the notes grouped one line per kind, a summary; exit 1 on any error or
warning, 0 on a clean handbook or one with notes only, 2 when it cannot run.

The runner reads the test roots where they are (it writes nothing into them),
so the paths it prints are relative to the repository."""

from __future__ import annotations

import gc
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

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
    return status, output(capsys, ROOT / path)


def output(capsys, srcdir: Path) -> list[str]:
    """What the runner printed, but the line before the summary, which says
    what it read (test_the_summary_names_what_it_read)."""
    out = capsys.readouterr().out.splitlines()
    read = out.pop(-2)
    assert read.startswith('make check: read ') and f' of {srcdir}' in read, read
    return out


P = 'tests/roots/test-check-'


def test_card_faults(capsys, monkeypatch):
    status, out = run(capsys, monkeypatch, 'check-cards')
    assert status == 1
    p = P + 'cards/index.rst'
    assert [line.split(': ')[0] + ' ' + line.rsplit(' ', 1)[1] for line in out[:-1]] == [
        f'{p}:7 [handbook.card-markup]',    # 「`旋风`」
        f'{p}:8 [handbook.card-markup]',    # 「`旋风`_ …
        f'{p}:9 [handbook.card-markup]',    # 「` 旋风`_」
        f'{p}:10 [handbook.card]',          # unknown name (no suggestion: it contains 旋风)
        f'{p}:11 [handbook.unlinked]',      # plain 「旋风」
        f'{p}:18 [handbook.card-markup]',   # nested line block, continuation line
        f'{p}:19 [handbook.unlinked]',      # innermost line block
        f'{p}:22 [handbook.card-markup]',   # list item
        f'{p}:25 [handbook.card-markup]',   # nested list item, second line
        f'{p}:30 [handbook.card-markup]',   # admonition, line block
        f'{p}:33 [handbook.unlinked]',      # admonition, paragraph's second line
        f'{p}:41 [handbook.markup]',        # `旋风`: no role
        f'{p}:42 [handbook.markup]',        # a link in struck text: the fix,
        f'{p}:42 [docutils]',               # and docutils' word
        f'{p}:43 [handbook.markup]',        # the same, a date after it
        f'{p}:43 [docutils]',
        f'{p}:44 [handbook.markup]',        # a link in another role's text
        f'{p}:44 [docutils]',
    ]
    assert out[3] == (f'{p}:10: error: unknown card name 「旋风的主人」: check the spelling; '
                      'if it is a new card, add a row to cards.tsv. [handbook.card]')
    assert out[-1] == ('make check: 12 errors (handbook.card 1, handbook.card-markup 7, '
                       'handbook.markup 4), 6 warnings (docutils 3, handbook.unlinked 3)')


def test_docutils_and_sphinx_errors(capsys, monkeypatch):
    status, out = run(capsys, monkeypatch, 'check-docutils')
    assert status == 1
    p = P + 'docutils/index.rst'
    assert out == [
        f'{p}:9: error: Unknown interpreted text role "unknown". Check its name: no extension '
        "loaded gives a role 'unknown' [docutils]",
        f'{p}:13: error: Unknown directive type "unknown-directive". Check its name: no '
        "extension loaded gives a directive 'unknown-directive' [docutils]",
        f"{p}:16: error: anonymous link '`旋风`__' has no target (the page has 1 anonymous links "
        '`…`__ and 0 anonymous targets .. __: URL, which pair up in order): write its https:// '
        'address inside the link, `旋风 <https://…>`__, or 「`旋风`_」 for the card '
        '[handbook.anonymous-link]',
        f'{p}:18: error: `17/3/24 <https://www.db.yugioh-card.com/x>` is not a link: write '
        '`17/3/24 <https://www.db.yugioh-card.com/x>`__ (two underscores after the closing '
        'backquote) [handbook.markup]',
        f'{p}:22: error: Unexpected indentation. Indent the line as the line above it, or '
        'leave a blank line before it if it starts a block of its own [docutils]',
        f'{p}:24: error: role :ref: not recognised: next to Chinese text write `\\ ` before it: '
        '…见\\ :ref:`标签` [handbook.markup]',
        # Chinese text after the closing backquote too: the role's text runs on to the
        # next line's backquote; one line, a fix for both ends (fuzzing found it)
        f'{p}:26: error: role :ref: not recognised: next to Chinese text write `\\ ` before it, '
        'and after its closing backquote: …见\\ :ref:`标签`\\ 「… [handbook.markup]',
        # (sphinx-lint's "missing space after role" here too, with no fix: left out)
        f'{p}:30: warning: Title underline too short. Underline it with 14 characters or more: '
        'a Chinese character counts 2 (readers see the title all the same; make fix does it) '
        '[docutils]',
        'make check: 7 errors (docutils 3, handbook.anonymous-link 1, handbook.markup 3), '
        '1 warning (docutils 1)',
    ]


def test_references_labels_toctree_rulings(capsys, monkeypatch):
    status, out = run(capsys, monkeypatch, 'check-refs')
    assert status == 1
    p = P + 'refs/'
    assert out == [
        f"{p}index.rst:15: error: undefined label '没有的标签', so the link leads nowhere (its "
        'text is shown plain): define it on the line before the section it names, '
        '.. _没有的标签:, or write a label the handbook defines, or, for a section not written yet, list it in '
        "planned_sections of the handbook's handbook.toml [handbook.ref]",
        f'{p}index.rst:16: error: unknown card name 「没有的目标」: check the spelling; '
        'if it is a new card, add a row to cards.tsv. [handbook.card]',
        f"{p}index.rst:19: error: ruling date '17/2/30' is not a calendar date; check the "
        'month and the day [handbook.ruling]',
        f"{p}orphan.rst:1: warning: document isn't included in any toctree: add it to a toctree "
        "(the index page's), or write :orphan: as its first line if links alone lead to it "
        '[toc.not_included]',
        f"{p}other.rst:6: warning: duplicate label '同时处理': index.rst:6 defines it already; "
        'labels are unique across the handbook: rename one (and the :ref: that mean it) '
        '[handbook.label]',
        # a note, after the errors and warnings: not a failure
        f"note: handbook.ruling-https ×1 ({p}index.rst:21): ruling URL "
        "'http://www.db.yugioh-card.com/x' is http: write https://www.db.yugioh-card.com/x "
        '(the same page over https; make fix rewrites it)',
        'make check: 3 errors (handbook.card 1, handbook.ref 1, handbook.ruling 1), 2 warnings '
        '(handbook.label 1, toc.not_included 1); 1 note',
    ]


def test_registry_rows(capsys, monkeypatch):
    status, out = run(capsys, monkeypatch, 'check-registry')
    assert status == 1
    p = P + 'registry/cards.tsv'
    assert out == [
        f"{p}:4: error: unknown kind 'monster'; the first column is \"card\" or \"series\" "
        '(columns are separated by tabs); until then, pages that name 「王宫的铁壁」 show it '
        'without a link [handbook.registry]',
        f'note: handbook.registry ×1 ({p}:3): duplicate row: line 2 has 「旋风」 with the same '
        'link; remove this row (make fix does)',
        f'note: handbook.unused-card ×1 ({p}:5): card 「没有页面用的卡」 is not linked from any '
        'page; keep the row if a page will need it, else remove it',
        'make check: 1 error (handbook.registry 1); 2 notes',
    ]


def test_unused_rows_are_notes_not_failures(capsys, monkeypatch):
    status, out = run(capsys, monkeypatch, 'check-registry', '-D', 'handbook_cards=unused-only.tsv')
    assert status == 0
    assert out == [
        f'note: handbook.unused-card ×1 ({P}registry/unused-only.tsv:4): card 「没有页面用的卡」 '
        'is not linked from any page; keep the row if a page will need it, else remove it',
        'make check: no problems; 1 note',
    ]


def test_a_row_a_page_quotes_plainly_is_not_unused(capsys, monkeypatch, tmp_path):
    """A page that quotes a card plainly, 「卡名」, is told to link it: the row
    is not also called unused, "else remove it" (an editor's round trip: the
    two reports contradicted each other)."""
    root = tmp_path / 'registry'
    shutil.copytree(ROOT / 'tests' / 'roots' / 'test-check-registry', root)
    (root / 'conf.py').write_text("extensions = ['handbook.cards']\n"
                                  "handbook_cards = 'unused-only.tsv'\n", encoding='utf-8')
    with (root / 'index.rst').open('a', encoding='utf-8') as page:
        page.write('| 「没有页面用的卡」 is quoted plainly.\n')
    monkeypatch.chdir(tmp_path)
    assert check.main(['--srcdir', 'registry', '--confdir', 'registry']) == 1
    assert output(capsys, root) == [
        'registry/index.rst:5: warning: 「没有页面用的卡」 is a card name in the registry but not '
        'linked: write 「`没有页面用的卡`_」 (make fix does it) [handbook.unlinked]',
        'make check: 1 warning (handbook.unlinked 1)']


def test_suppressed_unused_rows_are_no_notes(capsys, monkeypatch):
    status, out = run(capsys, monkeypatch, 'check-registry', '-D', 'handbook_cards=unused-only.tsv',
                      '-D', 'suppress_warnings=handbook.unused-card')
    assert (status, out) == (0, ['make check: no problems'])


#: the notes of test-check-notes, grouped: two http:// ruling URLs (from the
#: build's status stream), five unused registry rows (from the runner)
NOTES = [
    f'note: handbook.ruling-https ×2 ({P}notes/index.rst:4, {P}notes/index.rst:6): '
    'http:// ruling URLs on hosts that serve https; make fix rewrites them',
    f'note: handbook.unused-card ×5 ({P}notes/cards.tsv:3, {P}notes/cards.tsv:4, '
    f'{P}notes/cards.tsv:5, …): registry rows that no page links to; keep a row if a page '
    'will need it, else remove it',
    'make check: no problems; 7 notes',
]


@pytest.mark.parametrize('jobs', ['1', '2'])
def test_notes_are_grouped_one_line_per_kind_and_never_fail(capsys, monkeypatch, jobs):
    """Also in a parallel build, whose notes are logged in other processes."""
    assert run(capsys, monkeypatch, 'check-notes', '-j', jobs) == (0, NOTES)


@pytest.mark.parametrize(('variables', 'notes'), [((), False), (('NOTES=each',), True)])
def test_make_check_passes_notes_each(variables, notes):
    """``make check NOTES=each``, as the README says (it said ``python
    tools/check.py --notes each``, which the system's Python cannot run)."""
    dry = subprocess.run(['make', '-s', '-n', '-C', str(ROOT), 'check', *variables],
                         capture_output=True, text=True, check=True).stdout
    assert ('--notes each' in dry) is notes and 'tools/check.py' in dry


def test_every_note_on_its_own_line(capsys, monkeypatch):
    status, out = run(capsys, monkeypatch, 'check-notes', '--notes', 'each')
    assert status == 0
    faq = 'www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid={}&request_locale=ja'
    unused = ('note: card 「{}」 is not linked from any page; keep the row if a page will need '
              'it, else remove it [handbook.unused-card]')
    https = ("note: ruling URL 'http://{0}' is http: write https://{0} (the same page over https; "
             'make fix rewrites it) [handbook.ruling-https]')
    assert out == [
        *(f'{P}notes/cards.tsv:{line}: ' + unused.format(name) for line, name in
          [(3, '技能抽取'), (4, '神之宣告'), (5, '手札抹杀'), (6, '黑洞'), (7, '星尘龙')]),
        f'{P}notes/index.rst:4: ' + https.format(faq.format(19691)),
        f'{P}notes/index.rst:6: ' + https.format(faq.format(23003)),
        NOTES[-1],
    ]


def test_status_stream_keeps_notes_only():
    """Progress, docutils' INFO-level messages (shown with -v) and Sphinx's own
    lines are not problems; a note is one, also after an open progress line."""
    stream = check.StatusStream()
    for record in [
        '\x1b[01mreading sources... \x1b[39;49;00m[ 50%] ', '\x1b[35mindex\x1b[39;49;00m', '\n',
        '\x1b[90m/tmp/x/index.rst:10: (INFO/1) Duplicate implicit target name: “same”. '
        '[filtered system message]\x1b[39;49;00m\n',
        'index.rst:3: (INFO/1) note: not one of ours [docutils]\n',
        'build succeeded.\n',
        '\x1b[2K\x1b[01mreading sources... \x1b[39;49;00m[100%] other\r',
        f'{ROOT}/tests/a.rst:7: note: ruling URL is http [handbook.ruling-https]\n',
        'b.rst:2: note: a message\n  on two lines [handbook.x]\n',
    ]:
        stream.write(record)
    assert stream.problems == [
        check.Problem('tests/a.rst', 7, 'note', 'ruling URL is http', 'handbook.ruling-https'),
        check.Problem('b.rst', 2, 'note', 'a message on two lines', 'handbook.x')]
    assert stream.getvalue() == ''  # nothing else kept


@pytest.mark.parametrize('jobs', ['1', '2'])  # with -j 2, sphinx-lint runs in a process of its own
def test_sphinx_lint(capsys, monkeypatch, jobs):
    status, out = run(capsys, monkeypatch, 'check-lint', '-j', jobs)
    assert status == 1
    assert out == [
        f'{P}lint/index.rst:5: warning: role use a single backtick, double backtick found. '
        '[sphinx-lint.role-with-double-backticks]',
        # style with a mechanical fix: notes, saying the fix (sphinx-lint's own
        # words for a tab are "OMG TABS!!!1")
        f'note: sphinx-lint.horizontal-tab ×1 ({P}lint/index.rst:7): a tab: write spaces instead '
        '(docutils reads a tab as the spaces up to the next multiple of 8 columns; make fix '
        'does it)',
        f'note: sphinx-lint.trailing-whitespace ×1 ({P}lint/index.rst:4): spaces at the end of '
        'the line: delete them (make fix does it)',
        'make check: 1 warning (sphinx-lint.role-with-double-backticks 1); 2 notes',
    ]


def test_a_lint_warning_where_the_build_reports_the_fault_is_left_out():
    """A registry row with an empty name, ``.. _``: …``: the build's error
    says it with its fix; sphinx-lint's "unbalanced inline literal markup"
    on the same line, with none, is left out (an editor's round trip).  Its
    notes, and its warnings elsewhere, stay."""
    row = check.Problem('links.rst', 18, 'error', 'not a link definition: the name is empty',
                        'handbook.registry')
    lint = [check.Problem('links.rst', 18, 'warning', 'found an unbalanced inline literal markup.',
                          'sphinx-lint.unbalanced-inline-literals-delimiters'),
            check.Problem('links.rst', 18, 'note', 'spaces at the end of the line',
                          'sphinx-lint.trailing-whitespace'),
            check.Problem('links.rst', 19, 'warning', 'found an unbalanced inline literal markup.',
                          'sphinx-lint.unbalanced-inline-literals-delimiters')]
    assert check.without_repeats(lint, [row]) == lint[1:]


def test_clean_root_reports_nothing(capsys, monkeypatch):
    thresholds = gc.get_threshold()
    assert run(capsys, monkeypatch, 'check-clean') == (0, ['make check: no problems'])
    assert gc.get_threshold() == thresholds  # raised for the check only


def test_github_annotations(capsys, monkeypatch):
    """An error is an ::error annotation after its line, with the same text."""
    monkeypatch.setenv('GITHUB_ACTIONS', 'true')
    status, out = run(capsys, monkeypatch, 'check-registry')
    assert status == 1
    p = P + 'registry/cards.tsv'
    message = out[0].removeprefix(f'{p}:4: error: ').removesuffix(' [handbook.registry]')
    assert message != out[0]
    assert out[1] == f'::error file={p},line=4,title=handbook.registry::{message}'
    assert [line.split('::')[1] for line in out if line.startswith('::')] == [
        f'error file={p},line=4,title=handbook.registry',
        f'notice file={p},line=3,title=handbook.registry',
        f'notice file={p},line=5,title=handbook.unused-card',
    ]


def test_github_annotations_of_notes(capsys, monkeypatch):
    """One ::notice per kind of note, at its first note, with the grouped line's text."""
    monkeypatch.setenv('GITHUB_ACTIONS', 'true')
    status, out = run(capsys, monkeypatch, 'check-notes')
    assert status == 0
    assert out == [
        NOTES[0],
        f'::notice file={P}notes/index.rst,line=4,title=handbook.ruling-https::'
        + NOTES[0].removeprefix('note: handbook.ruling-https '),
        NOTES[1],
        f'::notice file={P}notes/cards.tsv,line=3,title=handbook.unused-card::'
        + NOTES[1].removeprefix('note: handbook.unused-card '),
        NOTES[2],
    ]
    assert out[1].startswith(f'::notice file={P}notes/index.rst,line=4,title=handbook.ruling-https'
                             f'::×2 ({P}notes/index.rst:4, ')


def test_annotation_escapes():
    problem = check.Problem('a,b:c.rst', 3, 'warning', '50% done\nnext', 'x.y')
    assert problem.annotation() == '::warning file=a%2Cb%3Ac.rst,line=3,title=x.y::50%25 done%0Anext'


def test_missing_registry_is_one_error(capsys, monkeypatch):
    status, out = run(capsys, monkeypatch, 'check-clean', '-D', 'handbook_cards=missing.tsv')
    assert status == 1
    assert out[0].startswith(f'{P}clean/missing.tsv:1: error: cannot read the card registry ')
    assert out[-1] == 'make check: 1 error (handbook.registry 1)'


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


@pytest.mark.parametrize(('root', 'status'), [('check-lint', 1), ('check-clean', 0),
                                               ('check-notes', 0)])
def test_exit_status_of_the_command(root, status):
    env = {**os.environ, 'GITHUB_ACTIONS': ''}
    path = f'tests/roots/test-{root}'
    done = subprocess.run([sys.executable, 'tools/check.py', '--srcdir', path, '--confdir', path],
                          cwd=ROOT, capture_output=True, text=True, env=env)
    assert done.returncode == status, done.stdout + done.stderr


def test_a_row_a_did_you_mean_names_is_not_said_unused(capsys, monkeypatch, tmp_path):
    """A page that misspells a card (火焰地狱) links no row: the row its
    did-you-mean names is the one to keep, not one to remove (an editor's
    round trip: the note said "else remove it" of 火炎地狱)."""
    root = tmp_path / 'yearly-faq'
    shutil.copytree(ROOT / 'tests' / 'roots' / 'test-yearly-faq', root)
    page = root / 'faq' / '2021.rst'
    page.write_text(page.read_text(encoding='utf-8').replace('「`火炎地狱`_」', '「`火焰地狱`_」'),
                    encoding='utf-8')
    monkeypatch.chdir(tmp_path)
    status = check.main(['--srcdir', str(root), '--confdir', str(root), '--notes', 'each'])
    assert status == 1
    assert output(capsys, root) == [
        'yearly-faq/faq/2021.rst:37: error: unknown card name 「火焰地狱」: did you mean 「火炎地狱」? If it '
        'is a new card, add a row to links.rst. [handbook.card]',
        'make check: 1 error (handbook.card 1)']


def test_the_summary_names_what_it_read(capsys, monkeypatch):
    """``make -C <clone> check SOURCEDIR=source`` from an adopter's folder
    checked the clone's pages (make resolves a relative path in the folder it
    runs in) and said "no problems" (an adopter's round trip).  The line
    before the summary names the folder and the registry read."""
    monkeypatch.chdir(ROOT)
    path = 'tests/roots/test-check-clean'
    check.main(['--srcdir', path, '--confdir', path])
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == [f'make check: read 2 pages of {ROOT / path}, the registry '
                        f'{ROOT / path / "cards.tsv"}', 'make check: no problems']


def test_notes_of_one_kind_with_different_fixes_are_each_said(capsys, monkeypatch, tmp_path):
    """Three slips whose notes share a kind (handbook.ruling-day) but not a
    fix: the grouped line said the first one's fix of all three (a CI
    maintainer's round trip).  A kind said in general (NOTE_KINDS) stays one
    line; another, one line per message, its particulars aside."""
    root = tmp_path / 'yearly-faq'
    shutil.copytree(ROOT / 'tests' / 'roots' / 'test-yearly-faq', root)
    edits = {'faq/2019.rst': ('\n4/17\n----\n', '\n4/17（补充）\n------------\n'),
             'faq/2021.rst': ('| 数据库：\n', '| 数据库\n')}
    for name, (old, new) in edits.items():
        page = root / name
        page.write_text(page.read_text(encoding='utf-8').replace(old, new, 1), encoding='utf-8')
    with (root / 'chapter.rst').open('a', encoding='utf-8') as page:
        page.write('\n| 一行 \n| 又一行 \n')  # two of a kind said in general
    monkeypatch.chdir(tmp_path)
    assert check.main(['--srcdir', 'yearly-faq', '--confdir', 'yearly-faq']) == 0
    assert output(capsys, root) == [
        "note: handbook.ruling-day ×1 (yearly-faq/faq/2019.rst:12): day section '4/17（补充）' "
        "of '19/04' is read as the day 4/17: its lines are rulings of that day (a line of "
        'another day needs a section of its own)',
        "note: handbook.ruling-day ×1 (yearly-faq/faq/2021.rst:28): the line '数据库' is read as "
        'the source header of the lines below it: write "| 数据库：" (a header ends with its '
        'colon)',
        'note: sphinx-lint.trailing-whitespace ×2 (yearly-faq/chapter.rst:19, '
        f'yearly-faq/chapter.rst:20): {check.NOTE_KINDS["sphinx-lint.trailing-whitespace"]}',
        'make check: no problems; 4 notes']


def test_sphinxs_and_docutils_reports_get_their_fix(capsys, monkeypatch, tmp_path):
    """Sphinx's and docutils' own reports said no fix, one of them only its
    first line (an include's reason is on its second), and an unclosed role
    was said twice, once without one (a CI maintainer's round trip).  A
    missing image, broken for readers, is an error."""
    root = tmp_path / 'clean'
    shutil.copytree(ROOT / 'tests' / 'roots' / 'test-check-clean', root)
    with (root / 'index.rst').open('a', encoding='utf-8') as page:
        page.write('\n.. include:: nope.rst\n\n.. image:: img/nope.png\n\n.. nope:: x\n\n'
                   '| :strike:`「旋风」不能发动。\n\n同时处理的例外情况\n================\n\n正文。\n\n'
                   '.. toctree::\n\n   gone\n')
    (root / 'lonely.rst').write_text('孤页\n====\n\n正文。\n', encoding='utf-8')
    monkeypatch.chdir(tmp_path)
    assert check.main(['--srcdir', 'clean', '--confdir', 'clean']) == 1
    assert output(capsys, root) == [
        'clean/index.rst:33: error: the included file clean/nope.rst does not exist: create it, '
        'or correct the path (relative to the page) [docutils]',
        'clean/index.rst:35: error: image file not readable: img/nope.png: add it, or correct '
        'the path (relative to the page) [image.not_readable]',
        'clean/index.rst:37: error: Unknown directive type "nope". Check its name: no extension '
        "loaded gives a directive 'nope' [docutils]",
        'clean/index.rst:39: error: role :strike: is not closed (readers see its markup): write '
        'its closing backquote after its text, :strike:`「旋风」不能发动。` [handbook.markup]',
        'clean/index.rst:42: warning: Title underline too short. Underline it with 18 characters '
        'or more: a Chinese character counts 2 (readers see the title all the same; make fix does '
        'it) [docutils]',
        "clean/index.rst:46: warning: toctree contains reference to nonexisting document "
        "'gone': remove the entry, or restore its page, gone.rst [toc.not_readable]",
        "clean/lonely.rst:1: warning: document isn't included in any toctree: add it to a "
        "toctree (the index page's), or write :orphan: as its first line if links alone lead "
        'to it [toc.not_included]',
        'make check: 4 errors (docutils 2, handbook.markup 1, image.not_readable 1), 3 warnings '
        '(docutils 1, toc.not_included 1, toc.not_readable 1)']


def test_a_page_that_is_not_utf8_is_said_once_and_its_labels_fix_says_so(capsys, monkeypatch,
                                                                         tmp_path):
    """A page with a byte that is not UTF-8: sphinx-lint said it again at
    line 1 with a byte offset, and a label it defines was "undefined",
    with a fix that defined it a second time (a hostile-input round trip)."""
    root = tmp_path / 'yearly-faq'
    shutil.copytree(ROOT / 'tests' / 'roots' / 'test-yearly-faq', root)
    page = root / 'chapter.rst'
    lines = page.read_bytes().split(b'\n')
    page.write_bytes(b'\n'.join([*lines[:18], b'\xff\xfe', *lines[18:]]))
    monkeypatch.chdir(tmp_path)
    assert check.main(['--srcdir', 'yearly-faq', '--confdir', 'yearly-faq']) == 1
    # no row is said unused: the page not built may use it (a round trip was told to
    # remove the rows it alone uses)
    out = output(capsys, root)
    assert out == [
        'yearly-faq/chapter.rst:19: error: the page is not UTF-8 text (byte 0xff), so it is not '
        'built: save it as UTF-8, or move it out of the source folder if it is not a page '
        '[handbook.encoding]',
        "yearly-faq/faq/2021.rst:34: error: undefined label '同时处理', so the link leads nowhere "
        '(its text is shown plain): if chapter.rst defines it, fix that page first: it is not '
        'built, as it cannot be read; else define it on the line before the section it names, '
        '.. _同时处理:, or write a label the handbook defines, or, for a section not written '
        "yet, list it in planned_sections of the handbook's handbook.toml [handbook.ref]",
        "yearly-faq/index.rst:7: warning: toctree contains reference to excluded document "
        "'chapter' [toc.excluded]",
        'make check: 2 errors (handbook.encoding 1, handbook.ref 1), 1 warning (toc.excluded 1)']


def test_make_check_lists_every_note_of_the_registry(capsys, monkeypatch, tmp_path):
    """A build prints the first ten notes of a kind and counts the rest,
    saying make check lists them: it listed ten too (a round trip)."""
    root = tmp_path / 'yearly-faq'
    shutil.copytree(ROOT / 'tests' / 'roots' / 'test-yearly-faq', root)
    with (root / 'links.rst').open('a', encoding='utf-8') as registry:
        registry.write('.. _`罪`: https://ygocdb.com/?search=罪\n' * 15)
    monkeypatch.chdir(tmp_path)
    check.main(['--srcdir', 'yearly-faq', '--confdir', 'yearly-faq', '--notes', 'each'])
    out = output(capsys, root)
    assert len([line for line in out if 'duplicate row' in line]) == 15
    assert not [line for line in out if 'registry-notes' in line]


def test_a_few_notes_of_one_message_are_each_said_with_its_own_fix(capsys, monkeypatch,
                                                                   tmp_path):
    """Two full-width day titles: one line said the first one's fix, wrong
    for the second (a round trip).  A few notes of a message no general text
    says are each on a line of their own."""
    root = tmp_path / 'yearly-faq'
    shutil.copytree(ROOT / 'tests' / 'roots' / 'test-yearly-faq', root)
    page = root / 'faq' / '2021.rst'
    text = page.read_text(encoding='utf-8')
    page.write_text(text.replace('\n1/5\n', '\n1／5\n', 1).replace('\n2/9\n', '\n２/９\n', 1),
                    encoding='utf-8')
    monkeypatch.chdir(tmp_path)
    check.main(['--srcdir', 'yearly-faq', '--confdir', 'yearly-faq'])
    fixes = [line.rsplit(': ', 1)[1] for line in output(capsys, root)
             if 'ruling-fullwidth' in line]
    assert fixes == ['write 1/5 (the same day)', 'write 2/9 (the same day)']
