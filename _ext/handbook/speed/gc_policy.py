"""The garbage collector during an HTML build, given back as it was after it.

A build allocates millions of docutils nodes that live until their page is
written (a doctree is full of cycles: each node points to its parent) and an
environment of a million objects.  With Python's default thresholds the
collector's full collections walk all of them again and again, and find
almost nothing: what a build makes is alive until its page is written, or
freed by reference counting.  During a build (:class:`Policy`, applied by
the session of :mod:`handbook.speed.session` around the builder's
``build()``):

* the first threshold is :data:`YOUNG` (a threshold set higher already, or
  the collector turned off, is kept): collections are rarer;
* what is alive before the pages are read (a rebuild's environment) is
  frozen (:func:`gc.freeze`); a serial read, which keeps each doctree until
  it is written, collects what the page before left and freezes what is
  alive before each page; once the pages are read, what is alive is frozen
  again, so that the write's collections, and the processes forked to
  write, leave it alone;
* a build that reads few pages (an edit: :data:`FEW`) runs with the
  collector off in its main process: its collections would find nothing;
* the main process of a parallel write resolves and indexes with the
  collector off and collects once, while it waits for the last pages
  (:class:`Paused`);
* a written doctree is unlinked (:func:`release`): frozen, its cycles would
  never be collected; unlinked, reference counting frees it.

When the build ends -- done, failed or interrupted -- the thresholds are
set back, the frozen objects unfrozen and the collector turned on again if
it was on (:meth:`Policy.restore`): a process that runs several builds (the
tests, ``sphinx-autobuild``) gets its collector back as it was.

**At the exit of ``sphinx-build``.**  A process whose only job was the
build (the ``sphinx-build`` command) would end with one more collection of
everything still alive, environment and application included.  There, and
only there, :func:`gc.freeze` is registered to run at exit, so that last
collection finds nothing to walk: nothing in the process runs after it.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

#: the first threshold during a build (Python's default: 700)
YOUNG = 10_000
#: a build that reads at most this many pages runs without the collector
FEW = 5


class Policy:
    """The collector's settings during one build (see the module docstring)."""

    def __init__(self) -> None:
        self.saved: tuple[int, int, int] | None = None
        self.enabled = True  # whether the collector was on before the build
        self.ours = True  # whether the frozen objects are ours to unfreeze (none were before)
        self.main = os.getpid()

    def apply(self, tune: bool = True) -> None:
        """The build starts: what the collector is noted; with *tune*, a
        higher first threshold (else the policy changes nothing, but gives
        the collector back at the end as it was: a part may turn it off)."""
        self.main = os.getpid()
        self.enabled = gc.isenabled()
        self.ours = tune and gc.get_freeze_count() == 0  # else the host's: left as they are
        self.saved = None
        if not tune:
            return
        self.saved = gc.get_threshold()
        young, *older = self.saved
        if 0 < young < YOUNG:
            gc.set_threshold(YOUNG, *older)

    def before_reading(self, docnames: list[str]) -> None:
        """What is alive before the pages are read is frozen; a build that
        reads few pages goes on without the collector."""
        if os.getpid() == self.main:
            self.freeze()
            if len(docnames) <= FEW:
                gc.disable()

    def page_read(self) -> None:
        """A serial read is about to read a page: what the pages before left
        is collected, what is alive frozen."""
        if os.getpid() == self.main and gc.isenabled():
            gc.collect()
            self.freeze()

    def freeze(self) -> None:
        if self.ours:
            gc.freeze()

    def restore(self) -> None:
        """The build is over, whichever way: everything as it was."""
        if self.ours:
            gc.unfreeze()
        if self.saved is not None:
            gc.set_threshold(*self.saved)
            self.saved = None
        if self.enabled and not gc.isenabled():
            age()
            gc.enable()
        if self.ours and is_sphinx_build():
            atexit.unregister(gc.freeze)
            atexit.register(gc.freeze)


class Paused:
    """The collector off in the main process of a parallel write while it
    resolves and indexes pages for the writing processes (each of which
    turns it on again in itself: :meth:`in_child`); one collection while it
    waits for the last of them (:meth:`collect`)."""

    def __init__(self) -> None:
        self.collecting = False

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
    """Move every object the collector tracks to its oldest generation, so
    that turning the collector on does not walk the build's objects at once."""
    gc.freeze()
    gc.unfreeze()


def release(doctree: nodes.document) -> None:
    """Unlink the nodes of a doctree that was written and will not be used
    again, so that reference counting frees them: each node's attributes
    are cleared (its children, its parent, its document)."""
    stack: list[Any] = [doctree]
    while stack:
        node = stack.pop()
        children = getattr(node, 'children', None)  # a Text node's are ()
        if children:
            stack.extend(children)
        node.__dict__.clear()


def is_sphinx_build() -> bool:
    """Whether this process is the ``sphinx-build`` command (or ``python -m
    sphinx``), whose only job is the build."""
    main = sys.modules.get('__main__')
    spec = getattr(main, '__spec__', None)
    return Path(sys.argv[0]).name == 'sphinx-build' or getattr(spec, 'name', '') in (
        'sphinx', 'sphinx.__main__', 'sphinx.cmd.build')


def policy(app: Sphinx) -> Policy | None:
    """This build's policy, where its session tunes the collector (part ``gc``)."""
    session = getattr(app.builder, 'speed_session', None)
    if session is None or not session.open or not session.uses('gc'):
        return None
    return session.gc


def before_reading(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    if (found := policy(app)) is not None:
        found.before_reading(docnames)


def page_read(app: Sphinx, docname: str, source: list[str]) -> None:
    if (found := policy(app)) is not None:
        found.page_read()


def pages_read(app: Sphinx, env: BuildEnvironment) -> list[str]:
    if (found := policy(app)) is not None:
        found.freeze()
    return []


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect('env-before-read-docs', before_reading, priority=999)  # after the others
    app.connect('source-read', page_read)
    app.connect('env-updated', pages_read, priority=900)  # after the others
    return {'version': '2', 'parallel_read_safe': True, 'parallel_write_safe': True}
