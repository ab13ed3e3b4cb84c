"""The site's navigation on the pages no source gives, made once per folder and build.

The theme (furo) shows the whole site's table of contents on every page, by
calling the page context's ``toctree()``.  Sphinx makes it by copying every
page's table of contents, each section of every page included (every day of
every yearly FAQ page), before it cuts it down to the titles the theme
shows: on a large handbook that costs as much as the rest of a page.

A page that no source gives -- a part of a split list
(:mod:`handbook.render.split_pages`), the card pages' frame, the search
page, the index, the 404 page -- is in no toctree, so no entry of its
navigation is marked as the page or one of its parents: two such pages of
one folder get the same navigation, links and all.  So such a page's
``toctree`` (``html-page-context``, before the theme's handler) gives what
the first page of its folder made in this build, for the same arguments.
A page of the sources is left alone, and so is the 404 page, whose
``toctree`` sphinx-notfound-page replaces with one of absolute links,
whichever of the two handlers runs first.  The function given says its
folder (``folder``): the speed package keeps each source page's navigation,
and each folder's, from build to build (:mod:`handbook.speed.toctree_cache`).

**Never stale.**  Sphinx writes again the pages read again, not the others,
though every page shows the navigation: a page taken out of a toctree, a
title or a toctree's caption changed, and every other page kept the old
navigation, and its next/previous links (a round trip; Sphinx's own
issue).  So what the navigation is made of is digested (:func:`digest`),
and kept from build to build (:class:`NavigationState`); a build in which
it changed writes every page again (``env-get-updated``), and the lists'
pages (:mod:`handbook.render.split_pages`) and the card pages
(:mod:`handbook.listings.card_pages`) digest it with what they show.
"""

from __future__ import annotations

import dataclasses
import hashlib
import posixpath
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx import addnodes
from sphinx.errors import NoUri

from handbook.store import State, state, store, writes_pages

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

#: the per-build navigation of the pages no source gives, by folder and arguments
MADE = 'navigation_of_folders'


def shared_navigation(app: Sphinx, pagename: str, templatename: str,
                      context: dict[str, Any], doctree: object) -> None:
    """A page's ``toctree``, where no source gives the page: made once per
    folder of the site (and arguments) in this build."""
    toctree = context.get('toctree')
    if not callable(toctree) or pagename in app.env.all_docs \
            or pagename == getattr(app.config, 'notfound_pagename', None):
        return  # a source's page, or the 404 page (sphinx-notfound-page makes its own)
    try:
        folder = posixpath.dirname(app.builder.get_target_uri(pagename))
    except NoUri:  # a builder that cannot place the page: Sphinx's own navigation
        return
    made = store(app.env).per_build(MADE, dict)

    def navigation(**kwargs: Any) -> str:
        key = (folder, repr(sorted(kwargs.items())))
        if key not in made:
            made[key] = toctree(**kwargs)
        return made[key]

    navigation.folder = folder  # type: ignore[attr-defined]  # whose navigation it gives
    context['toctree'] = navigation


#: a toctree's options that change what the navigation shows
_SHOWN = ('caption', 'entries', 'hidden', 'maxdepth', 'numbered', 'titlesonly', 'includehidden')


def digest(env: BuildEnvironment) -> str:
    """:func:`_digest`, once per build (the pages read, it is the same)."""
    return store(env).derived('navigation_digest', lambda: _digest(env))


def _digest(env: BuildEnvironment) -> str:
    """What the theme's navigation on every page is made of: the titles of
    each page in it (the root and the pages a toctree includes: not an
    orphan's), its first title and every title of its first level (a page
    with two is two entries: a review), the pages each toctree includes,
    and each toctree's caption, entries and options (not the pages' deeper
    sections: the theme shows titles)."""
    shown = {env.config.root_doc, *(doc for docs in env.toctree_includes.values()
                                    for doc in docs)}
    found = hashlib.sha256()
    for docname in sorted(shown & env.found_docs):
        title = env.titles.get(docname)
        toc = env.tocs.get(docname)
        tops = [item[0].astext() for item in (toc.children if toc is not None else ())
                if isinstance(item, nodes.list_item) and item.children]  # (toc: a list)
        trees = [[tree.get(option) for option in _SHOWN]
                 for tree in (toc.findall(addnodes.toctree) if toc is not None else ())]
        found.update(f'{docname}\0{title.astext() if title is not None else ""}\0{tops!r}\0'
                     f'{env.toctree_includes.get(docname, [])}\0{trees!r}\0'.encode())
    return found.hexdigest()


@dataclasses.dataclass
class NavigationState(State):
    """The digest of the navigation the last build wrote its pages with."""

    digest: str = ''


def pages_with_other_navigation(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """``env-get-updated``: every page, where the navigation is not the one
    the last build wrote them with (not at the first build: all are written)."""
    if not writes_pages(env):  # (make check's: it writes none, so it takes no digest)
        return []
    kept = state(env, NavigationState)
    now = digest(env)
    before, kept.digest = kept.digest, now
    if not before or before == now:
        return []
    return sorted(env.found_docs)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.store')
    app.connect('html-page-context', shared_navigation, priority=400)  # before the theme's
    app.connect('env-get-updated', pages_with_other_navigation)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
