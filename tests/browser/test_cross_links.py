"""The card index in a real browser: from a card link's marker to the card's
entry, from the entry to the sections and rulings that name the card; the
jump bar; related sections; the whole index on a phone."""

from __future__ import annotations

import re
from urllib.parse import unquote

import pytest

from handbook.core.names import fold as search_key
from test_reader import _CUT_OFF, at_targets  # _CUT_OFF: what sticks out of a phone's screen

#: the card links of an element a link leads to: a section's own text (its
#: subsections left out), or a ruling; the page's top section for a page link
_CARDS = '''(target) => {
  const own = target.cloneNode(true);
  own.querySelectorAll("section").forEach((section) => section.remove());
  return [...own.querySelectorAll("a.card-link")].map((link) => link.textContent);
}'''

#: the addresses of the links
_HREFS = '(links) => links.map((link) => link.getAttribute("href"))'

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


def cards_at(page, hrefs: list[str]) -> dict[str, set[str]]:
    """The search keys of the card links of the element each of *hrefs* leads to."""
    found = at_targets(page, hrefs, _CARDS, whole='[role="main"] section')
    missing = [href for href, cards in found.items() if cards is None]
    assert not missing, f'no such element: {missing}'
    return {href: {search_key(card) for card in cards} for href, cards in found.items()}


@pytest.mark.parametrize(('path', 'name'), [
    ('negation.html', '王宫的铁壁'),     # on three pages, with rulings
    ('effect-processing.html', '旋风'),  # ten sections
])
def test_marker_leads_to_the_entry_and_on_to_the_sections(desktop, site, screenshot, path, name):
    page = desktop
    page.goto(site.url(path))
    link = page.locator('a.card-link').filter(has_text=re.compile(f'^{re.escape(name)}$')).first
    # the card link still opens the card database, and nothing follows it in the page
    assert link.get_attribute('href').startswith('https://ygocdb.com/')
    assert link.evaluate('(a) => a.nextElementSibling?.matches("a") ?? false') is False
    # pointing at its ruling makes the readers' tools: a § link to its card's page
    link.scroll_into_view_if_needed()
    link.hover()
    marker = page.locator('.reader-tools a.reader-card', has_text=name)
    assert marker.get_attribute('aria-label') == f'卡片页面：{name}'
    assert marker.evaluate('(a) => getComputedStyle(a, "::before").content') == '"§"'
    screenshot(page, 'marker')

    # the marker leads to the card's page (tests/browser/test_card_pages_in_browser.py);
    # the card's entry in the index leads on to the sections naming it
    marker.click()
    page.wait_for_url(lambda url: unquote(url).endswith(f'cards/{name}.html'))
    assert page.locator('h1').first.inner_text().startswith(name)
    # an old link into the whole index leads to the entry on its initial's page
    page.goto(site.url(f'card-index.html#card-{name}'))
    page.wait_for_url(lambda url: re.search(r'/card-index/[a-z]+\.html#', unquote(url)) is not None)
    entry = page.locator('dt:target')
    assert entry.get_attribute('id') == f'card-{name}'
    assert entry.locator('a.card-link').inner_text() == name
    assert target_shown(page)
    screenshot(page, 'entry')

    places = entry.locator('xpath=following-sibling::dd[1]//li')
    assert places.count() >= 3
    # each place: its section, then the rulings of the section that name the card
    hrefs = [places.nth(i).locator('a').evaluate_all(_HREFS) for i in range(places.count())]
    assert all(ruling.split('#')[0] == section.split('#')[0]
               for section, *rulings in hrefs for ruling in rulings)
    named = cards_at(page, [href for place in hrefs for href in place])
    for href, cards in named.items():
        assert search_key(name) in cards, f'{href} does not name 「{name}」'
    assert len({section.split('#')[0] for section, *_rulings in hrefs}) >= 3

    # and a reader gets there: the section is shown
    first = places.last.locator('a').first
    href = first.evaluate('(a) => a.href')  # absolute: the entry is on its initial's page
    first.click()
    page.wait_for_url(lambda url: unquote(url) == unquote(href))
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
    page.wait_for_url(re.compile(r'/card-index/x\.html$'))  # a page per initial
    group = page.locator('section#initial-x')
    first = group.locator('dt a.card-link').first.inner_text()
    assert first.startswith('X')  # Latin names first in their letter
    screenshot(page, 'x')


@pytest.mark.long
def test_the_whole_index_fits_a_phone(phone, site, screenshot):
    """Every page of the index -- a page per initial -- fits a phone; the old
    anchors of the whole index lead to them."""
    page = phone
    page.goto(site.url('card-index.html'))
    initials = page.locator('.card-index-initials a').evaluate_all(_HREFS)
    entries = 0
    for href in initials:
        page.goto(site.url(href))
        entries += page.locator('dl.card-index > dt').count()
        assert page.evaluate('document.documentElement.scrollWidth') <= 375, href
        assert page.evaluate(_CUT_OFF) == [], href
    assert entries > 900
    for where, lands in (('#initial-a', 'a.html#initial-a'), ('#card-旋风', 'x.html#card-旋风'),
                         ('#initial-other', 'other.html#initial-other')):
        page.goto(site.url(f'card-index.html{where}'))
        page.wait_for_url(lambda url: unquote(url).endswith(f'card-index/{lands}'))
        assert target_shown(page)
        screenshot(page, where.strip('#'))
    page.evaluate('window.scrollTo(0, document.body.scrollHeight)')
    screenshot(page, 'bottom')


def test_related_sections_open_and_lead_to_shared_cards(desktop, site, screenshot):
    page = desktop
    loaded = []
    page.on('request', lambda request: '/_related/' in request.url and loaded.append(request.url))
    page.goto(site.url('negation.html'))
    block = page.locator('details.related-sections').first
    items = block.locator('li')
    # the page holds no list: related_sections.js loads the page's entries
    # (_related/negation.js) and writes a block's list when it opens
    assert page.locator('details.related-sections li').count() == 0 and loaded == []
    assert block.locator('summary').is_visible() and not items.first.is_visible()
    block.locator('summary').click()
    items.first.wait_for()
    # by keyboard too; the entries are loaded once; opening again lists nothing twice
    other = page.locator('details.related-sections').nth(1)
    other.locator('summary').focus()
    page.keyboard.press('Enter')
    other.locator('li').first.wait_for()
    assert [unquote(url).rsplit('/', 2)[1:] for url in loaded] == [['_related', 'negation.js']]
    listed = other.locator('li').count()
    page.keyboard.press('Enter')
    page.keyboard.press('Enter')
    assert other.locator('li').count() == listed and other.locator('ul').count() == 1
    block.scroll_into_view_if_needed()
    screenshot(page, 'open')
    section = block.evaluate('(details) => details.closest("section").id')
    assert 1 <= items.count() <= 5
    hrefs = [items.nth(i).locator('a').get_attribute('href') for i in range(items.count())]
    named = cards_at(page, [f'negation.html#{section}', *hrefs])
    here = named[f'negation.html#{section}']
    for i, href in enumerate(hrefs):
        assert not href.startswith('negation.html')  # sections of other pages
        shared = items.nth(i).locator('.related-cards').inner_text()
        count, names = re.fullmatch(r'(\d+) 个共同的卡名：(.*?)(……)?', shared).group(1, 2)
        there = named[href]
        for name in names.split('、'):
            assert search_key(name) in here & there, (href, name)
        assert int(count) >= len(names.split('、'))
