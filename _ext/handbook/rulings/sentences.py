"""Whole sentences: where one ruling of a block ends.

A block (a line of a line block, a paragraph) is cut into rulings at its
dated references (:mod:`handbook.rulings.dates`).  A date cites the sentence
it sits in, so a ruling is made of whole sentences, with every date inside
them:

* a sentence ends at 。！？ (or ``!`` ``?``), with the closing brackets and
  quotes right after it (」』）) …), or at the end of the block;
* a date right after the end of a sentence (spaces aside) dates that
  sentence: ``…不能发动。\\ :ruling:`17/3/24```; so do the dates right after
  it, separated only by spaces (one ruling, answered in two FAQs);
* a date inside a sentence dates the whole sentence, up to its end, with the
  dates in between: ``…「地缚神」怪兽\\ :ruling:`17/3/24` 和「罪」怪兽\\
  :ruling:`17/3/24` 立即被自身效果破坏。`` is one ruling;
* a ruling starts where the one before it ended (or at the block's start),
  so the sentences between two dates belong to the second;
* a sentence that starts with a continuation -- ，、；也但而 -- goes on with
  the ruling before it (``…伤害。\\ :ruling:`17/12/22` 但本身造成了2次伤害…``),
  so no ruling starts in the middle of a thought; so does a remark in
  brackets and nothing more (``…2次。\\ :ruling:`17/3/24`\\ （\\
  :ruling:`17/7/28` 修正）``), while ``（1）B。`` is a sentence of its own;
* text after the block's last dated sentence continues the last ruling.

:func:`cut` works on the block's children as they are: a text node is split
where a ruling ends inside it; an element (emphasis, a card link, struck
text) is never split, so a ruling that ends inside one ends after it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from docutils import nodes

if TYPE_CHECKING:
    from collections.abc import Callable

#: the end of a sentence, with the closing brackets and quotes after it
END = re.compile(r'[。！？!?][」』）)】〕”’"\']*')
#: what a sentence that continues the one before starts with
CONTINUATIONS = frozenset('，、；,;也但而')
#: the brackets of a remark on the ruling before (``（17/7/28 修正）``); the
#: text of a ruling also loses those that only held dates (``rulings.lines``)
OPEN, CLOSE = '（(【[［', '）)】]］'


def ends_sentence(text: str) -> bool:
    """Whether *text* ends with the end of a sentence (spaces aside)."""
    text = text.rstrip()
    m = None
    for m in END.finditer(text):
        pass
    return m is not None and m.end() == len(text)


def continues(text: str) -> bool:
    """Whether a sentence starting with *text* continues the one before."""
    text = text.lstrip()
    return bool(text) and text[0] in CONTINUATIONS


def remark(text: str) -> bool:
    """Whether *text* is one remark in brackets, ``（… 修正）``: it opens with
    a bracket whose match is its last character (spaces aside)."""
    text = text.strip()
    if not text or text[0] not in OPEN:
        return False
    depth = 0
    for at, char in enumerate(text):
        if char in OPEN:
            depth += 1
        elif char in CLOSE:
            depth -= 1
            if depth == 0:
                return at == len(text) - 1
    return False


def pieces(children: list[nodes.Node]) -> list[nodes.Node]:
    """*children* with each text node split after every end of a sentence
    inside it (the pieces keep their text; nothing else changes)."""
    out: list[nodes.Node] = []
    for child in children:
        if not isinstance(child, nodes.Text):
            out.append(child)
            continue
        text = str(child)
        at = 0
        for m in END.finditer(text):
            if m.end() < len(text):
                out.append(nodes.Text(text[at:m.end()]))
                at = m.end()
        out.append(nodes.Text(text[at:]) if at else child)
    return out


def cut(children: list[nodes.Node], dated: Callable[[nodes.Node], bool]) -> list[list[nodes.Node]]:
    """The block's *children* grouped into rulings (see the module
    docstring); *dated* says whether a child is or holds a dated reference.
    Each group but the first starts at a sentence; a block without a date
    is one group."""
    items = pieces(children)
    n = len(items)
    is_date = [dated(item) for item in items]
    texts = [item.astext() for item in items]
    blank = [not is_date[i] and not texts[i].strip() for i in range(n)]

    def closes(i: int) -> bool:
        """Item *i* (not a date) ends a sentence."""
        return not is_date[i] and ends_sentence(texts[i])

    def dates_after(i: int) -> int:
        """The last item of the dates (and blanks) right after item *i*."""
        j = i
        while j + 1 < n and (is_date[j + 1] or blank[j + 1]):
            j += 1
        while j > i and blank[j]:
            j -= 1
        return j

    def end_of(i: int) -> int:
        """The last item of the sentence that the date *i* dates."""
        before = i - 1
        while before >= 0 and (blank[before] or is_date[before]):
            before -= 1
        if before < 0 or closes(before):
            return dates_after(i)  # the date follows the end of a sentence
        for j in range(i + 1, n):
            if closes(j):
                return dates_after(j)
        return n - 1

    ends: list[int] = []
    i = 0
    while i < n:
        if is_date[i]:
            end = end_of(i)
            ends.append(end)
            i = end + 1
        else:
            i += 1
    if not ends:
        return [items]
    groups: list[list[nodes.Node]] = []
    start = 0
    for end in ends:
        group = items[start:end + 1]
        first = next((t for t, b in zip(texts[start:end + 1], blank[start:end + 1]) if not b), '')
        said = ''.join(t for t, d in zip(texts[start:end + 1], is_date[start:end + 1]) if not d)
        if groups and (continues(first) or remark(said)):
            groups[-1].extend(group)
        else:
            groups.append(group)
        start = end + 1
    groups[-1].extend(items[start:])  # text after the last date continues the last ruling
    return groups
