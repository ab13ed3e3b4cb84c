"""Whole-toolchain builds: parallel = serial, deterministic, incremental; the
real handbook builds without a warning.

The root ``test-handbook`` is a mini-handbook built with the project's own
``conf.py`` (every extension): six pages with cards, rulings, struck text,
cross references and admonitions, the card index and the timeline.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import ROOT, PagesWritten, assert_no_warnings


#: pages every HTML build writes, changed or not (Sphinx's and the 404 page)
ADDITIONAL = ('genindex', 'search', '404')


def files(outdir: Path) -> dict[str, bytes]:
    return {p.relative_to(outdir).as_posix(): p.read_bytes()
            for p in sorted(outdir.rglob('*')) if p.is_file()}


def differing(a: Path, b: Path) -> list[str]:
    left, right = files(a), files(b)
    return sorted(name for name in left.keys() | right.keys() if left.get(name) != right.get(name))


def copy_root(rootdir: Path, to: Path) -> Path:
    """A copy of the root, modification times kept (outside git they are the
    pages' "last updated" dates)."""
    shutil.copytree(rootdir / 'test-handbook', to)
    return to


def build(make_app, srcdir: Path, apps: list | None = None, force_all: bool = False,
          **kwargs) -> tuple[Path, list[str], list[str]]:
    """Build *srcdir* (again); its output folder, the pages read and the
    pages written (the application appended to *apps*).  Asserts a build
    without warnings."""
    app = make_app('html', srcdir=srcdir, **kwargs)
    if apps is not None:
        apps.append(app)
    read: list[str] = []
    written = PagesWritten(app)
    app.connect('env-before-read-docs', lambda app, env, docnames: read.extend(docnames))
    app.build(force_all=force_all)
    assert_no_warnings(app)
    app.cleanup()  # Sphinx's global registries, before the next app
    # the card pages' frame is rendered through the builder whenever card pages
    # are written; which card pages are written is tested in test_card_pages.py
    return app.outdir, sorted(read), sorted(p for p in written() if p not in ADDITIONAL
                                            and not p.startswith('cards/'))


def test_parallel_build_is_byte_identical_to_serial(make_app, rootdir, tmp_path):
    serial, read, _ = build(make_app, copy_root(rootdir, tmp_path / 'serial'))
    parallel, _, _ = build(make_app, copy_root(rootdir, tmp_path / 'parallel'), parallel=2)
    assert len(read) > 5  # Sphinx reads in parallel only with more than five pages
    assert len(files(serial)) > 20
    assert differing(serial, parallel) == []


def test_two_clean_builds_are_identical(make_app, rootdir, tmp_path):
    first, _, _ = build(make_app, copy_root(rootdir, tmp_path / 'first'))
    second, _, _ = build(make_app, copy_root(rootdir, tmp_path / 'second'))
    assert differing(first, second) == []


def test_incremental_builds_read_and_write_what_changed(make_app, rootdir, tmp_path):
    srcdir = copy_root(rootdir, tmp_path / 'incremental')
    build(make_app, srcdir)

    apps: list = []

    def rebuild(make_app, srcdir):
        # the pages of the timeline's years and the card index's initials are
        # made whenever their list's page is written, their files written only
        # where their bytes changed (test_ruling_timeline.py, test_card_index.py)
        read, written = build(make_app, srcdir, apps)[1:]
        return read, [name for name in written if not name.startswith(('timeline/', 'card-index/'))]

    # nothing changed: nothing read, nothing written
    assert rebuild(make_app, srcdir) == ([], [])

    # a ruling of one page is reworded: that page and the timeline, which shows
    # the ruling's text (not the card index: it shows the ruling's date and
    # permalink), and, as Sphinx does for any page read again, the root page
    # whose toctree lists it
    page = srcdir / 'p3.rst'
    page.write_text(page.read_text(encoding='utf-8').replace('也一样', '也是一样'), encoding='utf-8')
    assert rebuild(make_app, srcdir) == (['p3'], ['index', 'p3', 'timeline'])

    # a ruling gets another date: the card index shows it too
    page.write_text(page.read_text(encoding='utf-8').replace('17/3/23', '17/3/13'), encoding='utf-8')
    assert rebuild(make_app, srcdir) == (['p3'], ['card-index', 'index', 'p3', 'timeline'])

    # text without rulings or cards is added: that page (and, as Sphinx does for
    # any page read again, the root page whose toctree lists it)
    page.write_text(page.read_text(encoding='utf-8') + '\n没有裁定的一段。\n', encoding='utf-8')
    assert rebuild(make_app, srcdir) == (['p3'], ['index', 'p3'])

    # one registry row's URL changes: the pages that link the card are written
    # again, not read (all six link 增殖的G), and what shows their rulings and cards
    registry = srcdir / 'cards.tsv'
    registry.write_text(registry.read_text(encoding='utf-8').replace(
        'card\t增殖的G\n', 'card\t增殖的G\t\thttps://example.org/g\n'), encoding='utf-8')
    read, written = rebuild(make_app, srcdir)
    assert read == []
    assert {'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'timeline', 'card-index'} <= set(written)

    # the row becomes a series: what the pages show of it changed, they are read again
    registry.write_text(registry.read_text(encoding='utf-8').replace(
        'card\t增殖的G\t', 'series\t增殖的G\t'), encoding='utf-8')
    read, _ = rebuild(make_app, srcdir)
    assert read == ['p1', 'p2', 'p3', 'p4', 'p5', 'p6']


def test_a_page_saved_while_it_is_read_is_read_again(make_app, rootdir, tmp_path):
    """An editor's second save, landing while the build of the first reads
    the page: Sphinx notes the reading time after parsing, so the next build
    found the page up to date and the site kept the first save (a preview's
    round trip).  The save here is made from the page's own source-read."""
    srcdir = copy_root(rootdir, tmp_path / 'saved')
    build(make_app, srcdir)
    page = srcdir / 'p3.rst'
    first = page.read_text(encoding='utf-8').replace('也一样', '也是一样')
    page.write_text(first, encoding='utf-8')

    def second_save(app, docname, source):
        if docname == 'p3':
            page.write_text(first.replace('也是一样', '也还是一样'), encoding='utf-8')

    app = make_app('html', srcdir=srcdir)
    app.connect('source-read', second_save, priority=900)
    app.build()
    app.cleanup()
    assert '也是一样' in (app.outdir / 'p3.html').read_text(encoding='utf-8')
    outdir, read, _written = build(make_app, srcdir)
    assert read == ['p3']
    assert '也还是一样' in (outdir / 'p3.html').read_text(encoding='utf-8')
    assert build(make_app, srcdir)[1] == []  # and then nothing more


def test_the_handbook_builds_without_warnings(handbook_build):
    """The real handbook as ``make html`` builds it (warnings are errors): the
    build every test of the real handbook reads (conftest.py)."""
    assert (handbook_build.returncode, handbook_build.stderr) == (0, '')
    assert handbook_build.stdout == ''  # -q: nothing printed (no extension's notice either)
    pages = [p.relative_to(ROOT / 'source').with_suffix('.html')
             for p in (ROOT / 'source').rglob('*.rst')]
    assert pages and [p for p in pages if not (handbook_build.html / p).is_file()] == []
    # the styles, linked once (the extensions add them: conf.py does not)
    index = (handbook_build.html / 'index.html').read_text(encoding='utf-8')
    assert index.count('_static/handbook.css') == 1


def test_the_generated_pages_say_nothing_meant_for_editors(handbook_build):
    """What the build writes is for readers: "do not edit by hand" and how
    the dates of change are found are comments of the page's source (a
    reader's round trip found them on four pages and in their previews)."""
    for page in ('timeline', 'recent', 'card-index', 'open-questions'):
        text = (handbook_build.html / f'{page}.html').read_text(encoding='utf-8')
        assert '手工编辑' not in text and 'git 记录' not in text, page
