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
asked to keep the page and what it had loaded.  A page never read answers,
offline, with a page that says so in the build's language and links the
site's root (it was the browser's own error page).

Network first: a reader online always gets the current pages.  Nothing is
fetched ahead: the worker keeps what was read, no more (a reader's phone
does not download the whole handbook).  Service workers need a secure
context (HTTPS, or ``localhost``); elsewhere, and from ``file://``, the
script does nothing.  The EPUB and single-page builds have none.

Configuration (``conf.py``)::

    handbook_offline = False  # True: the service worker above
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.locale import get_translation

from handbook.core.files import write_if_changed

if TYPE_CHECKING:
    from sphinx.application import Sphinx

WORKER = Path(__file__).with_name('offline.js')
PAGE_SCRIPT = Path(__file__).with_name('offline_page.js')
#: their names in the HTML folder: the worker at its root, the page's script in _static/
WORKER_NAME = 'handbook-sw.js'
STATIC_NAME = 'handbook-offline.js'
#: where the worker takes the page of a page never read
UNREAD_SLOT = '/* UNREAD_PAGE */ null'

_ = get_translation('handbook')


def unread_page(app: Sphinx) -> str:
    """The page a page never read answers offline; ``{home}``: the site's root."""
    language = (app.config.language or 'zh_CN').replace('_', '-')
    title = escape(_('这一页离线时无法打开'))
    why = escape(_('离线时，只有读过的页面和搜过的内容可用；这一页还没有读过。'))
    home = escape(_('回到首页'))
    return ('<!DOCTYPE html>\n'
            f'<html lang="{escape(language)}"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{title}</title><style>body{{font-family:sans-serif;line-height:1.6;'
            'max-width:40em;margin:2em auto;padding:0 1em}@media (prefers-color-scheme:dark)'
            '{body{background:#131416;color:#e2e2e2}a{color:#8ab4f8}}</style></head>'
            f'<body><main><h1>{title}</h1>'
            f'<p>{why}</p><p><a href="{{home}}">{home}</a></p></main></body></html>\n')


def worker_text(app: Sphinx) -> str:
    """The worker, with the page of a page never read in its slot."""
    text = WORKER.read_text(encoding='utf-8')
    assert text.count(UNREAD_SLOT) == 1, f'{WORKER}: no slot for the page never read'
    return text.replace(UNREAD_SLOT, json.dumps(unread_page(app), ensure_ascii=False))


def offline(app: Sphinx) -> bool:
    """Whether this build's pages read offline (``handbook_offline``, HTML pages)."""
    builder = app.builder
    return bool(app.config.handbook_offline) and builder.format == 'html' \
        and not getattr(builder, 'embedded', False) and builder.name != 'singlehtml'


def add_worker(app: Sphinx) -> None:
    """Have every page load the page's script (``builder-inited``)."""
    if offline(app):
        app.add_js_file(STATIC_NAME, priority=800, defer='defer')


def write_worker(app: Sphinx, env: Any) -> list[str]:
    """Write the worker and the page's script where they differ
    (``env-updated``: in the build, so that a write fault is the build's, and
    before the pages are written, which name the script with its checksum)."""
    if offline(app):
        outdir = Path(app.builder.outdir)
        write_if_changed(outdir / WORKER_NAME, worker_text(app).encode())
        write_if_changed(outdir / '_static' / STATIC_NAME, PAGE_SCRIPT.read_bytes())
    return []


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value('handbook_offline', False, 'html', types=frozenset({bool}),
                         description='a service worker keeps the pages read, for reading offline')
    app.connect('builder-inited', add_worker)
    app.connect('env-updated', write_worker)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
