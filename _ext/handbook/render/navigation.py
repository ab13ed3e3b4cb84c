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
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Any

from sphinx.errors import NoUri

from handbook.store import store

if TYPE_CHECKING:
    from sphinx.application import Sphinx

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


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.store')
    app.connect('html-page-context', shared_navigation, priority=400)  # before the theme's
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
