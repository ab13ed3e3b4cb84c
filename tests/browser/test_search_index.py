"""The search of issue 33, in a real browser: an index that loads only what a
query needs (_ext/handbook/search/rulings_index.py, shards.py), results as
you type in every page's search box (search_box.py), every spelling of a card
and of a date, one ruling once (rulings/same.py), reading offline
(publishing/offline.py).

What is asserted is what the reader's browser fetched and shows, never a
time: speed is ``make bench``'s (tools/search_budget.py).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

import pytest

from conftest import DESKTOP
from handbook.core.names import fold
from handbook.search import shards
from helpers import serve


def manifest(site) -> dict:
    text = (site.root / '_static' / 'rulings-index.js').read_text(encoding='utf-8')
    return json.loads(text[len('RulingSearch.setIndex('):-len(');\n')])


def fetched(page) -> list[str]:
    """The site's paths a page asks for, as it asks (``page.requests``)."""
    return page.requests


@pytest.fixture
def watched(desktop, site):
    """The desktop tab, noting the path of each request to the site."""
    desktop.requests = []
    desktop.on('request', lambda request: desktop.requests.append(
        unquote(urlsplit(request.url).path).lstrip('/')) if request.url.startswith(site.base)
        else None)
    return desktop


def ruling_results(page) -> list[str]:
    return page.eval_on_selector_all('#ruling-results li.ruling-result a.ruling-result-link',
                                     'links => links.map((a) => a.getAttribute("href"))')


def search(page, site, query: str) -> list[str]:
    page.goto(site.url(f'search.html?q={quote(query)}'))
    page.wait_for_function("document.querySelector('#ruling-results .ruling-search-count')"
                           "?.textContent.length > 0")
    return ruling_results(page)


def sections_done(page) -> None:
    page.wait_for_function("document.querySelector('#search-results .search-summary')"
                           "?.textContent.length > 0")


# -- an index that loads only what a query needs -------------------------------------------


def test_a_cold_search_fetches_no_page_and_only_the_parts_it_needs(watched, site, screenshot):
    index = manifest(site)
    query = '伤害步骤'
    rulings = search(watched, site, query)
    sections_done(watched)
    screenshot(watched, 'results')
    assert rulings and watched.locator('#search-results ul.search > li').count() > 0
    paths = fetched(watched)
    # no content page, nor Sphinx's index and its scripts
    pages = [p for p in paths if p.endswith('.html') and p != 'search.html']
    assert pages == []
    for name in ('searchindex.js', '_static/searchtools.js', '_static/language_data.js'):
        assert name not in paths
    assert '_static/rulings-index.js' in paths
    # the shards of its words: 伤害 and 步骤 (and the words' spellings: the same)
    parts = [p.removeprefix('_static/search/').removesuffix('.js')
             for p in paths if p.startswith('_static/search/')]
    keys = {f'k{shards.shard_of(key, index["shards"])}' for key in ('伤害', '步骤')}
    assert {p for p in parts if p[0] in 'ku'} == keys
    # the rulings shown (and the next twenty), and where the sections are
    chunk = index['chunk']
    shown = {f'r{i // chunk}' for i in range(min(40, index['rulings']))}
    assert {p for p in parts if p[0] == 'r'} <= shown or len(rulings) < 20
    assert 's' in parts
    total = len(list((site.root / '_static' / 'search').iterdir()))
    assert len(parts) < total / 4
    # each section result's snippet is the index's text, with the phrase
    first = watched.locator('#search-results ul.search > li').first
    first.scroll_into_view_if_needed()  # a snippet loads as its result comes into view
    first.locator('p.context').wait_for()
    assert query in fold(first.locator('p.context').inner_text())


@pytest.mark.sphinx('html', testroot='ruling-search', srcdir='ruling-search-alone',
                    freshenv=True)
def test_a_bigram_in_most_documents_is_fetched_alone_and_finds_the_same(
        app, make_app, desktop, tmp_path, monkeypatch):
    """The root built as it is, then with a bound so low that its commonest
    bigrams are parts of their own (shards.py's ``alone``): each query shows
    the same rulings, and loads the parts of the bigrams alone it holds."""
    plain = make_app('html', srcdir=app.srcdir, builddir=tmp_path / 'plain', freshenv=True)
    plain.build()
    monkeypatch.setattr(shards, 'ALONE_BYTES', 12)
    app.build()
    index = json.loads((app.outdir / '_static' / 'rulings-index.js').read_text(
        encoding='utf-8')[len('RulingSearch.setIndex('):-len(');\n')])
    assert '黑洞' in index['alone'] and '伤害' not in index['alone']
    asked: list[str] = []
    desktop.on('request', lambda request: asked.append(unquote(urlsplit(request.url).path)))
    with serve(plain.outdir) as before, serve(app.outdir) as after:
        for query in ('黑洞', '「黑洞」在伤害', '伤害步骤', '能发动', '旋风 黑洞', '洞」同'):
            shown = []
            for base in (before, after):
                asked.clear()
                desktop.goto(f'{base}search.html?q={quote(query)}')
                desktop.wait_for_function("document.querySelector("
                                          "'#ruling-results .ruling-search-count')"
                                          "?.textContent.length > 0")
                shown.append(ruling_results(desktop))
            assert shown[0] == shown[1] and shown[0], query
            parts = {path.rsplit('/', 1)[-1].removesuffix('.js') for path in asked
                     if '/_static/search/' in path}
            # the bigrams that cover each word, every two characters and the last
            covers = {word[k:k + 2] for word in map(fold, query.split())
                      for k in {*range(0, len(word) - 1, 2), len(word) - 2}}
            alone = covers & set(index['alone'])
            assert alone or query == '伤害步骤'
            # (the shard of its hash may be loaded still: for a word's spellings)
            assert {shards.alone_name(gram) for gram in alone} <= parts, query


def test_an_editors_incremental_index_answers_as_a_clean_builds(make_app, desktop, tmp_path):
    """An editor's preview: rulings of older dates, a paragraph and a section
    added keep every other document's id (layout.py), so the index ranks
    the new ones; each query shows the rulings and the sections a clean
    build of the same pages shows, in the same order."""
    srcdir = tmp_path / 'edited'
    shutil.copytree(Path(__file__).parents[1] / 'roots' / 'test-ruling-search', srcdir)
    make_app('html', srcdir=srcdir, freshenv=True).build()
    index, other = srcdir / 'index.rst', srcdir / 'other.rst'
    index.write_text(index.read_text(encoding='utf-8').replace(
        '\n.. toctree::',
        '| 「`黑洞`_」的效果在伤害步骤的处理。\\ :ruling:`18/6/6`\n\n'
        '新小节\n------\n\n伤害步骤的新段落。\n\n.. toctree::'), encoding='utf-8')
    other.write_text(other.read_text(encoding='utf-8').replace(
        '没有裁定的段落。', '没有裁定的段落。\n\n| 「`旋风`_」在伤害步骤的另一条。\\ :ruling:`15/5/5`'),
        encoding='utf-8')
    edited = make_app('html', srcdir=srcdir)
    edited.build()
    clean = make_app('html', srcdir=srcdir, builddir=tmp_path / 'clean', freshenv=True)
    clean.build()
    laid = json.loads((edited.outdir / '_static' / 'rulings-index.js').read_text(
        encoding='utf-8')[len('RulingSearch.setIndex('):-len(');\n')])
    assert laid['ranks'] and laid['section_ranks']  # the ids kept: the new ones ranked
    with serve(clean.outdir) as before, serve(edited.outdir) as after:
        for query in ('伤害步骤', '旋风', '黑洞', '段落', '2018-06-06'):
            shown = []
            for base in (before, after):
                desktop.goto(f'{base}search.html?q={quote(query)}')
                desktop.wait_for_function("document.querySelector("
                                          "'#ruling-results .ruling-search-count')"
                                          "?.textContent.length > 0")
                sections_done(desktop)
                shown.append((ruling_results(desktop), desktop.eval_on_selector_all(
                    '#search-results li a', 'links => links.map((a) => a.getAttribute("href"))')))
            assert shown[0] == shown[1] and shown[0][0] + shown[0][1], query
    assert len(shown[0][0]) >= 1


def test_the_search_answers_from_the_built_folder_too(desktop, site):
    """Opened from the built folder (file://, where a page may not fetch),
    the manifest and the parts load as the scripts they are, and the search
    finds what it finds served."""
    query = '黑洞'
    served = search(desktop, site, query)
    assert served
    desktop.goto(f'{(site.root / "search.html").as_uri()}?q={quote(query)}')
    desktop.wait_for_function("document.querySelector('#ruling-results .ruling-search-count')"
                              "?.textContent.length > 0")
    assert ruling_results(desktop) == served


def test_the_search_box_loads_nothing_until_it_is_used(watched, site):
    watched.goto(site.url('negation.html'))
    watched.wait_for_load_state('load')
    assert not any('rulings' in path or path.startswith('_static/search/')
                   for path in fetched(watched))
    assert '_static/handbook-search-box.js' in fetched(watched)
    watched.keyboard.press('/')  # Sphinx's shortcut to the search box
    watched.wait_for_function('typeof RulingSearch !== "undefined"')
    watched.wait_for_function('document.querySelector("input.sidebar-search")'
                              '.getAttribute("role") === "combobox"')
    assert '_static/rulings-index.js' in fetched(watched)
    assert not any(path.startswith('_static/search/') for path in fetched(watched))


# -- results as you type, by keyboard only -------------------------------------------------


def options(page) -> list[dict]:
    return page.eval_on_selector_all('ul.handbook-search-options li[role="option"]', '''items =>
        items.map((li) => ({ id: li.id, href: li.dataset.href, selected: li.getAttribute("aria-selected"),
                             text: li.textContent }))''')


def test_the_search_box_answers_as_you_type_by_keyboard_only(watched, site, screenshot):
    page = watched
    page.goto(site.url('effect-types.html'))
    page.keyboard.press('/')
    box = page.locator('input.sidebar-search')
    page.wait_for_function('document.activeElement?.classList.contains("sidebar-search")')
    page.keyboard.type('旋风')
    page.wait_for_function('document.querySelector("ul.handbook-search-options")'
                           '?.dataset.query === "旋风"')
    screenshot(page, 'open')
    assert box.get_attribute('role') == 'combobox'
    assert box.get_attribute('aria-expanded') == 'true'
    listbox = page.locator('ul.handbook-search-options')
    assert listbox.get_attribute('role') == 'listbox'
    assert box.get_attribute('aria-controls') == listbox.get_attribute('id')
    found = options(page)
    # the card's page first, then rulings, then every result
    assert found[0]['href'] == 'cards/旋风.html' and '旋风' in found[0]['text']
    rulings = [o for o in found[1:-1]]
    assert 1 <= len(rulings) <= 5 and all('#ruling-' in o['href'] for o in rulings)
    assert re.fullmatch(r'找到 \d+ 条裁定', found[-1]['text'])
    assert page.locator('p.handbook-search-status').inner_text() == found[-1]['text']
    # arrows move through the options; the focus stays in the box
    page.keyboard.press('ArrowDown')
    page.keyboard.press('ArrowDown')
    assert box.get_attribute('aria-activedescendant') == found[1]['id']
    assert [o['selected'] for o in options(page)][:2] == ['false', 'true']
    page.keyboard.press('ArrowUp')
    assert box.get_attribute('aria-activedescendant') == found[0]['id']
    assert page.evaluate('document.activeElement.classList.contains("sidebar-search")')
    screenshot(page, 'moved')
    # Escape closes it
    page.keyboard.press('Escape')
    assert listbox.is_hidden() and box.get_attribute('aria-expanded') == 'false'
    assert box.get_attribute('aria-activedescendant') is None
    # down opens it again; Enter on a ruling opens its permalink
    page.keyboard.press('ArrowDown')
    page.wait_for_function('!document.querySelector("ul.handbook-search-options").hidden')
    page.keyboard.press('ArrowDown')
    page.keyboard.press('ArrowDown')
    target = box.get_attribute('aria-activedescendant')
    href = page.get_attribute(f'#{target}', 'data-href')
    page.keyboard.press('Enter')
    page.wait_for_url(lambda url: unquote(url).endswith(href))


def test_the_hint_of_enter_shows_where_enter_would_show_more(desktop, site):
    """按回车键也搜索页面和小节 is hidden where the sections of the query are
    shown below already (a reader's round trip), and shown for a query typed
    since, whose sections Enter would show."""
    search(desktop, site, '伤害步骤')
    sections_done(desktop)
    hint = desktop.locator('p.ruling-search-hint')
    assert hint.is_hidden()
    desktop.locator('#ruling-query').fill('月之书')
    desktop.wait_for_function('document.getElementById("ruling-results").dataset.query'
                              ' === "月之书"')
    assert hint.is_visible() and desktop.locator('#search-results').is_hidden()


def test_tab_leaves_the_box_for_the_next_link_when_its_list_scrolls(desktop, site):
    """A list taller than its box scrolls, which made it a Tab stop of its
    own: Tab from the box went into it, the list closed, and the focus was
    lost to the page (a reader's round trip); it goes where it goes with no
    list open."""
    desktop.set_viewport_size({'width': 1280, 'height': 500})
    desktop.goto(site.url('index.html'))
    box = desktop.locator('input.sidebar-search')
    box.focus()
    desktop.keyboard.press('Tab')
    expected = desktop.evaluate('document.activeElement.outerHTML')
    box.focus()
    desktop.keyboard.type('旋风')
    desktop.wait_for_function('document.querySelector("ul.handbook-search-options")'
                              '?.dataset.query === "旋风"')
    assert desktop.evaluate('(() => { const list = document.querySelector('
                            '"ul.handbook-search-options"); '
                            'return list.scrollHeight > list.clientHeight; })()')
    desktop.keyboard.press('Tab')
    assert desktop.evaluate('document.activeElement.outerHTML') == expected


def test_enter_without_an_option_opens_every_result(desktop, site):
    desktop.goto(site.url('index.html'))
    desktop.keyboard.press('/')
    desktop.keyboard.type('月之书')
    desktop.wait_for_function('document.querySelector("ul.handbook-search-options")'
                              '?.dataset.query === "月之书"')
    desktop.keyboard.press('Enter')
    desktop.wait_for_url(re.compile(r'search\.html\?q='))
    assert unquote(desktop.url).split('?q=')[1].startswith('月之书')
    desktop.wait_for_function("document.querySelector('#ruling-results .ruling-search-count')"
                              "?.textContent.length > 0")


@pytest.mark.parametrize('stale', ['a ruling added since', 'an older format'])
def test_a_manifest_older_than_the_parts_is_loaded_again(desktop, site, stale):
    # a manifest a cache kept, or a tab open, from before a build that added
    # rulings (their ids come after the ones it counts: the same epoch, so
    # the parts do not say so) or that changed the index's format
    expected = search(desktop, site, '月之书 强制脱出装置')
    assert expected
    text = (site.root / '_static' / 'rulings-index.js').read_text(encoding='utf-8')
    old = manifest(site)
    if stale == 'a ruling added since':
        old['rulings'] = 0
    else:
        old['format'] = 2
    asked = []

    def answer(route) -> None:
        asked.append(route.request.url)
        if 'renew=' in route.request.url:  # loaded again: the site's own
            route.fulfill(body=text, content_type='text/javascript')
        else:
            route.fulfill(body=f'RulingSearch.setIndex({json.dumps(old)});\n',
                          content_type='text/javascript')

    desktop.route(re.compile(r'.*/_static/rulings-index\.js.*'), answer)
    desktop.goto(site.url(f'search.html?q={quote("月之书 强制脱出装置")}'))
    # shown once the manifest is loaded again (the search runs again)
    desktop.wait_for_function('(n) => document.querySelectorAll('
                              '"#ruling-results li.ruling-result").length === n', arg=len(expected))
    assert ruling_results(desktop) == expected
    assert len(asked) == 2 and 'renew=' in asked[1]


# -- every spelling finds the card ----------------------------------------------------------


@pytest.mark.parametrize('spelling', ['旋風', '旋 风', 'ＤＤＤ反骨王列奥尼达', '「旋风」', '「旋風」'])
def test_every_spelling_of_a_card_finds_it_and_its_page_first(desktop, site, spelling):
    name = 'DDD 反骨王 列奥尼达' if 'ddd' in fold(spelling) else '旋风'
    expected = search(desktop, site, name)
    assert expected
    assert search(desktop, site, spelling) == expected
    link = desktop.locator('#ruling-results p.ruling-card-pages a').first
    assert link.inner_text() == f'「{name}」的卡片页面'
    page = unquote(link.get_attribute('href'))
    assert page == f'cards/{fold(name)}.html' and (site.root / page).is_file()
    # before the rulings
    assert desktop.evaluate('''() => {
      const link = document.querySelector("p.ruling-card-pages a");
      const first = document.querySelector("li.ruling-result");
      return !!(link.compareDocumentPosition(first) & Node.DOCUMENT_POSITION_FOLLOWING);
    }''')


@pytest.mark.parametrize('traditional, simplified', [('傷害步驟', '伤害步骤'),
                                                     ('脫出裝置', '脱出装置')])
def test_text_in_traditional_characters_finds_what_it_says(watched, site, traditional,
                                                           simplified):
    """A phrase or part of a name, which no spelling table holds, in the
    other script: searched again in the index's, with the part that says how
    (other_scripts.py), loaded only once the query as typed found nothing."""
    expected = search(watched, site, simplified)
    assert expected
    assert '_static/search/t.js' not in fetched(watched)
    assert search(watched, site, traditional) == expected
    assert '_static/search/t.js' in fetched(watched)
    marks = watched.locator('#ruling-results li.ruling-result mark').all_inner_texts()
    assert simplified in [fold(mark) for mark in marks]


@pytest.mark.parametrize('written', ['17/3/24', '2017/3/24', '17/03/24', '2017-03-24',
                                     '2017.3.24', '2017年3月24日'])
def test_every_way_of_writing_a_date_finds_it(desktop, site, written):
    found = search(desktop, site, written)
    assert found and found == search(desktop, site, '17/3/24')
    assert desktop.locator('.ruling-result-date-match').first.inner_text() == '17/3/24'


def test_a_month_finds_its_days(desktop, site):
    search(desktop, site, '2017-03')
    while desktop.locator('button.ruling-results-more').is_visible():
        desktop.click('button.ruling-results-more')
    month = ruling_results(desktop)
    day = search(desktop, site, '17/3/24')
    assert set(day) < set(month)


# -- one ruling once ------------------------------------------------------------------------


def test_a_card_page_shows_a_ruling_once_with_its_other_places(desktop, site, screenshot):
    desktop.goto(site.url('cards/裁决之龙.html'))
    items = desktop.locator('li.card-ruling').filter(
        has=desktop.locator('a.card-ruling-permalink[href$="#ruling-2014-03-21-裁决之龙"]'))
    assert items.count() == 1
    also = items.locator('.card-ruling-also')
    assert also.inner_text().startswith('也见于')
    assert [unquote(h) for h in also.locator('a').evaluate_all(
        'links => links.map((a) => a.getAttribute("href"))')] == [
        '../face-down-banish.html#ruling-2014-03-21-裁决之龙']
    screenshot(desktop, 'once')


# -- offline --------------------------------------------------------------------------------


def test_what_was_read_stays_readable_offline(browser, site, screenshot):
    """A reader with the service worker reads a page and searches, then loses
    the network (the server stops): the page and that search still answer."""
    context = browser.new_context(**{**DESKTOP, 'service_workers': 'allow'})
    page = context.new_page()
    try:
        with serve(site.root) as base:
            page.goto(base + 'negation.html')
            assert page.evaluate('navigator.serviceWorker.ready.then(() => true)')
            page.reload()  # now through the worker
            page.wait_for_function('navigator.serviceWorker.controller !== null')
            page.goto(base + f'search.html?q={quote("旋风")}')
            page.wait_for_function("document.querySelector('#ruling-results .ruling-search-count')"
                                   "?.textContent.length > 0")
            online = ruling_results(page)
            title = page.title()
        # the network is cut: nothing answers at that address any more
        page.goto(base + 'negation.html')
        assert page.locator('h1').first.inner_text().startswith('无效')
        assert page.locator('.ruling-line').count() > 10
        page.goto(base + f'search.html?q={quote("旋风")}')
        page.wait_for_function("document.querySelector('#ruling-results .ruling-search-count')"
                               "?.textContent.length > 0")
        screenshot(page, 'offline')
        assert ruling_results(page) == online and page.title() == title
        # a search whose parts were never loaded says so, once: the page loads
        # (no manifest asked for again and again), the count says why
        page.goto(base + f'search.html?q={quote("王宫的铁壁")}', wait_until='load')
        page.wait_for_function("document.querySelector('#ruling-results .ruling-search-count')"
                               "?.textContent.length > 0")
        unavailable = '无法载入这次搜索所需的索引（离线时，只有读过的页面和搜过的内容可用）。'
        assert page.locator('#ruling-results .ruling-search-count').inner_text() == unavailable
        assert ruling_results(page) == []
        # said once: the sections below hold no second message, nor a heading that
        # says the search goes on (a reader's round trip: 正在搜索中 stayed)
        page.wait_for_function('document.getElementById("search-results").children.length === 0')
        assert page.locator('body').inner_text().count(unavailable) == 1
        # nor the hint that Enter searches more (a reader's round trip)
        assert page.locator('#ruling-results .ruling-search-hint').is_hidden()
        # a page never opened is not there: a page says so, in Chinese, with the
        # way home (a reader's round trip: the browser's own error page)
        page.goto(base + 'effect-types.html')
        assert page.locator('h1').inner_text() == '这一页离线时无法打开'
        assert page.locator('main a').get_attribute('href') == base
    finally:
        context.close()


@pytest.mark.sphinx('html', testroot='yearly-faq', srcdir='yearly-faq-basic-theme', freshenv=True)
def test_a_theme_built_on_basic_gets_the_search_too(app, desktop):
    """A handbook on Sphinx's default theme (alabaster, built on basic; the
    root's): its search page runs no script of Sphinx's search (its page
    named searchindex.js, whose script called a Search never loaded: an
    error at each search), and its sidebar box answers as furo's does."""
    app.build()
    errors: list[str] = []
    desktop.on('pageerror', lambda error: errors.append(str(error)))
    with serve(Path(app.outdir)) as base:
        desktop.goto(f'{base}search.html?q={quote("倍倍伤害")}')
        desktop.wait_for_function("document.querySelector('#ruling-results .ruling-search-count')"
                                  "?.textContent.length > 0")
        assert ruling_results(desktop) == ['faq/2021.html#ruling-2021-01-05-倍倍伤害']
        desktop.goto(f'{base}index.html')
        box = desktop.locator('#searchbox input[name="q"]')
        box.focus()
        desktop.keyboard.type('倍倍伤害')
        desktop.wait_for_function('document.querySelector("ul.handbook-search-options")'
                                  '?.dataset.query === "倍倍伤害"')
        assert box.get_attribute('role') == 'combobox'
    assert 'searchindex.js' not in (Path(app.outdir) / 'search.html').read_text(encoding='utf-8')
    assert errors == []


def test_the_struck_words_of_a_ruling_struck_in_part_show_struck(make_app, desktop, tmp_path):
    """A ruling whose words are struck in part shows them struck in the
    results and in the sidebar's list, as on its page (an editor's round
    trip: 不能可以发动, the struck word as any other)."""
    srcdir = tmp_path / 'struck'
    shutil.copytree(Path(__file__).parents[1] / 'roots' / 'test-ruling-search', srcdir)
    with (srcdir / 'index.rst').open('a', encoding='utf-8') as page:
        # the newest of its section that says 可以发动: the section's snippet below
        page.write('\n| 「`神之宣告`_」的效果\\ :strike:`不能`\\ 可以发动。\\ :ruling:`22/4/1`\n')
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    with serve(Path(app.outdir)) as base:
        desktop.goto(f'{base}search.html?q={quote("可以发动")}')
        desktop.wait_for_function("document.querySelector('#ruling-results .ruling-search-count')"
                                  "?.textContent.length > 0")
        result = desktop.locator('#ruling-results li.ruling-result').filter(has_text='的效果')
        assert result.locator('p.ruling-result-text').inner_text() == '「神之宣告」的效果不能可以发动。'
        assert result.locator('p.ruling-result-text del').all_inner_texts() == ['不能']
        assert result.locator('p.ruling-result-text mark').all_inner_texts() == ['可以发动']
        # the section's snippet below, from that ruling: struck too
        sections_done(desktop)
        snippet = desktop.locator('#search-results ul.search > li p.context').filter(
            has_text='的效果不能')
        assert snippet.locator('del').all_inner_texts() == ['不能']
        desktop.goto(f'{base}other.html')
        desktop.locator('#searchbox input[name="q"], input.sidebar-search').first.focus()
        desktop.keyboard.type('的效果不能')
        option = desktop.locator('ul.handbook-search-options li.handbook-search-ruling').first
        option.wait_for()
        assert option.locator('del').all_inner_texts() == ['不能']


@pytest.mark.sphinx('html', testroot='yearly-faq', srcdir='yearly-faq-struck-snippet',
                    freshenv=True)
def test_a_sections_snippet_from_an_overturned_ruling_is_struck(app, desktop):
    """A section result's snippet that is an overturned ruling (a whole line
    in ``:strike:``) shows it struck, as the results above do (a reader's
    round trip: below them, it read as current)."""
    app.build()
    with serve(Path(app.outdir)) as base:
        desktop.goto(f'{base}search.html?q={quote("一时除外")}')
        sections_done(desktop)
        results = desktop.locator('#search-results ul.search > li')
        # the question, asked in 2019 (open) and answered in 2021 (struck)
        assert results.locator('a').all_inner_texts() == ['2021 > 1/5', '2019年 > 4/17']
        struck, asked = (results.nth(i).locator('p.context') for i in (0, 1))
        assert struck.inner_text() == asked.inner_text() == (
            '「死者苏生」特殊召唤的怪兽被一时除外的场合，是否还受「来自墓场的呼声」的效果影响，调整中。')
        assert struck.locator('del').all_inner_texts() == [struck.inner_text()]
        assert asked.locator('del').count() == 0


@pytest.mark.sphinx('html', testroot='yearly-faq', srcdir='yearly-faq-box-statuses', freshenv=True)
def test_the_sidebars_list_marks_overturned_open_and_outdated_rulings(app, desktop):
    """The sidebar's list shows a ruling's status as the search page does: an
    overturned ruling struck, with 推翻; an open question, 调整中; an
    outdated day's, 已过时 (a reader's round trip: they were listed as any
    other, and a reader picking from the list could act on an overturned
    ruling)."""
    app.build()
    with serve(Path(app.outdir)) as base:
        desktop.goto(f'{base}chapter.html')
        box = desktop.locator('#searchbox input[name="q"]')
        statuses = []
        for query in ('死者苏生', '试胆竞速'):
            box.fill('')
            box.focus()
            desktop.keyboard.type(query)
            desktop.wait_for_function('(q) => document.querySelector("ul.handbook-search-options")'
                                      '?.dataset.query === q', arg=query)
            for option in desktop.locator('ul.handbook-search-options li.handbook-search-ruling'
                                          ).all():
                statuses.append((option.locator('.handbook-search-text').inner_text()[:8],
                                 option.locator('.ruling-status').all_inner_texts(),
                                 'handbook-search-struck' in option.get_attribute('class')))
    assert statuses == [('「死者苏生」特殊', ['已推翻'], True),  # faq/2021: struck
                        ('「死者苏生」特殊', ['调整中'], False),  # faq/2019: open
                        ('「试胆竞速」的效', ['已过时'], False)]  # faq/2021's 2/9: outdated


def test_the_sidebars_list_shows_each_ruling_from_near_its_match(desktop, site):
    """Each ruling of the sidebar's list shows its text from a little before
    the first word searched for, with … before it where that word is further
    in than the list's lines show (a reader's round trip: an item cut before
    the word, nothing marked)."""
    desktop.goto(site.url('index.html'))
    box = desktop.locator('#searchbox input[name="q"], input.sidebar-search').first
    box.focus()
    desktop.keyboard.type('月之书')
    desktop.wait_for_function('document.querySelector("ul.handbook-search-options")'
                              '?.dataset.query === "月之书"')
    texts = desktop.locator('ul.handbook-search-options li.handbook-search-ruling '
                            '.handbook-search-text')
    shown = [(text.inner_text(), text.locator('mark').count()) for text in texts.all()]
    assert shown and all(marks for _text, marks in shown), shown
    # the first mark within the first 37 characters: where the list's lines show it
    before = [text.evaluate('(node) => node.textContent.indexOf(node.querySelector("mark")'
                            '.textContent)') for text in texts.all()]
    assert max(before) <= 37, before
    assert any(text.startswith('…') for text, _marks in shown)
