"""Parallel writing: as many writing processes as ``-j`` asks for.

With ``-j N``, Sphinx's main process resolves the pages to write one after
the other, indexes each for the search, and hands them out in chunks to
processes that translate and write them, ``N - 1`` at a time: the main
process is busy meanwhile.  It is, until it has resolved the last chunk;
then it only waits, while that chunk waits for the one writing process.
When the last chunk holds the heavy pages -- a yearly FAQ page of 3,000
rulings takes a second to write -- it is written after the one before it,
on one core.  An edit that rewrites a dozen pages (a registry row whose URL
changed) gives Sphinx two chunks, so that wait was a quarter of the build.

:class:`WritingProcesses`, a mixin of the handbook's HTML builder, lets
``N`` chunks be written at a time: the last chunk starts as soon as it is
resolved, beside the one before it.  The chunks, their order, and what each
process does are Sphinx's (the pages are still resolved and indexed in
page order: ``test_builds`` compares ``-j 2`` with ``-j 1``); only the
number of writing processes changes.  A serial build is left alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sphinx.builders import Builder

if TYPE_CHECKING:
    from collections.abc import Set

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment


class WritingProcesses(Builder):
    """Write with ``-j`` processes (see the module docstring)."""

    def __init__(self, app: Sphinx, env: BuildEnvironment) -> None:
        super().__init__(app, env)
        self.jobs = app.parallel  # -j

    def write_documents(self, docnames: Set[str]) -> None:
        if not self.parallel_ok:
            super().write_documents(docnames)
            return
        # Sphinx's own parallel write (sorted pages, as Sphinx sorts them),
        # with one more process than the N - 1 it starts
        self._write_parallel(sorted(docnames), nproc=self.jobs)
