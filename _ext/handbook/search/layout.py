"""Where each document of the search index goes: its id, and its rank.

A document's id is where its entries are in the index's parts: its
postings, its chunk, its sections in ``s.js``.  Its *rank* is its place in
the order the results are shown in: rulings newest first (the reverse of
the ranks), texts and sections in page order.  An index made whole lays
its documents out in that order (:func:`whole`): each document's rank is its
id, the texts first (``0`` to ``texts`` − 1, the last few ids of them left
empty for texts to come), then the rulings, oldest first.

An edit adds, removes and moves documents.  If the ids followed, every
document after the first one added would move, and so would every part that
holds it: a ruling of 2017 added to a chapter rewrote 3,400 files of the
bench's handbook, and made its index whole, seconds of an editor's
preview.  So an incremental build keeps each document's id where it can
(:func:`kept`): a document of the last index keeps its id while it is in the
same order to the others (the most of them that are); one that is new, or
that moved, takes an id never given since the index was laid out whole (a
text one of the texts' spare ids, a ruling or a section a new id after the
last); its rank says where it is in the order, a number between the ranks
of its neighbours, which the manifest gives (``ranks``) where it is not its
id.  Sections are numbered the same way (``section_ranks``); a section or a
document gone leaves its number or id empty (``null``) until the index is
laid out whole again, never given to another: a page whose manifest is
older than the parts it loads then meets an id or a number it does not
know, and loads the manifest again (``rulings_search.js``), rather than
show another document.  Only the documents that changed change in the
parts: the shards are patched (:mod:`handbook.search.patch`).  A clean build
lays the index out whole, so a site built clean (as CI builds it) has no
rank to give.

A document is known from one build to the next by its *key*: a ruling by its
first place's page and anchor, a text by its section and its place among the
section's texts, a section by its page and id.
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from collections.abc import Hashable, Sequence

#: the most ids whose rank is not their id (the manifest lists them, and every
#: query loads the manifest): more, and the index is laid out whole again
MOST_RANKS = 300
#: the most documents of one kind that are new to the last index's ids (the
#: patch gives up on more: :data:`handbook.search.patch.MOST_CHANGED`)
MOST_NEW = 300


def spare(texts: int) -> int:
    """The empty ids a whole index leaves after its *texts* texts."""
    return max(8, texts // 16)


@dataclasses.dataclass
class Region:
    """The ids of one kind of document: each one's key (None: an empty id),
    the ranks that are not the id, counted from the region's start, and the
    first id never given (from there on, the texts' spare ids: an id once
    given is never given to another document while the epoch lasts, so that
    a manifest older than the parts, which knows fewer ids, finds an id it
    does not know rather than another document's)."""

    keys: list[Hashable | None]
    ranks: dict[int, float] = dataclasses.field(default_factory=dict)
    fresh: int = -1  # -1: after the last id

    @property
    def first_fresh(self) -> int:
        return len(self.keys) if self.fresh < 0 else self.fresh

    def rank(self, at: int) -> float:
        return self.ranks.get(at, at)


@dataclasses.dataclass
class Layout:
    """The ids of an index: the texts' region (its length is the manifest's
    ``texts``), the rulings' (after it), and the sections' numbers."""

    texts: Region
    rulings: Region
    sections: Region

    def ranks(self) -> dict[int, float]:
        """The ids whose rank is not the id, the rulings' counted after the texts."""
        start = len(self.texts.keys)
        return {**self.texts.ranks,
                **{start + at: start + rank for at, rank in self.rulings.ranks.items()}}

    def rank_count(self) -> int:
        return len(self.texts.ranks) + len(self.rulings.ranks) + len(self.sections.ranks)


def whole(texts: Sequence[Hashable], rulings: Sequence[Hashable],
          sections: Sequence[Hashable]) -> Layout:
    """Each document at its place in the order (see the module docstring)."""
    return Layout(Region([*texts, *[None] * spare(len(texts))], fresh=len(texts)),
                  Region(list(rulings)), Region(list(sections)))


def kept(last: Layout, texts: Sequence[Hashable], rulings: Sequence[Hashable],
         sections: Sequence[Hashable]) -> Layout | None:
    """*last*'s ids kept for the documents whose keys are given, in the
    order; None where they cannot all be placed (no empty id left among the
    texts, ranks too close, or more than :data:`MOST_RANKS`)."""
    start = len(last.texts.keys)  # the rulings' ranks count from there in the manifest
    laid = (_placed(last.texts, texts, grows=False),
            _placed(last.rulings, rulings, grows=True, base=start),
            _placed(last.sections, sections, grows=True))
    if any(region is None for region in laid):
        return None
    layout = Layout(*laid)
    return layout if layout.rank_count() <= MOST_RANKS else None


def ids(region: Region, keys: Sequence[Hashable]) -> list[int]:
    """The ids of *keys* in *region* (counted from its start)."""
    at = {key: i for i, key in enumerate(region.keys) if key is not None}
    return [at[key] for key in keys]


def _in_order(last: Region, ids: list[int | None]) -> list[int | None]:
    """The ids of the documents that keep theirs: the most of them whose
    ranks rise in the order they are now in (a longest rising run, by patience
    sorting); None for the others."""
    tails: list[float] = []  # the lowest last rank of a rising run of each length
    ends: list[int] = []  # where that run ends
    before: list[int] = [-1] * len(ids)  # each one's predecessor in its run
    for i, at in enumerate(ids):
        if at is None:
            continue
        rank = last.rank(at)
        length = bisect.bisect_left(tails, rank)
        if length == len(tails):
            tails.append(rank)
            ends.append(i)
        else:
            tails[length] = rank
            ends[length] = i
        before[i] = ends[length - 1] if length else -1
    kept: list[int | None] = [None] * len(ids)
    i = ends[-1] if ends else -1
    while i >= 0:
        kept[i] = ids[i]
        i = before[i]
    return kept


def _placed(last: Region, keys: Sequence[Hashable], grows: bool,
            base: int = 0) -> Region | None:
    """*keys* laid out keeping *last*'s ids (see the module docstring); the
    ranks distinct where the manifest gives them, *base* added."""
    was = {key: i for i, key in enumerate(last.keys) if key is not None}
    kept = _in_order(last, [was.get(key) for key in keys])
    if kept.count(None) > MOST_NEW:
        return None
    slots: list[Hashable | None] = [None] * len(last.keys)
    ranks: dict[int, float] = {}
    for key, at in zip(keys, kept):
        if at is not None:
            slots[at] = key
            if last.rank(at) != at:
                ranks[at] = last.rank(at)
    fresh = last.first_fresh
    free = list(range(fresh, len(last.keys)))  # never given: the texts' spare ids
    # each run of new documents between two kept ones: ranks between theirs
    start = 0
    while start < len(keys):
        if kept[start] is not None:
            start += 1
            continue
        end = start
        while end < len(keys) and kept[end] is None:
            end += 1
        low = last.rank(kept[start - 1]) if start else -math.inf
        high = last.rank(kept[end]) if end < len(keys) else math.inf
        for left in range(end - start, 0, -1):  # this one and those after it
            first_above = bisect.bisect_right(free, low)
            if first_above < len(free) and free[first_above] < high:
                at = free.pop(first_above)  # an id never given, in its place: its rank
                rank = float(at)
            elif grows and low < len(slots) < high:
                at = len(slots)  # a new id, after the last, in its place
                slots.append(None)
                rank = float(at)
            else:
                if low == -math.inf:  # before every one kept: a step below, as after them
                    rank = (high if high < math.inf else 0.0) - left
                elif high == math.inf:
                    rank = low + 1.0
                else:
                    rank = low + (high - low) / (left + 1)
                if not base + low < base + rank < base + high:
                    return None  # no number left between them, as the manifest counts
                if grows:
                    at = len(slots)
                    slots.append(None)
                elif free:
                    at = free.pop()  # (the last: the first may be in place for another)
                else:
                    return None
            slots[at] = keys[end - left]
            if rank != at:
                ranks[at] = rank
            low = rank
        start = end
    return Region(slots, ranks, fresh=-1 if grows else max([fresh, *(
        at + 1 for at, key in enumerate(slots) if key is not None and at >= fresh)]))
