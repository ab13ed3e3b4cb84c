"""Publishing: what is published, and how it looks where it is linked.

The test root ``publishing`` has four pages (one in ``sub/``) and two
redirects; the checks that concern the published site as a whole read the
real handbook as the suite builds it once (``handbook_build``, conftest.py),
for the address ``helpers.PUBLISHED``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit

import pytest

from conftest import ROOT
from helpers import PUBLISHED, assert_no_warnings, html, warnings

BASE = 'https://example.org/handbook/'
PAGES = ['english', 'index', 'renamed', 'sub/deep']
has_git = pytest.mark.skipif(shutil.which('git') is None, reason='git is not installed')


def meta(page: str) -> dict[str, str]:
    """``{property or name: content}`` of the page's meta tags."""
    return {m[1]: m[2] for m in re.findall(
        r'<meta (property|name)="([^"]+)" content="([^"]*)"', page)}


def last_updated(page: str) -> str:
    """The page's date (this root has no theme texts of ours: furo's English;
    tests/test_theme_texts.py checks the words)."""
    return re.search(r'<div class="last-updated">\s*(?:最后更新于|Last updated on) ([^<]*)</div>',
                     page)[1]


# -- sitemap and robots.txt ---------------------------------------------------------------

def sitemap(outdir: Path) -> list[str]:
    ns = {'s': 'http://www.sitemaps.org/schemas/sitemap/0.9'}
    return [loc.text for loc in ET.parse(outdir / 'sitemap.xml').findall('s:url/s:loc', ns)]


@pytest.mark.sphinx('html', testroot='publishing')
@pytest.mark.test_params(shared_result='publishing-publishing')
def test_sitemap_lists_every_page(app):
    app.build()
    assert_no_warnings(app)
    # every page once, sorted; not the 404, search and index pages, nor redirects
    assert sitemap(app.outdir) == [f'{BASE}{page}.html' for page in PAGES]
    assert (app.outdir / 'robots.txt').read_text(encoding='utf-8') == (
        f'User-agent: *\nAllow: /\n\nSitemap: {BASE}sitemap.xml\n')


@pytest.mark.sphinx('html', testroot='publishing',
                    srcdir='publishing-incremental')
def test_incremental_build_keeps_the_sitemap_complete(app):
    app.build()
    files = [app.outdir / 'sitemap.xml', app.outdir / 'robots.txt']
    dates = [(path.stat().st_ino, path.stat().st_mtime_ns) for path in files]
    page = app.srcdir / 'english.rst'
    page.write_text(page.read_text(encoding='utf-8') + '\nThird paragraph.\n', encoding='utf-8')
    app.build()  # rewrites english.html only
    assert 'Third paragraph.' in html(app, 'english')
    assert sitemap(app.outdir) == [f'{BASE}{page}.html' for page in PAGES]
    # the same pages, the same address: neither file is written again
    assert [(path.stat().st_ino, path.stat().st_mtime_ns) for path in files] == dates
    assert_no_warnings(app)


@pytest.mark.sphinx('html', testroot='publishing', confoverrides={'html_baseurl': 'docs/'})
def test_relative_baseurl_is_an_error(make_app, app_params):
    from sphinx.errors import ConfigError
    args, kwargs = app_params
    with pytest.raises(ConfigError, match=r"html_baseurl 'docs/' is not the address of the "
                                          r'published site; set an absolute http\(s\) URL'):
        make_app(*args, **kwargs)


# -- without the site's address ---------------------------------------------------------

def test_conf_py_names_no_address_of_its_own(monkeypatch):
    """conf.py's address is Read the Docs' where it builds, else none: never a
    default host such as localhost."""
    import runpy
    monkeypatch.delenv('READTHEDOCS_CANONICAL_URL', raising=False)
    assert runpy.run_path(str(ROOT / 'conf.py'))['html_baseurl'] == ''
    monkeypatch.setenv('READTHEDOCS_CANONICAL_URL', 'https://ocg.readthedocs.io/zh/latest/')
    assert runpy.run_path(str(ROOT / 'conf.py'))['html_baseurl'] == \
        'https://ocg.readthedocs.io/zh/latest/'


@pytest.mark.sphinx('html', testroot='publishing', srcdir='publishing-no-address',
                    confoverrides={'html_baseurl': ''})
def test_without_an_address_no_url_pretends_to_know_it(app, make_app):
    app.build()
    assert_no_warnings(app)
    for page in PAGES:
        text = html(app, page)
        assert 'rel="canonical"' not in text
        assert 'og:url' not in meta(text)
        assert meta(text)['og:title'] == TITLES[page]  # the rest of the preview stays
    assert not (app.outdir / 'sitemap.xml').exists()
    assert not (app.outdir / 'robots.txt').exists()
    # the 404 page's links start at the root of the host
    assert '<a href="/index.html">目录</a>' in html(app, '404')
    found = [p.name for p in app.outdir.rglob('*') if p.is_file() and p.suffix in (
        '.html', '.xml', '.txt', '.js', '.json') and b'example.org' in p.read_bytes()]
    assert found == []


@pytest.mark.sphinx('html', testroot='publishing', srcdir='publishing-address-dropped')
def test_a_build_without_the_address_removes_the_files_that_named_it(app, make_app, app_params):
    app.build()
    assert (app.outdir / 'sitemap.xml').is_file() and (app.outdir / 'robots.txt').is_file()
    args, kwargs = app_params
    again = make_app(*args, **{**kwargs, 'confoverrides': {'html_baseurl': ''}})
    again.build()
    assert not (app.outdir / 'sitemap.xml').exists()
    assert not (app.outdir / 'robots.txt').exists()
    assert 'rel="canonical"' not in html(again, 'index')


# -- link previews -----------------------------------------------------------------------

DESCRIPTIONS = {
    # the comment, the admonition and the title are not the text; the line
    # break after ； joins without a space
    'index': '本手册整理规则与裁定。每条裁定后注明日期；章节之间互相引用。',
    # the ruling date is left out; a line without a full stop gets a space;
    # the fourth line does not fit and is left out whole
    'renamed': '这一行是第一句。第二行没有句号 第三行。',
    'english': 'A preview reads as prose. Lines of a paragraph join with a space. '
               'Second paragraph.',
    # one sentence longer than 160 columns: cut at 79 Chinese characters
    'sub/deep': ('这是一个很长的句子，' * 8)[:79] + '…',
}
TITLES = {'index': '测试手册', 'renamed': '改名后的页面', 'english': 'Latin text',
          'sub/deep': '深一层的页'}


@pytest.mark.sphinx('html', testroot='publishing')
@pytest.mark.test_params(shared_result='publishing-publishing')
def test_every_page_has_a_link_preview(app):
    app.build()
    assert_no_warnings(app)
    for page in PAGES:
        tags = meta(html(app, page))
        assert tags['og:title'] == TITLES[page]
        assert tags['og:description'] == DESCRIPTIONS[page]
        assert tags['description'] == DESCRIPTIONS[page]
        assert tags['og:url'] == f'{BASE}{page}.html'
        assert tags['og:site_name'] == '测试手册'
        assert tags['twitter:card'] == 'summary'
        assert f'<link rel="canonical" href="{BASE}{page}.html"' in html(app, page)
        assert 'og:image' not in tags


@pytest.mark.sphinx('html', testroot='publishing',
                    srcdir='publishing-own-description')
def test_page_keeps_its_own_description(app):
    page = app.srcdir / 'english.rst'
    page.write_text(':og:description: Written by hand, with "quotes" & more.\n\n'
                    + page.read_text(encoding='utf-8'), encoding='utf-8')
    app.build()
    assert_no_warnings(app)
    tags = meta(html(app, 'english'))
    assert tags['og:description'] == tags['description'] == (
        'Written by hand, with &quot;quotes&quot; &amp; more.')


@pytest.mark.sphinx('html', testroot='publishing',
                    srcdir='publishing-own-meta-description')
def test_a_pages_own_meta_description_is_its_only_one(app):
    """``.. meta:: :description:``: docutils writes it, and the page had a
    second one of ours (a hostile-input round trip).  Its own alone, and its
    link preview's too."""
    page = app.srcdir / 'english.rst'
    page.write_text(page.read_text(encoding='utf-8')
                    + '\n.. meta::\n   :description lang=zh-CN: 自己的 & 描述\n', encoding='utf-8')
    app.build()
    assert_no_warnings(app)
    text = html(app, 'english')
    assert len(re.findall(r'name="description"', text)) == 1
    assert re.search(r'<meta content="自己的 &amp; 描述" lang="zh-CN" name="description"', text)
    assert meta(text)['og:description'] == '自己的 &amp; 描述'


def test_description_leaves_out_what_is_not_prose():
    from docutils import nodes
    from docutils.utils import new_document

    from handbook.publishing.link_previews import describe
    doc = new_document('page.rst')
    section = nodes.section('', nodes.title('', '标题'))
    # | :strike:`不能发动。`\ :ruling:`17/3/24` 裁定变更：可以发动。 (and its permalink)
    line = nodes.line('', '', nodes.inline('', '不能发动。', classes=['strike']),
                      nodes.inline('', '17/3/24', classes=['ruling']),
                      nodes.Text(' 裁定变更：可以发动。'),
                      nodes.reference('', '¶', classes=['headerlink'], refuri='#x'))
    section += nodes.line_block('', line)
    doc += section
    assert describe(doc, 160) == '裁定变更：可以发动。'
    # a yearly FAQ page's source header; the spaces beside a date between Chinese
    # words; where a listing's ruling is (页面 › 小节 · 固定链接)
    header = nodes.line('', '邮件：')
    header['ruling_source_header'] = True
    date = nodes.inline('', '17/3/24', classes=['ruling'])
    dated = nodes.line('', '', nodes.Text('「地缚神」怪兽'), date, nodes.Text(' 和「罪」怪兽被破坏。'))
    where = nodes.paragraph('', '2021 › 1/5 · 固定链接', classes=['ruling-entry-source'])
    doc = new_document('faq.rst')
    doc += [nodes.line_block('', header, dated), where]
    assert describe(doc, 160) == '「地缚神」怪兽和「罪」怪兽被破坏。'
    # a page of tables of contents alone: the titles they list first
    doc = new_document('index.rst')
    toc = nodes.compound(classes=['toctree-wrapper'])
    inner = nodes.bullet_list('', nodes.list_item('', nodes.paragraph('', '小节')))
    toc += nodes.bullet_list('', *(nodes.list_item('', nodes.paragraph('', title), inner.deepcopy())
                                   for title in ('第一章', '2021')))
    doc += toc
    assert describe(doc, 160) == '第一章、2021'


def test_description_width():
    from handbook.publishing.link_previews import sentences, width
    assert width('裁定') == 4
    assert width('OCG 裁定') == 8
    assert sentences('第一句。第二句！「第三」句？」 Last. one') == [
        '第一句。', '第二句！', '「第三」句？」', 'Last.', 'one']


# -- the 404 page ------------------------------------------------------------------------

@pytest.mark.sphinx('html', testroot='publishing')
@pytest.mark.test_params(shared_result='publishing-publishing')
def test_404_page_offers_search_and_the_contents(app):
    app.build()
    assert_no_warnings(app)
    page = html(app, '404')
    # absolute paths under the site's folder: right at any depth of a missing URL
    assert '<form class="not-found-search" action="/handbook/search.html" method="get"' in page
    assert '<input type="search" name="q"' in page
    assert '<a href="/handbook/index.html">目录</a>' in page
    # no card index: this handbook has none (a reader's round trip: its link was a 404);
    # the handbook's own 404 page offers its card index (test_handbook_sitemap_and_previews)
    assert '卡片索引' not in page and '或者从目录找起' in page
    assert '<title>找不到页面' in page
    assert '<meta name="robots" content="noindex" />' in page
    stylesheets = re.findall(r'<link rel="stylesheet" type="text/css" href="([^"]+)"', page)
    assert stylesheets and all(s.startswith('/handbook/_static/') for s in stylesheets)
    # the root its scripts (the search box's index, the readers' tools) load from
    assert '<html class="no-js" lang="zh-CN" data-content_root="/handbook/">' in page


# -- page dates --------------------------------------------------------------------------

def set_mtime(path: Path, iso: str) -> None:
    stamp = datetime.fromisoformat(iso).timestamp()
    os.utime(path, (stamp, stamp))


@pytest.mark.sphinx('html', testroot='publishing',
                    srcdir='publishing-no-git')
def test_page_date_outside_git_is_the_file_date(app):
    # the test root is copied outside any git work tree
    set_mtime(app.srcdir / 'index.rst', '2024-03-17T00:30:00+08:00')  # 16 March in UTC
    app.build()
    assert_no_warnings(app)
    page = html(app)
    assert last_updated(page) == '2024-03-17'
    assert meta(page)['article:modified_time'] == '2024-03-17T00:30:00+08:00'


def git(folder: Path, *args: str, date: str = '2023-05-06T23:30:00+00:00') -> None:
    env = {**os.environ, 'GIT_AUTHOR_DATE': date, 'GIT_COMMITTER_DATE': date,
           'GIT_AUTHOR_NAME': 't', 'GIT_AUTHOR_EMAIL': 't@example.org',
           'GIT_COMMITTER_NAME': 't', 'GIT_COMMITTER_EMAIL': 't@example.org'}
    subprocess.run(['git', '-c', 'init.defaultBranch=main', *args], cwd=folder, env=env,
                   check=True, capture_output=True)


@has_git
def test_page_date_from_git_and_untracked_fallback(make_app, rootdir, tmp_path):
    src = tmp_path / 'src'
    shutil.copytree(rootdir / 'test-publishing', src)
    git(src, 'init', '-q')
    git(src, 'add', 'index.rst', 'conf.py')
    git(src, 'commit', '-q', '-m', 'first')
    set_mtime(src / 'renamed.rst', '2024-03-17T12:00:00+08:00')  # not committed
    app = make_app('html', srcdir=src)
    app.build()
    assert_no_warnings(app)
    assert last_updated(html(app)) == '2023-05-07'  # the commit, in Asia/Shanghai
    assert meta(html(app))['article:modified_time'] == '2023-05-07T07:30:00+08:00'
    assert last_updated(html(app, 'renamed')) == '2024-03-17'


@has_git
def test_page_date_in_a_shallow_clone(make_app, rootdir, tmp_path):
    origin = tmp_path / 'origin'
    shutil.copytree(rootdir / 'test-publishing', origin)
    git(origin, 'init', '-q')
    git(origin, 'add', '.')
    git(origin, 'commit', '-q', '-m', 'all pages', date='2022-01-01T00:00:00+00:00')
    for page, date in (('english.rst', '2023-01-01T00:00:00+00:00'),
                       ('index.rst', '2023-05-06T23:30:00+00:00')):
        with (origin / page).open('a', encoding='utf-8') as f:
            f.write('\n后来加的一句。\n')
        git(origin, 'commit', '-q', '-am', f'change {page}', date=date)
    clone = tmp_path / 'clone'
    git(tmp_path, 'clone', '-q', '--depth', '2', f'file://{origin}', str(clone))
    set_mtime(clone / 'renamed.rst', '2024-03-17T12:00:00+08:00')
    app = make_app('html', srcdir=clone)
    app.build()
    # renamed.rst last changed before the clone's history begins: no
    # git.too_shallow warning, the file's date instead
    assert_no_warnings(app)
    assert last_updated(html(app)) == '2023-05-07'
    assert last_updated(html(app, 'renamed')) == '2024-03-17'


@has_git
def test_a_missing_image_is_said_once_at_its_line(make_app, rootdir, tmp_path):
    """A missing image in a page in git: Sphinx says it at its line, and
    sphinx-last-updated-by-git said it again at the page's line 1, naming a
    PosixPath (a CI maintainer's round trip)."""
    src = tmp_path / 'src'
    shutil.copytree(rootdir / 'test-publishing', src)
    with (src / 'index.rst').open('a', encoding='utf-8') as page:
        page.write('\n.. image:: img/nope.png\n')
    git(src, 'init', '-q')
    git(src, 'add', '.')
    git(src, 'commit', '-q', '-m', 'first')
    app = make_app('html', srcdir=src)
    app.build()
    assert [w.split(': ', 1)[1] for w in warnings(app)] == [
        'WARNING: image file not readable: img/nope.png [image.not_readable]']


# -- redirects ---------------------------------------------------------------------------

def redirect_target(app, old: str) -> str:
    """Where the redirect page of ``old`` sends the browser, as an output path."""
    page = (app.outdir / f'{old}.html').read_text(encoding='utf-8')
    refresh = re.search(r'<meta http-equiv="refresh" content="0; url=([^"]+)"', page)[1]
    script = re.search(r'var target = "([^"]+)"', page)[1]
    assert refresh == script
    return urlsplit(urljoin(f'{BASE}{old}.html', refresh)).path.removeprefix('/handbook/')


@pytest.mark.sphinx('html', testroot='publishing')
@pytest.mark.test_params(shared_result='publishing-publishing')
def test_old_url_lands_on_the_new_page(app):
    app.build()
    assert_no_warnings(app)
    for old in ('old-name', 'sub/moved'):
        target = redirect_target(app, old)
        assert target == 'renamed.html'
        assert '<h1>改名后的页面' in (app.outdir / target).read_text(encoding='utf-8')


@pytest.mark.sphinx('html', testroot='publishing', srcdir='publishing-bad-redirects')
def test_bad_redirects_warn(make_app, app_params):
    args, kwargs = app_params
    conf = kwargs['srcdir'] / 'conf.py'
    conf.write_text(conf.read_text(encoding='utf-8') + (
        'redirects = {\n'                      # line 18 of conf.py
        "    'english': 'renamed.html',\n"    # still a page
        "    'gone': 'missing.html',\n"        # no such page
        "    'sub/gone': 'renamed.html',\n"    # relative to sub/: sub/renamed.html
        '}\n'), encoding='utf-8')
    app = make_app(*args, **kwargs)
    app.build()
    assert warnings(app) == [
        "conf.py:19: WARNING: redirect 'english': 'english' is a page; the redirect would "
        'overwrite it. Remove the redirect from redirects in conf.py, or the page '
        '[handbook.redirect]',
        "conf.py:20: WARNING: redirect 'gone' -> 'missing.html': the target is not a page "
        "of the handbook; write the new page's name with '.html', relative to the old page "
        '[handbook.redirect]',
        "conf.py:21: WARNING: redirect 'sub/gone' -> 'renamed.html': the target is not a "
        "page of the handbook; write the new page's name with '.html', relative to the old "
        'page [handbook.redirect]',
    ]


# -- nothing loads from another host -------------------------------------------------------

EXTERNAL = re.compile(r'^(?:[a-z][a-z0-9+.-]*:)?//', re.I)  # http://, https://, //host
#: <link rel> values that make the browser fetch the linked file
FETCHED_RELS = {'stylesheet', 'preload', 'modulepreload', 'prefetch', 'icon',
                'shortcut', 'apple-touch-icon', 'manifest', 'import'}


class _Loads(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[tuple[str, str]] = []
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or '' for k, v in attrs}
        if tag == 'link' and FETCHED_RELS & set(a.get('rel', '').lower().split()):
            self.urls.append((f'<link rel="{a["rel"]}">', a.get('href', '')))
        for attr in ('src', 'srcset', 'data', 'poster'):
            if attr in a and tag != 'a':
                self.urls.append((f'<{tag} {attr}>', a[attr]))
        if 'style' in a:
            self.styles.append(a['style'])
        self._in_style = tag == 'style'

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)


def css_urls(css: str) -> list[str]:
    """The targets of ``url(…)`` and ``@import`` in a stylesheet."""
    found = re.findall(r'url\(\s*(?:"([^"]*)"|\'([^\']*)\'|([^)]*))\s*\)', css)
    found += re.findall(r'@import\s+(?:"([^"]*)"|\'([^\']*)\'|())', css)
    return [next(u for u in groups if u) if any(groups) else '' for groups in found]


def external_loads(outdir: Path) -> list[str]:
    """Every URL on another host that a built page or stylesheet would load."""
    found = []
    for path in sorted(outdir.rglob('*.html')):
        parser = _Loads()
        parser.feed(path.read_text(encoding='utf-8'))
        urls = list(parser.urls) + [('style', u) for s in parser.styles for u in css_urls(s)]
        found += [f'{path.relative_to(outdir)}: {what} {url}' for what, url in urls
                  if any(EXTERNAL.match(u.strip().split(' ')[0]) for u in url.split(','))]
    for path in sorted(outdir.rglob('*.css')):
        found += [f'{path.relative_to(outdir)}: {url}' for url in
                  css_urls(path.read_text(encoding='utf-8')) if EXTERNAL.match(url.strip())]
    return found


def test_external_loads_are_found(tmp_path):
    """The scan itself: it finds what it is meant to find."""
    (tmp_path / 'a.html').write_text(
        '<script src="https://cdn.example.org/x.js"></script>'
        '<link rel="stylesheet" href="//fonts.example.org/css">'
        '<link rel="canonical" href="https://example.org/a.html">'
        '<a href="https://ygocdb.com/">ok</a><img src="_static/local.png">'
        '<style>body{background:url("https://example.org/bg.png")}</style>', encoding='utf-8')
    (tmp_path / 'b.css').write_text(
        "@import 'https://fonts.example.org/font.css';"
        ".x{background:url('data:image/svg+xml;charset=utf-8,<svg xmlns=\"http://www.w3.org/2000/svg\"/>')}"
        '.y{src:url(https://example.org/font.woff2)}', encoding='utf-8')
    assert external_loads(tmp_path) == [
        'a.html: <script src> https://cdn.example.org/x.js',
        'a.html: <link rel="stylesheet"> //fonts.example.org/css',
        'a.html: style https://example.org/bg.png',
        'b.css: https://example.org/font.woff2',
        'b.css: https://fonts.example.org/font.css',
    ]


@pytest.mark.sphinx('html', testroot='publishing')
@pytest.mark.test_params(shared_result='publishing-publishing')
def test_test_root_loads_nothing_from_other_hosts(app):
    app.build()
    assert_no_warnings(app)
    assert len(list(app.outdir.rglob('*.html'))) >= 9  # pages, redirects, 404, search, index
    assert external_loads(app.outdir) == []


#: the address ``handbook_build`` is built for (an address with a folder, as
#: on GitHub Pages, is the test root's ``BASE``)
HANDBOOK_BASE = PUBLISHED


@pytest.fixture
def handbook(handbook_build) -> Path:
    """The real handbook's site, as the suite builds it once (conftest.py)."""
    return handbook_build.html


def test_handbook_loads_nothing_from_other_hosts(handbook):
    assert external_loads(handbook) == []


def test_handbook_sitemap_and_previews(handbook):
    pages = sorted(p.relative_to(ROOT / 'source').with_suffix('').as_posix()
                   for p in (ROOT / 'source').rglob('*.rst'))
    cards = [p.relative_to(handbook).as_posix() for p in (handbook / 'cards').glob('*.html')]
    assert len(cards) > 900  # a page per card the handbook links
    # the pages of the timeline's years and of the card index's initials
    parts = [p.relative_to(handbook).as_posix() for folder in ('timeline', 'card-index')
             for p in (handbook / folder).glob('*.html')]
    assert len(parts) > 20
    assert sitemap(handbook) == sorted([f'{HANDBOOK_BASE}{page}.html' for page in pages]
                                       + [f'{HANDBOOK_BASE}{quote(card)}' for card in cards + parts])
    for part in parts:
        tags = meta((handbook / part).read_text(encoding='utf-8'))
        assert tags['og:url'] == f'{HANDBOOK_BASE}{part}'
        assert tags['og:title'].startswith(('裁定时间线：', '卡片索引：'))
        assert len(tags['og:description']) >= 10 and tags['og:description'] != tags['og:title']
    for page in pages:
        text = (handbook / f'{page}.html').read_text(encoding='utf-8')
        tags = meta(text)
        title = re.search(r'<h1>(.*?)<a class="headerlink"', text)[1]
        assert tags['og:title'] == re.sub(r'<[^>]+>', '', title)
        assert len(tags['og:description']) >= 20, page
        assert tags['og:description'] != tags['og:title']
        assert re.fullmatch(r'\d{4}-\d{2}-\d{2}', last_updated(text)), page
    assert (f'<a href="{urlsplit(HANDBOOK_BASE).path}card-index.html">卡片索引</a>'
            in (handbook / '404.html').read_text(encoding='utf-8'))
    assert (handbook / 'robots.txt').read_text(encoding='utf-8').endswith(
        f'Sitemap: {HANDBOOK_BASE}sitemap.xml\n')
