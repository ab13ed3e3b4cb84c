"""Placeholders of the generated pages: each generated list (the timeline, the
card index, the open questions, the recent rulings) is a directive with no
arguments and no content that leaves a node, filled at write time from the
store.  The node carries ``handbook_generated`` (its kind), so that the store
records which pages hold which list (``PageRecord.holds``).  A list adds
sections, so its directive must be the last content of its section: anywhere
else is a warning ``handbook.<subtype>`` at the directive's line.

A page that holds a list is left out of the search's section results (its
metadata gets ``nosearch``, as a ``:nosearch:`` field would): the list
repeats the rulings and names of the other pages, so it would be a result
of nearly any query.  The search finds the rulings and the cards
themselves (:mod:`handbook.search`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from docutils import nodes
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from handbook.store import PLACEHOLDERS, collect, store, writes_pages

if TYPE_CHECKING:
    from collections.abc import Callable

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from handbook.store import Contribution

logger = logging.getLogger(__name__)


class PlaceholderDirective(SphinxDirective):
    """A generated list's directive: its node class and kind are class attributes."""

    node_class: ClassVar[type[nodes.Element]]
    kind: ClassVar[str]

    def run(self) -> list[nodes.Node]:
        node = self.node_class(handbook_generated=self.kind)
        self.set_source_info(node)
        self.env.metadata[self.env.docname]['nosearch'] = ''  # see the module docstring
        return [node]


def add_placeholder(app: Sphinx, name: str, directive: type[PlaceholderDirective]) -> None:
    """Add the directive *name* of a generated list; the store's walk finds its
    placeholders (``PageNodes[PLACEHOLDERS]``, ``PageRecord.holds``)."""
    app.add_directive(name, directive)
    collect(app, PLACEHOLDERS, directive.node_class)


def fill(env: BuildEnvironment, document: nodes.document,
         directive: type[PlaceholderDirective], make: Callable[[], list[nodes.Node]]) -> None:
    """Replace each placeholder of *directive* in *document* with what
    *make* gives (the post-transform of a generated list; *document* may
    be a page, or all pages in one, as LaTeX builds them).  A build that
    writes nothing (the ``dummy`` builder of ``make check``) does not fill
    the lists: their placeholders are removed (filling them reports nothing:
    their entries' problems are reported on the pages the entries come from).
    A doctree that cannot hold one is not walked (:func:`may_hold`)."""
    if not may_hold(env, env.docname, directive.kind):
        return
    for placeholder in list(document.findall(directive.node_class)):
        if writes_pages(env):
            placeholder.replace_self(make())
        else:
            placeholder.parent.remove(placeholder)


def holders(env: BuildEnvironment, kind: str) -> set[str]:
    """The pages that hold a list of *kind* (as the store recorded them)."""
    return {docname for docname, page in store(env).pages.items() if kind in page.holds}


def may_hold(env: BuildEnvironment, docname: str, kind: str) -> bool:
    """Whether the doctree of *docname* may hold a list of *kind*: the store
    says the page holds one (or does not know the page), or the page includes
    one that does in its toctree (a doctree assembled from pages:
    singlehtml, LaTeX), or a page that holds one is an appendix (LaTeX and
    Texinfo add their appendices to every document they assemble).  Each
    list's post-transform would otherwise walk every page for its
    placeholder."""
    if docname not in store(env).pages:
        return True
    todo = list(holders(env, kind))
    config = env.config
    appendices = {*getattr(config, 'latex_appendices', ()),
                  *getattr(config, 'texinfo_appendices', ())}
    if appendices.intersection(todo):
        return True
    parents: dict[str, list[str]] = {}
    if todo:
        for parent, children in env.toctree_includes.items():
            for child in children:
                parents.setdefault(child, []).append(parent)
    seen: set[str] = set()
    while todo:
        page = todo.pop()
        if page == docname:
            return True
        if page not in seen:
            seen.add(page)
            todo.extend(parents.get(page, ()))
    return False


def last_in_section(node: nodes.Element) -> bool:
    """Whether *node* is a section's last content (only subsections after it)."""
    parent = node.parent
    return isinstance(parent, nodes.section) and all(
        isinstance(n, nodes.section) for n in parent[parent.index(node) + 1:])


def warn_unless_last(page: Contribution, kind: str, reason: str, directive: str,
                     subtype: str) -> None:
    """Warn about each placeholder of *kind* on the page that is not its
    section's last content; *reason* says why it must be (``'the card index
    adds one section per initial, so it must be'``)."""
    for node in page.nodes[PLACEHOLDERS]:
        if node.get('handbook_generated') == kind and not last_in_section(node):
            logger.warning(f'{reason} the last content of a section; move the {directive} '
                           'directive to the end of the page', location=node,
                           type='handbook', subtype=subtype)
