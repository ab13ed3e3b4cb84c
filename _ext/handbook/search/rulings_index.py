"""Ruling search: the search page answers with the rulings themselves, then
with the sections that say what was searched, from an index cut in shards.

**What the reader gets.**  The search page shows a search box of its own,
which answers as the reader types, and the rulings that match, each as one
item: the ruling's text with the matches highlighted, its dates as written,
small labels for its status (class ``ruling-status``: 已推翻 for an
overturned ruling, else 裁定变更, 已过时 and 调整中 as they apply), ``页面 ›
小节`` and a link to its
permalink (``page.html#ruling-…``).  Twenty are shown, the next twenty on
request.  The order is newest first (a ruling's newest date; rulings of one
date in page order); the switch 相关度 orders by relevance: first the rulings
that *link* the most query terms as cards, then the most occurrences of the
terms in the text, then the shortest text, then newest first.  Below them,
in Sphinx's place and shape (``#search-results``), the sections whose own
text says every term, ``页面 > 小节``, each linking to its section (to the
page, for a first-level section), with a snippet around the match taken
from the index once the result is on screen.  No result fetches a page:
the search page does not load Sphinx's ``searchindex.js`` nor its scripts
(``templates/search.html``), and ``html_show_search_summary`` is off.
Pressing Enter reloads the page with the query.

**Sphinx's own index holds nothing.**  Nothing reads it, and filling it
costs a Chinese build most of its writing time (jieba cuts every text of
every page written).  So every page is ``nosearch`` to Sphinx, the public
way to leave a page out of its index (Sphinx then writes a
``searchindex.js`` with the pages' names and no words).  A page's own
``:nosearch:`` (or ``:no-search:``) still leaves it out of this index: it
is noted as the page is read, under the page's metadata key
``handbook-nosearch``, before the page is marked for Sphinx.

Every page's sidebar search box answers as the reader types too: see
:mod:`handbook.search.search_box`.

**Matching.**  A query is cut at spaces (only) into terms; a run of words
that is a card's spelling once joined (``DDD 反骨王 列奥尼达``) is one term.
Terms are folded with :func:`handbook.core.names.fold` (in the browser
``core/names.js``, the same function), so spacing, width, case and middle
dots never matter.  A ruling matches when every term is a substring of one
of its texts -- its text, the registry keys of the cards it links and their
names as written -- or is one of its dates.  So a phrase (``伤害步骤``),
part of a card name (``反骨王``), a date and two card names (``月之书
强制脱出装置``: the rulings naming both) are all found.  A section matches
when each term is in its text outside its rulings
(:mod:`handbook.search.section_texts`) or in one of its rulings.

**One ruling once.**  A ruling that is in several places (the same text
and cards, :mod:`handbook.rulings.same`) is one result, shown where it is
first (newest first; then in page order), with its other places after
``也见于``; it is found by the dates of each.

**Every spelling.**  A term that is a spelling of a card the pages link --
its registry name, a spelling variant, an alias in another language or
script (``旋風`` for ``旋风``: the registry's ``zh_TW=`` aliases), a name as
pages write it, or any of these in the other script (``誘餌人偶·蓪`` with
no alias in the registry: :mod:`handbook.search.other_scripts`) -- finds
every spelling of that card.  Any other text in Traditional characters
(``傷害步驟``, ``脫出裝置``) finds what it says in a Simplified build: a term
that finds nothing as typed is searched again with the characters of the
part ``t`` in the index's script.  A date is found
however it is written: ``17/3/24``, ``2017/3/24``, ``17/03/24``,
``2017-03-24``, ``2017.3.24``, ``2017年3月24日``; ``2017-03`` or ``17/3``
finds the month (and ``2017`` the year), besides the texts that hold it; a
day written in full is found by its date only.  A
query naming a card shows a link to the card's page
(``cards/<id>.html``, :mod:`handbook.listings.card_pages`) before the
rulings.

**The Traditional edition.**  The index of a build holds that build's texts:
in a ``zh_TW`` build, the translated rulings and sections.  OpenCC cannot
run in the browser, so the build adds to each text that OpenCC's ``tw2s``
changes its Simplified counterpart, searched but never shown; a query in
either script finds it (where the two texts fold to the same length, as
they almost always do, a match in the counterpart is highlighted at the
same place of the text shown).  Builds in other languages index their text
alone.

**The index.**  ``_static/rulings-index.js``, the *manifest*, is small: the
labels, the pages and sections, the counts, the number of shards, the
index's version (a digest of its parts: the parts' addresses end in
``?v=<version>``) and its epoch (a digest of how a clean build laid the
documents out, the number of shards and the bigrams alone, kept by the
incremental builds after it: every part holds it, and a part of another
epoch, which a stale manifest would mix with newer parts, has the manifest
loaded again; so does an id the manifest's counts do not hold, or one a
part lacks: a ruling added since)::

    RulingSearch.setIndex({"format": 4, "version": "…", "epoch": "…", "labels": {…},
      "shards": 64, "chars": 16, "chunk": 4, "rulings": 473, "texts": 120,
      "pages": [[uri, title, searchable], …],
      "sections": [[page, id, title, top], …], "alone": ["效果", …], "script": 1})

The rest is in ``_static/search/`` (:mod:`handbook.search.shards`): the
shards (``k<i>.js``: bigrams, dates, card spellings; ``u<i>.js``:
characters; ``g<code points>.js``: each a bigram of the manifest's
``alone``, in most documents), the
rulings' chunks (``r<i>.js``: each ruling ``[text, counterpart, cards,
places]``, a place ``[section, anchor, dates as written, ISO dates,
flags]``; flags 1 changed, 2 overturned, 4 superseded, 8 open; and, where
some of its words are struck, their ranges of the text, ``[[start, end],
…]`` in UTF-16 units, as the script slices it), the section texts' chunks
(``b<i>.js``: each ``[section, text]``, a paragraph, a title, a line, …), the sections of each
document (``s.js``) and, in a Simplified build, the Traditional characters of
its texts' characters (``t.js``: ``[others, own]``, two strings; the
manifest's ``script`` is 1).  A query loads the manifest, then the shards of its
terms, then the chunks of the results it shows: a few dozen kilobytes.

**The documents' ids.**  The section texts come first (``0`` to ``texts`` −
1, the last few of them spare ids, empty), then the rulings, oldest first
(rulings of one date in the reverse of page order: newest first is the
reverse of the ids).  That is a clean build's layout; an incremental build
keeps each document's id and ranks the ones it adds
(:mod:`handbook.search.layout`): the manifest's ``ranks`` (``[[id, rank],
…]``) and ``section_ranks`` give the place in the order of the ids whose
place is not their id, and a section number the pages no longer have is
``null`` in ``sections``.  So an edit writes only the parts that hold a
document it changed, added or removed.

The index is made again when a page was read again or removed, a registry
row changed, or the manifest is missing (``html-collect-pages``, before the
search page, which names the manifest with its checksum); a file is
written only when its content changed, and a part the index no longer has
is removed.  Where an edit changed, added or removed a few documents, the
last index's shards are patched, not made again
(:mod:`handbook.search.patch`, from what the last build kept:
:data:`KEPT_INDEX`, its layout included).  The current edition (``-t
current``) leaves overturned rulings out, as it does everywhere.

Configuration: none.  It sets ``html_search_options['dict']`` to ``''``
where ``conf.py`` does not set it (see :func:`configure`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.metadata
import json
import os
import pickle
from pathlib import Path
from urllib.parse import unquote
from typing import TYPE_CHECKING, Any

from sphinx.locale import get_translation

from handbook.cards import links as card_links
from handbook.core import names as names_module
from handbook.core.files import write_atomically, write_if_changed
from handbook.core.names import SEPARATOR_CLASS, fold
from handbook.render.anchors import page_title
from handbook.listings.card_index import card_page
from handbook.rulings import lines as ruling_lines
from handbook.rulings import same
from handbook.search import layout, other_scripts, patch, shards
from handbook.search.section_texts import page_texts
from handbook.store import changes, store

if TYPE_CHECKING:
    from collections.abc import Callable

    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment

    from handbook.rulings.lines import Ruling

_ = get_translation('handbook')

#: bump when the shape of the index changes (3: the texts' ids first, the rulings
#: oldest first; 4: ids that stay from build to build, ranks: layout.py)
FORMAT = 4
#: the environment's version: a new index format, or a change in what a
#: page's reading leaves for the index or in what the index makes of it,
#: reads every page again, so that the index is made anew (bump the last
#: digits for the latter; 2: card spellings in the other script)
ENV_VERSION = FORMAT * 100 + 2
#: Sphinx's page metadata keys that leave a page out of its search index
NOSEARCH = ('nosearch', 'no-search')
#: the metadata key that says the page itself asked to be left out
OWN_NOSEARCH = 'handbook-nosearch'
#: the files the search page loads, in the HTML folder's _static/
INDEX = 'rulings-index.js'
PARTS = 'search'
SCRIPT_NAME = 'rulings_search.js'
#: asked before the index is made, whether it was made already in this
#: build (first answer; ``(app) -> True``): the speed package makes it in a
#: process of its own while the pages are written (:mod:`handbook.speed.index_aside`)
INDEX_MADE = 'handbook-search-index-made'
#: what a build keeps of its index for the next to patch, in the doctree folder
KEPT_INDEX = 'handbook-search-index.pickle'
SCRIPT = Path(__file__).with_name(SCRIPT_NAME)
NAMES_SCRIPT = Path(__file__).parents[1] / 'core' / 'names.js'
TEMPLATES = Path(__file__).parents[1] / 'templates'
CHANGED, STRUCK, SUPERSEDED, OPEN = 1, 2, 4, 8
SEPARATOR = shards.SEPARATOR


def labels() -> dict[str, str]:
    """The search page's words, in the build's language."""
    return {name: str(text) for name, text in {
        'heading': _('裁定'),
        'found': _('找到 {count} 条裁定'),
        'none': _('没有找到裁定。'),
        'order': _('排序'),
        'newest': _('最新优先'),
        'relevance': _('相关度'),
        'more': _('显示更多裁定'),
        'changed': _('裁定变更'),
        'struck': _('已推翻'),
        'superseded': _('已过时'),
        'open': _('调整中'),
        'query': _('搜索裁定'),
        'placeholder': _('卡名、词句或日期，如 17/3/24'),
        'enter': _('按回车键也搜索页面和小节。'),
        'card': _('「{name}」的卡片页面'),
        'also': _('也见于'),
        'unavailable': _('无法载入这次搜索所需的索引（离线时，只有读过的页面和搜过的内容可用）。'),
    }.items()}


@functools.cache
def _opencc(config: str) -> Callable[[str], str]:
    import opencc  # only a Traditional build needs it

    return opencc.OpenCC(config).convert


def counterpart(language: str | None) -> Callable[[str], str] | None:
    """The conversion to the other script of a build's texts, if it has one."""
    return _opencc('tw2s') if other_scripts.traditional(language) else None


def utf16(text: str) -> int:
    """The length of *text* as a script counts it (UTF-16 code units)."""
    return len(text.encode('utf-16-le')) // 2


def dates_of(ruling: Ruling) -> tuple[str, str]:
    """A ruling's dates as written and as ISO dates, each date once
    (:attr:`~handbook.rulings.lines.Ruling.shown_dates`)."""
    shown = ruling.shown_dates
    return ' '.join(text for text, _ in shown), ' '.join(date or '' for _, date in shown)


def flags_of(ruling: Ruling) -> int:
    """What a result's labels say of a ruling: an overturned ruling (every
    word struck) is 已推翻 alone; else 裁定变更 where it is flagged as changed
    (some struck words, a word of ``changed_markers``), 已过时, 调整中."""
    status = ruling.status
    if 'overturned' in status:
        return STRUCK
    return ((CHANGED if ruling.changed else 0) | (SUPERSEDED if 'superseded' in status else 0)
            | (OPEN if 'open' in status else 0))


def shown(app: Sphinx, ruling: Ruling) -> bool:
    """Whether the ruling is in this edition's index."""
    return not (ruling.struck and app.tags.has('current'))


def searchable(builder: Builder) -> bool:
    """An HTML build with a search page (not epub, not singlehtml)."""
    return (builder.format == 'html' and not getattr(builder, 'embedded', False)
            and builder.name != 'singlehtml' and bool(getattr(builder, 'search', False)))


class Index:
    """The index of one build: its manifest and parts (see the module docstring)."""

    def __init__(self, app: Sphinx, builder: Builder) -> None:
        env: BuildEnvironment = app.env
        self.env = env
        self.convert = counterpart(app.config.language)
        self.pages: list[list[Any]] = []
        self.page_of: dict[str, int] = {}
        self.sections: list[list[Any]] = []
        self.section_of: dict[tuple[str, str], int] = {}
        #: each section's key, by its number: its page and id
        self.section_keys: list[tuple[str, str]] = []
        self.folded: dict[str, str] = {}
        order = ruling_lines.page_order(env)
        by_page = ruling_lines.rulings(env)
        rulings: list[tuple[int, Ruling]] = []  # (page order, ruling)
        texts: list[tuple[int, str]] = []  # (section, block of text)
        for position, docname in enumerate(order):
            found = [r for r in by_page.get(docname, ()) if shown(app, r)]
            kept = page_texts(env, docname)
            searchable = OWN_NOSEARCH not in env.metadata.get(docname, {})
            if not found and (kept is None or not kept.texts or not searchable):
                continue
            page = self.page(docname, builder, searchable)
            numbers = []
            for ident, title, top in (kept.sections if kept is not None else ()):
                numbers.append(self.section(page, docname, ident, title, top))
            if searchable and kept is not None:
                texts.extend((numbers[at], block) for at, blocks in kept.texts for block in blocks)
            rulings.extend((position, r) for r in found)
        # newest first; rulings of one date in page order
        rulings.sort(key=lambda pr: (pr[0], pr[1].index))
        rulings.sort(key=lambda pr: pr[1].date or '', reverse=True)
        #: each ruling once, with every place it is in (handbook.rulings.same)
        self.rulings = same.grouped(r for _, r in rulings)
        self.texts = texts

    def fold(self, text: str) -> str:
        folded = self.folded.get(text)
        if folded is None:
            folded = self.folded[text] = fold(text)
        return folded

    def page(self, docname: str, builder: Builder, searchable: bool) -> int:
        self.page_of[docname] = len(self.pages)
        self.pages.append([builder.get_target_uri(docname), page_title(self.env, docname),
                           1 if searchable else 0])
        return self.page_of[docname]

    def section(self, page: int, docname: str, ident: str, title: str, top: bool) -> int:
        key = (docname, ident)
        if key not in self.section_of:
            self.section_of[key] = len(self.sections)
            self.sections.append([page, ident, title, 1 if top else 0])
            self.section_keys.append(key)
        return self.section_of[key]

    def ruling_section(self, ruling: Ruling) -> int:
        key = (ruling.docname, ruling.section_id)
        if key in self.section_of:
            return self.section_of[key]
        return self.section(self.page_of[ruling.docname], ruling.docname, ruling.section_id,
                            ruling.section_title, False)

    def counterpart(self, text: str) -> str | None:
        """*text* in the other script, where the build has one and it differs."""
        other = self.convert(text) if self.convert is not None else None
        return None if other == text else other

    def haystack(self, text: str, extra: list[str] = ()) -> tuple[str, str | None]:
        """A document's haystack from its text (and its counterpart), and *extra*
        folded texts not in it already; the counterpart, where there is one."""
        folded = self.fold(text)
        fields = [folded]
        other = self.counterpart(text)
        if other is not None:
            fields.append(self.fold(other))
        fields.extend(e for e in dict.fromkeys(extra) if e and e not in folded)
        return SEPARATOR.join(fields), other

    def ruling_entry(self, group: list[Ruling], haystack: str | None = None,
                     ) -> tuple[list[Any], str]:
        """The chunk entry of a ruling (in every place it is in) and its
        haystack (*haystack*: the last index's, where it is the same: :class:`_Earlier`)."""
        ruling = group[0]
        if haystack is None:
            names = [self.fold(spelled) for r in group for key, name in r.cards
                     for spelled in (key, name)]
            haystack, other = self.haystack(ruling.text, names)
        else:
            other = self.counterpart(ruling.text)
        keys = list(dict.fromkeys(key for key, _name in ruling.cards))
        places = [[self.ruling_section(r), r.anchor, *dates_of(r), flags_of(r)] for r in group]
        entry = [ruling.text, other or '', keys, places]
        if ruling.struck_spans:  # some of its words struck: where, as the script counts
            entry.append([[utf16(ruling.text[:start]), utf16(ruling.text[:end])]
                          for start, end in ruling.struck_spans])
        return entry, haystack

    def spellings(self, app: Sphinx) -> dict[str, list[Any]]:
        """Every folded spelling of each card the pages link: ``[key, card page
        address or '', name shown, [every spelling]]``."""
        registry = card_links.registry(self.env)
        builder = app.builder
        linked: dict[str, dict[str, None]] = {}
        # in the pages' name order, not the order they were read in (a -j
        # build's processes read them in another)
        for _docname, record in sorted(store(self.env).pages.items()):
            for key, written in record.cards:
                linked.setdefault(key, {})[self.fold(written)] = None
        if registry is not None:
            for spelling, card in registry.items():
                if card.key in linked:
                    linked[card.key][spelling] = None
            cards = {key: registry.get(key) for key in linked}
        else:
            cards = {}
        out: dict[str, list[Any]] = {}
        for key, spelled in linked.items():
            card = cards.get(key)
            if card is not None:
                spelled.update((self.fold(alias), None) for _lang, alias in card.aliases)
                spelled[card.key] = None
            names = sorted(s for s in spelled if s)
            page = card_page(self.env, key)
            value = [key, unquote(builder.get_target_uri(page)) if page else '',
                     card.name_in(app.config.language) if card is not None else key, names]
            for spelling in names:
                out.setdefault(spelling, value)
        # the same spellings in the other script find the card too, after every
        # spelling of the registry and the pages (a variant never takes one's
        # place), in the table's order (where two cards' variants meet, the first's)
        converted = other_scripts.variants(app, out)
        for spelling in list(out):
            for variant in converted.get(spelling, ()):
                out.setdefault(self.fold(variant), out[spelling])
        return out

    def parts(self, app: Sphinx, kept: patch.Kept | None = None,
              read: Callable[[str], str | None] | None = None,
              ) -> tuple[dict[str, Any], dict[str, str], patch.Kept]:
        """The manifest, ``{part name: data as JSON}``, and what the next
        build keeps of them.  With *kept* (the last build's) and *read* (its
        parts' JSON), the documents keep their ids where they can
        (:mod:`handbook.search.layout`) and the shards are patched
        (:mod:`handbook.search.patch`); else the index is laid out whole."""
        # the documents in their order: the texts in page order (each known by
        # its section and its place in it), then the rulings, oldest first
        earlier = _Earlier(self, kept)
        texts: list[tuple[Any, int, str, str]] = []  # (key, section, block, haystack)
        blocks: dict[int, int] = {}
        for section, block in self.texts:
            blocks[section] = place = blocks.get(section, -1) + 1
            key = (self.section_keys[section], place)
            haystack = earlier.text(key)
            texts.append((key, section, block,
                          haystack if haystack is not None else self.haystack(block)[0]))
        rulings: list[tuple[Any, list[Any], str]] = []  # (key, entry, haystack)
        for group in reversed(self.rulings):
            key = (group[0].docname, group[0].anchor)
            entry, haystack = self.ruling_entry(group, earlier.ruling(key, group))
            rulings.append((key, entry, haystack))
        keys = ([key for key, *_ in texts], [key for key, *_ in rulings], self.section_keys)
        spellings = {spelling: shards.dumps(value)
                     for spelling, value in self.spellings(app).items()}
        laid = None
        patched = None
        if kept is not None and read is not None and kept.layout is not None:
            placed = layout.kept(kept.layout, *keys)
            if placed is not None:
                laid = _Laid(self, placed, keys, texts, rulings)
                patched = patch.patch(kept, laid.haystacks, laid.months, spellings, read)
                data = _patched_shards(kept, patched, read) if patched is not None else None
                if data is None:
                    laid = patched = None
        if laid is None:
            laid = _Laid(self, layout.whole(*keys), keys, texts, rulings)
            postings = shards.Postings()
            for doc, haystack in enumerate(laid.haystacks):
                if haystack:
                    postings.add(doc, haystack)
            made = shards.shards(postings, laid.months, spellings)
            data = {f'{kind}{number}': text for kind, (_count, parts, _size) in made.items()
                    for number, text in parts.items()}
            counts = {kind: count for kind, (count, _texts, _size) in made.items()}
            sizes = {kind: size for kind, (_count, _texts, size) in made.items()}
        # the bigrams that are parts of their own (the patch keeps them as they were)
        alone = sorted(shards.alone_gram(name) for name in data if name[0] == 'g')
        if patched is None:
            # how the ids are laid out and the shards' keys (a page's script
            # that finds an id its manifest does not hold, or a part without
            # it, loads the manifest again: rulings_search.js's stale())
            epoch = shards.version([str(counts['k']), str(counts['u']), str(shards.CHUNK),
                                    repr(laid.layout), *alone])
        else:
            counts, sizes, epoch = kept.counts, patched[1], kept.epoch
        # (a chunk of empty ids alone, the texts' spare ones: no part, never asked for)
        for kind, entries_of in (('r', laid.ruling_entries), ('b', laid.text_entries)):
            for name, entries in shards.chunks(entries_of, kind):
                if any(entry is not None for entry in entries):
                    data[name] = shards.dumps(entries)
        data['s'] = shards.dumps(laid.doc_sections)
        # the other script's characters, for a term that finds nothing as typed (the
        # characters gathered a text at a time: a set per text at once took 75 MB)
        used: set[str] = set()
        for haystack in laid.haystacks:
            used.update(haystack)
        table = other_scripts.character_table(app, used)
        if table:
            data['t'] = shards.dumps([''.join(table), ''.join(table.values())])
        version = shards.version(f'{name}\0{text}' for name, text in sorted(data.items()))
        manifest = {'format': FORMAT, 'version': version, 'epoch': epoch, 'labels': labels(),
                    'shards': counts['k'], 'chars': counts['u'], 'chunk': shards.CHUNK,
                    'rulings': len(laid.layout.rulings.keys), 'texts': len(laid.layout.texts.keys),
                    'pages': self.pages, 'sections': laid.sections,
                    'alone': alone, 'script': 1 if table else 0}
        if laid.layout.rank_count():  # an incremental build's: see layout.py
            manifest['ranks'] = sorted(laid.layout.ranks().items())
            manifest['section_ranks'] = sorted(laid.layout.sections.ranks.items())
        keep = patch.Kept(epoch=epoch, haystacks=laid.haystacks, months=laid.months,
                          spellings=spellings, counts=counts, sizes=sizes, version=version,
                          shards=sorted(name for name in data if name[0] in 'kug'),
                          patched=patched is not None,
                          layout=laid.layout,
                          read={doc: earlier.store.read_in(doc) for doc in self.env.found_docs},
                          folding=folding(self.convert is not None),
                          places={(group[0].docname, group[0].anchor): len(group)
                                  for group in self.rulings if len(group) > 1})
        return manifest, data, keep


@functools.cache
def folding(converts: bool) -> str:
    """What folds the index's texts: :func:`handbook.core.names.fold`'s
    module, and the conversion to the other script where the build has one
    (a haystack kept from a build that folded otherwise is not reused)."""
    parts = [Path(names_module.__file__).read_text(encoding='utf-8')]
    if converts:
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            parts.append(importlib.metadata.version('opencc'))
    return hashlib.sha256('\0'.join(parts).encode()).hexdigest()


class _Earlier:
    """The haystacks of the last index (*kept*) that this build's would be
    again, for :meth:`Index.parts` to take rather than fold the texts anew
    (folding 15,000 rulings and 10,000 paragraphs was most of an edit's
    index): a document's whose key is the same and whose page -- every page
    of a ruling's places -- was last read in the build it had last been
    read in when that index was made (the store's
    :meth:`~handbook.store.HandbookStore.read_in`, each build's own: a
    build that stopped before its index, or that made no index, read
    pages too), folded the same way (:func:`folding`); of a ruling in
    several places, only with as many places (a place gone to a page read
    since took its names, spelled its way, out of the haystack)."""

    def __init__(self, index: Index, kept: patch.Kept | None) -> None:
        self.store = store(index.env)
        self.read: dict[str, Any] = {}
        self.texts: dict[Any, str] = {}
        self.rulings: dict[Any, str] = {}
        self.places: dict[Any, int] = {}
        if kept is None or kept.layout is None or not kept.read \
                or kept.folding != folding(index.convert is not None):
            return
        laid, haystacks = kept.layout, kept.haystacks
        first = len(laid.texts.keys)
        self.texts = {key: haystacks[doc] for doc, key in enumerate(laid.texts.keys)
                      if key is not None}
        self.rulings = {key: haystacks[first + at] for at, key in enumerate(laid.rulings.keys)
                        if key is not None}
        self.places = kept.places
        self.read = kept.read

    def _unread(self, docname: str) -> bool:
        """Whether page *docname* was not read since the last index was made."""
        found = self.read.get(docname)
        return found is not None and found == self.store.read_in(docname)

    def text(self, key: tuple[tuple[str, str], int]) -> str | None:
        """The last haystack of the text *key* (its section, its place), if it is its haystack."""
        found = self.texts.get(key)
        return found if found is not None and self._unread(key[0][0]) else None

    def ruling(self, key: tuple[str, str], group: list[Ruling]) -> str | None:
        """The last haystack of the ruling *key* in its places *group*, if it is its haystack."""
        found = self.rulings.get(key)
        if found is None or len(group) != self.places.get(key, 1):
            return None
        return found if all(self._unread(r.docname) for r in group) else None


class _Laid:
    """The documents at their ids (:mod:`handbook.search.layout`): each id's
    haystack (``''``: an empty id), its chunk entry (None) and its sections;
    the days' documents; the sections at their numbers.  *keys*: the texts',
    the rulings' and the sections' keys, in the order *laid* was given them."""

    def __init__(self, index: Index, laid: layout.Layout, keys: tuple[list[Any], ...],
                 texts: list[tuple[Any, int, str, str]],
                 rulings: list[tuple[Any, list[Any], str]]) -> None:
        self.layout = laid
        first = len(laid.texts.keys)  # the first ruling's id
        numbers = layout.ids(laid.sections, keys[2])  # natural number -> its own
        self.sections: list[Any] = [None] * len(laid.sections.keys)
        for natural, number in enumerate(numbers):
            self.sections[number] = index.sections[natural]
        size = first + len(laid.rulings.keys)
        self.haystacks = [''] * size
        self.doc_sections: list[Any] = [None] * size
        self.text_entries: list[Any] = [None] * first
        for doc, (_key, section, block, haystack) in zip(
                layout.ids(laid.texts, keys[0]), texts):
            self.haystacks[doc] = haystack
            self.text_entries[doc] = [numbers[section], block]
            self.doc_sections[doc] = numbers[section]
        days: dict[str, list[int]] = {}
        self.ruling_entries: list[Any] = [None] * len(laid.rulings.keys)
        for at, (_key, entry, haystack) in zip(
                layout.ids(laid.rulings, keys[1]), rulings):
            doc = first + at
            places = [[numbers[place[0]], *place[1:]] for place in entry[3]]
            self.ruling_entries[at] = [*entry[:3], places, *entry[4:]]
            self.haystacks[doc] = haystack
            self.doc_sections[doc] = (places[0][0] if len(places) == 1
                                      else [place[0] for place in places])
            for place in places:
                for iso in dict.fromkeys(place[3].split()):
                    days.setdefault(iso, []).append(doc)
        self.months = shards.months(days)


def _patched_shards(kept: patch.Kept, patched: tuple[dict[str, str], dict[str, int]],
                    read: Callable[[str], str | None]) -> dict[str, str] | None:
    """Every shard of the patched index: the changed ones, and the last
    index's others as it wrote them; None where one of those is gone."""
    changed, _sizes = patched
    data = {}
    for name in sorted(set(kept.shards) | changed.keys()):
        text = changed[name] if name in changed else read(name)
        if text is None:  # a part of the last index is gone, or not its own
            return None
        if text:  # a shard left with no entry is no part, as in a whole index
            data[name] = text
    return data


def index_text(manifest: dict[str, Any]) -> str:
    body = json.dumps(manifest, ensure_ascii=False, separators=(',', ':'))
    return f'RulingSearch.setIndex({body});\n'


#: where a script takes core/names.py's separator class
SEPARATORS_SLOT = '/* CARD_NAME_SEPARATORS */ null'


def names_text() -> str:
    """``core/names.js``, the folding function, with its separator class in its slot."""
    text = NAMES_SCRIPT.read_text(encoding='utf-8')
    assert text.count(SEPARATORS_SLOT) == 1, f'{NAMES_SCRIPT}: no slot for the separators'
    return text.replace(SEPARATORS_SLOT, json.dumps(SEPARATOR_CLASS))


def script_text() -> str:
    """The search script: the folding function, then the search."""
    return names_text() + SCRIPT.read_text(encoding='utf-8')


def write_text(path: Path, text: str) -> bool:
    """Write *text* unless the file holds it already (whole or not at all,
    :func:`handbook.core.files.write_if_changed`); whether it wrote."""
    return write_if_changed(path, text)


def leave_out_of_sphinx_index(app: Sphinx, doctree: Any) -> None:
    """Note whether the page asked to be left out of the search, then leave
    it out of Sphinx's index (``doctree-read``, after Sphinx's metadata
    collector and every directive: see the module docstring)."""
    metadata = app.env.metadata[app.env.docname]
    if any(key in metadata for key in NOSEARCH):
        metadata[OWN_NOSEARCH] = ''
    metadata['nosearch'] = ''


def write_script(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """The search script, into ``_static/`` when it differs (``env-updated``:
    in the build, so that a write fault is the build's, and before the pages
    are written, which name it with its checksum)."""
    if searchable(app.builder):
        write_text(Path(app.builder.outdir) / '_static' / SCRIPT_NAME, script_text())
    return []


def index_wanted(app: Sphinx) -> bool:
    """Whether this build makes the index: an HTML build with a search page
    where a page or the registry changed, or the manifest is missing."""
    builder = app.builder
    if not searchable(builder):
        return False
    path = Path(builder.outdir) / '_static' / INDEX
    return not (path.is_file() and store(app.env).unchanged() and not changes(app.env).rulings)


def write_index(app: Sphinx) -> list:
    """Make and write the index where this build makes it, unless it was
    made already (``html-collect-pages``: before the search page, which
    names the manifest with its checksum)."""
    if index_wanted(app) and not app.events.emit_firstresult(INDEX_MADE):
        make_index(app)
    return []


def make_index(app: Sphinx) -> None:
    """Make the index and write its files, each only where it changed; a
    part the index no longer has is removed.  The shards are patched where
    the last build's index allows it (:mod:`handbook.search.patch`): what
    that build kept (:data:`KEPT_INDEX`) is dropped before any file of the
    index changes, and kept anew once they all did, so that a build that
    stops in between leaves the next one to make the index whole."""
    builder = app.builder
    static = Path(builder.outdir) / '_static'
    path = static / INDEX
    folder = static / PARTS
    kept_path = Path(app.doctreedir) / KEPT_INDEX
    kept = _kept(kept_path, path)
    read = _PartReader(folder, kept.epoch) if kept is not None else None
    manifest, data, keep = Index(app, builder).parts(app, kept, read)
    kept_path.unlink(missing_ok=True)
    # a part whose JSON is the one the last index wrote, in this epoch, is
    # not written (nor its file read to compare: 6,400 files of an edit)
    same = kept.parts if kept is not None and kept.epoch == manifest['epoch'] else {}
    present = {entry.name for entry in os.scandir(folder)} if folder.is_dir() else set()
    for name, content in data.items():
        keep.parts[name] = digest = hashlib.blake2b(content.encode(), digest_size=12).digest()
        if same.get(name) != digest or f'{name}.js' not in present:
            write_text(folder / f'{name}.js', shards.part_text(name, manifest['epoch'], content))
    wanted = {f'{name}.js' for name in data}
    for entry in os.scandir(folder):
        if entry.name not in wanted and entry.name.endswith('.js'):
            os.unlink(entry.path)
    write_text(path, index_text(manifest))
    with contextlib.suppress(OSError):  # not kept: the next build makes the index whole
        write_atomically(kept_path, pickle.dumps(keep, pickle.HIGHEST_PROTOCOL))


def _kept(kept_path: Path, manifest_path: Path) -> patch.Kept | None:
    """What the last build kept of its index, if its files are still that index."""
    try:
        kept = pickle.loads(kept_path.read_bytes())
        text = manifest_path.read_text(encoding='utf-8')
        written = json.loads(text[text.index('(') + 1:text.rindex(')')])
    except (OSError, ValueError, pickle.UnpicklingError, EOFError, AttributeError, TypeError):
        return None
    if not isinstance(kept, patch.Kept) or getattr(kept, 'format', None) != patch.FORMAT \
            or not isinstance(written, dict) or written.get('version') != kept.version:
        return None
    return kept


class _PartReader:
    """The JSON of the parts an index of *epoch* wrote (each read once), or None."""

    def __init__(self, folder: Path, epoch: str) -> None:
        self.folder = folder
        self.epoch = epoch
        self.read: dict[str, str | None] = {}

    def __call__(self, name: str) -> str | None:
        if name not in self.read:
            try:
                text = (self.folder / f'{name}.js').read_text(encoding='utf-8')
            except (OSError, ValueError):
                text = ''
            self.read[name] = shards.part_data(name, self.epoch, text)
        return self.read[name]


def add_scripts(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                doctree: Any) -> None:
    """The search page, and only it, loads the script and the index; its
    heading is Sphinx's word for the page, in the build's language (no
    message of ours: the template's ``_()`` would be one more catalog)."""
    if pagename == 'search' and searchable(app.builder):
        app.add_js_file(SCRIPT_NAME, priority=600, defer='defer')
        app.add_js_file(INDEX, priority=601, defer='defer')
        context['handbook_search_heading'] = get_translation('sphinx')('Search')


def configure(app: Sphinx, config: Any) -> None:
    """The search page's template (``templates/search.html``); and no
    dictionary for Sphinx's Chinese search, where the project gives none:
    its index holds no words (see the module docstring), and Sphinx would
    load jieba's whole dictionary, 350,000 words, at every build."""
    if str(TEMPLATES) not in config.templates_path:
        config.templates_path = [*config.templates_path, str(TEMPLATES)]
    options = config.html_search_options or {}
    if 'dict' not in options:
        config.html_search_options = {**options, 'dict': ''}


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect('config-inited', configure)
    app.setup_extension('handbook.rulings.lines')
    app.setup_extension('handbook.render.anchors')  # page titles
    app.setup_extension('handbook.listings.card_index')  # card pages' addresses
    app.setup_extension('handbook.search.section_texts')
    app.connect('doctree-read', leave_out_of_sphinx_index, priority=900)
    app.connect('env-updated', write_script)
    app.connect('html-page-context', add_scripts)
    app.connect('html-collect-pages', write_index)
    app.add_event(INDEX_MADE)
    return {'version': '2', 'env_version': ENV_VERSION,
            'parallel_read_safe': True, 'parallel_write_safe': True}
