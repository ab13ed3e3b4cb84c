"""Existing handbooks (issue 11): struck card names, placeholders, links inside
emphasis, stray backquotes (items 3, 4, 5, 8) and a page of a megabyte (9).

Roots: ``test-legacy-handbook`` (``struck.rst``, ``quotes.rst``: fine, no
report) and ``test-legacy-faults`` (``markup.rst``: one fault per marked
line).  Other pages of the two roots belong to other tests: the assertions
here are about the reports located in this file's pages.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys

import pytest
from conftest import ROOT
from handbook.cards.links import registry
from handbook.cards.markup import is_placeholder, split_emphasis, split_role
from handbook.nodes import is_card_link
from handbook.rulings.lines import rulings
from handbook.store import store
from helpers import html, links, warnings
from sphinx.util.console import strip_escape_sequences

spec = importlib.util.spec_from_file_location('autolink', ROOT / 'tools' / 'autolink.py')
autolink = sys.modules['autolink'] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(autolink)

HANDBOOK = ROOT / 'tests' / 'roots' / 'test-legacy-handbook'
CARD_URL = 'https://ygocdb.com/card/name/'


def notes(app) -> list[str]:
    """The build's notes (status stream), paths relative to srcdir."""
    text = strip_escape_sequences(app.status.getvalue()).replace(str(app.srcdir) + '/', '')
    return re.findall(r'\S+: note: .*', text)


def reports(app, *pages: str) -> list[str]:
    """Errors, warnings and notes located in *pages*, sorted by page and line
    (in the order they were reported within a line)."""
    found = [r for r in warnings(app) + notes(app) if r.split(':', 1)[0] in pages]
    return sorted(found, key=lambda r: (r.split(':')[0], int(r.split(':')[1])))


def card_link(name: str) -> str:
    """The HTML of a resolved link to the card *name* (a legacy row: its URL)."""
    return f'<a class="card-link card-card reference external" href="{CARD_URL}{name}">{name}</a>'


# -- item 3: whole rulings struck through, card names included ------------------------


@pytest.mark.sphinx('html', testroot='legacy-handbook')
@pytest.mark.test_params(shared_result='legacy_markup-legacy-handbook')
def test_struck_and_placeholder_pages_are_fine(app):
    app.build()
    assert reports(app, 'struck.rst', 'quotes.rst') == []


@pytest.mark.sphinx('html', testroot='legacy-handbook')
@pytest.mark.test_params(shared_result='legacy_markup-legacy-handbook')
def test_struck_card_names_are_struck_links(app):
    app.build()
    page = html(app, 'struck')
    skill = card_link('技能抽取')
    # a registry name in the struck text: a card link, inside the <del>
    assert (f'<del class="strike">对方场上存在「{skill}」…不受「{skill}」的效果影响。</del>'
            '<span class="ruling">19/4/18</span>') in page
    assert f'<del class="strike">「{card_link("星尘龙")}」的效果…不能发动。</del>' in page
    # a placeholder stays text, even with a registry row 「○○」; the name beside it is linked
    assert f'<del class="strike">「○○」被「{card_link("神之宣告")}」无效的场合…</del>' in page
    # a name not in the registry (旋风), effect text in 『』: plain text
    assert '<del class="strike">「旋风」和『「技能抽取」的效果』…</del>' in page
    # a struck text over two lines: both names linked
    assert (f'<del class="strike">对方的「{skill}」…\n不受「{card_link("星尘龙")}」的效果影响。'
            '</del>') in page
    # a section title is never linked (nor its entry in the table of contents)
    assert '<h2><del class="strike">「技能抽取」…</del> in a title' in page


@pytest.mark.sphinx('html', testroot='legacy-handbook', freshenv=True,
                    confoverrides={'extensions': ['handbook.cards', 'handbook.rulings',
                                                  'handbook.sections',
                                                  'handbook.listings.card_index']})
def test_struck_cards_are_cards_of_overturned_rulings(app):
    from handbook.listings.card_index import entries

    app.build()
    found = [(r.dates, r.cards, r.struck, r.changed) for r in rulings(app.env)['struck']]
    assert found == [
        (('2019-04-18',), (('技能抽取', '技能抽取'),), True, True),
        (('2018-01-13',), (('星尘龙', '星尘龙'),), True, True),
        (('2020-01-13',), (('星尘龙', '星尘龙'),), False, True),  # 裁定变更: the new ruling
        (('2017-03-24',), (('神之宣告', '神之宣告'),), True, True),  # not 「○○」
        (('2017-07-28',), (), True, True),  # 旋风 is not in the registry, 『』 is effect text
        (('2018-04-01',), (('神之宣告', '神之宣告'),), True, True),
        (('2019-07-01',), (('技能抽取', '技能抽取'), ('星尘龙', '星尘龙')), True, True),
    ]
    # the card index lists the struck names, with their overturned rulings' dates
    places = {entry.card.name: [(place.docname, [r.anchor for r in place.rulings])
                                for place in entry.places] for entry in entries(app.env)}
    assert places['技能抽取'] == [
        ('struck', ['ruling-2019-04-18-技能抽取']),
        ('struck', ['ruling-2019-07-01-技能抽取']),
        ('quotes', []),
    ]
    assert '○○' not in places and '××' not in places and 'A' not in places


@pytest.mark.sphinx('html', testroot='legacy-handbook', freshenv=True, tags=['current'],
                    confoverrides={'extensions': ['handbook.cards', 'handbook.rulings',
                                                  'handbook.sections',
                                                  'handbook.publishing.editions']})
def test_current_edition_leaves_whole_struck_rulings_out(app):
    app.build()
    page = html(app, 'struck')
    # every overturned ruling is gone, with its card links (the title's struck words too)
    assert '<del' not in page and '对方' not in page and '不能发动' not in page
    assert [name for _kind, _href, name in links(app, 'struck')] == ['星尘龙', '神之宣告']
    # what stays: the replacement ruling, the ruling corrected in place (its struck word gone)
    assert f'裁定变更：「{card_link("星尘龙")}」的效果…可以发动。' in page
    assert f'「{card_link("神之宣告")}」的效果可以发动。' in page
    assert [r.dates for r in rulings(app.env)['struck']] == [('2020-01-13',), ('2018-04-01',)]
    assert not any(r.struck for r in rulings(app.env)['struck'])
    assert set(store(app.env).record('struck').keys) == {'星尘龙', '神之宣告'}


@pytest.mark.sphinx('html', testroot='legacy-handbook', srcdir='legacy-markup-registry-edit')
def test_registry_edit_relinks_struck_names(app, make_app):
    """A name in struck text that becomes a registry name is linked on the next
    build: the page is read again, and only it."""
    app.build()
    assert '<del class="strike">「旋风」和' in html(app, 'struck')
    registry = app.srcdir / 'links.rst'
    registry.write_text(registry.read_text(encoding='utf-8')
                        + f'.. _`旋风`: {CARD_URL}旋风\n', encoding='utf-8')
    again = make_app('html', srcdir=app.srcdir)
    read: list[str] = []
    again.connect('env-before-read-docs', lambda app, env, docnames: read.extend(docnames))
    again.build()
    assert 'struck' in read and 'quotes' not in read  # the pages quoting 「旋风」 only
    assert f'<del class="strike">「{card_link("旋风")}」和『「技能抽取」的效果』…</del>' \
        in html(again, 'struck')


# -- item 4: placeholders ------------------------------------------------------------


@pytest.mark.parametrize(('content', 'placeholder'), [
    ('○○', True), ('××', True), ('A', True), ('Ｂ', True), ('z', True), ('？', True),
    ('○ ○', True), ('◇◆', True), ('…', True), ('＊', True),
    ('AB', False), ('旋风', False), ('○○怪兽', False), ('', False), (' ', False), ('1', False),
])
def test_is_placeholder(content, placeholder):
    assert is_placeholder(content) is placeholder


@pytest.mark.sphinx('html', testroot='legacy-handbook')
@pytest.mark.test_params(shared_result='legacy_markup-legacy-handbook')
def test_placeholders_are_text_though_the_registry_has_them(app):
    app.build()
    assert {'○○', '××', 'a'} <= set(registry(app.env))  # else this test proves nothing
    assert '<div class="line">「○○」的效果发动时，「××」不能发动。</div>' in html(app, 'quotes')
    assert '<div class="line">「A」和「Ｂ」是不同的卡，「？」和「○ ○」也不是卡名。</div>' \
        in html(app, 'quotes')
    assert links(app, 'quotes') == [('card', f'{CARD_URL}技能抽取', '技能抽取')]


def test_autolink_leaves_placeholders(tmp_path, capsys):
    page = tmp_path / 'page.rst'
    page.write_text('| 「○○」「××」「A」「Ａ」和「技能抽取」，「旋风」。\n', encoding='utf-8')
    assert autolink.main(['--cards', str(HANDBOOK / 'links.rst'), str(page)]) == 0
    assert page.read_text(encoding='utf-8') == \
        '| 「○○」「××」「A」「Ａ」和「`技能抽取`_」，「旋风」。\n'
    out = capsys.readouterr().out.splitlines()
    assert out == [f'{page}:1: 「技能抽取」 → 「`技能抽取`_」',  # the change made
                   f'{page}:1: 「旋风」 is not in the registry']


# -- items 5, 8: links inside emphasis, stray backquotes ------------------------------

SPLIT = 'cannot sit inside {}: reStructuredText does not nest inline markup, so readers see ' \
    'the backquotes; write {} [handbook.card-markup]'
BROKEN = "broken card markup '{}': write 「`{}`_」 (backquotes right around the name, no space " \
    'between them and the name, then _) [handbook.card-markup]'


@pytest.mark.sphinx('html', testroot='legacy-faults', freshenv=True)
def test_markup_faults_at_their_line(app):
    app.build()
    assert reports(app, 'markup.rst') == [
        'markup.rst:8: ERROR: card link 「`星尘龙`_」 ' + SPLIT.format(
            '**…**', '**不能连锁发动**\\ 「`星尘龙`_」\\ **的①效果**'),
        'markup.rst:9: ERROR: card links 「`星尘龙`_」、「`技能抽取`_」 ' + SPLIT.format(
            '*…*', '「`星尘龙`_」\\ *和*\\ 「`技能抽取`_」\\ *都不能发动*'),
        'markup.rst:10: ERROR: card link 「`霸王黑龙 异色眼叛逆龙`_」 ' + SPLIT.format(
            '**…**', '「`霸王黑龙 异色眼叛逆龙`_」\\ **的效果**'),
        "markup.rst:11: ERROR: stray '`_' in '效果文本『●炎属性`_』里留下了反引号。': delete it "
        '(not markup: readers see it as text) [handbook.markup]',
        "markup.rst:12: ERROR: stray '`' in '一个孤立的反引号` 留在这里。': delete it "
        '(not markup: readers see it as text) [handbook.markup]',
        'markup.rst:13: ERROR: ' + BROKEN.format('「` 星尘龙`_」', '星尘龙'),
        'markup.rst:14: ERROR: ' + BROKEN.format('「星尘龙`_」', '星尘龙'),
        'markup.rst:15: ERROR: 「`星尘龙`」 is not a card link: write 「`星尘龙`_」 '
        '(an underscore after the closing backquote) [handbook.card-markup]',
        'markup.rst:16: ERROR: ' + BROKEN.format('`霸王黑龙 异色眼叛逆龙`_」', '霸王黑龙 异色眼叛逆龙'),
        'markup.rst:17: ERROR: card link 「`星尘龙`_ has no closing 」: write 「`星尘龙`_」 '
        '[handbook.card-markup]',
        # a strong emphasis over two lines: at its first line, the fix on one line
        'markup.rst:19: ERROR: card link 「`技能抽取`_」 ' + SPLIT.format(
            '**…**', '**goes on to a second line with** 「`技能抽取`_」 **in it**'),
        # a plain registry name in emphasis: linked where it can be, outside the emphasis
        'markup.rst:20: WARNING: 「技能抽取」 is a card name in the registry but not linked: '
        'write it outside the emphasis, 「`技能抽取`_」 **not linked** (a link cannot sit inside '
        'emphasis; make fix does it) [handbook.unlinked]',
        # in a role the page declares: outside the role too (make fix does it too)
        'markup.rst:26: WARNING: 「技能抽取」 is a card name in the registry but not linked: '
        'write it outside the role, 「`技能抽取`_」\\ :red:`的效果不能发动。` (a link cannot sit '
        'inside a role; make fix does it for a role declared on the page, in a file it '
        'includes or in rst_prolog) '
        '[handbook.unlinked]',
    ]
    # the split form (line 22) renders its link, and nothing is reported there
    assert (f'<strong>不能连锁发动</strong>「{card_link("星尘龙")}」<strong>的①效果</strong>'
            in html(app, 'markup'))


#: every emphasised span of a page, overlapping ones too
EMPHASIS = re.compile(r'(?=(\*\*[^*]+?\*\*|\*[^*]+?\*))')


def apply_fixes(text: str, found: list[str]) -> str:
    """*text* (markup.rst) with the fix of each report applied, as an editor
    would apply it: what the report says to write, in place of what it quotes
    (line by line, then the emphasised spans, which may span lines)."""
    lines = text.split('\n')
    splits = []
    for report in found:
        number = int(report.split(':')[1])
        line = lines[number - 1]
        if m := re.search(r"broken card markup '(.+?)': write (「`.+?`_」) \(", report):
            lines[number - 1] = line.replace(m[1], m[2], 1)
        elif m := re.search(r"stray '(.+?)' in '(.+?)': delete it", report):
            lines[number - 1] = line.replace(m[2], m[2].replace(m[1], '', 1), 1)
        elif m := re.search(r'(「`.+?`」) is not a card link: write (「`.+?`_」)', report):
            lines[number - 1] = line.replace(m[1], m[2], 1)
        elif m := re.search(r'card link (「`.+?`_) has no closing 」: write (「`.+?`_」)', report):
            lines[number - 1] = line.replace(m[1], m[2], 1)
        elif m := re.search(r'outside the role, (.+?) \(a link', report):
            lines[number - 1] = re.sub(r':\w+:`[^`]*`', lambda _: m[1], line, count=1)
        elif m := re.search(r'(?:cannot sit inside \S+: .*?; write|outside the emphasis,) '
                            r'(.+?) (?:\[|\(a link)', report):
            splits.append(m[1])
        else:
            raise AssertionError(f'no fix in {report}')
    text = '\n'.join(lines)
    for fix in splits:
        # the span the fix is for: its split (its plain names linked) on one line
        span = next(m[1] for m in EMPHASIS.finditer(text)
                    if fix in {' '.join((split_emphasis(raw) or '').split('\n'))
                               for raw in (m[1], re.sub(r'「([^`」]+)」', r'「`\1`_」', m[1]))})
        text = text.replace(span, fix, 1)
    return text


def test_every_fix_of_the_markup_faults_works(tmp_path, make_app):
    """Each report's fix, applied to markup.rst, leaves nothing to report there,
    and every card of the page is a link (none lost, no name changed)."""
    faults = ROOT / 'tests' / 'roots' / 'test-legacy-faults'
    first = make_app('html', srcdir=faults, builddir=tmp_path / 'first', freshenv=True)
    first.build()
    found = reports(first, 'markup.rst')
    assert len(found) == 13
    srcdir = tmp_path / 'fixed'
    shutil.copytree(faults, srcdir)
    page = srcdir / 'markup.rst'
    page.write_text(apply_fixes(page.read_text(encoding='utf-8'), found), encoding='utf-8')
    fixed = make_app('html', srcdir=srcdir, freshenv=True)
    fixed.build()
    assert reports(fixed, 'markup.rst') == []
    assert [name for _kind, _href, name in links(fixed, 'markup')] == [
        '星尘龙', '星尘龙', '技能抽取', '霸王黑龙 异色眼叛逆龙',  # lines 8-10
        '星尘龙', '星尘龙', '星尘龙', '霸王黑龙 异色眼叛逆龙', '星尘龙',  # lines 13-17
        '技能抽取', '技能抽取', '星尘龙',  # the paragraph; line 22
        '技能抽取',  # line 26, out of the role
    ]


@pytest.mark.parametrize(('raw', 'split'), [
    # the example
    ('**不能连锁发动「`星尘龙`_」的①效果**', '**不能连锁发动**\\ 「`星尘龙`_」\\ **的①效果**'),
    # a card first, a card last: no empty **** segment
    ('**「`星尘龙`_」的效果**', '「`星尘龙`_」\\ **的效果**'),
    ('*不能连锁发动「`星尘龙`_」*', '*不能连锁发动*\\ 「`星尘龙`_」'),
    ('**「`星尘龙`_」**', '「`星尘龙`_」'),
    # several cards, text between them; two cards side by side
    ('*「`星尘龙`_」和「`技能抽取`_」都不能发动*', '「`星尘龙`_」\\ *和*\\ 「`技能抽取`_」\\ *都不能发动*'),
    ('**「`星尘龙`_」「`技能抽取`_」**', '「`星尘龙`_」「`技能抽取`_」'),
    # a space inside a card name stays; spaces at a segment's edges move outside
    ('**对方的 「`霸王黑龙 异色眼叛逆龙`_」 的效果**', '**对方的** 「`霸王黑龙 异色眼叛逆龙`_」 **的效果**'),
    ('**Not 「`星尘龙`_」 but this**', '**Not** 「`星尘龙`_」 **but this**'),
    # only spaces between two cards: not emphasised
    ('**「`星尘龙`_」 和 「`技能抽取`_」**', '「`星尘龙`_」 **和** 「`技能抽取`_」'),
    ('**「`星尘龙`_」 「`技能抽取`_」**', '「`星尘龙`_」 「`技能抽取`_」'),
    # a link without its 「」; a line break in the span
    ('**对方的`星尘龙`_的效果**', '**对方的**\\ `星尘龙`_\\ **的效果**'),
    ('**对方的\n「`星尘龙`_」的效果**', '**对方的**\n「`星尘龙`_」\\ **的效果**'),
])
def test_split_emphasis(raw, split):
    assert split_emphasis(raw) == split


@pytest.mark.parametrize('raw', [
    '**不能连锁发动**', '*「星尘龙」的效果*', '**`星尘龙`__ 匿名**', '**``字面``**', '不是强调',
    '****', '**「`星尘龙`」**',
])
def test_split_emphasis_without_card_link(raw):
    assert split_emphasis(raw) is None


@pytest.mark.parametrize(('raw', 'split'), [
    (':red:`「`星尘龙`_」的效果`', '「`星尘龙`_」\\ :red:`的效果`'),
    (':red:`不能连锁发动「`星尘龙`_」的①效果`',
     ':red:`不能连锁发动`\\ 「`星尘龙`_」\\ :red:`的①效果`'),
    (':x:y:`对方的 「`星尘龙`_」`', ':x:y:`对方的` 「`星尘龙`_」'),
    # not a role before its text, or no card link in it
    ('`「`星尘龙`_」的效果`:red:', None), (':red:`「星尘龙」的效果`', None),
    ('**「`星尘龙`_」**', None),
])
def test_split_role(raw, split):
    assert split_role(raw) == split


def test_split_emphasis_output_builds_clean(tmp_path, make_app):
    """Splits put back in a page build with no report, every card a link."""
    srcdir = tmp_path / 'split'
    srcdir.mkdir()
    faults = ROOT / 'tests' / 'roots' / 'test-legacy-faults'
    (srcdir / 'conf.py').write_text((faults / 'conf.py').read_text(encoding='utf-8'))
    rows = [row for row in (faults / 'links.rst').read_text(encoding='utf-8').splitlines()
            if any(f'_`{name}`:' in row for name in ('星尘龙', '技能抽取', '霸王黑龙 异色眼叛逆龙'))]
    (srcdir / 'links.rst').write_text('\n'.join(rows) + '\n', encoding='utf-8')
    lines = [split_emphasis(raw) for raw in (
        '**不能连锁发动「`星尘龙`_」的①效果**',
        '*「`星尘龙`_」和「`技能抽取`_」都不能发动*',
        '**对方的 「`霸王黑龙 异色眼叛逆龙`_」 的效果**',
        '**「`星尘龙`_」「`技能抽取`_」**',
    )]
    # the emphasis between Chinese words, joined to them by \ as it was
    lines.append(f'文字\\ {split_emphasis("**「`星尘龙`_」的效果**")}\\ 文字')
    (srcdir / 'index.rst').write_text(
        '强调\n====\n\n' + ''.join(f'| {line}\n' for line in lines), encoding='utf-8')
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    assert [w for w in warnings(app) if 'while setting up' not in w] == []
    assert [text for _kind, _href, text in links(app)] == [
        '星尘龙', '星尘龙', '技能抽取', '霸王黑龙 异色眼叛逆龙', '星尘龙', '技能抽取', '星尘龙']
    body = html(app).split('<h1>')[1].split('</section>')[0]
    assert '`' not in body and '*' not in body
    assert f'<div class="line">文字「{card_link("星尘龙")}」<strong>的效果</strong>文字</div>' in body


# -- item 9: a page of a megabyte -----------------------------------------------------


def test_a_megabyte_of_quotes_and_backquotes_builds(tmp_path, make_app):
    """A page of about 1 MB (lines under docutils' 10,000-character limit), full
    of 「 and backquotes in the shapes that made the old patterns backtrack or
    the line counting quadratic: it builds, and reports one problem per line."""
    srcdir = tmp_path / 'big'
    srcdir.mkdir()
    (srcdir / 'conf.py').write_text("extensions = ['handbook.cards', 'handbook.rulings']\n"
                                    "handbook_cards = 'links.rst'\n")
    (srcdir / 'links.rst').write_text(f'.. _`星尘龙`: {CARD_URL}星尘龙\n', encoding='utf-8')
    long_run = '和' * 9000 + '`'  # a run with no 「」 or space, then a backquote
    nested = '「' * 4000 + '」' * 4000  # deeply nested 「…」
    quoted = '「星尘龙」' * 1800  # plain registry names: one report per line
    struck = ':strike:`' + '「星尘龙」…' * 1200 + '`'  # linked by the role: no report
    paragraph = '\n'.join([long_run] * 60 + [nested] * 30)
    lines = '\n'.join(f'| {line}' for line in [quoted] * 20 + [struck] * 10)
    text = f'大\n==\n\n{paragraph}\n\n{lines}\n'
    assert len(text) > 1_000_000  # characters (3 MB of UTF-8)
    (srcdir / 'index.rst').write_text(text, encoding='utf-8')
    app = make_app('dummy', srcdir=srcdir, freshenv=True)
    app.build()
    found = [w for w in warnings(app) if 'while setting up' not in w]
    stray = ("ERROR: stray '`' in '…和和和和和和和和和和和和`': delete it (not markup: readers see it "
             'as text) [handbook.markup]')
    unlinked = ('WARNING: 「星尘龙」 is a card name in the registry but not linked: write '
                '「`星尘龙`_」 (make fix does it) [handbook.unlinked]')
    assert found == [f'index.rst:{n}: {stray}' for n in range(4, 64)] + \
        [f'index.rst:{n}: {unlinked}' for n in range(95, 115)]
    # the struck names are links: 1,200 in each of the 10 struck lines
    doctree = app.env.get_doctree('index')
    assert sum(1 for _ in doctree.findall(is_card_link)) == 12_000
