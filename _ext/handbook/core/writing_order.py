"""Parallel writing: as many writing processes as ``-j`` asks for; and the
pages that show what the others' writing gives, written after them.

**``-j`` writing processes.**  With ``-j N``, Sphinx's main process resolves
the pages to write one after the other, indexes each for the search, and
hands them out in chunks to processes that translate and write them,
``N - 1`` at a time: the main process is busy meanwhile.  It is, until it
has resolved the last chunk; then it only waits, while that chunk waits for
the one writing process.  When the last chunk holds the heavy pages -- a
yearly FAQ page of 3,000 rulings takes a second to write -- it is written
after the one before it, on one core.  An edit that rewrites a dozen pages
(a registry row whose URL changed) gives Sphinx two chunks, so that wait
was a quarter of the build.

:class:`OrderedHTMLBuilder`, the HTML builder of this extension (the
handbook's own, :mod:`handbook.core.kept_search_index`, is one), lets
``N`` chunks be written at a time: the last chunk starts as soon as it is
resolved, beside the one before it.  The chunks are about as many as
Sphinx's, but of about the same weight (their doctrees' sizes), not of as
many pages (:func:`weighed_chunks`): a heavy page is a chunk of its own,
and the two FAQ pages are written side by side.  What each process does
is Sphinx's; the order is not (:meth:`OrderedHTMLBuilder._write_chunks`):
the lightest page is written first, alone, then the others heaviest first,
so that the chunks written last are light.  The pages are still resolved and
indexed one after the other, and the order changes nothing that is written
(``test_builds`` compares ``-j 2`` with ``-j 1``).

**A chunk is indexed while it is written.**  Sphinx's main process
indexes a chunk's pages for the search before it hands the chunk out; at
the end of a build, the last FAQ page waited for its indexing (0.8 s of
jieba), then the main process waited for its writing.  Here the main
process resolves a chunk, starts its writing process, then indexes the
chunk while the process writes it (where every process is busy, it indexes
the chunk while it waits for one, as Sphinx does).  The pages are indexed
in the order they are resolved: only the process start moved (the write
8.2 → 7.5 s, the median of three pairs on the benchmark corpus at
``-j auto``).

**Pages written last.**  Writing a page leaves the HTML of its rulings for
the pages that show them elsewhere (:mod:`handbook.render.ruling_html`).
Before writing, the builder emits ``handbook-write-last`` ``(app,
docnames)``; each listener returns the pages of *docnames* that show what
writing the others gives (the timeline), and those are written after all
the others, in page order, the same way.  Between the two, the main
process emits ``handbook-written`` ``(app, docnames)``: the pages written
first are written, by whichever process.  A serial build writes in the
same order, so that ``-j 2`` and ``-j 1`` index the pages alike; it
resolves and indexes the last pages, then writes them in a process of its
own (where the extensions may write in parallel and the machine has a
second core), while it ends the build (:meth:`OrderedHTMLBuilder._write_aside`).

**The main process keeps no chunk it handed out.**  Sphinx's own parallel
write resolves every chunk as fast as it can and keeps each one's doctrees
until its process ends: on the benchmark corpus the main process held
nearly all the pages at once, 280 MB, and was the build's largest process.
:class:`WritingProcesses` starts a chunk's process as soon as one of the
``N`` is free, and waits for one before it starts another; once the
process is forked (it has the doctrees, copied on write), the main process
releases its own.  The main process resolves the next chunk while the
others are written, as before.

**Parts of a page written after the page.**  A page of 10 million
characters (the timeline) was held four times over while Sphinx wrote it:
in its doctree, in the translator's body, in the parts the writer joins,
in the page the template renders.  :func:`late_part` gives a generated page
a small ``raw`` node in place of such a part; once the page's file is
written, :meth:`OrderedHTMLBuilder.handle_page` writes the part's HTML in
its place, one piece after another, as Sphinx would have written it (the
same bytes).  The file is written to a temporary file and moved into place.
Builders other than this one get the whole part in the ``raw`` node.

**A written page's doctree is released** (:func:`handbook.core.gc_policy.release`):
what was read is frozen for the garbage collector during the write.  In a
parallel write, the main process resolves and indexes with the collector
off, and collects once (:class:`handbook.core.gc_policy.Paused`).
"""

from __future__ import annotations

import codecs
import multiprocessing
import multiprocessing.connection
import os
import secrets
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.errors import SphinxParallelError
from sphinx.locale import __
from sphinx.util import logging
from sphinx.util.build_phase import BuildPhase
from sphinx.util.display import status_iterator
from sphinx.util.parallel import make_chunks

from handbook.core import gc_policy
from handbook.core.files import doctree_file, replacing

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence, Set
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment

#: which pages to write after the others: ``(app, docnames) -> set of docnames``
WRITE_LAST = 'handbook-write-last'
#: the pages written first are written (the main process): ``(app, docnames)``
WRITTEN = 'handbook-written'
#: a page is about to be indexed for the search (the main process): ``(app, pagename)``
INDEXING = 'handbook-indexing'
#: a page is indexed for the search (the main process): ``(app, pagename)``
INDEXED = 'handbook-indexed'
#: a parallel write's main process has handed out its last chunk and waits
#: for the processes writing them (``(app)``): what waits for no page's
#: writing can be done then, off the build's critical path
WAITING = 'handbook-waiting'

logger = logging.getLogger(__name__)

#: a chunk of pages to write: ``[(docname, resolved doctree), ...]``
Chunk = list[tuple[str, nodes.document]]

#: the document attribute holding a page's late parts (:class:`LateParts`)
LATE_PARTS = 'handbook_late_parts'


class LateParts:
    """The parts of a page written after it: each one's marker in the page,
    and the function giving its HTML, piece by piece."""

    def __init__(self) -> None:
        self.token = secrets.token_hex(8)  # never in a page's text
        self.parts: list[Callable[[], Iterable[str]]] = []

    def add(self, part: Callable[[], Iterable[str]]) -> str:
        self.parts.append(part)
        return self.marker(len(self.parts) - 1)

    def marker(self, index: int) -> str:
        return f'<!--handbook-late-part-{self.token}-{index}-->'

    def write(self, path: Path, encoding: str) -> None:
        """Write the parts into the page's file *path* in place of their markers."""
        page = path.read_bytes()
        with replacing(path) as out:
            start = 0
            for index, part in enumerate(self.parts):
                at = page.find(self.marker(index).encode(encoding), start)
                if at < 0:  # not on the page (a template without the body)
                    continue
                out.write(page[start:at])
                for piece in part():  # as Sphinx writes: text mode, these errors
                    out.write(piece.replace('\n', os.linesep).encode(encoding,
                                                                      'xmlcharrefreplace'))
                start = at + len(self.marker(index))
            out.write(page[start:])


def late_part(document: nodes.document, builder: Builder,
              part: Callable[[], Iterable[str]]) -> nodes.raw | None:
    """A ``raw`` node standing for the HTML that *part* gives, which the
    builder writes into the page's file after the page; None where the
    builder does not (then the caller writes the whole part in the node)."""
    if not (getattr(builder, 'writes_late_parts', False)
            and codecs.lookup(builder.config.html_output_encoding).name == 'utf-8'):
        return None
    late = document.get(LATE_PARTS)
    if late is None:
        late = document[LATE_PARTS] = LateParts()
    return nodes.raw('', late.add(part), format='html')


class OrderedHTMLBuilder(StandaloneHTMLBuilder):
    """Sphinx's HTML builder, writing with ``-j`` processes, some pages last
    (see the module docstring)."""

    #: it writes the parts of :func:`late_part` into their pages
    writes_late_parts = True

    def __init__(self, app: Sphinx, env: BuildEnvironment) -> None:
        super().__init__(app, env)
        self.jobs = app.parallel  # -j
        self._extensions = app.extensions  # whether each may write in parallel (writes_aside)
        #: the pages resolved for the next writing process, to be indexed once
        #: it has started: ``[(pagename, doctree, title)]``; None: index at once
        self._index_later: list[tuple[str, nodes.document, str]] | None = None
        #: the garbage collector, off in the main process while it resolves and indexes
        self._paused = gc_policy.Paused()
        #: the process writing the last pages (_write_aside)
        self._aside: WritingProcesses | None = None

    def write_documents(self, docnames: Set[str]) -> None:
        last: set[str] = set()
        for pages in self.events.emit(WRITE_LAST, frozenset(docnames)):
            last |= set(pages) & set(docnames)
        first = sorted(set(docnames) - last)
        self._write_in_order(first)
        if last:
            self.events.emit(WRITTEN, first)
            if self.writes_aside():
                self._write_aside(sorted(last))
            else:
                self._write_in_order(sorted(last))

    def finish(self) -> None:
        super().finish()
        if self._aside is not None:
            self._aside.join()  # the pages written aside (_write_aside)

    def writes_aside(self) -> bool:
        """Whether a serial write writes its last pages aside: where every
        extension may write in parallel, and the machine has another core.
        Not a parallel write: its processes have just written the other
        pages, the card pages are being written in another (``-j auto``, the
        benchmark corpus: 0.05-0.4 s slower, three pairs).  The card pages
        are then split too (:mod:`handbook.listings.card_pages`)."""
        return not self.parallel_ok and spare_core() and all(
            getattr(extension, 'parallel_write_safe', None)
            for extension in self._extensions.values())

    def _write_aside(self, docnames: Sequence[str]) -> None:
        """A serial write's last pages, resolved and indexed here, written by
        a process of their own while this one ends the build (joined when it
        has: :meth:`finish`).  The last page is the timeline, 10 MB of HTML
        that no other page waits for, and what follows it (the indices, the
        search page and index, the generated pages) does not wait for it
        either: of a one-line edit on the benchmark corpus, 1.33 -> 1.24 s
        (four pairs)."""
        if self._aside is None:
            self._aside = WritingProcesses(1, done=lambda: None)
        chunk = self._resolve(status_iterator(docnames, __('writing output... '), 'darkgreen',
                                              len(docnames), self.config.verbosity))
        self._aside.start(self._write_chunk, chunk)
        for _, doctree in chunk:  # the process has its own copy
            gc_policy.release(doctree)

    def write_doc(self, docname: str, doctree: nodes.document) -> None:
        super().write_doc(docname, doctree)
        gc_policy.release(doctree)  # written: freed now (handbook.core.gc_policy)

    def index_page(self, pagename: str, doctree: nodes.document, title: str) -> None:
        if self._index_later is not None:
            self._index_later.append((pagename, doctree, title))
        else:
            self.events.emit(INDEXING, pagename)
            super().index_page(pagename, doctree, title)
            self.events.emit(INDEXED, pagename)

    def handle_page(self, pagename: str, addctx: dict[str, Any],
                    templatename: str = 'page.html', *, outfilename: Path | None = None,
                    event_arg: Any = None) -> None:
        super().handle_page(pagename, addctx, templatename,
                            outfilename=outfilename, event_arg=event_arg)
        late = event_arg.get(LATE_PARTS) if isinstance(event_arg, nodes.document) else None
        if late is not None:
            late.write(Path(outfilename) if outfilename else self.get_output_path(pagename),
                       self.config.html_output_encoding)

    def _write_in_order(self, docnames: Sequence[str]) -> None:
        if not docnames:
            return
        if self.parallel_ok and len(docnames) > 1:
            self._write_chunks(docnames)
        else:
            self._write_serial(docnames)

    def _write_chunks(self, docnames: Sequence[str]) -> None:
        """Sphinx's parallel write (a page written here first, to compile
        the templates once; the others resolved and indexed here in order,
        and written in chunks of about the same weight), with ``-j`` writing
        processes, each chunk indexed while its process writes it, and no
        chunk kept here once its process has started and it is indexed.
        The page written first is the lightest, not the first by name:
        on a handbook that is the card index, 0.3 s while the other cores
        wait.  The others go heaviest first, so that the chunks written last,
        when the main process has nothing left to give, are the light ones
        (by name, a yearly FAQ page came last: 0.7 s written alone)."""
        size = {docname: self._doctree_size(docname) for docname in docnames}
        first = min(docnames, key=size.__getitem__)
        self._write_serial([first])
        rest = sorted((docname for docname in docnames if docname != first),
                      key=lambda docname: -size[docname])
        chunks = weighed_chunks(rest, len(make_chunks(rest, self.jobs)), size.__getitem__)
        progress = status_iterator(chunks, __('writing output... '), 'darkgreen',
                                   len(chunks), self.config.verbosity)
        processes = WritingProcesses(self.jobs, done=lambda: next(progress))
        with self._paused:
            try:
                for docs in chunks:
                    later = self._index_later = [] if processes.free() else None
                    try:
                        chunk = self._resolve(docs)
                    finally:
                        self._index_later = None
                    processes.start(self._write_chunk, chunk)
                    for pagename, doctree, title in later or ():  # while they are written
                        self.index_page(pagename, doctree, title)
                    for _, doctree in chunk:  # the process has its own copy
                        gc_policy.release(doctree)
                self.events.emit(WAITING)  # while the last chunks are written
                self._paused.collect()
                processes.join()
            finally:
                processes.terminate()
        logger.info('')

    def _resolve(self, docnames: Iterable[str]) -> Chunk:
        """The pages resolved and indexed here, for a writing process."""
        self.phase = BuildPhase.RESOLVING
        chunk: Chunk = []
        for docname in docnames:
            doctree = self.env.get_and_resolve_doctree(docname, self, tags=self.tags)
            self.write_doc_serialized(docname, doctree)
            chunk.append((docname, doctree))
        return chunk

    def _doctree_size(self, docname: str) -> int:
        try:
            return os.stat(doctree_file(self.env, docname)).st_size
        except OSError:
            return 1

    def _write_chunk(self, chunk: Chunk) -> None:
        """What a writing process does."""
        self._paused.in_child()
        self.phase = BuildPhase.WRITING
        for docname, doctree in chunk:
            self.write_doc(docname, doctree)


def spare_core() -> bool:
    """Whether a serial build may hand work to a process of its own: the
    machine has a core besides this process's, and processes are forked
    (POSIX; Sphinx's parallel builds need it too)."""
    if 'fork' not in multiprocessing.get_all_start_methods():
        return False
    try:
        return len(os.sched_getaffinity(0)) > 1
    except (AttributeError, OSError):
        return (os.cpu_count() or 1) > 1


def when_idle() -> None:
    """Let this process run only where a core would otherwise be idle
    (Linux's ``SCHED_IDLE``), else at the lowest priority: for work done
    ahead, in a process of its own, that the build never waits for."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        os.nice(19)


def stop_writing_aside(app: Sphinx, exception: BaseException | None) -> None:
    """``build-finished``: a process writing aside is stopped if the build failed."""
    if isinstance(app.builder, OrderedHTMLBuilder) and app.builder._aside is not None:
        app.builder._aside.terminate()


def weighed_chunks(docnames: Sequence[str], count: int,
                   weight: Callable[[str], int]) -> list[list[str]]:
    """*docnames* cut, in their order, into about *count* chunks of about the
    same weight: a page heavier than a chunk's share is a chunk of its own.
    Sphinx cuts them into chunks of as many pages, and the handbook's two
    yearly FAQ pages, a second each to write and next to each other in page
    order, were written one after the other by one process while the others
    waited (the order, and so what the main process indexes when, is the
    same)."""
    weights = [max(weight(docname), 1) for docname in docnames]
    share = sum(weights) / max(count, 1)
    chunks: list[list[str]] = []
    held = 0
    for docname, weighs in zip(docnames, weights):
        if not chunks or (held and held + weighs > share):
            chunks.append([])
            held = 0
        chunks[-1].append(docname)
        held += weighs
    return chunks


class WritingProcesses:
    """At most *nproc* forked processes at a time, each running a function
    on its argument and sending back its log records and any error (as
    Sphinx's ``ParallelTasks`` does), and *done* called as each ends.
    :meth:`start` returns once the process is forked: its argument is then
    the caller's to drop."""

    def __init__(self, nproc: int, done: Callable[[], object]) -> None:
        self.nproc = nproc
        self.done = done
        self.running: dict[Connection, BaseProcess] = {}
        self.context = multiprocessing.get_context('fork')

    def start(self, function: Callable[[Any], object], argument: Any) -> None:
        while len(self.running) >= self.nproc:
            self._end_one()
        receiving, sending = self.context.Pipe(duplex=False)
        process = self.context.Process(target=_run, args=(sending, function, argument))
        process.start()
        sending.close()  # the child's end: a child that dies gives an end of file
        self.running[receiving] = process

    def free(self) -> bool:
        """Whether a process can start at once."""
        return len(self.running) < self.nproc

    def join(self) -> None:
        while self.running:
            self._end_one()

    def terminate(self) -> None:
        """Stop the processes still running (after an error)."""
        for receiving, process in self.running.items():
            process.terminate()
            process.join()
            receiving.close()
        self.running.clear()

    def _end_one(self) -> None:
        receiving = multiprocessing.connection.wait(list(self.running))[0]
        process = self.running.pop(receiving)
        try:
            message = receiving.recv()
        except EOFError:  # it died before it could send
            message = None
        receiving.close()
        process.join()
        if message is None:
            raise SphinxParallelError('a writing process ended without sending its result',
                                      f'its exit code: {process.exitcode}')
        failed, records, result = message
        for record in records:
            logger.handle(record)
        if failed:
            raise SphinxParallelError(*result)
        self.done()


def _run(sending: Connection, function: Callable[[Any], object], argument: Any) -> None:
    """A writing process: *function* on *argument*, its log records sent back."""
    collector = logging.LogCollector()
    try:
        with collector.collect():
            function(argument)
        failed, result = False, None
    except BaseException as error:  # noqa: BLE001 -- sent to the main process, raised there
        failed = True
        result = (traceback.format_exception_only(error)[-1].strip(), traceback.format_exc())
    logging.convert_serializable(collector.logs)
    sending.send((failed, collector.logs, result))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_event(WRITE_LAST)
    app.add_event(WRITTEN)
    app.add_event(INDEXING)
    app.add_event(INDEXED)
    app.add_event(WAITING)
    app.setup_extension('handbook.core.toctree_cache')  # the tables of contents the pages show
    app.setup_extension('handbook.core.template_cache')  # the theme's templates, compiled once
    app.add_builder(OrderedHTMLBuilder, override=True)
    app.connect('build-finished', stop_writing_aside)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
