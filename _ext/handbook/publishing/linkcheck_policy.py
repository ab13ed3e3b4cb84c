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
"""

from __future__ import annotations

import json
import re
import time
import urllib.robotparser
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sphinx.util import logging, requests

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
                if response.status_code in (401, 403):
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
    app.connect('builder-inited', start)
    app.connect('linkcheck-process-uri', process_uri)
    app.connect('build-finished', finish)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
