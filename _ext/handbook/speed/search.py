"""The search's words, cut once: jieba's dictionary shared and read in
shards, each page's words kept from build to build, pages cut ahead.

The search (:mod:`handbook.search.card_search`) cuts every text of every
page it indexes with jieba, on jieba's dictionary and the card names.  Here:

* **jieba's dictionary** is loaded once per process and lent to one build
  at a time, or read by first character for the few texts an edit cuts
  (:mod:`handbook.speed.jieba_dictionary`): the build's cutter is
  :class:`Cutter`, given to the search through its ``handbook-search-cutter``
  event (part ``jieba``);
* **each page's texts and their words are kept** in the doctree folder
  (:class:`SavedCuts`): a page indexed again (an edit) is split with them,
  and jieba cuts only its new texts.  They are kept under a key of what a
  cut depends on (jieba, its dictionary file, the card names, the project's
  dictionary: :func:`~handbook.speed.jieba_dictionary.words_key`); a
  registry whose names changed, another jieba, and the pages are cut anew
  (part ``jieba``);
* **a serial build's pages are cut ahead** by a process of its own on the
  core the read leaves idle, as the pages are read (:class:`CutsAhead`,
  part ``search-ahead``).  The main process never waits for it: what it
  finds no words for, it cuts.

:meth:`CardAwareChinese.split <handbook.search.card_search.CardAwareChinese.split>`
is a function of the text: the index is the same, with or without them.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes

from handbook.core.files import doctree_file
from handbook.search import card_search
from handbook.search.card_search import CardAwareChinese, indexes_in_chinese
from handbook.speed.jieba_dictionary import (
    jieba_dictionary,
    partial_dictionary,
    read_kept,
    save_words,
    whole_dictionary_loaded,
    words_key,
    write_kept,
)
from handbook.speed.processes import spare_core
from handbook.speed.session import uses
from handbook.speed.writing import INDEXED, INDEXING, WAITING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from multiprocessing.connection import Connection

    import jieba
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from handbook.speed.processes import Task

#: a build cuts pages ahead when it reads more than this many
PAGES_AHEAD = 5
#: a serial build cuts pages ahead when those it reads weigh this much (their sources)
AHEAD_BYTES = 128 * 1024
#: how much lower than the build's the priority of the cutting process is
NICENESS = 10


def cache_folder(app: Sphinx) -> Path:
    """Where a build keeps its words and cuts for the next one."""
    return Path(app.doctreedir, 'handbook-search')


def cuts_file(folder: Path, pagename: str) -> Path:
    """The words of page *pagename* as its last indexing split its texts."""
    return folder / 'cuts' / f'{pagename}.marshal'


def ahead_file(folder: Path, pagename: str) -> Path:
    """The words of page *pagename* as :class:`CutsAhead` cut them."""
    return folder / 'cuts' / f'{pagename}.ahead.marshal'


class Cutter:
    """A build's jieba on the shared dictionary (part ``jieba``): read by
    first character where this process has not loaded it whole and the
    words of the last build are kept (an edit), else the whole dictionary,
    lent again if another build borrowed it since."""

    def __init__(self, names: tuple[str, ...], options: dict[str, str], folder: Path,
                 key: str | None) -> None:
        self.names, self.options, self.folder, self.key = names, options, folder, key
        self.tokenizer: jieba.Tokenizer | None = None
        self.need: Callable[[str], None] | None = None
        if key is not None and not whole_dictionary_loaded():
            partial = partial_dictionary(folder, key)
            if partial is not None:
                self.tokenizer, self.need = partial.tokenizer(), partial.need

    def lend(self) -> jieba.Tokenizer:
        dictionary = jieba_dictionary()
        self.tokenizer = dictionary.lend(self, lambda tokenizer: card_search.add_words(
            tokenizer, self.names, self.options))
        self.need = None
        if self.key is not None:
            try:
                save_words(self.folder, self.key, dictionary, self.tokenizer.total)
            except OSError:  # kept for the next build only: it loads the whole dictionary
                pass
        return self.tokenizer

    def cut_for_search(self, text: str) -> Iterable[str]:
        tokenizer = self.tokenizer
        if self.need is not None:
            try:
                self.need(text)
            except (ValueError, EOFError, TypeError):  # a damaged file: the whole dictionary
                tokenizer = self.lend()
        elif tokenizer is None or jieba_dictionary().holder is not self:
            tokenizer = self.lend()
        return tokenizer.cut_for_search(text)


def make_cutter(app: Sphinx, names: tuple[str, ...], options: dict[str, str]
                ) -> Callable[[tuple[str, ...], dict[str, str]], Cutter] | None:
    """``handbook-search-cutter``: this build's :class:`Cutter`."""
    if uses(app, 'jieba') is None:
        return None
    folder = cache_folder(app)
    key = words_key(names, options.get('dict'))
    return lambda names, options: Cutter(names, options, folder, key)


def language_key(language: CardAwareChinese) -> str | None:
    """The key the language's words are kept under (None: not kept)."""
    return words_key(language.card_names, language.options.get('dict'))


def indexing_language(app: Sphinx) -> CardAwareChinese | None:
    """The search language of the build's index, if it is the handbook's."""
    language = getattr(getattr(app.builder, 'indexer', None), 'lang', None)
    return language if isinstance(language, CardAwareChinese) else None


class SavedCuts:
    """Each page's texts and their words, kept in the build's folder from one
    build to the next (:func:`cuts_file`).  A page indexed is split with what
    its file and the file of :class:`CutsAhead` hold; its file keeps the
    words of the texts that :class:`CutsAhead` did not cut, and is written
    again when those are other texts: as the page is indexed, or, in a
    parallel write, once the main process waits for the last writing
    processes (:meth:`write_pending`)."""

    def __init__(self) -> None:
        self.own: dict[str, list[str]] = {}
        self.ahead: dict[str, list[str]] = {}
        self.key: str | None = None
        self.pending: dict[Path, tuple[str, dict[str, list[str]]]] = {}

    def indexing(self, app: Sphinx, pagename: str) -> None:
        """``handbook-speed-indexing``: the page's words kept, to the index's language."""
        self.own, self.ahead = {}, {}
        language = indexing_language(app)
        if language is None or uses(app, 'jieba') is None:
            return
        language.begin()
        self.key = language_key(language)
        if self.key is not None:
            folder = cache_folder(app)
            self.own = read_cuts(cuts_file(folder, pagename), self.key)
            self.ahead = read_cuts(ahead_file(folder, pagename), self.key)
            language.learn(self.ahead)
            language.learn(self.own)

    def indexed(self, app: Sphinx, pagename: str) -> None:
        """``handbook-speed-indexed``: keep the words of the page's texts that
        :class:`CutsAhead` did not keep, if they are other texts than last time."""
        language = indexing_language(app)
        if language is None or self.key is None or uses(app, 'jieba') is None:
            return
        own = {text: words for text, words in language.page_cuts().items()
               if text not in self.ahead}
        if own.keys() != self.own.keys():
            path = cuts_file(cache_folder(app), pagename)
            if app.builder.parallel_ok:  # written while the main process waits
                self.pending[path] = (self.key, own)
            else:
                write_cuts(path, self.key, own)
        self.own, self.ahead = {}, {}

    def write_pending(self, app: Sphinx, exception: BaseException | None = None) -> None:
        """``handbook-speed-waiting`` (and ``build-finished``): keep the words
        of a parallel write's pages while the main process waits."""
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


def write_cuts(path: Path, key: str, cuts: dict[str, list[str]]) -> None:
    try:
        write_kept(path, key, cuts)
    except OSError:  # kept for the next build only: it cuts the page again
        pass


def read_cuts(path: Path, key: str) -> dict[str, list[str]]:
    kept = read_kept(path, key)
    return kept[0] if kept and len(kept) == 1 and isinstance(kept[0], dict) else {}


class CutsAhead:
    """A serial build's pages cut for the search by a process of its own,
    from their doctrees as read, into the files of :class:`SavedCuts`
    (``<page>.ahead.marshal``), where the main process finds them when it
    indexes the page, if they are there by then (it never waits).  What the
    doctree as read does not hold as such (a reference's title, resolved
    later) is cut by the main process.  A serial build leaves the other core
    idle while it reads: the process starts before the read (forked from a
    main process that holds no page yet) and cuts each page once it is read
    (the main process tells it at the next page, and at the end of the
    read), where the pages read weigh :data:`AHEAD_BYTES` or more and the
    machine has a core to spare.  (A parallel build keeps its cores busy:
    cutting ahead there earned too little, and it does not.)"""

    def __init__(self) -> None:
        self.task: Task | None = None
        self.docnames: list[str] = []  # the pages this build reads
        self.telling: Connection | None = None  # a serial build's: the pages read, told
        self.reading: str | None = None  # a serial build's: the page being read

    def count(self, app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
        """``env-before-read-docs``: the pages to read; a serial build's process starts."""
        self.task, self.telling, self.reading = None, None, None
        self.docnames = list(docnames)
        session = self.session(app)
        if session is None or app.parallel > 1 or not spare_core() \
                or sum(size(Path(env.doc2path(name))) for name in docnames) < AHEAD_BYTES:
            return
        language = card_search.bound_language(app, env)  # bind_registry's comes later
        if words_key(language.card_names,
                     (app.config.html_search_options or {}).get('dict')) is None:
            return  # jieba has no cache yet: nothing to key the words with
        context = session.processes.context
        assert context is not None  # spare_core: processes fork
        receiving, self.telling = context.Pipe(duplex=False)
        doctrees = ((docname, doctree_file(env, docname))
                    for docname in iter(receiving.recv, None))
        self.start(app, language, doctrees, self.telling)
        receiving.close()  # the process's end

    def session(self, app: Sphinx) -> Any:
        session = uses(app, 'search-ahead')
        if session is None or not session.uses('jieba') or len(self.docnames) <= PAGES_AHEAD \
                or not indexes_in_chinese(app):
            return None
        return session

    def read(self, app: Sphinx, docname: str, source: list[str]) -> None:
        """``source-read``: a serial build reads *docname*, so the page before is read."""
        if self.telling is not None:
            if self.reading is not None:
                self.tell(self.reading)
            self.reading = docname

    def read_all(self, app: Sphinx, env: BuildEnvironment) -> list[str]:
        """``env-updated``, the pages read: the process is told so."""
        if self.telling is not None:
            if self.reading is not None:
                self.tell(self.reading)
            self.tell(None)  # the end
            self.stop_telling()
        return []

    def start(self, app: Sphinx, language: type[CardAwareChinese],
              doctrees: Iterable[tuple[str, Path]], telling: Connection | None) -> None:
        options = dict(app.config.html_search_options or {})
        self.task = self.session(app).processes.start(
            'cutting pages for the search ahead', cut_pages,
            (language, options, cache_folder(app), doctrees, telling))

    def tell(self, docname: str | None) -> None:
        """Tell the process that page *docname* is read (None: all are)."""
        if self.telling is None:
            return
        try:
            self.telling.send(docname)
        except OSError:  # the process ended: reported when the pages are written
            self.stop_telling()

    def stop_telling(self) -> None:
        if self.telling is not None:
            self.telling.close()
        self.telling = self.reading = None

    def finished(self, app: Sphinx, exception: BaseException | None) -> None:
        """``build-finished``: a process that ended in an error is reported
        (the main process cut those pages itself); one still running is
        stopped with the build's session."""
        self.stop_telling()
        task, self.task = self.task, None
        if task is not None and task.ended():
            task.result('cut their texts in the main process')


def size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def cut_pages(work: tuple[type[CardAwareChinese], dict[str, str], Path,
                          Iterable[tuple[str, Path]], Connection | None]) -> None:
    """The process of :class:`CutsAhead`: each page's texts and their words,
    kept.  It closes its copy of *telling*, the main process's end of the
    pipe that tells it the pages read: should the main process end without
    saying so, the pipe ends, and so does this process."""
    language_class, options, folder, doctrees, telling = work
    if telling is not None:
        telling.close()
    os.nice(NICENESS)
    language = language_class(options)
    key = language_key(language)
    if key is None:
        return
    for docname, path in doctrees:
        try:
            doctree = pickle.loads(path.read_bytes())
        except FileNotFoundError:  # a page removed since: nothing to cut
            continue
        texts = {node.astext() for node in doctree.findall(nodes.Text)}
        texts.update(node.astext() for node in doctree.findall(nodes.title))
        language.begin()
        write_cuts(ahead_file(folder, docname), key,
                   {text: language.split(text) for text in texts})


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect(card_search.CUTTER, make_cutter)
    saved = SavedCuts()
    app.connect(INDEXING, saved.indexing)
    app.connect(INDEXED, saved.indexed)
    app.connect('env-get-outdated', saved.forget)
    app.connect(WAITING, saved.write_pending)
    app.connect('build-finished', saved.write_pending)
    cuts = CutsAhead()
    # after what was alive is frozen (gc_policy)
    app.connect('env-before-read-docs', cuts.count, priority=1000)
    app.connect('source-read', cuts.read)
    app.connect('env-updated', cuts.read_all, priority=600)  # after bind_registry
    app.connect('build-finished', cuts.finished)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
