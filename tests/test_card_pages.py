"""Card pages (_ext/handbook/listings/card_pages.py): one page per linked card,
its rulings newest first, the overturned ones folded, escaping, the links
that lead there, both editions and zh_TW, and rewriting only what changed."""

from __future__ import annotations

import html as html_module
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from handbook.core.names import SEPARATOR_CLASS, fold
from handbook.listings import card_pages
from helpers import assert_no_warnings, card_targets, html, whole_list

#: the card pages of test-card-pages (大宇宙 is linked by no page)
PAGES = ['cards/ddd反骨王列奥尼达', 'cards/lt-b-gt-卡', 'cards/旋风', 'cards/星骑士',
         'cards/王宫的铁壁', 'cards/神之宣告', 'cards/黑洞']

#: 旋风's rulings, newest first: (data-cards, statuses, permalink, 页面 › 小节, text)
XUANFENG = [
    ('旋风 黑洞 王宫的铁壁', [], '../other.html#ruling-2021-06-01-旋风', '另一页',
     '「旋风」「黑洞」「王宫的铁壁」。21/6/1'),
    ('旋风 神之宣告', ['裁定变更'], '../index.html#ruling-2020-01-13-旋风', '卡片页面',
     '裁定变更：「旋风」的发动可以被「神之宣告」无效。20/1/13'),
    # the same date: reading order
    ('旋风 王宫的铁壁', [], '../index.html#ruling-2018-01-13-旋风', '卡片页面 › 第一节',
     '「旋风」「王宫的铁壁」同时适用。18/1/13'),
    ('ddd反骨王列奥尼达 旋风', [], '../index.html#ruling-2018-01-13-ddd反骨王列奥尼达',
     '卡片页面 › 第一节', '「DDD反骨王列奥尼达」和「旋风」。18/1/13'),
    ('旋风 神之宣告', [], '../index.html#ruling-2017-03-24-旋风', '卡片页面',
     '「旋风」和「神之宣告」可以同时发动。17/3/24'),
]
OVERTURNED = [
    ('神之宣告 旋风', ['已推翻'], '../index.html#ruling-2016-01-01-神之宣告', '卡片页面',
     '「神之宣告」不能无效「旋风」的发动。16/1/1'),
]


def strip(text: str) -> str:
    return html_module.unescape(re.sub(r'<[^>]+>', '', text)).strip()


def content(app, name: str) -> str:
    page = html(app, name)
    return page[page.index('<section class="card-page"'):]


def rulings(part: str) -> list[tuple]:
    """The rulings listed in *part* of a card page (see :data:`XUANFENG`)."""
    out = []
    for item in re.finditer(r'<li class="card-ruling[^"]*" data-cards="([^"]*)">(.*?)</li>',
                            part, re.S):
        text = re.search(r'<p class="card-ruling-text">(.*?)</p>', item[2], re.S)[1]
        statuses = re.findall(r'<span class="ruling-status [^"]*">([^<]*)</span> ', text)
        text = re.sub(r'<span class="ruling-status [^"]*">[^<]*</span> ', '', text)
        source = re.search(r'<p class="card-ruling-source">(.*?) · <a class="card-ruling-'
                           r'permalink" href="([^"]*)">固定链接</a></p>', item[2], re.S)
        out.append((html_module.unescape(item[1]), statuses, unquote(source[2]),
                    strip(source[1]), strip(text)))
    return out


def standing(app, name: str) -> list[tuple]:
    part = content(app, name)
    return rulings(part.split('<details', 1)[0])


def overturned(app, name: str) -> list[tuple]:
    part = content(app, name)
    if '<details class="card-rulings-overturned">' not in part:
        return []
    return rulings(part.split('<details class="card-rulings-overturned">', 1)[1])


def written(app) -> list[str]:
    return sorted(p.relative_to(app.outdir).with_suffix('').as_posix()
                  for p in Path(app.outdir, 'cards').glob('*.html'))


# -- what a page shows --------------------------------------------------------------------


@pytest.mark.sphinx('html', testroot='card-pages')
@pytest.mark.test_params(shared_result='card_pages-card-pages')
def test_a_page_per_linked_card(app):
    app.build()
    assert_no_warnings(app)
    assert written(app) == PAGES


@pytest.mark.sphinx('html', testroot='card-pages')
@pytest.mark.test_params(shared_result='card_pages-card-pages')
def test_the_rulings_naming_the_card_newest_first(app):
    app.build()
    assert standing(app, 'cards/旋风') == XUANFENG
    assert overturned(app, 'cards/旋风') == OVERTURNED
    page = content(app, 'cards/旋风')
    assert '<p class="card-page-summary">5 条裁定提到「旋风」，最新的在前。</p>' in page
    assert '<summary>已被推翻或已过时的裁定（1）</summary>' in page
    # the ruling's text keeps its links: the card database, and § to each card's page
    first = re.search(r'<p class="card-ruling-text">(.*?)</p>', page, re.S)[1]
    assert re.findall(r'<a class="card-link [^"]*" href="([^"]*)"', first) == [
        'https://ygocdb.com/card/name/%E6%97%8B%E9%A3%8E', 'https://ygocdb.com/card/12345',
        'https://ygocdb.com/card/name/%E7%8E%8B%E5%AE%AB%E7%9A%84%E9%93%81%E5%A3%81']
    assert [target for _name, target, _label in card_targets(html(app, 'cards/旋风'))][:4] == [
        '', '../cards/旋风.html', '../cards/黑洞.html', '../cards/王宫的铁壁.html']  # '': the database
    # the sections that link it
    places = re.search(r'<section class="card-page-places".*?</section>', page, re.S)[0]
    assert [(unquote(h), t) for h, t in re.findall(r'<a href="([^"]*)">([^<]*)</a>', places)] == [
        ('../index.html', '卡片页面'), ('../index.html#第一节', '卡片页面 › 第一节'),
        ('../other.html', '另一页')]


@pytest.mark.sphinx('html', testroot='card-pages')
@pytest.mark.test_params(shared_result='card_pages-card-pages')
def test_every_listed_ruling_names_the_card_and_none_is_missing(app):
    """A page lists exactly the store's rulings whose cards name the card."""
    app.build()
    from handbook.rulings.lines import rulings as all_rulings
    every = [r for rs in all_rulings(app.env).values() for r in rs]
    for name in PAGES:
        key = next(p.entry.card.key for p in card_pages.card_pages(app.env) if p.name == name)
        expected = {f'../{r.docname}.html#{r.anchor}' for r in every if key in dict(r.cards)}
        listed = standing(app, name) + overturned(app, name)
        assert sorted(href for _c, _s, href, _w, _t in listed) == sorted(expected), name
        assert all(key in cards.split() for cards, *_rest in listed), name


@pytest.mark.sphinx('html', testroot='card-pages')
@pytest.mark.test_params(shared_result='card_pages-card-pages')
def test_database_link_aliases_spellings_series(app):
    app.build()
    black_hole = content(app, 'cards/黑洞')
    assert ('<p class="card-page-database"><a class="card-link card-card" '
            'href="https://ygocdb.com/card/12345" data-card="">在卡片数据库中查看「黑洞」</a></p>') \
        in black_hole  # data-card="": no § to the page itself
    ddd = content(app, 'cards/ddd反骨王列奥尼达')
    assert re.findall(r'<span class="card-page-alias">([^<]*)</span>', ddd) == ['DDD反骨王列奥尼达']
    assert [r[2] for r in standing(app, 'cards/ddd反骨王列奥尼达')] == [
        '../index.html#ruling-2018-01-13-ddd反骨王列奥尼达',
        '../other.html#ruling-2015-03-03-ddd反骨王列奥尼达']
    series = content(app, 'cards/星骑士')
    assert '<h1><span class="card-page-name">星骑士</span> <span class="card-page-kind">系列' \
        '</span></h1>' in series
    assert '<p class="card-page-summary">没有裁定提到「星骑士」。</p>' in series
    assert 'card-filter' not in series and 'card-ruling' not in series  # nothing to filter
    # the filter's suggestions: the cards named with it, most shared first
    options = re.findall(r'<option value="([^"]*)" data-key="([^"]*)" data-names="([^"]*)">',
                         content(app, 'cards/旋风'))
    assert options == [('神之宣告', '神之宣告', '神之宣告'),
                       ('王宫的铁壁', '王宫的铁壁', '王宫的铁壁 王宮的鐵壁'),
                       ('DDD 反骨王 列奥尼达', 'ddd反骨王列奥尼达', 'ddd反骨王列奥尼达'),
                       ('黑洞', '黑洞', '黑洞')]


@pytest.mark.sphinx('html', testroot='card-pages')
@pytest.mark.test_params(shared_result='card_pages-card-pages')
def test_every_text_is_escaped(app):
    """A card named ``&lt;b&gt;卡`` (as written: no markup) and an alias
    ``<b>粗体</b>`` are shown as text, never as markup."""
    app.build()
    page = html(app, 'cards/lt-b-gt-卡')
    assert '<title>&amp;lt;b&amp;gt;卡 ' in page
    assert '<h1><span class="card-page-name">&amp;lt;b&amp;gt;卡</span></h1>' in page
    assert '<span class="card-page-alias">&lt;b&gt;粗体&lt;/b&gt;</span>' in page
    assert '<b>' not in page
    assert '>&amp;lt;b&amp;gt;卡</a>」' in content(app, 'cards/黑洞')
    assert ('&lt;b&gt;卡', '../cards/lt-b-gt-卡.html', '卡片页面：&lt;b&gt;卡') in \
        card_targets(html(app, 'cards/黑洞'))


@pytest.mark.sphinx('html', testroot='card-pages')
@pytest.mark.test_params(shared_result='card_pages-card-pages')
def test_a_card_page_can_be_shared(app):
    """A link to a card page is previewed with the card's name, its count of
    rulings and the newest of them, cut; and the page's address."""
    from handbook.publishing.link_previews import width
    app.build()
    tags = dict(re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)"',
                           html(app, 'cards/旋风')))
    assert tags['og:title'] == '旋风'
    assert tags['og:url'] == 'https://example.org/handbook/cards/%E6%97%8B%E9%A3%8E.html'
    assert tags['og:site_name'] and tags['og:type'] == 'website'
    assert tags['og:description'] == tags['description']
    assert tags['description'].startswith('「旋风」的 5 条裁定。最新（')
    assert width(tags['description']) <= 160
    assert dict(re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)"',
                           html(app, 'cards/星骑士')))['og:description'] == '没有裁定提到「星骑士」。'
    # every text escaped: the card named &lt;b&gt;卡
    assert '<meta property="og:title" content="&amp;lt;b&amp;gt;卡" />' in \
        html(app, 'cards/lt-b-gt-卡')


# -- where they are linked from -----------------------------------------------------------


@pytest.mark.sphinx('html', testroot='card-pages')
@pytest.mark.test_params(shared_result='card_pages-card-pages')
def test_markers_and_index_entries_lead_to_the_card_pages(app):
    app.build()
    assert card_targets(html(app, 'other')) == [
        ('旋风', 'cards/旋风.html', '卡片页面：旋风'), ('黑洞', 'cards/黑洞.html', '卡片页面：黑洞'),
        ('王宫的铁壁', 'cards/王宫的铁壁.html', '卡片页面：王宫的铁壁'),
        ('DDD 反骨王 列奥尼达', 'cards/ddd反骨王列奥尼达.html', '卡片页面：DDD 反骨王 列奥尼达')]
    index = whole_list(app.outdir, 'card-index')
    entries = re.findall(r'<dt class="card-index-\w+" id="card-([^"]*)">', index)
    assert sorted(f'cards/{ident}' for ident in entries) == PAGES
    assert sorted(target for _name, target, _label in card_targets(index)) == \
        sorted(f'{page}.html' for page in PAGES)


@pytest.mark.sphinx('html', testroot='card-pages', srcdir='card-pages-off', freshenv=True,
                    confoverrides={'handbook_card_pages': False})
def test_switched_off_the_markers_lead_to_the_index(app):
    app.build()
    assert not Path(app.outdir, 'cards').exists()
    assert card_targets(html(app, 'other'))[0] == ('旋风', 'card-index.html#card-旋风',
                                                   '卡片索引：旋风')
    assert ('旋风', 'card-index.html#card-旋风', '卡片索引：旋风') in \
        card_targets(whole_list(app.outdir, 'card-index'))


@pytest.mark.sphinx('epub', testroot='card-pages', freshenv=True)
def test_no_card_pages_in_the_epub(app):
    app.build()
    assert not Path(app.outdir, 'cards').exists()
    assert 'cards/' not in Path(app.outdir, 'other.xhtml').read_text(encoding='utf-8')


# -- editions and languages ---------------------------------------------------------------


@pytest.mark.sphinx('html', testroot='card-pages', srcdir='card-pages-current', freshenv=True,
                    tags=['current'])
def test_the_current_edition_leaves_overturned_rulings_out(app):
    app.build()
    assert_no_warnings(app)
    assert standing(app, 'cards/旋风') == XUANFENG
    assert overturned(app, 'cards/旋风') == []
    assert '已推翻' not in html(app, 'cards/旋风')


@pytest.mark.sphinx('html', testroot='card-pages', srcdir='card-pages-zh_TW', freshenv=True,
                    confoverrides={'language': 'zh_TW'})
def test_names_in_the_language_of_the_build(app):
    app.build()
    assert written(app) == PAGES  # the same addresses in every language
    page = content(app, 'cards/王宫的铁壁')
    assert '<h1><span class="card-page-name">王宮的鐵壁</span></h1>' in page
    assert re.findall(r'<span class="card-page-alias">([^<]*)</span>', page) == ['王宫的铁壁']
    assert '<option value="旋風" data-key="旋风" data-names="旋風 旋风">' in page


# -- the filter's folding is the registry's -------------------------------------------------


@pytest.mark.sphinx('html', testroot='card-pages')
@pytest.mark.test_params(shared_result='card_pages-card-pages')
def test_the_script_folds_as_the_registry(app):
    app.build()
    script = Path(app.outdir, '_static', card_pages.STATIC_SCRIPT).read_text(encoding='utf-8')
    assert script.startswith('/* handbook card pages')
    assert f'const HANDBOOK_CARD_SEPARATORS = "{SEPARATOR_CLASS}"'.replace('\\', '\\\\') in script
    assert 'text.normalize("NFKC").replace(SEPARATORS, "").toLowerCase()' in script
    assert '_static/handbook-card-pages.js' in html(app, 'cards/旋风')
    assert '_static/handbook-card-pages.js' not in html(app, 'other')
    assert fold('DDD 反骨王・列奥尼达') == 'ddd反骨王列奥尼达'


@pytest.mark.sphinx('html', testroot='card-pages', srcdir='card-pages-incremental')
def test_an_edit_rewrites_only_the_pages_whose_rulings_changed(app, make_app):
    app.build()
    outdir = Path(app.outdir)

    def rebuild() -> list[str]:
        again = make_app('html', srcdir=app.srcdir)
        before = {p: p.stat().st_mtime_ns for p in outdir.glob('cards/*.html')}
        again.build()
        return sorted(p.relative_to(outdir).with_suffix('').as_posix()
                      for p in outdir.glob('cards/*.html')
                      if before.get(p) != p.stat().st_mtime_ns)

    assert rebuild() == []  # nothing changed: nothing written
    other = Path(app.srcdir, 'other.rst')
    text = other.read_text(encoding='utf-8')
    # one ruling's text: the pages of its three cards
    other.write_text(text.replace('「`王宫的铁壁`_」。', '「`王宫的铁壁`_」，改过的。'), encoding='utf-8')
    assert rebuild() == ['cards/旋风', 'cards/王宫的铁壁', 'cards/黑洞']
    # a page title, shown with every ruling of the page
    other.write_text(other.read_text(encoding='utf-8').replace('另一页\n======', '别的页\n======'),
                     encoding='utf-8')
    assert rebuild() == ['cards/ddd反骨王列奥尼达', 'cards/旋风', 'cards/王宫的铁壁', 'cards/黑洞']
    # a card no longer linked: its page goes
    index = Path(app.srcdir, 'index.rst')
    index.write_text(index.read_text(encoding='utf-8').replace('「`星骑士`_」怪兽。', '怪兽。'),
                     encoding='utf-8')
    assert rebuild() == []
    assert not (outdir / 'cards' / '星骑士.html').exists()
    # a page file lost: written again
    (outdir / 'cards' / '黑洞.html').unlink()
    assert rebuild() == ['cards/黑洞']
