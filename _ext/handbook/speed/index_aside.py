"""The search index made by a process of its own while the pages are written.

The search index (:mod:`handbook.search.rulings_index`) is made from the
store alone, once the pages are read, but the search asks for it at the end
of the build (``html-collect-pages``): on a handbook of 15,000 rulings it
is seconds of work in the main process after the pages are written, in
every build that read a page.  Here, where the machine has a core to spare,
a process of its own makes it and writes its files as soon as the pages are
read and what they change is known (the last of ``env-get-updated``), while
the main process pickles the environment, checks it and writes the pages;
the search's ``handbook-search-index-made`` waits for it.  What it writes
is what the main process would: the same function
(:func:`~handbook.search.rulings_index.make_index`) on the same store.  A
process that failed is reported, and the main process makes the index.
Part ``index-aside``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from handbook.search import rulings_index
from handbook.speed.processes import spare_core
from handbook.speed.session import uses

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from handbook.speed.processes import Task


class IndexAside:
    """This build's process making the index, if it started one."""

    def __init__(self) -> None:
        self.task: Task | None = None

    def start(self, app: Sphinx, env: BuildEnvironment) -> list[str]:
        """``env-get-updated``, after the others: the pages are read, the card
        pages' addresses known; the environment is not pickled yet (a
        chapter's edit waited for that, then for the index).  No page to
        write again."""
        self.task = None
        session = uses(app, 'index-aside')
        if session is None or not spare_core() or not rulings_index.index_wanted(app):
            return []
        self.task = session.processes.start('making the search index',
                                            rulings_index.make_index, app)
        return []

    def made(self, app: Sphinx) -> bool | None:
        """``handbook-search-index-made``: True once the process made it."""
        task, self.task = self.task, None
        if task is None:
            return None
        task.result('makes it in the main process')
        return True if task.failure is None else None


def setup(app: Sphinx) -> dict[str, Any]:
    aside = IndexAside()
    app.connect('env-get-updated', aside.start, priority=950)
    app.connect(rulings_index.INDEX_MADE, aside.made)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
