"""The speed package's HTML builder: the session around the build, and the
write -- ``-j`` writing processes, pages ordered by weight, the pages that
show other pages' rulings written last, large parts written after their page.

It is Sphinx's ``html`` builder (:class:`SpeedHTMLBuilder`, registered in its
place), changed only through its public, overridable methods: ``build``
(the session of :mod:`handbook.speed.session` around it), ``write_documents``,
``write_doc`` and ``handle_page``.  It copies none of
Sphinx's code: a page is written by Sphinx's own ``get_and_resolve_doctree``,
``write_doc_serialized`` and ``write_doc``, in another order.  Each change
is part ``write`` (``handbook_speed_parts``); without it, ``write_documents``
is Sphinx's.

**``-j N`` writing processes** (Sphinx writes with ``N - 1`` while its main
process resolves and indexes): a chunk's process is started as soon as one
of the ``N`` is free, beside the main process resolving the next chunk;
the main process keeps no chunk it handed out (the process has its copy).
The chunks are about as many as Sphinx's but of about the same weight
(their doctrees' sizes, :func:`weighed_chunks`): a heavy page (a yearly FAQ
page) is a chunk of its own.  The lightest page is written first, alone (it
compiles the templates), then the others heaviest first, so the chunks
written last, while the main process has nothing left to do, are light.
The order
changes nothing that is written: ``-j 2`` writes what ``-j 1`` writes.

**Pages written last.**  Writing a page leaves the HTML of its rulings for
the pages that show them elsewhere (:mod:`handbook.render.ruling_html`): the
pages that hold the timeline are written after all the others (a serial
build writes them in a process of its own, where the machine has a core to
spare, while the main process ends the build).  In between, the event
``handbook-speed-written`` ``(app, docnames)`` says the other pages are
written, by whichever process (the rulings' HTML they left is read, the
card pages' writing starts: :mod:`handbook.speed.card_pages`).

**Parts written after their page.**  A generated list of megabytes (the
timeline's months, the card index's groups) asks for a late part
(:func:`handbook.render.html_parts.late_part`): a marker in the page, whose
HTML the builder writes into the page's file once the page is written,
piece by piece (:class:`LateParts`): the whole list is never held as one
string, nor four times over (doctree, translator, parts, template).

**A written page's doctree is released** (:func:`handbook.speed.gc_policy.release`).

A writing process that fails is reported (:mod:`handbook.speed.processes`)
and its pages are written again by the main process, where an error is
Sphinx's own.
"""

from __future__ import annotations

import codecs
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.locale import __
from sphinx.util import logging
from sphinx.util.build_phase import BuildPhase
from sphinx.util.display import status_iterator
from sphinx.util.parallel import make_chunks

from handbook.core.files import doctree_file, replacing
from handbook.listings.timeline import TIMELINE
from handbook.render import ruling_html
from handbook.render.placeholders import holders
from handbook.speed import gc_policy
from handbook.speed.processes import spare_core
from handbook.speed.session import PARTS_SETTING, Session

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence, Set

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from handbook.speed.processes import Task

#: the pages written first are written (main process): ``(app, docnames)``
WRITTEN = 'handbook-speed-written'
#: a parallel write's main process has handed out its last chunk and waits
#: for the processes writing them (``(app)``)
WAITING = 'handbook-speed-waiting'

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


class SpeedHTMLBuilder(StandaloneHTMLBuilder):
    """Sphinx's HTML builder with the speed session (see the module docstring)."""

    def __init__(self, app: Sphinx, env: BuildEnvironment) -> None:
        super().__init__(app, env)
        self.jobs = app.parallel  # -j
        self.speed_extensions = app.extensions  # whether each may write in parallel
        parts = getattr(app.config, PARTS_SETTING, None)
        loaded = 'handbook.speed' in app.extensions
        self.speed_session = Session(set(parts or ()) if loaded else set())
        self.paused = gc_policy.Paused()
        self.aside: Task | None = None  # the process writing the last pages
        self.aside_pages: list[str] = []

    # -- the session ------------------------------------------------------------------

    def build(self, docnames: Iterable[str] | None, summary: str | None = None,
              method: str = 'update') -> None:
        with self.speed_session:
            super().build(docnames, summary, method)  # type: ignore[arg-type]
            if self.aside is not None:  # the last pages written aside
                self.wait_aside()

    @property
    def ordered(self) -> bool:
        return self.speed_session.uses('write')

    def late_part(self, document: nodes.document,
                  part: Callable[[], Iterable[str]]) -> nodes.raw | None:
        """A ``raw`` node standing for the HTML that *part* gives, written
        into the page's file after the page; None where this build does not
        (:func:`handbook.render.html_parts.late_part`)."""
        if not (self.ordered and codecs.lookup(self.config.html_output_encoding).name == 'utf-8'):
            return None
        late = document.get(LATE_PARTS)
        if late is None:
            late = document[LATE_PARTS] = LateParts()
        return nodes.raw('', late.add(part), format='html')

    # -- the write ----------------------------------------------------------------------

    def write_documents(self, docnames: Set[str]) -> None:
        if not self.ordered:
            super().write_documents(docnames)
            return
        last = written_last(self.env) & set(docnames)
        first = sorted(set(docnames) - last)
        self.write_in_order(first)
        if last:
            self.events.emit(WRITTEN, first)
            if self.writes_aside():
                self.write_aside(sorted(last))
            else:
                self.write_in_order(sorted(last))

    def writes_aside(self) -> bool:
        """Whether a serial write writes its last pages in a process of its
        own: every extension may write in parallel, and the machine has a
        core to spare."""
        return self.ordered and not self.parallel_ok and spare_core() and all(
            getattr(extension, 'parallel_write_safe', None)
            for extension in self.speed_extensions.values())

    def write_aside(self, docnames: Sequence[str]) -> None:
        """A serial write's last pages, resolved and indexed here, written by
        a process of their own while this one ends the build."""
        chunk = self.resolve(status_iterator(docnames, __('writing output... '), 'darkgreen',
                                             len(docnames), self.config.verbosity))
        self.aside = self.speed_session.processes.start(
            f'writing {", ".join(docnames)}', self.write_chunk, chunk, location=docnames[0])
        self.aside_pages = list(docnames)
        if self.aside is None:  # no process: here
            self.write_chunk(chunk)
        for _, doctree in chunk:  # the process has its own copy
            gc_policy.release(doctree)

    def wait_aside(self) -> None:
        aside, self.aside = self.aside, None
        if aside is not None and aside.result('writes them in the main process') is None \
                and aside.failure is not None:
            for docname in self.aside_pages:
                self.write_doc(docname, self.env.get_and_resolve_doctree(docname, self,
                                                                          tags=self.tags))

    def write_in_order(self, docnames: Sequence[str]) -> None:
        if not docnames:
            return
        if self.parallel_ok and len(docnames) > 1:
            self.write_chunks(docnames)
        else:
            self.write_serially(docnames)

    def write_serially(self, docnames: Sequence[str]) -> None:
        with logging.pending_warnings():
            for docname in status_iterator(docnames, __('writing output... '), 'darkgreen',
                                           len(docnames), self.config.verbosity):
                self.write_one(docname)

    def write_one(self, docname: str) -> None:
        """A page resolved and written here (what Sphinx does for each page)."""
        self.phase = BuildPhase.RESOLVING
        doctree = self.env.get_and_resolve_doctree(docname, self, tags=self.tags)
        self.phase = BuildPhase.WRITING
        self.write_doc_serialized(docname, doctree)
        self.write_doc(docname, doctree)

    def write_chunks(self, docnames: Sequence[str]) -> None:
        """The lightest page written here first (it compiles the templates);
        the others heaviest first, resolved and indexed here, written by up
        to ``-j`` processes in chunks of about the same weight."""
        size = {docname: self.doctree_size(docname) for docname in docnames}
        first = min(docnames, key=size.__getitem__)
        self.write_serially([first])
        rest = sorted((docname for docname in docnames if docname != first),
                      key=lambda docname: -size[docname])
        chunks = weighed_chunks(rest, len(make_chunks(rest, self.jobs)), size.__getitem__)
        progress = status_iterator(chunks, __('writing output... '), 'darkgreen',
                                   len(chunks), self.config.verbosity)
        processes = self.speed_session.processes
        started: list[tuple[Task, list[str]]] = []
        with self.paused:
            for docs in chunks:
                while len(processes.running()) >= self.jobs:
                    processes.wait_any()
                    next(progress, None)
                chunk = self.resolve(docs)
                task = processes.start(f'writing {", ".join(docs)}', self.write_chunk,
                                       chunk, location=docs[0], in_child=self.paused.in_child)
                if task is None:  # no process: here
                    self.write_chunk(chunk)
                else:
                    started.append((task, docs))
                for _, doctree in chunk:  # the process has its own copy
                    gc_policy.release(doctree)
            self.events.emit(WAITING)  # while the last chunks are written
            self.paused.collect()
        for task, docs in started:
            if task.result('writes them in the main process') is None and task.failure:
                for docname in docs:
                    doctree = self.env.get_and_resolve_doctree(docname, self, tags=self.tags)
                    self.write_doc(docname, doctree)
            next(progress, None)
        logger.info('')

    def resolve(self, docnames: Iterable[str]) -> Chunk:
        """The pages resolved and indexed here, for a writing process."""
        self.phase = BuildPhase.RESOLVING
        chunk: Chunk = []
        for docname in docnames:
            doctree = self.env.get_and_resolve_doctree(docname, self, tags=self.tags)
            self.write_doc_serialized(docname, doctree)
            chunk.append((docname, doctree))
        return chunk

    def doctree_size(self, docname: str) -> int:
        try:
            return os.stat(doctree_file(self.env, docname)).st_size
        except OSError:
            return 1

    def write_chunk(self, chunk: Chunk) -> None:
        """What a writing process does."""
        self.phase = BuildPhase.WRITING
        for docname, doctree in chunk:
            self.write_doc(docname, doctree)

    # -- each page ----------------------------------------------------------------------

    def write_doc(self, docname: str, doctree: nodes.document) -> None:
        super().write_doc(docname, doctree)
        if self.ordered:
            gc_policy.release(doctree)  # written: freed now

    def handle_page(self, pagename: str, addctx: dict[str, Any],
                    templatename: str = 'page.html', *, outfilename: Path | None = None,
                    event_arg: Any = None) -> None:
        super().handle_page(pagename, addctx, templatename,
                            outfilename=outfilename, event_arg=event_arg)
        late = event_arg.get(LATE_PARTS) if isinstance(event_arg, nodes.document) else None
        if late is not None:
            late.write(Path(outfilename) if outfilename else self.get_output_path(pagename),
                       self.config.html_output_encoding)


def written_last(env: BuildEnvironment) -> set[str]:
    """The pages that show other pages' rulings as the timeline does (their
    HTML comes from the other pages' writing): written last."""
    if 'handbook' not in env.domains:
        return set()
    return holders(env, TIMELINE)


def weighed_chunks(docnames: Sequence[str], count: int,
                   weight: Callable[[str], int]) -> list[list[str]]:
    """*docnames* cut, in their order, into about *count* chunks of about the
    same weight: a page heavier than a chunk's share is a chunk of its own."""
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


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_event(WRITTEN)
    app.add_event(WAITING)
    app.connect(WRITTEN, ruling_html.reload, priority=500)  # the rulings' HTML they left
    app.add_builder(SpeedHTMLBuilder, override=True)
    return {'version': '2', 'parallel_read_safe': True, 'parallel_write_safe': True}
