"""Ruling search (_ext/handbook/search/rulings_index.py), in a real browser: the
search page answers with the rulings themselves, before Sphinx's sections.

The expected rulings are written out (their permalinks do not depend on
other lines), and checked against ``rulings.json`` too: the rulings whose
text, dates or cards hold the query, no more.  The zh_TW edition is the
real handbook built with ``LANGUAGE=zh_TW`` (once per run), or
``$HANDBOOK_SITE_ZH_TW``, a zh_TW site built before (``_build/html/zh_TW``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote, unquote

import pytest

from handbook.core.names import fold
from helpers import PUBLISHED, build_once, make_command, serve, sphinxopts

#: the rulings a query returns, newest first; a ruling in several places (the
#: same text and cards) once, where it is first (handbook/rulings/same.py)
PHRASE = ('伤害步骤', [  # jieba cuts it in two: 伤害 + 步骤
    'negation.html#ruling-2021-12-01-漆黑之魔王lv8',
    'face-down-banish.html#ruling-2019-03-04-魔女术的合作',
    'negation.html#ruling-2017-10-01-虹之古代都市',
    'negation.html#ruling-2017-03-24-真红莲之茧-f84e7e',
    'negation.html#ruling-2017-03-24-大宇宙',
])
PARTIAL_NAME = ('反骨王', [  # of 「DDD 反骨王 列奥尼达」; the page has the ruling twice
    'effect-processing.html#ruling-2017-12-22-ddd反骨王列奥尼达-03c7a3',
])
TWO_CARDS = ('月之书 强制脱出装置', [  # the two of 2014 are on face-down-banish too
    'negation.html#ruling-2023-10-02-月之书',
    'negation.html#ruling-2014-03-21-裁决之龙',
    'negation.html#ruling-2014-03-21-效果遮蒙者',
])
DATE = ('17/12/22', [
    # one ruling, two dates: the sentence with 但 goes on with the one before (issue 31)
    'effect-processing.html#ruling-2017-12-22-2017-07-28-淘气仙星福克希维琪-f5373b',
    'effect-processing.html#ruling-2017-12-22-ddd反骨王列奥尼达-03c7a3',
    'effect-processing.html#ruling-2017-12-22-2017-07-28-淘气仙星福克希维琪-5da97c',
])


def ruling_results(page) -> list[str]:
    """The links of the rulings shown, first to last."""
    return page.eval_on_selector_all('#ruling-results li.ruling-result a.ruling-result-link',
                                     'links => links.map((a) => a.getAttribute("href"))')


def search(page, site, query: str, order: str = '') -> list[str]:
    page.goto(site.url(f'search.html?q={quote(query)}' + (f'&order={order}' if order else '')))
    page.wait_for_function("document.querySelector('#ruling-results .ruling-search-count')"
                           "?.textContent.length > 0")
    return ruling_results(page)


def exported(site) -> list[dict]:
    return json.loads((site.root / 'rulings.json').read_text(encoding='utf-8'))['rulings']


def holding(site, *terms: str) -> set[str]:
    """The rulings of rulings.json whose text, dates or card names hold every
    term; of the same ruling in several places (its text and cards), the first."""
    found, seen = set(), set()
    for ruling in exported(site):
        texts = [fold(ruling['text']), *map(fold, ruling['cards']), *ruling['dates'],
                 *(fold(r['written']) for r in ruling['references'])]
        same = (fold(ruling['text']), frozenset(map(fold, ruling['cards'])))
        if all(any(fold(term) in text for text in texts) for term in terms) and same not in seen:
            seen.add(same)
            found.add(ruling['url'])
    return found


CASES = {'phrase': PHRASE, 'partial-name': PARTIAL_NAME, 'two-cards': TWO_CARDS, 'date': DATE}


@pytest.mark.parametrize('case', CASES)
def test_search_returns_the_rulings(desktop, site, screenshot, case):
    query, expected = CASES[case]
    assert search(desktop, site, query) == expected
    screenshot(desktop, 'results')
    assert set(expected) == holding(site, *query.split())
    assert desktop.inner_text('.ruling-search-count') == f'找到 {len(expected)} 条裁定'
    # rulings first, then Sphinx's sections
    assert desktop.evaluate('''() => {
      const rulings = document.getElementById("ruling-results");
      return rulings.compareDocumentPosition(document.getElementById("search-results"))
        === Node.DOCUMENT_POSITION_FOLLOWING;
    }''')


def test_a_result_is_the_ruling_with_its_date_place_and_permalink(desktop, site, screenshot):
    search(desktop, site, '伤害步骤')
    first = desktop.locator('li.ruling-result').first
    assert first.locator('.ruling-result-text').inner_text() == (
        '被「漆黑之魔王 LV8」战斗破坏的怪兽，从被战斗破坏确定的伤害计算时起到伤害步骤结束时'
        '被除外之前，效果都被无效化。被除外后，那只怪兽的效果会再度适用。')
    assert first.locator('mark').all_inner_texts() == ['伤害步骤']
    assert first.locator('.ruling-result-date').all_inner_texts() == ['21/12/1']
    link = first.locator('a.ruling-result-link')
    assert link.inner_text() == '无效 › 「冥界的魔王 哈·迪斯」等，『战斗破坏的怪兽的效果无效』的效果'
    screenshot(desktop, 'result')
    link.click()
    desktop.wait_for_url('**/negation.html#*')
    assert unquote(desktop.url.split('#')[1]) == 'ruling-2021-12-01-漆黑之魔王lv8'
    assert desktop.evaluate('document.getElementById(decodeURIComponent(location.hash.slice(1)))'
                            '.classList.contains("ruling-line")')


def test_a_middle_dot_does_not_cut_a_phrase(desktop, site):
    # written 卡片·效果 in the pages; any middle dot, or none, finds it
    for query in ('卡片・效果的发动无效', '卡片效果的发动无效'):
        results = search(desktop, site, query)
        assert 'negation.html#ruling-2017-10-01-虹之古代都市' in results
        assert set(results) == holding(site, '卡片效果的发动无效')


def test_a_date_is_found_as_written_and_as_iso_date(desktop, site):
    assert search(desktop, site, '2017-12-22') == DATE[1]
    marked = desktop.eval_on_selector_all('.ruling-result-date-match',
                                          'dates => dates.map((d) => d.textContent)')
    assert marked == ['17/12/22'] * 3


def test_a_card_name_is_one_term_whatever_its_spacing(desktop, site):
    expected = ['effect-processing.html#ruling-2017-12-22-ddd反骨王列奥尼达-03c7a3']
    assert search(desktop, site, 'ＤＤＤ反骨王  列奥尼达') == expected
    assert desktop.locator('li.ruling-result').first.locator('mark').all_inner_texts() == [
        'DDD 反骨王 列奥尼达']


def test_relevance_switch(desktop, site, screenshot):
    query, newest = TWO_CARDS
    assert search(desktop, site, query) == newest
    desktop.check('input[name="order"][value="relevance"]')
    desktop.wait_for_function('document.getElementById("ruling-results").dataset.order'
                              ' === "relevance"')
    screenshot(desktop, 'relevance')
    # both cards linked by all three; then the most occurrences (月之书 twice),
    # the shortest text, the newest, page order
    assert ruling_results(desktop) == [
        'negation.html#ruling-2014-03-21-效果遮蒙者',
        'negation.html#ruling-2014-03-21-裁决之龙',
        'negation.html#ruling-2023-10-02-月之书',
    ]
    assert 'order=relevance' in desktop.url
    desktop.check('input[name="order"][value="newest"]')
    desktop.wait_for_function('document.getElementById("ruling-results").dataset.order'
                              ' === "newest"')
    assert ruling_results(desktop) == newest
    # the order is part of the address
    assert search(desktop, site, query, order='relevance')[0] == \
        'negation.html#ruling-2014-03-21-效果遮蒙者'


def test_results_follow_typing(desktop, site, screenshot):
    desktop.goto(site.url('search.html'))
    box = desktop.locator('#ruling-query')
    box.click()
    desktop.keyboard.type('反骨')
    desktop.keyboard.type('王')
    desktop.wait_for_function('document.getElementById("ruling-results").dataset.query'
                              ' === "反骨王"')
    assert ruling_results(desktop) == PARTIAL_NAME[1]
    # the address says the query once the typing pauses
    desktop.wait_for_url(lambda url: unquote(url).endswith('search.html?q=反骨王&order=newest'))
    # Sphinx's results, for another query, are hidden until Enter
    assert desktop.locator('#search-results').is_hidden()
    screenshot(desktop, 'typed')
    box.press('Enter')
    desktop.wait_for_function("document.querySelector('#search-results .search-summary')"
                              "?.textContent.length > 0")
    assert ruling_results(desktop) == PARTIAL_NAME[1]
    assert desktop.locator('#search-results').is_visible()


def test_back_leads_to_each_search_typed_and_entered(desktop, site):
    """The index, a search opened by its address, then two queries typed in
    the page's box, each with Enter: Back leads to each search before, its
    results and its box agreeing with the address (a reader's round trip:
    the query the page was opened with could not be reached)."""
    desktop.goto(site.url('index.html'))
    desktop.goto(site.url(f'search.html?q={quote("旋风")}'))
    queries = ['旋风', '神罚', '月之书']
    shown = {}
    for query in queries:
        if query != queries[0]:
            box = desktop.locator('#ruling-query')
            box.fill('')
            box.click()
            desktop.keyboard.type(query)
            box.press('Enter')
        desktop.wait_for_url(lambda url, q=query: f'q={q}&' in unquote(url) or
                             unquote(url).endswith(f'q={q}'))
        desktop.wait_for_function('(q) => document.getElementById("ruling-results")'
                                  '?.dataset.query === q', arg=query)
        shown[query] = ruling_results(desktop)
        assert shown[query]
    for query in reversed(queries[:-1]):
        desktop.go_back()
        desktop.wait_for_function('(q) => document.getElementById("ruling-results")'
                                  '?.dataset.query === q', arg=query)
        assert desktop.locator('#ruling-query').input_value() == query
        assert f'q={query}' in unquote(desktop.url)
        assert ruling_results(desktop) == shown[query]
    desktop.go_back()
    assert desktop.url == site.url('index.html')


def test_an_earlier_searchs_terms_highlight_no_result(desktop, site):
    """Sphinx's highlighting of an earlier search's terms (kept in the
    browser) marks nothing in the rulings found, whose marks are the query's
    alone (a reader's round trip: a mark inside a mark)."""
    found = search(desktop, site, '旋风')
    assert found
    # the results shown before Sphinx's highlighting ran (a warm page's): run
    # again, as it runs at a page's load, with the terms a search kept
    desktop.evaluate('localStorage.setItem("sphinx_highlight_terms", "旋风");'
                     'SphinxHighlight.highlightSearchWords()')
    desktop.wait_for_timeout(300)  # Sphinx highlights after a timeout of its own
    assert desktop.locator('#ruling-results .ruling-result-text .highlighted').count() == 0
    assert desktop.locator('#ruling-results .ruling-result-text mark').count() >= len(found)


def test_results_widen_as_the_query_is_shortened(desktop, site):
    one_card = search(desktop, site, '月之书')
    assert len(one_card) > len(TWO_CARDS[1])
    desktop.goto(site.url('search.html'))
    desktop.locator('#ruling-query').click()
    desktop.keyboard.type(TWO_CARDS[0])  # narrowed at each keystroke
    desktop.wait_for_function('document.getElementById("ruling-results").dataset.query'
                              f' === "{TWO_CARDS[0]}"')
    assert ruling_results(desktop) == TWO_CARDS[1]
    for _ in ' 强制脱出装置':
        desktop.keyboard.press('Backspace')
    desktop.wait_for_function('document.getElementById("ruling-results").dataset.query'
                              ' === "月之书"')
    shown = ruling_results(desktop)
    while desktop.locator('button.ruling-results-more').is_visible():
        desktop.click('button.ruling-results-more')
        shown = ruling_results(desktop)
    assert shown[:len(one_card)] == one_card
    assert set(shown) == holding(site, '月之书')


def test_more_results_on_request(desktop, site):
    # a word of some fifty rulings: twenty, forty, then all (效果's 387 took 20 clicks)
    expected = sorted(holding(site, '手卡'))
    assert 40 < len(expected) <= 80
    assert len(search(desktop, site, '手卡')) == 20
    desktop.click('button.ruling-results-more')
    assert len(ruling_results(desktop)) == 40
    while desktop.locator('button.ruling-results-more').is_visible():
        desktop.click('button.ruling-results-more')
    assert sorted(ruling_results(desktop)) == expected


def test_the_keyboard_reads_on_from_the_rulings_added(desktop, site):
    """Enter on 显示更多裁定 moves the focus to the first ruling added (the
    button moves below them; after the last ones it is gone, and the focus
    went back to the start of the page)."""
    assert len(search(desktop, site, '手卡')) == 20
    more = desktop.locator('button.ruling-results-more')
    while more.is_visible():
        count = len(ruling_results(desktop))
        # pressed while the next ones load ahead, or once they are there
        more.focus()
        desktop.keyboard.press('Enter')
        desktop.wait_for_function('(n) => document.querySelectorAll('
                                  '"#ruling-results li.ruling-result").length > n', arg=count)
        focused = desktop.evaluate('document.activeElement.getAttribute("href")')
        assert focused == ruling_results(desktop)[count]
    # Tab goes on through the rulings after it
    desktop.keyboard.press('Tab')
    assert desktop.evaluate('document.activeElement.closest("li.ruling-result") !== null')


def test_the_next_rulings_failing_to_load_leave_the_shown_ones(desktop, site):
    """The network goes while a reader looks at results (offline, a part of
    the index never kept): the rulings shown stay, the count says why the
    next ones are missing, and the button asks again."""
    shown = search(desktop, site, '手卡')
    assert len(shown) == 20
    desktop.route('**/_static/search/**', lambda route: route.abort())
    # the next twenty may have been loaded ahead already: until a load fails
    status = desktop.locator('#ruling-results .ruling-search-count')
    for _ in range(3):
        shown = ruling_results(desktop)
        desktop.click('button.ruling-results-more')
        desktop.wait_for_function(
            'document.querySelectorAll("#ruling-results li.ruling-result").length > '
            f'{len(shown)} || document.querySelector("#ruling-results .ruling-search-count")'
            '.textContent.startsWith("无法载入")')
        if status.inner_text().startswith('无法载入'):
            break
    assert status.inner_text() == '无法载入这次搜索所需的索引（离线时，只有读过的页面和搜过的内容可用）。'
    assert ruling_results(desktop) == shown and len(shown) >= 20
    assert desktop.locator('button.ruling-results-more').is_enabled()
    # the network is back: the same button, pressed by keyboard, shows them (the
    # focus goes to the first added), and the count is said again
    desktop.unroute('**/_static/search/**')
    desktop.focus('button.ruling-results-more')
    desktop.keyboard.press('Enter')
    desktop.wait_for_function('document.querySelectorAll("#ruling-results li.ruling-result")'
                              f'.length > {len(shown)}')
    assert ruling_results(desktop)[:len(shown)] == shown
    assert desktop.evaluate('document.activeElement.getAttribute("href")') == \
        ruling_results(desktop)[len(shown)]
    assert status.inner_text().startswith('找到')


def test_a_ruling_in_two_places_is_shown_once_with_both(desktop, site, screenshot):
    """The same ruling on negation and face-down-banish: one result, its
    permalink and the other place's, both kept."""
    assert search(desktop, site, TWO_CARDS[0]) == TWO_CARDS[1]
    twice = desktop.locator('li.ruling-result').nth(1)
    also = twice.locator('.ruling-result-also')
    assert also.inner_text().startswith('也见于 ')
    assert also.locator('a').evaluate_all('links => links.map((a) => a.getAttribute("href"))') == [
        'face-down-banish.html#ruling-2014-03-21-裁决之龙']
    screenshot(desktop, 'once')
    # both permalinks still lead to the ruling
    for href in ('negation.html#ruling-2014-03-21-裁决之龙',
                 'face-down-banish.html#ruling-2014-03-21-裁决之龙'):
        desktop.goto(site.url(href))
        assert desktop.evaluate('document.getElementById(decodeURIComponent(location.hash.slice(1)))'
                                '?.classList.contains("ruling-line")')


def test_folding_is_the_pythons(desktop, site):
    desktop.goto(site.url('search.html'))
    desktop.wait_for_selector('#ruling-query')
    names = ['DDD 反骨王 列奥尼达', 'ＰＳＹ骨架王·Λ', 'G・B･猎人', '真龙剑皇\u3000卓辉星‧拼图', 'Ⅻ']
    assert desktop.evaluate('(names) => names.map(RulingSearch.fold)', names) == \
        [fold(name) for name in names]


def test_texts_are_never_markup(desktop, site):
    """A text of the index that looks like HTML is shown as text."""
    hostile = '<img src=x onerror="window.pwned=1">「旋风」<b>粗</b>'
    index = {'format': 1, 'labels': {
        'heading': '裁定', 'found': '找到 {count} 条裁定', 'none': '无', 'order': '排序',
        'newest': '新', 'relevance': '相关', 'more': '更多', 'changed': '<i>变</i>',
        'struck': '推翻', 'query': '搜索', 'placeholder': '', 'enter': ''},
        'pages': [['x.html', '<script>window.pwned=2</script>页']],
        'sections': [[0, 'id', '<u>节</u>']], 'cards': ['旋风'],
        'rulings': [[0, 'ruling-"><b>x', hostile, '17/3/24', '2017-03-24', 1, [0]],
                    [0, 'ruling-old', '「旋风」旧裁定。', '16/1/1', '2016-01-01', 3, [0]]]}
    desktop.route('**/_static/rulings-index.js*', lambda route: route.fulfill(
        content_type='text/javascript; charset=utf-8',
        body=f'RulingSearch.setIndex({json.dumps(index)});'))
    assert search(desktop, site, '旋风') == ['x.html#ruling-"><b>x', 'x.html#ruling-old']
    # a struck ruling (flags 3: changed and struck) is labelled struck only
    assert desktop.locator('.ruling-status').all_inner_texts() == ['<i>变</i>', '推翻']
    assert desktop.locator('.ruling-status-struck').count() == 1
    assert desktop.eval_on_selector_all('li.ruling-result-struck',
                                        'items => items.map((li) => li.dataset.anchor)') == [
        'ruling-old']
    result = desktop.locator('li.ruling-result').first
    assert result.locator('.ruling-result-text').inner_text() == hostile
    assert result.locator('img, b, i, u, script').count() == 0
    assert result.locator('a').inner_text() == '<script>window.pwned=2</script>页 › <u>节</u>'
    assert result.locator('a').get_attribute('href') == 'x.html#ruling-"><b>x'
    assert desktop.evaluate('window.pwned') is None


def test_ruling_search_on_a_phone(phone, site, screenshot):
    assert search(phone, site, TWO_CARDS[0]) == TWO_CARDS[1]
    screenshot(phone, 'results')
    assert phone.evaluate('document.documentElement.scrollWidth') <= 375
    right = phone.evaluate('''() => Math.max(...[...document.querySelectorAll(
        "#ruling-results, #ruling-results *")].map((e) => e.getBoundingClientRect().right))''')
    assert right <= 375
    phone.check('input[name="order"][value="relevance"]')
    phone.wait_for_function('document.getElementById("ruling-results").dataset.order'
                            ' === "relevance"')
    screenshot(phone, 'relevance')
    assert ruling_results(phone)[0] == 'negation.html#ruling-2014-03-21-效果遮蒙者'


def test_only_the_search_page_loads_the_index(site):
    assert 'rulings-index.js' in (site.root / 'search.html').read_text(encoding='utf-8')
    for page in ('index', 'negation'):
        text = site.html(page)
        assert 'rulings-index.js' not in text and 'rulings_search.js' not in text


# -- the zh_TW edition ---------------------------------------------------------------------


@pytest.fixture(scope='module')
def zh_tw(site, tmp_path_factory):
    """The zh_TW site, served (its address)."""
    if os.environ.get('HANDBOOK_SITE_ZH_TW'):
        root = Path(os.environ['HANDBOOK_SITE_ZH_TW']).resolve()
    else:
        run = build_once(tmp_path_factory, 'handbook-zh_TW', lambda out: make_command(
            'html', 'LANGUAGE=zh_TW', f'BUILDDIR={out}', f'BASEURL={PUBLISHED}', sphinxopts()))
        assert run.returncode == 0, run.stderr
        root = run.html / 'zh_TW'
    with serve(root) as url:
        yield url


@pytest.mark.parametrize('query', ['伤害步骤', '傷害步驟'], ids=['simplified', 'traditional'])
def test_zh_tw_edition_finds_its_rulings_in_either_script(desktop, zh_tw, screenshot, query):
    desktop.goto(f'{zh_tw}search.html?q={quote(query)}')
    desktop.wait_for_function("document.querySelector('#ruling-results .ruling-search-count')"
                              "?.textContent.length > 0")
    screenshot(desktop, 'results')
    # the same rulings (a twin's hashed id is of its text, translated here)
    assert ruling_results(desktop) == [
        anchor.replace('真红莲之茧-f84e7e', '真红莲之茧-cb6545') for anchor in PHRASE[1]]
    assert desktop.inner_text('.ruling-search-count') == '找到 5 條裁定'
    first = desktop.locator('li.ruling-result').first
    # its own text, in Traditional characters, the match highlighted in it
    assert first.locator('.ruling-result-text').inner_text().startswith('被「漆黑之魔王 LV8」戰鬥破壞')
    assert first.locator('mark').all_inner_texts() == ['傷害步驟']
    assert first.locator('a').inner_text().startswith('無效 › ')
