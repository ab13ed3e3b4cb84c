"""What a reader does, in a real browser: follows a card link, searches for a
card or a phrase, reads on a phone, reads at night."""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import quote

import pytest

from handbook.core.names import fold as search_key

ROOT = Path(__file__).resolve().parents[2]

#: every page of the handbook, and the search page with results, as a phone shows them
PHONE_PAGES = [*(f'{p.stem}.html' for p in sorted((ROOT / 'source').glob('*.rst'))),
               '404.html', 'search.html?q=旋风']

_CARD_LINK = re.compile(r'<a class="card-link [^"]*" href="[^"]*"[^>]*>(.*?)</a>', re.S)

#: the text of a page's main part (header links removed), read in the browser
_MAIN_TEXTS = '''async (docnames) => {
  const texts = {};
  for (const docname of docnames) {
    const html = await (await fetch(docname + ".html")).text();
    const main = new DOMParser().parseFromString(html, "text/html").querySelector('[role="main"]');
    // header links, and what search does not cover (related sections)
    main.querySelectorAll(".headerlink, .no-search").forEach((element) => element.remove());
    texts[docname] = main.textContent;
  }
  return texts;
}'''

#: the elements addresses lead to, in copies of their pages: each page fetched
#: and parsed once (a page is most of a megabyte); ``value`` of each element
_AT_TARGETS = '''async ([hrefs, whole, value]) => {
  const pages = {};
  const found = {};
  const of = eval(value);
  for (const href of hrefs) {
    const [url, id] = href.split("#");
    if (!(url in pages)) {
      const html = await (await fetch(url)).text();
      pages[url] = new DOMParser().parseFromString(html, "text/html");
    }
    const target = id ? pages[url].getElementById(decodeURIComponent(id))
                      : pages[url].querySelector(whole);
    found[href] = target ? of(target) : null;
  }
  return found;
}'''


def at_targets(page, hrefs: list[str], value: str, whole: str = '[role="main"]') -> dict:
    """``{href: value}`` for the element each of *hrefs* leads to: its
    fragment's element, else *whole* (a selector); *value* is a JavaScript
    function of the element; None where there is no such element."""
    return page.evaluate(_AT_TARGETS, [hrefs, whole, value])


#: what sticks out to the right of a phone's screen, not inside a box that scrolls
_CUT_OFF = '''() => [...document.querySelectorAll("article *")].filter((element) => {
  if (element.getBoundingClientRect().right <= window.innerWidth + 1) return false;
  for (let box = element.parentElement; box && box.tagName !== "ARTICLE"; box = box.parentElement)
    if (/auto|scroll/.test(getComputedStyle(box).overflowX)) return false;
  return true;
}).slice(0, 5).map((e) => `${e.tagName}.${e.className}: ${e.textContent.slice(0, 30)}`)'''


def pages_linking(site, name: str) -> set[str]:
    """The pages with a card link to *name* (in any spelling)."""
    key = search_key(name)
    return {doc for doc in site.pages
            if any(search_key(html.unescape(re.sub(r'<[^>]+>', '', text))) == key
                   for text in _CARD_LINK.findall(site.html(doc)))}


def search(page, site, query: str) -> list[str]:
    """Search as a reader does; the results' links, first to last."""
    page.goto(site.url(f'search.html?q={quote(query)}'))
    # searchtools writes the summary when the last result is shown
    page.wait_for_function("document.querySelector('#search-results .search-summary')"
                           "?.textContent.length > 0")
    return page.eval_on_selector_all('#search-results ul.search > li > a',
                                     'links => links.map((a) => a.getAttribute("href"))')


def docname(href: str) -> str:
    return href.split('#')[0].removesuffix('.html')


def test_card_link_opens_the_card_database(desktop, site, screenshot):
    page = desktop
    page.goto(site.url('effect-processing.html'))
    link = page.locator('a.card-link').filter(has_text=re.compile(r'^旋风$')).first
    href = link.get_attribute('href')
    assert href == 'https://ygocdb.com/card/name/%E6%97%8B%E9%A3%8E'
    link.scroll_into_view_if_needed()
    screenshot(page, 'link')
    # the card database, answered here: no network
    page.route('https://ygocdb.com/**', lambda route: route.fulfill(
        content_type='text/html; charset=utf-8', body='<title>卡片数据库</title><h1>旋风</h1>'))
    link.click()
    page.wait_for_url(href)
    assert page.url == href
    assert page.inner_text('h1') == '旋风'
    screenshot(page, 'opened')


@pytest.mark.parametrize('name', [
    'DDD 反骨王 列奥尼达',        # spaces
    '混沌No.103 神葬零娘 暮永',   # spaces, Latin, digits and a dot
    '旋风',                       # short, and inside no other name
    'G·B·猎人',                   # middle dots
    '牢牢妖@火灵天星',            # @
    '毁灭咒文-死亡终极咒',        # -
])
def test_search_finds_exactly_the_pages_naming_a_card(desktop, site, screenshot, name):
    expected = pages_linking(site, name)
    assert expected, f'no page links 「{name}」: choose another card'
    results = search(desktop, site, name)
    screenshot(desktop, 'results')
    assert {docname(href) for href in results} == expected
    # each result leads to a section (or a page) that names the card
    for href, text in at_targets(desktop, results, '(target) => target.textContent').items():
        assert text is not None, f'{href}: no such section'
        assert search_key(name) in search_key(text), f'{href} does not name 「{name}」'


def test_search_results_are_sections(desktop, site, screenshot):
    results = search(desktop, site, '旋风')
    screenshot(desktop, 'results')
    assert results and all('#' in href for href in results)
    titles = desktop.eval_on_selector_all('#search-results ul.search > li > a',
                                          'links => links.map((a) => a.textContent)')
    assert all(' > ' in title for title in titles)  # 页面 > 小节
    summary = desktop.inner_text('#search-results .search-summary')
    assert f'{len({docname(h) for h in results})} 个页面' in summary


@pytest.mark.parametrize('phrase', ['伤害步骤', '调整中'])
def test_search_finds_a_phrase_that_jieba_splits(desktop, site, screenshot, phrase):
    results = search(desktop, site, phrase)
    screenshot(desktop, 'results')
    texts = desktop.evaluate(_MAIN_TEXTS, site.pages)
    expected = {doc for doc, text in texts.items() if phrase in search_key(text)}
    assert expected, f'no page contains {phrase}: choose another phrase'
    assert {docname(href) for href in results} == expected
    for href, text in at_targets(desktop, results, '(target) => target.textContent').items():
        assert text is not None and phrase in search_key(text), href


def test_search_box_searches(desktop, site, screenshot):
    desktop.goto(site.url('index.html'))
    desktop.fill('input.sidebar-search', 'DDD 反骨王 列奥尼达')
    desktop.press('input.sidebar-search', 'Enter')
    desktop.wait_for_url(re.compile(r'search\.html\?q='))
    desktop.wait_for_function("document.querySelector('#search-results .search-summary')"
                              "?.textContent.length > 0")
    screenshot(desktop, 'results')
    assert desktop.locator('#search-results ul.search > li').count() > 0


def test_the_ways_to_a_ruling_are_targets_and_lead_there_at_once(desktop, site):
    """A reader's round trip: a card page's 固定链接 and a result's place were
    20 px tall, a permalink glided from the page's top for up to 2 s on a
    phone (furo's smooth scrolling), the search box showed no ring, and the
    search page had no h1; the order's choices were 22 px tall."""
    desktop.goto(site.url(f'cards/{quote("月之书")}.html'))
    for link in desktop.locator('.card-ruling-source a').all()[:6]:
        assert link.bounding_box()['height'] >= 24
    assert desktop.evaluate('getComputedStyle(document.documentElement).scrollBehavior') == 'auto'
    desktop.focus('input.sidebar-search')
    assert desktop.evaluate("getComputedStyle(document.querySelector('input.sidebar-search'))"
                            '.outlineStyle') == 'solid'
    desktop.goto(site.url(f'search.html?q={quote("技能抽取")}'))
    desktop.wait_for_selector('a.ruling-result-link')
    assert desktop.locator('h1').inner_text() == '搜索'
    for link in desktop.locator('a.ruling-result-link').all()[:6]:
        assert link.bounding_box()['height'] >= 24
    # the order's two choices (a reader's round trip: 22 px)
    choices = desktop.locator('label.ruling-order-choice').all()
    assert len(choices) == 2 and all(c.bounding_box()['height'] >= 24 for c in choices)


@pytest.mark.parametrize('path', PHONE_PAGES)
def test_page_fits_a_phone(phone, site, screenshot, path):
    phone.goto(site.url(path))
    if path.startswith('search.html'):
        phone.wait_for_function("document.querySelector('#search-results .search-summary')"
                                "?.textContent.length > 0")
    screenshot(phone, 'top')
    assert phone.evaluate('document.documentElement.scrollWidth') <= 375
    # furo clips the content: nothing may stick out of it either, except
    # inside a box that scrolls (a wide table, a code block)
    assert phone.evaluate(_CUT_OFF) == []
    phone.evaluate('window.scrollTo(0, document.body.scrollHeight / 2)')
    screenshot(phone, 'middle')


def test_long_names_and_links_wrap_on_a_phone(phone, site, screenshot):
    phone.goto(site.url('effect-processing.html'))
    # a card name and a URL longer than any the pages have today
    right = phone.evaluate('''() => {
      const line = document.querySelector("article .line-block .line");
      const link = document.querySelector("article a.card-link").cloneNode(true);
      link.textContent = "No.39 " + "希望皇霍普".repeat(12) + "·" + "Utopia".repeat(12);
      const url = "https://www.db.yugioh-card.com/yugiohdb/faq_search.action?" + "x".repeat(99);
      line.append(url, link);
      line.scrollIntoView();
      return Math.max(...[line, link].map((e) => e.getBoundingClientRect().right));
    }''')
    screenshot(phone, 'wrapped')
    assert right <= 375
    assert phone.evaluate(_CUT_OFF) == []


def luminance(css_color: str) -> float:
    """Relative luminance (WCAG) of an rgb()/rgba() CSS colour."""
    r, g, b = (int(c) / 255 for c in re.findall(r'\d+', css_color)[:3])
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def colours(page) -> dict[str, str]:
    return page.evaluate('''() => ({
        background: getComputedStyle(document.body).backgroundColor,
        text: getComputedStyle(document.querySelector("article p, article .line")).color,
        card: getComputedStyle(document.querySelector("a.card-link")).color,
    })''')


def test_dark_mode_follows_the_system(desktop, site, screenshot):
    desktop.emulate_media(color_scheme='dark')
    desktop.goto(site.url('negation.html'))
    screenshot(desktop, 'dark')
    dark = colours(desktop)
    assert luminance(dark['background']) < 0.05
    assert contrast(dark['text'], dark['background']) >= 7
    assert contrast(dark['card'], dark['background']) >= 4.5
    desktop.emulate_media(color_scheme='light')
    assert luminance(colours(desktop)['background']) > 0.9


def test_dark_mode_toggle(desktop, site, screenshot):
    desktop.emulate_media(color_scheme='light')
    desktop.goto(site.url('negation.html'))
    toggle = desktop.locator('button.theme-toggle:visible').first
    for _ in range(3):  # furo cycles auto, dark, light
        if desktop.evaluate('document.body.dataset.theme') == 'dark':
            break
        toggle.click()
    assert desktop.evaluate('document.body.dataset.theme') == 'dark'
    assert luminance(colours(desktop)['background']) < 0.05
    desktop.reload()  # the choice is remembered
    screenshot(desktop, 'dark')
    assert luminance(colours(desktop)['background']) < 0.05


_FOCUSED = '''() => { const e = document.activeElement;
  return e ? (e.id ? '#' + e.id : e.tagName.toLowerCase()) +
    (e.closest('.sidebar-drawer') ? ' in-drawer' : '') + (e.closest('.toc-drawer') ? ' in-toc' : '')
    : ''; }'''


def test_a_ruling_of_this_page_picked_in_the_box_closes_the_menu(phone, site):
    """On a phone, the box is in the navigation drawer: a result of the very
    page, picked with the keyboard, closes the drawer and focuses the ruling
    (a reader's round trip: the drawer stayed open over it, the focus on the
    page's body)."""
    phone.goto(site.url('negation.html'))
    phone.evaluate("document.getElementById('__navigation').click()")
    box = phone.locator('input.sidebar-search')
    box.focus()
    box.type('技能抽取 灰流丽')
    # the options of the whole query (under load, those of a query typed half
    # were read: the arrows then picked another ruling)
    phone.wait_for_function("document.querySelector('ul.handbook-search-options')"
                            "?.dataset.query === '技能抽取 灰流丽'")
    hrefs = phone.eval_on_selector_all('li.handbook-search-option',
                                       'options => options.map(o => o.dataset.href)')
    at = next(i for i, href in enumerate(hrefs) if href.startswith('negation.html#'))
    for _ in range(at + 1):
        box.press('ArrowDown')
    box.press('Enter')
    anchor = hrefs[at].split('#', 1)[1]
    phone.wait_for_function('document.activeElement && document.activeElement.id === '
                            f'{anchor!r}')
    assert not phone.evaluate("document.getElementById('__navigation').checked")
    assert phone.evaluate('location.pathname').endswith('/negation.html')


def test_a_page_without_contents_has_no_contents_stop_on_a_phone(phone, site):
    """A card page has no contents (furo hides its drawer and icon): the
    checkbox of that drawer is no Tab stop, whose focus would not show and
    whose Space would dim the page with nothing opened."""
    phone.goto(site.url('cards/旋风.html'))
    assert phone.locator('.toc-drawer.no-toc').count() == 1
    stops = []
    for _ in range(6):
        phone.keyboard.press('Tab')
        stops.append(phone.evaluate(_FOCUSED))
    assert '#__navigation' in stops and '#__toc' not in stops, stops


def test_a_keyboard_opens_the_navigation_on_a_phone(phone, site, screenshot):
    """On a phone, the navigation drawer is off the screen: the keyboard
    reaches the checkbox that opens it (its icon shows the focus), no link
    of the closed drawer is a Tab stop (a reader's round trip: twelve stops
    off the screen, and no way to open the menu), and Space opens it."""
    phone.goto(site.url('negation.html'))
    stops = []
    for _ in range(8):
        phone.keyboard.press('Tab')
        stops.append(phone.evaluate(_FOCUSED))
    assert '#__navigation' in stops and '#__toc' in stops  # the page has contents
    assert not [stop for stop in stops if 'in-drawer' in stop or 'in-toc' in stop]
    phone.goto(site.url('negation.html'))
    # the skip link is the first stop (furo wrote it after the drawers' checkboxes)
    phone.keyboard.press('Tab')
    assert phone.evaluate('document.activeElement.classList.contains("skip-to-content")')
    while phone.evaluate(_FOCUSED) != '#__navigation':
        phone.keyboard.press('Tab')
    phone.keyboard.press('Space')
    assert phone.locator('.sidebar-drawer').evaluate(
        'e => getComputedStyle(e).visibility') == 'visible'
    phone.wait_for_function("document.querySelector('.sidebar-drawer')"
                            ".getBoundingClientRect().left >= 0")
    screenshot(phone, 'navigation-open')
    # opened by keyboard: the focus is in it, and the next stops are its own
    assert 'in-drawer' in phone.evaluate(_FOCUSED)
    phone.keyboard.press('Tab')
    assert 'in-drawer' in phone.evaluate(_FOCUSED)
    # Escape closes it, the focus back on its checkbox
    phone.keyboard.press('Escape')
    assert phone.evaluate(_FOCUSED) == '#__navigation'
    assert not phone.evaluate('document.getElementById("__navigation").checked')


def test_a_keyboard_reads_the_contents_on_a_phone(phone, site):
    """The contents drawer, opened by keyboard, has the focus (its links come
    after the whole article in the Tab order: 800 stops, a reader's round
    trip); a section chosen closes it (it stayed over the section); the focus
    leaving it closes it too."""
    phone.goto(site.url('negation.html'))
    while phone.evaluate(_FOCUSED) != '#__toc':
        phone.keyboard.press('Tab')
    phone.keyboard.press('Space')
    assert 'in-toc' in phone.evaluate(_FOCUSED)
    href = phone.evaluate('document.activeElement.getAttribute("href")')
    assert href.startswith('#')
    phone.keyboard.press('Enter')
    phone.wait_for_function('location.hash !== ""')
    assert not phone.evaluate('document.getElementById("__toc").checked')
    # opened again, Shift+Tab out of it (to the page behind): closed
    phone.focus('#__toc')
    phone.keyboard.press('Space')
    assert 'in-toc' in phone.evaluate(_FOCUSED)
    phone.keyboard.press('Shift+Tab')
    assert not phone.evaluate('document.getElementById("__toc").checked')
