"""最近更新 and its feed in a real browser: the page lists the rulings of the
feed, grouped by date, newest first; every page's head links the feed, which
the browser fetches and which parses as Atom; an entry's permalink leads to
its ruling."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import datetime
from urllib.parse import unquote, urljoin

import pytest

from helpers import PUBLISHED
from test_cross_links import target_shown
from test_reader import _CUT_OFF  # what sticks out to the right of a phone's screen

A = '{http://www.w3.org/2005/Atom}'
#: the page's dates and the permalinks of their entries, as the browser shows them
_DAYS = '''() => [...document.querySelectorAll("section.recent-rulings-day")].map((day) => [
  day.querySelector("h2").firstChild.textContent.trim(),
  [...day.querySelectorAll("li.ruling-entry a:has(> .ruling-entry-permalink)")].map(
    (link) => link.href),
])'''
#: the feed links in the page's head
_FEEDS = '''() => [...document.querySelectorAll('head link[rel="alternate"]'
                                          + '[type="application/atom+xml"]')].map((l) => l.href)'''


def fetch_feed(page, url: str) -> ET.Element:
    """The feed at *url*, fetched by the browser, parsed, its required elements there."""
    response = page.request.get(url)
    assert response.status == 200
    root = ET.fromstring(response.body())
    assert root.tag == A + 'feed'
    for required in ('id', 'title', 'updated'):
        assert root.find(A + required) is not None, required
    for entry in root.findall(A + 'entry'):
        for required in ('id', 'title', 'updated', 'content', 'link'):
            assert entry.find(A + required) is not None, required
    return root


def title_of(day: datetime) -> str:
    return f'{day.year} 年 {day.month} 月 {day.day} 日'


@pytest.mark.parametrize('device', ['desktop', 'phone'])
def test_page_lists_the_feeds_rulings_by_date(request, site, screenshot, device):
    page = request.getfixturevalue(device)
    page.goto(site.url('recent.html'))
    screenshot(page, 'top')
    feeds = page.evaluate(_FEEDS)
    assert len(feeds) == 1
    root = fetch_feed(page, feeds[0])
    entries = root.findall(A + 'entry')
    assert len(entries) == 50
    # the feed's entries, as relative to the site; the page's links resolved by the browser
    links = [site.url(unquote(e.find(A + 'id').text).removeprefix(PUBLISHED)) for e in entries]
    dates = [datetime.fromisoformat(e.find(A + 'updated').text) for e in entries]
    days = page.evaluate(_DAYS)
    # the same rulings in the same order, grouped by their date, newest first
    assert [unquote(link) for _title, group in days for link in group] == links
    expected, at = [], 0
    for title, group in days:
        expected.append((title_of(dates[at]), [title_of(d) for d in dates[at:at + len(group)]]))
        at += len(group)
    assert [(title, [title] * len(group)) for title, group in days] == expected
    assert len({title for title, _group in days}) == len(days)
    assert dates == sorted(dates, reverse=True)
    # the page's own link to the feed is the head's
    subscribe = page.locator('a.recent-rulings-feed')
    assert subscribe.inner_text() == '订阅（Atom）'
    assert urljoin(page.url, subscribe.get_attribute('href')) == feeds[0]
    if device == 'phone':
        assert page.evaluate('document.documentElement.scrollWidth') <= 375
        assert page.evaluate(_CUT_OFF) == []
    page.locator('section.recent-rulings-day').nth(0).scroll_into_view_if_needed()
    screenshot(page, 'entries')
    # the first entry's permalink leads to its ruling
    first = page.locator('li.ruling-entry a:has(> .ruling-entry-permalink)').first
    first.click()
    page.wait_for_url('**/*.html#*')
    assert unquote(page.url) == links[0]
    assert target_shown(page)
    screenshot(page, 'ruling')


@pytest.mark.parametrize('path', ['index.html', 'negation.html', 'timeline.html', '404.html'])
def test_every_head_links_the_feed(desktop, site, path):
    desktop.goto(site.url(path))
    feeds = desktop.evaluate(_FEEDS)
    assert feeds == [site.url('feed.xml')]
    assert fetch_feed(desktop, feeds[0]).find(A + 'id').text == f'{PUBLISHED}feed.xml'
