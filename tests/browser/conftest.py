"""Browser tests: the built site, served on localhost, read in headless Chromium.

Debian's Chromium (``/usr/bin/chromium``, or ``$HANDBOOK_CHROMIUM``) driven by
Playwright; no browser is downloaded.  Where Chromium is missing every
browser test is skipped, with the reason in pytest's summary (``make test``
passes ``-rs``); ``make browser-deps`` installs it, and CI does.

The site: the real handbook as the suite builds it once for every test
(``handbook_build``, tests/conftest.py), or ``$HANDBOOK_SITE``, a site built
before (``make html``; ``HANDBOOK_SITE=_build/html``).  It is served by a small
HTTP server on a free port of 127.0.0.1; Chromium resolves no other host, so
no test uses the network.  Screenshots go to
``$HANDBOOK_SCREENSHOTS`` (``make test``: ``$(BUILDDIR)/browser-screenshots``),
else to the test run's temporary folder.

Fixtures, for new tests of new pages:

``site``        the site: ``site.url('negation.html')``, ``site.pages`` (the
                searchable pages), ``site.html(docname)``
``desktop``     a new tab, 1280 x 900
``phone``       a new tab as a phone shows it, 375 x 812
                (each a tab of one browser context per width: see ``contexts``)
``screenshot``  ``screenshot(page, 'what')`` saves a PNG for review, in the
                folder pytest's summary names

A test fails if a page it opened raised a JavaScript error.  Every page of
``source/`` is checked at phone width (``PHONE_PAGES`` in test_reader.py): a
new page, such as a card index, is covered by being there.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import SCREENSHOTS, once, run_folder, serve

# the same as tests/conftest.py's: once this folder is collected, the test modules'
# `from conftest import ROOT` finds this conftest (both are modules named conftest)
ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get('HANDBOOK_CHROMIUM', '/usr/bin/chromium'))
# no host but 127.0.0.1 resolves: no test uses the network (a test may still
# answer a request to another host itself, with page.route)
CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
                 '--disable-component-update', '--no-first-run',
                 '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1']
# less motion, as a reader may ask: furo's smooth scrolling, which handbook.css
# turns off then, makes every scroll a test does wait a second and a half
# no service worker (publishing/offline.py): a worker would answer requests that a
# test answers itself (page.route), and keep pages from test to test; the
# offline test (test_search_index.py) makes a context that has one
DESKTOP = {'viewport': {'width': 1280, 'height': 900}, 'reduced_motion': 'reduce',
           'service_workers': 'block'}
PHONE = {'viewport': {'width': 375, 'height': 812}, 'device_scale_factor': 2,
         'is_mobile': True, 'has_touch': True, 'reduced_motion': 'reduce',
         'service_workers': 'block'}
WIDTHS = {'desktop': DESKTOP, 'phone': PHONE}


def require_chromium() -> None:
    if not CHROMIUM.is_file():
        pytest.skip(f'browser tests skipped: no Chromium at {CHROMIUM} '
                    '(make browser-deps installs it)')


@dataclasses.dataclass(frozen=True)
class Site:
    """The built site and the address it is served at."""

    root: Path
    base: str

    def url(self, path: str = '') -> str:
        return self.base + path

    @functools.cached_property
    def pages(self) -> list[str]:
        """The docnames of the pages the search's section results cover (a
        ``:nosearch:`` page is in the index, if it has rulings, marked 0)."""
        text = (self.root / '_static' / 'rulings-index.js').read_text(encoding='utf-8')
        index = json.loads(text[len('RulingSearch.setIndex('):-len(');\n')])
        return [uri.removesuffix('.html') for uri, _title, searchable in index['pages']
                if searchable]

    def html(self, docname: str) -> str:
        return (self.root / f'{docname}.html').read_text(encoding='utf-8')


def _clear(folder: Path) -> dict:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return {}


@pytest.fixture(scope='session')
def site(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Site:
    require_chromium()
    if os.environ.get('HANDBOOK_SITE'):
        root = Path(os.environ['HANDBOOK_SITE']).resolve()
    else:
        root = request.getfixturevalue('handbook_build').html
    # one folder for the run, emptied once (each pytest-xdist worker has a site)
    shots = Path(os.environ.get('HANDBOOK_SCREENSHOTS')
                 or run_folder(tmp_path_factory) / 'browser-screenshots')
    once(tmp_path_factory, 'browser-screenshots-cleared', lambda _: _clear(shots))
    request.config.stash[SCREENSHOTS] = shots
    with serve(root) as url:
        yield Site(root, url)


@pytest.fixture(scope='session')
def browser(site: Site):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope='session')
def contexts(browser):
    """One browser context per width and worker, as a reader's browser: its
    cache keeps the theme's scripts and the search indexes from test to test
    (a new context per test loaded and compiled them again each time, a
    sixth of the browser tests' time).  Each test gets a new tab of it, and
    the storage of the site it leaves is cleared (furo keeps the dark or
    light theme there)."""
    made: dict[str, Any] = {}

    def context(width: str):
        if width not in made:
            made[width] = browser.new_context(**WIDTHS[width])
        return made[width]

    yield context
    for context in made.values():
        context.close()


@contextlib.contextmanager
def new_tab(context) -> Iterator[Any]:
    """A new tab of *context* while the block runs; it fails if a page it
    opened raised a JavaScript error."""
    from playwright.sync_api import Error

    page = context.new_page()
    page.errors = []
    page.on('pageerror', lambda error: page.errors.append(str(error)))
    yield page
    errors = page.errors
    with contextlib.suppress(Error):  # about:blank has no storage
        page.evaluate('() => { localStorage.clear(); sessionStorage.clear(); }')
    page.close()
    assert errors == [], 'JavaScript errors on the page'


@pytest.fixture
def desktop(contexts, site: Site):
    with new_tab(contexts('desktop')) as page:
        yield page


@pytest.fixture
def phone(contexts, site: Site):
    with new_tab(contexts('phone')) as page:
        yield page


@pytest.fixture
def screenshot(request: pytest.FixtureRequest, site: Site):
    folder = request.config.stash[SCREENSHOTS]
    params = request.node.callspec.params.values() if hasattr(request.node, 'callspec') else ()
    test = '-'.join([request.node.originalname, *map(str, params)])
    test = re.sub(r'[^\w.-]+', '_', test).strip('_')  # CJK letters are \w

    def save(page, what: str, *, full_page: bool = False) -> Path:
        path = folder / f'{test}-{what}.png'
        # a page just navigated to in a new renderer (another origin) may have no
        # frame to capture yet ("Unable to capture screenshot"): wait for one
        page.evaluate('() => new Promise(done => requestAnimationFrame(() => '
                      'requestAnimationFrame(done)))')
        # one image pixel per CSS pixel: a phone's shots are a quarter of its device pixels
        page.screenshot(path=str(path), full_page=full_page, scale='css')
        return path

    return save
