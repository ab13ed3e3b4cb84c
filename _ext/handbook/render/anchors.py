"""Links of the generated pages to a place of another page: ``docname#id``.

The generated pages (the timeline, the card index, related sections, the
card pages, …) link sections and rulings of other pages by docname and id.
:func:`link` makes such a link as a node: for an HTML builder at once,
with the builder's relative URI, so that Sphinx need not resolve them one by
one (the open questions and the recent rulings); for other builders (LaTeX:
the PDF, whose timeline and card index are nodes) an ``anchor``
cross-reference (:func:`anchor_link`) that :class:`AnchorDomain` resolves
at write time.  The timeline and the card index write their tens of
thousands of links to HTML as text (:class:`handbook.render.html_parts.HtmlLinks`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx import addnodes
from sphinx.domains import Domain
from sphinx.errors import NoUri

from handbook.store import store

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment


class AnchorDomain(Domain):
    """Resolves the generated pages' ``anchor`` xrefs to ``docname#id``."""

    name = 'anchor'
    label = 'Anchor'

    def resolve_xref(self, env: BuildEnvironment, fromdocname: str, builder: Builder,
                     typ: str, target: str, node: addnodes.pending_xref,
                     contnode: nodes.Element) -> nodes.reference | None:
        docname, _sep, anchor = target.partition('#')
        return resolved(builder, fromdocname, docname, anchor, contnode)

    def resolve_any_xref(self, *args: Any) -> list:
        return []

    def merge_domaindata(self, docnames: Any, otherdata: dict[str, Any]) -> None:
        pass  # no data


def anchor_link(fromdocname: str, docname: str, anchor: str,
                content: nodes.Node) -> addnodes.pending_xref:
    """A link from page *fromdocname* to *anchor* (an id, or '' for the top)
    of page *docname*, resolved by the ``anchor`` domain for any builder."""
    return addnodes.pending_xref('', content, refdomain='anchor', reftype='anchor',
                                 reftarget=f'{docname}#{anchor}', refexplicit=True,
                                 refdoc=fromdocname)


def page_title(env: BuildEnvironment, docname: str) -> str:
    """The page's title as text (kept in the store when the page was read)."""
    record = store(env).record(docname)
    if record is not None and record.title:
        return record.title
    title = env.titles.get(docname)
    return title.astext() if title is not None else docname


def place_title(title: str, section_title: str) -> str:
    """Where a ruling is, as a list's 也见于 names it: 页面 › 小节 (the page alone
    for a section that is the page's own)."""
    return f'{title} › {section_title}' if section_title and section_title != title else title


def link(builder: Builder, fromdocname: str, docname: str, anchor: str,
         content: nodes.Node) -> nodes.Element:
    """A link from page *fromdocname* to *anchor* (an id, or '' for the top)
    of page *docname*: resolved now for an HTML builder, else an ``anchor``
    xref; *content* alone where *docname* is no page of the build."""
    if builder.format != 'html':
        return anchor_link(fromdocname, docname, anchor, content)
    try:
        return resolved(builder, fromdocname, docname, anchor, content) or content
    except NoUri:
        return content


def resolved(builder: Builder, fromdocname: str, docname: str, anchor: str,
             content: nodes.Node) -> nodes.reference | None:
    """The link itself (None where *docname* is no page of the build)."""
    if docname not in builder.env.all_docs:
        return None
    uri = builder.get_relative_uri(fromdocname, docname) + (f'#{anchor}' if anchor else '')
    return nodes.reference('', '', content, internal=True, refuri=uri)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_domain(AnchorDomain)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
