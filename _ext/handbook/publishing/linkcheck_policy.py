"""Polite external link checks (``make linkcheck``): robots.txt and a cache.

Sphinx's ``linkcheck`` builder requests every external URL of the handbook:
about a thousand card pages on the card database, and the official FAQ.
This extension, active only in that builder, skips two kinds of URL (they
are listed as ``ignored`` in ``output.txt``):

* URLs that the host's ``robots.txt`` forbids to robots (the builder's
  ``user_agent``); each host's robots.txt is fetched once per run.  A host
  whose robots.txt cannot be fetched is checked as usual;
* URLs found working less than ``handbook_linkcheck_cache_days`` days ago
  (default 7; 0 checks every URL every time).  The cache is
  ``cache.json`` in the builder's output folder (``_build/linkcheck``),
  updated after each run: a working URL gets the run's time, a broken one is
  dropped so that it is checked again next time.

The rate limit, timeouts and retries are Sphinx's ``linkcheck_*`` settings
in ``conf.py``.

**Only the public internet** (:mod:`handbook.core.public_net`).  Every
request of the run goes through a proxy on 127.0.0.1 that this extension
starts (the ``http_proxy`` and ``https_proxy`` of the process, set for the
run and restored after it), which resolves each host itself and connects
only to public addresses: a URL of the pages, or a redirect, that leads to
a loopback, private, link-local (a cloud's metadata service) or other
non-public address is refused, not requested, and reported broken with the
reason; ``requests`` follows no redirect to a scheme other than http(s).
``handbook_linkcheck_allowed_addresses`` (``['address:port', …]``) lets
such an address through: an intranet handbook's own server.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.robotparser
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sphinx.util import logging, requests

from handbook.core import public_net

if TYPE_CHECKING:
    from sphinx.application import Sphinx

logger = logging.getLogger(__name__)

CACHE = 'cache.json'


class Policy:
    """What one linkcheck run skips, and why."""

    def __init__(self, app: Sphinx) -> None:
        self.config = app.config
        self.path = Path(app.outdir) / CACHE
        self.max_age = app.config.handbook_linkcheck_cache_days * 86400
        self.robots: dict[str, urllib.robotparser.RobotFileParser | None] = {}
        self.skipped: dict[str, str] = {}  # uri -> 'cached' or 'robots'
        try:
            self.cache: dict[str, float] = json.loads(self.path.read_text(encoding='utf-8'))
        except (OSError, ValueError):
            self.cache = {}

    def reason_to_skip(self, uri: str) -> str | None:
        if self.max_age and time.time() - self.cache.get(uri, 0) < self.max_age:
            return 'cached'
        parts = urlsplit(uri)
        if parts.scheme in ('http', 'https') and parts.netloc:
            robots = self.robots_of(f'{parts.scheme}://{parts.netloc}')
            if robots is not None and not robots.can_fetch(self.config.user_agent, uri):
                return 'robots'
        return None

    def robots_of(self, origin: str) -> urllib.robotparser.RobotFileParser | None:
        if origin not in self.robots:
            parser = None
            try:
                response = requests.get(
                    f'{origin}/robots.txt', timeout=self.config.linkcheck_timeout,
                    _user_agent=self.config.user_agent,
                    _tls_info=(self.config.tls_verify, self.config.tls_cacerts))
            except Exception as err:  # noqa: BLE001 -- any network failure: check as usual
                logger.info('robots.txt of %s not fetched (%s); its links are checked', origin, err)
            else:
                parser = urllib.robotparser.RobotFileParser()
                if response.status_code == 403 and response.reason.startswith('refused: '):
                    parser = None  # the proxy's refusal: the link's own request says it
                elif response.status_code in (401, 403):
                    parser.disallow_all = True
                elif response.ok:
                    parser.parse(response.text.splitlines())
                else:
                    parser.allow_all = True
            self.robots[origin] = parser
        return self.robots[origin]

    def save(self, outdir: Path) -> None:
        """Update the cache from the run's results (output.json)."""
        now = time.time()
        try:
            lines = (outdir / 'output.json').read_text(encoding='utf-8').splitlines()
        except OSError:
            return
        for line in lines:
            result = json.loads(line)
            if result['status'] == 'working':
                self.cache[result['uri']] = now
            elif result['status'] in ('broken', 'timeout'):
                self.cache.pop(result['uri'], None)
        self.path.write_text(json.dumps(self.cache, ensure_ascii=False, indent=0, sort_keys=True),
                             encoding='utf-8')


def start(app: Sphinx) -> None:
    if app.builder.name == 'linkcheck':
        app.builder.handbook_policy = Policy(app)


def route_through_proxy(app: Sphinx, builder: Any) -> None:
    """``write-started``: the run's requests (robots.txt, then the links,
    as they are collected and checked) go through a proxy that requests
    public addresses only, until ``build-finished``."""
    if app.builder.name != 'linkcheck' or getattr(app.builder, 'handbook_proxy', None):
        return
    allow = [(address.strip('[]'), int(port)) for address, _, port in
             (a.rpartition(':') for a in app.config.handbook_linkcheck_allowed_addresses)]
    proxy = public_net.Proxy(allow, timeout=app.config.linkcheck_timeout or 60)
    proxy.__enter__()
    routed = public_net.environment_proxy(os.environ, proxy)
    routed.__enter__()
    app.builder.handbook_proxy = (proxy, routed)


def process_uri(app: Sphinx, uri: str) -> None:
    """Called for each URL the builder collects, before any is checked."""
    policy: Policy = app.builder.handbook_policy
    if uri in policy.skipped:
        return None
    reason = policy.reason_to_skip(uri)
    if reason:
        policy.skipped[uri] = reason
        # the builder reads linkcheck_ignore when it starts checking, after collecting
        app.config.linkcheck_ignore = [*app.config.linkcheck_ignore, re.escape(uri) + '$']
    return None


def finish(app: Sphinx, exception: Exception | None) -> None:
    proxied = getattr(app.builder, 'handbook_proxy', None)
    if proxied is not None:  # the environment as it was, the proxy stopped: on every end
        proxy, routed = proxied
        routed.__exit__(None, None, None)
        proxy.close()
        app.builder.handbook_proxy = None
        if proxy.refusals:
            logger.info('linkcheck: %d requests refused (not public addresses)',
                        len(proxy.refusals))
    policy: Policy | None = getattr(app.builder, 'handbook_policy', None)
    if policy is None or exception is not None:
        return
    policy.save(Path(app.outdir))
    cached = sum(1 for r in policy.skipped.values() if r == 'cached')
    logger.info('linkcheck: %d links skipped: %d checked in the last %d days (%s), '
                '%d forbidden by robots.txt', len(policy.skipped), cached,
                app.config.handbook_linkcheck_cache_days, policy.path,
                len(policy.skipped) - cached)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value('handbook_linkcheck_cache_days', 7, '', types=frozenset({int}),
                         description='a URL found working this recently is not checked again')
    app.add_config_value('handbook_linkcheck_allowed_addresses', [], '', types=frozenset({list}),
                         description="'address:port' the link checks may request although "
                                     'not public (an intranet server)')
    app.connect('builder-inited', start)
    app.connect('write-started', route_through_proxy)
    app.connect('linkcheck-process-uri', process_uri)
    app.connect('build-finished', finish, priority=100)  # before a handler that may raise
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
