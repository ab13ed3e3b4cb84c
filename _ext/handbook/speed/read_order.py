"""A ``-j`` read's shape: chunks of about the same weight; one page read in
the main process.

Sphinx's parallel read cuts the list of pages to read into consecutive
chunks of as many pages each (:func:`sphinx.util.parallel.make_chunks`) and
hands them to its processes in that order.  The list comes in name order,
where a handbook's yearly FAQ pages are neighbours (``faq/2020`` …
``faq/2024``): one chunk holds them all, more than half the source, and
while one process reads it the other is idle.

``env-before-read-docs`` lets an extension reorder that list in place, and
here it is: the pages are dealt into the chunks Sphinx will cut, heaviest
first, each to the lightest chunk with room left (a page's weight is the
size of its source), and the heaviest chunks come first.  The chunks are
the same in number and length, so only which page is in which changes, not
what is read, nor what is written: the order of the list has no other use
(the handlers that run after Sphinx's read see the same pages).  A build
that reads serially keeps the name order.

A parallel read of one page has nothing to share: one process reads it
while the main one waits, then pickles the whole environment back (the
records of every page, not only its own) for the main process to load and
merge: time added to the read, the more the larger the handbook.  So a
build that reads one page reads it in the main process: the application's
``-j`` is 1 from ``env-before-read-docs``, where Sphinx has yet to choose
how to read, to ``env-updated``, before it chooses how to write
(:meth:`Session.read_serially`; the session gives it back whichever way
the build ends).  A Sphinx that chose otherwise would only read in parallel
again.  Part ``read-order``.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from sphinx.util.parallel import make_chunks, parallel_available

from handbook.speed.session import uses

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment


def balanced(docnames: Sequence[str], nproc: int, weight: Callable[[str], int]) -> list[str]:
    """*docnames* in an order whose chunks (``make_chunks(…, nproc)``) weigh
    about the same, the heaviest chunk first."""
    sizes = [len(chunk) for chunk in make_chunks(docnames, nproc)]
    chunks: list[list[str]] = [[] for _ in sizes]
    held = [0] * len(sizes)
    for docname in sorted(docnames, key=lambda d: (-weight(d), d)):
        room = [i for i, size in enumerate(sizes) if len(chunks[i]) < size]
        lightest = min(room, key=lambda i: (held[i], i))
        chunks[lightest].append(docname)
        held[lightest] += weight(docname)
    # a chunk's length is fixed by its place: the heaviest first among chunks
    # of one length (the last chunk may be shorter)
    order = sorted(range(len(sizes)), key=lambda i: (-held[i], i))
    out: list[list[str]] = [[] for _ in sizes]
    for place in range(len(sizes)):
        fits = next(i for i in order if len(chunks[i]) == sizes[place])
        order.remove(fits)
        out[place] = chunks[fits]
    return [docname for chunk in out for docname in chunk]


def reorder(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """``env-before-read-docs``: the list in balanced order, where Sphinx reads
    it in parallel (the conditions of its ``read``); one page read serially."""
    session = uses(app, 'read-order')
    if session is None or not parallel_available or app.parallel <= 1:
        return
    if len(docnames) == 1:
        session.read_serially(app)
        return
    if not docnames or not all(getattr(extension, 'parallel_read_safe', None)
                               for extension in app.extensions.values()):
        return  # (Sphinx's is_parallel_allowed() would warn a second time)

    def weight(docname: str) -> int:
        try:
            return os.path.getsize(env.doc2path(docname))
        except OSError:
            return 0

    docnames[:] = balanced(docnames, app.parallel, weight)


def read_ended(app: Sphinx, env: BuildEnvironment) -> None:
    """``env-updated``: the read is over; the application's ``-j`` as it was."""
    session = uses(app, 'read-order')
    if session is not None:
        session.read_ended()


def setup(app: Sphinx) -> dict[str, Any]:
    # after every other handler: theirs may add pages to read
    app.connect('env-before-read-docs', reorder, priority=900)
    app.connect('env-updated', read_ended, priority=0)  # before every other handler
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
