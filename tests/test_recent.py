"""最近更新 and feed.xml: each ruling dated by git blame of its lines (the
file's date where git cannot say), grouped by date, newest first; the feed is
valid Atom with the same rulings; blame runs only for the pages read again.

The tests copy tests/roots/test-recent into a temporary git repository and
commit its pages with fixed author dates (:func:`history`)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from pathlib import Path

import pytest
from helpers import PUBLISHED, PagesWritten, assert_no_warnings, warnings

TEST_ROOT = Path(__file__).resolve().parent / 'roots' / 'test-recent'
A = '{http://www.w3.org/2005/Atom}'
BASE = 'https://example.org/handbook/'
R = 'rulings.html#'

#: the author dates of the three commits of :func:`history` (2024-03-05 18:00
#: UTC is March 6th in Asia/Shanghai)
FIRST, SECOND, THIRD = ('2021-01-01T10:00:00+08:00', '2024-03-05T12:00:00+00:00',
                        '2024-03-05T18:00:00+00:00')
#: the modification time given to files where git cannot date a line
FILE_TIME = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc).timestamp()

#: the rulings dated by the third commit: three in one line (one of them
#: edited), and a ruling whose first line (no date on it) was edited
THIRD_COMMIT = [R + 'ruling-2017-12-22-旋风', R + 'ruling-2018-01-13-神之宣告',
                R + 'ruling-2018-01-14-王宫的铁壁', R + 'ruling-2016-11-26-王宫的铁壁']
SECOND_COMMIT = [R + 'ruling-2017-07-28-神之宣告']
#: unchanged since the first commit, in reading order: an overturned ruling,
#: the ruling that replaced it, a text the feed must escape, the sub page
FIRST_COMMIT = [R + 'ruling-2017-03-24-旋风', R + 'ruling-2017-03-24-神之宣告',
                R + 'ruling-2020-01-13', R + 'ruling-2018-02-02-旋风',
                'sub/page.html#ruling-2019-05-01-旋风']
HISTORY = [('2024 年 3 月 6 日', THIRD_COMMIT), ('2024 年 3 月 5 日', SECOND_COMMIT),
           ('2021 年 1 月 1 日', FIRST_COMMIT)]
UPDATED = (['2024-03-06T02:00:00+08:00'] * 4 + ['2024-03-05T20:00:00+08:00']
           + ['2021-01-01T10:00:00+08:00'] * 5)
OVERTURNED = R + 'ruling-2017-03-24-神之宣告'


# -- a repository with history ----------------------------------------------------------------

def git(repo: Path, *args: str, date: str | None = None) -> str:
    env = {**os.environ, 'GIT_CONFIG_NOSYSTEM': '1', 'GIT_CONFIG_GLOBAL': os.devnull}
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    run = subprocess.run(['git', '-c', 'user.name=Editor', '-c', 'user.email=editor@example.org',
                          '-c', 'commit.gpgsign=false', '-c', 'init.defaultBranch=main', *args],
                         cwd=repo, env=env, capture_output=True, text=True, check=True)
    return run.stdout


def commit(repo: Path, date: str) -> None:
    git(repo, 'add', '-A')
    git(repo, 'commit', '-q', '-m', f'edit of {date}', date=date)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding='utf-8')
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new), encoding='utf-8')


def copy_root(folder: Path) -> Path:
    shutil.copytree(TEST_ROOT, folder)
    (folder / '.gitignore').write_text('_build/\n', encoding='utf-8')
    return folder


def touch(folder: Path) -> None:
    """Give every page the modification time :data:`FILE_TIME`."""
    for path in folder.rglob('*.rst'):
        os.utime(path, (FILE_TIME, FILE_TIME))


def history(folder: Path) -> Path:
    """The test root in a git repository: committed whole, then a line edited,
    then two more lines (see :data:`HISTORY`)."""
    repo = copy_root(folder)
    git(repo, 'init', '-q')
    commit(repo, FIRST)
    edit(repo / 'rulings.rst', '第二条。', '第二条，改。')
    commit(repo, SECOND)
    edit(repo / 'rulings.rst', '甲。', '甲，改。')
    edit(repo / 'rulings.rst', '段落第一行，', '段落第一行（改），')
    commit(repo, THIRD)
    return repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return history(tmp_path / 'src')


# -- what the build wrote ---------------------------------------------------------------------

def days(outdir: Path, docname: str = 'recent') -> list[tuple[str, list[str]]]:
    """``(date title, [permalink of each entry])`` of the page, in order."""
    page = (outdir / f'{docname}.html').read_text(encoding='utf-8')
    found = []
    for day in re.split(r'<section class="recent-rulings-day" id="d[\d-]+">', page)[1:]:
        title = re.search(r'<h2>(.*?)<a class="headerlink"', day)[1]
        found.append((title, re.findall(
            r'href="([^"]*)"><span class="ruling-entry-permalink">', day)))
    return found


def feed(outdir: Path) -> ET.Element:
    """The feed, parsed; the elements Atom requires checked (RFC 4287)."""
    root = ET.fromstring((outdir / 'feed.xml').read_bytes())
    assert root.tag == A + 'feed'
    for required in ('id', 'title', 'updated'):
        assert len(root.findall(A + required)) == 1, required
    assert root.find(f'{A}author/{A}name').text
    for entry in root.findall(A + 'entry'):
        for required in ('id', 'title', 'updated', 'content'):
            assert len(entry.findall(A + required)) == 1, required
        link, = entry.findall(A + 'link')
        assert link.get('rel') == 'alternate'
        assert link.get('href') == entry.find(A + 'id').text
        datetime.fromisoformat(entry.find(A + 'updated').text)  # RFC 3339
    return root


def entries(outdir: Path, base: str = BASE) -> list[str]:
    """The permalinks of the feed's entries, relative to the site."""
    return [entry.find(A + 'id').text.removeprefix(base)
            for entry in feed(outdir).findall(A + 'entry')]


def head_link(page: str) -> str | None:
    found = re.findall(r'<link rel="alternate" type="application/atom\+xml" '
                       r'title="[^"]*" href="([^"]*)" />', page)
    assert len(found) <= 1
    return found[0] if found else None


# -- the tests --------------------------------------------------------------------------------

def test_rulings_dated_by_their_lines(repo, make_app):
    app = make_app('html', srcdir=repo)
    app.build()
    assert_no_warnings(app)
    assert days(app.outdir) == HISTORY
    page = (app.outdir / 'recent.html').read_text(encoding='utf-8')
    assert ('<p class="recent-rulings-summary">最近改动的 10 条裁定，按改动的日期从新到旧。 '
            '<a class="recent-rulings-feed reference external" href="feed.xml">订阅（Atom）</a>'
            '</p>') in page
    # an entry as on the timeline: text with its links, page › section, permalink
    assert ('<p class="ruling-entry-source"><a class="reference internal" href="sub/page.html">'
            'Sub page</a> › <a class="reference internal" href="sub/page.html#section">Section</a>'
            ' · <a class="reference internal" href="sub/page.html#ruling-2019-05-01-旋风">') in page
    assert '<del class="strike">不能发动。</del>' in page


def test_the_feed(repo, make_app):
    app = make_app('html', srcdir=repo)
    app.build()
    root = feed(app.outdir)
    assert root.get('{http://www.w3.org/XML/1998/namespace}lang') == 'zh-CN'
    assert root.find(A + 'id').text == BASE + 'feed.xml'
    assert root.find(A + 'title').text == 'Project name not set · 最近更新'
    assert root.find(A + 'updated').text == '2024-03-06T02:00:00+08:00'
    assert [(link.get('rel'), link.get('href')) for link in root.findall(A + 'link')] == [
        ('self', BASE + 'feed.xml'), ('alternate', BASE + 'recent.html')]
    # the same rulings as the page, in its order, with their dates
    assert entries(app.outdir) == THIRD_COMMIT + SECOND_COMMIT + FIRST_COMMIT
    found = root.findall(A + 'entry')
    assert [e.find(A + 'updated').text for e in found] == UPDATED
    by_id = {e.find(A + 'id').text.removeprefix(BASE): e for e in found}
    # the text, the cards, the dates as written and the page, escaped and read back
    escaped = by_id[R + 'ruling-2018-02-02-旋风']
    assert escaped.find(A + 'title').text == '「旋风」对 <b> & "引号" 的处理。'
    assert escaped.find(A + 'content').text == '「旋风」对 <b> & "引号" 的处理。（18/2/2）\nRulings'
    assert [c.get('term') for c in escaped.findall(A + 'category')] == ['旋风']
    assert '对 &lt;b&gt; &amp; "引号" 的处理' in (app.outdir / 'feed.xml').read_text('utf-8')
    sub = by_id['sub/page.html#ruling-2019-05-01-旋风']
    assert sub.find(A + 'content').text == '「旋风」子页面。（19/5/1）\nSub page › Section'
    # flagged as on the page: overturned (its plain text would read as current), or
    # changed; the replacement names no card, and is the card's of the sentence before it
    overturned = by_id[OVERTURNED]
    assert overturned.find(A + 'title').text == '【已推翻】「神之宣告」不能发动。'
    replacement = by_id[R + 'ruling-2020-01-13']
    assert replacement.find(A + 'content').text == '【裁定已变更】裁定变更：可以发动。（20/1/13）\nRulings'
    assert [c.get('term') for c in replacement.findall(A + 'category')] == ['神之宣告']
    # linked from every page's head, at any depth
    assert head_link((app.outdir / 'index.html').read_text('utf-8')) == 'feed.xml'
    assert head_link((app.outdir / 'sub/page.html').read_text('utf-8')) == '../feed.xml'


def test_long_text_is_shortened_in_the_title(tmp_path, make_app):
    src = copy_root(tmp_path / 'src')
    edit(src / 'sub/page.rst', '子页面。', '子页面' + '很长' * 30 + '。')
    app = make_app('html', srcdir=src)
    app.build()
    entry = next(e for e in feed(app.outdir).findall(A + 'entry')
                 if e.find(A + 'id').text == BASE + 'sub/page.html#ruling-2019-05-01-旋风')
    title = entry.find(A + 'title').text
    assert title == '「旋风」子页面' + '很长' * 21 + '…'
    assert len(title) == 50


def test_how_many(repo, make_app):
    app = make_app('html', srcdir=repo, confoverrides={'handbook_recent_rulings': 3})
    app.build()
    assert days(app.outdir) == [('2024 年 3 月 6 日', THIRD_COMMIT[:3])]
    assert entries(app.outdir) == THIRD_COMMIT[:3]


def test_current_edition_leaves_overturned_rulings_out(repo, make_app):
    app = make_app('html', srcdir=repo, tags=['current'])
    app.build()
    assert_no_warnings(app)
    first = [link for link in FIRST_COMMIT if link != OVERTURNED]
    assert days(app.outdir) == [*HISTORY[:2], ('2021 年 1 月 1 日', first)]
    assert entries(app.outdir, BASE + 'current/') == THIRD_COMMIT + SECOND_COMMIT + first
    assert 'ruling-2017-03-24-神之宣告' not in (app.outdir / 'recent.html').read_text('utf-8')
    assert '不能发动' not in (app.outdir / 'feed.xml').read_text('utf-8')


def test_file_date_where_git_cannot_say(repo, make_app):
    # an edit not committed yet, and a page git does not track
    edit(repo / 'sub/page.rst', '子页面。', '子页面，未提交。')
    (repo / 'sub/new.rst').write_text('New\n===\n\n| 新页面。\\ :ruling:`21/2/2`\n',
                                      encoding='utf-8')
    edit(repo / 'index.rst', '   sub/page\n', '   sub/page\n   sub/new\n')
    touch(repo)
    app = make_app('html', srcdir=repo)
    app.build()
    assert_no_warnings(app)
    uncommitted = ['sub/page.html#ruling-2019-05-01-旋风', 'sub/new.html#ruling-2021-02-02']
    assert days(app.outdir) == [('2025 年 6 月 1 日', uncommitted), *HISTORY[:2],
                                ('2021 年 1 月 1 日', FIRST_COMMIT[:-1])]


def test_file_date_outside_git(tmp_path, make_app):
    src = copy_root(tmp_path / 'src')
    touch(src)
    app = make_app('html', srcdir=src)
    app.build()
    assert_no_warnings(app)
    assert days(app.outdir) == [('2025 年 6 月 1 日', [
        R + 'ruling-2017-03-24-旋风', R + 'ruling-2017-07-28-神之宣告', *THIRD_COMMIT[:3],
        *FIRST_COMMIT[1:4], THIRD_COMMIT[3], FIRST_COMMIT[4]])]


def test_file_date_in_a_shallow_clone(repo, tmp_path, make_app):
    """A clone of the last two commits: the second is the cut, and its lines
    (and the first commit's, which git blames on it) get the file's date; so
    does the ruling over two lines, one of them from the third commit."""
    clone = tmp_path / 'clone'
    git(tmp_path, 'clone', '-q', '--depth', '2', f'file://{repo}', str(clone))
    assert git(clone, 'rev-parse', '--is-shallow-repository').strip() == 'true'
    touch(clone)
    app = make_app('html', srcdir=clone)
    app.build()
    assert_no_warnings(app)
    assert days(app.outdir) == [
        ('2025 年 6 月 1 日', [R + 'ruling-2017-03-24-旋风', R + 'ruling-2017-07-28-神之宣告',
                              *FIRST_COMMIT[1:4], THIRD_COMMIT[3], FIRST_COMMIT[4]]),
        ('2024 年 3 月 6 日', THIRD_COMMIT[:3])]


def test_included_rulings_dated_by_their_file(repo, make_app):
    (repo / 'sub/part.inc').write_text('| 「`神之宣告`_」包含的文件。\\ :ruling:`22/2/2`\n',
                                       encoding='utf-8')
    edit(repo / 'sub/page.rst', '子页面。\\ :ruling:`19/5/1`\n',
         '子页面。\\ :ruling:`19/5/1`\n\n.. include:: part.inc\n')
    commit(repo, '2024-05-01T10:00:00+08:00')
    edit(repo / 'sub/part.inc', '包含的文件。', '包含的文件，改。')
    commit(repo, '2024-06-01T10:00:00+08:00')
    app = make_app('html', srcdir=repo)
    app.build()
    assert_no_warnings(app)
    # the included line by its file's history; the page's own, unchanged, as before
    assert days(app.outdir) == [
        ('2024 年 6 月 1 日', ['sub/page.html#ruling-2022-02-02-神之宣告']), *HISTORY]


def test_blame_only_for_pages_read_again(repo, make_app, monkeypatch):
    from handbook.listings import recent

    blamed: list[str] = []
    real = recent.blame
    monkeypatch.setattr(recent, 'blame', lambda path: blamed.append(path.name) or real(path))

    apps = []

    def build():
        if apps:
            apps[-1].cleanup()  # a new application: the old one's registrations go
        blamed.clear()
        app = make_app('html', srcdir=repo)
        apps.append(app)
        written = PagesWritten(app)
        app.build()
        assert_no_warnings(app)
        return app, [name for name in written() if name not in ('genindex', 'search')]

    app, _ = build()
    assert sorted(blamed) == ['page.rst', 'rulings.rst']  # the pages with rulings
    feed_file = app.outdir / 'feed.xml'
    before = feed_file.stat().st_mtime_ns

    # nothing changed: no blame, neither the page nor the feed written again
    _, written = build()
    assert (blamed, written) == ([], [])
    assert feed_file.stat().st_mtime_ns == before

    # a ruling edited and committed: that page only is blamed, the list and feed follow
    edit(repo / 'sub/page.rst', '子页面。', '子页面，改。')
    commit(repo, '2024-04-01T10:00:00+08:00')
    app, written = build()
    assert blamed == ['page.rst']
    assert sorted(written) == ['index', 'recent', 'sub/page']  # index: its toctree
    assert days(app.outdir) == [('2024 年 4 月 1 日', ['sub/page.html#ruling-2019-05-01-旋风']),
                                *HISTORY[:2], ('2021 年 1 月 1 日', FIRST_COMMIT[:-1])]
    assert entries(app.outdir)[0] == 'sub/page.html#ruling-2019-05-01-旋风'

    # a page without rulings edited: no blame, the list is left alone (its
    # text: a title is in every page's navigation, handbook.render.navigation)
    edit(repo / 'index.rst', '.. toctree::', '没有裁定的段落。\n\n.. toctree::')
    _, written = build()
    assert blamed == []
    assert 'recent' not in written and 'index' in written

    # a page read again without a change: blamed again, the same dates, so the
    # list is not rewritten
    os.utime(repo / 'rulings.rst')
    _, written = build()
    assert blamed == ['rulings.rst']
    assert sorted(written) == ['index', 'rulings']


def test_parallel_build_is_the_serial_build(repo, make_app, tmp_path):
    serial = make_app('html', srcdir=repo, builddir=tmp_path / 'serial')
    serial.build()
    parallel = make_app('html', srcdir=repo, builddir=tmp_path / 'parallel', parallel=2)
    parallel.build()
    for name in ('recent.html', 'feed.xml'):
        assert (serial.outdir / name).read_bytes() == (parallel.outdir / name).read_bytes()
    assert days(parallel.outdir) == HISTORY


def test_dirhtml(repo, make_app):
    app = make_app('dirhtml', srcdir=repo)
    app.build()
    assert entries(app.outdir)[0] == 'rulings/#ruling-2017-12-22-旋风'
    assert head_link((app.outdir / 'sub/page/index.html').read_text('utf-8')) == '../../feed.xml'
    assert days(app.outdir, 'recent/index')[0][1][0] == '../rulings/#ruling-2017-12-22-旋风'


@pytest.mark.parametrize('builder', ['latex', 'singlehtml'])
def test_no_feed_beside_other_outputs(repo, make_app, builder):
    app = make_app(builder, srcdir=repo)
    app.build()
    assert not (app.outdir / 'feed.xml').exists()
    if builder == 'singlehtml':
        page = (app.outdir / 'index.html').read_text('utf-8')
        assert head_link(page) is None
        assert '订阅（Atom）' not in page
        assert 'id="d2024-03-06"' in page


def test_no_feed_without_the_sites_address(repo, make_app):
    app = make_app('html', srcdir=repo, confoverrides={'html_baseurl': ''})
    app.build()
    assert not (app.outdir / 'feed.xml').exists()
    page = (app.outdir / 'recent.html').read_text('utf-8')
    assert head_link(page) is None and '订阅（Atom）' not in page
    assert days(app.outdir) == HISTORY


def test_the_list_must_end_its_section(tmp_path, make_app):
    src = copy_root(tmp_path / 'src')
    (src / 'recent.rst').write_text('Recent\n======\n\n.. recent-rulings::\n\nAfter.\n',
                                    encoding='utf-8')
    app = make_app('html', srcdir=src)
    app.build()
    assert warnings(app) == [
        'recent.rst:4: WARNING: the list of recent rulings adds one section per date, so it '
        'must be the last content of a section; move the recent-rulings directive to the end '
        'of the page [handbook.recent]']


# -- the real handbook --------------------------------------------------------------------------

def check_site(site: Path, base: str) -> list[ET.Element]:
    """The page and the feed of a build of the real handbook agree, and every
    entry leads to its ruling."""
    root = feed(site)
    found = root.findall(A + 'entry')
    assert len(found) == 50
    links = [e.find(A + 'id').text.removeprefix(base) for e in found]
    assert [link for _title, group in days(site) for link in group] == links
    updated = [datetime.fromisoformat(e.find(A + 'updated').text) for e in found]
    assert updated == sorted(updated, reverse=True)
    assert [title for title, _group in days(site)] == [
        f'{d.year} 年 {d.month} 月 {d.day} 日' for d in sorted({u.date() for u in updated},
                                                              reverse=True)]
    for link in links:
        page, anchor = link.split('#')
        assert f'id="{anchor}"' in (site / page).read_text(encoding='utf-8')
    for name in ('index.html', 'negation.html', 'recent.html', '404.html'):
        assert head_link((site / name).read_text(encoding='utf-8')) is not None, name
    return found


def test_the_handbook(handbook_build):
    check_site(handbook_build.html, PUBLISHED)


@pytest.fixture(scope='module')
def zh_tw_site(handbook_zh_tw):
    """The real handbook, built once as `make html LANGUAGE=zh_TW` builds it
    (the build test_translations.py reads)."""
    return handbook_zh_tw.html / 'zh_TW'


def test_the_zh_tw_edition(zh_tw_site, handbook_build):
    found = check_site(zh_tw_site, f'{PUBLISHED}zh_TW/')
    root = feed(zh_tw_site)
    assert root.get('{http://www.w3.org/XML/1998/namespace}lang') == 'zh-TW'
    assert root.find(A + 'title').text == '遊戲王 OCG 裁定手冊 · 最近更新'
    page = (zh_tw_site / 'recent.html').read_text(encoding='utf-8')
    assert '最近改動的 50 條裁定，按改動的日期從新到舊。' in page
    assert '>訂閱（Atom）</a>' in page
    # the same rulings as the original, in their translated text (rulings.json's)
    def rulings(site: Path) -> dict[str, dict]:
        export = json.loads((site / 'rulings.json').read_text(encoding='utf-8'))
        return {ruling['url']: ruling for ruling in export['rulings']}

    # dated as the original: by the lines of the page's source, not of the catalog
    zh_cn = feed(handbook_build.html).findall(A + 'entry')
    assert [(e.find(A + 'id').text.split('#')[0].removeprefix(f'{PUBLISHED}zh_TW/'),
             e.find(A + 'updated').text) for e in found] == \
        [(e.find(A + 'id').text.split('#')[0].removeprefix(PUBLISHED),
          e.find(A + 'updated').text) for e in zh_cn]
    translated = rulings(zh_tw_site)
    original = {ruling['text'] for ruling in rulings(handbook_build.html).values()}
    differ = 0
    for entry in found:
        ruling = translated[entry.find(A + 'id').text.removeprefix(f'{PUBLISHED}zh_TW/')]
        flag = '【裁定已變更】' if ruling['changed'] else ''
        assert entry.find(A + 'content').text.startswith(f'{flag}{ruling["text"]}（')
        differ += ruling['text'] not in original
    assert differ > 0
