"""The card index in a real browser: from a card link's marker to the card's
entry, from the entry to the sections and rulings that name the card; the
jump bar; related sections; the whole index on a phone."""

from __future__ import annotations

import re
from urllib.parse import unquote

import pytest

from handbook.core.names import fold as search_key
from test_reader import _CUT_OFF  # what sticks out to the right of a phone's screen

#: the card links of the element a link leads to: a section's own text (its
#: subsections left out), or a ruling; the page's top section for a page link
_CARDS_AT = '''async (href) => {
  const [url, id] = href.split("#");
  const html = await (await fetch(url)).text();
  const page = new DOMParser().parseFromString(html, "text/html");
  const target = id ? page.getElementById(decodeURIComponent(id))
                    : page.querySelector('[role="main"] section');
  if (!target) return null;
  const own = target.cloneNode(true);
  own.querySelectorAll("section").forEach((section) => section.remove());
  return [...own.querySelectorAll("a.card-link")].map((link) => link.textContent);
}'''

#: is the element the address points at (its fragment) on the screen, once the
#: browser has scrolled there?
_TARGET_SHOWN = '''() => {
  const target = document.querySelector(":target");
  if (!target || document.readyState !== "complete") return false;
  const box = target.getBoundingClientRect();
  return box.top >= 0 && box.top < window.innerHeight;
}'''


def target_shown(page) -> bool:
    """Wait for the page to show the element its address points at."""
    page.wait_for_function(_TARGET_SHOWN)
    return page.evaluate(_TARGET_SHOWN)


def names_card(page, href: str, name: str) -> bool:
    cards = page.evaluate(_CARDS_AT, href)
    assert cards is not None, f'{href}: no such element'
    return any(search_key(card) == search_key(name) for card in cards)


@pytest.mark.parametrize(('path', 'name'), [
    ('negation.html', '王宫的铁壁'),     # on three pages, with rulings
    ('effect-processing.html', '旋风'),  # ten sections
])
def test_marker_leads_to_the_entry_and_on_to_the_sections(desktop, site, screenshot, path, name):
    page = desktop
    page.goto(site.url(path))
    link = page.locator('a.card-link').filter(has_text=re.compile(f'^{re.escape(name)}$')).first
    # the card link still opens the card database; the marker right after it
    assert link.get_attribute('href').startswith('https://ygocdb.com/')
    marker = link.locator('xpath=following-sibling::a[1]')
    assert marker.get_attribute('class') == 'card-index-marker'
    assert marker.text_content() == ''  # drawn by CSS: no text in the page
    assert marker.evaluate('(a) => getComputedStyle(a, "::after").content') == '"§"'
    assert page.get_by_role('link', name=f'卡片页面：{name}').count() > 0  # accessible name
    marker.scroll_into_view_if_needed()
    screenshot(page, 'marker')

    # the marker leads to the card's page (tests/browser/test_card_pages_in_browser.py);
    # the card's entry in the index leads on to the sections naming it
    marker.click()
    page.wait_for_url(lambda url: unquote(url).endswith(f'cards/{name}.html'))
    assert page.locator('h1').first.inner_text().startswith(name)
    page.goto(site.url(f'card-index.html#card-{name}'))
    entry = page.locator('dt:target')
    assert entry.get_attribute('id') == f'card-{name}'
    assert entry.locator('.card-name').inner_text() == name
    assert target_shown(page)
    screenshot(page, 'entry')

    places = entry.locator('xpath=following-sibling::dd[1]//li')
    assert places.count() >= 3
    pages = set()
    for i in range(places.count()):
        links = places.nth(i).locator('a')
        section = links.first.get_attribute('href')
        pages.add(section.split('#')[0])
        assert names_card(page, section, name), f'{section} does not name 「{name}」'
        for j in range(1, links.count()):  # the rulings of the section that name the card
            ruling = links.nth(j).get_attribute('href')
            assert ruling.split('#')[0] == section.split('#')[0]
            assert names_card(page, ruling, name), f'{ruling} does not name 「{name}」'
    assert len(pages) >= 3

    # and a reader gets there: the section is shown
    first = places.last.locator('a').first
    href = first.get_attribute('href')
    first.click()
    page.wait_for_url(lambda url: unquote(url).endswith(unquote(href)))
    if '#' in href:
        assert target_shown(page)
    screenshot(page, 'section')


def test_jump_bar_on_a_phone(phone, site, screenshot):
    page = phone
    page.goto(site.url('card-index.html'))
    bar = page.locator('.card-index-initials')
    letters = bar.locator('a').all_inner_texts()
    assert letters[:3] == ['A', 'B', 'C'] and letters[-1] == '#'
    assert bar.bounding_box()['x'] + bar.bounding_box()['width'] <= 375
    screenshot(page, 'bar')
    bar.locator('a', has_text='X').click()
    page.wait_for_url(re.compile(r'#initial-x$'))
    group = page.locator('section#initial-x:target')
    assert target_shown(page)
    first = group.locator('dt .card-name').first.inner_text()
    assert first.startswith('X')  # Latin names first in their letter
    screenshot(page, 'x')


def test_the_whole_index_fits_a_phone(phone, site, screenshot):
    page = phone
    page.goto(site.url('card-index.html'))
    assert page.locator('dl.card-index > dt').count() > 900
    for where in ('#initial-a', '#card-旋风', '#initial-other'):
        page.goto(site.url(f'card-index.html{where}'))
        screenshot(page, where.strip('#'))
        assert page.evaluate('document.documentElement.scrollWidth') <= 375
    assert page.evaluate(_CUT_OFF) == []
    page.evaluate('window.scrollTo(0, document.body.scrollHeight)')
    screenshot(page, 'bottom')


def test_related_sections_open_and_lead_to_shared_cards(desktop, site, screenshot):
    page = desktop
    page.goto(site.url('negation.html'))
    block = page.locator('details.related-sections').first
    items = block.locator('li')
    assert block.locator('summary').is_visible() and not items.first.is_visible()
    block.locator('summary').click()
    assert items.first.is_visible()
    block.scroll_into_view_if_needed()
    screenshot(page, 'open')
    section = block.evaluate('(details) => details.closest("section").id')
    here = {search_key(card) for card in page.evaluate(_CARDS_AT, f'negation.html#{section}')}
    assert 1 <= items.count() <= 5
    for i in range(items.count()):
        href = items.nth(i).locator('a').get_attribute('href')
        assert not href.startswith('negation.html')  # sections of other pages
        shared = items.nth(i).locator('.related-cards').inner_text()
        count, names = re.fullmatch(r'(\d+) 个共同的卡名：(.*?)(……)?', shared).group(1, 2)
        there = {search_key(card) for card in page.evaluate(_CARDS_AT, href)}
        for name in names.split('、'):
            assert search_key(name) in here & there, (href, name)
        assert int(count) >= len(names.split('、'))
