"""Parallel reading: the largest pages spread over the processes that read them.

With ``-j N``, Sphinx reads the pages in chunks, consecutive slices of the
list of pages to read, each chunk in a process of its own, ``N`` at a time
(``sphinx.util.parallel.make_chunks``).  The list is sorted by name, so a
handbook's yearly FAQ pages, often half of its text, fall in the same chunk
(``faq/2023``, ``faq/2024``): that one process reads while the others are
done.

``env-before-read-docs`` lets an extension reorder that list.  Before a
parallel read, :func:`spread` reorders it so that each chunk gets about the
same number of bytes of source: the largest page first, each page to the
chunk with the fewest bytes that still has room (chunks keep the sizes
Sphinx gives them), the heaviest chunks first.  A serial read keeps
Sphinx's order.  The order pages are read in changes nothing in the output
(``test_builds`` compares ``-j 2`` with ``-j 1``); only the time.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from sphinx.util.parallel import make_chunks, parallel_available

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment


def source_size(env: BuildEnvironment, docname: str) -> int:
    """The bytes of a page's source (0 if it cannot be read)."""
    try:
        return os.stat(env.doc2path(docname)).st_size
    except OSError:
        return 0


def balanced(docnames: list[str], sizes: dict[str, int], nproc: int) -> list[str]:
    """*docnames* reordered so that the chunks Sphinx cuts it into for
    *nproc* processes carry about the same bytes, the heaviest first."""
    capacities = [len(chunk) for chunk in make_chunks(docnames, nproc)]
    chunks: list[list[str]] = [[] for _ in capacities]
    loads = [0] * len(capacities)
    for docname in sorted(docnames, key=lambda name: (-sizes[name], name)):
        i = min((i for i, room in enumerate(capacities) if len(chunks[i]) < room),
                key=lambda i: (loads[i], i))
        chunks[i].append(docname)
        loads[i] += sizes[docname]
    # chunks of the same size may swap places: the heaviest first
    order = sorted(range(len(chunks)), key=lambda i: (-capacities[i], -loads[i], i))
    return [name for i in order for name in chunks[i]]


def spread(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """``env-before-read-docs``: reorder *docnames* in place for a parallel read."""
    if not (parallel_available and app.parallel > 1 and len(docnames) > app.parallel):
        return
    sizes = {name: source_size(env, name) for name in docnames}
    docnames[:] = balanced(docnames, sizes, app.parallel)


def setup(app: Sphinx) -> dict[str, Any]:
    # last: after any extension that adds or removes pages to read
    app.connect('env-before-read-docs', spread, priority=900)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
