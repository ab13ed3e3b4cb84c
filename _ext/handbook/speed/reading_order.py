"""Parallel reading: the pages spread over the processes that read them.

With ``-j N``, Sphinx reads the pages in chunks, consecutive slices of the
list of pages to read (``sphinx.util.parallel.make_chunks``): it hands the
first ``N`` chunks to ``N`` processes, and each next chunk to the first
process to be done with its own.  The list is sorted by name, so a
handbook's yearly FAQ pages, often half of its text, fall in the same chunk
(``faq/2023``, ``faq/2024``): that one process reads while the others are
done.

``env-before-read-docs`` lets an extension reorder that list.  Before a
parallel read, :func:`spread` reorders it so that the processes end
together: the chunks keep the sizes Sphinx gives them; each page goes, the
largest first, to the chunk with the fewest bytes that still has room, the
heaviest chunks first; then pages are swapped between chunks while a swap
makes the read end sooner, as :func:`read_end` plays Sphinx's handing out
of the chunks (a page costs its bytes and :data:`PAGE_COST`).  A serial
read keeps Sphinx's order.  The order pages are read
in changes nothing in the output (``test_builds`` compares ``-j 2`` with
``-j 1``); only the time.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sphinx.util.parallel import make_chunks, parallel_available

from handbook.speed.session import enabled

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment


def source_size(env: BuildEnvironment, docname: str) -> int:
    """The bytes of a page's source (0 if it cannot be read)."""
    try:
        return os.stat(env.doc2path(docname)).st_size
    except OSError:
        return 0


#: what reading a page costs besides its bytes, in bytes: a page of a few
#: lines takes about what 3 KB of text takes (parsing it, pickling its doctree)
PAGE_COST = 3_000
#: the most swaps :func:`balanced` weighs (a few hundred for a handbook of 60
#: pages, some thousands for 500); the same order for the same pages
MOST_SWAPS = 10_000


def read_end(loads: Sequence[int], nproc: int) -> list[int]:
    """When each of *nproc* processes is done reading chunks that cost
    *loads*, latest first: Sphinx hands the chunks out in order, each to the
    first process to be free."""
    free = [0] * nproc
    for load in loads:
        free[free.index(min(free))] += load
    return sorted(free, reverse=True)


def balanced(docnames: list[str], sizes: dict[str, int], nproc: int) -> list[str]:
    """*docnames* reordered so that the chunks Sphinx cuts it into for
    *nproc* processes are read in the least time (see the module docstring)."""
    capacities = [len(chunk) for chunk in make_chunks(docnames, nproc)]
    cost = {name: sizes[name] + PAGE_COST for name in docnames}
    chunks: list[list[str]] = [[] for _ in capacities]
    loads = [0] * len(capacities)
    for docname in sorted(docnames, key=lambda name: (-sizes[name], name)):
        i = min((i for i, room in enumerate(capacities) if len(chunks[i]) < room),
                key=lambda i: (loads[i], i))
        chunks[i].append(docname)
        loads[i] += cost[docname]
    # chunks of the same size may swap places: the heaviest first
    order = sorted(range(len(chunks)), key=lambda i: (-capacities[i], -loads[i], i))
    chunks, loads = [chunks[i] for i in order], [loads[i] for i in order]
    _swap(chunks, loads, cost, nproc)
    return [name for chunk in chunks for name in chunk]


def _swap(chunks: list[list[str]], loads: list[int], cost: dict[str, int], nproc: int) -> None:
    """Swap pages between chunks, in place, while a swap makes the read end
    sooner (or, ending as soon, the next process sooner)."""
    best = read_end(loads, nproc)
    weighed = 0
    improved = True
    while improved and weighed < MOST_SWAPS:
        improved = False
        for a, b in itertools.combinations(range(len(chunks)), 2):
            for i, j in itertools.product(range(len(chunks[a])), range(len(chunks[b]))):
                x, y = chunks[a][i], chunks[b][j]
                moved = cost[y] - cost[x]
                if not moved:
                    continue
                weighed += 1
                loads[a] += moved
                loads[b] -= moved
                ends = read_end(loads, nproc)
                if ends < best:
                    best, improved = ends, True
                    chunks[a][i], chunks[b][j] = y, x
                else:
                    loads[a] -= moved
                    loads[b] += moved
                if weighed >= MOST_SWAPS:
                    return


def spread(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """``env-before-read-docs``: reorder *docnames* in place for a parallel read."""
    if not (parallel_available and app.parallel > 1 and len(docnames) > app.parallel
            and enabled(app, 'reading-order')):
        return
    sizes = {name: source_size(env, name) for name in docnames}
    docnames[:] = balanced(docnames, sizes, app.parallel)


def setup(app: Sphinx) -> dict[str, Any]:
    # last: after any extension that adds or removes pages to read
    app.connect('env-before-read-docs', spread, priority=900)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
