"""The site's table of contents as each page shows it, kept from build to build.

The theme (furo) asks every page it writes for the whole site's table of
contents, for its navigation, and Sphinx copies and resolves the site's
toctree for that page, a noticeable part of an edit that writes pages
without reading them (a registry row whose URL changed moves card links
only).  What it gives depends on what the
pages read say (their titles, their toctrees), on the configuration, the
tags and the builder, and on nothing else.

So each page's tables of contents -- the HTML of each call of the page
context's ``toctree`` (``html-page-context``, before the theme's handler),
by its arguments -- are kept in the doctree folder, a file per page
(:data:`FOLDER`), with the digest of what they were made of
(:func:`signature`: every page's sections, title and toctrees; the
configuration, the tags, the builder).  A build
whose digest is the same -- no page read, or pages read with the same
title and sections (an edited ruling) -- takes them as they are; any other
makes them anew.  A page's file is written as soon as the page is (by
whichever process writes it).  A page no source gives (a part of the
timeline, the search page) shows its folder's navigation
(:mod:`handbook.render.navigation`, which says so): that is kept a file per
folder (named ``folder/``), made of the same.  A page whose navigation an
extension made its own way (the 404 page's, with absolute links) is left
alone.

The argument handling of :meth:`navigation` is
``StandaloneHTMLBuilder._get_local_toctree``'s, which Sphinx keeps private:
the cache applies only where the builder's method is that one (an
allowance of :data:`handbook.speed.ALLOWED`, guarded by Sphinx's version).

**The navigation, made from the pages' titles.**  The theme's call asks for
titles only (``titles_only``, not collapsed).  Sphinx copies every page's
table of contents, all its sections, for every page that asks, and only
then cuts each down to its title and the toctrees under it: thousands of
nodes copied for a navigation of a few dozen titles.  Where a page's table
of contents could not come out otherwise (no ``only`` in it, no ``:tocdepth:``,
each entry a title with at most one list under it), that cut is made once
per build and process (:class:`TitlesOnlyTocs`), and Sphinx's own
:func:`~sphinx.environment.adapters.toctree.global_toctree_for_doc` is given
the cut tables instead of the whole ones (:class:`NavigationView`).  It
resolves, marks and renders them as it would have: the same HTML (a test
compares every page of a root with every shape of toctree).  Only for
builders that take
``toctree``'s arguments as the HTML builder does (not singlehtml).
"""

from __future__ import annotations

import contextlib
import hashlib
import pickle
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx import addnodes
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.environment.adapters.toctree import global_toctree_for_doc

from handbook.core.files import replacing
from handbook.speed.session import enabled

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
        self.titles_tocs: TitlesOnlyTocs | None = None  # made when first needed

    def start(self, app: Sphinx, builder: Builder) -> None:
        """What this build's tables of contents are made of (``write-started``)."""
        self.titles_tocs = None
        info = getattr(builder, 'build_info', None)
        if builder.format != 'html' or info is None or not enabled(app, 'toctrees'):
            self.folder = None
            return
        self.folder = Path(app.doctreedir) / FOLDER
        self.digest = hashlib.sha256(repr((VERSION, builder.name, info.config_hash,
                                           info.tags_hash, signature(app.env))).encode()
                                     ).hexdigest()

    def page(self, name: str) -> dict[str, str]:
        """The tables of contents page *name* showed (or the pages of folder
        *name*), if they were made of what this build's are."""
        kept = _load(self._path(name))
        if isinstance(kept, tuple) and len(kept) == 3 and kept[:2] == (self.digest, name):
            return kept[2]
        return {}

    def save_page(self, name: str, toctrees: dict[str, str]) -> None:
        _save(self._path(name), (self.digest, name, toctrees))

    def _path(self, name: str) -> Path:
        assert self.folder is not None
        return self.folder / (hashlib.sha256(name.encode()).hexdigest()[:24] + '.pickle')

    def keep(self, app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
             doctree: object) -> None:
        """The page context's ``toctree``, kept (``html-page-context``, after
        :mod:`handbook.render.navigation`'s handler, before the theme's)."""
        toctree = context.get('toctree')
        if self.folder is None or not callable(toctree):
            return
        if pagename in app.env.all_docs:
            context['toctree'] = self._kept(app.builder, pagename, pagename, toctree)
            return
        # a page no source gives, where it shows its folder's navigation; not
        # a page whose navigation an extension made its own way (the 404 page)
        folder = getattr(toctree, 'folder', None)
        if isinstance(folder, str):
            context['toctree'] = self._kept(app.builder, pagename, f'{folder}/', toctree)

    def _kept(self, builder: Builder, pagename: str, name: str,
              toctree: Callable[..., str]) -> Callable[..., str]:
        """Page *pagename*'s ``toctree``, kept under *name* (its own, or its folder's)."""
        kept: dict[str, str] | None = None

        def kept_toctree(**kwargs: Any) -> str:
            nonlocal kept
            if kept is None:
                kept = self.page(name)
            key = repr(sorted(kwargs.items()))
            if key not in kept:
                if (kwargs.get('titles_only') and kwargs.get('collapse') is False
                        and takes_arguments_as_html(builder)):
                    kept[key] = self.navigation(builder, pagename, **kwargs)
                else:
                    kept[key] = toctree(**kwargs)
                self.save_page(name, kept)
            return kept[key]

        return kept_toctree

    def navigation(self, builder: Builder, pagename: str, **kwargs: Any) -> str:
        """What the page context's ``toctree(titles_only=True, collapse=False,
        ...)`` gives, from the titles-only tables of contents."""
        env = builder.env
        if self.titles_tocs is None or self.titles_tocs.env is not env:
            self.titles_tocs = TitlesOnlyTocs(env)
        # as StandaloneHTMLBuilder._get_local_toctree takes its arguments
        kwargs.setdefault('includehidden', False)
        if kwargs.get('maxdepth') == '':
            del kwargs['maxdepth']
        view = NavigationView(env, self.titles_tocs)
        toctree = global_toctree_for_doc(view, pagename, builder,  # type: ignore[arg-type]
                                         tags=builder.tags, **kwargs)
        return builder.render_partial(toctree)['fragment']  # type: ignore[attr-defined]


def takes_arguments_as_html(builder: Builder) -> bool:
    """Whether *builder*'s page context takes ``toctree``'s arguments as the
    HTML builder's does (:meth:`navigation` takes them so); singlehtml's, for
    one, does not default ``includehidden`` to False."""
    return (getattr(type(builder), '_get_local_toctree', None)
            is StandaloneHTMLBuilder._get_local_toctree)


class TitlesOnlyTocs(dict[str, nodes.Element]):
    """Each page's table of contents as a titles-only navigation uses it: its
    title, and under it its toctrees, without its sections."""

    def __init__(self, env: BuildEnvironment) -> None:
        super().__init__()
        self.env = env

    def __missing__(self, docname: str) -> nodes.Element:
        toc = self.env.tocs[docname]  # a KeyError for a page not there, as Sphinx expects
        cut = self[docname] = cut_to_titles(toc, self.env.metadata[docname].get('tocdepth', 0))
        return cut


def cut_to_titles(toc: nodes.Element, tocdepth: object = 0) -> nodes.Element:
    """*toc* cut as ``titles_only`` cuts it after copying it, or *toc* itself
    where the cut made first could give anything else: ``only`` nodes (kept or
    not by the tags while copying), a ``:tocdepth:`` (cuts by depth while
    copying), or an entry that is not a title with at most one list under it
    (cutting twice would cut more)."""
    if tocdepth or next(toc.findall(addnodes.only), None) is not None:
        return toc
    for entry in toc.children:
        if not (isinstance(entry, nodes.list_item) and len(entry) <= 2
                and isinstance(entry[0], addnodes.compact_paragraph)
                and next(entry[0].findall(addnodes.toctree), None) is None):
            return toc
    cut = toc.deepcopy()
    for entry in cut.children:  # Sphinx's cut (_entries_from_toctree, titles_only)
        if len(entry) > 1:
            if subtrees := list(entry.findall(addnodes.toctree)):
                entry[1][:] = subtrees  # type: ignore[index]
            else:
                entry.pop(1)
    return cut


class NavigationView:
    """The build environment, with the titles-only tables of contents in
    place of the whole ones (read only, for one call)."""

    def __init__(self, env: BuildEnvironment, tocs: TitlesOnlyTocs) -> None:
        self._env = env
        self.tocs = tocs

    def __getattr__(self, name: str) -> Any:
        return getattr(self._env, name)


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
    # after handbook.render.navigation's handler (400), before the theme's (500)
    app.connect('html-page-context', toctrees.keep, priority=450)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
