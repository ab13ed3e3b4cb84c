"""Card pages in a real browser (_ext/handbook/listings/card_pages.py): a card's
page lists exactly the rulings naming it, newest first; the two-card filter
shows exactly the rulings naming both, and on a page in parts leads to the
other parts; the § after a card link leads there; the page fits a phone.
Checked against rulings.json, the export of every ruling.  (Not
test_card_pages.py: tests/test_card_pages.py has that name.)"""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from handbook.core.names import fold
from conftest import ROOT
from helpers import serve
from test_reader import _CUT_OFF  # what sticks out to the right of a phone's screen

#: each listed ruling: its permalink, the keys it names, whether it is shown
_LISTED = '''() => [...document.querySelectorAll("li.card-ruling")].map((item) => [
  item.querySelector("a.card-ruling-permalink").getAttribute("href"),
  item.dataset.cards, !item.hidden && !item.closest("details")])'''


def export(site) -> list[dict]:
    return json.loads((site.root / 'rulings.json').read_text(encoding='utf-8'))['rulings']


def naming(site, *names: str) -> list[dict]:
    """The rulings of rulings.json that name every card of *names*, newest first
    (the same date in reading order, as the export lists them)."""
    keys = {fold(name) for name in names}
    found = [r for r in export(site) if keys <= {fold(card) for card in r['cards']}]
    return sorted(found, key=lambda r: max(r['dates']), reverse=True)  # stable


def card_page(site, name: str) -> str:
    return site.url(f'cards/{quote(fold(name))}.html')


def listed(page) -> list[tuple[str, str, bool]]:
    return [(unquote(href).removeprefix('../'), cards, shown)
            for href, cards, shown in page.evaluate(_LISTED)]


@pytest.mark.parametrize('width', ['desktop', 'phone'])
@pytest.mark.parametrize('name', ['王宫的铁壁', '旋风'])
def test_a_card_page_lists_exactly_its_rulings_newest_first(request, site, screenshot,
                                                            width, name):
    page = request.getfixturevalue(width)
    page.goto(card_page(site, name))
    assert page.locator('h1 .card-page-name').inner_text() == name
    expected = naming(site, name)
    assert len(expected) >= 4
    found = listed(page)
    assert [href for href, _cards, _shown in found] == [r['url'] for r in expected]
    assert all(fold(name) in cards.split() for _href, cards, _shown in found)
    assert page.locator('.card-page-summary').inner_text() == \
        f'{len(expected)} 条裁定提到「{name}」，最新的在前。'
    # every ruling leads to its place: its permalink is a ruling of that page
    first = page.locator('a.card-ruling-permalink').first
    href = first.get_attribute('href')
    first.click()
    page.wait_for_url(lambda url: unquote(url).endswith(unquote(href).removeprefix('..')))
    target = page.locator(':target')
    assert 'ruling-line' in target.get_attribute('class')
    assert name in target.inner_text()
    page.go_back()
    assert page.evaluate(_CUT_OFF) == []  # nothing wider than the screen
    screenshot(page, f'{width}-{name}', full_page=True)


def test_the_filter_is_as_it_was_after_back(desktop, site):
    """A reader filters a card page, opens a ruling, goes back: the page is
    filtered as it was (a reader's round trip: without the browser's
    back-forward cache, all the rulings showed, the box empty), the name kept
    in the page's address."""
    page = desktop
    page.goto(card_page(site, '旋风'))
    page.get_by_label('与另一张卡').fill('神罚')
    both = [r['url'] for r in naming(site, '旋风', '神罚')]
    page.wait_for_function("new URLSearchParams(location.search).get('card') === '神罚'")
    visible = page.locator('li.card-ruling:not([hidden]) a.card-ruling-permalink').first
    visible.click()
    page.wait_for_url(lambda url: 'cards/' not in url)
    page.go_back()
    page.wait_for_function("document.querySelector('.card-filter-status').textContent.length")
    assert page.get_by_label('与另一张卡').input_value() == '神罚'
    assert [href for href, _cards, shown in listed(page) if shown] == both


@pytest.mark.parametrize('width', ['desktop', 'phone'])
def test_the_two_card_filter_shows_exactly_the_rulings_naming_both(request, site, screenshot,
                                                                  width):
    page = request.getfixturevalue(width)
    page.goto(card_page(site, '旋风'))
    box = page.get_by_label('与另一张卡')
    suggestions = page.locator('#card-filter-cards option')
    names = [suggestions.nth(i).get_attribute('value') for i in range(suggestions.count())]
    assert '神罚' in names and '旋风' not in names  # the cards named with it
    everything = listed(page)

    box.fill('神罚')
    both = [r['url'] for r in naming(site, '旋风', '神罚')]
    assert len(both) >= 1
    assert [href for href, _cards, shown in listed(page) if shown] == both
    assert page.locator('.card-filter-status').inner_text() == f'{len(both)} 条裁定同时提到「神罚」'
    screenshot(page, f'{width}-filtered')

    # folded as names are: width, spacing and middle dots do not matter
    box.fill('除雪机关车・急速除雪车')
    both = [r['url'] for r in naming(site, '旋风', '除雪机关车 急速除雪车')]
    assert [href for href, _cards, shown in listed(page) if shown] == both

    box.fill('不是卡名')
    assert [href for href, _cards, shown in listed(page) if shown] == []
    assert page.locator('.card-filter-status').inner_text() == '没有裁定同时提到「不是卡名」'

    # the page's own card, by any of its names: every ruling names it, all shown
    # (a reader's round trip: its name hid every ruling)
    for own in ('旋风', '旋風'):
        box.fill(own)
        assert listed(page) == everything
        assert page.locator('.card-filter-status').inner_text() == ''

    box.fill('')
    assert listed(page) == everything
    assert page.evaluate(_CUT_OFF) == []


@pytest.mark.parametrize('width', ['desktop', 'phone'])
def test_the_marker_after_a_card_link_leads_to_its_page(request, site, screenshot, width):
    """A reader points at (desktop) or taps (phone) a ruling: its toolbar has a
    § link to the page of each card it names, a target of 24 x 24 px or more."""
    page = request.getfixturevalue(width)
    page.goto(site.url('negation.html'))
    link = page.locator('a.card-link').filter(has_text=re.compile('^王宫的铁壁$')).first
    assert link.get_attribute('href').startswith('https://ygocdb.com/')  # still the database
    ruling = link.locator('xpath=ancestor::*[contains(@class, "ruling-line")][1]')
    date = ruling.locator('span.ruling').first  # text of the ruling, no link
    date.scroll_into_view_if_needed()
    if width == 'phone':
        date.tap()
    else:
        date.hover()
    marker = page.locator('.reader-tools a.reader-card', has_text=re.compile('^王宫的铁壁$'))
    assert marker.get_attribute('aria-label') == '卡片页面：王宫的铁壁'
    box = marker.bounding_box()
    assert box['width'] >= 24 and box['height'] >= 24
    screenshot(page, f'{width}-marker')
    if width == 'phone':
        marker.tap()
    else:
        marker.click()
    page.wait_for_url(lambda url: unquote(url).endswith('/cards/王宫的铁壁.html'))
    assert page.locator('h1 .card-page-name').inner_text() == '王宫的铁壁'
    screenshot(page, f'{width}-page')


def test_the_card_index_entries_lead_to_the_card_pages(desktop, site):
    """From the keyboard: the entry's name, then (Tab) its § to the card's page."""
    page = desktop
    page.goto(site.url('card-index/x.html#card-旋风'))  # the index's page of X
    entry = page.locator('dt#card-旋风')
    entry.locator('a.card-link').focus()
    page.keyboard.press('Tab')
    assert page.evaluate('document.activeElement.getAttribute("aria-label")') == '卡片页面：旋风'
    page.keyboard.press('Enter')
    page.wait_for_url(lambda url: unquote(url).endswith('/cards/旋风.html'))
    assert page.locator('h1 .card-page-name').inner_text() == '旋风'


def test_the_longest_card_pages_fit_a_phone(phone, site, screenshot):
    """The pages of the three longest names, and of a series: nothing wider
    than a 375 px screen."""
    pages = sorted((site.root / 'cards').glob('*.html'), key=lambda p: (-len(p.stem), p.stem))
    series = next(p for p in sorted((site.root / 'cards').glob('*.html'))
                  if 'class="card-page-kind"' in p.read_text(encoding='utf-8'))
    for path in [*pages[:3], series]:
        phone.goto(site.url(f'cards/{quote(path.name)}'))
        assert phone.evaluate(_CUT_OFF) == [], path.name
        assert phone.evaluate('document.documentElement.scrollWidth') <= 375, path.name
    screenshot(phone, 'longest', full_page=True)


@pytest.mark.sphinx('html', testroot='card-pages', srcdir='card-pages-parts-browser',
                    freshenv=True, confoverrides={
                        'handbook_card_page_rulings': 2, 'html_css_files': ['handbook.css'],
                        'html_static_path': [str(ROOT / '_static')]})
def test_the_filter_of_a_page_in_parts_leads_to_the_other_parts(app, desktop, screenshot):
    """旋风's page in three parts of two rulings (tests/roots/test-card-pages):
    the filter counts the part's own rulings and links to the parts that have
    others, carrying the name typed; the part opened filters at once."""
    app.build()
    page = desktop
    with serve(Path(app.outdir)) as base:
        page.goto(f'{base}cards/{quote("旋风_2")}.html')
        assert page.locator('nav.card-page-parts').inner_text() == '共 3 页：1 · 2 · 3'
        for target in page.locator('.card-page-parts a, .card-page-parts strong').all():
            box = target.bounding_box()
            assert box['width'] >= 24 and box['height'] >= 24
        page.get_by_label('与另一张卡').fill('神之宣告')
        assert [shown for _href, _cards, shown in listed(page)] == [False, False]
        assert page.locator('.card-filter-status').inner_text() == '本页没有裁定同时提到「神之宣告」'
        elsewhere = page.locator('.card-filter-elsewhere')
        assert elsewhere.inner_text() == '其他页：第 1 页、第 3 页'
        # the parts' bars carry the name typed too
        assert unquote(page.locator('nav.card-page-parts a').first.get_attribute('href')) == \
            '旋风.html?card=神之宣告'
        elsewhere.get_by_role('link', name='第 3 页').click()
        page.wait_for_url(lambda url: '旋风_3.html?card=' in unquote(url))
        assert page.get_by_label('与另一张卡').input_value() == '神之宣告'
        assert [shown for _href, _cards, shown in listed(page)] == [True, False]  # 2nd: folded
        assert page.locator('.card-filter-status').inner_text() == '本页 1 条裁定同时提到「神之宣告」'
        assert page.locator('.card-filter-elsewhere').inner_text() == '其他页：第 1 页'
        screenshot(page, 'part-filtered')
        # emptied: every ruling, no other part named
        page.get_by_label('与另一张卡').fill('')
        assert page.locator('.card-filter-elsewhere').is_hidden()
        assert unquote(page.locator('nav.card-page-parts a').first.get_attribute('href')) == \
            '旋风.html'
