"""jieba's dictionary for the search: loaded whole once per process and lent
to one build at a time, or read by first character for the few texts a
build cuts (part ``jieba`` of :mod:`handbook.speed`).

jieba looks the words of a text up in its dictionary (350,000 words and the
prefixes it adds), which it keeps marshalled in its cache file.  A process
that runs several builds (the tests, a preview) loads it once
(:func:`jieba_dictionary`) and lends it to one build's tokenizer at a time
(:class:`SharedDictionary`).  A build that cuts few texts needs few of its
entries: an edit indexes the edited page again, but the words of the
page's other texts come from the last build
(:class:`handbook.speed.search.SavedCuts`), and jieba looks up nothing but
pieces of the text it cuts, so only the entries whose first character is in
that text.  Such a build reads those (:class:`PartialDictionary`), from:

* **jieba's dictionary by first character** (:class:`Shards`), in one file
  beside jieba's cache, written when the whole dictionary is loaded and the
  file is missing or was made from another jieba cache (once per machine);
* **the build's own words** (:func:`save_words`): what the card names and
  the project's dictionary added to jieba's (the words, their prefixes, the
  new total), kept in the build's folder by the build that added them, under
  a key of everything a cut depends on (:func:`words_key`).

Where either is missing or does not match, the build loads the whole
dictionary.  Either way the words are the same: the tests cut the same
texts both ways.

This module reads jieba's cache file itself and gives a tokenizer its
dictionary by setting the tokenizer's ``FREQ``, ``total`` and
``initialized``: jieba 0.42 has no public way to share one dictionary
between tokenizers.  The speed package's allow-list names both, guarded by
jieba's version (:data:`handbook.speed.ALLOWED`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import logging
import marshal
import mmap
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from handbook.core.files import replacing

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    import jieba

#: the version of the files below: a change to how they are made, or to how
#: the search cuts a text (:mod:`handbook.search.card_search`), makes it new
FORMAT = 1
#: jieba's dictionary by first character, beside jieba's own cache
SHARDS = 'handbook-jieba.shards'
#: a build's words, in the build's folder
WORDS = 'words.marshal'

#: a file's stamp: its size and modification time
Stamp = tuple[int, int]


class SharedDictionary(dict):
    """jieba's own dictionary (word -> frequency), lent to one build's
    tokenizer at a time (:func:`jieba_dictionary`).  The words a build adds
    (the card names, ``html_search_options['dict']``) are noted as they are
    added, and taken out again before the dictionary is lent to the next
    build: a build costs the words it adds, not a copy of jieba's 350,000
    (megabytes for each build).  Only additions go through Python:
    looking a word up is the dict's own."""

    def __init__(self, words: dict[str, int], total: int) -> None:
        super().__init__(words)
        self.total = total
        self.holder: object | None = None
        self._before: dict[str, int | None] = {}  # what the holder changed: the old values

    def __setitem__(self, word: str, frequency: int) -> None:
        if word not in self._before:
            self._before[word] = self.get(word)
        super().__setitem__(word, frequency)

    def lend(self, holder: object, add: Callable[[jieba.Tokenizer], object]) -> jieba.Tokenizer:
        """A tokenizer on this dictionary for *holder*, with the words that
        *add* adds to it, and none of the previous holder's."""
        for word, frequency in self._before.items():
            if frequency is None:
                super().__delitem__(word)
            else:
                super().__setitem__(word, frequency)
        self._before.clear()
        self.holder = holder
        tokenizer = _tokenizer(self, self.total)
        with _quiet_jieba():
            add(tokenizer)
        return tokenizer

    def added(self) -> dict[str, int]:
        """The words the holder added or changed, with their frequencies."""
        return {word: self[word] for word in self._before}


class Shards:
    """jieba's dictionary in one file by first character: a header (the
    :data:`FORMAT`, the stamp of jieba's cache it was made from, jieba's
    total, and where each character's entries are in the file), then each
    character's entries, marshalled."""

    def __init__(self, data: mmap.mmap, start: int, total: int,
                 where: dict[str, tuple[int, int]]) -> None:
        self._data, self._start = data, start
        self.total = total
        self._where = where

    def entries(self, char: str) -> dict[str, int]:
        """The entries whose first character is *char* (ValueError, EOFError
        or TypeError where the file does not hold them)."""
        at = self._where.get(char)
        if at is None:
            return {}
        offset, length = at
        entries = marshal.loads(self._data[self._start + offset:self._start + offset + length])
        if not isinstance(entries, dict):
            raise TypeError(f'the entries of {char!r} are no dictionary')
        return entries

    @classmethod
    def open(cls, path: Path, made_from: Stamp) -> Shards | None:
        """The file *path*, if it was made from the jieba cache of stamp *made_from*."""
        try:
            with path.open('rb') as file:
                data = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
            size = int.from_bytes(data[:8], 'little')  # the header's
            header = marshal.loads(data[8:8 + size])
            if not (isinstance(header, tuple) and len(header) == 4 and header[0] == FORMAT
                    and header[1] == made_from and isinstance(header[2], int)
                    and isinstance(header[3], dict)):
                return None
            whole = sum(length for _offset, length in header[3].values()) == len(data) - 8 - size
        except (OSError, ValueError, EOFError, TypeError):
            return None
        return cls(data, 8 + size, header[2], header[3]) if whole else None

    @staticmethod
    def write(path: Path, made_from: Stamp, words: dict[str, int], total: int) -> None:
        """Write the dictionary *words* of total *total* to *path* (moved
        into place once whole), made from the jieba cache of stamp *made_from*."""
        pieces: list[bytes] = []
        where: dict[str, tuple[int, int]] = {}
        offset = 0
        keys = sorted(words)
        start = 0
        while start < len(keys):
            char = keys[start][0]
            end = start + 1
            while end < len(keys) and keys[end][0] == char:
                end += 1
            piece = marshal.dumps({key: words[key] for key in keys[start:end]})
            where[char] = (offset, len(piece))
            pieces.append(piece)
            offset += len(piece)
            start = end
        header = marshal.dumps((FORMAT, made_from, total, where))
        with replacing(path) as out:
            out.write(len(header).to_bytes(8, 'little'))
            out.write(header)
            for piece in pieces:
                out.write(piece)


class PartialDictionary(dict):
    """jieba's dictionary and a build's words over it, read for the
    characters of each text before the text is cut (:meth:`need`)."""

    def __init__(self, shards: Shards, words: dict[str, dict[str, int]], total: int) -> None:
        super().__init__()
        self.total = total
        self._shards = shards
        self._words = words  # by first character
        self._read: set[str] = set()

    def need(self, text: str) -> None:
        """Read the entries that cutting *text* can look up: those whose
        first character is in it (ValueError, EOFError or TypeError where
        the file does not hold them)."""
        for char in set(text).difference(self._read):
            self.update(self._shards.entries(char))
            self.update(self._words.get(char, ()))
            self._read.add(char)

    def tokenizer(self) -> jieba.Tokenizer:
        return _tokenizer(self, self.total)


def _tokenizer(dictionary: dict[str, int], total: int) -> jieba.Tokenizer:
    import jieba

    tokenizer = jieba.Tokenizer()
    tokenizer.FREQ, tokenizer.total, tokenizer.initialized = dictionary, total, True
    return tokenizer


@functools.cache
def jieba_dictionary() -> SharedDictionary:
    """jieba's own dictionary, loaded once per process (from jieba's cache
    file: :func:`_read_jieba_cache`) and shared by its
    builds one after the other (one process makes several builds under
    sphinx.testing).  Its :class:`Shards` are written if they are not."""
    import jieba

    base = jieba.Tokenizer()
    loaded = _read_jieba_cache(base)
    if loaded is None:  # no cache yet: jieba builds its dictionary and writes the cache
        with _quiet_jieba():
            base.initialize()
        loaded = base.FREQ, base.total
    made_from = jieba_stamp()
    if made_from is not None and Shards.open(shards_file(), made_from) is None:
        try:
            Shards.write(shards_file(), made_from, *loaded)
        except OSError:  # a folder not ours to write: the next build loads it whole again
            pass
    return SharedDictionary(*loaded)


def whole_dictionary_loaded() -> bool:
    """Whether this process has loaded jieba's whole dictionary."""
    return jieba_dictionary.cache_info().currsize > 0


def _read_jieba_cache(tokenizer: jieba.Tokenizer) -> tuple[dict[str, int], int] | None:
    """jieba's cache of its default dictionary (``jieba.cache`` in its
    ``tmp_dir``, else the temporary folder), read as jieba reads it but in
    one piece (``marshal.loads`` of the bytes, three times as fast as
    jieba's ``marshal.load`` from the file).  None where there is no such cache, or no readable
    one, or the tokenizer has another dictionary."""
    import jieba

    if tokenizer.dictionary != jieba.DEFAULT_DICT or tokenizer.cache_file:
        return None
    try:
        loaded = marshal.loads(jieba_cache(tokenizer.tmp_dir).read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not (isinstance(loaded, tuple) and len(loaded) == 2 and isinstance(loaded[0], dict)
            and isinstance(loaded[1], int)):
        return None
    return loaded


def jieba_cache(tmp_dir: str | None = None) -> Path:
    """jieba's cache of its default dictionary, in *tmp_dir* (a tokenizer's
    ``tmp_dir``), else the temporary folder, as jieba keeps it."""
    return Path(tmp_dir or tempfile.gettempdir()) / 'jieba.cache'


def shards_file() -> Path:
    return jieba_cache().with_name(SHARDS)


def jieba_stamp() -> Stamp | None:
    """The stamp of jieba's cache, None where there is none (found without
    importing jieba: a build that cuts no text never does)."""
    return _stamp(jieba_cache())


def words_key(names: Iterable[str], user_dictionary: str | None) -> str | None:
    """A key of what a build's words and cuts depend on: jieba (its code and
    its cache), the card names, the project's dictionary file and
    :data:`FORMAT`; None where jieba has no cache yet."""
    spec = importlib.util.find_spec('jieba')
    made_from = jieba_stamp()
    code = _stamp(Path(spec.origin)) if spec and spec.origin else None
    if made_from is None or code is None:
        return None
    digest = hashlib.sha256(f'{FORMAT}\0{made_from}\0{code}\0'.encode())
    if user_dictionary:
        try:
            digest.update(Path(user_dictionary).read_bytes())
        except OSError:
            return None
    digest.update(b'\0')
    for name in names:
        digest.update(name.encode('utf-8', 'surrogatepass') + b'\0')
    return digest.hexdigest()


def save_words(folder: Path, key: str, dictionary: SharedDictionary, total: int) -> None:
    """Keep in *folder* the words the holder of *dictionary* added, and the
    new *total*, under *key*, unless they are kept already."""
    path = folder / WORDS
    if _read_words(path, key) is not None:
        return
    by_char: dict[str, dict[str, int]] = {}
    for word, frequency in dictionary.added().items():
        by_char.setdefault(word[0], {})[word] = frequency
    write_kept(path, key, total, by_char)


def partial_dictionary(folder: Path, key: str) -> PartialDictionary | None:
    """jieba's dictionary with the words kept in *folder* under *key*, read
    by first character; None where either file is missing or does not match."""
    words = _read_words(folder / WORDS, key)
    made_from = jieba_stamp()
    shards = Shards.open(shards_file(), made_from) if words and made_from else None
    if shards is None or words is None:
        return None
    total, by_char = words
    return PartialDictionary(shards, by_char, total)


def _read_words(path: Path, key: str) -> tuple[int, dict[str, dict[str, int]]] | None:
    kept = read_kept(path, key)
    if not (kept and len(kept) == 2 and isinstance(kept[0], int) and isinstance(kept[1], dict)):
        return None
    return kept[0], kept[1]


def write_kept(path: Path, key: str, *values: object) -> None:
    """Keep *values* in *path* under *key* (a build's words, a page's cuts),
    marshalled, the file moved into place once whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as out:
        out.write(marshal.dumps((FORMAT, key, *values)))


def read_kept(path: Path, key: str) -> tuple | None:
    """The values :func:`write_kept` kept in *path* under *key*; None where
    the file is missing or unreadable, or has another format or key."""
    try:
        kept = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not (isinstance(kept, tuple) and kept[:2] == (FORMAT, key)):
        return None
    return kept[2:]


def _stamp(path: Path) -> Stamp | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


@contextmanager
def _quiet_jieba() -> Iterator[None]:
    """jieba logs its dictionary loading to stderr at DEBUG level."""
    logger = logging.getLogger('jieba')
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)
