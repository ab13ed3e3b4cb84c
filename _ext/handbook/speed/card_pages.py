"""Card pages written by a process of their own beside the main process.

The card pages (:mod:`handbook.listings.card_pages`) are written at the end
of the build, by the main process, while the other cores are idle.  Here a
process of its own takes part of them (:func:`~handbook.listings.card_pages.take`):

* a parallel build, once the pages but the last are written
  (``handbook-speed-written``): every ruling's HTML is there, so the process
  writes :data:`EARLY_SHARE` of the card pages while the main process
  writes the last pages (the timeline), the indices and the rest;
* a serial build with a core to spare, at the end (``html-collect-pages``):
  half of them, beside the main process writing the other half.

The main process waits for it before the build ends; a process that failed
is reported and its pages written by the main process.  The garbage
collector is off while the pages are written (they make many short-lived
objects, and each collection would walk the whole environment).  Part
``card-pages-aside``.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Any

from handbook.listings import card_pages
from handbook.speed.session import uses
from handbook.speed.writing import WRITTEN, SpeedHTMLBuilder

if TYPE_CHECKING:
    from sphinx.application import Sphinx

    from handbook.listings.card_pages import CardPage
    from handbook.speed.processes import Task

#: a build writes this many card pages or more in two processes (fewer are
#: written in about what starting a process costs)
SPLIT_MIN = 200
#: the share of the card pages a parallel build's other process writes from
#: ``handbook-speed-written`` on (the main process has the last pages to write)
EARLY_SHARE = 0.55


class Aside:
    """The process writing card pages in this build, and its pages."""

    def __init__(self) -> None:
        self.task: Task | None = None
        self.pages: list[CardPage] = []
        self.collecting = False

    def start(self, app: Sphinx, share: float) -> None:
        session = uses(app, 'card-pages-aside')
        if session is None or self.task is not None or not card_pages.enabled(app):
            return
        count = len(card_pages.remaining(app.env))
        if count < SPLIT_MIN:
            return
        card_pages.copy_script(app)  # before the frame, whose link to it holds its checksum
        self.pages = card_pages.take(app.env, int(count * share))
        write = card_pages.writer(app, self.pages)
        self.task = session.processes.start(f'writing {len(self.pages)} card pages',
                                            write, self.pages, in_child=gc.disable)
        if self.task is None:
            write(self.pages)

    def early(self, app: Sphinx, docnames: Any) -> None:
        """``handbook-speed-written``: a parallel build's process starts."""
        if app.builder.parallel_ok:
            self.start(app, EARLY_SHARE)

    def before(self, app: Sphinx) -> list:
        """``html-collect-pages``, before the card pages' own: a serial
        build's process starts; the collector is off while they are written."""
        builder = app.builder
        if isinstance(builder, SpeedHTMLBuilder) and builder.writes_aside():
            self.start(app, 0.5)
        self.collecting = gc.isenabled() and uses(app, 'card-pages-aside') is not None
        if self.collecting:
            gc.disable()
        return []

    def after(self, app: Sphinx) -> list:
        """``html-collect-pages``, after the card pages' own: the process is waited for."""
        if self.collecting:
            gc.enable()
            self.collecting = False
        task, self.task = self.task, None
        if task is not None and task.result('writes them in the main process') is None \
                and task.failure is not None:
            card_pages.writer(app, self.pages)(self.pages)
        self.pages = []
        return []


def setup(app: Sphinx) -> dict[str, Any]:
    aside = Aside()
    app.connect(WRITTEN, aside.early, priority=600)  # after the rulings' HTML is read (500)
    # right around the card pages' own writing, and nothing else: the collector
    # is off in between, and the other pages written then (the timeline's and
    # the card index's parts) make garbage that only it frees
    app.connect('html-collect-pages', aside.before, priority=card_pages.WRITE_PRIORITY - 1)
    app.connect('html-collect-pages', aside.after, priority=card_pages.WRITE_PRIORITY + 1)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
