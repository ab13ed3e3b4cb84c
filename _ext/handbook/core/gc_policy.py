"""The garbage collector during a build and at the exit of its process.

A build allocates millions of docutils nodes that live until their page is
pickled (a page's doctree holds cycles: each node points to its parent), and
an environment that grows to a million objects.  With Python's default
thresholds (700, 10, 10) the collector runs every 700 net allocations, and
its full collections walk the whole environment again and again: about a
sixth of a clean build of the benchmark corpus (``make bench``).

From ``config-inited`` to ``build-finished`` the first threshold is
:data:`YOUNG` instead: young collections are that much rarer, and so are the
full ones that follow them.  Nothing else changes: every cycle is still
collected, only later, which costs about 25 MB at ``-j 1`` on that corpus
and nothing measurable at ``-j auto``; the processes ``-j`` forks inherit the
setting.  At ``build-finished`` the thresholds that were set before are
restored, so a process that runs several builds (the tests, a check) gets its
own back.  A threshold someone set higher already is kept.
``make check`` (``tools/check.py``) raises it for its whole run.

**At exit.**  When the process ends, Python collects once more, walking
every object still alive, among them the environment and the application
(cycles, so not freed before): about 0.25 s after a no-change rebuild of
that corpus, 0.7 s after a clean build, 1 s after ``make check``.  A build
registers :func:`gc.freeze` to run at exit (:mod:`atexit`), so that last
collection finds nothing to walk.  It changes nothing while the process
lives: a process that runs several builds collects as before, and only at
its exit skips that collection.  Files are closed when written, so nothing
waits for it.

Measured on the benchmark corpus (``make bench``'s, 2 cores):
clean ``-j auto`` 25.2 → 22.3 s, ``-j 1`` 28.7 → 27.3 s, ``make check``
10.2 → 8.2 s.

**Once the pages are read** (``env-updated``) the collector freezes what
is alive (:func:`gc.freeze`): the environment, and at ``-j 1`` every
doctree read, waiting to be written.  Later collections no longer walk
those million objects, and the processes ``-j`` forks to write leave them
alone.  A frozen object is never collected as garbage, so the HTML builder
unlinks each page's doctree once the page is written (:func:`release`):
reference counting frees it at once, rather than a collection later.  At
``build-finished`` the objects are unfrozen.  On that corpus a clean
``-j 1`` build's collections took 3.3 s of its 23.8: it now takes 0.8 s
less and 20 MB less memory at its peak.

**While a serial read reads the pages** (``-j 1``, or few pages), Sphinx
keeps each doctree read until it is written, and the collector's full
collections walked them all again as the next pages were read.  Before
each page is read (``source-read``) the main process collects what the
pages before left (only what is not frozen: what was made since) and
freezes what is alive (what was alive before the first, too: a rebuild's
environment).  The benchmark corpus's read collected for 0.74 s,
now 0.37 s (the build's CPU 0.4 s less), for 6 MB more at the peak: what
docutils keeps across pages (its cache of nested state machines holds the
last page's) is frozen with them.  The processes of a parallel read
collect as before: the doctrees they read are garbage once pickled.

It freezes without collecting first: reading leaves almost no cycles (the
card xrefs it replaces by links are emptied, so reference counting frees
them: :func:`handbook.cards.links.replace_xref`), and that collection
walked 1.2 million objects to find a thousand, 0.5 s of a clean ``-j 1``
build of that corpus (0.3-0.7 s less in two pairs; the same peak memory).

**While the environment is loaded** (``config-inited`` to
``builder-inited``) the collector is off: what is loaded is alive, and an
edit's young collections walked the 4 MB pickle's objects for 12 ms.  It is
turned on again with them old (:func:`age`).

**A build that reads few pages** (an edit: at most :data:`FEW`) runs
with the collector off in its main process, from the read to
``build-finished``: what it allocates is alive to the end of the build, or
freed by reference counting (a written page's doctree is released), or
collected at the reads (above).  The collections it ran found almost
nothing; with the loading's, they took 88 ms of a one-line edit of the
benchmark corpus (1.2 s; five pairs, 1.25 → 1.17 s).  The processes it
forks inherit the setting.  A build that reads more runs as
above: a clean build with the collector off held 45 MB more at its peak.

**The main process of a parallel write** resolves and indexes the pages
that the writing processes write, and the write waits on it.  It does so
with the collector off (:class:`Paused`) and collects once at the end:
its CPU in the write 5.9 → 5.6 s on the benchmark corpus (three pairs).
"""

from __future__ import annotations

import atexit
import gc
import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment

#: the first threshold during a build (Python's default: 700)
YOUNG = 10_000
#: a build that reads at most this many pages runs without the collector
FEW = 5


def raise_threshold() -> tuple[int, int, int]:
    """Set the first threshold to :data:`YOUNG` unless it is higher already
    or 0 (the collector turned off); the thresholds before."""
    saved = gc.get_threshold()
    young, *older = saved
    if 0 < young < YOUNG:
        gc.set_threshold(YOUNG, *older)
    return saved


class Thresholds:
    """The thresholds before the build, kept to be restored after it."""

    def __init__(self) -> None:
        self.saved: tuple[int, int, int] | None = None

    def raise_(self, app: Sphinx, config: Config) -> None:
        self.saved = raise_threshold()

    def restore(self, app: Sphinx, exception: BaseException | None) -> None:
        if self.saved is not None:
            gc.set_threshold(*self.saved)
            self.saved = None
        freeze_at_exit()


class Frozen:
    """Whether this build froze the objects alive after reading, and
    whether it turned the collector off (a build that reads few pages)."""

    def __init__(self) -> None:
        self.frozen = False
        self.paused = False  # whether this build turned the collector off (FEW)
        self.load = False  # whether it did while the environment was loaded
        self.main = 0  # the main process, which reads the pages of a serial read

    def loading(self, app: Sphinx, config: Config) -> None:
        """The collector off while the environment is loaded (everything
        made then is alive: a young collection every :data:`YOUNG` objects
        of it found nothing)."""
        self.load = gc.isenabled()
        gc.disable()

    def start(self, app: Sphinx) -> None:
        """Once the environment is loaded (``builder-inited``), the
        collector is on again, with what was loaded old (:func:`age`):
        young, it would be walked at once."""
        self.main = os.getpid()
        if self.load:
            age()
            gc.enable()
            self.load = False

    def before_reading(self, app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
        """What is alive before the pages are read (the environment of the
        last build: a rebuild's first page would walk it) is frozen.  A
        build that reads at most :data:`FEW` pages goes on without the
        collector."""
        if os.getpid() == self.main:
            self.freeze(app, env)
            if len(docnames) <= FEW and gc.isenabled():
                gc.disable()
                self.paused = True

    def page_read(self, app: Sphinx, docname: str, source: list[str]) -> None:
        """A page about to be read by the main process (a serial read, which
        keeps each doctree until it is written): what the pages before
        left is collected, what is alive frozen."""
        if os.getpid() == self.main:
            gc.collect()  # what reading it left: only what is not frozen yet
            self.freeze(app, app.env)

    def freeze(self, app: Sphinx, env: BuildEnvironment) -> list[str]:
        gc.freeze()
        self.frozen = True
        return []

    def unfreeze(self, app: Sphinx, exception: BaseException | None) -> None:
        if self.frozen:
            gc.unfreeze()
            self.frozen = False
        if self.paused:
            # turned on with what the build made young, the collector would
            # walk it at once: 26 ms of an edit, whose process then ends
            age()
            gc.enable()
            self.paused = False


class Paused:
    """The collector off in the main process of a parallel write, while it
    resolves and indexes the pages for the writing processes (the write
    waits on it: the processes are idle a quarter of the time).  What it
    allocates then is alive or freed by reference counting (each doctree
    is released once handed out, :func:`release`), so its collections, 134
    of them and 0.47 s of its 5.9 s on the benchmark corpus, found little:
    it collects once instead (:meth:`collect`, while the last pages are
    written: 82,000 objects and 0.22 s when it came, 48,000 and 0.15 s
    since the related sections' links are no xrefs).  Each writing process it forks turns
    the collector on again in itself (:meth:`in_child`)."""

    def __init__(self) -> None:
        self.collecting = False  # whether the collector was on, to be turned on again

    def __enter__(self) -> Paused:
        self.collecting = gc.isenabled()
        gc.disable()
        return self

    def collect(self) -> None:
        if self.collecting:
            gc.collect()

    def in_child(self) -> None:
        if self.collecting:
            gc.enable()

    def __exit__(self, *exc: object) -> None:
        if self.collecting:
            gc.enable()


def age() -> None:
    """Move every object the collector tracks to its oldest generation
    (frozen, then unfrozen: :func:`gc.freeze` also resets the count of young
    objects): only a full collection walks them again, when one comes,
    garbage among them included."""
    gc.freeze()
    gc.unfreeze()


def release(doctree: nodes.document) -> None:
    """Unlink the nodes of a doctree that was written and will not be used
    again, so that reference counting frees them (a frozen doctree's cycles,
    each node pointing to its parent and its document, are never collected).
    Each node's attributes are cleared: its children, its parent, its
    document (twice as fast as setting those three: 25 ms for a yearly FAQ
    page of 35,000 nodes, in the main process of a parallel build too)."""
    stack: list[Any] = [doctree]
    while stack:
        node = stack.pop()
        children = getattr(node, 'children', None)  # a Text node's are ()
        if children:
            stack.extend(children)
        node.__dict__.clear()


def freeze_at_exit() -> None:
    """No last collection when the process ends (registered once)."""
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)


def setup(app: Sphinx) -> dict[str, Any]:
    thresholds = Thresholds()
    app.connect('config-inited', thresholds.raise_)
    app.connect('build-finished', thresholds.restore, priority=900)
    frozen = Frozen()
    app.connect('config-inited', frozen.loading, priority=900)
    app.connect('builder-inited', frozen.start, priority=100)  # before the others
    app.connect('env-before-read-docs', frozen.before_reading, priority=999)  # after the others
    app.connect('source-read', frozen.page_read)
    app.connect('env-updated', frozen.freeze, priority=900)  # after the others
    app.connect('build-finished', frozen.unfreeze, priority=900)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
