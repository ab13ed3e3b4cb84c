"""Requests that reach the public internet only: the link checkers' network policy.

``make linkcheck`` and ``make linkcheck-changed`` request the URLs the pages
and the registry hold, which a pull request writes.  A URL such as
``http://169.254.169.254/latest/meta-data/`` (a cloud's metadata service), a
private or loopback address, a host name that resolves to one, or a public
page that redirects to one would make the CI runner request it.  So every
connection of the link checkers goes through this module, which:

* accepts only ``http`` and ``https``, on every hop: a redirect to
  ``ftp:``, ``file:`` or another scheme is refused, not followed;
* resolves the host itself and refuses it when any of its addresses is not
  a public one (:func:`refused`: loopback, private, link-local -- the
  metadata services --, shared, multicast, reserved, unspecified, and the
  IPv6 forms of those), then connects to the address it checked, so that a
  second DNS answer cannot lead elsewhere;
* does the same for every redirect, which is a new request through it;
* uses no proxy of the environment (a proxy would resolve the host itself).

A refused request fails with :class:`Refused`, whose message says why; the
checkers report the link as refused at its place.  Only the standard library:
``tools/linkcheck_changed.py`` runs without the venv.

:func:`opener` is a ``urllib`` opener for ``make linkcheck-changed``;
:class:`Proxy` is a local forward proxy through which Sphinx's ``linkcheck``
builder (``requests``) makes its requests (:mod:`handbook.publishing.linkcheck_policy`).

*allow*, everywhere: ``(address, port)`` pairs that may be requested although
not public -- a test's local server, an intranet handbook's own host.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import select
import socket
import socketserver
import ssl
import threading
import urllib.error
import urllib.request
from collections.abc import Collection, Iterator
from typing import Any
from urllib.parse import urljoin, urlsplit

#: the schemes a link checker requests
SCHEMES = ('http', 'https')

Allowed = Collection[tuple[str, int]]


class Refused(OSError):
    """A request the policy refuses; its message says why."""


def refused(address: str) -> str | None:
    """Why the IP *address* is not a public one, or None."""
    ip = ipaddress.ip_address(address.split('%', 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    kinds = (('is_loopback', 'a loopback address'), ('is_link_local', 'a link-local address '
             '(where cloud metadata services answer)'), ('is_private', 'a private address'),
             ('is_multicast', 'a multicast address'), ('is_unspecified', 'the unspecified address'),
             ('is_reserved', 'a reserved address'))
    for attribute, kind in kinds:
        if getattr(ip, attribute):
            return f'{ip} is {kind}'
    if not ip.is_global:
        return f'{ip} is not a public address'
    return None


def addresses(host: str, port: int, allow: Allowed = ()) -> list[tuple[int, str]]:
    """``(family, address)`` of *host*, all of them public (or allowed);
    raises :class:`Refused` otherwise, ``OSError`` when it does not resolve."""
    found = []
    for family, _type, _proto, _name, sockaddr in socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM):
        address = sockaddr[0]
        why = None if (address, port) in allow else refused(address)
        if why:
            raise Refused(_refusal(host, address, why))
        if (family, address) not in found:
            found.append((family, address))
    return found


def _refusal(host: str, address: str, why: str) -> str:
    what = why.split(' is ', 1)[1]
    if host.strip('[]') == address:
        return f'refused: {address} is {what}; the link checkers request public addresses only'
    return (f'refused: {host} resolves to {address}, {what}; the link checkers request public '
            'addresses only')


def connect(host: str, port: int, timeout: float | None, allow: Allowed = ()) -> socket.socket:
    """A socket connected to a checked address of *host* (see :func:`addresses`)."""
    last: OSError | None = None
    for family, address in addresses(host, port, allow):
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect((address, port))
            return sock
        except OSError as err:
            sock.close()
            last = err
    raise last or OSError(f'cannot connect to {host}')


class PublicHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to a checked address."""

    allow: Allowed = ()

    def connect(self) -> None:
        self.sock = connect(self.host, self.port, self.timeout, self.allow)


class PublicHTTPSConnection(http.client.HTTPSConnection):
    """An HTTPS connection to a checked address, the certificate checked for the host."""

    allow: Allowed = ()

    def __init__(self, host: str, **kwargs: Any) -> None:
        self.tls = kwargs.pop('context', None) or ssl.create_default_context()
        super().__init__(host, context=self.tls, **kwargs)

    def connect(self) -> None:
        sock = connect(self.host, self.port, self.timeout, self.allow)
        self.sock = self.tls.wrap_socket(sock, server_hostname=self.host)


class _Handler(urllib.request.HTTPHandler, urllib.request.HTTPSHandler):
    def __init__(self, allow: Allowed) -> None:
        urllib.request.HTTPHandler.__init__(self)
        urllib.request.HTTPSHandler.__init__(self)
        self.allow = allow

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self._connection(PublicHTTPConnection), req)

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(self._connection(PublicHTTPSConnection), req)

    def _connection(self, kind: type) -> type:
        return type(kind.__name__, (kind,), {'allow': self.allow})


class SchemeRedirects(urllib.request.HTTPRedirectHandler):
    """Follows redirects to http(s) only; HEAD stays HEAD; keeps the chain."""

    def __init__(self) -> None:
        self.chain: list[tuple[int, str]] = []

    def http_error_302(self, req, fp, code, msg, headers):  # noqa: ANN001
        # before urllib's own check, which would say "HTTP 302" of a file: redirect
        location = headers.get('location') or headers.get('uri')
        if location:
            newurl = urljoin(req.full_url, location)
            scheme = urlsplit(newurl).scheme.lower()
            if scheme not in SCHEMES:
                raise urllib.error.URLError(Refused(
                    f'refused: a redirect to {newurl!r}, a {scheme}: address; the link '
                    'checkers follow http(s) only'))
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001
        self.chain.append((code, newurl))
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is not None and req.get_method() == 'HEAD':
            new.method = 'HEAD'  # urllib would follow with GET
        return new


def opener(redirects: SchemeRedirects, allow: Allowed = ()) -> urllib.request.OpenerDirector:
    """A urllib opener that requests public http(s) addresses only, follows
    redirects with *redirects*, and uses no proxy, file, ftp or data handler."""
    director = urllib.request.OpenerDirector()
    for handler in (_Handler(allow), redirects, urllib.request.HTTPDefaultErrorHandler(),
                    urllib.request.HTTPErrorProcessor(), _Unknown()):
        director.add_handler(handler)
    return director


class _Unknown(urllib.request.BaseHandler):
    def unknown_open(self, req: urllib.request.Request) -> None:
        raise urllib.error.URLError(Refused(
            f'refused: {req.full_url!r} is a {req.type}: address; the link checkers request '
            'http(s) only'))


# -- a forward proxy for Sphinx's linkcheck ---------------------------------------------------

class _ProxyHandler(socketserver.StreamRequestHandler):
    """One client connection: ``CONNECT host:port`` (https), or a request
    for an absolute ``http://`` URL; refused with 403 and the reason."""

    server: _ProxyServer

    def handle(self) -> None:
        head = self.rfile.readline(65537).decode('latin-1')
        try:
            method, target, version = head.split()
        except ValueError:
            return
        headers = []
        while True:
            line = self.rfile.readline(65537)
            if line in (b'\r\n', b'\n', b''):
                break
            headers.append(line)
        if method == 'CONNECT':
            host, _, port = target.rpartition(':')
            self._tunnel(host.strip('[]'), int(port or 443), version)
            return
        parts = urlsplit(target)
        if parts.scheme != 'http' or not parts.hostname:
            self._refuse(version, f'refused: {target!r} is not an http address')
            return
        path = parts.path or '/'
        if parts.query:
            path += f'?{parts.query}'
        kept = [h for h in headers if not h.lower().startswith((b'proxy-', b'connection:'))]
        request = (f'{method} {path} {version}\r\n'.encode('latin-1') + b''.join(kept)
                   + b'Connection: close\r\n\r\n')
        self._forward(parts.hostname, parts.port or 80, version, request)

    def _upstream(self, host: str, port: int, version: str) -> socket.socket | None:
        try:
            return connect(host, port, self.server.timeout, self.server.allow)
        except Refused as err:
            self._refuse(version, str(err))
        except OSError as err:
            self._answer(version, 502, f'cannot connect to {host}: {err}')
        return None

    def _tunnel(self, host: str, port: int, version: str) -> None:
        upstream = self._upstream(host, port, version)
        if upstream is not None:
            with upstream:
                self._answer(version, 200, 'Connection established')
                self._pipe(upstream)

    def _forward(self, host: str, port: int, version: str, request: bytes) -> None:
        upstream = self._upstream(host, port, version)
        if upstream is not None:
            with upstream:
                upstream.sendall(request)
                self._pipe(upstream)

    def _pipe(self, upstream: socket.socket) -> None:
        client = self.connection
        sockets = [client, upstream]
        while True:
            ready, _, _ = select.select(sockets, [], [], self.server.timeout)
            if not ready:
                return
            for sock in ready:
                data = sock.recv(65536)
                if not data:
                    return
                (upstream if sock is client else client).sendall(data)

    def _refuse(self, version: str, reason: str) -> None:
        self.server.refusals.append(reason)
        self._answer(version, 403, reason)

    def _answer(self, version: str, code: int, reason: str) -> None:
        reason = reason.replace('\r', ' ').replace('\n', ' ')
        body = b'' if code == 200 else reason.encode('utf-8')
        extra = '' if code == 200 else (f'Content-Length: {len(body)}\r\n'
                                         'Content-Type: text/plain; charset=utf-8\r\n'
                                         'Connection: close\r\n')
        self.wfile.write(f'{version} {code} {reason}\r\n{extra}\r\n'.encode('utf-8') + body)
        self.wfile.flush()


class _ProxyServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, allow: Allowed, timeout: float) -> None:
        super().__init__(('127.0.0.1', 0), _ProxyHandler)
        self.allow, self.timeout = allow, timeout
        self.refusals: list[str] = []


class Proxy:
    """A forward proxy on 127.0.0.1 that connects only to public addresses
    (``with Proxy() as proxy: … proxy.url``)."""

    def __init__(self, allow: Allowed = (), timeout: float = 60.0) -> None:
        self.server = _ProxyServer(allow, timeout)
        self.url = f'http://127.0.0.1:{self.server.server_address[1]}'
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={'poll_interval': 0.05}, daemon=True)

    @property
    def refusals(self) -> list[str]:
        return self.server.refusals

    def __enter__(self) -> Proxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.thread.is_alive():
            self.server.shutdown()
        self.server.server_close()


@contextlib.contextmanager
def environment_proxy(environ: dict[str, str], proxy: Proxy) -> Iterator[None]:
    """*environ* (``os.environ``) pointing every HTTP(S) client at *proxy*,
    with no proxy exception, while the block runs; then as it was."""
    names = ('http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY',
             'all_proxy', 'ALL_PROXY')
    saved = {name: environ.get(name) for name in names}
    try:
        for name in names:
            environ.pop(name, None)
        for name in ('http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY'):
            environ[name] = proxy.url
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                environ.pop(name, None)
            else:
                environ[name] = value
