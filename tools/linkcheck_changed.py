#!/usr/bin/env python3
"""``make linkcheck-changed BASE=origin/main``: the external links a change adds.

Checks only the external http(s) URLs on the lines that a branch, or the
working tree, adds or changes compared with ``BASE``: a handful of requests
per pull request instead of the thousand of ``make linkcheck``.

**What is selected.**  ``git diff`` from the merge base of ``BASE`` and
``HEAD`` to the working tree (commits of the branch, staged and unstaged
edits; files git does not track yet count as wholly added), renames
detected, and of its added or changed lines:

* in the pages, ``SOURCEDIR/**/*.rst``: every ``http://`` or ``https://`` URL
  (plain, in ```text <URL>`_``, in ``.. _name: URL``, in
  ``:ruling:`17/3/24 <URL>```), and every official FAQ reference
  ``:ruling:`17/3/24 <faq:19691>```, as the URL ``--faq-url`` makes of it;
* in the card registry: each row's URL, its ``url`` column, else the URL
  ``--card-id-url`` (a card with an ``id``), ``--card-url`` (a card) or
  ``--series-url`` (a series) makes of it; a registry of legacy link
  definitions, ``.. _`name`: URL``, gives each line's URL.

**Which registry and templates**: those a build of the same pages uses
(:func:`handbook_settings.resolve`): the registry ``--cards`` (``make
linkcheck-changed CARDS=``), else ``cards`` in the handbook's settings file
``<srcdir>/handbook.toml``, else ``handbook_cards`` of ``conf.py`` in
``--confdir`` (``CONFDIR``), else ``cards.tsv`` beside it; the FAQ address
``--faq-url``, else the settings file's ``faq_url``, else ``conf.py``'s
``handbook_faq_url``; the card and series templates the options, else
``conf.py``'s ``handbook_card_url``, ``handbook_card_id_url`` and
``handbook_series_url``; else the official FAQ's and ygocdb.com's.

Lines that were only removed, and unchanged lines, are not looked at.

**How it requests.**  Each URL once, however often it was added: ``HEAD``,
then ``GET`` when ``HEAD`` fails (servers that refuse ``HEAD``); a timeout;
a pause between two requests to the same host (``--delay``); on HTTP 429
it waits as long as ``Retry-After`` asks, up to ``--max-retry-after``
seconds and ``--retries`` times, and otherwise reports the URL as not
verified.  Redirects are followed and reported as notes.  As for Sphinx's
linkcheck, 401 counts as working (the page exists) and 503 as not verified.
robots.txt is not read: these are a few URLs an editor just wrote, requested
once, as a reader's browser would.

**Only the public internet** (:mod:`handbook.core.public_net`): a URL whose
host is, or resolves to, a loopback, private, link-local (a cloud's
metadata service, ``169.254.169.254``) or other non-public address is not
requested, nor is a redirect to one or to a scheme other than http(s): the
link is reported as refused (an error), at its place.  The host is
resolved once and the address checked is the one connected to; no proxy
of the environment is used.  ``--allow-address ADDRESS:PORT`` lets one
such address through (an intranet handbook's own server).

**What it prints**, one line per place, sorted, and a summary::

    source/negation.rst:41: error: broken link https://ygocdb.com/card/99 (HTTP 404) [linkcheck.broken]
    source/negation.rst:52: note: https://… redirects to https://… (HTTP 301) [linkcheck.redirected]
    make linkcheck-changed: 3 links on changed lines: 1 working, 1 broken, 1 redirected

With ``GITHUB_ACTIONS`` set, also ``::error file=…,line=…::…`` (and
``::notice`` for redirects) annotations.  Exit status 1 when a link is
broken or refused, 2 when the diff cannot be made (an unknown ``BASE``), else 0.
``--list`` prints the selected URLs at their places and requests nothing.

Only the standard library: it runs before, and without, the venv.
"""

from __future__ import annotations

import argparse
import dataclasses
import email.utils
import http.client
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / '_ext'))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import handbook_settings  # noqa: E402  (standard library only, like this tool)
from handbook.core import public_net  # noqa: E402  (standard library only, like this tool)

#: the templates where neither the options, the settings file nor conf.py
#: give one (handbook_card_url, handbook_card_id_url, handbook_series_url,
#: handbook_faq_url)
CARD_URL = 'https://ygocdb.com/card/name/{name}'
CARD_ID_URL = 'https://ygocdb.com/card/{id}'
SERIES_URL = 'https://ygocdb.com/?search={name}'
FAQ_URL = ('https://www.db.yugioh-card.com/yugiohdb/faq_search.action'
           '?ope=5&fid={id}&request_locale=ja')

USER_AGENT = 'handbook-linkcheck-changed/1 (make linkcheck-changed; Python urllib)'

#: an external URL as pages write it: up to whitespace, markup and CJK punctuation
_URL = re.compile(r'''https?://[^\s<>`"'\\「」『』（），。、；！？【】《》]+''')
#: characters that end a sentence rather than a URL
_TRAILING = '.,;:!?)]}'
#: an official FAQ reference of the ruling role
_FAQ = re.compile(r':ruling:`[^`]*<\s*faq:\s*(\d+)\s*>`')
#: one legacy link definition: .. _`name`: url   or   .. _name: url  (as _ext's registry)
_LEGACY = re.compile(r'^\.\.\s+_(?:`(?P<quoted>[^`]*)`|(?P<plain>[^:`]*)):\s*(?P<url>\S*)\s*$')
_HUNK = re.compile(r'^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@')


@dataclasses.dataclass(frozen=True, order=True)
class Place:
    path: str  # relative to the repository's top level, with /
    line: int


@dataclasses.dataclass
class Result:
    status: str  # 'working', 'broken', 'redirected', 'unverified'
    info: str = ''  # e.g. 'HTTP 404'
    final: str = ''  # where a redirect ended


class UsageError(Exception):
    pass


# -- what the change adds ------------------------------------------------------------

def git(repo: Path, *args: str) -> str:
    done = subprocess.run(['git', '-c', 'core.quotePath=false', *args], cwd=repo,
                          capture_output=True, text=True, encoding='utf-8', errors='replace')
    if done.returncode:
        raise UsageError(f'git {" ".join(args)}: {done.stderr.strip()}')
    return done.stdout


def handbook_repository(srcdir: Path) -> Path:
    """The git repository that holds the pages (SOURCEDIR)."""
    if not srcdir.is_dir():
        raise UsageError(f'SOURCEDIR {srcdir} is no folder: give the folder of the pages')
    try:
        return Path(git(srcdir, 'rev-parse', '--show-toplevel').strip())
    except UsageError:
        raise UsageError(f'SOURCEDIR {srcdir} is in no git repository: make linkcheck-changed '
                         'checks the lines changed since BASE in git; make linkcheck checks '
                         'every link') from None


def added_lines(repo: Path, base: str, pathspecs: list[str]) -> dict[str, list[tuple[int, str]]]:
    """Per file (relative to *repo*), the (line number, text) of every line
    the working tree adds or changes since the merge base of *base* and HEAD."""
    if base.startswith('-'):
        raise UsageError(f'BASE {base!r} is not a revision')
    try:
        git(repo, 'rev-parse', '--verify', '--quiet', '--end-of-options', f'{base}^{{commit}}')
    except UsageError:
        raise UsageError(f'BASE {base!r} is not a revision of this repository '
                         '(fetch it first, e.g. git fetch origin main)') from None
    try:
        since = git(repo, 'merge-base', base, 'HEAD').strip()
    except UsageError:  # no common history (or no HEAD yet): the base itself
        since = base
    diff = git(repo, 'diff', '--no-color', '--no-ext-diff', '--no-textconv', '-U0', '-M',
               '--src-prefix=a/', '--dst-prefix=b/', since, '--', *pathspecs)
    lines: dict[str, list[tuple[int, str]]] = {}
    path, number, old_left, new_left = None, 0, 0, 0
    for raw in diff.split('\n'):
        if old_left or new_left:  # inside a hunk: exactly its lines, whatever they start with
            if raw.startswith('+') and new_left:
                if path is not None:
                    lines.setdefault(path, []).append((number, raw[1:]))
                number, new_left = number + 1, new_left - 1
            elif raw.startswith('-') and old_left:
                old_left -= 1
            elif raw.startswith(' '):  # context (none with -U0)
                number, old_left, new_left = number + 1, old_left - 1, new_left - 1
            continue
        if raw.startswith('diff --git '):
            path = None
        elif raw.startswith('+++ '):
            target = _unquote(raw[4:].rstrip('\t'))
            path = target[2:] if target.startswith('b/') else None
        elif m := _HUNK.match(raw):
            old_left = int(m[1]) if m[1] is not None else 1
            number = int(m[2])
            new_left = int(m[3]) if m[3] is not None else 1
    untracked = git(repo, 'ls-files', '--others', '--exclude-standard', '-z', '--', *pathspecs)
    for name in filter(None, untracked.split('\0')):
        text = (repo / name).read_text(encoding='utf-8-sig', errors='replace')
        lines[name] = list(enumerate(text.splitlines(), start=1))
    return lines


def _unquote(path: str) -> str:
    """A path as git writes it in a diff header, C-quoted when it must be."""
    if not (path.startswith('"') and path.endswith('"')):
        return path
    out, i, body = bytearray(), 0, path[1:-1]
    escapes = {'n': b'\n', 't': b'\t', '"': b'"', '\\': b'\\', 'a': b'\a', 'b': b'\b',
               'f': b'\f', 'r': b'\r', 'v': b'\v'}
    while i < len(body):
        c = body[i]
        if c == '\\' and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in '01234567':
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
            out += escapes.get(nxt, nxt.encode())
            i += 2
            continue
        out += c.encode()
        i += 1
    return out.decode('utf-8', errors='replace')


@dataclasses.dataclass
class Templates:
    card: str = CARD_URL
    card_id: str = CARD_ID_URL
    series: str = SERIES_URL
    faq: str = FAQ_URL


def page_urls(text: str, templates: Templates) -> list[str]:
    """The external URLs one line of a page writes, in order."""
    found = []
    for m in _URL.finditer(text):
        url = m[0]
        while url and url[-1] in _TRAILING and not _balanced(url):
            url = url[:-1]
        found.append(url)
    found += [templates.faq.format(id=fid) for fid in _FAQ.findall(text)]
    return found


def _balanced(url: str) -> bool:
    """A URL ending in ) that opened one keeps it (wiki-style addresses)."""
    closing = {')': '(', ']': '[', '}': '{'}
    last = url[-1]
    return last in closing and url.count(closing[last]) >= url.count(last)


def registry_url(text: str, legacy: bool, templates: Templates) -> str | None:
    """The URL one registry row links to (None: a comment, blank or bad row)."""
    line = text.strip()
    if legacy:
        m = _LEGACY.match(line)
        return m['url'] if m and m['url'] else None
    if not line or line.startswith('#'):
        return None
    cols = [c.strip() for c in text.split('\t')] + [''] * 5
    kind, name, ident, url = cols[:4]
    if kind not in ('card', 'series') or not name:
        return None
    if url:
        return url
    if ident.isdigit() and kind == 'card':
        return templates.card_id.format(id=int(ident))
    template = templates.series if kind == 'series' else templates.card
    return template.format(name=quote(name, safe=''))


def is_legacy(path: Path) -> bool:
    """Whether a registry file holds legacy link definitions (as _ext's loader decides)."""
    try:
        lines = path.read_text(encoding='utf-8-sig').splitlines()
    except OSError:
        return False
    return any(_LEGACY.match(ln.strip()) for ln in lines[:50] if ln.strip())


def select(repo: Path, base: str, srcdir: Path, cards: Path,
           templates: Templates) -> dict[str, list[Place]]:
    """URL -> the places (sorted) where the change adds it."""
    src = _inside(repo, srcdir, 'SOURCEDIR')
    registry = _inside(repo, cards, 'CARDS', required=False)
    pages = f':(glob){src}/**/*.rst' if src != '.' else ':(glob)**/*.rst'
    specs = [pages] + ([f':(literal){registry}'] if registry else [])
    legacy = is_legacy(cards)
    urls: dict[str, set[Place]] = {}
    for path, lines in added_lines(repo, base, specs).items():
        for number, text in lines:
            if path == registry:
                found = [registry_url(text, legacy, templates)]
            else:
                found = page_urls(text, templates)
            for url in filter(None, found):
                if url.startswith(('http://', 'https://')):
                    urls.setdefault(url, set()).add(Place(path, number))
    return {url: sorted(places) for url, places in urls.items()}


def _inside(repo: Path, path: Path, what: str, required: bool = True) -> str | None:
    try:
        rel = path.resolve().relative_to(repo.resolve())
    except ValueError:
        if required:
            raise UsageError(f'{what} {path} is outside the git repository {repo}') from None
        return None
    return rel.as_posix() or '.'


# -- requesting --------------------------------------------------------------------

def ascii_url(url: str) -> str:
    """*url* as urllib can send it: IDNA host, percent-encoded path and query."""
    parts = urlsplit(url)
    host = parts.hostname or ''
    try:
        host = host.encode('idna').decode('ascii')
    except UnicodeError:
        pass
    netloc = host if ':' not in host else f'[{host}]'
    if parts.port:
        netloc += f':{parts.port}'
    if parts.username:
        netloc = f'{parts.username}@{netloc}'
    keep = "/%:@!$&'()*+,;=-._~"
    return urlunsplit((parts.scheme, netloc, quote(parts.path, safe=keep),
                       quote(parts.query, safe=keep + '?'), ''))


def retry_after(value: str | None) -> float | None:
    """Seconds that a Retry-After header asks for (seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class Checker:
    """Requests URLs one at a time, politely."""

    def __init__(self, timeout: float = 15.0, delay: float = 1.0,
                 max_retry_after: float = 60.0, retries: int = 3,
                 user_agent: str = USER_AGENT, sleep=time.sleep,  # noqa: ANN001
                 allow: public_net.Allowed = ()) -> None:
        self.timeout, self.delay, self.allow = timeout, delay, allow
        self.max_retry_after, self.retries = max_retry_after, retries
        self.user_agent, self.sleep = user_agent, sleep
        self.last_request: dict[str, float] = {}

    def _open(self, url: str, method: str) -> tuple[int, str, list[tuple[int, str]]]:
        host = urlsplit(url).netloc
        wait = self.last_request.get(host, -1e9) + self.delay - time.monotonic()
        if wait > 0:
            self.sleep(wait)
        redirects = public_net.SchemeRedirects()
        opener = public_net.opener(redirects, self.allow)
        request = urllib.request.Request(url, method=method, headers={
            'User-Agent': self.user_agent, 'Accept': 'text/html,*/*;q=0.8'})
        try:
            with opener.open(request, timeout=self.timeout) as response:
                return response.status, response.geturl(), redirects.chain
        except urllib.error.HTTPError as err:
            err.redirects = redirects.chain  # type: ignore[attr-defined]
            err.close()
            raise
        finally:
            self.last_request[host] = time.monotonic()

    def check(self, url: str) -> Result:
        target = ascii_url(url)
        result = Result('broken', 'no answer')
        for method in ('HEAD', 'GET'):
            attempts = 0
            while True:
                try:
                    status, final, chain = self._open(target, method)
                except urllib.error.HTTPError as err:
                    code, chain = err.code, getattr(err, 'redirects', [])
                    if code == 429:
                        wait = retry_after(err.headers.get('Retry-After'))
                        wait = 5.0 if wait is None else wait
                        if attempts < self.retries and wait <= self.max_retry_after:
                            attempts += 1
                            self.sleep(wait)
                            continue
                        return Result('unverified', f'HTTP 429, rate limited; Retry-After {wait:g} s')
                    if code == 401:
                        return Result('working', 'HTTP 401')
                    if code == 503:
                        return Result('unverified', 'HTTP 503, service unavailable')
                    via = f', redirected to {chain[-1][1]}' if chain else ''
                    result = Result('broken', f'HTTP {code}{via}')
                    break  # try GET: some servers answer HEAD wrongly
                except (TimeoutError, socket.timeout):
                    return Result('broken', f'timed out after {self.timeout:g} s')
                except public_net.Refused as err:
                    return Result('refused', str(err))
                except urllib.error.URLError as err:
                    if isinstance(err.reason, public_net.Refused):
                        return Result('refused', str(err.reason))
                    if isinstance(err.reason, (TimeoutError, socket.timeout)):
                        return Result('broken', f'timed out after {self.timeout:g} s')
                    result = Result('broken', str(err.reason))
                    break
                except (http.client.HTTPException, OSError, ValueError) as err:
                    result = Result('broken', f'{type(err).__name__}: {err}')
                    break
                if chain:
                    return Result('redirected', f'HTTP {chain[0][0]}', final)
                return Result('working', f'HTTP {status}')
        return result


# -- reporting ---------------------------------------------------------------------

def _escape(text: str, prop: bool = False) -> str:
    text = text.replace('%', '%25').replace('\r', '%0D').replace('\n', '%0A')
    return text.replace(':', '%3A').replace(',', '%2C') if prop else text


def report(results: dict[str, Result], places: dict[str, list[Place]], repo: Path,
           github: bool, out=sys.stdout) -> int:  # noqa: ANN001
    """Prints every broken and redirected link at each place; the number broken."""
    lines = []
    for url, result in results.items():
        for place in places[url]:
            lines.append((place, url, result))
    lines.sort(key=lambda item: (item[0], item[1]))
    here = Path.cwd()
    for place, url, result in lines:
        shown = os.path.relpath(repo / place.path, here).replace(os.sep, '/')
        if result.status == 'refused':
            print(f'{shown}:{place.line}: error: link {url} not requested: {result.info} '
                  '[linkcheck.refused]', file=out)
            if github:
                print(f'::error file={_escape(place.path, True)},line={place.line},'
                      f'title=refused link::{_escape(f"{url}: {result.info}")}', file=out)
        elif result.status == 'broken':
            print(f'{shown}:{place.line}: error: broken link {url} ({result.info}) '
                  '[linkcheck.broken]', file=out)
            if github:
                print(f'::error file={_escape(place.path, True)},line={place.line},'
                      f'title=broken link::{_escape(f"{url} ({result.info})")}', file=out)
        elif result.status == 'redirected':
            print(f'{shown}:{place.line}: note: {url} redirects to {result.final} '
                  f'({result.info}) [linkcheck.redirected]', file=out)
            if github:
                print(f'::notice file={_escape(place.path, True)},line={place.line},'
                      f'title=redirected link::'
                      f'{_escape(f"{url} redirects to {result.final} ({result.info})")}',
                      file=out)
        elif result.status == 'unverified':
            print(f'{shown}:{place.line}: note: {url} not verified ({result.info}) '
                  '[linkcheck.unverified]', file=out)
            if github:
                print(f'::warning file={_escape(place.path, True)},line={place.line},'
                      f'title=link not verified::{_escape(f"{url} ({result.info})")}',
                      file=out)
    counts: dict[str, int] = {}
    for result in results.values():
        counts[result.status] = counts.get(result.status, 0) + 1
    summary = ', '.join(f'{counts[s]} {s}' for s in ('working', 'broken', 'refused', 'redirected',
                                                       'unverified') if counts.get(s))
    noun = 'link' if len(results) == 1 else 'links'
    print(f'make linkcheck-changed: {len(results)} {noun} on changed lines: {summary}', file=out)
    return counts.get('broken', 0) + counts.get('refused', 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--base', default='origin/main',
                        help='the revision to compare with (default origin/main)')
    parser.add_argument('--srcdir', type=Path, default=Path('source'),
                        help='the pages (SOURCEDIR; default source)')
    parser.add_argument('--confdir', type=Path, default=Path('.'),
                        help='the folder of conf.py (CONFDIR; default .)')
    parser.add_argument('--cards', type=Path,
                        help='the card registry, TSV or legacy link definitions (default: '
                             "the build's: cards in SRCDIR/handbook.toml, else conf.py's "
                             'handbook_cards, else cards.tsv)')
    parser.add_argument('--card-url', help=f"default conf.py's handbook_card_url, else {CARD_URL}")
    parser.add_argument('--card-id-url',
                        help=f"default conf.py's handbook_card_id_url, else {CARD_ID_URL}")
    parser.add_argument('--series-url',
                        help=f"default conf.py's handbook_series_url, else {SERIES_URL}")
    parser.add_argument('--faq-url', help="default faq_url in SRCDIR/handbook.toml, else "
                                          f"conf.py's handbook_faq_url, else {FAQ_URL}")
    parser.add_argument('--timeout', type=float, default=15.0, help='seconds per request (15)')
    parser.add_argument('--delay', type=float, default=1.0,
                        help='seconds between two requests to one host (1)')
    parser.add_argument('--max-retry-after', type=float, default=60.0,
                        help='longest Retry-After of an HTTP 429 to wait for, seconds (60)')
    parser.add_argument('--retries', type=int, default=3, help='HTTP 429 retries per URL (3)')
    parser.add_argument('--allow-address', action='append', default=[], metavar='ADDRESS:PORT',
                        help='an address that may be requested although it is not public (an '
                             "intranet handbook's own server); repeat for more")
    parser.add_argument('--list', action='store_true',
                        help='print the selected URLs at their places; request nothing')
    args = parser.parse_args(argv)

    try:
        settings = handbook_settings.resolve(args.srcdir, args.confdir, args.cards)
    except Exception as err:  # noqa: BLE001  (a conf.py that does not run)
        print(f'make linkcheck-changed: cannot read {args.confdir / "conf.py"}: '
              f'{type(err).__name__}: {err}', file=sys.stderr)
        return 2
    templates = Templates(args.card_url or settings.get('handbook_card_url') or CARD_URL,
                          args.card_id_url or settings.get('handbook_card_id_url') or CARD_ID_URL,
                          args.series_url or settings.get('handbook_series_url') or SERIES_URL,
                          args.faq_url or settings.get('handbook_faq_url') or FAQ_URL)
    try:
        # the handbook's repository, which need not be this project's (an
        # adopter's round trip: a handbook of its own was refused)
        repo = handbook_repository(args.srcdir)
        places = select(repo, args.base, args.srcdir, Path(settings['handbook_cards']),
                        templates)
    except UsageError as err:
        print(f'make linkcheck-changed: {err}', file=sys.stderr)
        return 2
    if args.list:
        for url, where in sorted(places.items(), key=lambda item: (item[1][0], item[0])):
            for place in where:
                print(f'{place.path}:{place.line}: {url}')
        return 0
    if not places:
        print(f'make linkcheck-changed: no external link on the lines changed since {args.base}')
        return 0
    allow = [(address.strip('[]'), int(port))
             for address, _, port in (a.rpartition(':') for a in args.allow_address)]
    checker = Checker(args.timeout, args.delay, args.max_retry_after, args.retries, allow=allow)
    results = {}
    for url in sorted(places, key=lambda u: (places[u][0], u)):
        results[url] = checker.check(url)
    broken = report(results, places, repo, github=bool(os.environ.get('GITHUB_ACTIONS')))
    return 1 if broken else 0


if __name__ == '__main__':
    sys.exit(main())
