"""What a page may publish or read (_ext/handbook/core/safe_reading.py;
issue 34, cases 1-3): raw HTML, files outside the source folder and meta
http-equiv are located errors naming the handbook.toml setting that turns
each back on; files inside the source folder are read as usual."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from helpers import html, warnings
from handbook.core import settings

WHY = {
    'raw': 'its HTML would be published as it is, scripts included, so it is off',
    'file': 'it would publish a file of the machine that builds the site, so it is off',
    'url': "it would reach the build machine's network (a cloud metadata service, a private "
           'address), so it is off',
    'meta': 'it would send every reader of the page to another address, so it is off',
}
TRUST = {'raw': 'raw_html', 'file': 'outside_files', 'url': 'outside_files',
         'meta': 'meta_http_equiv'}
UP = '../../../../../../../..'
#: the page of the root, written by each test (see the root's index.rst)
PAGE = """页
====

.. Each case is on its own line: tests/test_safe_reading.py asserts the
   reports at these lines.

.. raw:: html

   <img src=x onerror=alert(1)>

.. role:: h(raw)
   :format: html

| 「`旋风`_」\\ :h:`<img src=x onerror=alert(2)>`\\ 的效果。\\ :ruling:`20/1/1`

.. include:: ../../../../../../../../etc/hostname

.. literalinclude:: /../../../../../../../../etc/passwd

:download:`主机名 <../../../../../../../../etc/hostname>`

.. raw:: html
   :file: ../../../../../../../../etc/hostname

.. csv-table:: 表
   :file: /../../../../../../../../etc/passwd

.. csv-table:: 另一个表
   :file: sub/../../../../../../../../../etc/hostname

.. meta::
   :description: 这一页
   :http-equiv=refresh: 0;url=https://evil.host/

.. image:: ../../../../../../../../usr/share/pixmaps/debian-logo.png

Files inside the source folder are read as usual:

.. include:: inside.txt

.. literalinclude:: inside.txt

.. csv-table:: 里面的表
   :file: sub/table.csv

:download:`里面的文件 <inside.txt>`
"""


@pytest.fixture
def srcdir(rootdir, tmp_path) -> Path:
    """A copy of the root, with the page of the cases."""
    folder = Path(shutil.copytree(rootdir / 'test-safe-reading', tmp_path / 'site'))
    (folder / 'index.rst').write_text(PAGE, encoding='utf-8')
    return folder


def report(line: int, what: str, kind: str, fix: str) -> str:
    return (f'index.rst:{line}: ERROR: {what}: {WHY[kind]}; {fix}, or set {TRUST[kind]} = true '
            'in handbook.toml if every writer of this handbook is trusted '
            '[handbook.unsafe-markup]')


def test_unsafe_markup_is_a_located_error_and_publishes_nothing(make_app, srcdir):
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    outside = 'reads a file outside the source folder'
    copy = 'copy the file into the source folder'
    assert sorted(warnings(app), key=lambda w: int(w.split(':')[1])) == [
        report(7, 'the raw directive (html)', 'raw', 'write the content in reStructuredText'),
        report(14, 'the raw role :h:', 'raw', 'write the text in reStructuredText'),
        report(16, f"include '{UP}/etc/hostname' {outside}", 'file', copy),
        report(18, f"literalinclude '/{UP}/etc/passwd' {outside}", 'file', copy),
        report(20, f":download: '{UP}/etc/hostname' copies a file outside the source folder",
               'file', copy),
        report(22, 'the raw directive (html)', 'raw', 'write the content in reStructuredText'),
        report(25, f"csv-table :file: '/{UP}/etc/passwd' {outside}", 'file', copy),
        report(28, f"csv-table :file: 'sub/{UP}/../etc/hostname' {outside}", 'file', copy),
        report(31, "meta http-equiv='refresh'", 'meta', 'remove the field'),
        report(35, f"image '{UP}/usr/share/pixmaps/debian-logo.png' copies a file outside the "
                   'source folder', 'file', 'copy the image into the source folder'),
    ]
    page = html(app)
    assert 'onerror' not in page and 'http-equiv' not in page
    assert '<meta content="这一页" name="description" />' in page  # other meta fields stay
    # the files inside the source folder: included, quoted, tabled, downloadable
    assert page.count('内部文件的内容。') == 2
    assert '<td><p>1</p></td>' in page
    published = sorted(p.relative_to(app.outdir).as_posix() for p in app.outdir.rglob('*')
                       if p.is_file() and p.parts[-2] != '_static')
    assert [p for p in published if p.startswith(('_downloads', '_images'))] == [
        '_downloads/9e48d79867edbd8536bc4d5f203f6ccb/inside.txt']


def test_a_trusting_handbook_turns_them_back_on(make_app, srcdir):
    app = make_app('html', srcdir=srcdir, freshenv=True, confoverrides={
        'handbook_raw_html': True, 'handbook_outside_files': True,
        'handbook_meta_http_equiv': True})
    app.build()
    assert [w for w in warnings(app) if 'unsafe-markup' in w] == []
    page = html(app)
    assert '<img src=x onerror=alert(1)>' in page and '<img src=x onerror=alert(2)>' in page
    assert 'http-equiv="refresh"' in page


def test_an_address_read_while_the_page_is_read_is_refused(make_app, rootdir, tmp_path):
    """``:url:`` fetches while the page is read (the build machine's network,
    its cloud metadata service).  The page is written here, not kept in a
    root: plain docutils (tests/test_build_tuning.py parses every root)
    would fetch it.  A loopback address, on the discard port: were it
    fetched, it would reach nothing."""
    srcdir = tmp_path / 'site'
    shutil.copytree(rootdir / 'test-safe-reading', srcdir)
    (srcdir / 'index.rst').write_text(
        '页\n====\n\n.. csv-table:: 远程表\n   :url: http://127.0.0.1:9/meta-data\n\n'
        '.. raw:: html\n   :url: http://127.0.0.1:9/page\n', encoding='utf-8')
    app = make_app('html', srcdir=srcdir, freshenv=True,
                   confoverrides={'handbook_raw_html': True})
    app.build()
    assert warnings(app) == [
        report(4, "csv-table :url: fetches 'http://127.0.0.1:9/meta-data' while the page is "
                  'read', 'url', 'put the content in the page'),
        report(7, "raw :url: fetches 'http://127.0.0.1:9/page' while the page is read", 'url',
               'put the content in the page'),
    ]


def test_a_symbolic_link_out_of_the_source_folder_is_outside(make_app, rootdir, tmp_path):
    srcdir = tmp_path / 'site'
    shutil.copytree(rootdir / 'test-safe-reading', srcdir)
    secret = tmp_path / 'secret.txt'
    secret.write_text('机器上的秘密\n', encoding='utf-8')
    os.symlink(secret, srcdir / 'link.txt')
    (srcdir / 'index.rst').write_text('页\n====\n\n.. literalinclude:: link.txt\n',
                                      encoding='utf-8')
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    assert warnings(app) == [report(4, "literalinclude 'link.txt' reads a file outside the "
                                       'source folder', 'file', 'copy the file into the source folder')]
    assert '秘密' not in html(app)


def test_the_switches_in_handbook_toml(tmp_path):
    path = tmp_path / 'handbook.toml'
    path.write_text('raw_html = true\noutside_files = "yes"\n', encoding='utf-8')
    loaded = settings.load(path)
    assert loaded.values == {'handbook_raw_html': True}
    assert [(p.line, p.message) for p in loaded.problems] == [
        (2, "setting 'outside_files' must be true or false, not a string; e.g. outside_files = true")]
