"""Ruling statuses in a real browser, at desktop and phone widths: the badges
and the forward/backward links between an overturned ruling and the one that
replaced it, the copy-link button the readers' tools make (the clipboard holds the
permalink), and
the open-questions page.

The badges and links are read on a site built from tests/roots/test-statuses
(the handbook's own pages have no struck ruling), served here like the
``site`` fixture serves the handbook; the open-questions page on the handbook
itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from conftest import WIDTHS
from helpers import serve
from test_reader import _CUT_OFF  # what sticks out to the right of a phone's screen

ROOT = Path(__file__).resolve().parents[2]
STRUCK = 'ruling-2017-03-24-神之宣告'
REPLACEMENT = 'ruling-2020-01-13'
#: records what a copy event put on the clipboard (the fallback without navigator.clipboard)
RECORD_COPY = '''
Object.defineProperty(navigator, "clipboard", {value: undefined});
document.addEventListener("copy", (event) => {
  window.copiedText = event.target.value === undefined ? String(document.getSelection())
                                                       : event.target.value;
}, true);
'''


@pytest.fixture(scope='module')
def statuses_site(site, tmp_path_factory):
    """test-statuses built as HTML and served on localhost: its base URL."""
    out = tmp_path_factory.mktemp('statuses-site')
    env = {**os.environ, 'PYTHONPATH': str(ROOT / '_ext')}
    build = subprocess.run(
        [sys.executable, '-m', 'sphinx', '-b', 'html', '-q', '-W',
         str(ROOT / 'tests/roots/test-statuses'), str(out / 'html'),
         '-d', str(out / 'doctrees')], capture_output=True, text=True, env=env)
    assert build.returncode == 0, build.stderr
    with serve(out / 'html') as url:
        yield url


@pytest.fixture(params=list(WIDTHS))
def width(request) -> str:
    return request.param


def open_page(browser, width: str, *, clipboard: bool = True, init: str = ''):
    """A new page at *width*; JavaScript errors kept.  (The browser resolves
    no host but 127.0.0.1: conftest.py's CHROMIUM_ARGS.)"""
    permissions = ['clipboard-read', 'clipboard-write'] if clipboard else []
    context = browser.new_context(**WIDTHS[width], permissions=permissions)
    if init:
        context.add_init_script(init)
    page = context.new_page()
    page.errors = []
    page.on('pageerror', lambda error: page.errors.append(str(error)))
    return context, page


def press(page, width: str, locator) -> None:
    """Click (desktop: the pointer over the ruling first) or tap (phone)."""
    if width == 'phone':
        locator.tap()
    else:
        locator.hover()
        locator.click()


def test_badges_and_replacement_links(browser, statuses_site, width, screenshot):
    context, page = open_page(browser, width)
    page.goto(statuses_site + 'index.html')
    struck, replacement = page.locator(f'#{STRUCK}'), page.locator(f'#{REPLACEMENT}')
    assert struck.locator('.ruling-badge').all_inner_texts() == ['已推翻']
    assert replacement.locator('.ruling-badge').all_inner_texts() == ['裁定变更']
    assert page.locator('.ruling-badge-open').all_inner_texts() == ['调整中'] * 6
    assert page.locator('.ruling-source').all_inner_texts() == [
        '数据库 #19691', '数据库 #19691', '数据库 #8000', 'wiki', '邮件/其他',
        '数据库 #19691', '数据库 #8000']
    # forward from the overturned ruling to the one that replaced it, and back
    press(page, width, struck.locator('a.ruling-replaced-by', has_text='→ 现裁定'))
    page.wait_for_url(f'**#{REPLACEMENT}')
    assert page.evaluate('document.querySelector(":target").id') == REPLACEMENT
    screenshot(page, 'replacement')
    press(page, width, replacement.locator('a.ruling-replaces', has_text='← 原裁定'))
    page.wait_for_function(f'location.hash === "#{quote(STRUCK)}"')
    assert page.evaluate('document.querySelector(":target").id') == STRUCK
    screenshot(page, 'overturned')
    if width == 'phone':
        assert page.evaluate(_CUT_OFF) == []
    errors = page.errors
    context.close()
    assert errors == []


def copy_button(page, width: str, ruling):
    """The copy button the readers' tools make for *ruling*, once a reader
    points at it (desktop) or taps its text (phone)."""
    press(page, width, ruling.locator('span.ruling').first)  # its date: text, no link
    return page.locator('.reader-tools button.reader-copy')


def test_copy_link_puts_the_permalink_on_the_clipboard(browser, statuses_site, width,
                                                       screenshot):
    context, page = open_page(browser, width)
    page.goto(statuses_site + 'index.html')
    # no button in the page: the readers' tools make one for the ruling a reader is at
    assert page.get_by_role('button', name='复制此裁定的链接').count() == 0
    button = copy_button(page, width, page.locator(f'#{REPLACEMENT}'))
    # a real button, named for screen readers, at the end of the ruling, 24 x 24 px or more
    assert button.evaluate('b => [b.tagName, b.type, b.getAttribute("aria-label"), '
                           'b.closest(".ruling-line").id]') == \
        ['BUTTON', 'button', '复制此裁定的链接', REPLACEMENT]
    assert page.get_by_role('button', name='复制此裁定的链接').count() == 1
    box = button.bounding_box()
    assert box['width'] >= 24 and box['height'] >= 24
    press(page, width, button)
    page.wait_for_function('document.getElementById("reader-tools-status")?.textContent')
    # the address the reader is on
    assert page.evaluate('navigator.clipboard.readText()') == \
        f'{statuses_site}index.html#{REPLACEMENT}'
    assert page.locator('#reader-tools-status').text_content() == '已复制此裁定的链接'
    assert page.locator('#reader-tools-status').get_attribute('role') == 'status'
    screenshot(page, 'copied')
    # from the keyboard: into the ruling, through its links, to its button; a
    # Chinese anchor is percent-encoded
    page.locator(f'#{STRUCK} a').first.focus()
    for _ in range(6):
        if page.evaluate('document.activeElement.matches("button.reader-copy")'):
            break
        page.keyboard.press('Tab')
    assert page.evaluate('document.activeElement.closest(".ruling-line").id') == STRUCK
    page.keyboard.press('Enter')
    page.wait_for_function(f'navigator.clipboard.readText().then((t) => t.endsWith('
                           f'"{quote(STRUCK)}"))')
    assert page.evaluate('navigator.clipboard.readText()') == \
        f'{statuses_site}index.html#{quote(STRUCK)}'
    screenshot(page, 'keyboard')
    # Escape closes the toolbar, the focus back on the ruling
    page.keyboard.press('Escape')
    assert page.locator('.reader-tools').count() == 0
    assert page.evaluate('document.activeElement.closest(".ruling-line").id') == STRUCK
    errors = page.errors
    context.close()
    assert errors == []


def test_copy_link_without_the_clipboard_api(browser, statuses_site, screenshot):
    """Where the browser has no navigator.clipboard: a selected text is copied."""
    context, page = open_page(browser, 'desktop', clipboard=False, init=RECORD_COPY)
    page.goto(statuses_site + 'other.html')
    ruling = page.locator('#ruling-2020-02-02-旋风')
    ruling.hover(position={'x': 2, 'y': 2})
    press(page, 'desktop', page.locator('.reader-tools button.reader-copy'))
    page.wait_for_function('window.copiedText !== undefined')
    # the live region speaks a moment later (so that a screen reader notices)
    page.wait_for_function('document.getElementById("reader-tools-status")?.textContent')
    assert page.evaluate('window.copiedText') == \
        f'{statuses_site}other.html#{quote("ruling-2020-02-02-旋风")}'
    assert page.locator('#reader-tools-status').text_content() == '已复制此裁定的链接'
    errors = page.errors
    context.close()
    assert errors == []


def test_open_questions_page(browser, site, width, screenshot):
    context, page = open_page(browser, width)
    page.goto(site.url('open-questions.html'))
    assert page.locator('.open-questions-summary').inner_text() == \
        '共 1 条裁定仍在调整中，分布在 1 个页面：'
    assert [t.rstrip('¶') for t in page.locator('section.open-questions-page h2')
            .all_text_contents()] == ['里侧·一时除外（1 条）']
    entry = page.locator('li.open-question')
    assert entry.count() == 1
    screenshot(page, 'page')
    # the permalink leads to the ruling, which shows its badge
    press(page, width, entry.locator('.ruling-entry-permalink'))
    page.wait_for_url('**/face-down-banish.html#*')
    target = page.locator(':target')
    assert target.get_attribute('id') == 'ruling-2019-04-17-死者苏生'
    assert target.locator('.ruling-badge').all_inner_texts() == ['调整中']
    screenshot(page, 'ruling')
    if width == 'phone':
        page.goto(site.url('open-questions.html'))
        assert page.evaluate(_CUT_OFF) == []
    errors = page.errors
    context.close()
    assert errors == []
