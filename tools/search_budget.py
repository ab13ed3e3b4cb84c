"""The ruling search's budget (issue 13): the index's size, gzipped, and the time
from the last keystroke to the results painted, in Chromium with the CPU
throttled 4x (a mid-range phone), on a built site.

    .venv/bin/python tools/search_budget.py <html folder> [query ...]

``make bench`` runs it on the benchmark corpus's site (its ``search``
measure); the budget: an index of at most 1.5 MB gzipped for 5,000 rulings,
first results at most 300 ms after the last keystroke.  Needs Debian's
Chromium (``make browser-deps``); the site is served on 127.0.0.1.
"""
import functools
import gzip
import http.server
import statistics
import sys
import threading
from pathlib import Path
from urllib.parse import quote
from playwright.sync_api import sync_playwright


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


#: notes when the results are painted after the last input event
PROBE = '''() => {
  window.__m = {};
  document.addEventListener("input", () => {
    window.__m.input = performance.now();
    window.__m.painted = null;
    requestAnimationFrame(() => setTimeout(() => { window.__m.painted = performance.now(); }));
  }, true);
}'''


def main(argv: list[str]) -> None:
    root = Path(argv[0])
    queries = argv[1:] or ['伤害步骤', '无效', '17/3/24', '2017-03-24', '反骨王', '旋风 黑洞']
    index = (root / '_static/rulings-index.js').read_bytes()
    script = (root / '_static/rulings_search.js').read_bytes()
    print(f'index: {len(index):,} bytes, gzip -6 {len(gzip.compress(index, 6)):,}, '
          f'gzip -9 {len(gzip.compress(index, 9)):,}; '
          f'script {len(script):,} bytes, gzip {len(gzip.compress(script, 9)):,}')

    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f'http://127.0.0.1:{server.server_address[1]}/'

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path='/usr/bin/chromium', args=['--headless', '--no-sandbox'])
        page = browser.new_page(viewport={'width': 1280, 'height': 900})
        cdp = page.context.new_cdp_session(page)
        # cold: the page opened with a query, throttled
        cdp.send('Emulation.setCPUThrottlingRate', {'rate': 4})
        for q in queries[:2]:
            page.goto(base + 'search.html?q=' + quote(q), wait_until='commit')
            page.wait_for_function("document.querySelector('.ruling-search-count')?.textContent.length > 0", timeout=60000)
            t = page.evaluate('performance.now()')
            print(f'cold, throttled 4x: {q!r}: first ruling results {t:.0f} ms after navigation start')
        # typing
        page.goto(base + 'search.html', wait_until='load')
        page.wait_for_selector('#ruling-query')
        page.evaluate(PROBE)
        for q in queries:
            times = []
            for _ in range(5):
                page.fill('#ruling-query', '')
                page.wait_for_timeout(100)
                page.click('#ruling-query')
                page.keyboard.type(q, delay=120)
                page.wait_for_function('window.__m.painted', timeout=60000)
                m = page.evaluate('window.__m')
                times.append(m['painted'] - m['input'])
            count = page.inner_text('.ruling-search-count')
            print(f'typing, throttled 4x: {q!r}: last keystroke to results painted: '
                  f'median {statistics.median(times):.0f} ms, max {max(times):.0f} ms ({count})')
        browser.close()


if __name__ == '__main__':
    main(sys.argv[1:])
