"""CI: make linkcheck-changed, the weekly link report, make check-ci, the workflows.

All offline: the links are requested from a local ``http.server`` on
127.0.0.1, in a git repository made in ``tmp_path``; zizmor runs with
``--offline``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from helpers import running

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / 'tools'
WORKFLOWS = ROOT / '.github' / 'workflows'


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, TOOLS / f'{name}.py')
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look the module up
    spec.loader.exec_module(module)
    return module


changed = load('linkcheck_changed')
report = load('linkcheck_report')


def clean_env(**extra: str) -> dict[str, str]:
    """No proxy, no user git configuration, no GitHub Actions unless asked."""
    env = {k: v for k, v in os.environ.items()
           if not k.lower().endswith('_proxy') and k != 'GITHUB_ACTIONS'}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM='1',
               GIT_AUTHOR_NAME='t', GIT_AUTHOR_EMAIL='t@example.org',
               GIT_COMMITTER_NAME='t', GIT_COMMITTER_EMAIL='t@example.org', **extra)
    return env


# -- a local server: 200, 404, 429 then 200, a redirect, HEAD refused ----------------

class Handler(BaseHTTPRequestHandler):
    def answer(self) -> None:
        server = self.server
        with server.lock:
            server.log.append((self.command, self.path))
            seen = server.log.count((self.command, self.path))
        path = self.path
        if path == '/busy' and seen == 1:
            self.send_response(429)
            self.send_header('Retry-After', '1')
        elif path == '/very-busy':
            self.send_response(429)
            self.send_header('Retry-After', '3600')
        elif path == '/old':
            self.send_response(301)
            self.send_header('Location', '/ok')
        elif path == '/head-refused' and self.command == 'HEAD':
            self.send_response(405)
        elif path in server.working:
            self.send_response(200)
        else:
            self.send_response(404)
        self.send_header('Content-Length', '0')
        self.end_headers()

    do_HEAD = do_GET = answer

    def log_message(self, *args) -> None:  # quiet
        pass


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    httpd.lock = threading.Lock()
    httpd.log = []
    httpd.working = {'/ok', '/busy', '/head-refused', '/faq?fid=19691', '/card/4711',
                     '/series?search=%E6%96%B0%E7%B3%BB%E5%88%97'}
    httpd.url = f'http://127.0.0.1:{httpd.server_address[1]}'
    with running(httpd):
        yield httpd


def git(repo: Path, *args: str) -> None:
    subprocess.run(['git', *args], cwd=repo, env=clean_env(), check=True,
                   capture_output=True)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding='utf-8')


@pytest.fixture
def repo(tmp_path: Path, server) -> Path:
    """main: a page, a registry, a README; branch feature: a commit that
    changes them, then uncommitted edits and a page git does not track yet."""
    h = server.url
    repo = tmp_path / 'repo'
    repo.mkdir()
    git(repo, 'init', '-q', '-b', 'main')
    write(repo / 'source/index.rst',
          '标题\n'
          '====\n'
          '\n'
          f'不变的链接 `旧 <{h}/unchanged>`_ 。\n'
          f'会被修改的链接 {h}/missing-before 。\n'
          f'会被删除的行 {h}/deleted\n'
          '最后一行。\n')
    write(repo / 'source/notes.txt', f'not a page: {h}/notes\n')
    write(repo / 'cards.tsv',
          '# kind\tname\tid\turl\taliases\n'
          'card\t旋风\n'
          'card\t黑洞\n'
          'series\t星骑士\n')
    write(repo / 'README.md', f'readme {h}/readme\n')
    git(repo, 'add', '-A')
    git(repo, 'commit', '-q', '-m', 'base')
    git(repo, 'checkout', '-q', '-b', 'feature')
    write(repo / 'source/index.rst',
          '标题\n'
          '====\n'
          '\n'
          f'不变的链接 `旧 <{h}/unchanged>`_ 。\n'
          f'修改过的链接 {h}/ok 。\n'                                # 5: changed
          '最后一行。\n'
          '\n'
          f'`坏链接 <{h}/missing>`_\n'                               # 8: added
          '| 「`旋风`_」的效果…\\ :ruling:`17/3/24 <faq:19691>`\n')  # 9: added (FAQ)
    write(repo / 'cards.tsv',
          '# kind\tname\tid\turl\taliases\n'
          'card\t旋风\n'
          'card\t黑洞\t4711\n'      # 3: changed (an id)
          'card\t新卡\n'            # 4: added
          'series\t星骑士\n'
          'series\t新系列\n')       # 6: added
    git(repo, 'commit', '-q', '-am', 'feature')
    # not committed: an edited page, a new page, edits outside the pages
    with (repo / 'source/index.rst').open('a', encoding='utf-8') as f:
        f.write(f'重定向：{h}/old，限流：{h}/busy。\n')             # 10: added
    write(repo / 'source/sub/page.rst',
          '页面\n'
          '====\n'
          '\n'
          f'又一次 {h}/missing\n'
          f'.. _`某卡`: {h}/head-refused\n')
    with (repo / 'source/notes.txt').open('a', encoding='utf-8') as f:
        f.write(f'{h}/notes-changed\n')
    with (repo / 'README.md').open('a', encoding='utf-8') as f:
        f.write(f'{h}/readme-changed\n')
    return repo


def run_tool(repo: Path, server, *args: str, **env: str) -> subprocess.CompletedProcess:
    h = server.url
    return subprocess.run(
        [sys.executable, str(TOOLS / 'linkcheck_changed.py'), '--base', 'main',
         '--card-url', h + '/card/name/{name}', '--card-id-url', h + '/card/{id}',
         '--series-url', h + '/series?search={name}', '--faq-url', h + '/faq?fid={id}',
         '--delay', '0', '--timeout', '10',
         # the local server: a loopback address, which the tool refuses unless allowed
         '--allow-address', f'127.0.0.1:{server.server_address[1]}', *args],
        cwd=repo, env=clean_env(**env), capture_output=True, text=True, encoding='utf-8')


def test_selects_exactly_the_urls_of_added_and_changed_lines(repo, server):
    done = run_tool(repo, server, '--list')
    assert done.returncode == 0, done.stderr
    h = server.url
    assert sorted(done.stdout.splitlines()) == sorted([
        f'source/index.rst:5: {h}/ok',
        f'source/index.rst:8: {h}/missing',
        f'source/index.rst:9: {h}/faq?fid=19691',
        f'source/index.rst:10: {h}/old',
        f'source/index.rst:10: {h}/busy',
        f'source/sub/page.rst:4: {h}/missing',
        f'source/sub/page.rst:5: {h}/head-refused',
        f'cards.tsv:3: {h}/card/4711',
        f'cards.tsv:4: {h}/card/name/%E6%96%B0%E5%8D%A1',
        f'cards.tsv:6: {h}/series?search=%E6%96%B0%E7%B3%BB%E5%88%97',
    ])
    assert server.log == []  # --list requests nothing


def test_a_handbook_in_a_repository_of_its_own_is_checked_from_elsewhere(repo, server, tmp_path):
    """The pages in a git repository of their own, the tool run from another
    folder (this project's, as make runs it: an adopter's round trip, which
    was refused as "outside the git repository"): its changed lines, as from
    inside; a folder in no repository is said, with the way out."""
    inside = run_tool(repo, server, '--list')
    elsewhere = tmp_path / 'elsewhere'
    elsewhere.mkdir()
    h = server.url
    done = subprocess.run(
        [sys.executable, str(TOOLS / 'linkcheck_changed.py'), '--base', 'main', '--list',
         '--srcdir', str(repo / 'source'), '--confdir', str(repo),
         '--card-url', h + '/card/name/{name}', '--card-id-url', h + '/card/{id}',
         '--series-url', h + '/series?search={name}', '--faq-url', h + '/faq?fid={id}'],
        cwd=elsewhere, env=clean_env(), capture_output=True, text=True, encoding='utf-8')
    assert done.returncode == 0, done.stderr
    assert sorted(line.rsplit(': ', 1)[1] for line in done.stdout.splitlines()) == \
        sorted(line.rsplit(': ', 1)[1] for line in inside.stdout.splitlines())
    alone = subprocess.run(
        [sys.executable, str(TOOLS / 'linkcheck_changed.py'), '--base', 'main', '--list',
         '--srcdir', str(elsewhere), '--confdir', str(repo)],
        cwd=elsewhere, env=clean_env(), capture_output=True, text=True, encoding='utf-8')
    assert alone.returncode == 2
    assert alone.stderr == (f'make linkcheck-changed: SOURCEDIR {elsewhere} is in no git '
                            'repository: make linkcheck-changed checks the lines changed since '
                            'BASE in git; make linkcheck checks every link\n')


def test_reports_broken_links_at_their_lines_and_requests_nothing_else(repo, server):
    done = run_tool(repo, server)
    h = server.url
    new_card = f'{h}/card/name/%E6%96%B0%E5%8D%A1'
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        f'cards.tsv:4: error: broken link {new_card} (HTTP 404) [linkcheck.broken]',
        f'source/index.rst:8: error: broken link {h}/missing (HTTP 404) [linkcheck.broken]',
        f'source/index.rst:10: note: {h}/old redirects to {h}/ok (HTTP 301) '
        '[linkcheck.redirected]',
        f'source/sub/page.rst:4: error: broken link {h}/missing (HTTP 404) [linkcheck.broken]',
        'make linkcheck-changed: 9 links on changed lines: 6 working, 2 broken, 1 redirected',
    ]
    # each URL once, however often it was added: HEAD, GET only where HEAD
    # failed, the 429 retried after its Retry-After, the redirect followed
    assert sorted(server.log) == sorted([
        ('HEAD', '/ok'),
        ('HEAD', '/missing'), ('GET', '/missing'),
        ('HEAD', '/faq?fid=19691'),
        ('HEAD', '/old'), ('HEAD', '/ok'),
        ('HEAD', '/busy'), ('HEAD', '/busy'),
        ('HEAD', '/head-refused'), ('GET', '/head-refused'),
        ('HEAD', '/card/4711'),
        ('HEAD', '/card/name/%E6%96%B0%E5%8D%A1'), ('GET', '/card/name/%E6%96%B0%E5%8D%A1'),
        ('HEAD', '/series?search=%E6%96%B0%E7%B3%BB%E5%88%97'),
    ])


def test_github_annotations(repo, server):
    done = run_tool(repo, server, GITHUB_ACTIONS='true')
    h = server.url  # a message keeps its colons; % is escaped as %25
    annotations = [ln for ln in done.stdout.splitlines() if ln.startswith('::')]
    assert annotations == [
        f'::error file=cards.tsv,line=4,title=broken link::'
        f'{h}/card/name/%25E6%2596%25B0%25E5%258D%25A1 (HTTP 404)',
        f'::error file=source/index.rst,line=8,title=broken link::{h}/missing (HTTP 404)',
        f'::notice file=source/index.rst,line=10,title=redirected link::'
        f'{h}/old redirects to {h}/ok (HTTP 301)',
        f'::error file=source/sub/page.rst,line=4,title=broken link::{h}/missing (HTTP 404)',
    ]


def test_no_change_no_request(repo, server):
    git(repo, 'stash', '-q', '--include-untracked')
    git(repo, 'checkout', '-q', 'main')
    done = run_tool(repo, server)
    assert done.returncode == 0
    assert 'no external link on the lines changed since main' in done.stdout
    assert server.log == []


def test_unknown_base_is_a_usage_error(repo, server):
    done = run_tool(repo, server, '--base', 'origin/nowhere')
    assert done.returncode == 2
    assert 'origin/nowhere' in done.stderr
    assert server.log == []


def test_other_source_folder_and_a_legacy_registry(tmp_path, server):
    """SOURCEDIR and CARDS: pages elsewhere, a registry of link definitions."""
    h = server.url
    repo = tmp_path / 'other'
    repo.mkdir()
    git(repo, 'init', '-q', '-b', 'main')
    write(repo / 'pages/a.rst', 'A\n=\n')
    write(repo / 'source/b.rst', 'B\n=\n')
    write(repo / 'links.rst', f'.. _`旋风`: {h}/card/name/旋风\n')
    git(repo, 'add', '-A')
    git(repo, 'commit', '-q', '-m', 'base')
    write(repo / 'pages/a.rst', f'A\n=\n\n见 {h}/a 。\n++ {h}/plus\n')  # a line like a diff header
    write(repo / 'source/b.rst', f'B\n=\n\n见 {h}/b 。\n')
    write(repo / 'links.rst', f'.. _`旋风`: {h}/card/name/旋风\n.. _`黑洞`: {h}/card/name/黑洞\n')
    done = run_tool(repo, server, '--list', '--srcdir', 'pages', '--cards', 'links.rst')
    assert done.stdout.splitlines() == [f'links.rst:2: {h}/card/name/黑洞',
                                        f'pages/a.rst:4: {h}/a', f'pages/a.rst:5: {h}/plus']
    server.working |= {'/a', '/plus', '/card/name/%E9%BB%91%E6%B4%9E'}
    done = run_tool(repo, server, '--srcdir', 'pages', '--cards', 'links.rst')
    assert done.returncode == 0, done.stdout + done.stderr
    # requested as ASCII: the Chinese name percent-encoded
    assert server.log == [('HEAD', '/card/name/%E9%BB%91%E6%B4%9E'), ('HEAD', '/a'),
                          ('HEAD', '/plus')]


# -- the pieces -----------------------------------------------------------------------

def test_page_urls():
    t = changed.Templates(faq='https://faq.example/{id}')
    assert changed.page_urls('见 https://a.example/x。然后 http://b.example/y，完', t) == [
        'https://a.example/x', 'http://b.example/y']
    assert changed.page_urls('`名 <https://a.example/名字>`_, and (https://c.example/z).', t) == [
        'https://a.example/名字', 'https://c.example/z']
    assert changed.page_urls('https://wiki.example/A_(B) ok', t) == ['https://wiki.example/A_(B)']
    assert changed.page_urls('｜…\\ :ruling:`17/3/24 <faq:19691>` '
                             ':ruling:`18/1/2 <https://x.example/q?a=1&b=2>`', t) == [
        'https://x.example/q?a=1&b=2', 'https://faq.example/19691']
    assert changed.page_urls('no link: ftp://x.example 「旋风」', t) == []


def test_registry_url():
    t = changed.Templates()
    assert changed.registry_url('card\t旋风', False, t) == 'https://ygocdb.com/card/name/%E6%97%8B%E9%A3%8E'
    assert changed.registry_url('card\t王宫的铁壁\t4711', False, t) == 'https://ygocdb.com/card/4711'
    assert changed.registry_url('series\t星骑士', False, t) == 'https://ygocdb.com/?search=%E6%98%9F%E9%AA%91%E5%A3%AB'
    assert changed.registry_url('card\t某卡\t\thttps://x.example/某卡', False, t) == 'https://x.example/某卡'
    assert changed.registry_url('card\t真红眼黑龙\t\t\tzh_TW=真紅眼黑龍', False, t) == \
        'https://ygocdb.com/card/name/%E7%9C%9F%E7%BA%A2%E7%9C%BC%E9%BB%91%E9%BE%99'
    assert changed.registry_url('# kind\tname', False, t) is None
    assert changed.registry_url('', False, t) is None
    assert changed.registry_url('.. _`旋风`: https://x.example/旋风', True, t) == 'https://x.example/旋风'
    assert changed.registry_url('.. 注释', True, t) is None


def test_ascii_url_and_retry_after():
    assert changed.ascii_url('https://ygocdb.com/card/name/旋风?q=黑 洞#x') == \
        'https://ygocdb.com/card/name/%E6%97%8B%E9%A3%8E?q=%E9%BB%91%20%E6%B4%9E'
    assert changed.ascii_url('https://ygocdb.com/card/name/%E6%97%8B') == \
        'https://ygocdb.com/card/name/%E6%97%8B'
    assert changed.retry_after('7') == 7.0
    assert changed.retry_after('Wed, 21 Oct 2015 07:28:00 GMT') == 0.0  # in the past
    assert changed.retry_after('soon') is None
    assert changed.retry_after(None) is None


def test_rate_limit_beyond_the_bound_is_not_waited_for(server):
    waits = []
    checker = changed.Checker(timeout=5, delay=0, max_retry_after=60, sleep=waits.append,
                              allow=[('127.0.0.1', server.server_address[1])])
    result = checker.check(server.url + '/very-busy')
    assert (result.status, result.info) == ('unverified', 'HTTP 429, rate limited; Retry-After 3600 s')
    assert waits == []
    assert server.log == [('HEAD', '/very-busy')]


def test_delay_between_requests_to_one_host(server):
    waits = []
    checker = changed.Checker(timeout=5, delay=30, sleep=waits.append,
                              allow=[('127.0.0.1', server.server_address[1])])
    assert checker.check(server.url + '/ok').status == 'working'
    assert checker.check(server.url + '/busy').status == 'working'  # 429, 1 s, then 200
    assert len(waits) == 3 and all(w > 25 for w in (waits[0], waits[2])) and waits[1] == 1.0


# -- the weekly report ----------------------------------------------------------------

def output_json(path: Path, entries: list[dict]) -> Path:
    path.write_text(''.join(json.dumps(e) + '\n' for e in entries), encoding='utf-8')
    return path


ENTRIES = [
    {'filename': 'negation.rst', 'lineno': 41, 'status': 'broken', 'code': 0,
     'uri': 'https://ygocdb.com/card/99', 'info': '404 Client Error: Not Found for url: https://ygocdb.com/card/99'},
    {'filename': 'negation.rst', 'lineno': 12, 'status': 'working', 'code': 0,
     'uri': 'https://ygocdb.com/card/1', 'info': ''},
    {'filename': 'chain.rst', 'lineno': 7, 'status': 'timeout', 'code': 0,
     'uri': 'https://slow.example/a|b', 'info': 'Read timed out.'},
    {'filename': 'chain.rst', 'lineno': 9, 'status': 'redirected', 'code': 301,
     'uri': 'https://a.example/', 'info': 'https://b.example/'},
    {'filename': 'index.rst', 'lineno': 3, 'status': 'ignored', 'code': 0,
     'uri': 'https://c.example/', 'info': 'cached'},
]


def run_report(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOLS / 'linkcheck_report.py'), *args],
                          capture_output=True, text=True, encoding='utf-8',
                          env=env or clean_env())


def test_weekly_report_lists_broken_links_at_file_and_line(tmp_path):
    data = output_json(tmp_path / 'output.json', ENTRIES)
    gh_output = tmp_path / 'github_output'
    env = clean_env(GITHUB_SERVER_URL='https://github.com', GITHUB_REPOSITORY='o/r',
                    GITHUB_RUN_ID='42')
    done = run_report('--output-json', str(data), '--srcdir', 'source', '--body',
                      str(tmp_path / 'body.md'), '--github-output', str(gh_output),
                      '--make-outcome', 'failure', env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        'source/chain.rst:7: error: timed out https://slow.example/a|b (Read timed out.) '
        '[linkcheck.timeout]',
        'source/negation.rst:41: error: broken link https://ygocdb.com/card/99 '
        '(404 Client Error: Not Found for url: https://ygocdb.com/card/99) [linkcheck.broken]',
        'linkcheck report: 2 broken links',
    ]
    body = (tmp_path / 'body.md').read_text(encoding='utf-8')
    assert '**2 broken links** (2 distinct URLs)' in body
    assert '([the run](https://github.com/o/r/actions/runs/42))' in body
    rows = [ln for ln in body.splitlines() if ln.startswith('| `')]
    assert rows == [
        '| `source/chain.rst:7` | https://slow.example/a\\|b | timed out: Read timed out. |',
        '| `source/negation.rst:41` | https://ygocdb.com/card/99 | 404 Client Error: Not Found '
        'for url: https://ygocdb.com/card/99 |',
    ]
    out = gh_output.read_text(encoding='utf-8')
    m = re.fullmatch(r'broken=2\nbody<<(EOF_[0-9a-f]{32})\n(.*)\1\n', out, re.S)
    assert m and m[2] == body


def test_weekly_report_without_broken_links(tmp_path):
    data = output_json(tmp_path / 'output.json', [e for e in ENTRIES if e['status'] != 'broken'
                                                  and e['status'] != 'timeout'])
    gh_output = tmp_path / 'github_output'
    done = run_report('--output-json', str(data), '--github-output', str(gh_output),
                      '--make-outcome', 'success')
    assert done.returncode == 0
    assert gh_output.read_text(encoding='utf-8').startswith('broken=0\n')
    # make linkcheck failed, yet nothing is broken: the check itself failed
    assert run_report('--output-json', str(data), '--make-outcome', 'failure').returncode == 1
    assert run_report('--output-json', str(tmp_path / 'missing.json')).returncode == 2


def test_weekly_report_body_fits_an_issue():
    many = [{'filename': f'p{i:04}.rst', 'lineno': i, 'status': 'broken',
             'uri': f'https://x.example/{i}', 'info': 'x' * 300, 'path': f'source/p{i:04}.rst'}
            for i in range(2000)]
    text = report.body(many, max_chars=60000)
    assert len(text) <= 60000
    assert '**2000 broken links**' in text and 'more: see the run' in text


# -- make check-ci --------------------------------------------------------------------

PINNED = 'actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2'

GOOD = f"""\
name: example
on: pull_request
permissions: {{}}
jobs:
  check:
    name: check
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
      - uses: {PINNED}
        with:
          persist-credentials: false
      - run: make check
"""


def check_ci(*args: Path | str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(TOOLS / 'check_ci.py'), *map(str, args)],
                          capture_output=True, text=True, encoding='utf-8', cwd=ROOT,
                          env=clean_env())


def test_check_ci_passes_on_the_real_workflows():
    done = check_ci('--dependabot', ROOT / '.github' / 'dependabot.yml', WORKFLOWS)
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'No findings to report' in done.stdout


def test_check_ci_passes_on_a_good_example(tmp_path):
    write(tmp_path / 'good.yml', GOOD)
    done = check_ci(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_check_ci_fails_on_an_unpinned_action(tmp_path):
    write(tmp_path / 'unpinned.yml', GOOD.replace(PINNED, 'actions/checkout@v4'))
    done = check_ci(tmp_path)
    assert done.returncode == 1
    assert 'unpinned-uses' in done.stdout
    assert 'make check-ci: failed (zizmor)' in done.stdout


def test_check_ci_fails_on_write_all(tmp_path):
    write(tmp_path / 'write-all.yml', GOOD.replace('permissions: {}', 'permissions: write-all'))
    done = check_ci(tmp_path)
    assert done.returncode == 1
    assert 'excessive-permissions' in done.stdout and 'write-all' in done.stdout
    assert 'make check-ci: failed (zizmor)' in done.stdout


def test_check_ci_fails_on_template_injection(tmp_path):
    write(tmp_path / 'injection.yml',
          GOOD.replace('run: make check', 'run: echo "${{ github.event.pull_request.title }}"'))
    done = check_ci(tmp_path)
    assert done.returncode == 1
    assert 'template-injection' in done.stdout


def test_check_ci_fails_on_a_workflow_schema_error(tmp_path):
    write(tmp_path / 'typo.yml', GOOD.replace('    steps:', '    stepz:'))
    done = check_ci(tmp_path)
    assert done.returncode == 1
    assert "'stepz' was unexpected" in done.stdout
    assert 'workflow schema' in done.stdout


# -- the workflows, as the issue asks -------------------------------------------------

def workflow_texts() -> dict[str, str]:
    return {p.name: p.read_text(encoding='utf-8') for p in sorted(WORKFLOWS.glob('*.yml'))}


def test_every_action_is_pinned_to_a_commit_with_its_version():
    uses = [(name, ln.strip()) for name, text in workflow_texts().items()
            for ln in text.splitlines() if re.match(r'\s*(- )?uses:', ln)]
    assert uses
    for name, line in uses:
        assert re.fullmatch(r'(- )?uses: [\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+', line), \
            (name, line)


def without_comments(text: str) -> str:
    return re.sub(r'(^|\s)#.*$', '', text, flags=re.M)


def test_every_checkout_keeps_no_credentials_and_permissions_are_per_job():
    for name, text in workflow_texts().items():
        text = without_comments(text)
        assert text.count('actions/checkout@') == text.count('persist-credentials: false'), name
        assert re.search(r'^permissions: \{\}', text, re.M), name  # nothing at the top
        assert 'write-all' not in text and 'read-all' not in text, name
    pages = without_comments(workflow_texts()['pages.yml'])
    build, deploy = pages.split('\n  deploy:\n')
    assert 'pages: write' not in build and 'id-token: write' not in build
    assert 'pages: write' in deploy and 'id-token: write' in deploy
    linkcheck = without_comments(workflow_texts()['linkcheck.yml'])
    check_job, issue_job = linkcheck.split('\n  issue:\n')
    assert 'issues: write' not in check_job and 'issues: write' in issue_job
    assert 'actions/checkout' not in issue_job  # the writing job runs none of the repository's code


def test_no_expression_is_expanded_into_a_script():
    for name, text in workflow_texts().items():
        lines = text.splitlines()
        for i, line in enumerate(lines):
            m = re.match(r'(\s*)(- )?run:(.*)', line)
            if not m:
                continue
            indent = len(m[1]) + len(m[2] or '')
            script = [m[3]]
            for nxt in lines[i + 1:]:
                if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent:
                    break
                script.append(nxt)
            assert '${{' not in '\n'.join(script), (name, line)


def test_the_pull_request_workflow_checks_the_changed_links():
    text = workflow_texts()['pull-request.yml']
    assert 'BASE_REF: ${{ github.base_ref }}' in text
    assert 'make linkcheck-changed BASE="origin/${BASE_REF}"' in text
    weekly = workflow_texts()['linkcheck.yml']
    assert 'schedule:' in weekly and 'run: make linkcheck' in weekly
    assert 'actions/cache/restore@' in weekly and 'actions/cache/save@' in weekly
