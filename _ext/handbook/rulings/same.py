"""One ruling once: the rulings that say the same thing, in several places.

A handbook repeats a ruling: in a chapter and in the yearly FAQ, in two
sections that share a case.  Two rulings are *the same* when their texts
fold alike (:func:`handbook.core.names.fold`: spacing, width, case and
middle dots aside), they name the same cards (registry keys), and both or
neither are overturned, and both or neither superseded: a question still
open on one page and struck as answered on another, or a ruling of an
outdated day and the current one of a chapter, are two things for a reader.  Their
dates, pages and permalinks may differ: every one keeps its permalink, and
the pages that list rulings of several places -- the search
(:mod:`handbook.search.rulings_index`), the card pages
(:mod:`handbook.listings.card_pages`), the timeline and 最近更新
(:mod:`handbook.listings.timeline`, :mod:`handbook.listings.recent`) --
show the ruling once, where it is first in their order, with every other
place it is in ("也见于 …").  The open questions list each page's own.

Configuration: none.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Iterable
from typing import Protocol, TypeVar

from handbook.core.names import fold


class Compared(Protocol):
    """What this module reads of a ruling (:class:`handbook.rulings.lines.Ruling`,
    which imports this module: its reading makes :attr:`same`)."""

    text: str
    cards: tuple[tuple[str, str], ...]
    status: tuple[str, ...]
    struck_spans: tuple[tuple[int, int], ...]
    same: str


def identity(ruling: Compared) -> str:
    """What makes two rulings the same, digested (:func:`digest`): made as
    its page is read (:attr:`Ruling.same <handbook.rulings.lines.Ruling.same>`),
    not for each of 15,000 rulings by each list that groups them."""
    return ruling.same or digest(ruling.text, ruling.struck_spans, ruling.cards, ruling.status)


def digest(text: str, struck_spans: tuple[tuple[int, int], ...],
           cards: tuple[tuple[str, str], ...], status: tuple[str, ...]) -> str:
    """A digest of what makes two rulings the same: their *text* folded, their
    cards (registry keys, in any order), whether they are overturned, whether
    superseded, and the words struck where some are (``「旋风」:strike:`不能`可以发动``
    says the opposite of ``「旋风」不能:strike:`可以`发动``)."""
    said = repr((fold(text), [fold(text[start:end]) for start, end in struck_spans],
                 sorted({key for key, _name in cards}),
                 'overturned' in status, 'superseded' in status))
    return hashlib.blake2b(said.encode(), digest_size=12).hexdigest()


T = TypeVar('T')


def grouped(items: Iterable[T], ruling_of: Callable[[T], Compared] = lambda item: item,
            apart: Callable[[T], Hashable] = lambda _item: None) -> list[list[T]]:
    """*items* (rulings, or what *ruling_of* gives the ruling of) with the
    same rulings together -- and the same *apart*, where a list keeps them
    apart (the timeline: their date) -- each group where its first one is,
    in the order given."""
    groups: dict[tuple, list[T]] = {}
    for item in items:
        groups.setdefault((identity(ruling_of(item)), apart(item)), []).append(item)
    return list(groups.values())
