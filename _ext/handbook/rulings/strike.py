"""Struck-through text: the ``strike`` role, for rulings that were overturned.

Existing handbooks keep an overturned ruling on the page, struck through,
next to the ruling that replaced it -- the house style strikes the words and
keeps the card links outside the role, older handbooks strike the whole
ruling, card names included::

    | 「`卡名`_」……\\ :strike:`不能发动。`\\ :ruling:`17/3/24` 裁定变更：可以发动。\\ :ruling:`20/1/13`
    | :strike:`对方场上存在「技能抽取」…不受「技能抽取」的效果影响。`\\ :ruling:`19/4/18`

The role's text is shown struck through: HTML ``<del class="strike">``
(other builders show the text as an ordinary inline with the class
``strike``).  A role's text cannot hold references, so inside it a card
name written 「卡名」 whose name is in the card registry (or is an alias) is
linked by the role itself, at read time: the strike node holds the text
and, for each such name, a ``card`` xref built as 「`卡名`_」 builds one
(:func:`handbook.cards.links.card_xref`).  The link is shown struck with the
rest, counts wherever card links count (the card index, the ruling's cards
in :mod:`handbook.rulings.lines`) and is not reported as an unlinked name.
Left as text: placeholders (「○○」, see
:func:`handbook.cards.markup.is_placeholder`), names not in the registry,
effect text in 『…』, and names in a section title.  Without the card links
extension (:mod:`handbook.cards.links`) the text stays plain.

A page may declare the role itself, ``.. role:: strike`` (with or without
``:class:``), as pages built by plain Sphinx must: the declaration keeps this
role (:mod:`handbook.core.page_roles`), so such a page behaves as one that
does not declare it.

A ruling whose text contains struck text is flagged as changed by
:mod:`handbook.rulings.lines`; one whose every word is struck is left out of
the current edition (:mod:`handbook.publishing.editions`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.util.docutils import SphinxRole

from handbook.cards.links import card_xref
from handbook.cards.links import registry as card_registry
from handbook.cards.markup import LINKABLE, is_placeholder, quotes
from handbook.nodes import strike

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.writers.html5 import HTML5Translator


class StrikeRole(SphinxRole):
    """``:strike:`text```."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        node = strike(self.rawtext, '', classes=['strike'])
        self.set_source_info(node)
        node.extend(linked_names(self.env, self.text, node))
        return [node], []


def linked_names(env: BuildEnvironment, text: str, node: nodes.Element) -> list[nodes.Node]:
    """*text* as nodes: its registry names written 「卡名」 as card xrefs (located
    at *node*'s line plus the line breaks before them), the rest as text."""
    registry = card_registry(env)
    if registry is None or 'card' not in env.domains:
        return [nodes.Text(text)]
    out: list[nodes.Node] = []
    at = counted = lines = 0
    for start, end, content, quoted in quotes(text):
        if start < at or quoted or is_placeholder(content) or not LINKABLE.fullmatch(content) \
                or registry.lookup(content) is None:
            continue
        out.append(nodes.Text(text[at:start + 1]))
        xref = card_xref(env, content, content, [nodes.Text(content)])
        lines += text.count('\n', counted, start)
        counted = start
        xref.source = node.source
        xref.line = node.line + lines if node.line is not None else None
        out.append(xref)
        at = end - 1  # the closing 」 is text
    out.append(nodes.Text(text[at:]))
    return [n for n in out if not isinstance(n, nodes.Text) or n]


def visit_strike_html(self: HTML5Translator, node: strike) -> None:
    self.body.append(self.starttag(node, 'del', ''))


def depart_strike_html(self: HTML5Translator, node: strike) -> None:
    self.body.append('</del>')


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_node(strike, html=(visit_strike_html, depart_strike_html))
    app.add_role('strike', StrikeRole())
    app.setup_extension('handbook.core.page_roles')  # a page's `.. role:: strike` keeps ours
    return {'version': '2', 'env_version': 2,
            'parallel_read_safe': True, 'parallel_write_safe': True}
