"""Two editions from one source: the full one, and "current rulings only" (tag ``current``).

The test root ``editions`` holds one case of each rule of ``_ext/handbook/publishing/editions.py``
(its comments say which); it is built without and with the tag.  The real
handbook is built as ``make html TAGS=current`` builds it.
"""

from __future__ import annotations

import json
import re
import subprocess
from types import SimpleNamespace

import pytest
from docutils import nodes

from conftest import ROOT
from handbook.core.switchers import decide
from handbook.store import store
from helpers import (PUBLISHED, assert_no_warnings, build_once, html, make_command, sphinxopts,
                     warnings, whole_list)
from handbook.rulings.lines import rulings

#: the rulings of test-editions/index.rst, in page order; True: overturned
RULINGS = [
    ('ruling-2017-03-24-神之宣告', True),
    ('ruling-2020-01-13', False),
    ('ruling-2017-03-24-旋风-1d0469', True),
    ('ruling-2017-03-24-旋风-b7528b', False),  # its twin's hash stays in both editions
    ('ruling-2019-05-01-旋风', False),
    ('ruling-2013-01-01-旋风', False),
    ('ruling-2018-01-13-黑洞', True),
    ('ruling-2016-04-01-死者苏生', True),
    ('ruling-2015-07-01-王宫的铁壁', True),
    ('ruling-2015-07-01-神之宣告', False),
    ('ruling-2015-01-01-旋风', True),
    ('ruling-2014-02-02-旋风', True),
    ('ruling-2014-02-03-旋风', False),
]
OVERTURNED = [anchor for anchor, struck in RULINGS if struck]
KEPT = [anchor for anchor, struck in RULINGS if not struck]

#: the text of every line, paragraph and title of the page, in order
FULL_TEXT = [
    '两个版本',
    '「神之宣告」不能发动。17/3/24 裁定变更：可以发动。20/1/13',
    '「旋风」不会被无效。17/3/24',
    '「旋风」会被无效。17/3/24',
    '「旋风」的效果不能可以对应发动。19/5/1',
    '「旋风」的①效果不能发动。13/1/1',
    '同时适用的场合。',
    '例：',
    '「黑洞」和「王宫的铁壁」同时适用时先处理墓地复活。18/1/13',
    '「死者苏生」只能以自己墓地的怪兽为对象。16/4/1',
    '「王宫的铁壁」适用中不能除外。115/7/1',
    '「神之宣告」可以无效召唤。215/7/1',
    '旧版数据库的说明。',
    '现行数据库的说明。',
    '本节的说明（旧版）如下。',
    '这一行整行作废。',
    '这一行仍然有效。',
    '「旋风」盖放的回合不能发动。15/1/1',
    '现行处理旧规则',
    '「旋风」连锁时无效。14/2/2',
    '「旋风」连锁时有效。14/2/3',
]
CURRENT_TEXT = [
    '两个版本',
    '裁定变更：可以发动。20/1/13',           # the ruling that replaced the first
    '「旋风」会被无效。17/3/24',
    '「旋风」的效果可以对应发动。19/5/1',     # corrected in place: the struck word goes
    '「旋风」的①效果13/1/1',
    '同时适用的场合。',
    '例：',                                   # stays, though its example is gone
    '「神之宣告」可以无效召唤。215/7/1',     # the list and footnote 1 are gone
    '现行数据库的说明。',
    '本节的说明如下。',
    '这一行仍然有效。',                        # the note is gone
    '现行处理',
    '「旋风」连锁时有效。14/2/3',
]
#: words that only overturned rulings and struck text have
STRUCK_WORDS = ['不会被无效', '墓地复活', '只能以自己墓地', '适用中不能除外', '旧版',
                '整行作废', '盖放的回合', '连锁时无效', '不能']
#: cards that only overturned rulings name
STRUCK_CARDS = ['黑洞', '王宫的铁壁', '死者苏生']


def own_warnings(app) -> list[str]:
    """The warnings of a second app of one test, without Sphinx's about the
    nodes and roles the first one registered already."""
    return [w for w in warnings(app) if '[app.' not in w]


def text(app, docname: str = 'index') -> list[str]:
    doctree = app.env.get_doctree(docname)
    found = doctree.findall(lambda n: isinstance(n, (nodes.line, nodes.paragraph, nodes.title)))
    return [re.sub(r'\s+', ' ', n.astext()).strip() for n in found]


def search_parts(app) -> str:
    """The search's index as served: its manifest and every part."""
    static = app.outdir / '_static'
    return ''.join(path.read_text(encoding='utf-8') for path in
                   [static / 'rulings-index.js', *sorted((static / 'search').glob('*.js'))])


def export(app) -> list[str]:
    data = json.loads((app.outdir / 'rulings.json').read_text(encoding='utf-8'))
    return [r['anchor'] for r in data['rulings']]


def permalinks(app, docname: str) -> set[str]:
    """The ruling anchors that *docname* links to (the timeline, the card index)."""
    return set(re.findall(r'href="index.html#(ruling-[^"]+)"', whole_list(app.outdir, docname)))


@pytest.mark.sphinx('html', testroot='editions')
@pytest.mark.test_params(shared_result='editions-editions')
def test_full_edition_shows_overturned_rulings_struck(app):
    app.build()
    assert_no_warnings(app)
    assert text(app) == FULL_TEXT
    assert [r.anchor for r in rulings(app.env)['index']] == [anchor for anchor, _ in RULINGS]
    page = html(app)
    for anchor, struck in RULINGS:
        tag = re.search(f'<(?:span|div) class="((?:line )?ruling-line[^"]*)" id="{anchor}">',
                        page)[1]
        assert ('ruling-struck' in tag.split()) is struck
    assert '」<del class="strike">不能发动。</del><span class="ruling">17/3/24</span>' in page
    assert '<p>本节的说明<del class="strike">（旧版）</del>如下。</p>' in page
    assert export(app) == [anchor for anchor, _ in RULINGS]
    assert permalinks(app, 'timeline') == {anchor for anchor, _ in RULINGS}
    # 裁定变更：可以发动。 names no card: it is 神之宣告's, as the sentence before it
    assert permalinks(app, 'card-index') == {anchor for anchor, _ in RULINGS}
    assert set(store(app.env).record('index').keys) >= set(STRUCK_CARDS)
    served = search_parts(app)
    assert [w for w in ('墓地', '复活', '黑洞', '王宫的铁壁', '死者苏生') if w not in served] == []


# its own folder, as make keeps each edition in its own folder
@pytest.mark.sphinx('html', testroot='editions', srcdir='editions-current', tags=['current'])
def test_current_edition_leaves_them_out(app):
    app.build()
    assert_no_warnings(app)
    assert text(app) == CURRENT_TEXT
    # the record, the timeline, the export, the card index: the rulings that stay
    assert [r.anchor for r in rulings(app.env)['index']] == KEPT
    assert not any(r.struck for r in rulings(app.env)['index'])
    assert export(app) == KEPT
    assert permalinks(app, 'timeline') == set(KEPT)
    assert '共 6 条注明日期的裁定' in whole_list(app.outdir, 'timeline')
    assert permalinks(app, 'card-index') == set(KEPT) - {'ruling-2020-01-13'}
    entries = set(re.findall(r'id="(card-[^"]+)"', whole_list(app.outdir, 'card-index')))
    assert entries == {'card-旋风', 'card-神之宣告'}
    assert set(store(app.env).record('index').keys) == {'旋风', '神之宣告'}
    # the search's index: the sections' titles as shown, without their struck text
    assert '"现行处理"' in search_parts(app)
    # no word, card name or title of struck text anywhere in what the site
    # serves, the search's index included
    for path in app.outdir.rglob('*'):
        if path.suffix in ('.html', '.js', '.json', '.txt'):
            content = path.read_text(encoding='utf-8')
            assert [w for w in STRUCK_WORDS + STRUCK_CARDS if w in content] == [], path.name
    assert '<del' not in html(app) and 'ruling-struck' not in html(app)
    # footnote 1 went with its only reference; footnote 2 keeps its number
    assert 'id="old"' not in html(app)
    assert '<a role="doc-backlink" href="#id3">2</a>' in html(app)


@pytest.mark.sphinx('html', testroot='editions', freshenv=True)
def test_permalinks_are_the_same_in_both_editions(app, make_app, tmp_path):
    app.build()
    current = make_app('html', srcdir=app.srcdir, builddir=tmp_path / 'current',
                       tags=['current'])
    current.build()
    assert own_warnings(current) == []
    ids = re.compile(r'\bid="([^"]+)"')
    full_ids = set(ids.findall(html(app)))
    # every id of the current edition's page is an id of the full edition's
    assert set(ids.findall(html(current))) <= full_ids
    assert [r.anchor for r in rulings(current.env)['index']] == \
        [r.anchor for r in rulings(app.env)['index'] if r.anchor not in OVERTURNED]


@pytest.mark.sphinx('html', testroot='editions', srcdir='editions-switching')
def test_switching_editions_reads_every_page_again(app, make_app):
    app.build()  # the full edition
    current = make_app('html', srcdir=app.srcdir, tags=['current'])  # the same doctrees
    current.build()
    assert ('these doctrees are of the full edition: every page is read again for the '
            'current edition') in current.status.getvalue()
    assert text(current) == CURRENT_TEXT
    assert permalinks(current, 'timeline') == set(KEPT)
    full = make_app('html', srcdir=app.srcdir)
    full.build()
    assert text(full) == FULL_TEXT
    assert export(full) == [anchor for anchor, _ in RULINGS]
    assert own_warnings(current) == own_warnings(full) == []


@pytest.mark.sphinx('html', testroot='editions', freshenv=True, tags=['current'])
def test_current_edition_is_published_in_its_folder(app):
    app.build()
    page = html(app)
    assert '<link rel="canonical" href="https://example.org/handbook/current/index.html">' in page
    # the edition switcher: the same page in the other edition
    assert ('<nav class="sidebar-editions" aria-label="版本">\n  <ul>\n'
            '    <li><a href="../index.html">完整版</a></li>\n'
            '    <li><span class="current-edition" aria-current="page">现行版</span></li>\n'
            '  </ul>\n</nav>') in page


@pytest.mark.sphinx('html', testroot='editions')
@pytest.mark.test_params(shared_result='editions-editions')
def test_full_edition_links_the_current_one(app):
    app.build()
    page = whole_list(app.outdir, 'timeline')
    assert '<link rel="canonical" href="https://example.org/handbook/timeline.html">' in page
    assert ('<li><span class="current-edition" aria-current="page">完整版</span></li>\n'
            '    <li><a href="current/timeline.html">现行版</a></li>') in page


@pytest.mark.sphinx('html', testroot='editions', freshenv=True,
                    confoverrides={'handbook_switchers': False})
def test_a_build_of_one_edition_links_to_no_other(app):
    app.build()
    page = whole_list(app.outdir, 'timeline')
    assert 'sidebar-editions' not in page
    assert 'href="current/' not in page


@pytest.mark.parametrize(('variable', 'switchers'), [(None, True), ('1', True), ('0', False)])
def test_the_makefile_says_whether_the_other_editions_are_built(monkeypatch, variable,
                                                                 switchers):
    monkeypatch.delenv('HANDBOOK_SWITCHERS', raising=False)
    if variable is not None:
        monkeypatch.setenv('HANDBOOK_SWITCHERS', variable)
    config = SimpleNamespace(handbook_switchers=None)
    decide(None, config)
    assert config.handbook_switchers is switchers
    config = SimpleNamespace(handbook_switchers=True)  # conf.py's word wins
    decide(None, config)
    assert config.handbook_switchers is True


@pytest.mark.sphinx('gettext', testroot='editions', freshenv=True, tags=['current'])
def test_catalogs_hold_both_editions(app):
    app.build()
    pot = (app.outdir / 'index.pot').read_text(encoding='utf-8')
    assert 'msgid "「`黑洞`_」\\\\ :strike:`和`\\\\ 「`王宫的铁壁`_」' in pot


# -- make ------------------------------------------------------------------------------


def make(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(['make', '-s', '-C', str(ROOT), *args], capture_output=True,
                          text=True, check=False)


def test_make_builds_the_current_edition_into_its_folder():
    run = make('-n', 'html', 'TAGS=current', 'BUILDDIR=/b', 'BASEURL=https://example.org/ocg')
    command = ' '.join(run.stdout.replace('\\\n', ' ').split())
    assert ' -t current ' in command
    assert ' -D html_baseurl=https://example.org/ocg/current/ ' in command
    # Sphinx builds into a staging folder, published into /b/html/current (tools/build_html.py)
    assert ' --site /b/html/current --lock /b/.lock ' in command
    assert command.endswith(' -d /b/doctrees-current source /b/staging/html-current')
    # one edition built: no link to the other, which would be dead
    assert re.search(r'(^| )HANDBOOK_SWITCHERS=0 \S*python tools/build_html.py ', command)
    run = make('-n', 'html', 'TAGS=current', 'LANGUAGE=zh_TW', 'BUILDDIR=/b',
               'BASEURL=https://example.org/ocg/')
    command = ' '.join(run.stdout.replace('\\\n', ' ').split())
    assert ' -D html_baseurl=https://example.org/ocg/current/zh_TW/ ' in command
    assert ' --site /b/html/current/zh_TW ' in command
    assert command.endswith(' -d /b/doctrees-zh_TW-current source /b/staging/html-zh_TW-current')
    # make html-all: both editions, each with its translations
    run = make('-n', 'html-all', 'BUILDDIR=/b', 'TRANSLATIONS=zh_TW')
    outdirs = re.findall(r'--site (/b/html\S*)', run.stdout)
    assert outdirs == ['/b/html', '/b/html/zh_TW', '/b/html/current', '/b/html/current/zh_TW']
    # each of them links to the others
    assert re.findall(r'HANDBOOK_SWITCHERS=(\d)', run.stdout) == ['1'] * 4


@pytest.fixture(scope='module')
def handbook(handbook_build, tmp_path_factory):
    """The real handbook, both editions: the full one as the suite builds it
    once (conftest.py), the current one built once by make html TAGS=current."""
    current = build_once(tmp_path_factory, 'handbook-current', lambda out: make_command(
        'html', 'TAGS=current', f'BUILDDIR={out}', f'BASEURL={PUBLISHED}', sphinxopts()))
    return handbook_build.html, current


def test_handbook_current_edition_builds_without_warnings(handbook):
    site, run = handbook
    assert (run.returncode, run.stderr) == (0, '')
    full = json.loads((site / 'rulings.json').read_text(encoding='utf-8'))['rulings']
    current_site = run.html / 'current'  # make's folder for the edition
    current = json.loads((current_site / 'rulings.json').read_text(encoding='utf-8'))
    overturned = {(page.stem, anchor) for page in site.glob('*.html') for anchor in
                  re.findall(r'class="ruling-line ruling-struck" id="([^"]+)"',
                             page.read_text(encoding='utf-8'))}
    # every other ruling, with the same permalink
    assert [(r['page'], r['anchor']) for r in current['rulings']] == \
        [(r['page'], r['anchor']) for r in full if (r['page'], r['anchor']) not in overturned]
    assert (current_site / 'card-index.html').is_file()


def test_each_edition_and_language_is_an_epub_of_its_own(make_app, rootdir, tmp_path):
    """The zh_TW and current EPUBs said zh-CN and carried the full edition's
    identifier, which reading apps take for one book (an adopter's round
    trip).  Each its language in BCP 47, and an identifier of its own, the
    same at every build; the full edition's as conf.py gives it."""
    import shutil
    ids = {}
    for language, tags in (('zh_CN', ()), ('zh_TW', ()), ('zh_TW', ('current',))):
        srcdir = tmp_path / f'{language}-{"-".join(tags)}'
        shutil.copytree(rootdir / 'test-intl', srcdir)
        app = make_app('epub', srcdir=srcdir, tags=list(tags), confoverrides={
            'language': language, 'epub_identifier': 'urn:uuid:34c7ef90-2062-5780-adf0-caee118c95ec',
            'extensions': ['handbook.cards.links', 'handbook.translations.catalogs',
                           'handbook.publishing.editions']})
        assert app.config.epub_language == language.replace('_', '-')
        ids[language, tags] = app.config.epub_identifier
    assert ids['zh_CN', ()] == 'urn:uuid:34c7ef90-2062-5780-adf0-caee118c95ec'
    assert len(set(ids.values())) == 3 and all(i.startswith('urn:uuid:') for i in ids.values())
