"""The one URL policy: which addresses the site may link, show or load.

Every link and image the site emits goes through :func:`problem`: card
URLs (the registry, :mod:`handbook.cards.registry`), ruling URLs
(:mod:`handbook.rulings.dates`), the pages' own links and images
(:mod:`handbook.core.hostile_input`), the site's address (``html_baseurl``,
:mod:`handbook.publishing.site_urls`, from which the feed's and the
sitemap's addresses are made).  What passes is one of:

* an absolute ``http://`` or ``https://`` URL with a host and no user name;
* a relative path that stays inside the site (``other.html#x``,
  ``../cards/旋风.html`` from a page one folder down), where the page is
  known.

A URL is read the way the browser will read it: the WHATWG URL Standard
(the ``ada-url`` library, the parser of Node.js), not Python's
``urllib.parse``, which reads some addresses otherwise.  Refused, with the
reason (the callers turn it into a located error and show the text without
a link):

* a space, a control or format character (``U+202E``), which browsers
  drop or show otherwise (``\\x01javascript:`` would run as a script);
* a backslash: browsers read it as ``/``, so that
  ``https://evil.host\\@www.db.yugioh-card.com/`` goes to ``evil.host``
  while Python reads the official database as its host;
* a user name before ``@`` (``https://www.db.yugioh-card.com@evil.host/``):
  it hides where the link goes;
* another scheme (``javascript:``, ``data:``, ``mailto:``, ``file:`` …);
* no scheme but a host, ``//evil.host/y``: another site;
* a relative path that leads out of the site (``../../x`` from the root).

:func:`host` gives the host the browser will visit (lower case, IDNA's
ASCII form, an IPv4 address in its usual form): the host that the ruling
source badge names and that ``ruling_hosts`` is compared with.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import NamedTuple

import ada_url

#: the schemes an absolute link may have
SCHEMES = frozenset({'http', 'https'})
#: Unicode's "other" categories: control, format (U+202E …), surrogates, private use
_NOT_IN_URL = frozenset({'Cc', 'Cf', 'Cs', 'Co'})
#: a scheme, as the WHATWG parser finds it
_SCHEME = re.compile(r'^([A-Za-z][A-Za-z0-9+.-]*):')
#: the usual absolute URL, read alike by every parser: http(s), a DNS name
#: whose last label starts with a letter (never a number, so never an IPv4
#: address in another form), then a path, query or fragment or nothing (no
#: port, no user name); no backslash (checked apart)
_PLAIN = re.compile(r'^https?://((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*[a-z][a-z0-9-]*)'
                    r'(?=[/?#]|$)')
#: where relative paths are resolved, to see where they lead
_SITE = 'https://site.invalid/site/'


class Verdict(NamedTuple):
    problem: str | None  # why it may not be a link, or None
    host: str | None  # the host the browser visits (an absolute URL), or None


def problem(url: str, *, page: str | None = None, root: str | None = None) -> str | None:
    """Why *url* may not be a link or image of the page *page* (a docname:
    relative paths are allowed where they stay inside the site), or None.
    Without *page*, only absolute http(s) URLs pass.  *root*: the site's
    path on its host (``html_baseurl``'s), where a path from the host's
    root (``/feed.xml``, as the 404 page links) stays inside the site."""
    verdict = _absolute(url)
    if verdict.problem != _RELATIVE:
        return verdict.problem
    if page is None:
        return 'is not an http(s) URL'
    if root is not None and url.startswith('/'):
        inside = url.startswith(root.rstrip('/') + '/') and '/../' not in url
        return None if inside else 'leads out of the site'
    return _relative(url, page)


def absolute_problem(url: str) -> str | None:
    """Why *url* is not an absolute http(s) URL that may be a link, or None."""
    found = _absolute(url).problem
    return 'is not an http(s) URL' if found == _RELATIVE else found


def host(url: str) -> str | None:
    """The host the browser visits for *url*, an absolute http(s) URL that
    passes the policy; None for any other."""
    verdict = _absolute(url)
    return None if verdict.problem else verdict.host


def is_path(url: str) -> bool:
    """Whether *url* is a relative path: no scheme, no host, nothing refused
    (a file name, ``other.html#x``), wherever it leads."""
    return _absolute(url).problem == _RELATIVE


#: the problem of a URL that is relative (the caller decides)
_RELATIVE = 'is relative'


@functools.lru_cache(maxsize=16384)
def _absolute(url: str) -> Verdict:
    """The verdict on *url* as an absolute URL (``_RELATIVE`` where it has
    no scheme and no host).  Each URL is read once per process: a ruling's
    is checked several times while its page is read."""
    plain = _PLAIN.match(url)
    if plain and url.isascii() and url.isprintable() and ' ' not in url and '\\' not in url:
        return Verdict(None, plain[1])
    found = _characters(url)
    if found:
        return Verdict(found, None)
    scheme = _SCHEME.match(url)
    if scheme is None:
        if url.startswith(('//', '\\\\', '/\\', '\\/')):
            return Verdict('has no scheme (http: or https:)', None)  # another site
        if '\\' in url:
            return Verdict('holds a backslash, which browsers read as /', None)
        return Verdict(_RELATIVE, None)
    name = scheme[1].lower()
    if name not in SCHEMES:
        return Verdict(f'is a {name}: URL, not an http(s) address', None)
    if '\\' in url:
        where = _visits(url)
        return Verdict('holds a backslash, which browsers read as /'
                       + (f' (this link would open {where})' if where else ''), None)
    try:
        parsed = ada_url.URL(url)
    except ValueError:
        return Verdict('is not a valid URL', None)
    if parsed.username or parsed.password:
        return Verdict(f'holds a user name before @, which hides where it goes (browsers '
                       f'open {parsed.hostname})', None)
    if not parsed.hostname:
        return Verdict('has no host', None)
    return Verdict(None, parsed.hostname)


def _characters(url: str) -> str | None:
    """A character no link may hold, or None."""
    if url.isascii() and url.isprintable() and ' ' not in url:
        return None
    for char in url:
        if char.isspace() or unicodedata.category(char) in _NOT_IN_URL:
            return 'holds a space' if char == ' ' else f'holds the character U+{ord(char):04X}'
    return None


def _visits(url: str) -> str | None:
    """The host the browser would visit for *url*, whatever it holds."""
    try:
        return ada_url.URL(url).hostname or None
    except ValueError:
        return None


def _relative(url: str, page: str) -> str | None:
    """Why the relative *url* on page *page* leads out of the site, or None."""
    folder = page.rpartition('/')[0]
    base = _SITE + (f'{folder}/' if folder else '')
    try:
        resolved = ada_url.URL(url, base=base)
    except ValueError:
        return 'is not a valid URL'
    if resolved.origin != 'https://site.invalid' or not resolved.pathname.startswith('/site/'):
        return 'leads out of the site'
    return None
