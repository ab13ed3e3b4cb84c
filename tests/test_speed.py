"""The speed package (``handbook.speed``): the same site with it as without
it, nothing left behind by a build whichever way it ends, a failing process
reported with what the build did instead; and the pieces that can be
compared with the libraries' own results (the parser with docutils', the
navigation with Sphinx's).  That ``-j 2`` writes what ``-j 1`` writes is
``test_builds.py``'s test; the suite runs both with the package and without
it (``make test SPEED=off``)."""

from __future__ import annotations

import gc
import multiprocessing
import os
import posixpath
import re
import shutil
import sys
import types

import pytest
from handbook.speed import ALLOWED, check_versions
from handbook.speed.read_order import balanced
from handbook.speed.writing import LateParts, weighed_chunks
from helpers import ROOT, SPEED, assert_no_warnings, warnings, whole_list
from sphinx.errors import ExtensionError
from sphinx.util.parallel import make_chunks
from test_builds import differing

#: the extension of the speed package
WITHOUT = 'handbook.speed'

pytestmark = pytest.mark.skipif(not SPEED, reason='the speed package is off in this run')


def handbook_root(rootdir, tmp_path):
    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    return srcdir


def build(make_app, srcdir, out, speed: bool, **kwargs):
    from sphinx.config import Config
    from sphinx.util.tags import Tags

    extensions = [e for e in Config.read(srcdir, overrides={}, tags=Tags()).extensions
                  if e != WITHOUT]
    app = make_app('html', srcdir=srcdir, builddir=out, freshenv=kwargs.pop('freshenv', True),
                   confoverrides={'extensions': [*extensions, *([WITHOUT] if speed else [])],
                                  **kwargs.pop('confoverrides', {})}, **kwargs)
    return app


def test_the_site_is_the_same_with_the_speed_package_as_without(make_app, rootdir, tmp_path):
    srcdir = handbook_root(rootdir, tmp_path)
    outputs = []
    for name, speed, parallel in (('without', False, 1), ('with', True, 1),
                                  ('with-j2', True, 2)):
        app = build(make_app, srcdir, tmp_path / name, speed, parallel=parallel)
        app.build()
        app.cleanup()  # Sphinx's global registries, before the next app
        assert_no_warnings(app)
        assert ('handbook.speed' in app.extensions) == speed
        outputs.append(app.outdir)
    assert differing(outputs[0], outputs[1]) == []
    assert differing(outputs[0], outputs[2]) == []
    # the pages the speed package writes otherwise are there: the timeline
    # (written last, its months after the page) and the card index
    timeline = whole_list(outputs[1], 'timeline')
    assert 'ruling-entry' in timeline and 'handbook-late-part' not in timeline


#: characters of made-up card names (each name: three of them, and a number)
CHARACTERS = '龙骑士魔法陷阱战士天使恶魔机械水炎风光暗'


def test_card_pages_and_pinyin_found_by_processes_of_their_own_are_the_same(
        make_app, rootdir, tmp_path):
    # enough names that the pinyin is found ahead (handbook.speed.pinyin_ahead)
    # and enough linked cards that their pages are written by two processes
    # (handbook.speed.card_pages): the same pages as one process writes
    from handbook.speed.card_pages import SPLIT_MIN
    from handbook.speed.pinyin_ahead import AHEAD

    srcdir = handbook_root(rootdir, tmp_path)
    count = max(SPLIT_MIN, AHEAD) + 10
    names = [f'{CHARACTERS[n % 15]}{CHARACTERS[n // 15 % 15]}{CHARACTERS[n // 225 % 15]}{n}'
             for n in range(count)]
    with (srcdir / 'cards.tsv').open('a', encoding='utf-8') as registry:
        registry.write(''.join(f'card\t{name}\n' for name in names))
    page = srcdir / 'p6.rst'
    page.write_text(page.read_text(encoding='utf-8') + '\n' + ''.join(
        f'| 「`{name}`_」的效果。\\ :ruling:`20/{n % 12 + 1}/{n % 28 + 1}`\n'
        for n, name in enumerate(names)), encoding='utf-8')
    outputs = []
    for name, speed, parallel in (('without', False, 1), ('with', True, 1),
                                  ('with-j2', True, 2)):
        # (a page of more than 3 rulings in parts: written by either process)
        app = build(make_app, srcdir, tmp_path / name, speed, parallel=parallel,
                    confoverrides={'handbook_card_page_rulings': 3})
        app.build()
        app.cleanup()
        assert_no_warnings(app)
        from handbook.listings.card_index import kept
        known = kept(app.env).pinyin
        assert {card.key for card in app.env.domains['handbook'].registry.cards()} <= known.keys()
        outputs.append(app.outdir)
    assert len(list((outputs[0] / 'cards').iterdir())) > SPLIT_MIN
    assert list((outputs[0] / 'cards').glob('*_2.html'))
    assert differing(outputs[0], outputs[1]) == []
    assert differing(outputs[0], outputs[2]) == []


def gc_state():
    return gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()


@pytest.fixture
def clean_state():
    """The collector as a host would have it, and no child process; given
    back after the test."""
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    assert multiprocessing.active_children() == []
    yield gc_state()
    gc.set_threshold(*saved)


class Interrupt(KeyboardInterrupt):
    """Ctrl-C, raised by a handler."""


@pytest.mark.parametrize('parallel', [1, 2])
@pytest.mark.parametrize('ending', ['done', 'error', 'interrupt'])
def test_a_build_leaves_no_process_and_the_collector_as_it_was(
        make_app, rootdir, tmp_path, clean_state, parallel, ending):
    srcdir = handbook_root(rootdir, tmp_path)
    app = build(make_app, srcdir, tmp_path / 'out', True, parallel=parallel)
    main = os.getpid()

    def fail(app, *args):
        if os.getpid() == main:
            raise Interrupt() if ending == 'interrupt' else RuntimeError('no way')

    if ending != 'done':  # once the write has started its processes
        app.connect('html-collect-pages', fail)
    if ending == 'done':
        app.build()
        assert_no_warnings(app)
    else:
        with pytest.raises((Interrupt, RuntimeError, Exception)):
            app.build()
    assert multiprocessing.active_children() == []
    assert gc_state() == clean_state


def test_a_failed_configuration_leaves_the_collector_as_it_was(make_app, rootdir, tmp_path,
                                                               clean_state, monkeypatch):
    probe = types.ModuleType('failing_probe')

    def setup(app):
        app.connect('config-inited', lambda app, config: 1 / 0, priority=999)
        return {'parallel_read_safe': True, 'parallel_write_safe': True}

    probe.setup = setup
    monkeypatch.setitem(sys.modules, 'failing_probe', probe)
    srcdir = handbook_root(rootdir, tmp_path)
    with pytest.raises(Exception, match='division'):
        build(make_app, srcdir, tmp_path / 'out', True,
              confoverrides={'extensions': ['handbook.cards', 'handbook.speed', 'failing_probe']})
    assert multiprocessing.active_children() == []
    assert gc_state() == clean_state


def test_a_failing_writing_process_is_reported_and_its_pages_written(
        make_app, rootdir, tmp_path, clean_state):
    srcdir = handbook_root(rootdir, tmp_path)
    app = build(make_app, srcdir, tmp_path / 'out', True, parallel=2)
    main = os.getpid()

    def fail(app, pagename, templatename, context, doctree):
        if os.getpid() != main and pagename == 'p5':
            raise ValueError('no way')

    app.connect('html-page-context', fail)
    app.build()
    found = warnings(app)
    assert len(found) == 1, found
    assert found[0].startswith('p5.rst: WARNING: writing ')
    assert 'failed in a process of its own: ' in found[0] and '(exception: no way)' in found[0]
    assert 'the build writes them in the main process' in found[0]
    assert found[0].endswith('[handbook.speed]')
    assert '「旋风」' in (app.outdir / 'p5.html').read_text(encoding='utf-8')
    assert multiprocessing.active_children() == []


def test_a_failing_index_process_is_reported_and_the_index_made(
        make_app, rootdir, tmp_path, clean_state, monkeypatch):
    from handbook.search import rulings_index

    srcdir = handbook_root(rootdir, tmp_path)
    reference = build(make_app, srcdir, tmp_path / 'reference', False)
    reference.build()
    reference.cleanup()
    app = build(make_app, srcdir, tmp_path / 'out', True)
    main = os.getpid()
    parts = rulings_index.Index.parts

    def fail_aside(self, app, *args):
        if os.getpid() != main:
            raise ValueError('no way')
        return parts(self, app, *args)

    monkeypatch.setattr(rulings_index.Index, 'parts', fail_aside)
    app.build()
    [found] = warnings(app)
    where = f'{__file__}:{fail_aside.__code__.co_firstlineno + 2}'  # the raise
    assert found == (f'{where}: WARNING: making the search index failed in a process of its '
                     f'own: ValueError: no way at {where}; the build makes it in the main '
                     'process (sphinx-build -vv shows the traceback) [handbook.speed]')
    assert differing(reference.outdir / '_static', app.outdir / '_static') == []
    assert multiprocessing.active_children() == []


def test_another_library_version_fails_loudly():
    import importlib.metadata

    check_versions()  # the pinned versions are the guarded ones

    def version(name):
        return '99.0' if name == 'docutils' else importlib.metadata.version(name)

    with pytest.raises(ExtensionError, match=r'docutils 0\.22\* .* this is docutils 99\.0'):
        check_versions(version)


def test_every_allowance_says_why_and_what_guards_it():
    assert ALLOWED
    for allowance in ALLOWED:
        assert allowance.module.startswith('handbook.speed.')
        assert allowance.reason and allowance.versions and allowance.library


# -- pure functions -------------------------------------------------------------------


def test_a_heavy_page_is_written_in_a_chunk_of_its_own():
    names = sorted([f'ch{c}/p{p}' for c in range(1, 7) for p in range(1, 9)] + [
        'faq/2023', 'faq/2024', 'faq/index', 'index'])
    sizes = {name: 250_000 for name in names}
    sizes.update({'faq/2023': 4_000_000, 'faq/2024': 5_800_000, 'faq/index': 3_000,
                  'index': 5_000})
    chunks = weighed_chunks(names, len(make_chunks(names, 2)), sizes.__getitem__)
    assert [name for chunk in chunks for name in chunk] == names  # the same order
    assert ['faq/2023'] in chunks and not any({'faq/2023', 'faq/2024'} <= set(c) for c in chunks)
    assert weighed_chunks([], 3, sizes.__getitem__) == []
    assert weighed_chunks(['a', 'b'], 5, lambda name: 0) == [['a'], ['b']]


def test_a_parallel_read_spreads_the_yearly_faq_pages_over_its_chunks():
    # the bench corpus's shape: 48 chapter pages, five yearly FAQ pages of
    # more than half the source, neighbours in name order
    names = sorted([f'ch{c}/p{p:02}' for c in range(1, 7) for p in range(1, 9)]
                   + [f'ch{c}/index' for c in range(1, 7)]
                   + [f'faq/{year}' for year in range(2020, 2025)]
                   + ['card-index', 'faq/index', 'index', 'timeline'])
    sizes = {name: 45_000 if '/p' in name else 2_000 for name in names}
    sizes.update({'faq/2020': 465_000, 'faq/2021': 517_000, 'faq/2022': 591_000,
                  'faq/2023': 642_000, 'faq/2024': 697_000})

    def weights(order):
        return [sum(sizes[name] for name in chunk) for chunk in make_chunks(order, 2)]

    before = weights(names)
    assert max(before) > 0.6 * sum(before)  # one chunk holds every FAQ page
    order = balanced(names, 2, sizes.__getitem__)
    assert sorted(order) == names
    assert [len(c) for c in make_chunks(order, 2)] == [len(c) for c in make_chunks(names, 2)]
    after = weights(order)
    assert after == sorted(after, reverse=True)  # the heaviest chunk first
    assert max(after) < 1.1 * sum(after) / len(after)
    assert all(sum(name.startswith('faq/20') for name in chunk) <= 2
               for chunk in make_chunks(order, 2))
    assert balanced(names, 2, sizes.__getitem__) == order  # the same order for the same pages
    assert balanced([], 2, sizes.__getitem__) == []


def test_a_parallel_build_that_reads_one_page_reads_it_in_the_main_process(
        make_app, rootdir, tmp_path):
    # a parallel read sends each chunk's environment back to be merged
    # (env-merge-info); one page is read where the build runs, and the pages
    # are still written in parallel
    srcdir = handbook_root(rootdir, tmp_path)
    first = build(make_app, srcdir, tmp_path / 'out', True, parallel=2)
    first.build()
    first.cleanup()  # Sphinx's global registries, before the next app
    for edited in (['p5'], ['p5', 'p6']):
        for name in edited:
            page = srcdir / f'{name}.rst'
            page.write_text(page.read_text(encoding='utf-8') + f'\n{len(edited)}次编辑。\n',
                            encoding='utf-8')
        app = build(make_app, srcdir, tmp_path / 'out', True, parallel=2, freshenv=False)
        merged, jobs = [], []
        app.connect('env-merge-info', lambda app, env, docnames, other: merged.extend(docnames))
        app.connect('env-updated', lambda app, env: jobs.append(app.parallel))
        app.build()
        app.cleanup()
        assert_no_warnings(app)
        assert sorted(merged) == ([] if len(edited) == 1 else edited)
        assert jobs == [2] and app.parallel == 2 and app.builder.parallel_ok
        for name in edited:
            assert f'{len(edited)}次编辑。' in (app.outdir / f'{name}.html').read_text(
                encoding='utf-8')


def test_a_serial_read_gives_the_jobs_back_whichever_way_the_build_ends():
    from handbook.speed.session import Session

    app = types.SimpleNamespace(parallel=2)
    with Session({'read-order'}) as session:
        session.read_serially(app)
        session.read_serially(app)  # once only: the -j given back is the first one
        assert app.parallel == 1
        session.read_ended()
        assert app.parallel == 2
        session.read_serially(app)
    assert app.parallel == 2  # the read did not end: the session's end gives it back
    with pytest.raises(Interrupt), Session({'read-order'}) as session:
        session.read_serially(app)
        raise Interrupt()
    assert app.parallel == 2


def test_the_navigation_of_pages_no_source_gives_is_kept_for_their_folder(
        make_app, rootdir, tmp_path, monkeypatch):
    # the search page, the index, the card pages' frame show their folder's
    # navigation (handbook.render.navigation): an edit that changes no title
    # makes none of them again; a new title makes them anew
    import sphinx.builders.html
    from handbook.speed import toctree_cache

    made: list[str] = []
    for module in (toctree_cache, sphinx.builders.html):
        original = module.global_toctree_for_doc

        def counted(env, docname, *args, original=original, **kwargs):
            made.append(docname)
            return original(env, docname, *args, **kwargs)
        monkeypatch.setattr(module, 'global_toctree_for_doc', counted)

    srcdir = handbook_root(rootdir, tmp_path)
    page = srcdir / 'p3.rst'

    def sidebars(app) -> dict[str, str]:
        """The navigation of each page no source gives, by its file."""
        return {path.relative_to(app.outdir).as_posix(): re.search(
                    r'<div class="sidebar-tree">.*?</div>', path.read_text(encoding='utf-8'),
                    re.S).group()
                for path in app.outdir.rglob('*.html')
                if path.relative_to(app.outdir).with_suffix('').as_posix() not in app.env.all_docs
                and path.name != '404.html'}

    def rebuild(old: str, new: str) -> dict[str, str]:
        """The page edited and built again; its site's navigations, those
        of a clean build of the same pages."""
        page.write_text(page.read_text(encoding='utf-8').replace(old, new, 1), encoding='utf-8')
        made.clear()
        app = build(make_app, srcdir, tmp_path / 'out', True, freshenv=False)
        app.build()
        app.cleanup()  # Sphinx's global registries, before the next app
        assert_no_warnings(app)
        built = list(made)
        clean = build(make_app, srcdir, tmp_path / f'clean{len(cleans)}', True)
        clean.build()
        clean.cleanup()
        cleans.append(clean)
        made[:] = built
        assert sidebars(app) == sidebars(clean)
        return sidebars(app)

    cleans: list = []
    first = build(make_app, srcdir, tmp_path / 'out', True)
    first.build()
    first.cleanup()
    # one navigation per folder (the first page of each): the others share it
    assert sorted(posixpath.dirname(name) for name in made if name not in first.env.all_docs) \
        == ['', 'card-index', 'cards', 'timeline']
    before = sidebars(first)
    assert {posixpath.dirname(name) for name in before} == {'', 'card-index', 'cards', 'timeline'}
    assert rebuild('也一样', '也是一样') == before  # a ruling reworded
    assert made == []
    after = rebuild('第3页\n=======', '第三页\n=======')
    assert made and all('第三页' in navigation for navigation in after.values())


def test_late_parts_are_written_into_their_page_in_place_of_their_markers(tmp_path):
    late = LateParts()
    first = late.add(lambda: iter(['<ul>\n', '<li>「旋风」𠀋</li>\n', '</ul>\n']))
    late.add(lambda: iter(['never written']))
    last = late.add(lambda: iter(['<p>&amp;</p>']))
    page = tmp_path / 'page.html'
    page.write_text(f'<body>\n{first}\n<p>中</p>{last}</body>\n', encoding='utf-8')
    late.write(page, 'utf-8')
    assert page.read_text(encoding='utf-8') == (
        '<body>\n<ul>\n<li>「旋风」𠀋</li>\n</ul>\n\n<p>中</p><p>&amp;</p></body>\n')
    assert [p.name for p in tmp_path.iterdir()] == ['page.html']  # no temporary file left


# -- equal to the libraries' own ------------------------------------------------------


@pytest.mark.sphinx('html', testroot='navigation')
@pytest.mark.parametrize('arguments', [
    {'collapse': False, 'titles_only': True, 'maxdepth': -1, 'includehidden': True},  # furo's
    {'collapse': False, 'titles_only': True},
    {'collapse': False, 'titles_only': True, 'maxdepth': 2, 'includehidden': False},
    {'collapse': False, 'titles_only': True, 'maxdepth': ''},
])
def test_the_navigation_made_from_titles_is_what_sphinx_makes(app, arguments):
    # the root has the shapes that must not change what comes out: nested
    # chapters, a toctree in a section, hidden, glob, self, URL and retitled
    # entries, :tocdepth:, ``only``, a page with two titles
    from handbook.speed import toctree_cache
    from sphinx.environment.adapters.toctree import global_toctree_for_doc

    app.build()
    env, builder = app.env, app.builder
    navigations = toctree_cache.Toctrees()
    for docname in sorted(env.found_docs):
        made = navigations.navigation(builder, docname, **arguments)
        expected = dict(arguments)
        expected.setdefault('includehidden', False)
        if expected.get('maxdepth') == '':
            del expected['maxdepth']
        sphinxs = global_toctree_for_doc(env, docname, builder, tags=builder.tags, **expected)
        assert made == builder.render_partial(sphinxs)['fragment'], docname
        assert made.count('<a') >= 10, docname


#: reStructuredText of every kind whose parse nests a state machine
NESTING = '''\
Title
=====

| 「`A`_」 first line
| second line
|    indented line
| last line

* item with a line block:

  | one
  | two

* item

  #. enumerated
  #. again

     | in an enumerated item

term
   definition with *emphasis*

:field: body
:other: | line
        | block

-a         option
--long=x   another

.. note::

   | a line block in a directive

   .. [#] a footnote in it

.. _target:
.. |sub| replace:: substituted
.. [cit] a citation

Subsection
----------

::

  literal

> quoted
> again

+-----+-----+
| a   | b   |
+-----+-----+

>>> doctest

  block quote

  -- attribution

.. unknown-directive:: argument

| a line block without its blank line
text right after
'''


def parsed(text: str, parser) -> str:
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser as DocutilsParser
    from docutils.utils import new_document

    settings = get_default_settings(DocutilsParser)
    settings.report_level = 5
    # a page here never reads a file or an address, whatever a test root holds
    settings.file_insertion_enabled = False
    settings.raw_enabled = False
    document = new_document('<page>', settings)
    parser.parse(text, document)
    return document.pformat()


def test_the_parser_parses_as_docutils_does(rootdir):
    from docutils.parsers.rst import Parser as DocutilsParser
    from sphinx.util.docutils import docutils_namespace

    from handbook.speed.rst_parser import STATE_CLASSES

    lazily = DocutilsParser()
    lazily.state_classes = STATE_CLASSES
    pages = [NESTING] + [path.read_text(encoding='utf-8')
                         for folder in (rootdir, ROOT / 'source')
                         for path in sorted(folder.glob('**/*.rst'))]
    assert len(pages) > 100
    # a page's `.. role::` registers its role in docutils' global table: restored after
    with docutils_namespace():
        for text in pages:
            assert parsed(text, lazily) == parsed(text, DocutilsParser())
    assert all(name in parsed(NESTING, lazily)
               for name in ('<line_block>', '<enumerated_list', '<definition_list>',
                            '<option_list>', '<footnote', '<citation', '<table>',
                            '<doctest_block', '<attribution>', '<literal_block'))
