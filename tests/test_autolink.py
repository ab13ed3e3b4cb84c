"""make autolink (tools/autolink.py): plain 「卡名」 become 「`卡名`_」, nothing else
in the file changes, and what it cannot resolve is printed at path:line."""

from __future__ import annotations

import importlib.util
import shutil
import sys

import pytest

from conftest import ROOT
from helpers import warnings

spec = importlib.util.spec_from_file_location('autolink', ROOT / 'tools' / 'autolink.py')
autolink = sys.modules['autolink'] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(autolink)

REGISTRY = ROOT / 'tests' / 'roots' / 'test-check-cards' / 'cards.tsv'  # 旋风, 王宫的铁壁, 暗灵术-「欲」, 星骑士

# (before, after) line by line; CRLF on one line, no newline at the end
PAGE = [
    ('「旋风」 in a title is left alone\r\n', None),
    ('===============================\r\n', None),
    ('\n', None),
    ('| 「旋风」的效果，『「旋风」的效果』不变，「○○」是占位。\n',
     '| 「`旋风`_」的效果，『「旋风」的效果』不变，「○○」是占位。\n'),
    ('| 「暗灵术-「欲」」，「`王宫的铁壁`_」已经是链接，``「旋风」``\\ 是字面。\r\n',
     '| 「`暗灵术-「欲」`_」，「`王宫的铁壁`_」已经是链接，``「旋风」``\\ 是字面。\r\n'),
    ('\n', None),
    ('.. note::\n', None),
    ('\n', None),
    ('   - 「星骑士」怪兽，「旋风的主人」不在登记表里。\n', '   - 「`星骑士`_」怪兽，「旋风的主人」不在登记表里。\n'),
    ('\n', None),
    ('.. code-block:: text\n', None),
    ('\n', None),
    ('   「旋风」 in code\n', None),
    ('\n', None),
    ('例::\n', None),
    ('\n', None),
    ('   「旋风」 in a literal block\n', None),
    ('\n', None),
    ('.. 「旋风」 in a comment\n', None),
    ('\n', None),
    ('| :strike:`对方的「旋风」…\n', None),  # a role that a line break splits
    ('  「旋风」的效果。`\\ :ruling:`19/7/1`\n', None),
    ('\n', None),
    ('『效果跨行\n', None),
    ('「旋风」』之后「旋风」', '「旋风」』之后「`旋风`_」'),
]


def test_links_plain_names_and_changes_nothing_else(tmp_path, capsys):
    page = tmp_path / 'page.rst'
    before = ''.join(old for old, _ in PAGE)
    page.write_bytes(before.encode('utf-8'))
    assert autolink.main(['--cards', str(REGISTRY), str(page)]) == 0
    after = page.read_bytes().decode('utf-8')
    # byte for byte: every line as it was, except the four linked ones
    assert after == ''.join(old if new is None else new for old, new in PAGE)
    assert after.splitlines(keepends=True)[:2] == [PAGE[0][0], PAGE[1][0]]  # CRLF kept
    assert not after.endswith('\n')
    # each change made, then what it left; a placeholder (「○○」) is not
    # something to resolve: not printed
    assert capsys.readouterr().out.splitlines() == [
        f'{page}:4: 「旋风」 → 「`旋风`_」',
        f'{page}:5: 「暗灵术-「欲」」 → 「`暗灵术-「欲」`_」',
        f'{page}:9: 「星骑士」 → 「`星骑士`_」',
        f'{page}:25: 「旋风」 → 「`旋风`_」',
        f'{page}:9: 「旋风的主人」 is not in the registry',
    ]


@pytest.mark.parametrize('line', [
    # a literal of backquotes: docutils ends it at the last two of the run
    '| 「旋风」的效果（原文用 ``｀`` 或 ``` ` ``` 标注）。\n',
    # a backquote between Chinese characters is text, not the start of markup
    '| 「旋风」发动后`，受到战斗伤害。\n',
])
def test_a_backquote_that_is_no_markup_leaves_the_role_below_alone(tmp_path, capsys, line):
    """What the line above holds does not make the text of the struck line
    below prose: no link in a role (helper's round trip: make fix broke a
    page that make check passed)."""
    page = tmp_path / 'page.rst'
    struck = '| :strike:`「旋风」特殊召唤的怪兽，「王宫的铁壁」调整中。`\n'
    page.write_text(line + struck, encoding='utf-8')
    autolink.main(['--cards', str(REGISTRY), str(page)])
    assert page.read_text(encoding='utf-8') == line.replace('「旋风」', '「`旋风`_」', 1) + struck


def test_a_role_left_unclosed_is_left_alone(tmp_path, capsys):
    """``:strike:`…`` with no closing backquote (an editor's round trip:
    make fix linked its names, and the build then said the role holds
    links; its fix was the line as first written): its names are the role's
    text once the backquote is there.  A name before the role is prose."""
    page = tmp_path / 'page.rst'
    line = '| 「旋风」：:strike:`「王宫的铁壁」特殊召唤的怪兽，调整中。\n'
    page.write_text(line, encoding='utf-8')
    autolink.main(['--cards', str(REGISTRY), str(page)])
    assert page.read_text(encoding='utf-8') == line.replace('「旋风」', '「`旋风`_」', 1)


def test_a_second_run_changes_nothing(tmp_path, capsys):
    page = tmp_path / 'page.rst'
    page.write_text(''.join(old for old, _ in PAGE), encoding='utf-8')
    autolink.main(['--cards', str(REGISTRY), str(page)])
    once = page.read_bytes()
    autolink.main(['--cards', str(REGISTRY), str(page)])
    assert page.read_bytes() == once


def test_linked_page_passes_the_check(tmp_path, capsys):
    """After make autolink, the unlinked names of test-check-cards are links."""
    root = tmp_path / 'cards'
    shutil.copytree(ROOT / 'tests' / 'roots' / 'test-check-cards', root)
    autolink.main(['--srcdir', str(root), '--confdir', str(root)])
    text = (root / 'index.rst').read_text(encoding='utf-8')
    assert '| 「`旋风`_」 is not linked; 『「旋风」的效果』 is effect text; 「○○」 is a placeholder.' in text
    assert 'then 「`王宫的铁壁`_」 on its second line.' in text
    assert '|         innermost 「`星骑士`_」怪兽' in text
    assert '「旋风」 in a title is not reported' in text


def test_the_handbook_is_linked_already(tmp_path, capsys):
    pages = tmp_path / 'source'
    shutil.copytree(ROOT / 'source', pages)
    shutil.copy(ROOT / 'cards.tsv', tmp_path)  # where source/handbook.toml names it
    autolink.main(['--srcdir', str(pages), '--confdir', str(ROOT)])
    for page in sorted((ROOT / 'source').glob('*.rst')):
        assert (pages / page.name).read_bytes() == page.read_bytes(), page.name


#: a grid table and a simple table, each with a cell that has room for a link
#: (three characters) and one that has not; wide characters count two columns
TABLES = '''表
==

+--------------+----------+
| 卡名         | 说明     |
+==============+==========+
| 「旋风」     | 「旋风」 |
+--------------+----------+

==============  ==========
卡名            说明
==============  ==========
「旋风」        见「星骑士」
「王宫的铁壁」  窄
==============  ==========
'''


def test_tables_keep_their_columns(tmp_path, capsys, make_app):
    """A name in a grid or simple table's cell is linked where its column has
    room, the spaces after it making way, so the table still parses; where
    it has none, it is left, and said why (make fix does the same)."""
    root = tmp_path / 'tables'
    shutil.copytree(ROOT / 'tests' / 'roots' / 'test-check-cards', root)
    (root / 'index.rst').write_text(TABLES, encoding='utf-8')
    autolink.main(['--srcdir', str(root), '--confdir', str(root)])
    assert (root / 'index.rst').read_text(encoding='utf-8').splitlines()[6:15] == [
        '| 「`旋风`_」  | 「旋风」 |',
        '+--------------+----------+',
        '',
        '==============  ==========',
        '卡名            说明',
        '==============  ==========',
        '「`旋风`_」     见「`星骑士`_」',
        '「王宫的铁壁」  窄',
        '==============  ==========']
    out = capsys.readouterr().out.splitlines()
    why = ('is not linked: its table column has no room for the link; widen the column, '
           'then run it again')
    assert [line.split('index.rst:')[-1] for line in out if 'not linked' in line] == [
        f'7: 「旋风」 {why}', f'14: 「王宫的铁壁」 {why}']
    app = make_app('html', srcdir=root, freshenv=True)
    app.build()
    assert warnings(app) == [
        f'index.rst:{n}: WARNING: 「{name}」 is a card name in the registry but not linked: write '
        f'「`{name}`_」 (make fix does it where its column has room) [handbook.unlinked]'
        for n, name in ((7, '旋风'), (14, '王宫的铁壁'))]


def test_a_grid_table_whose_cell_spans_rows(tmp_path, capsys, make_app):
    """Below a separator under some cells only (a cell spans two rows), the
    rows are the table's still: a name is linked where its cell has room,
    and the table parses."""
    root = tmp_path / 'spans'
    shutil.copytree(ROOT / 'tests' / 'roots' / 'test-check-cards', root)
    (root / 'index.rst').write_text('''表
==

+--------------+----------+
| 卡名         | 说明     |
+--------------+          |
| 「旋风」     | 同上     |
+--------------+----------+
''', encoding='utf-8')
    autolink.main(['--srcdir', str(root), '--confdir', str(root)])
    assert (root / 'index.rst').read_text(encoding='utf-8').splitlines()[6] == \
        '| 「`旋风`_」  | 同上     |'
    app = make_app('html', srcdir=root, freshenv=True)
    app.build()
    assert warnings(app) == []


def test_a_simple_tables_row_that_ends_before_its_column():
    """A row whose text ends before its cell's column does has room up to the
    column's end (its later cells are empty)."""
    assert autolink.fit('「旋风」\n', [(0, 4, '「`旋风`_」')], [14]) == ('「`旋风`_」\n', [])


def test_a_card_link_cut_short_is_no_unknown_name(tmp_path, capsys):
    """「`旋风_」 (a card link that misses a backquote) is left as it is, and
    make autolink says it is broken markup, whose fix make check gives; it
    said "not in the registry" of a registry name (a last re-read)."""
    root = tmp_path / 'cut-short'
    shutil.copytree(ROOT / 'tests' / 'roots' / 'test-check-cards', root)
    (root / 'index.rst').write_text('| 「`旋风_」不能发动。\n', encoding='utf-8')
    autolink.main(['--srcdir', str(root), '--confdir', str(root)])
    assert (root / 'index.rst').read_text(encoding='utf-8') == '| 「`旋风_」不能发动。\n'
    assert [line.split('index.rst:')[-1] for line in capsys.readouterr().out.splitlines()] == [
        '1: 「`旋风_」 is not linked: broken card markup: make check says how to write it']


def test_spaces_inside_the_brackets_are_said(tmp_path, capsys, make_app):
    """「 旋风」 (a registry name, spaces inside its 「」) is left as it is, and
    make autolink says why as the build does: the link without the spaces,
    not "not in the registry"."""
    root = tmp_path / 'spaced'
    shutil.copytree(ROOT / 'tests' / 'roots' / 'test-check-cards', root)
    (root / 'index.rst').write_text('| 「 旋风」不能发动，「旋风　」也是。\n', encoding='utf-8')
    autolink.main(['--srcdir', str(root), '--confdir', str(root)])
    assert (root / 'index.rst').read_text(encoding='utf-8') == \
        '| 「 旋风」不能发动，「旋风　」也是。\n'
    why = 'is not linked: spaces inside its 「」 around a registry name: write 「`旋风`_」 without them'
    assert [line.split('index.rst:')[-1] for line in capsys.readouterr().out.splitlines()] == [
        f'1: 「 旋风」 {why}', f'1: 「旋风　」 {why}']
    app = make_app('html', srcdir=root, freshenv=True)
    app.build()
    assert warnings(app) == [
        f'index.rst:1: WARNING: {quoted} is a card name in the registry but not linked: write '
        '「`旋风`_」 (without the spaces) [handbook.unlinked]' for quoted in ('「 旋风」', '「旋风　」')]
