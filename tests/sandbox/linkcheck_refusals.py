"""Both link checkers against a local server that redirects to each kind of
address they must not request (tests/test_linkcheck_refusals.py runs this
in a network namespace of its own, where only the loopback exists: a
request to 10.0.0.1 or 169.254.169.254 that the checkers failed to refuse
could leave no machine).  Prints the results as JSON."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / '_ext'))

#: path of the allowed server -> where it redirects ({other}: the other server's port)
REDIRECTS = {
    '/to-loopback': 'http://127.0.0.1:{other}/secret',
    '/to-localhost': 'http://localhost:{other}/secret',
    '/to-v6-loopback': 'http://[::1]:{other}/secret',
    '/to-hex-loopback': 'http://0x7f000001:{other}/secret',
    '/to-private': 'http://10.0.0.1/secret',
    '/to-metadata': 'http://169.254.169.254/latest/meta-data/',
    '/to-ftp': 'ftp://127.0.0.1:{other}/secret',
    '/to-file': 'file:///etc/passwd',
}
#: URLs the pages hold themselves
DIRECT = ['http://169.254.169.254/latest/meta-data/', 'http://10.1.2.3/',
          'http://127.0.0.1:{other}/direct', 'http://[fd00:ec2::254]/']


class Handler(BaseHTTPRequestHandler):
    def answer(self) -> None:
        self.server.log.append(self.path)
        target = REDIRECTS.get(self.path) if self.server.redirects else None
        self.send_response(302 if target else 200)
        if target:
            self.send_header('Location', target.format(other=self.server.other))
        self.send_header('Content-Length', '0')
        self.end_headers()

    do_HEAD = do_GET = answer

    def log_message(self, *args) -> None:
        pass


def serve(redirects: bool) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    server.log, server.redirects, server.other = [], redirects, None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    allowed, other = serve(redirects=True), serve(redirects=False)
    allowed.other = other.server_address[1]
    base = f'http://127.0.0.1:{allowed.server_address[1]}'
    urls = [f'{base}/ok', *(base + path for path in REDIRECTS),
            *(url.format(other=allowed.other) for url in DIRECT)]
    allow = [('127.0.0.1', allowed.server_address[1])]

    spec = importlib.util.spec_from_file_location('linkcheck_changed',
                                                  ROOT / 'tools' / 'linkcheck_changed.py')
    tool = sys.modules['linkcheck_changed'] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    checker = tool.Checker(timeout=5, delay=0, allow=allow)
    changed = {url: list(dataclasses.astuple(checker.check(url))[:2]) for url in urls}

    from sphinx.cmd.build import build_main

    with tempfile.TemporaryDirectory() as folder:
        src, out = Path(folder, 'src'), Path(folder, 'out')
        src.mkdir()
        (src / 'conf.py').write_text(
            "extensions = ['handbook.publishing.linkcheck_policy']\n"
            f"handbook_linkcheck_allowed_addresses = ['127.0.0.1:{allow[0][1]}']\n"
            'handbook_linkcheck_cache_days = 0\nlinkcheck_timeout = 5\nlinkcheck_retries = 1\n',
            encoding='utf-8')
        (src / 'index.rst').write_text('页\n====\n\n' + ''.join(
            f'* `链接{i} <{url}>`__\n' for i, url in enumerate(urls)), encoding='utf-8')
        status = build_main(['-b', 'linkcheck', '-q', str(src), str(out)])
        lines = (out / 'output.json').read_text(encoding='utf-8').splitlines()
        sphinx = {r['uri']: [r['status'], r['info']] for r in map(json.loads, lines)}
    json.dump({'base': base, 'other': allowed.other, 'changed': changed, 'sphinx': sphinx,
               'sphinx_status': status, 'other_log': other.log, 'allowed_log': allowed.log},
              sys.stdout, ensure_ascii=False)


if __name__ == '__main__':
    main()
