"""Downloads: the whole handbook as a valid EPUB, and as LaTeX for xelatex.

Both are built from the real pages, as ``make epub`` and ``make pdf`` do.  The
PDF itself needs TeX Live, which ``make pdf`` installs; here its LaTeX source
is checked.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

import pytest
from helpers import build_once, speed_options

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(p.stem for p in (ROOT / 'source').glob('*.rst'))
CYCLONE = 'https://ygocdb.com/card/name/%E6%97%8B%E9%A3%8E'  # 旋风
NS = {'opf': 'http://www.idpf.org/2007/opf', 'dc': 'http://purl.org/dc/elements/1.1/',
      'xhtml': 'http://www.w3.org/1999/xhtml',
      'container': 'urn:oasis:names:tc:opendocument:xmlns:container'}


def build(tmp_path_factory, builder: str, *options: str) -> Path:
    """Build the handbook as the Makefile does (warnings are errors), once
    per test run; the output folder."""
    done = build_once(tmp_path_factory, f'handbook-{builder}', lambda out: [
        sys.executable, '-m', 'sphinx', '-b', builder, '-W', '--keep-going', '-q',
        *speed_options(), '-c', str(ROOT), '-d', str(out / 'doctrees'), *options,
        str(ROOT / 'source'),
        str(out / builder)])
    assert done.returncode == 0, done.stderr
    return done.out / builder


@pytest.fixture(scope='module')
def epub(tmp_path_factory) -> zipfile.ZipFile:
    outdir = build(tmp_path_factory, 'epub', '-D', 'version=test')
    with zipfile.ZipFile(outdir / 'handbook.epub') as book:
        yield book


def test_epub_container(epub):
    first = epub.infolist()[0]
    # OCF: the mimetype file first, stored, no extra field
    assert first.filename == 'mimetype'
    assert first.compress_type == zipfile.ZIP_STORED and first.extra == b''
    assert epub.read('mimetype') == b'application/epub+zip'
    assert epub.testzip() is None
    container = ET.fromstring(epub.read('META-INF/container.xml'))
    rootfile = container.find('.//container:rootfile', NS)
    assert rootfile.get('media-type') == 'application/oebps-package+xml'
    assert rootfile.get('full-path') == 'content.opf'


def test_epub_package(epub):
    opf = ET.fromstring(epub.read('content.opf'))
    assert opf.get('version') == '3.0'
    assert opf.findtext('.//dc:title', namespaces=NS) == '游戏王 OCG 裁定手册'
    assert opf.findtext('.//dc:language', namespaces=NS) == 'zh-CN'
    identifier = opf.find(f'.//dc:identifier[@id="{opf.get("unique-identifier")}"]', NS)
    assert identifier.text == 'urn:uuid:34c7ef90-2062-5780-adf0-caee118c95ec'
    manifest = {item.get('id'): item for item in opf.findall('.//opf:manifest/opf:item', NS)}
    files = set(epub.namelist()) - {'mimetype', 'META-INF/container.xml', 'content.opf'}
    # the manifest lists exactly the files of the book
    assert {item.get('href') for item in manifest.values()} == files
    assert [i for i in manifest.values() if 'nav' in (i.get('properties') or '').split()]
    spine = [manifest[ref.get('idref')].get('href')
             for ref in opf.findall('.//opf:spine/opf:itemref', NS)]
    # every page of the handbook, the contents first
    assert spine[0] == 'index.xhtml'
    assert set(spine) >= {f'{page}.xhtml' for page in PAGES}


def test_epub_pages_parse_and_links_resolve(epub):
    pages = {name: ET.fromstring(epub.read(name))  # well-formed XHTML, or ParseError
             for name in epub.namelist() if name.endswith('.xhtml')}
    ids = {name: {e.get('id') for e in page.iter() if e.get('id')} for name, page in pages.items()}
    external, broken = [], []
    for name, page in pages.items():
        for link in page.iterfind('.//xhtml:a[@href]', NS):
            href = link.get('href')
            parts = urlsplit(href)
            if parts.scheme:
                external.append((name, link.get('class', ''), href))
                continue
            target = str(PurePosixPath(name).parent / unquote(parts.path)) if parts.path else name
            target = target.removeprefix('./')
            if target not in ids or (parts.fragment and unquote(parts.fragment) not in ids[target]):
                broken.append(f'{name}: {href}')
    assert broken == []
    cards = [(name, href) for name, classes, href in external if 'card-link' in classes.split()]
    assert ('negation.xhtml', CYCLONE) in cards
    assert all(href.startswith('https://') for _, href in cards)
    # the card links are links only: no URL printed after them (epub_show_urls)
    assert 'ygocdb.com' not in ''.join(pages['negation.xhtml'].itertext())


def test_latex_is_for_xelatex_with_chinese_fonts(tmp_path_factory):
    outdir = build(tmp_path_factory, 'latex')
    tex = (outdir / 'handbook.tex').read_text(encoding='utf-8')
    assert r'\def\sphinxdocclass{ctexbook}' in tex
    assert r'\setCJKmainfont{Noto Serif CJK SC}' in tex
    assert "xelatex" in (outdir / 'latexmkrc').read_text(encoding='utf-8')
    # card links are links in the PDF
    assert re.search(r'\\sphinxhref\{' + re.escape(CYCLONE.replace('%', r'\%')) + r'\}', tex)
    # the timeline shows the rulings of every page, their card links too (their
    # nodes read from their pages' doctrees, render/ruling_html.py)
    timeline = tex[tex.index(r'\chapter{裁定时间线}'):]
    assert timeline.count(r'\DUrole{card-name}') > 100
