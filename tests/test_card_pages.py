"""Card pages (_ext/handbook/listings/card_pages.py): one page per linked card,
its rulings newest first, the overturned ones folded, escaping, the links
that lead there, both editions and zh_TW, and rewriting only what changed."""

from __future__ import annotations

import html as html_module
import re
from pathlib import Path
from urllib.parse import quote, unquote

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
    # (its folded names but its key, which the script adds)
    options = re.findall(r'<option value="([^"]*)" data-key="([^"]*)"(?: data-names="([^"]*)")?>',
                         content(app, 'cards/旋风'))
    assert options == [('神之宣告', '神之宣告', ''), ('王宫的铁壁', '王宫的铁壁', '王宮的鐵壁'),
                       ('DDD 反骨王 列奥尼达', 'ddd反骨王列奥尼达', ''), ('黑洞', '黑洞', '')]


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


# -- a page of many rulings is several parts ----------------------------------------------

#: the parts of 旋风's page, two rulings to a part: (its ruling numbers' start, its rulings)
XUANFENG_PARTS = {'cards/旋风': (1, XUANFENG[:2], []), 'cards/旋风_2': (3, XUANFENG[2:4], []),
                  'cards/旋风_3': (5, XUANFENG[4:], OVERTURNED)}


def rewritten(make_app, app) -> list[str]:
    """The card pages (and parts) another build of *app*'s root writes, as
    page names: those whose file's date changed."""
    outdir = Path(app.outdir)
    again = make_app('html', srcdir=app.srcdir)
    before = {p: p.stat().st_mtime_ns for p in outdir.glob('cards/*.html')}
    again.build()
    return sorted(p.relative_to(outdir).with_suffix('').as_posix()
                  for p in outdir.glob('cards/*.html') if before.get(p) != p.stat().st_mtime_ns)


def ids_and_links(app, name: str) -> tuple[set[str], list[str]]:
    """The ids of a page, and the targets of its links (not of the theme's frame)."""
    page = re.search(r'<section class="card-page" id="card-page">.*?\n</section>', html(app, name),
                     re.S)[0]
    return (set(re.findall(r' id="([^"]*)"', html(app, name))),
            [html_module.unescape(unquote(h)) for h in re.findall(r' href="([^"]*)"', page)])


@pytest.mark.sphinx('html', testroot='card-pages', srcdir='card-pages-parts', freshenv=True,
                    confoverrides={'handbook_card_page_rulings': 2})
def test_a_card_of_many_rulings_is_a_page_of_several_parts(app):
    app.build()
    assert_no_warnings(app)
    # 旋风: five rulings and an overturned one, two to a part, in order
    for name, (start, shown, fallen) in XUANFENG_PARTS.items():
        assert standing(app, name) == shown, name
        assert overturned(app, name) == fallen, name
        assert f'<ol class="card-rulings" start="{start}">' in content(app, name) or start == 1
    # every ruling of every card exactly once across its parts, none over two to a part
    pages = card_pages.card_pages(app.env)
    assert written(app) == sorted(part for page in pages for part in page.parts)
    assert {page.name: page.parts for page in pages if len(page.parts) > 1} == {
        'cards/神之宣告': ('cards/神之宣告', 'cards/神之宣告_2'), 'cards/旋风': tuple(XUANFENG_PARTS)}
    for page in pages:
        listed = [href for part in page.parts
                  for _c, _s, href, _w, _t in standing(app, part) + overturned(app, part)]
        assert all(len(standing(app, part) + overturned(app, part)) <= 2 for part in page.parts)
        expected = [f'../{r.docname}.html#{r.anchor}' for r in (*page.rulings, *page.overturned)]
        assert sorted(listed) == sorted(expected) and len(set(listed)) == len(listed), page.name
    # each part: its title, the bar of the parts above and below its rulings
    for number, name in enumerate(XUANFENG_PARTS, 1):
        page = content(app, name)
        bars = re.findall(r'<(nav|p) class="card-page-parts"( aria-label="裁定的各页")?>(.*?)</\1>',
                          page, re.S)
        assert [(tag, label) for tag, label, _bar in bars] == [('nav', ' aria-label="裁定的各页"'),
                                                              ('p', '')]
        for _tag, _label, bar in bars:
            assert strip(bar) == '共 3 页：1 · 2 · 3'
            assert f'<strong aria-current="page">{number}</strong>' in bar
            assert [(unquote(h), t) for h, t in re.findall(
                r'<a href="([^"]*)" aria-label="第 \d 页">(\d)</a>', bar)] == [
                (f'{other.removeprefix("cards/")}.html', str(i))
                for i, other in enumerate(XUANFENG_PARTS, 1) if i != number]
        title = '旋风' if number == 1 else f'旋风（第 {number} 页）'
        assert f'<title>{title} ' in html(app, name)
        # the sections that link it on the first part alone, the summary on each
        assert ('<section class="card-page-places"' in page) == (number == 1)
        assert '<p class="card-page-summary">5 条裁定提到「旋风」，最新的在前。</p>' in page
    # the overturned one is on the last part: the others link there
    assert ('<p class="card-rulings-overturned-at"><a href="%s.html">已被推翻或已过时的裁定（1）在第 3 页'
            '</a></p>' % quote('旋风_3')) in content(app, 'cards/旋风')
    assert 'card-rulings-overturned-at' not in content(app, 'cards/旋风_3')
    # the filter: this part's rulings, and the parts whose rulings name each other card
    page = content(app, 'cards/旋风_2')
    assert 'data-some="本页 {count} 条裁定同时提到「{name}」" data-none="本页没有裁定同时提到「{name}」" ' \
        'data-part="2" data-elsewhere="其他页：" data-part-text="第 {page} 页"' in page
    assert dict(re.findall(r'<option value="([^"]*)"[^>]* data-parts="([^"]*)">', page)) == {
        '神之宣告': '1 3', '王宫的铁壁': '1 2', '黑洞': '1', 'DDD 反骨王 列奥尼达': '2'}
    assert 'data-parts' not in content(app, 'cards/黑洞')  # a page of one part
    # every link of every card page leads to a page written, and to an id on it
    for name in written(app):
        _ids, targets = ids_and_links(app, name)
        for target in targets:
            if '://' in target:
                continue
            path, _hash, anchor = target.partition('#')
            file = Path(app.outdir, 'cards', path).resolve()
            assert file.is_file(), (name, target)
            if anchor:
                assert anchor in set(re.findall(r' id="([^"]*)"', file.read_text(encoding='utf-8'))), \
                    (name, target)
    # the sitemap lists every part
    from handbook.publishing.site_urls import generated_pages
    assert sorted(name for name in generated_pages(app.env) if name.startswith('cards/')) == \
        written(app)


@pytest.mark.sphinx('html', testroot='card-pages', srcdir='card-pages-parts-incremental')
def test_a_lost_part_is_written_again_and_parts_no_longer_needed_removed(app, make_app):
    conf = Path(app.srcdir, 'conf.py')
    settings = conf.read_text(encoding='utf-8')
    outdir = Path(app.outdir)

    def rebuild(rulings: int) -> list[str]:
        conf.write_text(f'{settings}handbook_card_page_rulings = {rulings}\n', encoding='utf-8')
        return rewritten(make_app, app)

    rebuild(2)
    assert [name for name in written(app) if name.startswith('cards/旋风')] == list(XUANFENG_PARTS)
    assert rebuild(2) == []
    (outdir / 'cards' / '旋风_2.html').unlink()
    assert rebuild(2) == list(XUANFENG_PARTS)  # the page's parts, and nothing else
    rebuild(4)
    assert [name for name in written(app) if name.startswith('cards/旋风')] == \
        ['cards/旋风', 'cards/旋风_2']
    assert standing(app, 'cards/旋风_2') == XUANFENG[4:]
    assert overturned(app, 'cards/旋风_2') == OVERTURNED
    assert not (outdir / 'cards' / '神之宣告_2.html').exists()


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
    assert '<option value="旋風" data-key="旋风" data-names="旋風">' in page


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
        return rewritten(make_app, app)

    assert rebuild() == []  # nothing changed: nothing written
    other = Path(app.srcdir, 'other.rst')
    text = other.read_text(encoding='utf-8')
    # one ruling's text: the pages of its three cards
    other.write_text(text.replace('「`王宫的铁壁`_」。', '「`王宫的铁壁`_」，改过的。'), encoding='utf-8')
    assert rebuild() == ['cards/旋风', 'cards/王宫的铁壁', 'cards/黑洞']
    # its markup alone (an adopter's round trip: the card pages kept the words
    # unbold): the same pages, with the words in bold
    other.write_text(other.read_text(encoding='utf-8').replace(
        '，改过的。', '，\\ **改过的**\\ 。'), encoding='utf-8')
    assert rebuild() == ['cards/旋风', 'cards/王宫的铁壁', 'cards/黑洞']
    assert '<strong>改过的</strong>' in (outdir / 'cards' / '黑洞.html').read_text(encoding='utf-8')
    # its date moved into the sentence (an editor's round trip): the same text, dates
    # apart; the card pages show the date where it is now
    other.write_text(other.read_text(encoding='utf-8').replace(
        '「`王宫的铁壁`_」，\\ **改过的**\\ 。\\ :ruling:`21/6/1`',
        '「`王宫的铁壁`_」\\ :ruling:`21/6/1`，\\ **改过的**\\ 。'), encoding='utf-8')
    assert rebuild() == ['cards/旋风', 'cards/王宫的铁壁', 'cards/黑洞']
    assert re.search(r'王宫的铁壁</a>」<span[^>]*>21/6/1</span>，<strong>',
                     (outdir / 'cards' / '黑洞.html').read_text(encoding='utf-8'))
    # a page title, shown with every ruling of the page, and in the site's
    # navigation on every page (handbook.render.navigation): every card page
    other.write_text(other.read_text(encoding='utf-8').replace('另一页\n======', '别的页\n======'),
                     encoding='utf-8')
    assert rebuild() == sorted(p.relative_to(outdir).with_suffix('').as_posix()
                               for p in outdir.glob('cards/*.html'))
    # a card no longer linked: its page goes
    index = Path(app.srcdir, 'index.rst')
    index.write_text(index.read_text(encoding='utf-8').replace('「`星骑士`_」怪兽。', '怪兽。'),
                     encoding='utf-8')
    assert rebuild() == []
    assert not (outdir / 'cards' / '星骑士.html').exists()
    # a page file lost: written again
    (outdir / 'cards' / '黑洞.html').unlink()
    assert rebuild() == ['cards/黑洞']
    # a page no build of this environment wrote (a card's page written before
    # the environment was made afresh, a new version of the toolchain): it goes
    (outdir / 'cards' / '旧卡.html').write_text('stale', encoding='utf-8')
    again = make_app('html', srcdir=app.srcdir, freshenv=True)
    again.build()
    assert not (outdir / 'cards' / '旧卡.html').exists()
    assert (outdir / 'cards' / '黑洞.html').exists()


def test_a_card_pages_preview_counts_its_rulings_as_the_page_does(handbook_build):
    """A ruling said in a chapter and in a yearly FAQ is one ruling on the
    card page (也见于); its preview counted it once per place (a reader's
    round trip: 月之书's said 16, its page 13). On the real handbook, which
    has such rulings: every card page's preview and summary agree."""
    differ, shared = [], 0
    for page in sorted((handbook_build.html / 'cards').glob('*.html')):
        text = page.read_text(encoding='utf-8')
        said = re.search(r'<meta name="description" content="「[^」]*」的 (\d+) 条裁定', text)
        shown = re.search(r'(\d+) 条裁定提到「', text)
        if said and shown:
            shared += 'card-ruling-also' in text
            if said[1] != shown[1]:
                differ.append((page.stem, said[1], shown[1]))
    assert shared and differ == []


@pytest.mark.parametrize(('parts', 'number', 'bar'), [
    (3, 2, [1, 2, 3]),
    (10, 5, [1, None, 3, 4, 5, 6, 7, None, 10]),
    (10, 1, [1, 2, 3, None, 10]),
    (10, 9, [1, None, 7, 8, 9, 10]),
    (176, 88, [1, None, 86, 87, 88, 89, 90, None, 176]),
])
def test_a_parts_bar_links_the_parts_near_it_and_the_ends(parts, number, bar):
    """Every part's bar linked every part, twice: a card of 35,000 rulings
    (176 parts) wrote 60,000 links, quadratic in its rulings (a profiling
    round trip).  The first, the last and two on either side; … for a gap."""
    pager = [{'number': n, 'url': f'p{n}.html'} for n in range(1, parts + 1)]
    window = card_pages._window(pager, number)
    assert [entry and entry['number'] for entry in window] == bar
