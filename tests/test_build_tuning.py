"""How a build spends its time, without changing what it writes: the largest
pages spread over the processes of a parallel read
(``handbook/core/reading_order.py``), ``-j`` processes writing
(``handbook/core/writing_order.py``), and the garbage collector during a
build and at the process's exit (``handbook/core/gc_policy.py``).  That
``-j 2`` still writes what ``-j 1`` writes is ``test_builds.py``'s test."""

from __future__ import annotations

import gc
import multiprocessing
import os
import shutil
import subprocess
import sys
import time
import types
import weakref

import pytest
import sphinx.builders
from docutils import nodes
from handbook.core import gc_policy, reading_order, toctree_cache, writing_order
from handbook.core.reading_order import balanced, spread
from handbook.core.records import frozen_record
from helpers import ROOT, assert_no_warnings
from sphinx.errors import SphinxParallelError
from sphinx.util.parallel import ParallelTasks, make_chunks


def chunk_of(order: list[str], nproc: int) -> dict[str, int]:
    return {name: i for i, chunk in enumerate(make_chunks(order, nproc)) for name in chunk}


def test_a_parallel_read_ends_when_its_processes_end_together(monkeypatch):
    # a handbook's shape: the two yearly FAQ pages sort next to each other
    names = [f'ch{c}/p{p}' for c in range(1, 7) for p in range(1, 9)] + [
        'faq/2023', 'faq/2024', 'faq/index', 'index', 'timeline', 'card-index']
    sizes = {name: 50_000 for name in names}
    sizes.update({'faq/2023': 670_000, 'faq/2024': 990_000, 'faq/index': 300,
                  'index': 2_000, 'timeline': 60, 'card-index': 50})
    names.sort()
    assert chunk_of(names, 2)['faq/2023'] == chunk_of(names, 2)['faq/2024']  # Sphinx's order

    def ends(order, nproc=2):
        # each process's reading, as Sphinx hands out the chunks
        loads, at = [], 0
        for chunk in make_chunks(order, nproc):
            loads.append(sum(sizes[name] + reading_order.PAGE_COST
                             for name in order[at:at + len(chunk)]))
            at += len(chunk)
        return reading_order.read_end(loads, nproc)

    order = balanced(names, sizes, 2)
    assert sorted(order) == names
    # the chunks Sphinx cuts keep their sizes
    assert [len(c) for c in make_chunks(order, 2)] == [len(c) for c in make_chunks(names, 2)]
    # the processes end within a small page of each other, much sooner than in
    # Sphinx's order, and sooner than with the largest pages spread alone
    first, last = ends(order)
    assert first - last <= 50_000 + reading_order.PAGE_COST
    assert first < ends(names)[0] - 400_000
    # the same order for the same pages
    assert balanced(list(reversed(names)), sizes, 2) == order
    four = ends(balanced(names, sizes, 4), 4)[0]
    # sooner than with the largest pages spread alone (no swap)
    monkeypatch.setattr(reading_order, 'MOST_SWAPS', 0)
    assert first < ends(balanced(names, sizes, 2))[0]
    assert four <= ends(balanced(names, sizes, 4), 4)[0]  # never later


def test_only_a_parallel_read_is_reordered(tmp_path):
    names = ['a', 'b', 'c']
    for name, size in zip(names, (10, 20, 30)):
        (tmp_path / f'{name}.rst').write_text('x' * size, encoding='utf-8')
    env = types.SimpleNamespace(doc2path=lambda name: tmp_path / f'{name}.rst')
    for parallel, expected in ((1, ['a', 'b', 'c']), (2, ['c', 'b', 'a'])):
        docnames = list(names)
        spread(types.SimpleNamespace(parallel=parallel), env, docnames)
        assert docnames == expected


def test_a_parallel_read_spreads_the_largest_pages(make_app, rootdir, tmp_path):
    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    for page in ('p1', 'p2'):  # two large pages next to each other (a comment pads them)
        path = srcdir / f'{page}.rst'
        path.write_text(path.read_text(encoding='utf-8') + '\n..\n' + '   padding\n' * 2000,
                        encoding='utf-8')
    order: list[str] = []
    app = make_app('html', srcdir=srcdir, parallel=2)
    # after the handbook's own handler, which runs at priority 900
    app.connect('env-before-read-docs', lambda app, env, docnames: order.extend(docnames),
                priority=999)
    app.build()
    assert_no_warnings(app)
    chunks = chunk_of(order, 2)
    assert chunks['p1'] != chunks['p2']


@pytest.mark.parametrize('parallel, cores, reading, writing', [
    (2, 2, [2], [2]), (3, 2, [3], [3]),
    (1, 2, [], [1]),  # a serial write: its last page, the timeline, in a process of its own
    (1, 1, [], []),  # but on one core
])
def test_a_parallel_write_writes_with_as_many_processes_as_j(
        make_app, rootdir, tmp_path, monkeypatch, parallel, cores, reading, writing):
    read: list[int] = []
    written: list[int] = []

    class NotingReaders(ParallelTasks):
        def __init__(self, nproc: int) -> None:
            read.append(nproc)
            super().__init__(nproc)

    class NotingWriters(writing_order.WritingProcesses):
        def __init__(self, nproc: int, done) -> None:
            written.append(nproc)
            super().__init__(nproc, done)

    monkeypatch.setattr(sphinx.builders, 'ParallelTasks', NotingReaders)
    monkeypatch.setattr(writing_order, 'WritingProcesses', NotingWriters)
    monkeypatch.setattr(writing_order.os, 'sched_getaffinity', lambda pid: set(range(cores)))
    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    app = make_app('html', srcdir=srcdir, parallel=parallel)
    app.build()
    assert_no_warnings(app)
    assert (read, written) == (reading, writing)  # Sphinx alone writes with parallel - 1


def test_the_main_process_keeps_no_chunk_it_handed_out(make_app, rootdir, tmp_path):
    # Sphinx keeps every chunk's doctrees until its process ends; while the
    # writing processes are slow, it would hold all the pages at once
    main = os.getpid()
    resolved: list[nodes.document] = []
    names: list[str] = []
    most = []

    def note(app, doctree, docname):
        if os.getpid() == main:
            resolved.append(doctree)
            names.append(docname)
            most.append(sum(bool(vars(doctree)) for doctree in resolved))  # not released

    def slow(app, pagename, templatename, context, doctree):
        if os.getpid() != main:
            time.sleep(0.1)

    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    # the first page by name is not the lightest (Sphinx writes the first by name first)
    (srcdir / 'aaa.rst').write_text('长页\n====\n\n' + '正文。\n\n' * 300, encoding='utf-8')
    index = srcdir / 'index.rst'
    index.write_text(index.read_text(encoding='utf-8').replace('   p1\n', '   aaa\n   p1\n'),
                     encoding='utf-8')
    app = make_app('html', srcdir=srcdir, parallel=2)
    app.connect('doctree-resolved', note, priority=999)
    app.connect('html-page-context', slow)
    app.build()
    assert_no_warnings(app)
    def size(docname):
        return (app.doctreedir / f'{docname}.doctree').stat().st_size

    pages = sorted(app.env.found_docs - {'timeline'})  # the timeline is written last, alone
    lightest = min(pages, key=size)  # written before the others, by the main process
    assert names[0] == lightest != pages[0]
    # then the heaviest first: the last chunks, written while nothing else is, are light
    rest = sorted((docname for docname in pages if docname != lightest), key=lambda d: -size(d))
    assert names[1:len(rest) + 1] == rest
    chunks = writing_order.weighed_chunks(rest, len(make_chunks(rest, 2)), size)
    assert len(chunks) > 1 and len(resolved) == len(app.env.found_docs)
    assert max(most) == max(map(len, chunks))  # the chunk being resolved, and no other
    assert not any(map(vars, resolved))  # all released once written


def test_the_main_process_indexes_a_chunk_while_its_process_writes_it(
        make_app, rootdir, tmp_path, monkeypatch):
    # Sphinx indexes a chunk's pages before it starts the process writing them;
    # at the end of a build, a heavy page then waited for its indexing alone
    main = os.getpid()
    events: list[tuple] = []
    free, start = writing_order.WritingProcesses.free, writing_order.WritingProcesses.start

    def noting_free(self):
        events.append(('free', free(self)))
        return events[-1][1]

    def noting_start(self, function, chunk):
        events.append(('start', tuple(docname for docname, _ in chunk)))
        return start(self, function, chunk)

    def noting_feed(self, pagename, filename, title, doctree):
        if os.getpid() == main:
            events.append(('index', pagename))
        return feed(self, pagename, filename, title, doctree)

    def slow(app, pagename, templatename, context, doctree):
        if os.getpid() != main:
            time.sleep(0.2)  # both processes busy: a chunk waits, indexed first

    from sphinx.search import IndexBuilder
    feed = IndexBuilder.feed
    monkeypatch.setattr(writing_order.WritingProcesses, 'free', noting_free)
    monkeypatch.setattr(writing_order.WritingProcesses, 'start', noting_start)
    monkeypatch.setattr(IndexBuilder, 'feed', noting_feed)
    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    app = make_app('html', srcdir=srcdir, parallel=2)
    app.connect('html-page-context', slow)
    app.build()
    assert_no_warnings(app)
    chunks, at_once = [], []
    for i, (kind, value) in enumerate(events):
        if kind == 'free':
            started = next(j for j in range(i, len(events)) if events[j][0] == 'start')
            chunks.append(events[started][1])
            indexed = [j for j, (k, docname) in enumerate(events)
                       if k == 'index' and docname in events[started][1]]
            # at once: its pages indexed once the process started; else while it waits
            assert indexed and all((j > started) == value for j in indexed), events
            at_once.append(value)
    assert len(chunks) > 2 and True in at_once and False in at_once  # both cases seen


def test_a_heavy_page_is_written_in_a_chunk_of_its_own():
    # a handbook's shape: the two yearly FAQ pages sort next to each other
    names = [f'ch{c}/p{p}' for c in range(1, 7) for p in range(1, 9)] + [
        'faq/2023', 'faq/2024', 'faq/index', 'index']
    sizes = {name: 250_000 for name in names}
    sizes.update({'faq/2023': 4_000_000, 'faq/2024': 5_800_000, 'faq/index': 3_000,
                  'index': 5_000})
    names.sort()
    sphinx_chunks = make_chunks(names, 2)
    assert any({'faq/2023', 'faq/2024'} <= set(chunk) for chunk in sphinx_chunks)
    chunks = writing_order.weighed_chunks(names, len(sphinx_chunks), sizes.__getitem__)
    assert [name for chunk in chunks for name in chunk] == names  # the same order
    assert ['faq/2023'] in chunks and not any({'faq/2023', 'faq/2024'} <= set(c) for c in chunks)
    share = sum(sizes.values()) / len(sphinx_chunks)  # a chunk of pages weighs a share at most
    assert all(sum(map(sizes.__getitem__, chunk)) <= share for chunk in chunks if len(chunk) > 1)
    assert writing_order.weighed_chunks([], 3, sizes.__getitem__) == []
    assert writing_order.weighed_chunks(['a', 'b'], 5, lambda name: 0) == [['a'], ['b']]


@pytest.mark.parametrize(('parallel', 'page'), [
    (2, 'p5'),  # a chunk's process
    (1, 'timeline'),  # a serial write's process for its last pages
])
def test_an_error_in_a_writing_process_is_raised_with_its_traceback(
        make_app, rootdir, tmp_path, parallel, page):
    main = os.getpid()

    def fail(app, pagename, templatename, context, doctree):
        if os.getpid() != main and pagename == page:
            raise ValueError('no way')

    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    app = make_app('html', srcdir=srcdir, parallel=parallel)
    app.connect('html-page-context', fail)
    with pytest.raises(SphinxParallelError) as raised:
        app.build()
    assert 'no way' in str(raised.value)
    assert 'raise ValueError' in raised.value.traceback


@pytest.fixture
def default_thresholds():
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*saved)


def test_a_serial_build_collects_less_often_then_gives_the_thresholds_back(
        make_app, rootdir, tmp_path, default_thresholds):
    seen = []
    app = make_app('html', srcdir=rootdir / 'test-cards', builddir=tmp_path)
    app.connect('env-updated', lambda app, env: seen.append(gc.get_threshold()))
    app.build()
    assert seen == [(gc_policy.YOUNG, 10, 10)]
    assert gc.get_threshold() == (700, 10, 10)


@pytest.mark.parametrize('before', [(0, 10, 10), (50_000, 10, 10)])
def test_thresholds_someone_set_are_kept(before, default_thresholds):
    gc.set_threshold(*before)
    assert gc_policy.raise_threshold() == before
    assert gc.get_threshold() == before


def test_the_process_skips_its_last_collection_after_a_build(rootdir, tmp_path):
    # a handler registered before the build runs after the build's (atexit: last
    # in, first out) and sees what the process's last collection would walk
    script = f'''
import atexit, gc, sys
sys.path.insert(0, {str(ROOT / '_ext')!r})
atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 0))
from sphinx.application import Sphinx
app = Sphinx({str(rootdir / 'test-cards')!r}, {str(rootdir / 'test-cards')!r},
             {str(tmp_path / 'html')!r}, {str(tmp_path / 'doctrees')!r}, 'html',
             status=None, warning=None)
print('frozen before the build:', gc.get_freeze_count() > 0)
app.build()
print('frozen after the build:', gc.get_freeze_count() > 0)
'''
    run = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                         timeout=120)
    assert run.stdout.splitlines() == ['frozen before the build: False',
                                       'frozen after the build: False',
                                       'frozen at exit: True'], run.stderr


def test_what_reading_left_is_frozen_while_the_pages_are_written(make_app, rootdir, tmp_path):
    frozen = []
    app = make_app('html', srcdir=rootdir / 'test-cards', builddir=tmp_path)
    app.connect('write-started', lambda app, builder: frozen.append(gc.get_freeze_count()))
    assert gc.get_freeze_count() == 0
    app.build()
    assert frozen[0] > 0  # the environment, the doctrees to write
    assert gc.get_freeze_count() == 0  # given back to the collector after the build


class Cycle:
    """Garbage only the collector frees."""

    def __init__(self) -> None:
        self.me = self


def test_a_serial_read_freezes_each_page_read_and_collects_what_it_left(
        make_app, rootdir, tmp_path):
    # the doctrees a serial read keeps until they are written were walked by
    # every full collection while the next pages were read
    frozen: list[int] = []  # at each page's start, after the handbook's handler
    before: list[int] = []  # at each page's start, before it
    left: list[weakref.ref] = []  # garbage each page's reading left
    alive: list[bool] = []  # whether the last page's was alive then
    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    app = make_app('html', srcdir=srcdir)

    def reading(app, docname, source):
        frozen.append(gc.get_freeze_count())
        if left:
            alive.append(left[-1]() is not None)

    def read(app, doctree):
        left.append(weakref.ref(Cycle()))

    app.connect('source-read', reading, priority=999)
    app.connect('source-read', lambda app, docname, source: before.append(gc.get_freeze_count()),
                priority=1)
    app.connect('doctree-read', read)
    app.build()
    assert_no_warnings(app)
    assert len(frozen) > 3 and frozen == sorted(frozen) and frozen[0] < frozen[-1]
    assert alive and not any(alive)  # collected before the page after was read
    assert before[0] > 0  # what was alive before the first page (a rebuild's environment)
    assert gc.get_freeze_count() == 0


def test_the_main_process_of_a_parallel_write_resolves_without_the_collector(
        make_app, rootdir, tmp_path):
    # it resolves and indexes with the collector off, the writing processes
    # collect, and it gets its collector back after (gc_policy.Paused)
    main = os.getpid()
    resolved: dict[str, bool] = {}
    written = tmp_path / 'written'  # what the writing processes saw

    def note_resolved(app, doctree, docname):
        if os.getpid() == main:
            resolved[docname] = gc.isenabled()

    def note_written(app, pagename, templatename, context, doctree):
        if os.getpid() != main:
            with written.open('a', encoding='utf-8') as out:
                out.write(f'{pagename} {gc.isenabled()}\n')

    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    app = make_app('html', srcdir=srcdir, parallel=2)
    app.connect('doctree-resolved', note_resolved)
    app.connect('html-page-context', note_written)
    assert gc.isenabled()
    app.build()
    assert_no_warnings(app)
    in_chunks = set(resolved) - {'timeline'} - {  # the timeline, written after, alone
        min(resolved, key=lambda d: (app.doctreedir / f'{d}.doctree').stat().st_size)}
    assert len(in_chunks) > 2 and not any(resolved[docname] for docname in in_chunks)
    seen = dict(line.split() for line in written.read_text(encoding='utf-8').splitlines())
    assert set(seen) == in_chunks and set(seen.values()) == {'True'}
    assert gc.isenabled()


def test_a_build_that_reads_few_pages_runs_without_the_collector(make_app, rootdir, tmp_path):
    # gc_policy.Frozen: an edit's main process, whose collections found almost
    # nothing; a build that reads more collects as it goes.  Turned on again
    # at the end, the collector has nothing young to walk at once
    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    written: dict[str, bool] = {}
    after: list[tuple[bool, int]] = []

    def build() -> None:  # the second app warns that Sphinx's nodes are registered
        written.clear()
        after.clear()
        app = make_app('html', srcdir=srcdir, builddir=tmp_path / 'build')
        app.connect('html-page-context', lambda app, pagename, *args:
                    written.__setitem__(pagename, gc.isenabled()))
        app.connect('build-finished', lambda app, exception:
                    after.append((gc.isenabled(), gc.get_count()[0])), priority=999)
        app.build()
        assert app.statuscode == 0

    build()  # 9 pages read
    assert len(written) > gc_policy.FEW and all(written.values())
    page = srcdir / 'p2.rst'
    page.write_text(page.read_text(encoding='utf-8') + '\n新增一段。\n', encoding='utf-8')
    build()
    assert 'p2' in written and not any(written.values())
    enabled, young = after[0]
    assert enabled and young < 100  # not the build's objects, tens of thousands
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_the_environment_is_loaded_without_the_collector(make_app, rootdir, tmp_path,
                                                         monkeypatch):
    # gc_policy.Frozen.loading: what is loaded is alive; once it is, the
    # collector is on again, with nothing young to walk at once
    seen = []
    probe = types.ModuleType('gc_probe')

    def setup(app):
        app.connect('config-inited', lambda app, config: seen.append(gc.isenabled()),
                    priority=999)
        app.connect('builder-inited', lambda app: seen.append((gc.isenabled(),
                                                               gc.get_count()[0] < 100)),
                    priority=101)
        return {'parallel_read_safe': True, 'parallel_write_safe': True}

    probe.setup = setup
    monkeypatch.setitem(sys.modules, 'gc_probe', probe)
    app = make_app('html', srcdir=rootdir / 'test-cards', builddir=tmp_path,
                   confoverrides={'extensions': ['handbook.cards.links', 'gc_probe']})
    assert seen == [False, (True, True)]
    app.build()
    assert gc.isenabled()


def test_a_written_doctree_is_freed_without_the_collector():
    import weakref

    from docutils import nodes
    from sphinx.util.docutils import new_document

    document = new_document('<page>')
    paragraph = nodes.paragraph('', '', nodes.Text('「'), nodes.strong('', '旋风'), nodes.Text('」'))
    document += nodes.section('', nodes.title('', '标题'), paragraph, ids=['s'])
    document.note_implicit_target(document[0])
    found = weakref.ref(paragraph), weakref.ref(document)
    gc.disable()
    try:
        gc_policy.release(document)
        del document, paragraph
        assert [ref() for ref in found] == [None, None]  # reference counting freed them
    finally:
        gc.enable()


@frozen_record
class Point:
    x: int
    y: tuple = ()


def test_records_pickle_as_their_class_and_fields():
    import dataclasses
    import pickle

    from handbook.cards.registry import Card

    point = Point(1, ('a',))
    assert point.__reduce__() == (Point, (1, ('a',)))
    assert pickle.loads(pickle.dumps([point, point])) == [point, point]
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 2
    # a field made by __post_init__ is made again: a card's registry key
    card = Card('ＤＤＤ 反骨王', 'card', 3, aliases=(('zh_TW', '反骨王'),))
    copy = pickle.loads(pickle.dumps(card))
    assert copy == card and copy.key == card.key == 'ddd反骨王'


def test_the_store_pickles_a_record_once_while_it_is_the_same(monkeypatch):
    # handbook.store.Pages: the environment is pickled after every build that
    # read a page; an unchanged record is written as the bytes it was read from
    import pickle

    from handbook import store as store_module
    from handbook.store import PageRecord, Pages

    def record(title: str) -> PageRecord:
        return PageRecord(title=title, cards=(('旋风', '旋风'),), rulings=(), sections=(),
                          holds=frozenset())

    loaded = pickle.loads(pickle.dumps(Pages({'a': record('A'), 'b': record('B')})))
    assert isinstance(loaded, Pages) and loaded == {'a': record('A'), 'b': record('B')}
    pickled: list[str] = []
    real = pickle.dumps
    monkeypatch.setattr(store_module.pickle, 'dumps',
                        lambda obj, *args: pickled.append(obj.title) or real(obj, *args))
    loaded['b'] = record('B2')
    loaded.setdefault('c', record('C'))
    again = pickle.loads(real(loaded))
    assert pickled == ['B2', 'C']  # 'a' as it was read
    assert again == {'a': record('A'), 'b': record('B2'), 'c': record('C')}
    # a record replaced or removed any way is not written as its old bytes
    for change in (lambda p: p.pop('a'), lambda p: p.__delitem__('a'), lambda p: p.clear(),
                   lambda p: p.update(a=record('A3')), lambda p: p.popitem()):
        pages = pickle.loads(real(again))
        change(pages)
        assert pickle.loads(real(pages)) == dict(pages)
    # a reading process's record is taken with its bytes
    merged = Pages()
    pickled.clear()
    merged.take('c', again)
    assert pickle.loads(real(merged)) == {'c': record('C')} and pickled == []


def _scheduling_when_idle() -> int:
    writing_order.when_idle()
    return os.sched_getscheduler(0)


@pytest.mark.skipif(not hasattr(os, 'SCHED_IDLE'), reason='Linux scheduling policies')
def test_work_done_ahead_runs_on_what_the_build_leaves():
    # the pinyin and the cuts done ahead in processes of their own (card_index,
    # card_search) take no core from the build: a process of its own here
    with multiprocessing.get_context('fork').Pool(1) as pool:
        assert pool.apply(_scheduling_when_idle) == os.SCHED_IDLE
    assert os.sched_getscheduler(0) != os.SCHED_IDLE  # this one's unchanged


def test_a_page_read_is_not_written_out_for_the_debug_log():
    # Sphinx's emit makes repr() of each event's arguments for its debug log,
    # whatever the verbosity: a page's contribution holds every node found
    from docutils import nodes
    from docutils.utils import new_document
    from handbook.store import Contribution, walk

    doctree = new_document('faq/2024.rst')
    for n in range(2000):
        doctree += nodes.paragraph('', '', nodes.reference('', f'卡{n}', refuri='https://x/'))
    contribution = Contribution('faq/2024', walk(doctree, {}), doctree)
    assert repr((contribution,)) == "(<Contribution of 'faq/2024'>,)"


def test_reading_leaves_no_card_link_for_the_collector(make_app, rootdir, tmp_path, monkeypatch):
    # the collector freezes what reading left without collecting first
    # (gc_policy.Frozen): no card link of the pages read is garbage that only
    # a collection would free.  A registry name's link is made at once
    # (links.CardReferences); a role's card xref, replaced by its link once
    # the page is read, is emptied (links.replace_xref): its name's inline
    # pointed back to it
    from docutils import nodes
    from handbook.cards import links
    from handbook.nodes import card_of

    replaced = []
    real = links.replace_xref
    monkeypatch.setattr(links, 'replace_xref',
                        lambda xref, link: replaced.append(xref['cardname']) or real(xref, link))
    app = make_app('html', srcdir=rootdir / 'test-card-pages', builddir=tmp_path)
    garbage = []

    def before(app, env, docnames):
        gc.collect()
        gc.disable()

    def after(app, env):
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            gc.collect()
            garbage.extend(o for o in gc.garbage if isinstance(o, nodes.Element) and (
                card_of(o) is not None or o.get('classes') == ['card-name']))
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
            gc.enable()
    app.connect('env-before-read-docs', before)
    app.connect('env-updated', after, priority=100)
    calls = []
    real_collect = gc.collect
    app.connect('env-updated', lambda app, env: monkeypatch.setattr(
        gc, 'collect', lambda *a: calls.append(a) or real_collect(*a)), priority=101)
    app.connect('write-started', lambda app, builder: monkeypatch.setattr(gc, 'collect',
                                                                          real_collect))
    try:
        app.build()
    finally:
        gc.enable()
    assert replaced and garbage == []  # the strike role's 「旋风」 was replaced
    assert calls == []  # frozen without a collection


def test_late_parts_are_written_into_their_page_in_place_of_their_markers(tmp_path):
    late = writing_order.LateParts()
    first = late.add(lambda: iter(['<ul>\n', '<li>「旋风」𠀋</li>\n', '</ul>\n']))
    missing = late.add(lambda: iter(['never written']))
    last = late.add(lambda: iter(['<p>&amp;</p>']))
    assert len({first, missing, last}) == 3 and late.token in first
    page = tmp_path / 'page.html'
    page.write_text(f'<body>\n{first}\n<p>中</p>{last}</body>\n', encoding='utf-8')
    late.write(page, 'utf-8')
    assert page.read_text(encoding='utf-8') == (
        '<body>\n<ul>\n<li>「旋风」𠀋</li>\n</ul>\n\n<p>中</p><p>&amp;</p></body>\n')
    assert [p.name for p in tmp_path.iterdir()] == ['page.html']  # no temporary file left


def test_pages_with_late_parts_are_written_as_without(make_app, rootdir, tmp_path,
                                                      monkeypatch):
    # the timeline's months and the card index's groups are written after
    # their pages; the bytes are those of the whole part written in the page
    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    marked = tmp_path / 'marked'  # the pages whose body has a late part's marker
    late = make_app('html', srcdir=srcdir, builddir=tmp_path / 'late')

    def body(app, pagename, templatename, context, doctree):
        if 'handbook-late-part' in context.get('body', ''):  # in whichever process writes it
            with marked.open('a', encoding='utf-8') as out:
                out.write(f'{pagename}\n')
    late.connect('html-page-context', body)
    late.build()
    assert_no_warnings(late)
    assert {'timeline', 'card-index'} <= set(marked.read_text(encoding='utf-8').split())

    monkeypatch.setattr(writing_order.OrderedHTMLBuilder, 'writes_late_parts', False)
    whole = make_app('html', srcdir=srcdir, builddir=tmp_path / 'whole')
    whole.build()
    pages = sorted(p.relative_to(whole.outdir) for p in whole.outdir.rglob('*.html'))
    assert pages == sorted(p.relative_to(late.outdir) for p in late.outdir.rglob('*.html'))
    for page in pages:
        written = (late.outdir / page).read_bytes()
        assert written == (whole.outdir / page).read_bytes(), page
        assert b'handbook-late-part' not in written
    assert b'ruling-entry' in (late.outdir / 'timeline.html').read_bytes()
    assert b'card-index-' in (late.outdir / 'card-index.html').read_bytes()


def test_a_build_that_reads_no_page_keeps_the_tables_of_contents_pages_show(
        make_app, rootdir, tmp_path, monkeypatch):
    # the theme asks each page for the site's table of contents; Sphinx
    # resolves it anew for each page (handbook/core/toctree_cache.py)
    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    computed: list[str] = []
    original = toctree_cache.global_toctree_for_doc

    def counting(env, docname, *args, **kwargs):
        computed.append(docname)
        return original(env, docname, *args, **kwargs)

    monkeypatch.setattr(toctree_cache, 'global_toctree_for_doc', counting)

    def build(**kwargs):
        app = make_app('html', srcdir=srcdir, **kwargs)
        app.build()
        app.cleanup()  # Sphinx's global registries, before the next app
        assert_no_warnings(app)
        return app

    build()
    assert 'p1' in computed

    # a registry row whose URL changed: pages written again, none read
    registry = srcdir / 'cards.tsv'
    registry.write_text(registry.read_text(encoding='utf-8').replace(
        'card\t旋风\n', 'card\t旋风\t\thttps://example.com/travel\n'), encoding='utf-8')
    computed.clear()
    relinked = build()
    assert 'https://example.com/travel' in (relinked.outdir / 'p1.html').read_text(encoding='utf-8')
    assert computed == []
    fresh = build(builddir=tmp_path / 'fresh', freshenv=True)
    for page in ('p1.html', 'index.html', 'genindex.html'):
        assert (relinked.outdir / page).read_bytes() == (fresh.outdir / page).read_bytes(), page

    # a page read again, its title and sections the same (a ruling edited)
    page = srcdir / 'p2.rst'
    page.write_text(page.read_text(encoding='utf-8').replace('也一样。', '也一样（已编辑）。'),
                    encoding='utf-8')
    computed.clear()
    edited = build()
    assert '也一样（已编辑）' in (edited.outdir / 'p2.html').read_text(encoding='utf-8')
    assert computed == []

    # a page whose title changed: made anew, its new title in the navigation
    page = srcdir / 'p1.rst'
    page.write_text(page.read_text(encoding='utf-8').replace('第1页\n=======', '第一页\n======='),
                    encoding='utf-8')
    computed.clear()
    retitled = build()
    assert 'p1' in computed and 'index' in computed
    navigation = (retitled.outdir / 'index.html').read_text(encoding='utf-8')
    assert '第一页' in navigation.split('sidebar-tree')[1] and '第1页' not in navigation


@pytest.mark.sphinx('html', testroot='navigation')
@pytest.mark.parametrize('arguments', [
    {'collapse': False, 'titles_only': True, 'maxdepth': -1, 'includehidden': True},  # furo's
    {'collapse': False, 'titles_only': True},
    {'collapse': False, 'titles_only': True, 'maxdepth': 2, 'includehidden': False},
    {'collapse': False, 'titles_only': True, 'maxdepth': ''},
])
def test_the_navigation_made_from_titles_is_what_sphinx_makes(app, arguments):
    # Sphinx copies every page's whole table of contents for each page's
    # navigation; the handbook gives it each page's title and toctrees only
    # (handbook/core/toctree_cache.py).  The root has the shapes that must
    # not change what comes out: nested chapters, a toctree in a section,
    # hidden, glob, self, URL and retitled entries, :tocdepth:, ``only``, a
    # page with two titles.
    app.build()
    env, builder = app.env, app.builder
    cut = {docname: toctree_cache.cut_to_titles(env.tocs[docname],
                                                env.metadata[docname].get('tocdepth', 0))
           for docname in env.found_docs}
    assert {docname for docname in cut if cut[docname] is env.tocs[docname]} == {
        'index', 'ch1/p1', 'ch1/p2'}  # ``only``, :tocdepth:; every other page is cut
    navigations = toctree_cache.Toctrees()
    for docname in sorted(env.found_docs):
        made = navigations.navigation(builder, docname, **arguments)
        assert made == builder._get_local_toctree(docname, **arguments), docname
        assert made.count('<a') >= 10, docname
    page = (app.outdir / 'ch1' / 'p3.html').read_text(encoding='utf-8')
    assert page.count('current') and '标题改写' in page and '页三之下' in page


def test_templates_are_compiled_once_then_again_only_when_changed(make_app, rootdir, tmp_path,
                                                                   monkeypatch):
    # Jinja compiles every template at every build; their bytecode is kept
    # in the doctree folder (handbook/core/template_cache.py)
    import jinja2

    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    page = srcdir / '_templates' / 'page.html'
    page.parent.mkdir()
    page.write_text('{% extends "!page.html" %}'
                    '{% block footer %}{{ super() }}<!-- v1 -->{% endblock %}', encoding='utf-8')
    compiled: list[str] = []
    compile_ = jinja2.Environment.compile

    def counting(self, source, name=None, *args, **kwargs):
        if name is not None:  # a template of a loader, not a string
            compiled.append(name)
        return compile_(self, source, name, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, 'compile', counting)

    def build():  # every page written, from an environment read anew (-E)
        compiled.clear()
        app = make_app('html', srcdir=srcdir, freshenv=True,
                       confoverrides={'templates_path': ['_templates']})
        app.build()
        app.cleanup()
        assert_no_warnings(app)
        return (app.outdir / 'p1.html').read_text(encoding='utf-8')

    first = build()
    assert 'page.html' in compiled and '<!-- v1 -->' in first
    assert build() == first
    assert compiled == []
    page.write_text(page.read_text(encoding='utf-8').replace('v1', 'v2'), encoding='utf-8')
    assert '<!-- v2 -->' in build() and compiled == ['page.html']


@pytest.mark.sphinx('singlehtml', testroot='navigation')
def test_a_builder_that_takes_the_arguments_otherwise_gets_sphinxs_navigation(app):
    # singlehtml does not default includehidden to False: the page context's
    # toctree is left to it (handbook/core/toctree_cache.py)
    app.build()
    builder = app.builder
    toctrees = toctree_cache.Toctrees()
    toctrees.start(app, builder)
    arguments = {'collapse': False, 'titles_only': True}

    def sphinxs(**kwargs):
        return builder._get_local_toctree('index', **kwargs)

    made = toctrees._kept(builder, 'index', sphinxs)(**arguments)
    assert made == sphinxs(**arguments) and '隐藏的页' in made


def test_a_template_compiled_for_other_filters_is_compiled_again(tmp_path):
    # what a filter is may be baked into the compiled code (a filter called
    # on a constant while compiling): the kept file is one of its filters'
    import jinja2
    from handbook.core.template_cache import KeptTemplates

    templates = {'page.html': '{{ "旋风"|tag }}'}

    def render(tag):
        environment = jinja2.Environment(loader=jinja2.DictLoader(templates))
        environment.filters['tag'] = tag
        environment.bytecode_cache = KeptTemplates(tmp_path, environment)
        return environment.get_template('page.html').render()

    def bracket(text):
        return f'「{text}」'

    def quote(context, text):
        return f'“{text}”'

    assert render(bracket) == '「旋风」'
    assert render(bracket) == '「旋风」' and len(list(tmp_path.iterdir())) == 1
    assert render(jinja2.pass_context(quote)) == '“旋风”'
    (tmp_path / 'broken.cache').write_bytes(b'j2')  # a file cut short is compiled again
    for kept in tmp_path.iterdir():
        kept.write_bytes(kept.read_bytes()[:10])
    assert render(bracket) == '「旋风」'


#: reStructuredText of every kind whose parse nests a state machine
NESTING = '''\
Title
=====

| 「`A`_」 first line
| second line
|    indented line
|        more indented
| last line

* item with a line block:

  | one
  | two

* item

  #. enumerated
  #. again

     | in an enumerated item
     | still

term
   definition with *emphasis*

:field: body
:other: | line
        | block

-a         option
--long=x   another

.. note::

   | a line block in a directive
   | second

   .. [#] a footnote in it

.. _target:
.. |sub| replace:: substituted
.. [cit] a citation

Subsection
----------

::

  literal

Quoted literal::

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
    document = new_document('<page>', settings)
    parser.parse(text, document)
    return document.pformat()


def test_the_parser_makes_the_states_of_a_nested_parse_as_it_needs_them(
        make_app, rootdir, tmp_path, monkeypatch):
    from handbook.core import rst_parser

    app = make_app('html', srcdir=rootdir / 'test-ruling-lines', builddir=tmp_path)
    parser = app.registry.create_source_parser('restructuredtext', config=app.config, env=app.env)
    assert isinstance(parser, rst_parser.Parser)  # what Sphinx reads .rst with
    made: list[tuple[str, str]] = []
    make = rst_parser.Nesting.__init__

    def noting(state, state_machine, debug=False):
        made.append((type(state_machine).__name__, type(state).__name__))
        make(state, state_machine, debug)

    monkeypatch.setattr(rst_parser.Nesting, '__init__', noting)
    parsed('| one\n| two\n| three\n', parser)
    # the page's machine makes docutils' 15 states; the line block's, one
    assert len(made) == 16
    assert made[-1] == ('NestedStateMachine', 'LineBlock')


def test_the_parser_parses_as_docutils_does(rootdir):
    from docutils.parsers.rst import Parser as DocutilsParser
    from sphinx.util.docutils import docutils_namespace

    from handbook.core.rst_parser import STATE_CLASSES

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
    # the sample nests every kind of block it names
    assert all(name in parsed(NESTING, lazily)
               for name in ('<line_block>', '<enumerated_list', '<definition_list>',
                            '<option_list>', '<footnote', '<citation', '<table>',
                            '<doctest_block', '<attribution>', '<literal_block'))
