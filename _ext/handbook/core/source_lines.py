"""Exact source lines for inline nodes, so warnings point at the right line.

Docutils gives line numbers to block elements (a paragraph, a line of a line
block) but not to the references and roles inside them: a warning about a
card name in the third line of a paragraph would otherwise point at its
first line.  :func:`locate` counts the line breaks in the block's raw source
before the node's own raw text; :class:`BlockLines` does it for every inline
node of a block in one pass, for a transform that locates many.
"""

from __future__ import annotations

from docutils import nodes


def foreign_bar(line: str) -> bool:
    """Does *line* start with ``|`` and a space that is not ASCII's (``|　``,
    ``|`` and a no-break space)?  Meant as a line of a line block, which
    docutils reads only before an ASCII space: the line is text, bar and all."""
    return line[:1] == '|' and line[1:2].isspace() and line[1:2] not in ' \t\n'


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


def locate_text(text: nodes.Text, at: int) -> str | nodes.Node:
    """``source:line`` of the character *at* of the text node *text*: its
    block's line, plus the lines before it in the block's raw text (where
    the node's text is found there as it is, else where its line from *at*
    is found first)."""
    block = text.parent
    while block is not None and block.line is None:
        block = block.parent
    if block is None:
        return text.parent  # where Sphinx finds it
    raw = getattr(block, 'rawsource', '') or ''
    pos = raw.find(text)
    if pos >= 0:
        pos += at
    else:
        pos = raw.find(text[at:].split('\n', 1)[0])
    lines = raw.count('\n', 0, pos) if pos > 0 else 0
    return f'{block.source}:{block.line + lines}'


def set_location(target: nodes.Node, node: nodes.Node) -> None:
    """Give *target* the exact location of *node* (for Sphinx's ``location=``)."""
    target.source, target.line = locate(node)


class BlockLines:
    """Exact lines of inline nodes, as :func:`locate` finds them, but each
    block located in one pass: the block's inline elements, in order, are
    found one after the other in its raw source, when the first of them is
    asked for.  A transform that replaces the nodes it locates, one after
    the other, gets each one's line as the block was (:func:`locate`, which
    counts a node's twins still in the block, would give the second of two
    same references the first one's line once the first is replaced)."""

    #: after this many elements not found verbatim, a block's others get its line
    MISSES = 50

    def __init__(self) -> None:
        # id(node) -> (node, source, line); the node is kept so that its id is not reused
        self.found: dict[int, tuple[nodes.Node, str | None, int | None]] = {}
        self.blocks: dict[int, nodes.Element] = {}

    def __call__(self, node: nodes.Node) -> tuple[str | None, int | None]:
        if node.line is not None:
            return locate(node)
        block = node.parent
        while block is not None and block.line is None:
            block = block.parent
        if block is None:
            return locate(node)
        if id(block) not in self.blocks:
            self.blocks[id(block)] = block
            self.index(block)
        found = self.found.get(id(node))
        if found is None or found[0] is not node:
            return block.source or node.source, block.line
        return found[1], found[2]

    def index(self, block: nodes.Element) -> None:
        raw = getattr(block, 'rawsource', '') or ''
        source = block.source
        cursor = counted = lines = misses = 0
        stack = list(reversed(block.children))
        while stack:
            node = stack.pop()
            if not isinstance(node, nodes.Element):
                continue
            own = getattr(node, 'rawsource', '')
            pos = raw.find(own, cursor) if own and raw and misses < self.MISSES else -1
            if pos < 0:
                misses += bool(own)
                if node.line is None:
                    self.found[id(node)] = (node, source, block.line)
                    stack.extend(reversed(node.children))
                continue
            lines += raw.count('\n', counted, pos)
            counted = cursor = pos
            if node.line is None:
                self.found[id(node)] = (node, source, block.line + lines)
            cursor = pos + len(own)
