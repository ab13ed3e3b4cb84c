"""The node types every concern shares, and the predicates that read them.

A leaf: it imports docutils and Sphinx only, so that the store, the cards,
the rulings, the listings and the editions can all read a doctree without
importing each other.

* :class:`card_reference` -- a resolved card link (made by
  :mod:`handbook.cards.links`); an unknown name, or one in a title, is a
  ``pending_xref`` of the ``card`` domain.  :func:`card_of` reads both.
* :class:`ruling_line` -- one ruling: its text and its dated references (made
  by :mod:`handbook.rulings.lines`).  A dated reference is any inline that
  carries ``ruling_text`` (:func:`is_reference`, made by
  :mod:`handbook.rulings.dates`).
* :class:`strike` -- struck-through text (the ``strike`` role of
  :mod:`handbook.rulings.strike`); :func:`is_struck` reads any element of the
  class ``strike``.  :func:`overturned` says whether every word of a ruling
  is struck.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx import addnodes

if TYPE_CHECKING:
    from collections.abc import Iterator


# -- cards ----------------------------------------------------------------------------


class card_reference(nodes.reference):
    """A resolved card link: a reference to the card database that carries
    the card's registry key, ``card_key``, and the name as written,
    ``cardname``; its children are the name's nodes.  Builders render it as
    a reference around the name in a ``card-name`` inline, which the HTML
    and LaTeX translators draw (:mod:`handbook.cards.links`), not a node of
    its own: tens of thousands of links would be as many more objects for
    the garbage collector to walk and for every doctree to pickle."""


def card_of(node: nodes.Node) -> tuple[str, str] | None:
    """``(registry key, name as written)`` of a card link (:func:`is_card_link`;
    the key of an unknown name is its folded name), else None."""
    if isinstance(node, card_reference):
        return node['card_key'], node['cardname']
    if isinstance(node, addnodes.pending_xref) and node.get('refdomain') == 'card':
        return node['reftarget'], node['cardname']
    return None


def is_card_link(node: nodes.Node) -> bool:
    """A card link of a doctree: resolved (:class:`card_reference`), or an
    xref (an unknown name; a name in a title; any before the page is read)."""
    return card_of(node) is not None


def ancestors(node: nodes.Node) -> Iterator[nodes.Element]:
    """*node*'s parent, its parent's, and so on up to the document."""
    while node.parent is not None:
        node = node.parent
        yield node


def in_title(node: nodes.Node) -> bool:
    """Whether *node* is part of a section's title."""
    while node is not None and not isinstance(node, nodes.Structural):
        if isinstance(node, nodes.title):
            return True
        node = node.parent
    return False


# -- rulings --------------------------------------------------------------------------


class ruling_line(nodes.inline):
    """One ruling: its text and its dated references (an inline span)."""


def is_reference(node: nodes.Node) -> bool:
    """A dated ruling reference (see :mod:`handbook.rulings.dates`)."""
    return isinstance(node, nodes.Element) and 'ruling_text' in node.attributes


def references_in(node: nodes.Node) -> Iterator[nodes.Element]:
    """The ruling references in *node* (itself included), in page order.  A
    reference is an inline node (a ``reference`` or an ``inline``): a walk
    for a class, which docutils makes without a generator per node, takes
    about half the time of a walk with a condition."""
    return (n for n in node.findall(nodes.Inline) if 'ruling_text' in n.attributes)


def held_references(node: nodes.Node) -> list[nodes.Element]:
    """The ruling references *node* is or holds, in page order
    (:func:`references_in`; a node with no element inside is not walked:
    a card link, most children of a line)."""
    if not isinstance(node, nodes.Element):
        return []
    if not any(isinstance(child, nodes.Element) for child in node.children):
        return [node] if isinstance(node, nodes.Inline) and 'ruling_text' in node.attributes \
            else []
    return list(references_in(node))


# -- struck text ----------------------------------------------------------------------


class strike(nodes.inline):
    """Struck-through text (an inline elsewhere than in HTML)."""


def is_struck(node: nodes.Node) -> bool:
    """Struck text: the ``strike`` role's, or any element of the class ``strike``."""
    return isinstance(node, nodes.Element) and 'strike' in node['classes']


#: a letter or a digit (Chinese characters and ① included): a word of a ruling
WORD = re.compile(r'[^\W_]')


def overturned(line: nodes.Element) -> bool:
    """Every word of the ruling *line* is struck: apart from its struck text,
    its dates, its card names, footnote references, spaces and punctuation,
    it has no letter or digit (a ``:ref:`` or another link counts as words).
    The definition of :mod:`handbook.publishing.editions` and of the status
    ``overturned`` (:mod:`handbook.rulings.statuses`)."""
    struck = False
    stack = list(line.children)
    while stack:
        node = stack.pop()
        if is_struck(node):
            struck = True
        elif isinstance(node, nodes.Text):
            if WORD.search(node.astext()):
                return False
        elif not (is_reference(node) or is_card_link(node)
                  or isinstance(node, nodes.footnote_reference)):
            stack.extend(node.children)
    return struck
