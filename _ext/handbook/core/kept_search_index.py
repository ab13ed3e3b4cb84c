"""A page written again without having been read again keeps its search entries.

After a registry edit that moved card links, the pages that link the card
are written again although no page was read again
(:func:`handbook.cards.links.pages_relinked`), and so are the pages whose
toctree lists them.  Sphinx indexes every page it writes for the search
anew; jieba cutting a yearly FAQ page takes a second, and loading its
dictionary half a second: the most of such a build.  Their doctrees, every
title and every section are the last build's, and so are their words.

So the HTML builder of this extension (Sphinx's, with the writing order of
:mod:`handbook.core.writing_order`) keeps, when a build read no page again,
added none and removed none, the last search index's entries of the pages
it writes although Sphinx found them up to date.  Pages Sphinx found out of
date (a changed source, template or build setting, such as
``html_search_options``) are indexed again, and so is every page when
Sphinx did not look (``-a``).  A speed measure: the same index either way
(``tests/test_builds.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from handbook.core.writing_order import OrderedHTMLBuilder
from handbook.store import changes

if TYPE_CHECKING:
    from collections.abc import Iterator, Set

    from docutils import nodes
    from sphinx.application import Sphinx


class KeptIndexBuilder(OrderedHTMLBuilder):
    """Sphinx's html builder, which keeps the search entries of the pages it
    writes again without having read any page again."""

    #: pages written again whose search-index entries are the last build's
    index_kept: frozenset[str] = frozenset()
    #: the pages Sphinx found out of date in this build (None: it did not
    #: look, as with ``-a``, which writes every page)
    outdated: set[str] | None = None

    def get_outdated_docs(self) -> Iterator[str]:
        self.outdated = set()  # what Sphinx finds out of date, kept for load_indexer
        for docname in super().get_outdated_docs():
            self.outdated.add(docname)
            yield docname

    def load_indexer(self, docnames: Set[str]) -> None:
        """The last build's search index, without the pages to write again
        but those whose entries are kept (see the module's docstring)."""
        index = Path(self.outdir, self.searchindex_filename)
        unread = 'handbook' in self.env.domains and not changes(self.env).pages
        if unread and self.outdated is not None and index.is_file():
            self.index_kept = frozenset(set(docnames) - self.outdated)
        else:
            self.index_kept = frozenset()
        self.outdated = None
        super().load_indexer(set(docnames) - self.index_kept)

    def index_page(self, pagename: str, doctree: nodes.document, title: str) -> None:
        if pagename not in self.index_kept:
            super().index_page(pagename, doctree, title)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.core.writing_order')  # its events
    app.add_builder(KeptIndexBuilder, override=True)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
