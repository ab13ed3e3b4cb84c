"""Shards: the search index cut into the small parts a query needs.

:mod:`handbook.search.rulings_index` decides what is searched (the
documents: each ruling once, the text of each section outside its rulings)
and how a result is shown; this module turns documents into the parts the
browser loads (``rulings_search.js`` reads them), with no Sphinx in sight.

**Documents.**  Each document has an id (the sections' texts first, in page
order, then the rulings, oldest first) and a *haystack*: its folded
searchable texts joined by :data:`SEPARATOR`, which no query holds, so no
match spans two of them.  A ruling's dates are not in its haystack: they
are found through the date index, so that every way of writing a date finds
it.

**Keys.**  A query term of two characters or more is found through its
character pairs (*bigrams*): for each bigram, the documents that contain it
and where (``positions``, counted in characters of the haystack).  A term
is in a document where its bigrams, taken every two characters and the last
one, sit at the right distances from one another: an exact substring
match, with no document text loaded.  A term of one character is found
through the documents that contain that character.  A date through the
documents of that day, a month through its days.  A card's spellings
through a table of every folded spelling of each card the pages link.

**Shards.**  Every key goes to one of ``count`` shards by a hash of the key
(:func:`shard_of`; the script computes the same): a bigram by itself (a
character too, in shards of their own, ``u<i>``: only a term of one
character needs them), a day by its month (``@2017-03``), a spelling by its first two
characters (or its one character), so that the spelling of a query word is
in the shard of the word's own first bigram.  ``count`` is a power of two,
chosen so that a shard is a few kilobytes once compressed.

**Bigrams alone.**  A bigram in most documents (``效果``, ``场合``) has an
entry of tens of kilobytes, larger than a shard: in a shard by its hash, it
would be loaded by every query that needs any of its neighbours.  An entry
of more than :data:`ALONE_BYTES` is a part of its own instead
(:func:`alone_name`: ``g`` and its code points, ``g6548_679c``), the
manifest lists those bigrams (``alone``), and only a query that holds one
loads it.

**Chunks.**  What a result shows comes in chunks of :data:`CHUNK` documents
in id order (``r<i>`` for rulings, counted from the first ruling's id;
``b<i>`` for section texts): a query's results, newest first, are the last
ids it found.

Every part is a script, ``RulingSearch.addPart(name, epoch, data);``, so
that it loads from ``file://`` too; ``epoch`` says how the ids are laid
out (see :mod:`handbook.search.rulings_index`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import operator
from collections.abc import Iterable, Iterator
from typing import Any

#: between a document's texts: no query term holds it (control characters are not folded away)
SEPARATOR = '\x01'
#: documents per chunk: a query's first results are scattered over as many chunks,
#: each loaded whole for the one or two documents it is needed for
CHUNK = 4
#: the size a shard aims at: bytes of JSON (about a third of it gzipped); a query
#: needs a few keys of each shard it loads, so a smaller shard is less loaded in vain
SHARD_BYTES = 12_000
#: fewest and most shards
MIN_SHARDS, MAX_SHARDS = 8, 4096
#: a bigram whose entry is larger (characters of JSON, all ASCII) is a part of its own
ALONE_BYTES = SHARD_BYTES // 2


def fnv(key: str) -> int:
    """32-bit FNV-1a over the key's code points (``rulings_search.js`` has the same)."""
    h = 0x811C9DC5
    for char in key:
        h = ((h ^ ord(char)) * 0x01000193) & 0xFFFFFFFF
    return h


def spelling_key(spelling: str) -> str:
    """The key whose shard holds a folded spelling: its first two characters."""
    return spelling[:2]


def month_key(iso: str) -> str:
    """The key whose shard holds a day's documents: its month (``@2017-03``)."""
    return '@' + iso[:7]


def shard_of(key: str, count: int) -> int:
    return fnv(key) % count


def alone(kind: str, text: str) -> bool:
    """Whether an entry of *kind* whose JSON is *text* is a part of its own."""
    return kind == 'g' and len(text) > ALONE_BYTES


def alone_name(gram: str) -> str:
    """The part of a bigram that is alone: ``g`` and its code points in hex
    (``rulings_search.js`` makes the same)."""
    return 'g' + '_'.join(f'{ord(char):x}' for char in gram)


def alone_gram(name: str) -> str:
    """The bigram of the part *name* (:func:`alone_name`)."""
    return ''.join(chr(int(code, 16)) for code in name[1:].split('_'))


class Postings:
    """Bigram and character postings of documents added in id order."""

    def __init__(self) -> None:
        #: bigram -> [doc, position(s), doc, position(s), …]; a position is an
        #: int, or where the bigram is more than once in the document a list:
        #: the first position, then the gap from each to the next
        self.grams: dict[str, list[Any]] = {}
        #: character -> [doc, …]
        self.chars: dict[str, list[int]] = {}

    def add(self, doc: int, haystack: str) -> None:
        grams = list(map(operator.add, haystack, haystack[1:]))
        count = len(grams)
        # each bigram's first and last position, in C: most are in a document once
        first = dict(zip(reversed(grams), range(count - 1, -1, -1)))
        last = dict(zip(grams, range(count)))
        if SEPARATOR in haystack:  # no bigram spans two texts
            at = haystack.find(SEPARATOR)
            while at >= 0:
                if at:
                    first.pop(grams[at - 1], None)
                if at < count:
                    first.pop(grams[at], None)
                at = haystack.find(SEPARATOR, at + 1)
        postings = self.grams
        get = postings.get
        once = first.items() & last.items()
        for gram, at in once:
            entry = get(gram)
            if entry is None:
                postings[gram] = [doc, at]
            else:
                entry += (doc, at)
        if len(once) < len(first):
            for gram, at in first.items():
                end = last[gram]
                if end == at:
                    continue
                where = [at]  # the first position, then the gaps between them
                while at < end:
                    after = haystack.find(gram, at + 1)
                    where.append(after - at)
                    at = after
                entry = get(gram)
                if entry is None:
                    postings[gram] = [doc, where]
                else:
                    entry += (doc, where)
        chars = self.chars
        for char in set(haystack):
            entry = chars.get(char)
            if entry is None:
                chars[char] = [doc]
            else:
                entry.append(doc)
        chars.pop(SEPARATOR, None)


def gaps(docs: list[int]) -> list[int]:
    """Ids as the gaps between them (smaller numbers, better compressed)."""
    return [b - a for a, b in zip([-1, *docs], docs)]


def ungapped(gaps: list[int]) -> list[int]:
    """The ids that :func:`gaps` gave *gaps* for."""
    return list(itertools.accumulate(gaps, initial=-1))[1:]


def encode_grams(entry: list[Any]) -> list[Any]:
    """``[doc, where, …]`` with each doc as the gap from the one before."""
    out = entry[:]
    out[0::2] = gaps(entry[0::2])
    return out


def shards(postings: Postings, months: dict[str, str],
           spellings: dict[str, str]) -> dict[str, tuple[int, dict[int, str], int]]:
    """The shards, by kind: ``{'k': (count, {number: JSON}, size), 'u': …}``.
    The ``k`` shards hold ``g`` bigrams, ``d`` months (:func:`months`:
    ``{'2017-03': {'24': docs}}``) and ``n`` spellings (*months* and
    *spellings* as their entries' JSON); the ``u`` shards ``c``
    characters, which only a term of one character needs; the ``g`` parts
    each one bigram that is alone (:func:`alone`), by its name's code
    points.  Each entry is made JSON once, and the number of shards of a
    kind chosen from their size (:func:`shard_count`: :data:`SHARD_BYTES` a
    shard, a power of two; the bigrams alone not counted).

    The postings are used up: each entry is let go once it is JSON, so that
    the index's largest moment holds the postings or their JSON, not both."""
    words = [  # (key, kind, name, JSON)
        *((gram, 'g', gram, dumps(encode_grams(entry))) for gram, entry in _used_up(postings.grams)),
        *((month_key(month), 'd', month, text) for month, text in months.items()),
        *((spelling_key(spelling), 'n', spelling, text) for spelling, text in spellings.items()),
    ]
    chars = [(char, 'c', char, dumps(gaps(docs))) for char, docs in _used_up(postings.chars)]
    shared, apart = [], []
    for word in words:
        (apart if alone(word[1], word[3]) else shared).append(word)
    grams = {alone_name(name)[1:]: shard_text({'g': {name: text}})
             for _key, _kind, name, text in apart}
    return {'k': _distribute(shared), 'u': _distribute(chars),
            'g': (len(grams), grams, sum(entry_size(name, text)
                                         for _key, _kind, name, text in apart))}


def months(days: dict[str, list[int]]) -> dict[str, str]:
    """Each month's days and their documents, as JSON (a ``d`` entry)."""
    out: dict[str, dict[str, list[int]]] = {}
    for iso in sorted(days):
        out.setdefault(iso[:7], {})[iso[8:]] = gaps(sorted(set(days[iso])))
    return {month: dumps(value) for month, value in out.items()}


def _used_up(table: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """The items of *table*, each taken out of it as it is handed over."""
    while table:
        yield table.popitem()


def entry_size(name: str, text: str) -> int:
    """What an entry counts for in the choice of the number of shards."""
    return len(name) + len(text) + 4


def shard_count(size: int) -> int:
    """The number of shards of a kind whose entries' sizes add up to *size*."""
    count = MIN_SHARDS
    while count < MAX_SHARDS and size / count > SHARD_BYTES:
        count *= 2
    return count


def shard_text(kinds: dict[str, dict[str, str]]) -> str:
    """A shard's JSON from ``{kind: {name: entry's JSON}}``."""
    return '{' + ','.join(
        f'"{kind}":{{' + ','.join(f'{json.dumps(name, ensure_ascii=False)}:{text}'
                                  for name, text in sorted(items.items())) + '}'
        for kind, items in sorted(kinds.items()) if items) + '}'


def _distribute(entries: list[tuple[str, str, str, str]]) -> tuple[int, dict[int, str], int]:
    size = sum(entry_size(name, text) for _key, _kind, name, text in entries)
    count = shard_count(size)
    out: dict[int, dict[str, dict[str, str]]] = {}
    for key, kind, name, text in entries:
        out.setdefault(shard_of(key, count), {}).setdefault(kind, {})[name] = text
    return count, {number: shard_text(kinds) for number, kinds in out.items()}, size


def chunks(entries: list[Any], prefix: str) -> Iterator[tuple[str, list[Any]]]:
    """``(name, entries)`` of every chunk of *entries*."""
    for start in range(0, len(entries), CHUNK):
        yield f'{prefix}{start // CHUNK}', entries[start:start + CHUNK]


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(',', ':'), sort_keys=True)


def version(texts: Iterable[str]) -> str:
    """A short digest of *texts*."""
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode())
        digest.update(b'\0')
    return digest.hexdigest()[:12]


def part_text(name: str, epoch: str, data: str) -> str:
    """The script of one part (*data*: its JSON)."""
    return f'{_part_start(name, epoch)}{data});\n'


def part_data(name: str, epoch: str, text: str) -> str | None:
    """The JSON of part *name* of *epoch* in its script *text* (:func:`part_text`),
    or None where *text* is not that."""
    start = _part_start(name, epoch)
    return text[len(start):-3] if text.startswith(start) and text.endswith(');\n') else None


def _part_start(name: str, epoch: str) -> str:
    return f'RulingSearch.addPart({json.dumps(name)},{json.dumps(epoch)},'
