"""The link checkers request the public internet only (_ext/handbook/core/public_net.py;
issue 34, case 5): make linkcheck-changed and make linkcheck refuse a URL, or
a redirect, to a loopback, private, link-local (cloud metadata) or other
non-public address, after DNS, and any scheme but http(s).

The checkers run against a local server that redirects to each kind
(tests/sandbox/linkcheck_refusals.py), in a network namespace of their own
(``unshare --net``), where only the loopback exists: were a refusal to fail,
the request to 10.0.0.1 or 169.254.169.254 could leave no machine."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from helpers import ROOT
from handbook.core import public_net

REFUSED = {
    '/to-loopback': '127.0.0.1 is a loopback address',
    '/to-localhost': 'localhost resolves to 127.0.0.1, a loopback address',
    '/to-v6-loopback': '::1 is a loopback address',
    '/to-hex-loopback': '0x7f000001 resolves to 127.0.0.1, a loopback address',
    '/to-private': '10.0.0.1 is a private address',
    '/to-metadata': '169.254.169.254 is a link-local address (where cloud metadata services '
                    'answer)',
    'http://169.254.169.254/latest/meta-data/': '169.254.169.254 is a link-local address '
                                                '(where cloud metadata services answer)',
    'http://10.1.2.3/': '10.1.2.3 is a private address',
    'direct': '127.0.0.1 is a loopback address',
    'http://[fd00:ec2::254]/': 'fd00:ec2::254 is a private address',
}
PUBLIC_ONLY = '; the link checkers request public addresses only'


@pytest.fixture(scope='module')
def results() -> dict:
    if shutil.which('unshare') is None or shutil.which('ip') is None or subprocess.run(
            ['unshare', '--net', '--map-root-user', 'true'], capture_output=True,
            check=False).returncode:
        pytest.skip('no network namespace here (unshare --net): the refusals are not tried '
                    'where a failure would reach a real address')
    done = subprocess.run(
        ['unshare', '--net', '--map-root-user', 'sh', '-c', 'ip link set lo up && exec "$0" "$1"',
         sys.executable, str(ROOT / 'tests' / 'sandbox' / 'linkcheck_refusals.py')],
        capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    other = f'http://127.0.0.1:{found["other"]}'

    def key(url: str) -> str:
        return ('direct' if url == f'{other}/direct' else url.replace(found['base'], ''))

    return {checker: {key(url): tuple(result) for url, result in found[checker].items()}
            for checker in ('changed', 'sphinx')} | {'other_log': found['other_log'],
                                                     'other': other}


def test_linkcheck_changed_refuses_every_non_public_address(results):
    checked = results['changed']
    assert checked.pop('/ok') == ('working', 'HTTP 200')
    other = results['other']
    assert checked == {
        **{where: ('refused', f'refused: {why}{PUBLIC_ONLY}') for where, why in REFUSED.items()},
        '/to-ftp': ('refused', f"refused: a redirect to '{other.replace('http', 'ftp')}/secret', a "
                               'ftp: address; the link checkers follow http(s) only'),
        '/to-file': ('refused', "refused: a redirect to 'file:///etc/passwd', a file: address; "
                                'the link checkers follow http(s) only'),
    }
    assert results['other_log'] == []  # the loopback server behind the redirects: never asked


def test_make_linkcheck_refuses_every_non_public_address(results):
    checked = results['sphinx']
    assert checked.pop('/ok') == ('working', '')
    for where, why in REFUSED.items():
        status, info = checked.pop(where)
        assert status == 'broken' and info.startswith(f'403 Client Error: refused: {why}'), where
    # requests follows no redirect to another scheme
    assert {where: status for where, (status, _info) in checked.items()} == {
        '/to-ftp': 'broken', '/to-file': 'broken'}
    assert results['other_log'] == []


@pytest.mark.parametrize(('address', 'why'), [
    ('127.0.0.1', '127.0.0.1 is a loopback address'),
    ('::ffff:127.0.0.1', '127.0.0.1 is a loopback address'),
    ('10.0.0.1', '10.0.0.1 is a private address'),
    ('192.168.1.1', '192.168.1.1 is a private address'),
    ('172.16.0.1', '172.16.0.1 is a private address'),
    ('169.254.169.254', '169.254.169.254 is a link-local address (where cloud metadata '
                        'services answer)'),
    ('100.100.100.200', '100.100.100.200 is not a public address'),  # a cloud's metadata too
    ('fd00:ec2::254', 'fd00:ec2::254 is a private address'),
    ('224.0.0.1', '224.0.0.1 is a multicast address'),
    ('93.184.215.14', None),
    ('2606:4700::1111', None),
])
def test_which_addresses_are_public(address, why):
    assert public_net.refused(address) == why
