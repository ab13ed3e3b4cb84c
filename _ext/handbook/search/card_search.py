"""Card-aware Chinese search: whole card names are search words.

The HTML search is Sphinx's Chinese search (``html_search_language = 'zh'``,
words cut by jieba), changed in three ways:

**Card names are words.**  jieba gets a private dictionary, made at build
time from the card registry (every name and alias; of a name with a space,
a middle dot, @ or /, where jieba always cuts, every piece), so it keeps card
names and their pieces together.  And every registry name that a text contains,
whatever its spacing, width or middle dots, is indexed as one word, its
*search key*: the name folded by :func:`handbook.core.names.fold`, the one
folding function of the registry, the index and the search page
(``DDD 反骨王 列奥尼达`` -> ``ddd反骨王列奥尼达``).  Names are found longest
first, and a word of jieba's that is a registry name counts only where that
name is written: a page about 「黑洞龙」 is no result for 「黑洞」.

**The query is cut the same way** (``card_search.js``, served inside
``language_data.js`` after ``const CARD_KEYS = [...]``, the search keys of the
registry's names).  Sphinx's own query splitter cuts at every space and
punctuation mark and knows no jieba; this one:

1. takes the longest run of space-separated query words whose search key is
   a registry name or a word of the index, so ``混沌No.103 神葬零娘 暮永``,
   ``G·B·猎人`` and ``牢牢妖@火灵天星`` are each one word;
2. cuts any other word at punctuation, and a piece that is no word of the
   index into the longest words of the index it is made of, the way jieba
   cut the pages (``伤害步骤`` -> ``伤害`` + ``步骤``; single characters are
   not indexed and are dropped).

**Results are sections, and contain what was searched.**  For every page the
index finds, the script reads the page and keeps the sections whose own text
(without their subsections, and without elements of class ``no-search``, such
as the related sections, which Sphinx's index leaves out too) contains every
query phrase (the query's words,
compared by search key; a card name, found as above, not inside a longer
name); each becomes a result ``页面 > 小节`` linking to the section (to the
page, where the section is the page or its id leads elsewhere).  A page that
contains the index words but not the phrase (``伤害`` and ``步骤`` apart,
never ``伤害步骤``) is dropped.  Matches in section titles are Sphinx's own
title results.  The count is of pages.  The summary under a result shows
where the phrase is.  Where pages cannot be read (``file://``), results stay
Sphinx's page results.  Pages marked ``:nosearch:`` are not searched.

It also fixes Sphinx 9.0.4's Chinese search, whose ``language_data.js`` ends
in ``window.Stemmer = ChineseStemmer;``, an undefined name, so that search in
the browser silently never finishes: nothing is stemmed (the handbook's few
Latin words are card-name pieces such as ``DDD`` or ``HERO``), and the script
defines a ``Stemmer`` that leaves words as they are.

Each page's texts and their words are kept from one build to the next: a
page indexed again (an edit) is split with them, and jieba cuts only its new
texts, on its dictionary read for them alone (:class:`SavedCuts`,
:mod:`handbook.search.dictionary`).  A process of its own cuts pages ahead
while a core would be idle, into the same files (:class:`CutsAhead`): in a
serial build, every page as it is read; in a parallel build, the heaviest
pages once they are read, then the others where the write leaves a core idle.

jieba's start-up messages are silenced.  The registry is the one
``card_links`` loaded; editing it re-indexes the pages that ``card_links``
re-reads (those that link a changed name).  A name that a page only writes
in plain text is indexed anew at the next full build (``make html
SPHINXOPTS=-E``).

Configuration: none beyond Sphinx's.  ``html_search_options = {'dict':
path}`` adds a jieba dictionary file of the project's own words.
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import os
import pickle
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import sphinx.search
from docutils import nodes
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.search import SearchLanguage
from sphinx.search.en import SearchEnglish
from sphinx.util.parallel import make_chunks

from handbook.cards import links as card_links
from handbook.core.files import doctree_file
from handbook.core.names import SEPARATOR_CLASS, fold
from handbook.core.writing_order import INDEXED, INDEXING, WAITING, spare_core, when_idle
from handbook.search.dictionary import (
    jieba_dictionary,
    partial_dictionary,
    read_kept,
    save_words,
    whole_dictionary_loaded,
    words_key,
    write_kept,
)

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

    import jieba
    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment

    from handbook.cards.registry import Card

#: a word worth indexing has a letter or a digit (not 「, 。 or ……)
_WORDLIKE = re.compile(r'[^\W_]')
#: Latin words, indexed besides jieba's cut (as Sphinx's Chinese search does)
_LATIN = re.compile(r'[a-zA-Z0-9_]+')

#: the longest text whose words :meth:`CardAwareChinese.split` keeps for the build
MEMO_CHARS = 32
#: the query splitter, the stemmer and the result sections (served in language_data.js)
SCRIPT = Path(__file__).with_suffix('.js')


def registry_names(cards: Iterable[Card]) -> list[str]:
    """Every name and alias of the registry's cards, in registry order."""
    names: list[str] = []
    for card in cards:
        names.append(card.name)
        names.extend(alias for _, alias in card.aliases)
    return names


def dictionary_words(names: Iterable[str]) -> list[str]:
    """jieba's user dictionary: the names, each cut where jieba always cuts
    (at spaces, middle dots, @, /, 「 …: jieba joins no word across them)."""
    import jieba  # imported once a page is indexed: a build that indexes none does without

    words: dict[str, None] = {}
    for name in names:
        for piece in jieba.re_han_default.findall(name):
            if len(piece) > 1:
                words[piece] = None
    return list(words)


class NameFinder:
    """Finds registry names in text by search key, leftmost and longest first."""

    def __init__(self, names: Iterable[str]) -> None:
        self.keys = frozenset(filter(None, map(fold, names)))
        by_first: dict[str, set[int]] = {}
        for key in self.keys:
            by_first.setdefault(key[0], set()).add(len(key))
        self._lengths = {ch: sorted(lengths, reverse=True) for ch, lengths in by_first.items()}

    def find(self, text: str) -> Iterator[str]:
        folded = fold(text)
        i, end = 0, len(folded)
        while i < end:
            for length in self._lengths.get(folded[i], ()):
                if folded[i:i + length] in self.keys:
                    yield folded[i:i + length]
                    i += length
                    break
            else:
                i += 1


class CardAwareChinese(SearchLanguage):
    """Sphinx's Chinese search with card names as words (bound to a registry
    by :func:`bind_registry`).  Sphinx's own (``sphinx.search.zh``) imports
    jieba when it is imported, 0.1 s of every build; this one, when it first
    cuts a text: a build that indexes no page (an edit that moved links
    only, a build with nothing to do) never imports it."""

    lang = 'zh'
    language_name = 'Chinese'
    stopwords = SearchEnglish.stopwords  # as Sphinx's Chinese search
    js_stemmer_rawcode = ''  # no English stemmer: the one Sphinx 9.0.4 wires up is broken
    js_stemmer_code = ('/* card_search: words are not stemmed */\n'
                       'var Stemmer = function () { this.stemWord = (word) => word; };\n')
    card_names: ClassVar[tuple[str, ...]] = ()
    replaced: ClassVar[str | type | None] = None  # the language this one stands in for
    #: the folder where a build keeps its words and cuts for the next (:class:`SavedCuts`)
    cache: Path | None = None

    def __init__(self, options: dict[str, str]) -> None:
        # not SearchLanguage.__init__ (nor Sphinx's Chinese search's, which
        # loads words into jieba's global dictionary)
        self.options = options
        self.names = NameFinder(self.card_names)
        keys = json.dumps(sorted(self.names.keys), ensure_ascii=False)
        separators = json.dumps(SEPARATOR_CLASS)
        self.js_splitter_code = (f'const CARD_KEYS = {keys};\n'
                                 f'const CARD_NAME_SEPARATORS = {separators};\n'
                                 f'{SCRIPT.read_text(encoding="utf-8")}')
        self._tokenizer: jieba.Tokenizer | None = None
        #: where the tokenizer reads jieba's dictionary by first character:
        #: what reads the entries a text needs (:mod:`handbook.search.dictionary`)
        self._need: Callable[[str], None] | None = None
        self._cut: dict[str, list[str]] = {}  # the short texts cut (split)
        self._kept: dict[str, bool] = {}  # jieba's words: whether each is kept (_split)
        self._ahead: dict[str, list[str]] = {}  # the page's texts cut ahead (learn)
        self._page: dict[str, list[str]] = {}  # the page's texts split so far (page_cuts)

    @functools.cached_property
    def key(self) -> str | None:
        """A key of everything the words of a text depend on
        (:func:`handbook.search.dictionary.words_key`)."""
        return words_key(self.card_names, self.options.get('dict'))

    @property
    def tokenizer(self) -> jieba.Tokenizer:
        """jieba with the card names, made when a text is first cut (a build
        that cuts none does not wait for jieba's dictionary): on the
        dictionary read by first character where this process has not loaded
        it whole and the words of the last build are kept, else on the whole
        dictionary, lent again if another build has borrowed it since."""
        if self._tokenizer is None:
            partial = None
            if self.cache is not None and self.key is not None and not whole_dictionary_loaded():
                partial = partial_dictionary(self.cache, self.key)
            if partial is not None:
                self._tokenizer, self._need = partial.tokenizer(), partial.need
                return self._tokenizer
        elif self._need is not None or jieba_dictionary().holder is self:
            return self._tokenizer
        return self._lend()

    def _lend(self) -> jieba.Tokenizer:
        dictionary = jieba_dictionary()
        self._tokenizer, self._need = dictionary.lend(self, self._add_words), None
        if self.cache is not None and self.key is not None:
            try:
                save_words(self.cache, self.key, dictionary, self._tokenizer.total)
            except OSError:  # kept for the next build only: it loads the whole dictionary
                pass
        return self._tokenizer

    def _add_words(self, tokenizer: jieba.Tokenizer) -> None:
        for word in dictionary_words(self.card_names):
            tokenizer.add_word(word)
        if self.options.get('dict'):
            tokenizer.load_userdict(self.options['dict'])

    def split(self, input: str) -> list[str]:
        """The words of *input*; a short text is cut once per build (the
        index feeds each text node alone: the pieces between card links,
        such as 「 or 」的效果, the names and the dates recur on every page)."""
        if len(input) > MEMO_CHARS:
            words = self._ahead.get(input)
            if words is None:
                words = self._split(input)
        else:
            words = self._cut.get(input)
            if words is None:
                words = self._ahead.get(input)
                words = self._cut[input] = self._split(input) if words is None else words
        self._page[input] = words
        return list(words)

    def begin(self) -> None:
        """A page is about to be indexed: forget the last page's texts."""
        self._ahead = {}
        self._page = {}

    def learn(self, cuts: dict[str, list[str]]) -> None:
        """Split the page being indexed with *cuts* (text -> its words, as
        :meth:`split` gives them: :class:`SavedCuts`, :class:`CutsAhead`)."""
        if not self._ahead:
            self._ahead = cuts
        elif cuts:
            self._ahead = {**self._ahead, **cuts}  # neither of them changed

    def page_cuts(self) -> dict[str, list[str]]:
        """The texts of the page being indexed split so far, with their words."""
        return self._page

    def _split(self, input: str) -> list[str]:
        tokenizer = self.tokenizer
        if self._need is not None:
            try:
                self._need(input)
            except (ValueError, EOFError, TypeError):  # a damaged file: the whole dictionary
                tokenizer = self._lend()
        kept, names = self._kept, self.names.keys
        words = []
        for word in (*tokenizer.cut_for_search(input), *_LATIN.findall(input)):
            keep = kept.get(word)
            if keep is None:  # a registry name counts where the name finder finds it
                keep = kept[word] = bool(_WORDLIKE.search(word)) and fold(word) not in names
            if keep:
                words.append(word)
        words.extend(self.names.find(input))
        return words

    def stem(self, word: str) -> str:
        return word.lower()

    def word_filter(self, stemmed_word: str) -> bool:
        return len(stemmed_word) > 1 or stemmed_word in self.names.keys


def indexes_in_chinese(app: Sphinx) -> bool:
    """Whether the build's builder indexes its pages with this search (an
    HTML builder with a search, in Chinese, as Sphinx picks the language)."""
    builder: Builder = app.builder
    language = app.config.html_search_language or app.config.language or ''
    return isinstance(builder, StandaloneHTMLBuilder) and bool(builder.search) \
        and CardAwareChinese.lang in (language, language.partition('_')[0])


class DictionaryAhead:
    """jieba's dictionary loaded while a parallel read leaves the main process
    waiting.  The first page the write indexes would load it (jieba's import
    and cache: 0.2 s on the critical path of a ``-j auto`` write, the other
    core idle).  With ``-j N``, Sphinx hands out chunks of pages to ``N``
    reading processes, a new one as one ends and is merged; once the last
    chunk is handed out (after every merge but the last ``N``), the main
    process only waits, and loads the dictionary then."""

    def __init__(self) -> None:
        self.merges = 0  # the merges before the dictionary is loaded (0: not loaded ahead)

    def count(self, app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
        """``env-before-read-docs`` (after the pages are reordered)."""
        self.merges = 0
        if app.parallel > 1 and indexes_in_chinese(app):
            chunks = len(make_chunks(docnames, app.parallel))
            if chunks > 1:
                self.merges = max(chunks - app.parallel, 0) + 1

    def merged(self, app: Sphinx, env: BuildEnvironment, docnames: Any,
               other: BuildEnvironment) -> None:
        """``env-merge-info``: a chunk's pages are merged."""
        if self.merges:
            self.merges -= 1
            if not self.merges:
                jieba_dictionary()


class CutsAhead:
    """Pages cut for the search by a process of its own, from their doctrees
    as read, while a core would be idle; the process keeps each page's words
    in the files of :class:`SavedCuts` (``<page>.ahead.marshal``), where the
    main process finds them when it indexes the page, if they are there by
    then (it never waits: it cuts what it has no words for).
    :meth:`CardAwareChinese.split` is a function of the text, so the index is
    the same (``test_builds`` compares ``-j 2`` with ``-j 1``, and two
    clean builds).  What the doctree as read does not hold as such (a
    reference's title, resolved later) is cut by the main process.

    **A serial build** (``-j 1``) reads its pages one after the other and
    leaves the other core idle: the process starts before the read (forked
    from a main process that holds no page yet, so small), and cuts each page
    once it is read (the main process tells it at the next page, and at the
    end of the read).  It is done before the write starts; jieba's 1.3 s of
    a clean ``-j 1`` build on the benchmark corpus are out of the main
    process, which has no need of jieba's whole dictionary either (it reads
    it by first character for the texts left to it, with the words the
    process kept: :mod:`handbook.search.dictionary`).  Only where the pages
    read weigh :data:`AHEAD_BYTES` or more, the machine has a core to spare
    (:func:`handbook.core.writing_order.spare_core`), and jieba has its cache.

    **A parallel build** keeps both cores busy reading; then the main process
    computes the lists that need every page, and resolves and indexes every
    page while the processes it forks write them, and the write waits on it.
    The process starts once the pages are read (``env-updated``), at a lower
    priority than the build's own, and cuts the heaviest pages, in the order
    the write indexes them: those at least a quarter as heavy as the
    heaviest (:data:`HEAVY`; on the benchmark corpus its two yearly FAQ
    pages, cut while the main process computes the lists).  Then it cuts the
    others from the lightest, the pages the write indexes last, only where a
    core would otherwise be idle (:func:`~handbook.core.writing_order.when_idle`):
    the write leaves one idle at moments, while the main process resolves
    and indexes a chunk and no process writes.  Cut heaviest first at a
    lower priority, they came too late and took CPU from the write (0.14 s
    of it, four pairs); from the lightest on the idle core, the build is
    about 0.2 s shorter (medians 11.8 against 12.1 s in twelve pairs, 11.7
    against 11.9 s in eight more), for 1-1.5 s more CPU on that core."""

    def __init__(self) -> None:
        self.process: BaseProcess | None = None
        self.docnames: list[str] = []  # the pages this build reads
        self.telling: Connection | None = None  # a serial build's: the pages read, told
        self.reading: str | None = None  # a serial build's: the page being read

    def count(self, app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
        """``env-before-read-docs``: the pages to read; a serial build's process starts."""
        self.stop(app, None)
        self.docnames = list(docnames)
        if app.parallel > 1 or not spare_core() or not self._worth(app) \
                or sum(_size(Path(env.doc2path(docname))) for docname in docnames) < AHEAD_BYTES:
            return
        language = self._keyed(app, bound_language(app, env))  # bind_registry's comes later
        if language is None:
            return
        receiving, self.telling = multiprocessing.get_context('fork').Pipe(duplex=False)
        self._start(app, language, receiving, ((docname, doctree_file(env, docname))
                                               for docname in iter(receiving.recv, None)))

    def read(self, app: Sphinx, docname: str, source: list[str]) -> None:
        """``source-read``: a serial build reads *docname*, so the page before is read."""
        if self.telling is not None:
            if self.reading is not None:
                self._tell(self.reading)
            self.reading = docname

    def start(self, app: Sphinx, env: BuildEnvironment) -> list[str]:
        """``env-updated``, the pages read: a serial build's process is told
        so; a parallel build's starts, if it read several pages (jieba's
        dictionary, loaded ahead, is the process's as it forks)."""
        if self.telling is not None:
            if self.reading is not None:
                self._tell(self.reading)
            self._tell(None)  # the end
            self._stop_telling()
            return []
        registered = sphinx.search.languages.get(CardAwareChinese.lang)  # bind_registry's
        if not (app.parallel > 1 and self._worth(app) and isinstance(registered, type)
                and issubclass(registered, CardAwareChinese)):
            return []
        language = self._keyed(app, registered)
        if language is None:
            return []
        sizes = {doctree_file(env, docname): docname for docname in self.docnames}
        sized = sorted(((_size(path), path) for path in sizes), reverse=True)  # as the write
        heaviest = sized[0][0] if sized else 0
        heavy = [(sizes[path], path) for size, path in sized if size * HEAVY >= heaviest]
        light = [(sizes[path], path) for size, path in reversed(sized) if size * HEAVY < heaviest]
        self._start(app, language, None, [*heavy, WHEN_IDLE, *light])
        return []

    def _worth(self, app: Sphinx) -> bool:
        """Whether cutting pages ahead is worth it: the build reads several
        pages and indexes them with this search."""
        return len(self.docnames) > PAGES_AHEAD and indexes_in_chinese(app)

    @staticmethod
    def _keyed(app: Sphinx, language: type[CardAwareChinese]) -> type[CardAwareChinese] | None:
        """*language* (this build's, :func:`bound_language`), where the words
        it cuts can be kept (jieba has its cache: their key)."""
        user_dictionary = (app.config.html_search_options or {}).get('dict')
        return language if words_key(language.card_names, user_dictionary) is not None else None

    def _start(self, app: Sphinx, language: type[CardAwareChinese], receiving: Connection | None,
               doctrees: Iterable[tuple[str, Path]]) -> None:
        """Fork the process, to cut the pages of *doctrees* (``(docname, doctree file)``)."""
        context = multiprocessing.get_context('fork')
        self.process = context.Process(
            target=_cut_pages, daemon=True,
            args=(language, dict(app.config.html_search_options or {}), doctrees, self.telling))
        self.process.start()
        if receiving is not None:
            receiving.close()  # the process's end

    def _tell(self, docname: str | None) -> None:
        """Tell the process that page *docname* is read (None: all are)."""
        if self.telling is None:
            return
        try:
            self.telling.send(docname)
        except OSError:  # the process ended: the main process cuts what it has no words for
            self._stop_telling()

    def _stop_telling(self) -> None:
        if self.telling is not None:
            self.telling.close()
        self.telling = self.reading = None

    def stop(self, app: Sphinx, exception: BaseException | None) -> None:
        """``build-finished`` (and before a build's read): the process ended."""
        self._stop_telling()
        if self.process is not None:
            self.process.terminate()
            self.process.join()
            self.process = None


#: a build cuts pages ahead when it reads more than this many
PAGES_AHEAD = 5
#: a serial build cuts pages ahead when those it reads weigh this much (their sources)
AHEAD_BYTES = 128 * 1024
#: a parallel build cuts ahead the pages at least 1/HEAVY as heavy as the heaviest
#: first, then the others where a core would be idle
HEAVY = 4
#: among the pages given to :func:`_cut_pages`: it cuts those after it only on
#: what the build leaves of the cores (:func:`~handbook.core.writing_order.when_idle`)
WHEN_IDLE = ('', Path())


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _cut_pages(language_class: type[CardAwareChinese], options: dict[str, str],
               doctrees: Iterable[tuple[str, Path]], telling: Connection | None = None) -> None:
    """The process of :class:`CutsAhead`: each page's texts and their words,
    kept.  It stops at anything unexpected, quietly: the main process cuts
    what it has no words for, and reports what goes wrong there.  It closes
    its copy of *telling*, the main process's end of the pipe that tells it
    the pages read: should the main process end without saying so, the pipe
    ends, and so does this process."""
    try:
        if telling is not None:
            telling.close()
        os.nice(NICENESS)
        language = language_class(options)
        if language.cache is None or language.key is None:
            return
        for docname, path in doctrees:
            if (docname, path) == WHEN_IDLE:  # the pages after it, on what the build leaves
                when_idle()
                continue
            doctree = pickle.loads(path.read_bytes())
            texts = {node.astext() for node in doctree.findall(nodes.Text)}
            texts.update(node.astext() for node in doctree.findall(nodes.title))
            language.begin()
            write_cuts(ahead_file(language.cache, docname), language.key,
                       {text: language.split(text) for text in texts})
    except Exception:  # noqa: BLE001, S110 -- see the docstring
        pass


#: how much lower than the build's the priority of :class:`CutsAhead`'s process is
NICENESS = 10


class SavedCuts:
    """Each page's texts and their words, kept in the build's folder from one
    build to the next (:func:`cuts_file`): an edit indexes the edited page
    again (and the indexes whose toctrees list it), and jieba cuts only the
    texts the page did not have, on its dictionary read for those texts only
    (:mod:`handbook.search.dictionary`): on the benchmark corpus, a quarter
    of a second of the build after a one-line edit.  The words are kept
    under a key of everything they depend on (:attr:`CardAwareChinese.key`):
    another registry, another dictionary or another jieba, and the page is
    cut anew.  A page indexed is split with what its file and the file of
    :class:`CutsAhead` hold; its file keeps the words of the texts that
    :class:`CutsAhead` did not cut (all of them, where it did not run), and
    is written again when those are other texts: as the page is indexed, or,
    in a parallel write, once the main process waits for the last writing
    processes (:meth:`write_pending`)."""

    def __init__(self) -> None:
        # the page being indexed: its words kept by the last indexing, by CutsAhead
        self.own: dict[str, list[str]] = {}
        self.ahead: dict[str, list[str]] = {}
        # a parallel write's pages to keep, written while the main process waits
        self.pending: dict[Path, tuple[str, dict[str, list[str]]]] = {}

    def indexing(self, app: Sphinx, pagename: str) -> None:
        """``handbook-indexing``: the page's words kept, to the index's language."""
        self.own, self.ahead = {}, {}
        language = indexing_language(app)
        if language is None:
            return
        language.begin()
        if language.cache is not None and language.key is not None:
            self.own = _read_cuts(cuts_file(language.cache, pagename), language.key)
            self.ahead = _read_cuts(ahead_file(language.cache, pagename), language.key)
            language.learn(self.ahead)
            language.learn(self.own)

    def indexed(self, app: Sphinx, pagename: str) -> None:
        """``handbook-indexed``: keep the words of the page's texts that
        :class:`CutsAhead` did not keep, if they are other texts than last time."""
        language = indexing_language(app)
        if language is None or language.cache is None or language.key is None:
            return
        own = {text: words for text, words in language.page_cuts().items()
               if text not in self.ahead}
        if own.keys() != self.own.keys():
            path = cuts_file(language.cache, pagename)
            if app.builder.parallel_ok:  # written while the main process waits (write_pending)
                self.pending[path] = (language.key, own)
            else:
                write_cuts(path, language.key, own)
        self.own, self.ahead = {}, {}

    def write_pending(self, app: Sphinx, exception: BaseException | None = None) -> None:
        """``handbook-waiting`` (and ``build-finished``): keep the words of a
        parallel write's pages, while the main process waits for the last
        writing processes (0.1 s of its critical path on the benchmark corpus)."""
        pending, self.pending = self.pending, {}
        for path, (key, cuts) in pending.items():
            write_cuts(path, key, cuts)

    @staticmethod
    def forget(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str],
               removed: set[str]) -> list[str]:
        """``env-get-outdated``: the words of removed pages go."""
        for docname in removed:
            cuts_file(cache_folder(app), docname).unlink(missing_ok=True)
            ahead_file(cache_folder(app), docname).unlink(missing_ok=True)
        return []


def cache_folder(app: Sphinx) -> Path:
    """Where a build keeps its words and cuts for the next one."""
    return Path(app.doctreedir, 'handbook-search')


def cuts_file(folder: Path, pagename: str) -> Path:
    """The words of page *pagename* as its last indexing split its texts."""
    return folder / 'cuts' / f'{pagename}.marshal'


def ahead_file(folder: Path, pagename: str) -> Path:
    """The words of page *pagename* as :class:`CutsAhead` cut them."""
    return folder / 'cuts' / f'{pagename}.ahead.marshal'


def write_cuts(path: Path, key: str, cuts: dict[str, list[str]]) -> None:
    try:
        write_kept(path, key, cuts)
    except OSError:  # kept for the next build only: it cuts the page again
        pass


def _read_cuts(path: Path, key: str) -> dict[str, list[str]]:
    kept = read_kept(path, key)
    return kept[0] if kept and len(kept) == 1 and isinstance(kept[0], dict) else {}


def indexing_language(app: Sphinx) -> CardAwareChinese | None:
    """The search language of the build's index, if it is this one."""
    language = getattr(getattr(app.builder, 'indexer', None), 'lang', None)
    return language if isinstance(language, CardAwareChinese) else None


def bound_language(app: Sphinx, env: BuildEnvironment) -> type[CardAwareChinese]:
    """The search language for this build's registry."""
    names = tuple(registry_names(card_links.registry(env).cards()))
    replaced = sphinx.search.languages.get(CardAwareChinese.lang)
    return type('CardAwareChinese', (CardAwareChinese,),
                {'card_names': names, 'replaced': replaced, 'cache': cache_folder(app)})


def bind_registry(app: Sphinx, env: BuildEnvironment) -> None:
    """Register the search language for this build's registry (before the
    HTML builder makes its index, at each build)."""
    app.add_search_language(bound_language(app, env))


def unbind_registry(app: Sphinx, exception: BaseException | None) -> None:
    """Give Sphinx's table of search languages (a global) back as it was."""
    language = sphinx.search.languages.get(CardAwareChinese.lang)
    if isinstance(language, type) and issubclass(language, CardAwareChinese):
        sphinx.search.languages[CardAwareChinese.lang] = language.replaced


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.cards.links')
    app.setup_extension('handbook.core.writing_order')  # its handbook-indexing
    app.connect('env-updated', bind_registry)
    ahead = DictionaryAhead()
    app.connect('env-before-read-docs', ahead.count, priority=950)  # after reading_order's
    app.connect('env-merge-info', ahead.merged)
    saved = SavedCuts()
    app.connect(INDEXING, saved.indexing)
    app.connect(INDEXED, saved.indexed)
    app.connect('env-get-outdated', saved.forget)
    app.connect(WAITING, saved.write_pending)
    app.connect('build-finished', saved.write_pending)
    cuts = CutsAhead()
    # after the reading order's, and after what was alive is frozen (gc_policy)
    app.connect('env-before-read-docs', cuts.count, priority=1000)
    app.connect('source-read', cuts.read)
    app.connect('env-updated', cuts.start, priority=600)  # after bind_registry
    app.connect('build-finished', cuts.stop)
    app.connect('build-finished', unbind_registry)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
