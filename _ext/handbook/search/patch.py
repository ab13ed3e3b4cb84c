"""The search index's shards patched where an edit changed a few documents.

Making the shards (:mod:`handbook.search.shards`) takes every bigram of
every document: on a handbook of 15,000 rulings, seconds in every build
that read a page, however small the edit, and the build waits for them.
An edit that changes, adds or removes a few documents (a ruling's words,
a paragraph, a ruling) leaves the other documents' ids as they were
(:mod:`handbook.search.layout`): only the entries of the bigrams and
characters of those documents, and of the months and spellings that
changed, are different.

:class:`Kept` is what a build keeps of its index, for the next: each
document's haystack, the months' and spellings' entries, the number of
shards of each kind and the sizes they were chosen from.  :func:`patch`
takes it and the new documents, reads the shards that hold a changed entry
(their files, as the last build wrote them), changes those entries and
gives back those shards' JSON: the bytes a whole index of the same layout
would have in them (an id the edit added or removed is a document whose
text was, or becomes, empty).  It gives up -- the index is laid out and
made whole -- where more than :data:`MOST_CHANGED` changed, where
the number of shards would change, where a bigram would become a part of
its own or stop being one (:func:`handbook.search.shards.alone`), or where
a shard does not hold what the kept index says it does.
"""

from __future__ import annotations

import bisect
import dataclasses
import json
from typing import TYPE_CHECKING, Any

from handbook.search import shards

if TYPE_CHECKING:
    from collections.abc import Callable

    from handbook.search.layout import Layout

#: bump when what is kept, or how a shard is written, changes: a kept index
#: of another format is not read (its fields may not be this one's; 5: the
#: rulings' ids after the texts', oldest first; 6: their layout, layout.py;
#: 9: the build each page was read in and each ruling's places, for the next to
#: reuse the haystacks of the pages not read since (rulings_index._Earlier), the
#: digest of each part written, for the next to write only those that differ)
FORMAT = 9
#: the most documents an edit may change for the shards to be patched
MOST_CHANGED = 300


@dataclasses.dataclass
class Kept:
    """What a build keeps of its index for the next one to patch."""

    epoch: str
    haystacks: list[str]
    months: dict[str, str]  # month -> its ``d`` entry (JSON)
    spellings: dict[str, str]  # folded spelling -> its ``n`` entry (JSON)
    counts: dict[str, int]  # 'k', 'u' -> number of shards ('g': of bigrams alone)
    sizes: dict[str, int]  # 'k', 'u' -> the size the count was chosen from ('g': theirs)
    version: str = ''  # the manifest's version of the index it describes
    shards: list[str] = dataclasses.field(default_factory=list)  # its shards' part names
    patched: bool = False  # whether this index's shards were patched, not made whole
    layout: Layout | None = None  # each document's id (layout.py)
    #: the build each page had last been read in (the store's read_in) when
    #: it was made: a page read since, in any build, is one whose documents may differ
    read: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: what folded its texts (rulings_index.folding): other folding, no reuse
    folding: str = ''
    #: the number of places of each ruling in more than one (rulings_index._Earlier)
    places: dict[Any, int] = dataclasses.field(default_factory=dict)
    #: each part's name -> the digest of the JSON its file holds (rulings_index.make_index)
    parts: dict[str, bytes] = dataclasses.field(default_factory=dict)
    format: int = FORMAT


class GiveUp(Exception):
    """The shards cannot be patched: the index is made whole."""


def patch(kept: Kept, haystacks: list[str], months: dict[str, str], spellings: dict[str, str],
          read: Callable[[str], str | None]) -> tuple[dict[str, str], dict[str, int]] | None:
    """``({part name: JSON}, sizes)`` of the shards that changed (``''``: a
    shard left with no entry), or None where they cannot be patched (see the
    module docstring); *read* gives a shard's JSON as the last build wrote
    it, or None."""
    try:
        return _Patching(kept, read).run(haystacks, months, spellings)
    except GiveUp:
        return None


class _Patching:
    def __init__(self, kept: Kept, read: Callable[[str], str | None]) -> None:
        self.kept = kept
        self.read = read
        self.shards: dict[str, dict[str, dict[str, Any]]] = {}  # part name -> kind -> name -> value
        self.sizes = dict(kept.sizes)
        # the bigrams that are parts of their own (shards.alone), and stay so
        self.alone = {shards.alone_gram(name) for name in kept.shards if name[0] == 'g'}

    def run(self, haystacks: list[str], months: dict[str, str],
            spellings: dict[str, str]) -> tuple[dict[str, str], dict[str, int]]:
        kept = self.kept
        if kept.format != FORMAT:
            raise GiveUp
        # an id added or removed at the end: a document with no text before or after
        width = max(len(kept.haystacks), len(haystacks))
        before = kept.haystacks + [''] * (width - len(kept.haystacks))
        after = haystacks + [''] * (width - len(haystacks))
        changed = [doc for doc, (old, new) in enumerate(zip(before, after)) if old != new]
        if len(changed) > MOST_CHANGED:
            raise GiveUp
        # each bigram's and character's changes, every changed document's at once:
        # an entry is decoded and written once, however many documents it changes
        # bigram -> {doc: (its positions before, after)}, None where it is not in the document
        grams: dict[str, dict[int, tuple[Any, Any]]] = {}
        chars: dict[str, dict[int, bool]] = {}  # character -> {doc: whether it holds it now}
        for doc in changed:
            old, new = shards.Postings(), shards.Postings()
            old.add(doc, before[doc])
            new.add(doc, after[doc])
            for gram in old.grams.keys() | new.grams.keys():
                then, now = old.grams.get(gram), new.grams.get(gram)
                if then != now:
                    grams.setdefault(gram, {})[doc] = (then and then[1], now and now[1])
            for char in old.chars.keys() ^ new.chars.keys():
                chars.setdefault(char, {})[doc] = char in new.chars
        for gram, docs in grams.items():
            self.gram(gram, docs)
        for char, docs in chars.items():
            self.char(char, docs)
        for kind, old_entries, new_entries, key in (
                ('d', kept.months, months, shards.month_key),
                ('n', kept.spellings, spellings, shards.spelling_key)):
            for name in old_entries.keys() | new_entries.keys():
                then, now = old_entries.get(name), new_entries.get(name)
                if then != now:
                    self.set('k', key(name), kind, name, _value(then), then,
                             _value(now), now)
        if any(shards.shard_count(self.sizes[group]) != kept.counts[group] for group in 'ku'):
            raise GiveUp
        out = {}
        for name, kinds in self.shards.items():  # '': a shard left with no entry
            out[name] = shards.shard_text({kind: {entry: shards.dumps(value)
                                                  for entry, value in items.items()}
                                           for kind, items in kinds.items()
                                           if items}) if any(kinds.values()) else ''
        return out, self.sizes

    def shard(self, group: str, key: str) -> dict[str, dict[str, Any]]:
        name = (shards.alone_name(key) if group == 'g'
                else f'{group}{shards.shard_of(key, self.kept.counts[group])}')
        if name not in self.shards:
            text = self.read(name)
            try:
                self.shards[name] = json.loads(text) if text is not None else {}
            except ValueError:
                raise GiveUp from None
        return self.shards[name]

    def set(self, group: str, key: str, kind: str, name: str, old: Any, old_text: str | None,
            new: Any, new_text: str | None) -> None:
        """An entry changed from *old* to *new* (None: no entry), each with its JSON."""
        items = self.shard(group, key).setdefault(kind, {})
        present = items.get(name)
        if present != old:
            raise GiveUp  # the shard is not what the kept index says
        size = self.sizes[group]
        if present is not None:
            size -= shards.entry_size(name, old_text)
            del items[name]
        if new is not None:
            items[name] = new
            size += shards.entry_size(name, new_text)
        self.sizes[group] = size

    def gram(self, gram: str, changes: dict[int, tuple[Any, Any]]) -> None:
        """A bigram's postings, each document of *changes* with its positions
        before replaced by those after (None: not in it); a bigram that would
        be alone, or no longer, gives up (another part)."""
        group = 'g' if gram in self.alone else 'k'
        entry = self.shard(group, gram).get('g', {}).get(gram)
        docs, wheres = _decoded(entry or [])
        for doc, (was, where) in changes.items():
            at = bisect.bisect_left(docs, doc)
            present = at < len(docs) and docs[at] == doc
            if present != (was is not None) or (present and wheres[at] != was):
                raise GiveUp
            if present:
                del docs[at], wheres[at]
            if where is not None:
                docs.insert(at, doc)
                wheres.insert(at, where)
        flat: list[Any] = [None] * (2 * len(docs))
        flat[0::2], flat[1::2] = docs, wheres
        new = shards.encode_grams(flat) if docs else None
        new_text = shards.dumps(new) if new is not None else None
        if (new_text is not None and shards.alone('g', new_text)) != (group == 'g'):
            raise GiveUp
        self.set(group, gram, 'g', gram, entry, shards.dumps(entry) if entry is not None else None,
                 new, new_text)

    def char(self, char: str, now: dict[int, bool]) -> None:
        """A character's documents, each of *now* among them or not."""
        entry = self.shard('u', char).get('c', {}).get(char)
        docs = shards.ungapped(entry or [])
        for doc, holds in now.items():
            at = bisect.bisect_left(docs, doc)
            present = at < len(docs) and docs[at] == doc
            if present == holds:
                raise GiveUp
            if present:
                del docs[at]
            else:
                docs.insert(at, doc)
        new = shards.gaps(docs) if docs else None
        self.set('u', char, 'c', char, entry, shards.dumps(entry) if entry is not None else None,
                 new, shards.dumps(new) if new is not None else None)


def _value(text: str | None) -> Any:
    """An entry's value from its JSON (None: no entry)."""
    return None if text is None else json.loads(text)


def _decoded(entry: list[Any]) -> tuple[list[int], list[Any]]:
    """A bigram's ``[doc gap, where, …]`` as its documents and their positions."""
    return shards.ungapped(entry[0::2]), list(entry[1::2])
