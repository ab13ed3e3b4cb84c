"""The site's table of contents as each page shows it, kept from build to build.

The theme (furo) asks every page it writes for the whole site's table of
contents, for its navigation, and Sphinx copies and resolves the site's
toctree for that page: 20 ms a page on a handbook of 60 pages, 0.25 s of
the 3 s of an edit that writes ten pages without reading any (a registry
row whose URL changed moves card links only).  What it gives depends on what the
pages read say (their titles, their toctrees), on the configuration, the
tags and the builder, and on nothing else.

So each page's tables of contents -- the HTML of each call of the page
context's ``toctree`` (``html-page-context``, before the theme's handler),
by its arguments -- are kept in the doctree folder, a file per page
(:data:`FOLDER`), with the digest of what they were made of
(:func:`signature`: every page's sections, title and toctrees, 15 ms on
such a handbook; the configuration, the tags, the builder).  A build
whose digest is the same -- no page read, or pages read with the same
title and sections (an edited ruling) -- takes them as they are; any other
makes them anew.  A page's file is written as soon as the page is (by
whichever process writes it).
"""

from __future__ import annotations

import contextlib
import hashlib
import pickle
from pathlib import Path
from typing import TYPE_CHECKING, Any

from handbook.core.files import replacing

if TYPE_CHECKING:
    from collections.abc import Callable

    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment

#: the folder, in the doctree folder, that keeps the pages' tables of contents
FOLDER = 'handbook-toctrees'
#: changes whenever what is kept changes
VERSION = 2


class Toctrees:
    """This build's kept tables of contents (one per application)."""

    def __init__(self) -> None:
        self.folder: Path | None = None  # None: nothing kept (not an HTML build)
        self.digest = ''

    def start(self, app: Sphinx, builder: Builder) -> None:
        """What this build's tables of contents are made of (``write-started``)."""
        info = getattr(builder, 'build_info', None)
        if builder.format != 'html' or info is None:
            self.folder = None
            return
        self.folder = Path(app.doctreedir) / FOLDER
        self.digest = hashlib.sha256(repr((VERSION, builder.name, info.config_hash,
                                           info.tags_hash, signature(app.env))).encode()
                                     ).hexdigest()

    def page(self, pagename: str) -> dict[str, str]:
        """The tables of contents page *pagename* showed, if they were made
        of what this build's are."""
        kept = _load(self._path(pagename))
        if isinstance(kept, tuple) and len(kept) == 3 and kept[:2] == (self.digest, pagename):
            return kept[2]
        return {}

    def save_page(self, pagename: str, toctrees: dict[str, str]) -> None:
        _save(self._path(pagename), (self.digest, pagename, toctrees))

    def _path(self, pagename: str) -> Path:
        assert self.folder is not None
        return self.folder / (hashlib.sha256(pagename.encode()).hexdigest()[:24] + '.pickle')

    def keep(self, app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
             doctree: object) -> None:
        """The page context's ``toctree``, kept (``html-page-context``, before the theme's)."""
        toctree = context.get('toctree')
        if self.folder is None or not callable(toctree):
            return
        context['toctree'] = self._kept(pagename, toctree)

    def _kept(self, pagename: str, toctree: Callable[..., str]) -> Callable[..., str]:
        kept: dict[str, str] | None = None

        def kept_toctree(**kwargs: Any) -> str:
            nonlocal kept
            if kept is None:
                kept = self.page(pagename)
            key = repr(sorted(kwargs.items()))
            if key not in kept:
                kept[key] = toctree(**kwargs)
                self.save_page(pagename, kept)
            return kept[key]

        return kept_toctree


def signature(env: BuildEnvironment) -> str:
    """A digest of what a page's tables of contents are made of: every page's
    sections, title, toctrees and numbers (as text: pickles of equal nodes
    may differ)."""
    digest = hashlib.sha256()
    for docname in sorted(env.found_docs):
        toc, title = env.tocs.get(docname), env.titles.get(docname)
        for part in (docname, toc.pformat() if toc is not None else '',
                     title.pformat() if title is not None else ''):
            digest.update(part.encode())
            digest.update(b'\x00')
    digest.update(repr((sorted(env.toctree_includes.items()), sorted(env.glob_toctrees),
                        sorted(env.numbered_toctrees), sorted(env.toc_secnumbers.items()),
                        sorted(env.toc_fignumbers.items()))).encode())
    return digest.hexdigest()


def _load(path: Path) -> Any:
    try:
        return pickle.loads(path.read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError):
        return None


def _save(path: Path, value: object) -> None:
    """Write *value* to *path* through a temporary file (another process may read it)."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        with replacing(path) as out:
            out.write(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))


def setup(app: Sphinx) -> dict[str, Any]:
    toctrees = Toctrees()
    app.connect('write-started', toctrees.start)
    app.connect('html-page-context', toctrees.keep, priority=400)  # before the theme's (500)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
