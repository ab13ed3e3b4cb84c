"""make linkcheck's policy: robots.txt is obeyed, working URLs are cached.

Runs Sphinx's linkcheck builder against a server on 127.0.0.1 (no other
network)."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from helpers import running


class Site(BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:
        Site.requests.append(self.path)
        if self.path == '/robots.txt':
            body, status = b'User-agent: *\nDisallow: /private/\n', 200
        elif self.path.startswith(('/ok', '/private/')):
            body, status = b'<html>ok</html>', 200
        else:
            body, status = b'not found', 404
        self.send_response(status)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_HEAD = do_GET

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def site():
    server = ThreadingHTTPServer(('127.0.0.1', 0), Site)
    Site.requests.clear()
    with running(server):
        yield f'http://127.0.0.1:{server.server_address[1]}'


def checked(make_app, srcdir, site: str, **overrides):
    """A linkcheck run of *srcdir*; the local site's address allowed (it is
    a loopback one, which the link checks refuse otherwise)."""
    allowed = {'handbook_linkcheck_allowed_addresses': [site.removeprefix('http://')]}
    app = make_app('linkcheck', srcdir=srcdir, freshenv=True,
                   confoverrides={**allowed, **overrides})
    app.build()
    return app


def statuses(app) -> dict[str, str]:
    lines = (app.outdir / 'output.json').read_text(encoding='utf-8').splitlines()
    return {json.loads(line)['uri'].rsplit('/', 1)[-1]: json.loads(line)['status'] for line in lines}


@pytest.mark.sphinx('linkcheck', testroot='linkcheck', srcdir='linkcheck-policy')
def test_robots_and_cache(app, make_app, site):
    (app.srcdir / 'index.rst').write_text(
        f'Links\n=====\n\n`ok <{site}/ok>`__, `private <{site}/private/page>`__, '
        f'`broken <{site}/broken>`__\n', encoding='utf-8')
    app = checked(make_app, app.srcdir, site)
    assert statuses(app) == {'ok': 'working', 'page': 'ignored', 'broken': 'broken'}
    assert '/private/page' not in Site.requests  # robots.txt forbids it
    cache = json.loads((app.outdir / 'cache.json').read_text(encoding='utf-8'))
    assert list(cache) == [f'{site}/ok']

    Site.requests.clear()
    again = checked(make_app, app.srcdir, site)
    assert statuses(again) == {'ok': 'ignored', 'page': 'ignored', 'broken': 'broken'}
    assert not any(path.startswith('/ok') for path in Site.requests)  # cached
    assert any(path.startswith('/broken') for path in Site.requests)  # broken: checked again


@pytest.mark.sphinx('linkcheck', testroot='linkcheck', srcdir='linkcheck-no-cache',
                    confoverrides={'handbook_linkcheck_cache_days': 0})
def test_no_cache(app, make_app, site):
    (app.srcdir / 'index.rst').write_text(f'Links\n=====\n\n`ok <{site}/ok>`__\n', encoding='utf-8')
    checked(make_app, app.srcdir, site, handbook_linkcheck_cache_days=0)
    again = checked(make_app, app.srcdir, site, handbook_linkcheck_cache_days=0)
    assert statuses(again) == {'ok': 'working'}
