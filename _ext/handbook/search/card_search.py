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

The speed package (:mod:`handbook.speed.search`) keeps each page's words
from one build to the next and cuts a serial build's pages ahead in a
process of its own; what it gives the index is the same.

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
import importlib
import json
import logging
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import sphinx.search
from sphinx.builders.html import StandaloneHTMLBuilder
from sphinx.search import SearchLanguage
from sphinx.search.en import SearchEnglish

from handbook.cards import links as card_links
from handbook.core.names import SEPARATOR_CLASS, fold

if TYPE_CHECKING:
    import jieba
    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment

    from handbook.cards.registry import Card

#: asked once per build for what makes the cutter (first answer):
#: ``(app, names, options) -> (names, options) -> object with cut_for_search``
CUTTER = 'handbook-search-cutter'
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
    by :func:`bind_registry`).  Sphinx's own (``sphinx.search.zh``) loads
    words into jieba's global dictionary; this one cuts with a tokenizer of
    its own (:func:`public_cutter`), made when it first cuts a text: a build
    that indexes no page never loads jieba's dictionary."""

    lang = 'zh'
    language_name = 'Chinese'
    stopwords = SearchEnglish.stopwords  # as Sphinx's Chinese search
    js_stemmer_rawcode = ''  # no English stemmer: the one Sphinx 9.0.4 wires up is broken
    js_stemmer_code = ('/* card_search: words are not stemmed */\n'
                       'var Stemmer = function () { this.stemWord = (word) => word; };\n')
    card_names: ClassVar[tuple[str, ...]] = ()
    replaced: ClassVar[type[SearchLanguage] | None] = None  # the language this one stands in for
    #: what makes the cutter: ``(names, options) -> object with cut_for_search``
    #: (:func:`public_cutter`, or what a ``handbook-search-cutter`` listener gives)
    make_cutter: ClassVar[Callable[[tuple[str, ...], dict[str, str]], Any] | None] = None

    def __init__(self, options: dict[str, str]) -> None:
        super().__init__(options)
        self.names = NameFinder(self.card_names)
        keys = json.dumps(sorted(self.names.keys), ensure_ascii=False)
        separators = json.dumps(SEPARATOR_CLASS)
        self.js_splitter_code = (f'const CARD_KEYS = {keys};\n'
                                 f'const CARD_NAME_SEPARATORS = {separators};\n'
                                 f'{SCRIPT.read_text(encoding="utf-8")}')
        self.cutter: Any = None  # made when a text is first cut
        self.short: dict[str, list[str]] = {}  # the short texts cut (split)
        self.kept: dict[str, bool] = {}  # jieba's words: whether each is kept (cut)
        self.known: dict[str, list[str]] = {}  # the page's texts cut already (learn)
        self.page: dict[str, list[str]] = {}  # the page's texts split so far (page_cuts)

    def split(self, input: str) -> list[str]:
        """The words of *input*; a short text is cut once per build (the
        index feeds each text node alone: the pieces between card links,
        such as 「 or 」的效果, the names and the dates recur on every page)."""
        if len(input) > MEMO_CHARS:
            words = self.known.get(input)
            if words is None:
                words = self.cut(input)
        else:
            words = self.short.get(input)
            if words is None:
                words = self.known.get(input)
                words = self.short[input] = self.cut(input) if words is None else words
        self.page[input] = words
        return list(words)

    def begin(self) -> None:
        """A page is about to be indexed: forget the last page's texts."""
        self.known = {}
        self.page = {}

    def learn(self, cuts: dict[str, list[str]]) -> None:
        """Split the page being indexed with *cuts* (text -> its words, as
        :meth:`split` gives them, cut by another build or process)."""
        if not self.known:
            self.known = cuts
        elif cuts:
            self.known = {**self.known, **cuts}  # neither of them changed

    def page_cuts(self) -> dict[str, list[str]]:
        """The texts of the page being indexed split so far, with their words."""
        return self.page

    def cut(self, input: str) -> list[str]:
        """jieba's words of *input* worth indexing, and the registry names in it."""
        if self.cutter is None:
            make = self.make_cutter or public_cutter
            self.cutter = make(self.card_names, self.options)
        kept, names = self.kept, self.names.keys
        words = []
        for word in (*self.cutter.cut_for_search(input), *_LATIN.findall(input)):
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


def add_words(tokenizer: jieba.Tokenizer, names: Iterable[str], options: dict[str, str]) -> None:
    """The card names (:func:`dictionary_words`) and the project's dictionary
    (``html_search_options['dict']``) added to *tokenizer*'s words."""
    for word in dictionary_words(names):
        tokenizer.add_word(word)
    if options.get('dict'):
        tokenizer.load_userdict(options['dict'])


def public_cutter(names: tuple[str, ...], options: dict[str, str]) -> jieba.Tokenizer:
    """A jieba tokenizer of this build's own, on jieba's dictionary and
    *names* (jieba's public API: its dictionary loaded from jieba's cache)."""
    import jieba  # imported once a page is indexed: a build that indexes none does without

    tokenizer = jieba.Tokenizer()
    with quiet_jieba():
        tokenizer.initialize()
        add_words(tokenizer, names, options)
    return tokenizer


@contextmanager
def quiet_jieba() -> Iterator[None]:
    """jieba logs its dictionary loading to stderr at DEBUG level."""
    logger = logging.getLogger('jieba')
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def indexes_in_chinese(app: Sphinx) -> bool:
    """Whether the build's builder indexes its pages with this search (an
    HTML builder with a search, in Chinese, as Sphinx picks the language)."""
    builder: Builder = app.builder
    language = app.config.html_search_language or app.config.language or ''
    return isinstance(builder, StandaloneHTMLBuilder) and bool(builder.search) \
        and CardAwareChinese.lang in (language, language.partition('_')[0])


def indexing_language(app: Sphinx) -> CardAwareChinese | None:
    """The search language of the build's index, if it is this one."""
    language = getattr(getattr(app.builder, 'indexer', None), 'lang', None)
    return language if isinstance(language, CardAwareChinese) else None


def bound_language(app: Sphinx, env: BuildEnvironment) -> type[CardAwareChinese]:
    """The search language for this build's registry (its cutter: a
    ``handbook-search-cutter`` listener's, else :func:`public_cutter`)."""
    names = tuple(registry_names(card_links.registry(env).cards()))
    replaced = registered_language()
    options = dict(app.config.html_search_options or {})
    make = app.events.emit_firstresult(CUTTER, names, options)
    return type('CardAwareChinese', (CardAwareChinese,),
                {'card_names': names, 'replaced': replaced,
                 'make_cutter': staticmethod(make) if make is not None else None})


def registered_language() -> type[SearchLanguage] | None:
    """The language Sphinx's table holds for Chinese, as a class: a dotted
    name (Sphinx's own, ``sphinx.search.zh.SearchChinese``) as a
    :func:`deferred` class, so that jieba, which that module imports, is
    not imported by a build that indexes nothing."""
    found = sphinx.search.languages.get(CardAwareChinese.lang)
    return deferred(found) if isinstance(found, str) else found


@functools.cache
def deferred(dotted: str) -> type[SearchLanguage]:
    """A class standing for the search language *dotted* (``module.Class``),
    imported when the class is first made an instance of, as Sphinx
    imports a dotted name of its table."""
    module, name = dotted.rsplit('.', 1)

    def make(cls: type, options: dict[str, str]) -> SearchLanguage:
        return getattr(importlib.import_module(module), name)(options)

    return type(name, (SearchLanguage,), {'lang': CardAwareChinese.lang, '__new__': make,
                                          '__module__': __name__, 'dotted': dotted})


def bind_registry(app: Sphinx, env: BuildEnvironment) -> None:
    """Register the search language for this build's registry (before the
    HTML builder makes its index, at each build; Sphinx's public
    :meth:`~sphinx.application.Sphinx.add_search_language`)."""
    app.add_search_language(bound_language(app, env))


def unbind_registry(app: Sphinx, exception: BaseException | None) -> None:
    """Register again the language this build's stood in for: a later build
    in the process without this extension gets Sphinx's Chinese search."""
    language = registered_language()
    if isinstance(language, type) and issubclass(language, CardAwareChinese) \
            and language.replaced is not None:
        app.add_search_language(language.replaced)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.cards.links')
    app.add_event(CUTTER)
    app.connect('env-updated', bind_registry)
    app.connect('build-finished', unbind_registry)
    return {'version': '2', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
