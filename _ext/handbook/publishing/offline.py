"""Offline: the pages a reader opened, and the search's parts they used, without a network.

Opt-in: ``handbook_offline = True`` (``conf.py``; this handbook's
deployment has it on).  Every page then loads ``_static/handbook-offline.js``,
which registers a service worker, ``handbook-sw.js`` at the site's root (so
that its scope is the whole site; a translation or an edition in a folder of
its own has its own).  The worker answers every request of the site from
the network, and keeps each answer; without a network (at a tournament with
no signal) it answers with the kept one -- a page asked with another query
(``search.html?q=…``) with the one kept under any.  So the pages a reader
opened, the theme's files, the search's manifest and the shards and chunks
the reader's searches loaded (:mod:`handbook.search.rulings_index`) stay
readable: a search offline finds what those parts hold.  The page opened
before the worker was there is kept too: once registered, the worker is
asked to keep the page and what it had loaded.

Network first: a reader online always gets the current pages.  Nothing is
fetched ahead: the worker keeps what was read, no more (a reader's phone
does not download the whole handbook).  Service workers need a secure
context (HTTPS, or ``localhost``); elsewhere, and from ``file://``, the
script does nothing.  The EPUB and single-page builds have none.

Configuration (``conf.py``)::

    handbook_offline = False  # True: the service worker above
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx

WORKER = Path(__file__).with_name('offline.js')
PAGE_SCRIPT = Path(__file__).with_name('offline_page.js')
#: their names in the HTML folder: the worker at its root, the page's script in _static/
WORKER_NAME = 'handbook-sw.js'
STATIC_NAME = 'handbook-offline.js'


def _write(path: Path, data: bytes) -> None:
    if path.is_file() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def add_worker(app: Sphinx) -> None:
    """Write the worker and the page's script, and have every page load it
    (``builder-inited``: before the pages are written, which name it with its
    checksum)."""
    builder = app.builder
    if not app.config.handbook_offline or builder.format != 'html' \
            or getattr(builder, 'embedded', False) or builder.name == 'singlehtml':
        return
    outdir = Path(builder.outdir)
    _write(outdir / WORKER_NAME, WORKER.read_bytes())
    _write(outdir / '_static' / STATIC_NAME, PAGE_SCRIPT.read_bytes())
    app.add_js_file(STATIC_NAME, priority=800, defer='defer')


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value('handbook_offline', False, 'html', types=frozenset({bool}),
                         description='a service worker keeps the pages read, for reading offline')
    app.connect('builder-inited', add_worker)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
