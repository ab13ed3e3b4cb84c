"""Exact source lines for inline nodes, so warnings point at the right line.

Docutils gives line numbers to block elements (a paragraph, a line of a line
block) but not to the references and roles inside them: a warning about a
card name in the third line of a paragraph would otherwise point at its
first line.  :func:`locate` counts the line breaks in the block's raw source
before the node's own raw text.
"""

from __future__ import annotations

from docutils import nodes


def locate(node: nodes.Node) -> tuple[str | None, int | None]:
    """``(source, line)`` of *node*, exact where its raw text can be found."""
    block = node
    while block is not None and block.line is None:
        block = block.parent
    if block is None:
        return node.source, node.line
    source = block.source or node.source
    line = block.line
    raw, own = getattr(block, 'rawsource', ''), getattr(node, 'rawsource', '')
    if block is node or not raw or not own:
        return source, line
    # the node is the k-th among the block's nodes written the same way
    same = [n for n in block.findall(type(node)) if getattr(n, 'rawsource', '') == own]
    k = next((i for i, n in enumerate(same) if n is node), 0)
    pos = -1
    for _ in range(k + 1):
        pos = raw.find(own, pos + 1)
        if pos < 0:
            return source, line
    return source, line + raw.count('\n', 0, pos)


def set_location(target: nodes.Node, node: nodes.Node) -> None:
    """Give *target* the exact location of *node* (for Sphinx's ``location=``)."""
    target.source, target.line = locate(node)
