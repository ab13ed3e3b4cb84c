"""Rulings as HTML, rendered once per build for the pages that show the rulings of other pages.

The timeline (:mod:`handbook.generated.timeline`) and the card pages
(:mod:`handbook.generated.card_pages`) show rulings of every page, a ruling
often on several of them.  Copying each ruling's nodes into every doctree
that shows it would have Sphinx resolve, walk and translate the same nodes
again for each page: on a handbook of 9,000 rulings that was most of the
build.  Instead each ruling is rendered here once per build:

* its nodes as the store keeps them (:meth:`handbook.store.HandbookStore.ruling_nodes`)
  are copied into one document (ids dropped: they belong to the ruling's
  page; a same-page link of the ruling's page made a link to that page; a
  broken reference is reported on its own page only);
* the document's references are resolved as links of a page at the site's
  root (the post-transforms: card links, dates, ``:ref:``; each card link
  is followed by its §, :mod:`handbook.generated.card_index`);
* the builder's translator writes each ruling's HTML (:class:`handbook.generated.html_parts.Writer`).

A page elsewhere than the root gets the HTML with its relative links rebased
(:func:`rebase`); the timeline, at the root, gets it as it is.  What was
rendered is kept in the store's derived values (:meth:`HandbookStore.derived
<handbook.store.HandbookStore.derived>`), so it is never stale: a page read
again empties it.  HTML builders only (EPUB included); other builders copy
the nodes (:class:`Copies`).
"""

from __future__ import annotations

import copy
import posixpath
import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from docutils import nodes
from sphinx import addnodes
from sphinx.util.docutils import new_document
from sphinx.util.osutil import relative_uri

from handbook.generated.html_parts import Writer
from handbook.generated.anchors import anchor_link
from handbook.rulings import lines as ruling_lines
from handbook.store import store

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment

    from handbook.rulings.lines import Ruling

#: the page, at the site's root, the rulings are rendered for
ROOT = 'handbook-ruling-html'
#: a relative link or image of the rendered HTML
LINK = re.compile(r' (href|src)="([^"]*)"')


class Copies:
    """The rulings' nodes from their pages, made to work on page
    *fromdocname*: :meth:`of` gives each ruling's, once (unpickled from the
    store a page at a time)."""

    def __init__(self, env: BuildEnvironment, fromdocname: str) -> None:
        self.env = env
        self.fromdocname = fromdocname
        self.pages: dict[str, dict[str, list[nodes.Node]]] = {}

    def of(self, ruling: Ruling) -> list[nodes.Node]:
        page = self.pages.get(ruling.docname)
        if page is None or ruling.anchor not in page:  # not unpickled, or given already
            page = self.pages[ruling.docname] = ruling_lines.ruling_nodes(self.env,
                                                                           ruling.docname)
        stored = page.pop(ruling.anchor, None)
        if stored is None:  # cannot happen while the record and the nodes agree
            return [nodes.Text(ruling.text)]
        holder = nodes.inline('', '', *stored)
        for node in list(holder.findall(nodes.Element)):
            node['ids'] = []  # the ids belong to the ruling's page
            if isinstance(node, addnodes.pending_xref):
                node['refdoc'] = self.fromdocname
                node['refwarn'] = False  # its own page reports a broken reference
            elif 'refid' in node:  # a same-page link of the ruling's page
                node.replace_self(anchor_link(self.fromdocname, ruling.docname, node['refid'],
                                              nodes.inline('', '', *node.children)))
        children = list(holder.children)
        if children and isinstance(children[0], nodes.Text):  # the space after a date
            children[0] = nodes.Text(str(children[0]).lstrip(' \t\n\x00'))
        return children


def ruling_html(env: BuildEnvironment, rulings: Iterable[Ruling],
                docname: str) -> dict[tuple[str, str], str]:
    """The HTML of each of *rulings* for page *docname*: ``{(docname, anchor): html}``."""
    rendered: dict[tuple[str, str], str] = store(env).derived('ruling_html', dict)
    rulings = list(rulings)
    missing = {(r.docname, r.anchor): r for r in rulings if (r.docname, r.anchor) not in rendered}
    if missing:
        rendered.update(render(env, list(missing.values())))
    move = rebase(store(env).builder, ROOT, docname)
    return {(r.docname, r.anchor): move(rendered[r.docname, r.anchor]) for r in rulings}


def render(env: BuildEnvironment, rulings: list[Ruling]) -> dict[tuple[str, str], str]:
    """Render *rulings* for the page :data:`ROOT` (see the module docstring)."""
    document = new_document(f'<{ROOT}>', copy.copy(store(env).builder.docsettings))
    document.settings.env = env
    holders = []
    copies = Copies(env, ROOT)
    for ruling in sorted(rulings, key=lambda r: r.docname):  # a page unpickled at a time
        holder = nodes.paragraph()
        holder.extend(copies.of(ruling))
        document += holder
        holders.append((ruling, holder))
        if len(copies.pages) > 1:
            copies.pages = {ruling.docname: copies.pages[ruling.docname]}
    env.apply_post_transforms(document, ROOT)
    with Writer(env, ROOT, document) as write:
        return {(ruling.docname, ruling.anchor): write(*holder.children).strip()
                for ruling, holder in holders}


def rebase(builder: Builder, fromdocname: str, docname: str) -> Callable[[str], str]:
    """A function that moves the relative links and images of HTML written
    for page *fromdocname* to page *docname* (the same HTML when both are in
    one folder)."""
    source, target = builder.get_target_uri(fromdocname), builder.get_target_uri(docname)
    folder = posixpath.dirname(source)
    if folder == posixpath.dirname(target):
        return lambda text: text

    def move(match: re.Match) -> str:
        parts = urlsplit(match[2])
        if parts.scheme or parts.netloc or not parts.path or parts.path.startswith('/'):
            return match[0]  # absolute, or an anchor of the page itself
        path = relative_uri(target, posixpath.normpath(posixpath.join(folder, parts.path)))
        path = path or posixpath.basename(target)
        return f' {match[1]}="{path}{"#" + parts.fragment if parts.fragment else ""}"'

    return lambda text: LINK.sub(move, text)
