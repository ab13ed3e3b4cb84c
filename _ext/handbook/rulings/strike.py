"""Struck-through text: the ``strike`` role, for rulings that were overturned.

Existing handbooks keep an overturned ruling on the page, struck through,
next to the ruling that replaced it::

    | 「`卡名`_」……\\ :strike:`不能发动。`\\ :ruling:`17/3/24` 裁定变更：可以发动。\\ :ruling:`20/1/13`

The role's text is shown struck through: HTML ``<del class="strike">``
(other builders show the text as an ordinary inline with the class
``strike``).  The role's text is plain text (a role cannot hold backquotes),
so card names stay outside it.  A ruling whose text contains struck text
is flagged as changed by :mod:`handbook.rulings.lines`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.util.docutils import SphinxRole

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.writers.html5 import HTML5Translator


class strike(nodes.inline):
    """Struck-through text (an inline elsewhere than in HTML)."""


class StrikeRole(SphinxRole):
    """``:strike:`text```."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        node = strike(self.rawtext, self.text, classes=['strike'])
        self.set_source_info(node)
        return [node], []


def visit_strike_html(self: HTML5Translator, node: strike) -> None:
    self.body.append(self.starttag(node, 'del', ''))


def depart_strike_html(self: HTML5Translator, node: strike) -> None:
    self.body.append('</del>')


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_node(strike, html=(visit_strike_html, depart_strike_html))
    app.add_role('strike', StrikeRole())
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
