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
handbook's own, :mod:`handbook.publishing.unchanged_files`, is one), lets
``N`` chunks be written at a time: the last chunk starts as soon as it is
resolved, beside the one before it.  The chunks, their order, and what each
process does are Sphinx's (the pages are still resolved and indexed one
after the other, in the order of a serial build: ``test_builds`` compares
``-j 2`` with ``-j 1``); only the number of writing processes changes.

**Pages written last.**  Writing a page leaves the HTML of its rulings for
the pages that show them elsewhere (:mod:`handbook.generated.ruling_html`).
Before writing, the builder emits ``handbook-write-last`` ``(app,
docnames)``; each listener returns the pages of *docnames* that show what
writing the others gives (the timeline), and those are written after all
the others, in page order, the same way.  Between the two, the main
process emits ``handbook-written`` ``(app, docnames)``: the pages written
first are written, by whichever process.  A serial build writes in the
same order, so that ``-j 2`` and ``-j 1`` index the pages alike.

**A written page's doctree is released** (:func:`handbook.core.gc_policy.release`):
what was read is frozen for the garbage collector during the write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sphinx.builders.html import StandaloneHTMLBuilder

from handbook.core import gc_policy

if TYPE_CHECKING:
    from collections.abc import Sequence, Set

    from docutils import nodes

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

#: which pages to write after the others: ``(app, docnames) -> set of docnames``
WRITE_LAST = 'handbook-write-last'
#: the pages written first are written (the main process): ``(app, docnames)``
WRITTEN = 'handbook-written'


class OrderedHTMLBuilder(StandaloneHTMLBuilder):
    """Sphinx's HTML builder, writing with ``-j`` processes, some pages last
    (see the module docstring)."""

    def __init__(self, app: Sphinx, env: BuildEnvironment) -> None:
        super().__init__(app, env)
        self.jobs = app.parallel  # -j

    def write_documents(self, docnames: Set[str]) -> None:
        last: set[str] = set()
        for pages in self.events.emit(WRITE_LAST, frozenset(docnames)):
            last |= set(pages) & set(docnames)
        first = sorted(set(docnames) - last)
        self._write_in_order(first)
        if last:
            self.events.emit(WRITTEN, first)
            self._write_in_order(sorted(last))

    def write_doc(self, docname: str, doctree: nodes.document) -> None:
        super().write_doc(docname, doctree)
        gc_policy.release(doctree)  # written: freed now (handbook.core.gc_policy)

    def _write_in_order(self, docnames: Sequence[str]) -> None:
        if not docnames:
            return
        if self.parallel_ok and len(docnames) > 1:
            # Sphinx's own parallel write, with one more process than the
            # N - 1 it starts (it writes a first page itself, as the serial
            # write does: all of a lone page)
            self._write_parallel(docnames, nproc=self.jobs)
        else:
            self._write_serial(docnames)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_event(WRITE_LAST)
    app.add_event(WRITTEN)
    app.add_builder(OrderedHTMLBuilder, override=True)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
