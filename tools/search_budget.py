"""The search's budgets (issue 33), measured in Chromium on a built site: a
reader on a mid-range phone (the CPU throttled 4x with the DevTools
protocol's ``Emulation.setCPUThrottlingRate``), the site served gzipped from
127.0.0.1.

    .venv/bin/python tools/search_budget.py <html folder> [--query Q ...] [--json FILE]

``make bench`` runs it on the benchmark corpus's site (its ``search``
measure).  For each query, in a new browser context (an empty cache):

* **first ruling**: ``search.html?q=…`` opened; the milliseconds from the
  navigation's start to the first ruling shown (or to the words that say
  there is none);
* **downloaded**: every byte the page fetched for the query, as sent over
  the wire (gzipped, headers included), until the search is done: the
  section results' summary written and no request for half a second;
* **blocking**: the total blocking time of the same span, the part of each
  long task over 50 ms (the page's load included: opening the address is
  the reader's Enter);
* **content pages**: the handbook pages fetched (none is needed: a result's
  snippet comes with the index).

And **the page alone**: ``search.html`` with no query, opened cold the same
way, to the end of ``DOMContentLoaded`` (median of three): the theme's page
and its scripts before any part of the index, the floor under the first
ruling on the machine that measures.

And the **index's weight** (issue 31's scale budget, no browser needed):
the manifest and every part of ``_static/search/``, each gzipped as a host
sends it, in MB per 10,000 of the rulings ``rulings.json`` exports (or,
without that export, the manifest's count of rulings).

Then **warm keystrokes**: in one tab of the search page, each query typed a
character at a time; for each keystroke, the milliseconds from the input
event to its results shown and painted (``data-query`` of the ruling
results set to what the box holds, then a frame); a keystroke whose results
the next one replaced before they showed is not counted.

The queries, unless given: chosen from the site's ``rulings.json`` so that
each exists on any corpus, the same for the same site: the card the most
rulings name; part of another card's name; the two cards most often named
together; the date with the most rulings, as ``yy/m/d`` and as
``yyyy-mm-dd``; a phrase; the card in Traditional characters (OpenCC
``s2twp``); a query that finds nothing.  The budgets: first ruling ≤ 300 ms
median and ≤ 600 ms at worst, ≤ 150 KiB downloaded, ≤ 200 ms blocking,
warm keystroke ≤ 50 ms.  Needs Debian's Chromium (``make browser-deps``).
"""

from __future__ import annotations

import argparse
import collections
import functools
import gzip
import http.server
import json
import mimetypes
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

CHROMIUM = '/usr/bin/chromium'
ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--no-first-run',
        '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1']
#: the budgets of issue 33
BUDGETS = {'first_median': 300, 'first_worst': 600, 'kib': 150, 'blocking': 200, 'keystroke': 50}
#: issue 31's: the whole index, gzipped, per 10,000 rulings
INDEX_MB = 1.5
PHRASE = '伤害步骤'
NOTHING = '没有这样的裁定甲乙丙'
COMPRESSED = ('.html', '.js', '.css', '.json', '.svg', '.xml', '.txt', '.map')


class Gzipped(http.server.SimpleHTTPRequestHandler):
    """Static files, gzipped (level 6) for a client that accepts it, as a
    host serves them; the compressed bytes kept per file."""

    cache: dict = {}

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / 'index.html'
        accepts = 'gzip' in self.headers.get('Accept-Encoding', '')
        if not path.is_file() or not accepts or path.suffix not in COMPRESSED:
            return super().do_GET()
        key = (path, path.stat().st_mtime_ns)
        body = self.cache.get(key)
        if body is None:
            body = self.cache[key] = gzip.compress(path.read_bytes(), 6, mtime=0)
        kind = mimetypes.guess_type(path.name)[0] or 'application/octet-stream'
        if kind.startswith('text/') or kind.endswith('javascript'):
            kind += '; charset=utf-8'
        self.send_response(200)
        self.send_header('Content-Type', kind)
        self.send_header('Content-Encoding', 'gzip')
        self.send_header('Content-Length', str(len(body)))
        self.send_header('Cache-Control', 'no-cache')
        self.end_headers()
        self.wfile.write(body)


class Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A page the browser left before its answer was sent (a query's
        page closed while its parts were on their way) is no fault of the
        site's: not printed in the bench's output, as any other is."""
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def serve(root: Path) -> tuple[str, http.server.ThreadingHTTPServer]:
    server = Server(('127.0.0.1', 0), functools.partial(Gzipped, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f'http://127.0.0.1:{server.server_address[1]}/', server


def default_queries(root: Path) -> list[tuple[str, str]]:
    """(what, query) pairs chosen from the site's rulings (see the module docstring)."""
    rulings = json.loads((root / 'rulings.json').read_text(encoding='utf-8'))['rulings']
    cards = collections.Counter(card for r in rulings for card in dict.fromkeys(r['cards']))
    pairs = collections.Counter(tuple(sorted(set(r['cards'])))[:2] for r in rulings
                                if len(set(r['cards'])) >= 2)
    dates = collections.Counter(date for r in rulings for date in dict.fromkeys(r['dates']))
    ranked = [name for name, _ in cards.most_common()]
    card = ranked[0]
    partial = next(name for name in ranked[1:] if len(name) >= 5 and ' ' not in name)
    partial = partial[1:4]
    first, second = pairs.most_common(1)[0][0]
    date = dates.most_common(1)[0][0]
    year, month, day = date.split('-')
    import opencc  # the project's dependency (zh_TW builds)
    convert = opencc.OpenCC('s2twp').convert
    traditional = next(convert(name) for name in ranked if convert(name) != name)
    return [('card', card), ('partial name', partial), ('two cards', f'{first} {second}'),
            ('date yy/m/d', f'{year[2:]}/{int(month)}/{int(day)}'), ('date ISO', date),
            ('phrase', PHRASE), ('zh_TW spelling', traditional), ('no result', NOTHING)]


def index_weight(root: Path) -> dict:
    """The whole ruling index as a host keeps it (see the module docstring)."""
    static = root / '_static'
    files = [static / 'rulings-index.js', *sorted((static / 'search').glob('*.js'))]
    gzipped = sum(len(gzip.compress(path.read_bytes(), 6, mtime=0)) for path in files)
    try:
        rulings = len(json.loads((root / 'rulings.json').read_text(encoding='utf-8'))['rulings'])
    except FileNotFoundError:  # the export is off (handbook_rulings_export = ''): the
        # manifest's count, each ruling once (the same text in two places is one)
        manifest = files[0].read_text(encoding='utf-8')
        rulings = json.loads(manifest[manifest.index('(') + 1:manifest.rindex(')')])['rulings']
    return {'index_files': len(files), 'index_mb': gzipped / 1e6, 'index_rulings': rulings,
            'index_mb_per_10000': gzipped / 1e6 / max(rulings, 1) * 10_000}


#: installed before any script of the page: the time the first ruling shows,
#: the long tasks, the time the section results are written
PROBE = '''(() => {
  window.__budget = { first: null, done: null, long: [] };
  new PerformanceObserver((list) => {
    for (const task of list.getEntries()) window.__budget.long.push([task.startTime, task.duration]);
  }).observe({ type: "longtask", buffered: true });
  const look = () => {
    const b = window.__budget;
    if (b.first === null) {
      const count = document.querySelector("#ruling-results .ruling-search-count");
      if (document.querySelector("#ruling-results li.ruling-result")
          || (count && count.textContent.length)) b.first = performance.now();
    }
    if (b.done === null) {
      const summary = document.querySelector("#search-results .search-summary");
      if (summary && summary.textContent.length) b.done = performance.now();
    }
  };
  new MutationObserver(look).observe(document, { subtree: true, childList: true, characterData: true });
})();'''

#: notes, for each input event, when the ruling results show what the box holds, painted
KEYSTROKES = '''() => {
  window.__keys = [];
  const box = document.getElementById("ruling-query");
  box.addEventListener("input", () => {
    const started = performance.now();
    const wanted = box.value;
    const section = document.getElementById("ruling-results");
    const check = () => {
      if (section.dataset.query !== wanted) return false;
      requestAnimationFrame(() => setTimeout(() => {
        window.__keys.push({ query: wanted, ms: performance.now() - started });
      }));
      return true;
    };
    if (check()) return;
    const observer = new MutationObserver(() => { if (check()) observer.disconnect(); });
    observer.observe(section, { attributes: true, attributeFilter: ["data-query"] });
  }, true);
}'''


def cold(browser, base: str, query: str) -> dict:
    """One query, opened cold (see the module docstring)."""
    context = browser.new_context(viewport={'width': 390, 'height': 844})
    context.add_init_script(PROBE)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send('Emulation.setCPUThrottlingRate', {'rate': 4})
    cdp.send('Network.enable')
    sent: dict[str, float] = {}
    urls: dict[str, str] = {}
    cdp.on('Network.requestWillBeSent', lambda e: urls.__setitem__(e['requestId'], e['request']['url']))
    cdp.on('Network.loadingFinished', lambda e: sent.__setitem__(e['requestId'], e['encodedDataLength']))
    page.goto(base + 'search.html?q=' + quote(query), wait_until='commit')
    page.wait_for_function('window.__budget && window.__budget.first !== null', timeout=180_000)
    page.wait_for_function('window.__budget.done !== null', timeout=300_000)
    # until nothing more is fetched for half a second (a summary fetches its page)
    quiet_since, seen = time.monotonic(), len(urls)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        page.wait_for_timeout(100)
        pending = set(urls) - set(sent)
        if len(urls) != seen or pending:
            quiet_since, seen = time.monotonic(), len(urls)
        elif time.monotonic() - quiet_since >= 0.5:
            break
    found = page.evaluate('window.__budget')
    rulings = page.evaluate('document.querySelectorAll("#ruling-results li.ruling-result").length')
    count = page.evaluate('document.querySelector("#ruling-results .ruling-search-count")'
                          '?.textContent || ""')
    context.close()
    blocking = sum(max(0.0, duration - 50) for start, duration in found['long']
                   if start <= (found['done'] or 0) + 1000)
    pages = sorted({unquote(urlsplit(url).path.lstrip('/')) for url in urls.values()
                    if urlsplit(url).path.endswith('.html') and 'search.html' not in url})
    return {'first': found['first'], 'bytes': sum(sent.values()), 'requests': len(sent),
            'blocking': blocking, 'content_pages': pages, 'shown': rulings, 'count': count}


def page_alone(browser, base: str, times: int = 3) -> float:
    """The median milliseconds to ``DOMContentLoaded``'s end of ``search.html``
    with no query, opened cold as :func:`cold` opens a query: the page, its
    theme and its scripts, before any part of the index.  Its deferred
    scripts run just before that event, so no ruling can show earlier: the
    floor of the first ruling on this machine."""
    found = []
    for _ in range(times):
        context = browser.new_context(viewport={'width': 390, 'height': 844})
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send('Emulation.setCPUThrottlingRate', {'rate': 4})
        page.goto(base + 'search.html', wait_until='domcontentloaded')
        found.append(page.evaluate(
            'performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd'))
        context.close()
    return statistics.median(found)


def keystrokes(browser, base: str, queries: list[str]) -> list[float]:
    """Each query typed into the search page's ruling box (see the module docstring)."""
    context = browser.new_context(viewport={'width': 390, 'height': 844})
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send('Emulation.setCPUThrottlingRate', {'rate': 4})
    page.goto(base + 'search.html', wait_until='load')
    page.wait_for_selector('#ruling-query', timeout=120_000)
    page.evaluate(KEYSTROKES)
    times = []
    for query in queries:
        page.fill('#ruling-query', '')
        page.wait_for_timeout(300)
        page.evaluate('window.__keys = []')
        page.click('#ruling-query')
        for char in query:
            page.keyboard.type(char)
            page.wait_for_timeout(250)
        # a keystroke whose results a later one replaced before they showed is not counted
        page.wait_for_function('(q) => window.__keys.some((key) => key.query === q)', arg=query,
                               timeout=60_000)
        times += [key['ms'] for key in page.evaluate('window.__keys')]
    context.close()
    return times


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('site', type=Path)
    parser.add_argument('--query', action='append', default=[], help='a query (repeatable)')
    parser.add_argument('--json', type=Path, help='also write the figures here')
    args = parser.parse_args(argv)
    root = args.site.resolve()
    queries = ([('query', q) for q in args.query] if args.query else default_queries(root))
    weight = index_weight(root)  # before the browser's minutes: a site it fails on fails at once
    base, server = serve(root)
    from playwright.sync_api import sync_playwright

    results = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for what, query in queries:
            r = cold(browser, base, query)
            r.update(what=what, query=query)
            results.append(r)
            print(f'cold {what} {query!r}: first ruling {r["first"]:.0f} ms, '
                  f'{r["bytes"] / 1024:.1f} KiB in {r["requests"]} requests, '
                  f'blocking {r["blocking"]:.0f} ms, {len(r["content_pages"])} content pages, '
                  f'{r["count"] or "no count"}', flush=True)
        floor = page_alone(browser, base)
        typed = keystrokes(browser, base, [q for _, q in queries])
        browser.close()
    server.shutdown()
    firsts = [r['first'] for r in results]
    summary = {
        'queries': len(results), 'page_alone': floor,
        'first_median': statistics.median(firsts), 'first_worst': max(firsts),
        'kib_worst': max(r['bytes'] for r in results) / 1024,
        'kib_median': statistics.median(r['bytes'] for r in results) / 1024,
        'blocking_worst': max(r['blocking'] for r in results),
        'blocking_median': statistics.median(r['blocking'] for r in results),
        'content_pages': sum(len(r['content_pages']) for r in results),
        'keystroke_median': statistics.median(typed), 'keystroke_worst': max(typed),
        'keystrokes': len(typed),
        **weight,
    }
    met = (summary['first_median'] <= BUDGETS['first_median']
           and summary['first_worst'] <= BUDGETS['first_worst']
           and summary['kib_worst'] <= BUDGETS['kib']
           and summary['blocking_worst'] <= BUDGETS['blocking']
           and summary['keystroke_median'] <= BUDGETS['keystroke'])
    print(f'first ruling: median {summary["first_median"]:.0f} ms, worst {summary["first_worst"]:.0f} ms '
          f'over {len(results)} queries; the page alone (no query, DOMContentLoaded): '
          f'{floor:.0f} ms')
    print(f'downloaded per cold query: median {summary["kib_median"]:.1f} KiB, '
          f'worst {summary["kib_worst"]:.1f} KiB; content pages fetched: {summary["content_pages"]}')
    print(f'blocking per cold query: median {summary["blocking_median"]:.0f} ms, '
          f'worst {summary["blocking_worst"]:.0f} ms')
    print(f'warm keystroke: median {summary["keystroke_median"]:.0f} ms, '
          f'worst {summary["keystroke_worst"]:.0f} ms over {len(typed)} keystrokes')
    print(f'budgets {"met" if met else "MISSED"}')
    index_met = summary['index_mb_per_10000'] <= INDEX_MB
    print(f'the index: {summary["index_mb"]:.2f} MB gzipped in {summary["index_files"]:,} files for '
          f'{summary["index_rulings"]:,} rulings, {summary["index_mb_per_10000"]:.2f} MB per 10,000 '
          f'(budget {INDEX_MB} MB): {"met" if index_met else "MISSED"}')
    if args.json:
        args.json.write_text(json.dumps({'summary': summary, 'met': met, 'index_met': index_met,
                                         'queries': results},
                                        ensure_ascii=False, indent=1), encoding='utf-8')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
