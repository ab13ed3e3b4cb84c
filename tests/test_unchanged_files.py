"""A build writes a file of the site only when its content changes
(_ext/handbook/publishing/unchanged_files.py).

The root ``unchanged-files`` is two pages on furo, with a plain file and a
template in ``html_static_path``; ``test-handbook`` (copied) is the
mini-handbook of test_builds.py, with every extension.  A file counts as
written when its inode (a file moved into place), modification time or
bytes differ.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from helpers import PagesWritten, assert_no_warnings
from handbook.core.files import write_if_changed, write_pieces_if_changed

Snapshot = dict[str, tuple[int, int, bytes]]


def snapshot(outdir: Path) -> Snapshot:
    """``{path: (inode, mtime_ns, bytes)}`` of every file of the output folder."""
    out = {}
    for path in sorted(outdir.rglob('*')):
        if path.is_file():
            stat = path.stat()
            out[path.relative_to(outdir).as_posix()] = (stat.st_ino, stat.st_mtime_ns,
                                                        path.read_bytes())
    return out


def written(before: Snapshot, after: Snapshot) -> list[str]:
    return sorted(name for name in before.keys() | after.keys()
                  if before.get(name) != after.get(name))


def changed(before: Snapshot, after: Snapshot) -> list[str]:
    """The files whose content changed (or that are new, or gone)."""
    return sorted(name for name in before.keys() | after.keys()
                  if (before.get(name) or ())[2:] != (after.get(name) or ())[2:])


def build(make_app, srcdir: Path) -> tuple[Snapshot, list[str]]:
    """Build *srcdir* (again), as ``make html`` does, in a new application; the
    output folder's snapshot, and the pages rendered."""
    app = make_app('html', srcdir=srcdir)
    rendered = PagesWritten(app)
    app.build()
    assert_no_warnings(app)
    app.cleanup()  # Sphinx's global registries, before the next app
    return snapshot(app.outdir), sorted(rendered())


def copy(rootdir: Path, root: str, to: Path) -> Path:
    """A copy of the root, modification times kept."""
    shutil.copytree(rootdir / f'test-{root}', to)
    return to


# -- a small site on the handbook's theme ---------------------------------------------------

def test_a_build_with_nothing_changed_writes_no_file(make_app, rootdir, tmp_path):
    srcdir = copy(rootdir, 'unchanged-files', tmp_path / 'site')
    first, _ = build(make_app, srcdir)
    # what Sphinx and furo wrote at every build until now, all there
    assert {'.buildinfo', 'genindex.html', 'search.html', 'searchindex.js', 'objects.inv',
            '_static/basic.css', '_static/documentation_options.js',
            '_static/language_data.js', '_static/pygments.css', '_static/settings.js',
            '_static/custom.css'} <= first.keys()
    # furo's pygments.css (light and dark styles), not Sphinx's
    assert b'body[data-theme="dark"] .highlight' in first['_static/pygments.css'][2]
    assert b'const PROJECT = "Unchanged files";' in first['_static/settings.js'][2]

    second, rendered = build(make_app, srcdir)
    assert rendered == ['genindex', 'search']  # rendered, as at every build
    assert written(first, second) == []


def edited(make_app, rootdir, tmp_path, name: str, old: str, new: str):
    """Build the root, replace *old* with *new* in page *name*, build again:
    the files before and after, what was rendered, the page's path."""
    srcdir = copy(rootdir, 'unchanged-files', tmp_path / 'site')
    before, _ = build(make_app, srcdir)
    page = srcdir / name
    page.write_text(page.read_text(encoding='utf-8').replace(old, new), encoding='utf-8')
    after, rendered = build(make_app, srcdir)
    return before, after, rendered, page


def test_an_edit_rewrites_what_it_changes(make_app, rootdir, tmp_path):
    before, after, rendered, _page = edited(make_app, rootdir, tmp_path, 'other.rst',
                                            'second', 'last')
    # Sphinx renders the page and its parent in the toctree again; the parent,
    # the index and the search page come out the same and are left alone
    assert rendered == ['genindex', 'index', 'other', 'search']
    assert written(before, after) == changed(before, after) == ['other.html', 'searchindex.js']


def test_a_page_saved_without_a_change_is_not_rewritten(make_app, rootdir, tmp_path):
    before, after, rendered, page = edited(make_app, rootdir, tmp_path, 'index.rst',
                                           'A comment', 'A reworded comment')
    assert 'index' in rendered
    assert changed(before, after) == []
    # the same file, with a new date: else Sphinx, which compares the page's date
    # with its source's, would render it again at every build
    assert written(before, after) == ['index.html']
    assert after['index.html'][0] == before['index.html'][0]
    assert after['index.html'][1] >= page.stat().st_mtime_ns

    again, rendered = build(make_app, page.parent)
    assert rendered == ['genindex', 'search']
    assert written(after, again) == []


# -- the mini-handbook, every extension ----------------------------------------------------

def test_the_handbook_rebuilt_writes_what_changed_only(make_app, rootdir, tmp_path):
    srcdir = copy(rootdir, 'handbook', tmp_path / 'handbook')
    first, _ = build(make_app, srcdir)
    assert {'404.html', 'sitemap.xml', 'robots.txt', 'rulings.json', 'feed.xml'} <= first.keys()
    second, _ = build(make_app, srcdir)
    assert written(first, second) == []

    # a ruling of one page is reworded
    page = srcdir / 'p3.rst'
    page.write_text(page.read_text(encoding='utf-8').replace('也一样', '也是一样'), encoding='utf-8')
    third, rendered = build(make_app, srcdir)
    assert {'index', 'p3', 'timeline', '404', 'genindex', 'search'} <= set(rendered)
    # the search's parts (_static/search/): those the ruling's words are in; here
    # all, as the ruling is no longer the same as two others (rulings/same.py),
    # which moves the rulings' ids (handbook/search/rulings_index.py)
    parts = [name for name in written(second, third) if name.startswith('_static/search/')]
    assert parts and written(second, third) == changed(second, third)
    assert [name for name in written(second, third) if name not in parts] == [
        '_static/rulings-index.js',  # the ruling's text, in the rulings' search
        'cards/死者苏生.html', 'cards/王宫的铁壁.html',  # the cards the ruling names
        'feed.xml',  # outside git, a ruling's date is its page's: the newest ruling now
        'p3.html', 'rulings.json', 'timeline.html',
    ]  # not index.html (its toctree shows p3's title), nor the search index (the same words)

    fourth, _ = build(make_app, srcdir)
    assert written(third, fourth) == []


def test_write_if_changed(tmp_path):
    path = tmp_path / 'sub' / 'file.txt'
    assert write_if_changed(path, '文字\n')
    inode, mtime = path.stat().st_ino, path.stat().st_mtime_ns
    assert not write_if_changed(path, '文字\n')
    assert not write_if_changed(path, '文字\n'.encode())
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (inode, mtime)
    assert write_if_changed(path, '文')
    assert path.read_text(encoding='utf-8') == '文'


@pytest.mark.parametrize('other', [[b'ab', b'cd'], [b'abcd', b'e'], [b'abc'], [b'', b'abce']])
def test_write_pieces_if_changed(tmp_path, other):
    path = tmp_path / 'sub' / 'export.json'
    calls = []

    def pieces(parts):
        def give():
            calls.append(parts)
            return iter(parts)
        return give

    assert write_pieces_if_changed(path, pieces([b'ab', b'', b'cd']))
    assert path.read_bytes() == b'abcd'
    inode, mtime = path.stat().st_ino, path.stat().st_mtime_ns
    calls.clear()
    assert write_pieces_if_changed(path, pieces(other)) == (b''.join(other) != b'abcd')
    assert path.read_bytes() == b''.join(other)
    assert len(calls) == (2 if b''.join(other) != b'abcd' else 1)  # compared, then written
    if b''.join(other) == b'abcd':
        assert (path.stat().st_ino, path.stat().st_mtime_ns) == (inode, mtime)
    assert [p.name for p in path.parent.iterdir()] == ['export.json']  # no temporary file
