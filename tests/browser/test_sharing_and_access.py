"""Shared links, link previews and accessibility, in Chromium (issue 33).

* The copy button copies the address the reader is on: the site served at
  another origin than the one it was built for (``helpers.PUBLISHED``).
* Each card link's § (made by the readers' tools) leads to the page the
  build says (``helpers.card_targets``), and a card name is one Tab stop.
* Every page type carries its preview: ``og:title``, ``og:description``,
  ``description`` and ``og:url``, its own address.
* axe-core (axe-playwright-python, the version it bundles) finds no violation
  of impact serious or critical on any page type, in light and in dark mode:
  the index, a content page, a yearly FAQ page (tests/roots/test-yearly-faq,
  an existing handbook's shape: day sections, source headers and their
  badges, struck lines, an outdated day and its links; built with the
  project's conf.py as ``make html SOURCEDIR=…`` builds it), a card page, the search with results,
  the timeline, the card index, 最近更新 and the open questions.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from urllib.parse import quote, unquote, urljoin, urlsplit

from conftest import ROOT, WIDTHS
from helpers import PUBLISHED, build_once, card_targets, make_command, serve

#: an origin the site is served at that is neither localhost nor its published address
ORIGIN = 'https://rulings.example.net/'
#: axe-core's impacts that fail a page
FAILING = ('serious', 'critical')
#: what axe checks: WCAG 2.2 A and AA, and its best practices
AXE_OPTIONS = {'runOnly': {'type': 'tag', 'values': [
    'wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']},
    'resultTypes': ['violations']}
YEARLY = ROOT / 'tests' / 'roots' / 'test-yearly-faq'


def served_at(context, root: Path, origin: str) -> None:
    """Requests to *origin* answered from the folder *root* (no network)."""
    def answer(route) -> None:
        path = unquote(urlsplit(route.request.url).path).lstrip('/') or 'index.html'
        file = root / path
        if file.is_file():
            route.fulfill(path=str(file))
        else:
            route.fulfill(status=404, body='')
    context.route(f'{origin}**', answer)


def test_the_copy_button_copies_the_address_the_reader_is_on(browser, site, screenshot):
    context = browser.new_context(**WIDTHS['desktop'],
                                  permissions=['clipboard-read', 'clipboard-write'])
    served_at(context, site.root, ORIGIN)
    page = context.new_page()
    page.goto(ORIGIN + 'negation.html')
    ruling = page.locator('.ruling-line[id]').nth(2)
    anchor = ruling.get_attribute('id')
    ruling.locator('span.ruling').first.hover()
    page.locator('.reader-tools button.reader-copy').click()
    page.wait_for_function('document.getElementById("reader-tools-status")?.textContent')
    assert page.evaluate('navigator.clipboard.readText()') == \
        f'{ORIGIN}negation.html#{quote(anchor)}'
    # the ¶ is the ruling's own address too
    assert page.locator('.reader-tools a.reader-permalink').get_attribute('href') == \
        f'#{quote(anchor)}'
    screenshot(page, 'copied')
    context.close()


_LINK_TARGETS = '''() => [...document.querySelectorAll('[role="main"] a.card-link')].map((link) => {
  link.focus();
  const tools = document.querySelector('.reader-tools');
  return tools ? [...tools.querySelectorAll('a.reader-card')].map((a) => a.href) : [];
})'''


@pytest.mark.parametrize('path', ['negation.html', 'card-index/x.html', 'cards/旋风.html'])
def test_every_card_name_leads_to_its_page(desktop, site, path):
    """The § the browser makes for each card link is the one the build meant
    (data-card, or the id derived from the name: the same in Python and in
    the script), and the page exists."""
    desktop.goto(site.url(quote(path)))
    made = desktop.evaluate(_LINK_TARGETS)
    meant = card_targets(site.html(path.removesuffix('.html')))
    assert len(made) == len(meant) > 0
    page_url = site.url(quote(path))
    for hrefs, (name, target, _label) in zip(made, meant):
        if not target or urljoin(page_url, quote(target)) == page_url:
            continue  # the card page's database link; its own card: no § to itself
        assert urljoin(page_url, quote(target)) in hrefs, name
        assert (site.root / urlsplit(urljoin(page_url, target)).path.lstrip('/')).is_file()


def test_a_card_name_is_one_tab_stop(desktop, site):
    desktop.goto(site.url('negation.html'))
    ruling = desktop.locator('.ruling-line[id]').filter(
        has=desktop.locator('a.card-link:nth-of-type(2)')).first
    links = ruling.locator('a.card-link')
    links.first.focus()
    desktop.keyboard.press('Tab')  # the next card name, no § in between
    assert desktop.evaluate('document.activeElement.textContent') == links.nth(1).inner_text()
    assert desktop.evaluate('document.activeElement.matches("a.card-link")')


@pytest.mark.parametrize('path', ['negation.html', 'timeline.html', 'timeline/2019.html',
                                  'card-index.html', 'card-index/x.html', 'recent.html',
                                  'open-questions.html', 'cards/旋风.html'])
def test_every_page_type_can_be_shared(desktop, site, path):
    desktop.goto(site.url(quote(path)))
    tags = desktop.evaluate('''() => Object.fromEntries([...document.querySelectorAll(
        'meta[property^="og:"], meta[name="description"]')].map(
        (m) => [m.getAttribute('property') || m.getAttribute('name'), m.content]))''')
    assert tags['og:title'] and tags['og:description'] == tags['description']
    assert len(tags['description']) >= 10
    assert unquote(tags['og:url']) == f'{PUBLISHED}{path}'
    assert 'localhost' not in ''.join(tags.values())


@pytest.fixture(scope='module')
def faq_site(site, tmp_path_factory):
    """A yearly FAQ page as existing handbooks keep them, built with this
    project's conf.py."""
    run = build_once(tmp_path_factory, 'yearly-faq', lambda out: make_command(
        'html', f'SOURCEDIR={YEARLY}', f'CARDS={YEARLY / "links.rst"}', f'BUILDDIR={out}',
        'SPHINXOPTS=-q'))
    assert (run.html / 'faq' / '2021.html').is_file(), run.stderr
    with serve(run.html) as url:
        yield url


#: a page of each type; the content page is one with a ruling's status badge,
#: planned sections and attention notes beside its card links (a third of
#: negation.html's size: axe's contrast checks take seconds a thousand links)
PAGE_TYPES = {
    'index': 'index.html', 'content page': 'face-down-banish.html', 'card page': 'cards/旋风.html',
    'search with results': 'search.html?q=旋风', 'timeline': 'timeline.html',
    'timeline, a year': 'timeline/2019.html', 'card index': 'card-index.html',
    'card index, an initial': 'card-index/x.html', 'recent': 'recent.html',
    'open questions': 'open-questions.html', 'yearly FAQ page': None,
}


@pytest.fixture(scope='module')
def schemes(browser):
    """One desktop browser context per colour scheme, for the module (its
    cache keeps the theme's files from page to page)."""
    made: dict[str, object] = {}

    def context(scheme: str):
        if scheme not in made:
            made[scheme] = browser.new_context(**WIDTHS['desktop'], color_scheme=scheme)
        return made[scheme]

    yield context
    for context in made.values():
        context.close()


@pytest.mark.long
@pytest.mark.parametrize('scheme', ['light', 'dark'])
@pytest.mark.parametrize('kind', list(PAGE_TYPES))
def test_axe_finds_nothing_serious_on_any_page_type(request, schemes, site, kind, scheme):
    """One page type in one scheme a test: pytest-xdist spreads them (axe
    takes seconds on a long content page)."""
    from axe_playwright_python.sync_playwright import Axe

    path = PAGE_TYPES[kind]
    url = (request.getfixturevalue('faq_site') + 'faq/2021.html' if path is None
           else site.url(quote(path, safe='?=')))
    page = schemes(scheme).new_page()
    page.goto(url)
    if kind == 'search with results':
        page.wait_for_selector('.ruling-result')
    violations = Axe().run(page, options=AXE_OPTIONS).response['violations']
    page.close()
    found = [(v['id'], v['impact'], [n['html'][:120] for n in v['nodes'][:3]])
             for v in violations if v['impact'] in FAILING]
    assert found == [], kind
