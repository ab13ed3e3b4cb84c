"""make fix (tools/fix.py): every mechanical fix, nothing else changed.

Each test runs on a copy of tests/roots/test-legacy-fix in tmp_path: a plain
card name, two http:// ruling URLs (the role and the legacy link), a card
link inside strong emphasis, a plain card name in a role the page declares,
a repeated registry row; around them, text that must stay as it is (a plain
card name in struck text, which the build links).  Files are compared line
by line with the originals: only the expected lines changed, to exactly the
expected text."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from helpers import assert_no_warnings

spec = importlib.util.spec_from_file_location('fix', ROOT / 'tools' / 'fix.py')
fix = sys.modules['fix'] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fix)

LEGACY = ROOT / 'tests' / 'roots' / 'test-legacy-fix'
FAQ = 'www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid={}&request_locale=ja'

#: file -> {line: the line after make fix}; every other line stays as it was
FIXED = {
    'index.rst': {
        10: f'| 「`旋风`_」的效果发动时……\\ :ruling:`17/3/24 <https://{FAQ.format(19691)}>`',
        13: '**不能连锁发动**\\ 「`星尘龙`_」\\ **的①效果**',
    },
    'rulings.rst': {
        4: f'| 对方场上存在「`技能抽取`_」……\\ `18/12/24 <https://{FAQ.format(22372)}>`__',
        12: '| 「`技能抽取`_」\\ :red:`的效果不能发动。`',
    },
}
#: links.rst: lines that make fix removes
REMOVED = {'links.rst': [5]}
#: what make fix prints, in order
CHANGES = [
    'index.rst:10: 「旋风」 → 「`旋风`_」',
    f'index.rst:10: http://{FAQ.format(19691)} → https://{FAQ.format(19691)}',
    'index.rst:13: **不能连锁发动「`星尘龙`_」的①效果** → **不能连锁发动**\\ 「`星尘龙`_」\\ **的①效果**',
    f'rulings.rst:4: http://{FAQ.format(22372)} → https://{FAQ.format(22372)}',
    'rulings.rst:12: :red:`「技能抽取」的效果不能发动。` → '
    '「`技能抽取`_」\\ :red:`的效果不能发动。`',
    "links.rst:5: removed the row '.. _`旋风`: https://ygocdb.com/card/name/旋风': "
    'it repeats line 3',
]


@pytest.fixture
def handbook(tmp_path) -> Path:
    """A copy of the legacy handbook to fix."""
    return Path(shutil.copytree(LEGACY, tmp_path / 'handbook'))


def run(folder: Path, *args: str) -> tuple[int, list[str], list[str]]:
    """tools/fix.py as make runs it, in *folder* (the handbook's conf.py and pages)."""
    done = subprocess.run([sys.executable, str(ROOT / 'tools' / 'fix.py'), '--srcdir', '.',
                           '--confdir', '.', *args], cwd=folder, capture_output=True, text=True)
    return done.returncode, done.stdout.splitlines(), done.stderr.splitlines()


def lines(path: Path, newline: str = '\n') -> list[str]:
    return path.read_bytes().decode('utf-8').split(newline)


def assert_fixed(folder: Path, newline: str = '\n', fixed=FIXED, removed=REMOVED) -> None:
    """Every file of *folder* is the original but for the expected lines."""
    for path in sorted(LEGACY.iterdir()):
        before, after = lines(path), lines(folder / path.name, newline)
        want = [fixed.get(path.name, {}).get(number, line)
                for number, line in enumerate(before, start=1)
                if number not in removed.get(path.name, [])]
        assert after == want, path.name


def test_fix_changes_exactly_the_mechanical_problems(handbook):
    status, out, err = run(handbook)
    assert status == 0, err
    assert out == CHANGES
    assert err[-1] == 'make fix: 3 files changed'
    assert_fixed(handbook)


def test_second_run_changes_nothing(handbook):
    run(handbook)
    files = {path.name: path.read_bytes() for path in handbook.iterdir()}
    status, out, err = run(handbook)
    assert (status, out, err[-1]) == (0, [], 'make fix: 0 files changed')
    assert {path.name: path.read_bytes() for path in handbook.iterdir()} == files


def test_fixed_handbook_builds_with_W(handbook, make_app):
    """No error, no warning, and no note left: every problem was mechanical."""
    run(handbook)
    app = make_app('html', srcdir=handbook, warningiserror=True, freshenv=True)
    app.build()
    assert_no_warnings(app)
    assert ' note: ' not in app.status.getvalue()


def test_unfixed_handbook_has_each_problem(handbook, make_app):
    """The test is not vacuous: before make fix, the same build reports each one."""
    app = make_app('html', srcdir=handbook, freshenv=True)
    app.build()
    reported = app.warning.getvalue() + app.status.getvalue()
    for where, subtype in [('index.rst:10', 'unlinked'), ('index.rst:10', 'ruling-https'),
                           ('index.rst:13', 'card-markup'), ('rulings.rst:4', 'ruling-https'),
                           ('rulings.rst:12', 'unlinked'),
                           ('links.rst:5', 'registry')]:
        assert any(where in line and f'[handbook.{subtype}]' in line
                   for line in reported.splitlines()), (where, subtype)


def test_dates_in_brackets_get_https_a_link_over_two_lines_no_promise(handbook, make_app):
    """A date link in brackets (（17/3/24）, 【17/7/28】) is a ruling's date to the
    build, and its http URL is rewritten as a plain one's; a link written
    over two lines stays (a fix never crosses a line), so its note does not
    say that make fix rewrites it."""
    page = handbook / 'rulings.rst'
    added = [f'| 甲。\\ `（17/3/24） <http://{FAQ.format(1)}>`__',
             f'| 乙。\\ `【17/7/28】 <http://{FAQ.format(2)}>`__',
             '| 丙。\\ `17/12/22', f'  <http://{FAQ.format(3)}>`__']
    page.write_text(page.read_text(encoding='utf-8') + '\n' + '\n'.join(added) + '\n',
                    encoding='utf-8')
    status, out, _err = run(handbook)
    assert status == 0
    assert [line for line in out if line.startswith(('rulings.rst:15', 'rulings.rst:16',
                                                      'rulings.rst:17'))] == [
        f'rulings.rst:{14 + n}: http://{FAQ.format(n)} → https://{FAQ.format(n)}' for n in (1, 2)]
    assert lines(page)[14:18] == [added[0].replace('http:', 'https:'),
                                  added[1].replace('http:', 'https:'), *added[2:]]
    app = make_app('html', srcdir=handbook, freshenv=True)
    app.build()
    assert [line.split('/handbook/')[-1] for line in app.status.getvalue().splitlines()
            if ' note: ' in line] == [
        f"rulings.rst:17: note: ruling URL 'http://{FAQ.format(3)}' is http: write "
        f'https://{FAQ.format(3)} (the same page over https) [handbook.ruling-https]']


def test_line_endings_stay_and_the_last_line_gets_its_own(handbook):
    """CRLF line endings are kept as they are; a page without a final line
    break gets one, a CRLF (make check's note says to add one)."""
    for path in handbook.iterdir():
        path.write_bytes(path.read_bytes().replace(b'\n', b'\r\n'))
    rulings = handbook / 'rulings.rst'
    rulings.write_bytes(rulings.read_bytes().removesuffix(b'\r\n'))
    last = rulings.read_bytes().count(b'\r\n') + 1
    status, out, _ = run(handbook)
    assert (status, out) == (0, [*CHANGES[:5], f'rulings.rst:{last}: final line break added',
                                 *CHANGES[5:]])
    assert_fixed(handbook, '\r\n')


def test_tabs_and_spaces_at_a_lines_end_are_written_as_docutils_reads_them(handbook):
    """sphinx-lint's notes, each with its fix: make fix applies it, and the
    page reads as before (docutils expands tabs to 8 columns and strips each
    line's end itself)."""
    rulings = handbook / 'rulings.rst'
    text = rulings.read_text(encoding='utf-8').split('\n')
    text[0] += '  '
    text[2] = '\t '  # a line of spaces alone: no tab left to write
    text[3] = text[3].replace('「', '\t「', 1) + ' \t'
    rulings.write_text('\n'.join(text), encoding='utf-8')
    status, out, _ = run(handbook, 'rulings.rst')
    assert (status, [line for line in out if 'tab' in line or 'spaces' in line]) == (0, [
        "rulings.rst:1: spaces at the line's end deleted",
        "rulings.rst:3: spaces at the line's end deleted",
        "rulings.rst:4: tabs written as spaces and spaces at the line's end deleted"])
    fixed = rulings.read_text(encoding='utf-8').split('\n')
    assert fixed[:3] == ['Rulings', '=======', '']
    # the tab at the 8th character: 8 spaces (docutils counts characters, as str.expandtabs)
    assert fixed[3].startswith('| 对方场上存在' + ' ' * 8 + '「`技能抽取`_」')
    assert fixed[3] == fixed[3].rstrip()
    assert run(handbook, 'rulings.rst')[1] == []  # a second run changes nothing


def test_a_line_separator_is_no_line_end_to_strip(handbook):
    """U+2028 ends a line for docutils as for splitlines: the text before it
    keeps it (a review: it was deleted as a space at the line's end, which
    joined two lines)."""
    rulings = handbook / 'rulings.rst'
    text = rulings.read_text(encoding='utf-8')
    rulings.write_text(text.replace('……', '……\u2028', 1), encoding='utf-8')
    status, out, _ = run(handbook, 'rulings.rst')
    assert status == 0 and not [line for line in out if 'spaces' in line or 'tab' in line]
    assert '……\u2028' in rulings.read_text(encoding='utf-8')


def test_the_link_files_spaces_go_as_a_pages_do(handbook):
    """make check lints the legacy link file in the source folder as a page,
    and says make fix deletes its spaces at a line's end: it does, the
    repeated row's line as it was."""
    links = handbook / 'links.rst'
    lines = links.read_text(encoding='utf-8').split('\n')
    lines[0] += '  '
    links.write_text('\n'.join(lines), encoding='utf-8')
    status, out, _ = run(handbook)
    assert status == 0
    assert [line for line in out if line.startswith('links.rst')] == [
        "links.rst:1: spaces at the line's end deleted", CHANGES[-1]]
    assert links.read_text(encoding='utf-8').split('\n')[0] == lines[0].rstrip()


def test_files_limits_the_fix_to_those_pages(handbook):
    """make fix FILES=rulings.rst: that page only, not the registry."""
    status, out, err = run(handbook, 'rulings.rst')
    assert (status, out) == (0, [CHANGES[3], CHANGES[4]])
    assert_fixed(handbook, fixed={'rulings.rst': FIXED['rulings.rst']}, removed={})


def test_files_naming_the_registry_fix_it(handbook):
    status, out, _ = run(handbook, 'links.rst')
    assert (status, out) == (0, [CHANGES[5]])
    assert_fixed(handbook, fixed={})


def test_settings_file_overrides_conf_py(handbook):
    """The handbook's handbook.toml names the ruling hosts, over conf.py's:
    a URL on a host it does not list is left as it is."""
    (handbook / 'handbook.toml').write_text("ruling_hosts = ['yugioh-wiki.net']\n",
                                            encoding='utf-8')
    settings = fix.read_settings(handbook, handbook)
    assert settings == fix.Settings(handbook / 'links.rst', ('yugioh-wiki.net',))
    status, out, _ = run(handbook)
    assert (status, out) == (0, [CHANGES[0], CHANGES[2], CHANGES[4], CHANGES[5]])


def test_a_role_of_rst_prolog_is_split_too(handbook):
    """A role that conf.py's rst_prolog declares, not the page, is one
    the page's text holds: split as well."""
    rulings = handbook / 'rulings.rst'
    text = rulings.read_text(encoding='utf-8')
    assert '\n.. role:: red\n\n' in text
    rulings.write_text(text.replace('\n.. role:: red\n\n', '\n'), encoding='utf-8')
    with (handbook / 'conf.py').open('a', encoding='utf-8') as conf:
        conf.write("rst_prolog = '.. role:: red\\n'\n")
    status, out, _ = run(handbook, 'rulings.rst')
    assert (status, out) == (0, [CHANGES[3], CHANGES[4].replace(':12:', ':10:')])


def test_a_role_of_an_included_file_is_split_too(handbook):
    """A role declared in a file the page includes, or in a file that file
    includes (a path beside the including file, or from the source folder):
    split as well."""
    rulings = handbook / 'rulings.rst'
    text = rulings.read_text(encoding='utf-8')
    assert '\n.. role:: red\n\n' in text
    rulings.write_text(text.replace('\n.. role:: red\n\n', '\n.. include:: parts/roles.txt\n\n'),
                       encoding='utf-8')
    (handbook / 'parts').mkdir()
    (handbook / 'parts' / 'roles.txt').write_text('.. include:: /red.txt\n', encoding='utf-8')
    (handbook / 'red.txt').write_text('.. role:: red\n', encoding='utf-8')
    status, out, _ = run(handbook, 'rulings.rst')
    assert (status, out) == (0, [CHANGES[3], CHANGES[4]])


def test_an_included_role_after_a_prolog_with_no_final_newline(handbook):
    """conf.py's rst_prolog with no newline at its end, and a page that
    includes a file whose first line declares its role: both declarations
    are read (the prolog's line does not run into the file's)."""
    rulings = handbook / 'rulings.rst'
    text = rulings.read_text(encoding='utf-8')
    rulings.write_text(text.replace('\n.. role:: red\n\n', '\n.. include:: /red.txt\n\n'),
                       encoding='utf-8')
    (handbook / 'red.txt').write_text('.. role:: red\n', encoding='utf-8')
    with (handbook / 'conf.py').open('a', encoding='utf-8') as conf:
        conf.write("rst_prolog = '.. role:: blue'\n")
    status, out, _ = run(handbook, 'rulings.rst')
    assert (status, out) == (0, [CHANGES[3], CHANGES[4]])


def test_settings_of_conf_py():
    assert fix.read_settings(LEGACY, LEGACY) == fix.Settings(LEGACY / 'links.rst',
                                                             ('www.db.yugioh-card.com',))
    assert fix.read_settings(LEGACY, LEGACY, Path('other.tsv')).registry == Path('other.tsv')


HOSTS = ('www.db.yugioh-card.com',)


@pytest.mark.parametrize('line', [
    # a host that is not listed, https already, a URL that is no ruling's
    ':ruling:`17/3/24 <http://example.org/faq?fid=1>`',
    f':ruling:`17/3/24 <https://{FAQ.format(1)}>`',
    f'see http://{FAQ.format(1)} and `FAQ <http://{FAQ.format(1)}>`__',
    f'`17/3/24 <http://{FAQ.format(1)}>` (no underscore: no link; make check says so)',
    # inside an inline literal: shown as written
    f'``:ruling:`17/3/24 <http://{FAQ.format(1)}>```',
])
def test_https_leaves_other_urls(line):
    assert fix.fix_https(line, HOSTS) == (line, [])


def test_https_rewrites_a_url_whose_scheme_is_upper_case():
    line = f':ruling:`17/3/24 <HTTP://{FAQ.format(1)}>`'
    assert fix.fix_https(line, HOSTS) == (
        f':ruling:`17/3/24 <https://{FAQ.format(1)}>`',
        [f'HTTP://{FAQ.format(1)} → https://{FAQ.format(1)}'])


def test_https_rewrites_every_ruling_url_of_a_line():
    line = (f'甲。\\ :ruling:`17/12/22 <http://{FAQ.format(1)}>` '
            f'乙。\\ `17/7/28 <http://{FAQ.format(2)}>`__')
    assert fix.fix_https(line, HOSTS) == (
        line.replace('http://', 'https://'),
        [f'http://{FAQ.format(n)} → https://{FAQ.format(n)}' for n in (1, 2)])


@pytest.mark.parametrize('line', [
    '**不能连锁发动**\\ 「`星尘龙`_」\\ **的①效果**',  # split already
    '**强调** 「`星尘龙`_」',                          # the link is outside
    '``**「`星尘龙`_」**``',                           # an inline literal
    '文字**不能「`星尘龙`_」的**文字',                  # no emphasis for docutils: no \\ before **
])
def test_emphasis_left_alone(line):
    assert fix.fix_emphasis(line) == (line, [])


@pytest.mark.parametrize(('line', 'span', 'split'), [
    # after and before punctuation, in a line block
    ('| 甲，**不能「`星尘龙`_」的**。', '**不能「`星尘龙`_」的**', '**不能**\\ 「`星尘龙`_」\\ **的**'),
    # emphasis with one *, after and before an escaped space
    ('文字\\ *「`旋风`_」的效果*\\ 文字', '*「`旋风`_」的效果*', '「`旋风`_」\\ *的效果*'),
    # the writer's own delimiters beside the link (docutils reads one span): not doubled
    ('| **不能**「`旋风`_」**发动**', '**不能**「`旋风`_」**发动**',
     '**不能**\\ 「`旋风`_」\\ **发动**'),
    # the writer's reopening stars after a space (a ** after a space is no end either)
    ('| **不能**「`旋风`_」 **发动**', '**不能**「`旋风`_」 **发动**',
     '**不能**\\ 「`旋风`_」 **发动**'),
    # three stars (strong emphasis of "*…*"): kept on each segment
    ('***不能连锁发动「`星尘龙`_」的①效果***', '***不能连锁发动「`星尘龙`_」的①效果***',
     '***不能连锁发动***\\ 「`星尘龙`_」\\ ***的①效果***'),
])
def test_emphasis_split_where_docutils_sees_it(line, span, split):
    assert fix.fix_emphasis(line) == (line.replace(span, split), [f'{span} → {split}'])


def test_registry_rows_are_counted_at_line_feeds():
    """A form feed or U+2028 inside a row is no line break for the registry."""
    text = 'card\t旋风\ncard\t黑\x0c洞\ncard\t旋风\r\ncard\t旋风\n'
    assert fix.fix_registry(text, [3, 4]) == (
        'card\t旋风\ncard\t黑\x0c洞\n',
        [(3, "removed the row 'card 旋风': it repeats line 1"),
         (4, "removed the row 'card 旋风': it repeats line 1")])


def test_unreadable_page_is_reported_not_a_traceback(handbook):
    (handbook / 'binary.rst').write_bytes(b'\x00\xff\xfe binary')
    status, out, err = run(handbook)
    assert status == 1
    assert out == CHANGES  # the other files are fixed
    assert 'binary.rst:1: error: not UTF-8 text (byte 0xff): not changed; save it as UTF-8' in err
    assert err[-1] == 'make fix: 3 files changed, 1 not changed (errors above)'
    assert not any('Traceback' in line for line in err)


def test_unreadable_settings_exit_2(handbook):
    (handbook / 'links.rst').unlink()
    status, out, err = run(handbook)
    assert (status, out) == (2, [])
    assert err[-1].startswith('make fix: cannot read the settings or the registry: ')
    assert 'links.rst' in err[-1]


def test_a_table_keeps_its_columns(handbook, make_app):
    """An http ruling URL in a grid table's cell becomes https where the cell
    has room for the one more character (the spaces after it make way, so
    the table still parses), and stays where it has none."""
    from docutils.utils import column_width

    def table(text: str, room: int) -> list[str]:
        width = column_width(text) + room
        return ['+' + '-' * width + '+', '|' + text + ' ' * room + '|', '+' + '-' * width + '+', '']

    roomy, tight = (f' 甲。\\ `17/3/24 <http://{FAQ.format(n)}>`__' for n in (1, 2))
    page = handbook / 'rulings.rst'
    page.write_text(page.read_text(encoding='utf-8') + '\n' + '\n'.join(
        table(roomy, 3) + table(tight, 1)), encoding='utf-8')
    status, out, _err = run(handbook)
    assert status == 0
    assert [line for line in out if 'fid=1&' in line or 'fid=2&' in line] == [
        f'rulings.rst:16: http://{FAQ.format(1)} → https://{FAQ.format(1)}']
    assert lines(page)[14:20] == [
        table(roomy, 3)[0], '|' + roomy.replace('http:', 'https:') + '  |', table(roomy, 3)[2], '',
        *table(tight, 1)[:2]]
    app = make_app('html', srcdir=handbook, freshenv=True)
    app.build()
    assert 'Malformed table' not in app.warning.getvalue()
    built = (app.outdir / 'rulings.html').read_text(encoding='utf-8')
    assert f'https://{FAQ.format(1)}'.replace('&', '&amp;') in built
    # what is left is noted, and the note says when make fix can do it
    assert [line.split('/handbook/')[-1] for line in app.status.getvalue().splitlines()
            if ' note: ' in line] == [
        f"rulings.rst:20: note: ruling URL 'http://{FAQ.format(2)}' is http: write "
        f'https://{FAQ.format(2)} (the same page over https; make fix rewrites it where its '
        'table column has room) [handbook.ruling-https]']


#: a page's titles: (as written, as make fix leaves them)
TITLES = [
    ('同时处理的例外情况\n================\n', '同时处理的例外情况\n==================\n'),
    ('==========\n第一章 概述\n==========\n', '===========\n第一章 概述\n===========\n'),
    ('旋风的裁定\n----------\n', '旋风的裁定\n----------\n'),  # as long as it: stays
    ('| 一行裁定。\n\n- 列表\n\n::\n\n   字面\n   ----\n', '| 一行裁定。\n\n- 列表\n\n::\n\n   字面\n   ----\n'),
]


def test_title_underlines_too_short_for_chinese_titles_are_lengthened(handbook, make_app):
    """docutils' "Title underline too short": a Chinese character counts 2
    (a CI maintainer's round trip: a warning with no fix).  make fix makes
    the underline and the overline as long as the title; nothing else."""
    page = handbook / 'rulings.rst'
    text = page.read_text(encoding='utf-8')
    page.write_text(text + ''.join(f'\n{before}' for before, _after in TITLES), encoding='utf-8')
    app = make_app('html', srcdir=handbook, freshenv=True)
    app.build()
    assert app.warning.getvalue().count('Title underline too short.') == 1
    assert app.warning.getvalue().count('Title overline too short.') == 1
    status, out, _err = run(handbook)
    assert status == 0
    first = len(text.splitlines()) + 1  # the blank line before the first title
    assert [line for line in out if 'underline' in line] == [
        f'rulings.rst:{first + 2}: title underline made 18 characters long, as its title',
        f'rulings.rst:{first + 6}: title underline made 11 characters long, as its title']
    assert page.read_text(encoding='utf-8').endswith(
        ''.join(f'\n{after}' for _before, after in TITLES))
    app = make_app('html', srcdir=handbook, freshenv=True)
    app.build()
    assert 'Title' not in app.warning.getvalue()
