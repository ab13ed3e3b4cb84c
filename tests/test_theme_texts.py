"""The theme in the site's language (publishing/theme.py): no English text of
furo's on any page, in a handbook whose navigation has chapters (the toggle
of each chapter has a label furo writes in English)."""

from __future__ import annotations

import re
import shutil

import pytest

from conftest import ROOT
from helpers import assert_no_warnings

#: what furo writes in English, in its templates and its navigation
ENGLISH = ('Skip to content', 'Back to top', 'Toggle navigation of', 'Toggle site navigation',
           'Toggle table of contents', 'Toggle Light', 'On this page', 'Made with',
           '<title>Contents</title>', '<title>Menu</title>', '<title>Expand</title>',
           '<title>Light mode</title>', '<title>Dark mode</title>', '<title>Auto light',
           '>Next<', '>Previous<', 'Last updated on', 'Copyright')
#: the label of the first chapter's toggle, by language
TOGGLE = {'zh_CN': 'aria-label="展开或收起“第一章”下的页面"',
          'zh_TW': 'aria-label="展開或收合「第一章」下的頁面"'}


@pytest.mark.parametrize('language', ['zh_CN', 'zh_TW'])
def test_no_english_of_the_theme_on_any_page(make_app, rootdir, tmp_path, language):
    shutil.copytree(rootdir / 'test-navigation', tmp_path / 'navigation')
    shutil.copy(rootdir / 'test-cards' / 'cards.tsv', tmp_path / 'navigation')
    app = make_app('html', srcdir=tmp_path / 'navigation', builddir=tmp_path / '_build',
                   confoverrides={'extensions': ['handbook.publishing.theme'],
                                  'language': language, 'html_search_options': {'dict': ''},
                                  'html_last_updated_fmt': '%Y-%m-%d', 'copyright': '2024',
                                  'handbook_locale_dir': str(ROOT / 'locale')})
    app.build()
    assert_no_warnings(app)
    pages = sorted(app.outdir.rglob('*.html'))
    assert len(pages) > 8
    toggles = 0
    for page in pages:
        text = page.read_text(encoding='utf-8')
        assert [e for e in ENGLISH if e in text] == [], page.relative_to(app.outdir)
        toggles += text.count(TOGGLE[language])
    assert toggles >= 8  # the first chapter's toggle, on every page
    page = (app.outdir / 'index.html').read_text(encoding='utf-8')
    assert {'zh_CN': '最后更新于', 'zh_TW': '最後更新於'}[language] in page
    assert {'zh_CN': '下一页', 'zh_TW': '下一頁'}[language] in page
    assert len(re.findall(r'aria-label="[^"]*" class="toctree-checkbox"', page)) >= 2



@pytest.mark.parametrize('favicon', ['', 'https://example.org/icon.png'])
def test_every_page_has_an_icon_and_asks_for_no_favicon_ico(make_app, rootdir, tmp_path,
                                                            favicon):
    """A handbook without an icon of its own: every page asked the server for
    /favicon.ico, a 404 (a reader's round trip).  The handbook's icon then,
    a file of the site; its ``html_favicon`` where it has one, alone."""
    shutil.copytree(rootdir / 'test-navigation', tmp_path / 'navigation')
    app = make_app('html', srcdir=tmp_path / 'navigation', builddir=tmp_path / '_build',
                   confoverrides={'extensions': ['handbook.publishing.theme'],
                                  'html_favicon': favicon})
    app.build()
    for page in sorted(app.outdir.rglob('*.html')):
        icons = re.findall(r'<link rel="[^"]*icon" href="([^"]*)"', page.read_text('utf-8'))
        depth = len(page.relative_to(app.outdir).parts) - 1
        assert icons == [favicon or '../' * depth + '_static/handbook-icon.svg'], page.name
    if not favicon:
        assert (app.outdir / '_static' / 'handbook-icon.svg').read_text('utf-8').startswith(
            '<svg xmlns="http://www.w3.org/2000/svg"')
