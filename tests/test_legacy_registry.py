"""The card registry of an existing handbook (issue 11, items 1, 2, 9, 10):
legacy rows read as docutils reads them, one card spelled two ways, rows
rejected once, suggestions that can be accepted blindly, hostile input.

The two roots, tests/roots/test-legacy-handbook (every shape fine) and
tests/roots/test-legacy-faults (real faults), are shared with other tests:
these assert the exact reports located in ``registry.rst`` and in the
registry.rst part of ``links.rst``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from docutils import nodes
from docutils.core import publish_doctree
from sphinx.util.console import strip_escape_sequences

from conftest import ROOT
from helpers import links, warnings
from handbook.cards.links import registry as card_registry
from handbook.cards.registry import Registry, RegistryError, load, redundant_rows

# -- helpers ------------------------------------------------------------------------------


def notes(app) -> list[str]:
    """The build's notes (``links.rst:9: note: … [handbook.x]``), paths relative to srcdir."""
    text = strip_escape_sequences(app.status.getvalue()).replace(f'{app.srcdir}/', '')
    return [line for line in text.splitlines() if ': note: ' in line]


def section(srcdir: Path) -> range:
    """The lines of links.rst's registry.rst part: from its comment to the next part's."""
    lines = (srcdir / 'links.rst').read_text(encoding='utf-8').split('\n')
    first = next(n for n, line in enumerate(lines, start=1) if line.startswith('.. -- registry.rst'))
    last = next((n for n, line in enumerate(lines, start=1)
                 if n > first and line.startswith('.. -- ')), len(lines) + 1)
    return range(first, last)


def ours(app, reports: list[str]) -> list[str]:
    """The reports located in registry.rst or in links.rst's registry.rst part."""
    mine = section(app.srcdir)
    kept = []
    for report in reports:
        m = re.match(r'(registry|links)\.rst:(\d+): ', report)
        if m and (m[1] == 'registry' or int(m[2]) in mine):
            kept.append(report)
    return kept


def row(app, text: str) -> int:
    """The line of links.rst that starts with *text*."""
    lines = (app.srcdir / 'links.rst').read_text(encoding='utf-8').split('\n')
    found = [n for n, line in enumerate(lines, start=1) if line.startswith(text)]
    assert len(found) >= 1, text
    return found[0]


def registry_of(tmp_path: Path, text: str, name: str = 'links.rst') -> Registry:
    path = tmp_path / name
    path.write_text(text, encoding='utf-8')
    return load(path)


def problems(registry: Registry) -> list[tuple[int, str, str, str]]:
    return [(p.line, p.severity, p.subtype, p.message) for p in registry.problems]


UNTIL = '; until then, pages that name 「{}」 show it without a link'

# -- the fine handbook --------------------------------------------------------------------


@pytest.mark.sphinx('html', testroot='legacy-handbook', srcdir='legacy-registry-fine',
                    freshenv=True)
def test_fine_registry_shapes_link_and_report_only_notes(app):
    app.build()
    assert ours(app, warnings(app)) == []
    d, psy, phantasm, twice = (row(app, '.. _`D.D. 乌鸦`'), row(app, '.. _PSY 骨架装备·α'),
                               row(app, '.. _`幻变骚灵·协议`'), row(app, '.. _`幻变骚灵·网络傀儡师`'))
    spaced = ("note: URL '{}' holds a space, which reStructuredText drops from a link "
              "definition, so it links '{}': write %20 for each space it means, or delete them "
              '[handbook.registry]')
    assert ours(app, notes(app)) == [
        'links.rst:5: ' + spaced.format('https://ygocdb.com/?search=No.39 希望皇 霍普',
                                        'https://ygocdb.com/?search=No.39希望皇霍普'),
        'links.rst:6: ' + spaced.format('https://ygocdb.com/card/name/No.39 希望皇 霍普·翻倍',
                                        'https://ygocdb.com/card/name/No.39希望皇霍普·翻倍'),
        f'links.rst:{d}: ' + spaced.format('https://ygocdb.com/card/name/D.D. 乌鸦',
                                           'https://ygocdb.com/card/name/D.D.乌鸦'),
        f'links.rst:{d + 1}: note: 「D.D.乌鸦」 spells line {d}\'s card 「D.D. 乌鸦」 another way: '
        'both spellings link that card, at https://ygocdb.com/card/name/D.D.乌鸦; keep both rows '
        'while pages write both spellings [handbook.registry-alias]',
        f'links.rst:{psy}: ' + spaced.format('https://ygocdb.com/card/name/PSY 骨架装备·α',
                                             'https://ygocdb.com/card/name/PSY骨架装备·α'),
        f'links.rst:{psy + 1}: note: 「PSY骨架装备·α」 spells line {psy}\'s card 「PSY 骨架装备·α」 '
        'another way: both spellings link that card, at https://ygocdb.com/card/name/PSY骨架装备·α; '
        'keep both rows while pages write both spellings [handbook.registry-alias]',
        f'links.rst:{phantasm + 1}: note: 「幻变骚灵协议」 spells line {phantasm}\'s card '
        '「幻变骚灵·协议」 another way: both spellings link that card, at '
        'https://ygocdb.com/card/name/幻变骚灵·协议 (this row\'s '
        'https://ygocdb.com/card/name/幻变骚灵协议 is not used); keep both rows while pages '
        'write both spellings [handbook.registry-alias]',
        f'links.rst:{twice + 1}: note: duplicate row: line {twice} has 「幻变骚灵·网络傀儡师」 with '
        'the same link; remove this row (make fix does) [handbook.registry]',
    ]
    # spaces in a URL are removed, as docutils does; each spelling links the
    # first row's card; the indirect row links the card it names
    assert links(app, 'registry') == [
        ('series', 'https://ygocdb.com/?search=No.39希望皇霍普', 'No.39 希望皇 霍普'),
        ('card', 'https://ygocdb.com/card/name/No.39希望皇霍普·翻倍', 'No.39 希望皇 霍普·翻倍'),
        ('card', 'https://ygocdb.com/card/name/D.D.乌鸦', 'D.D. 乌鸦'),
        ('card', 'https://ygocdb.com/card/name/D.D.乌鸦', 'D.D.乌鸦'),
        ('card', 'https://ygocdb.com/card/name/PSY骨架装备·α', 'PSY 骨架装备·α'),
        ('card', 'https://ygocdb.com/card/name/PSY骨架装备·α', 'PSY骨架装备·α'),
        ('card', 'https://ygocdb.com/card/name/幻变骚灵·协议', '幻变骚灵·协议'),
        ('card', 'https://ygocdb.com/card/name/幻变骚灵·协议', '幻变骚灵协议'),
        ('card', 'https://ygocdb.com/card/name/幻变骚灵·协议', '幻變騷靈協議'),
        ('card', 'https://ygocdb.com/card/name/幻变骚灵·网络傀儡师', '幻变骚灵·网络傀儡师'),
    ]
    # one identity: both spellings are one card of the registry
    registry = card_registry(app.env)
    assert registry.lookup('幻变骚灵协议') is registry.lookup('幻变骚灵·协议')
    assert registry.lookup('幻變騷靈協議') is registry.lookup('幻变骚灵·协议')


def test_rows_link_what_docutils_links(tmp_path):
    """A row docutils accepts links the URI docutils makes of it: whitespace
    removed (an escaped space kept), continuation lines joined, indirect
    targets followed."""
    text = '\n'.join([
        '.. _`No.39 希望皇 霍普`: https://ygocdb.com/?search=No.39 希望皇 霍普',
        '.. _No.39 希望皇 霍普·翻倍: https://ygocdb.com/card/name/No.39 希望皇 霍普·翻倍',
        '.. _`D.D. 乌鸦`:',
        '   https://ygocdb.com/card/name/D.D.',
        '   乌鸦',
        '.. _`技能抽取` : https://ygocdb.com/card/name/技能\\ 抽取',
        '.. _黑洞: https://ygocdb.com/?search=黑洞\u3000龙\t',
        '..  _`旋风`:   https://ygocdb.com/card/name/旋风',
        '.. _`旋風`: `旋风`_',
        '',
    ])
    doctree = publish_doctree(text, settings_overrides={'report_level': 5})
    # (docutils resolves the indirect target to the URI of the one it names)
    expected = {t['names'][0]: t['refuri'] for t in doctree.findall(nodes.target)}
    registry = registry_of(tmp_path, text)
    # a space inside a line of a URL, which docutils drops: said (not a line break, nor \ )
    assert [(p.line, p.severity) for p in registry.problems] == [(1, 'note'), (2, 'note'),
                                                                  (7, 'note')]
    assert all('holds a space' in p.message for p in registry.problems)
    found = {name: registry.lookup(name).url for name in
             ['No.39 希望皇 霍普', 'No.39 希望皇 霍普·翻倍', 'D.D. 乌鸦', '技能抽取', '黑洞', '旋风', '旋風']}
    assert found == {
        'No.39 希望皇 霍普': expected['no.39 希望皇 霍普'],
        'No.39 希望皇 霍普·翻倍': expected['no.39 希望皇 霍普·翻倍'],
        'D.D. 乌鸦': expected['d.d. 乌鸦'],
        '技能抽取': expected['技能抽取'],
        '黑洞': expected['黑洞'],
        '旋风': expected['旋风'],
        '旋風': expected['旋風'],
    }
    assert found['技能抽取'] == 'https://ygocdb.com/card/name/技能 抽取'
    assert found['D.D. 乌鸦'] == 'https://ygocdb.com/card/name/D.D.乌鸦'
    assert found['旋風'] == 'https://ygocdb.com/card/name/旋风'


# -- the handbook with faults ---------------------------------------------------------------


@pytest.mark.sphinx('html', testroot='legacy-faults', srcdir='legacy-registry-faults',
                    freshenv=True)
def test_registry_faults_are_reported_once_with_a_working_fix(app):
    app.build()
    line = {name: row(app, f'.. _`{name}') for name in
            ['幻变骚灵·泛在羽衣精', '王宫的敕命', '王宫的通告', '王宫的弹压', '`', 'PSY 骨架王·Z',
             'PSY 骨架王·Ω']}
    assert ours(app, warnings(app)) == [
        f"links.rst:{line['幻变骚灵·泛在羽衣精']}: ERROR: the URL "
        "'ygocdb.com/card/name/幻变骚灵·泛在羽衣精' is not http(s), so it is never a link; "
        'write it as .. _`幻变骚灵·泛在羽衣精`: https://ygocdb.com/card/name/幻变骚灵·泛在羽衣精'
        f"{UNTIL.format('幻变骚灵·泛在羽衣精')} [handbook.registry]",
        f"links.rst:{line['王宫的敕命']}: ERROR: not a link definition: no `:` after the name; "
        'write it as .. _`王宫的敕命`: https://ygocdb.com/card/name/王宫的敕命'
        f"{UNTIL.format('王宫的敕命')} [handbook.registry]",
        f"links.rst:{line['王宫的通告']}: ERROR: not a link definition: unbalanced backquotes; "
        'write it as .. _`王宫的通告`: https://ygocdb.com/card/name/王宫的通告'
        f"{UNTIL.format('王宫的通告')} [handbook.registry]",
        f"links.rst:{line['王宫的弹压']}: ERROR: the URL 'javascript:alert(1)' is not http(s), "
        f"so it is never a link; a row links https://…{UNTIL.format('王宫的弹压')} "
        '[handbook.registry]',
        f"links.rst:{line['`']}: ERROR: not a link definition: the name is empty; a row is "
        '.. _`卡名`: https://… [handbook.registry]',
        f"links.rst:{line['PSY 骨架王·Z']}: ERROR: the row holds the control character U+0007 "
        '(column 15); delete it; write it as .. _`PSY 骨架王·Z`: https://ygocdb.com/card/name/'
        f"PSY 骨架王·Z{UNTIL.format('PSY 骨架王·Z')} [handbook.registry]",
        f"links.rst:{line['PSY 骨架王·Ω'] + 1}: WARNING: 「PSY 骨架王·Ω」 has two rows with "
        f"different links: line {line['PSY 骨架王·Ω']} links https://ygocdb.com/card/name/PSY骨架王·Ω, "
        'this row https://ygocdb.com/?search=PSY骨架王·Ω (a series); pages link '
        'https://ygocdb.com/card/name/PSY骨架王·Ω: keep the right row and remove the other '
        '[handbook.registry]',
        # the uses of rejected rows' names (lines 8-10) are not reported again
        'registry.rst:11: ERROR: unknown card name 「王宫铁壁」: did you mean 「王宫的铁壁」? '
        'If it is a new card, add a row to links.rst. [handbook.card]',
        # 黑洞龙 and No.39 希望皇 霍普·翻倍 are other cards: no suggestion
        'registry.rst:12: ERROR: unknown card name 「黑洞」: check the spelling; if it is a new '
        'card, add a row to links.rst. [handbook.card]',
        'registry.rst:13: ERROR: unknown card name 「No.39 希望皇 霍普」: check the spelling; if '
        'it is a new card, add a row to links.rst. [handbook.card]',
    ]
    # the rows whose URLs hold spaces that docutils drops: notes (the rejected row 10's not)
    assert [int(note.split(':')[1]) for note in ours(app, notes(app))
            if 'holds a space, which reStructuredText drops' in note] == [
        line['PSY 骨架王·Ω'], line['PSY 骨架王·Ω'] + 1, row(app, '.. _`No.39 希望皇 霍普·翻倍')]
    assert [note for note in ours(app, notes(app)) if 'holds a space' not in note] == []


@pytest.mark.sphinx('html', testroot='legacy-faults', srcdir='legacy-registry-hostile',
                    freshenv=True)
def test_hostile_registry_input_never_leaks_into_html(app):
    app.build()
    for page in app.outdir.rglob('*.html'):
        html = page.read_text(encoding='utf-8')
        assert '<script>alert' not in html, page
        assert '<b>' not in html, page
        for href in re.findall(r'href="([^"]*)"', html):
            assert not re.match(r'[a-zA-Z][a-zA-Z0-9+.-]*:', href) or \
                href.startswith(('http://', 'https://')), (page, href)
    html = (app.outdir / 'registry.html').read_text(encoding='utf-8')
    # a name with HTML is text, and its URL an escaped attribute
    assert ('<a class="card-link card-card reference external" '
            'href="https://ygocdb.com/card/name/&lt;script&gt;alert(1)&lt;/script&gt;">') in html
    assert '&lt;script&gt;alert(1)&lt;/script&gt;</a>」 is text, escaped.' in html
    # the javascript: row is never a link: its name stays text
    assert '「<span class="card-name">王宫的弹压</span>」' in html
    assert 'javascript' not in html.replace('javascript:, never a link', '')


# -- registry rows, read without a build -------------------------------------------------------

@pytest.mark.parametrize(('text', 'message'), [
    # spaces, backquotes, colons: the cause, and the corrected row
    ('.. _`旋风 https://ygocdb.com/card/name/旋风',
     'not a link definition: unbalanced backquotes; write it as .. _`旋风`: '
     'https://ygocdb.com/card/name/旋风'),
    ('.. _旋风`: https://ygocdb.com/card/name/旋风',
     'not a link definition: unbalanced backquotes; write it as .. _`旋风`: '
     'https://ygocdb.com/card/name/旋风'),
    ('.. _旋风 https://ygocdb.com/card/name/旋风',
     'not a link definition: no `:` after the name; write it as .. _`旋风`: '
     'https://ygocdb.com/card/name/旋风'),
    ('.. _旋风:https://ygocdb.com/card/name/旋风',
     'not a link definition: no space after the `:` that ends the name; write it as '
     '.. _`旋风`: https://ygocdb.com/card/name/旋风'),
    ('.. _` 旋风`: https://ygocdb.com/card/name/旋风',
     'not a link definition: a space inside the backquotes; write it as .. _`旋风`: '
     'https://ygocdb.com/card/name/旋风'),
    ('.._旋风: https://ygocdb.com/card/name/旋风',
     'not a link definition: no space between `..` and `_`; write it as '
     '.. _旋风: https://ygocdb.com/card/name/旋风'),
    ('.. _ 旋风: https://ygocdb.com/card/name/旋风',
     'not a link definition: a space after `.. _`; write it as '
     '.. _旋风: https://ygocdb.com/card/name/旋风'),
    ('_`旋风`: https://ygocdb.com/card/name/旋风',
     'not a link definition: a line of text (a row starts with `.. _`); write it as '
     '.. _`旋风`: https://ygocdb.com/card/name/旋风'),
    # a name holding ": " ends at the first one, as in docutils
    ('.. _No.39: 希望皇: https://ygocdb.com/card/name/旋风',
     "the URL '希望皇:https://ygocdb.com/card/name/旋风' is not http(s), so it is never a link "
     '(a name that holds ": " ends at the first one: put the name in backquotes); write it as '
     '.. _`No.39: 希望皇`: https://ygocdb.com/card/name/旋风'),
    # URLs
    ('.. _`旋风`: ygocdb.com/card/name/旋风',
     "the URL 'ygocdb.com/card/name/旋风' is not http(s), so it is never a link; write it as "
     '.. _`旋风`: https://ygocdb.com/card/name/旋风'),
    # two rows' URLs, or two rows, on one line (a round trip, a review: it
    # linked them joined, or lost the second row)
    ('.. _`旋风`: https://ygocdb.com/card/name/旋风 https://ygocdb.com/card/name/黑洞',
     "the row holds a second address or row after its URL ('https://ygocdb.com/card/name/黑洞'), "
     'which the link would join to it (a second row goes on a line of its own); write it as '
     '.. _`旋风`: https://ygocdb.com/card/name/旋风'),
    ('.. _`旋风`: https://ygocdb.com/card/name/旋风 .. _`黑洞`: https://ygocdb.com/card/name/黑洞',
     "the row holds a second address or row after its URL ('.. _`黑洞`: "
     "https://ygocdb.com/card/name/黑洞'), which the link would join to it (a second row goes "
     'on a line of its own); write it as .. _`旋风`: https://ygocdb.com/card/name/旋风'),
    ('.. _`旋风`: https://ygocdb.com/card/ https://ygocdb.com/card/name/旋风',
     "the row holds a second address or row after its URL ('https://ygocdb.com/card/name/旋风'), "
     'which the link would join to it (a second row goes on a line of its own); write it as '
     '.. _`旋风`: https://ygocdb.com/card/'),
    ('.. _`旋风`: ftp://ygocdb.com/card/name/旋风',
     "the URL 'ftp://ygocdb.com/card/name/旋风' is not http(s), so it is never a link; a row "
     'links https://…'),
    ('.. _`旋风`: JavaScript:alert(document.cookie)',
     "the URL 'JavaScript:alert(document.cookie)' is not http(s), so it is never a link; a row "
     'links https://…'),
    ('.. _`旋风`: data:text/html,<script>alert(1)</script>',
     "the URL 'data:text/html,<script>alert(1)</script>' is not http(s), so it is never a link; "
     'a row links https://…'),
    ('.. _`旋风`:',
     'the row has no URL after the name (docutils reads it as a link to what follows it); '
     'write .. _`旋风`: https://…'),
    ('.. _`旋风`: `黑洞`_',
     'the row points at 「黑洞」 (an indirect link), which no row defines; give the row its '
     'own URL: .. _`旋风`: https://…'),
    # names
    ('.. _``: https://ygocdb.com/card/name/旋风',
     'not a link definition: the name is empty; a row is .. _`卡名`: https://…'),
    ('.. __: https://ygocdb.com/card/name/旋风',
     'an anonymous link target (.. __: URL) names no card; a row is .. _`卡名`: https://…'),
    ('链接', 'not a link definition: a line of text (a row starts with `.. _`); remove the line, '
     'or make it a comment: .. 链接'),
])
def test_broken_rows_name_the_cause_and_a_fix_that_works(tmp_path, text, message):
    registry = registry_of(tmp_path, f'.. _`黑洞龙`: https://ygocdb.com/card/name/黑洞龙\n{text}\n')
    assert len(registry.problems) == 1
    problem = registry.problems[0]
    assert (problem.line, problem.severity, problem.subtype) == (2, 'error', 'registry')
    assert problem.message.split('; until then')[0] == message
    fixed = re.search(r'; write it as (.*)$', message)
    if fixed:  # the corrected row differs from the row, and is a good row
        assert fixed[1] != text
        assert registry_of(tmp_path, fixed[1] + '\n', 'fixed.rst').problems == []


def test_a_broken_rows_fix_that_would_repeat_a_row_says_to_delete_it(tmp_path):
    """A broken row whose corrected form is a row the file has already: the
    fix was that row, which then was a duplicate row's note (an editor's
    round trip); now: delete the line, and so done, no report."""
    rows = '.. _`旋风`: https://ygocdb.com/card/name/旋风\n'
    registry = registry_of(tmp_path, rows + '.. _`旋风 `: https://ygocdb.com/card/name/旋风\n')
    assert [(p.line, p.severity, p.message) for p in registry.problems] == [
        (2, 'error', 'not a link definition: a space inside the backquotes; line 1 has that row '
         'already, .. _`旋风`: https://ygocdb.com/card/name/旋风: delete this line')]
    assert registry_of(tmp_path, rows, 'fixed.rst').problems == []


def test_an_address_that_a_url_carries_is_no_second_url(tmp_path):
    """``?u=https://…``, ``/r/https://…``: one address, which carries another."""
    registry = registry_of(tmp_path, '.. _`旋风`: https://ygocdb.com/?u=https://example.com/x\n'
                                     '.. _`黑洞`: https://ygocdb.com/r/https://example.com/y\n'
                                     '.. _`神之宣告`: https://ygocdb.com/?to=x,https://e.com/z\n'
                                     '.. _`月之书`: https://ygocdb.com/?search=月之书\n')
    assert registry.problems == []


def test_rejected_names_are_kept_to_silence_their_uses(tmp_path):
    registry = registry_of(tmp_path, '\n'.join([
        '.. _`旋风`: ygocdb.com/card/name/旋风',          # rejected, name known
        '.. _`星尘龙` https://ygocdb.com/card/name/星尘龙',  # rejected, name derived
        '.. _`黑洞`: javascript:alert(1)',                   # rejected ...
        '.. _`黑洞`: https://ygocdb.com/card/name/黑洞',     # ... but defined by a good row
        '',
    ]))
    assert registry.rejected == {'旋风': 1, '星尘龙': 2}
    assert [p.message.endswith(UNTIL.format(name)) for p, name in
            zip(registry.problems, ['旋风', '星尘龙', '黑洞'])] == [True, True, False]
    assert registry.lookup('黑洞').url == 'https://ygocdb.com/card/name/黑洞'


def test_tsv_spelling_variants_duplicates_and_conflicts(tmp_path):
    registry = registry_of(tmp_path, '\n'.join([
        '# kind\tname\tid\turl\taliases',
        'card\tD.D. 乌鸦',
        'card\tD.D.乌鸦',                        # 3: another spelling: a note
        'card\t幻变骚灵·协议\t\t\tzh_TW=幻變騷靈·協議',
        'card\t幻变骚灵协议\t\thttps://ygocdb.com/card/name/幻变骚灵协议',  # 5: a note, its URL unused
        'card\tD.D. 乌鸦',                       # 6: repeats line 2: remove it
        'card\tD.D. 乌鸦\t4711',                  # 7: the same name, another link: a warning
        'card\t幻變騷靈協議',                     # 8: spells line 4's zh_TW alias: a note
        'card\t旋风\t\t\tzh_TW=幻變騷靈·協議',     # 9: an alias that names another card
        '',
    ]), 'cards.tsv')
    dd = 'https://ygocdb.com/card/name/D.D.%20%E4%B9%8C%E9%B8%A6'
    phantasm = 'https://ygocdb.com/card/name/%E5%B9%BB%E5%8F%98%E9%AA%9A%E7%81%B5%C2%B7%E5%8D%8F%E8%AE%AE'
    keep = 'keep both rows while pages write both spellings'
    assert problems(registry) == [
        (3, 'note', 'registry-alias', '「D.D.乌鸦」 spells line 2\'s card 「D.D. 乌鸦」 another way: '
         f'both spellings link that card, at {dd} (this row\'s '
         f'https://ygocdb.com/card/name/D.D.%E4%B9%8C%E9%B8%A6 is not used); {keep}'),
        (5, 'note', 'registry-alias', '「幻变骚灵协议」 spells line 4\'s card 「幻变骚灵·协议」 another '
         f'way: both spellings link that card, at {phantasm} (this row\'s '
         f'https://ygocdb.com/card/name/幻变骚灵协议 is not used); {keep}'),
        (6, 'note', 'registry', 'duplicate row: line 2 has 「D.D. 乌鸦」 with the same link; remove '
         'this row (make fix does)'),
        (7, 'warning', 'registry', '「D.D. 乌鸦」 has two rows with different links: line 2 links '
         f'{dd}, this row https://ygocdb.com/card/4711; pages link {dd}: keep the right row and '
         'remove the other'),
        (8, 'note', 'registry-alias', '「幻變騷靈協議」 spells 「幻變騷靈·協議」, the zh_TW name of line '
         f'4\'s card 「幻变骚灵·协议」, another way: both spellings link that card, at {phantasm} '
         '(this row\'s https://ygocdb.com/card/name/%E5%B9%BB%E8%AE%8A%E9%A8%B7%E9%9D%88%E5%8D%94'
         f'%E8%AD%B0 is not used); {keep}'),
        (9, 'warning', 'registry', 'the zh_TW alias 「幻變騷靈·協議」 is already a name of line 4\'s '
         'card 「幻变骚灵·协议」 and links that card, not this one: remove the alias or correct the '
         'other row'),
    ]
    assert registry.redundant == (6,)
    assert redundant_rows(tmp_path / 'cards.tsv') == [6]
    card = registry.lookup('D.D. 乌鸦')
    assert registry.lookup('D.D.乌鸦') is card and registry.lookup('DD乌鸦') is None
    assert registry.lookup('幻變騷靈協議') is registry.lookup('幻变骚灵·协议')


def test_legacy_redundant_rows(tmp_path):
    path = tmp_path / 'links.rst'
    path.write_text('\n'.join([
        '.. _`旋风`: https://ygocdb.com/card/name/旋风',
        '.. _旋风: https://ygocdb.com/card/name/旋风',        # the same row, written otherwise
        '.. _`旋风`: https://ygocdb.com/card/name/旋风x',     # another link: kept (a warning)
        '.. _`旋风`: https://ygocdb.com/card/name/ 旋风',     # the same URL, once spaces go
        '.. _`旋 风`: https://ygocdb.com/card/name/旋风',      # another spelling: an alias
        '.. _`旋 风`: https://ygocdb.com/card/name/旋风',      # repeats line 5
        '',
    ]), encoding='utf-8')
    assert redundant_rows(path) == [2, 4, 6]
    assert [(p.line, p.severity, p.subtype) for p in load(path).problems] == [
        (2, 'note', 'registry'), (3, 'warning', 'registry'), (4, 'note', 'registry'),
        (5, 'note', 'registry-alias'), (6, 'note', 'registry')]


@pytest.mark.parametrize('first, second', [('http', 'https'), ('https', 'http')])
def test_rows_whose_links_differ_in_their_scheme_alone(tmp_path, first, second):
    """Two rows of a name whose links are one page over http and https: the
    http row is redundant, whichever comes first (a note, removed by make
    fix), not the warning of two links (an editor's round trip: it gave no
    hint that they were the same page)."""
    path = tmp_path / 'links.rst'
    path.write_text('\n'.join([
        '.. _`黑洞`: https://ygocdb.com/card/name/黑洞',
        f'.. _`月之书`: {first}://ygocdb.com/card/name/月之书',
        f'.. _`月之书`: {second}://ygocdb.com/card/name/月之书',
        '',
    ]), encoding='utf-8')
    http = 2 if first == 'http' else 3
    registry = load(path)
    assert problems(registry) == [
        (3, 'note', 'registry', '「月之书」 has two rows whose links differ in their scheme alone: '
         f'line {http} links http://ygocdb.com/card/name/月之书, line {5 - http} the same page '
         f'over https; remove line {http} (make fix does)')]
    assert redundant_rows(path) == [http]
    lines = path.read_text(encoding='utf-8').split('\n')
    del lines[http - 1]
    path.write_text('\n'.join(lines), encoding='utf-8')
    fixed = load(path)
    assert fixed.problems == [] and fixed.lookup('月之书').url.startswith('https://')


def test_our_registry_has_nothing_to_report():
    registry = load(ROOT / 'cards.tsv')
    assert registry.problems == []
    assert registry.redundant == () and registry.rejected == {}


# -- hostile files ---------------------------------------------------------------------------

@pytest.mark.parametrize('name', ['links.rst', 'cards.tsv'])
def test_control_characters_are_named(tmp_path, name):
    legacy = name.endswith('.rst')
    rows = [f'.. _`{n}`: https://ygocdb.com/card/name/{n}' if legacy else f'card\t{n}'
            for n in ['旋\x1b风', '黑洞\u202e', '星尘龙\x0b']]
    registry = registry_of(tmp_path, '\n'.join(rows) + '\n', name)
    found = [(p.line, re.search(r'U\+[0-9A-F]{4} \(column \d+\)', p.message)[0])
             for p in registry.problems]
    # (the rows' names start at column 6 in both formats)
    assert found == [(1, 'U+001B (column 7)'), (2, 'U+202E (column 8)'), (3, 'U+000B (column 9)')]
    assert len(registry) == 0 and sorted(registry.rejected) == ['旋风', '星尘龙', '黑洞']


def test_a_1_mb_row_is_one_error(tmp_path):
    path = tmp_path / 'links.rst'
    path.write_text('.. _`旋风`: https://ygocdb.com/card/name/' + '旋' * 1_000_000 + '\n'
                    '.. _`黑洞`: https://ygocdb.com/card/name/黑洞\n', encoding='utf-8')
    registry = load(path)
    assert problems(registry) == [
        (1, 'error', 'registry', 'the row is 1,000,039 characters long (a row is at most 2,000): '
         'is it several rows run together, or text pasted by mistake? split it into rows or '
         'remove it')]
    assert list(registry) == ['黑洞']


def test_html_in_names_is_kept_as_text(tmp_path):
    registry = registry_of(tmp_path, '.. _`<b>`: https://ygocdb.com/card/name/<b>\n'
                                     '.. _`<script>alert(1)</script>`: https://ygocdb.com/card/'
                                     'name/<script>alert(1)</script>\n')
    assert registry.problems == []
    assert registry.lookup('<b>').url == 'https://ygocdb.com/card/name/<b>'


def test_a_row_that_is_not_utf8_is_located(tmp_path):
    path = tmp_path / 'links.rst'
    path.write_bytes('.. _`旋风`: https://ygocdb.com/card/name/旋风\n'.encode()
                     + '.. _`黑洞`: https://ygocdb.com/card/name/黑洞'.encode('gb18030') + b'\n')
    registry = load(path)
    assert problems(registry) == [
        (2, 'error', 'registry', 'the row is not UTF-8 (byte 0xBA at column 6); save the '
         'registry as UTF-8')]
    assert list(registry) == ['旋风']


def test_a_binary_registry_is_not_read(tmp_path):
    path = tmp_path / 'links.rst'
    path.write_bytes(b'\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR' + bytes(range(256)))
    with pytest.raises(RegistryError, match=r'links\.rst holds NUL bytes: it is a binary or '
                                            r'UTF-16 file, not a card registry'):
        load(path)
    path.write_bytes(bytes(range(128, 256)) * 4 + b'\n' + bytes(range(200, 256)) * 2 + b'\n' * 5
                     + bytes(range(128, 200)) + b'\n' + bytes(range(180, 250)) + b'\n')
    with pytest.raises(RegistryError, match=r'is not UTF-8 text \(4 of its lines are not UTF-8\)'):
        load(path)


def test_a_stray_nul_is_its_rows_control_character(tmp_path):
    """One row's NUL in a UTF-8 registry dropped every row, said at line 1
    as a binary or UTF-16 file (a hostile-input round trip): it is that
    row's control character.  A UTF-16 file (its byte-order mark) is still
    one of another kind."""
    path = tmp_path / 'links.rst'
    path.write_bytes('.. _`旋风`: https://ygocdb.com/card/name/旋风\n'
                     '.. _`控己\x00`: https://ok.example/e\n'.encode())
    registry = load(path)
    assert problems(registry) == [
        (2, 'error', 'registry', 'the row holds the control character U+0000 (column 8); delete '
         "it; write it as .. _`控己`: https://ok.example/e; until then, pages that name 「控己」 "
         'show it without a link')]
    assert list(registry) == ['旋风']
    path.write_bytes('.. _`旋风`: https://ygocdb.com/card/name/旋风\n'.encode('utf-16'))
    with pytest.raises(RegistryError, match='holds NUL bytes: it is a binary or UTF-16 file'):
        load(path)


@pytest.mark.sphinx('html', testroot='legacy', srcdir='legacy-registry-binary', freshenv=True,
                    confoverrides={'handbook_cards': 'binary.rst'})
def test_a_binary_registry_is_one_located_error(make_app, app_params):
    args, kwargs = app_params
    (kwargs['srcdir'] / 'binary.rst').write_bytes(b'\x00\x01\x02\xff')
    app = make_app(*args, **kwargs)
    [error] = [w for w in warnings(app) if '[handbook.registry]' in w]
    assert error.startswith('binary.rst:1: ERROR: cannot read the card registry binary.rst: it '
                            'holds NUL bytes')


@pytest.mark.parametrize('registry', ['binary.tsv', 'folder'])
def test_an_unreadable_registry_is_no_crash_report(tmp_path, registry):
    """sphinx-build as make html runs it (issue 34, case 12): one located
    error, not Sphinx's crash report with its traceback header."""
    srcdir = tmp_path / 'src'
    srcdir.mkdir()
    (srcdir / 'conf.py').write_text("extensions = ['handbook.cards']\n", encoding='utf-8')
    (srcdir / 'index.rst').write_text('页\n====\n\n「`旋风`_」\n', encoding='utf-8')
    (srcdir / 'binary.tsv').write_bytes(b'\x00\x01\x02\xff')
    (srcdir / 'folder').mkdir()
    done = subprocess.run([sys.executable, '-m', 'sphinx', '-b', 'html', '-q', '-W',
                           '--keep-going', '-D', f'handbook_cards={srcdir / registry}',
                           str(srcdir), str(tmp_path / 'out')], capture_output=True, text=True,
                          env={**os.environ, 'PYTHONPATH': str(ROOT / '_ext')}, check=False)
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert line.startswith(f'{srcdir / registry}:1: ERROR: cannot read the card registry ')
    assert line.endswith('until then the card names are shown without links [handbook.registry]')


# -- suggestions ----------------------------------------------------------------------------

@pytest.fixture(scope='module')
def suggestions(tmp_path_factory) -> Registry:
    path = tmp_path_factory.mktemp('suggestions') / 'cards.tsv'
    path.write_text('\n'.join([
        'card\t王宫的铁壁', 'card\t王宫的弹压', 'card\t王宫的通告', 'card\t黑洞龙',
        'card\tNo.39 希望皇 霍普·翻倍', 'card\t技能抽取', 'card\t旋风\t\t\tzh_TW=旋風',
        'card\t黑洞', 'card\t罪', 'card\t神之宣告', 'card\t水晶龙', 'card\t青眼亚白龙',
        'card\tPSY骨架王 ω', 'card\t方界超兽 破坏之乾闼尔',
        'card\t幻变骚灵·网络傀儡师', '']), encoding='utf-8')
    return load(path)


@pytest.mark.parametrize(('name', 'language', 'expected'), [
    ('王宫铁壁', None, '王宫的铁壁'),            # one character missing
    ('王宫的铁臂', None, '王宫的铁壁'),          # one character wrong
    ('幻变骚灵·网络傀儡', None, None),            # contained in a name: perhaps another card
    ('幻变骚灵网络愧儡师', None, '幻变骚灵·网络傀儡师'),  # folded, then one wrong
    ('技能抽去', None, '技能抽取'),              # short: one edit, read alike (qu)
    ('技能抽走', None, None),                   # one edit, read differently: another name
    ('技能吸收', None, None),                   # short: two edits is too far
    ('白洞', None, None),                       # 黑洞 is no slip for it: a card of its own
    ('魔', None, None),
    ('神之警告', None, None),                    # 神之宣告 (宣 is not read as 警)
    ('No.38 希望皇 霍普·翻倍', None, None),       # a digit changed: another card
    ('水龙', None, None),                       # 水晶龙 less a character that is no particle
    ('青眼白龙', None, None),                    # 青眼亚白龙 likewise: each is a card
    ('PSY骨架王 λ', None, None),                # a letter changed: PSY骨架王 ω is another card
    ('王宫的通压', None, None),                  # as close to 王宫的通告 as to 王宫的弹压
    ('黑洞龙王', None, None),                    # it contains 黑洞龙
    ('No.39 希望皇 霍普', None, None),           # No.39 希望皇 霍普·翻倍 contains it
    ('旋风的主人', None, None),                  # it contains 旋风
    ('旋 风', None, None),                      # equal once folded: never suggested
    ('旋凬', 'zh_TW', '旋風'),                   # one card, named in the page's language
    ('旋凬', None, '旋风'),
    ('幻變騷靈·網絡傀儡師', None, '幻变骚灵·网络傀儡师'),  # Traditional: six characters differ
    ('王宮的鐵壁', None, '王宫的铁壁'),
    ('王宮的鐵臂', None, '王宫的铁壁'),           # Traditional, and a character read alike
    ('白洞', 'zh_TW', None),
    ('方界超兽 破坏之乾挞耳', None, '方界超兽 破坏之乾闼尔'),  # 乾 as written (tw2s: 干)
    ('', None, None),
    ('旋' * 5000, None, None),
])
def test_did_you_mean_offers_only_names_to_accept_blindly(suggestions, name, language, expected):
    assert suggestions.did_you_mean(name, language) == expected


def test_a_space_in_a_rows_url_is_a_note_with_its_fix(tmp_path):
    """docutils drops the spaces of a link definition's URL: ``…/a b`` linked
    ``…/ab``, unsaid (a hostile-input round trip).  A URL continued on the
    next line is joined so by design: nothing to say."""
    path = tmp_path / 'links.rst'
    path.write_text('.. _`旋风`: https://ok.example/a b\n'
                    '.. _`黑洞`: https://ok.example/\n   long\n', encoding='utf-8')
    registry = load(path)
    assert problems(registry) == [
        (1, 'note', 'registry', "URL 'https://ok.example/a b' holds a space, which "
         "reStructuredText drops from a link definition, so it links 'https://ok.example/ab': "
         'write %20 for each space it means, or delete them')]
    assert [registry.lookup(name).url for name in ('旋风', '黑洞')] == [
        'https://ok.example/ab', 'https://ok.example/long']


def test_a_build_prints_the_first_notes_of_each_kind_and_counts_the_rest(make_app, rootdir,
                                                                         tmp_path):
    """A link file with hundreds of notes of one kind (a legacy one's aliases,
    or rows repeated a thousand times) printed each at every fresh build: a
    wall of text (a hostile-input round trip).  Ten of a kind, then one line
    with the count; make check lists them all."""
    srcdir = tmp_path / 'yearly-faq'
    shutil.copytree(rootdir / 'test-yearly-faq', srcdir)
    registry = srcdir / 'links.rst'
    rows = registry.read_text(encoding='utf-8')
    first = len(rows.splitlines()) + 1
    registry.write_text(rows + '.. _`罪`: https://ygocdb.com/?search=罪\n' * 15,
                        encoding='utf-8')
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    said = [note for note in notes(app) if note.startswith('links.rst:')]
    assert [line.split(': note: ')[0] for line in said] == [
        f'links.rst:{n}' for n in range(first, first + 11)]
    assert said[-1] == (f'links.rst:{first + 10}: note: the card registry has 5 more notes of '
                        'these kinds (handbook.registry ×5), not printed here: make check lists '
                        'them [handbook.registry-notes]')
