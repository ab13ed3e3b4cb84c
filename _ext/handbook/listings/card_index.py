"""The card index: every card and series the pages mention, where, and in which rulings.

A page holds the directive as its last content (anywhere else is a warning
``handbook.card-index``: the index adds sections)::

    卡片索引
    ========

    .. card-index::

**What it lists.**  At write time the directive's place is filled with one
entry for every registry card or series that a page links (「`卡名`_」; a
spelling variant or an alias counts as its registry card), grouped by
initial for a Chinese reader:

* a line with the counts, then a jump bar: the initials that have entries,
  each linking to its group;
* one section per initial, ``#initial-a`` … ``#initial-z``: a name's
  initial is its first letter where it starts with a Latin letter
  (``DDD 反骨王 列奥尼达`` under D), the initial of its first character's
  pinyin where that is a Chinese character (``旋风`` under X, by pypinyin),
  else ``#`` (digits, symbols, kana; ``#initial-other``, the last group);
* in a group, entries in pinyin order (syllable by syllable, tones in
  order, Latin letters before syllables that start with them, spacing and
  middle dots ignored; characters of the same syllable and tone in code
  point order).

An entry is the name in the build's language (a link to the card database,
like every card link), ``系列`` after a series' name (classes
``card-index-card`` / ``card-index-series``), and every section that links
it, in reading order (pages as in the table of contents, sections in page
order): ``页面 › 小节`` linking to the section (the page alone for its
top section), followed by the date of each of the section's rulings that name
the card (:meth:`handbook.rulings.lines.Ruling.dated_for`, as written), each
linking to the ruling's permalink.  In
HTML and EPUB an entry's sections are a list; for other builders (LaTeX: the
PDF) one paragraph, separated by ；.  The links are made by
:class:`handbook.render.html_parts.HtmlLinks` in HTML, else by
:func:`handbook.render.anchors.link`.  Names
are ordered by their Simplified Chinese registry name in every language.

**A page per initial** where the build writes a site of pages (the ``html``
builder, :mod:`handbook.render.split_pages`): the index's page keeps the
counts and the jump bar, each initial is a page of its own,
``card-index/x.html`` (``#``: ``card-index/other.html``), and
``card-index.html#card-旋风`` still leads to the entry there.  The EPUB and
the PDF keep the whole index on its page.  An initial of more links than
``handbook_card_index_page_links`` (4,000 by default; an entry's links: its
name, its sections, their rulings' dates, :func:`links`) is a page per second
letter of its names' first syllable (:func:`subgroups`): ``card-index/x-i.html``
(心眼的女神, 星尘龙), ``card-index/x-u.html`` (旋风), the names without a
second letter (a Latin name; 阿 under A) first, ``card-index/x-other.html``;
the initial's page keeps the initials' bar and its letters, each linked with
its count, and both ``card-index.html#card-旋风`` and
``card-index/x.html#card-旋风`` lead to the entry.  The limit counts links,
not bytes: the pages are decided when the pages are read
(``env-get-updated``), before any entry is written to HTML, and a link is
about 180 bytes of it, so 4,000 keep a page well under a megabyte.  The
names under ``#`` stay on one page.

**Entry ids** are stable and readable: ``card-`` and the card's registry key
(:func:`card_registry.fold`) as a section id is made (:func:`section_ids.slug`):
``#card-旋风``, ``#card-ddd反骨王列奥尼达``, ``#card-no-39希望皇彼端超霍普``.
They depend on the registry only; where two registry names would give the
same id, each of them gets a short hash of its key appended.  Other pages
may link to ``card-index.html#card-旋风``.

**From every card link to its entry.**  In HTML and EPUB, every resolved card
link carries what the readers' tools need to lead to the card's page
(:mod:`handbook.publishing.reader_tools`, which draws a § for it when a
reader points at, taps or tabs into the text): the card's page where the
build writes card pages (:mod:`handbook.listings.card_pages`), else its
entry here; the card link itself still opens the card database.  Its id there
is the name as written, folded and made an id as the browser does it
(:func:`derived_id`); where that is not the card's (a spelling variant, an
alias, an id with a hash), the link says it: ``data-card="…"``.  Nothing is
written after the link: no second link, no second Tab stop, no node.
The target is the first page (by name) that holds the directive; without
one, and without card pages, no §.  LaTeX gets nothing (the PDF has the
index as a chapter).

**Never stale.**  The index page is rewritten when a page read again or
removed contributes something else to it (the store's records before and
after, :func:`_inputs_kept`), a registry row changed, or an entry id
changed (``env-get-updated``); a
page's markers are rewritten when the index page or an entry id it uses
changed.  The record (for each
page, the sections that link cards, with the cards' registry keys and their
names as written) is kept on the build environment, purged and merged per
page, so serial and parallel builds give the same pages;
:mod:`handbook.listings.related_sections` reads it with :func:`sections`.  The generated texts
are messages of the ``handbook`` catalog (Chinese msgids).
"""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Collection, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.locale import get_translation
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.nodes import clean_astext

from handbook.cards import links as card_links
from handbook.cards.registry import Card
from handbook.core.names import fold
from handbook.core.records import frozen_record
from handbook.nodes import card_of, card_reference
from handbook.publishing.reader_tools import CARD_PAGE
from handbook.render import split_pages
from handbook.render.anchors import link, page_title
from handbook.render.html_parts import HtmlLinks, escape, late_part
from handbook.render.placeholders import (
    PlaceholderDirective,
    add_placeholder,
    fill,
    holders,
    warn_unless_last,
)
from handbook.rulings import lines as ruling_lines
from handbook.rulings.lines import Reference, Ruling
from handbook.sections.ids import slug
from handbook.store import (
    CARDS,
    PAGE_READ,
    Contribution,
    PageRecord,
    State,
    changes,
    state,
    store,
    writes_pages,
)

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.writers.html5 import HTML5Translator

_ = get_translation('handbook')

#: the group of names that start with neither a Latin letter nor a Chinese character
OTHER = '#'
#: what the store records of a page that holds the index
INDEX = 'card-index'
#: between the items of a pinyin sort key (:func:`sort_key`)
SEPARATOR = '\x00'
#: the event that asks for the pinyin order of registry keys (:func:`learn_pinyin`)
PINYIN_EVENT = 'handbook-pinyin'


class CardIndexState(State):
    """What the card index keeps from build to build (:func:`handbook.store.state`)."""

    def __init__(self) -> None:
        #: the markers' target: (index page, {key: entry id}, keys in the index)
        self.markers: tuple[str | None, dict[str, str], frozenset[str]] | None = None
        #: {registry key: page name} of the card pages (handbook.listings.card_pages
        #: sets it at each build), empty where the build writes none
        self.card_pages: dict[str, str] = {}
        #: {registry key: (initial, pinyin sort key)} (pinyin_order)
        self.pinyin: dict[str, tuple[str, str]] = {}
        #: the reading order of the pages when the entries were last computed,
        #: None before any build computed them
        self.order: tuple[str, ...] | None = None


def kept(env: BuildEnvironment) -> CardIndexState:
    return state(env, CardIndexState)


def card_page(env: BuildEnvironment, key: str) -> str | None:
    """The page of the card *key* where this build writes card pages."""
    return kept(env).card_pages.get(key)


class card_index(nodes.General, nodes.Element):
    """Placeholder for the card index, filled at write time."""


class CardIndexDirective(PlaceholderDirective):
    """``.. card-index::`` (no arguments, no content)."""

    node_class = card_index
    kind = INDEX


# -- the record: which sections link which cards --------------------------------------


@frozen_record
class Section:
    """A section of a page and the cards its own text links (not its subsections')."""

    docname: str
    index: int  # position among the page's sections, for ordering only
    section_id: str  # '' for text outside any section
    title: str
    top: bool  # a first-level section: the page itself
    cards: tuple[tuple[str, str], ...]  # (registry key, name as written), first use first

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(key for key, _name in self.cards)


def sections(env: BuildEnvironment) -> dict[str, list[Section]]:
    """``{docname: [Section, …]}``: the sections that link cards, page order."""
    return {docname: list(page.sections) for docname, page in store(env).pages.items()
            if page.sections}


def index_pages(env: BuildEnvironment) -> set[str]:
    """The pages that hold the card index."""
    return holders(env, INDEX)


def index_page(env: BuildEnvironment) -> str | None:
    """The page the markers link to: the first (by name) that holds the index."""
    return min(index_pages(env), default=None)


def where_cards_lead(app: Sphinx) -> tuple[str, str] | None:
    """``handbook-card-page``, after the card pages: a card's § leads to its
    entry of the card index, where a page holds it."""
    index = index_page(app.env)
    if index is None:
        return None
    return f'{app.builder.get_target_uri(index)}#card-{{}}', str(_('卡片索引：{name}'))


def innermost_section(node: nodes.Node) -> nodes.section | None:
    parent = node.parent
    while parent is not None and not isinstance(parent, nodes.section):
        parent = parent.parent
    return parent


def read_sections(app: Sphinx, page: Contribution) -> None:
    """The sections of the page that link cards (see :class:`Section`), for
    the store (``handbook-page-read``); a misplaced index is reported."""
    position = {id(s): i for i, s in enumerate(page.nodes.sections)}
    found: dict[int, tuple[nodes.section | None, dict[str, str]]] = {}
    for node in page.nodes[CARDS]:
        key, name = card_of(node)  # type: ignore[misc]  (a card link)
        section = innermost_section(node)
        found.setdefault(id(section), (section, {}))[1].setdefault(key, name)
    out = []
    for section, cards in found.values():
        if section is None:
            out.append(Section(page.docname, -1, '', '', True, tuple(cards.items())))
            continue
        title = clean_astext(section[0]) if isinstance(section[0], nodes.title) else ''
        out.append(Section(page.docname, position[id(section)],
                           section['ids'][0] if section['ids'] else '', title,
                           isinstance(section.parent, nodes.document), tuple(cards.items())))
    page.sections = tuple(sorted(out, key=lambda s: s.index))
    warn_unless_last(page, INDEX, 'the card index adds one section per initial, so it must be',
                     'card-index', 'card-index')


def pages_to_rewrite(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """:func:`_pages_to_rewrite`; and the pages of the initials of each page
    that holds the index, computed again where it is written again
    (:func:`handbook.render.split_pages.note_parts`)."""
    updated = _pages_to_rewrite(app, env)
    holders = index_pages(env)
    if not writes_pages(env) or not split_pages.splits(store(env).builder):
        split_pages.note_parts(app, INDEX, {})
        return updated
    noted = split_pages.kept(env).parts
    if holders & set(updated) or any(holder not in noted for holder in holders):
        slugs = [slug for letter, group in by_initial(entries(env)).items()
                 for slug in (group_slug(letter), *subgroups(env, letter, group))]
        split_pages.note_parts(app, INDEX, dict.fromkeys(holders, slugs))
    else:
        split_pages.note_parts(app, INDEX, dict.fromkeys(holders))
    return updated


def _pages_to_rewrite(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """The pages to write again (``env-get-updated``): the index page when
    what it shows changed (the store says which pages changed, and how:
    :func:`_inputs_kept`), the pages whose markers' target changed.  None
    where the build writes no page (``make check``): its entries, the pinyin
    order of every name, are not computed for nothing."""
    if not writes_pages(env):
        return []
    updated: set[str] = set()
    pages = index_pages(env)
    index = kept(env)
    order = tuple(ruling_lines.page_order(env))
    relinked = store(env).registry_relinked
    if relinked:  # rows whose link alone changed: the index shows those links
        registry = card_links.registry(env)
        _target, _ids, indexed_before = index.markers or (None, {}, frozenset())
        if any(registry[k].key in indexed_before for k in relinked if k in registry):
            updated |= pages
    if not _inputs_kept(env, order):
        # a page read again or removed contributes something else to the
        # index, a registry row changed, or the reading order: write it again
        updated |= pages
    index.order = order
    # the markers: their target page and the entry ids they use, computed
    # once per build for every page's markers (marker_target)
    if store(env).unchanged() and index.markers is not None:
        return sorted(updated & env.found_docs)  # the same pages, the same registry
    registry = card_links.registry(env)
    target = index_page(env)
    ids = card_ids(env)
    with_cards = sections(env)
    indexed = frozenset(registry[k].key for secs in with_cards.values() for s in secs
                        for k in s.keys if k in registry)
    old_target, old_ids, _old = index.markers or (target, ids, indexed)
    index.markers = (target, ids, indexed)
    if old_target != target:
        updated.update(with_cards)
    elif old_ids != ids:
        keys = {k for k in old_ids.keys() | ids.keys() if old_ids.get(k) != ids.get(k)}
        updated |= pages
        updated.update(doc for doc, secs in with_cards.items()
                       if any(s.keys & keys for s in secs))
    return sorted(updated & env.found_docs)


# -- order and ids ------------------------------------------------------------------------


def _syllables(key: str) -> list[str]:
    """One item per character of *key*: its pinyin with tone number
    (``xuan2``), else the character itself.  pypinyin is imported when first
    needed: its dictionaries are 200,000 objects that each collection of the
    garbage collector would walk, and a build whose names are all known
    (:func:`pinyin_order`) does not need them."""
    from pypinyin import Style, lazy_pinyin

    return lazy_pinyin(key, style=Style.TONE3, neutral_tone_with_five=True,
                       errors=lambda text: list(text))


def _is_syllable(item: str) -> bool:
    return len(item) > 1 and item[-1].isdigit()


def initial(key: str) -> str:
    """The group of a registry key: ``A``-``Z`` or :data:`OTHER`."""
    if not key:
        return OTHER
    first = _syllables(key[0])[0]
    letter = first[0].upper() if _is_syllable(first) else unicodedata.normalize('NFKC', first)
    return letter.upper() if letter.isascii() and letter.isalpha() else OTHER


def sort_key(key: str) -> str:
    """Pinyin order of a registry key (see the module docstring): each
    character's pinyin and the character, in one string, separated by
    :data:`SEPARATOR`.  It sorts as the pairs ``(pinyin, character)`` would
    (the separator sorts before any character: a syllable sorts before the
    longer ones it starts), in a fifth of their memory (1.5 MB for 4,700
    names): the store keeps every name's key to the end of the build, in
    every process."""
    items = _syllables(key)
    if len(items) != len(key):  # cannot happen: one item per character
        return SEPARATOR.join([*items, key])
    return SEPARATOR.join([part for pair in zip(items, key) for part in pair])


def pinyin_order(env: BuildEnvironment, key: str) -> tuple[str, str]:
    """``(initial(key), sort_key(key))``, kept in the store from build to
    build: a key's pinyin never changes, and finding it takes pypinyin a
    fifth of a millisecond, a second for a registry's worth of names."""
    return _order(kept(env).pinyin, key)


def _order(known: dict[str, tuple[str, str]], key: str) -> tuple[str, str]:
    """:func:`pinyin_order`, kept in *known*."""
    if key not in known:
        # a key's initial is its first character's: found once per character
        first = initial(key) if len(key) < 2 else _order(known, key[0])[0]
        known[key] = (first, sort_key(key))
    return known[key]


def learn_pinyin(env: BuildEnvironment, keys: Iterable[str]) -> None:
    """Find the pinyin order of those of *keys* the store does not know yet
    (a clean build: all of them), so that :func:`pinyin_order` has them.
    The listeners of ``handbook-pinyin`` (``(app, keys)``, returning
    ``{key: order}``) may have found some already (the speed package finds
    every name's while the pages are read); the others are found here."""
    known = kept(env).pinyin
    missing = set(keys) - known.keys()
    if missing:
        for found in env.events.emit(PINYIN_EVENT, frozenset(missing)):
            known.update(found or {})
        missing -= known.keys()
    for key in sorted(missing):
        _order(known, key)


def orders(keys: list[str]) -> dict[str, tuple[str, str]]:
    """:func:`_order` of each of *keys* (and of their first characters)."""
    found: dict[str, tuple[str, str]] = {}
    for key in keys:
        _order(found, key)
    return found


def entry_ids(cards: Iterable[Card]) -> dict[str, str]:
    """``{registry key: entry id}`` for every card of the registry."""
    bases: dict[str, list[str]] = {}
    for card in cards:
        base = slug(card.key)
        bases.setdefault(f'card-{base}' if base else 'card', []).append(card.key)
    ids = {}
    for base, keys in bases.items():
        for key in keys:
            unique = len(keys) == 1 and base != 'card'
            ids[key] = base if unique else \
                f'{base}-{hashlib.sha1(key.encode()).hexdigest()[:6]}'
    return ids


def card_ids(env: BuildEnvironment) -> dict[str, str]:
    """:func:`entry_ids` of this build's registry, computed once per build
    (the last build's, while no registry row changed)."""
    def compute() -> dict[str, str]:
        markers = kept(env).markers
        if markers is not None and not store(env).registry_changed:
            return markers[1]
        return entry_ids(card_links.registry(env).cards())

    return store(env).derived('card_index_ids', compute)


def group_id(letter: str) -> str:
    return f'initial-{group_slug(letter)}'


def group_slug(letter: str) -> str:
    """The group's name in ids and page names: ``x``, ``other``."""
    return 'other' if letter == OTHER else letter.lower()


# -- the entries --------------------------------------------------------------------------


@frozen_record
class Place:
    """A section that links a card, and its rulings that name the card."""

    docname: str
    section_id: str
    page_title: str
    section_title: str  # '' where the section is the page itself
    rulings: tuple[Ruling, ...]


@frozen_record
class Entry:
    """One card or series of the index."""

    card: Card
    id: str
    initial: str
    places: tuple[Place, ...]


def _inputs_kept(env: BuildEnvironment, order: tuple[str, ...]) -> bool:
    """Whether every input of the index's entries (:func:`_entries`) is as
    in the last build that computed them: the same registry rows (but for
    where their links lead, which :func:`pages_to_rewrite` follows), the
    same reading order, and each page read again or removed contributing
    what it did (the store's records before and after).  Then the index
    shows what it showed (a ruling's text edited)."""
    if kept(env).order != order or store(env).registry_changed - store(env).registry_relinked:
        return False
    pages, before = store(env).pages, store(env).before
    return all(_inputs_of(before.get(doc)) == _inputs_of(pages.get(doc))
               for doc in changes(env).pages)


def _inputs_of(record: PageRecord | None) -> tuple | None:
    """What :func:`_entries` reads of a page's record: of a ruling that names
    a card, not its text; of one that names none, nothing (its anchor, a
    digest of its text, changes with every edit of its words)."""
    if record is None:
        return None
    return (record.title, record.sections, tuple(
        (r.index, r.anchor, r.section_id, r.section_title, r.cards,
         tuple(ref.text for ref in r.references)) for r in record.rulings if r.cards))


def entries(env: BuildEnvironment, keys: Collection[str] | None = None) -> list[Entry]:
    """Every card the pages link, in index order (groups, then pinyin);
    computed once per build.  With *keys* (registry keys), only those of
    these cards (computed at each call: an incremental build's card pages)."""
    if keys is not None:
        return _entries(env, frozenset(keys))
    return store(env).derived('card_index_entries', lambda: _entries(env, None))


def _entries(env: BuildEnvironment, keys: frozenset[str] | None) -> list[Entry]:
    registry = card_links.registry(env)
    order = {doc: i for i, doc in enumerate(ruling_lines.page_order(env))}
    # card key -> (docname, section id) -> [order, section title, top, rulings]
    found: dict[str, dict[tuple[str, str], list]] = {}
    known: dict[tuple[str, str], Section] = {}
    for docname, secs in sections(env).items():
        for section in secs:
            known[docname, section.section_id] = section
            for key, _name in section.cards:
                card = registry.get(key)
                if card is not None and (keys is None or card.key in keys):
                    found.setdefault(card.key, {}).setdefault(
                        (docname, section.section_id),
                        [section.index, section.title, section.top, []])
    for docname, rulings in ruling_lines.rulings(env).items():
        for ruling in rulings:
            for key in dict(ruling.cards):
                card = registry.get(key)
                if card is None or (keys is not None and card.key not in keys):
                    continue
                where = (docname, ruling.section_id)
                section = known.get(where)
                place = found.setdefault(card.key, {}).setdefault(where, [
                    section.index if section else len(known) + ruling.index,
                    ruling.section_title, section.top if section else False, []])
                place[3].append(ruling)
    ids = card_ids(env)
    learn_pinyin(env, found)
    out = []
    for key, places in found.items():
        card = registry[key]
        listed = []
        for (docname, section_id), (index, title, top, rulings) in sorted(
                places.items(), key=lambda p: (order.get(p[0][0], len(order)), p[0][0], p[1][0])):
            page = page_title(env, docname)
            section_title = '' if top and title in ('', page) else title
            listed.append(Place(docname, '' if not section_title else section_id, page,
                                section_title, tuple(rulings)))
        out.append(Entry(card, ids[key], pinyin_order(env, key)[0], tuple(listed)))
    out.sort(key=lambda e: (e.initial == OTHER, e.initial, pinyin_order(env, e.card.key)[1],
                            e.card.key))
    return out


def _written(reference: Reference | None) -> str:
    """A reference's date as written ('' for none)."""
    return reference.text if reference is not None else ''


def counts(found: list[Entry]) -> str:
    """The summary of *found*: its cards and series, counted."""
    series = sum(1 for e in found if e.card.kind == 'series')
    if not series:  # a registry of cards alone (a legacy link file's)
        return _('共 {cards} 张卡片。').format(cards=len(found))
    return _('共 {cards} 张卡片、{series} 个系列。').format(cards=len(found) - series, series=series)


def by_initial(found: list[Entry]) -> dict[str, list[Entry]]:
    """The entries by initial, in index order."""
    groups: dict[str, list[Entry]] = {}
    for entry in found:
        groups.setdefault(entry.initial, []).append(entry)
    return groups


# -- split into a page per initial (handbook.render.split_pages) --------------------------


def links(entry: Entry) -> int:
    """The links of an entry: its name, its sections, their rulings' dates."""
    return 1 + sum(1 + len(place.rulings) for place in entry.places)


def second_letter(env: BuildEnvironment, entry: Entry) -> str:
    """The second letter of the pinyin of an entry's first character
    (``旋风``: ``u``), '' where it has none (``阿``, a name that starts with
    a Latin letter)."""
    first = pinyin_order(env, entry.card.key)[1].partition(SEPARATOR)[0]
    return first[1] if _is_syllable(first) and first[1].isalpha() else ''


def subgroups(env: BuildEnvironment, letter: str,
              group: list[Entry]) -> dict[str, list[Entry]]:
    """The pages of an initial of more links than
    ``handbook_card_index_page_links`` (:func:`links`), ``{slug: entries}``
    in index order: a page per second letter (``x-i``: 心眼的女神, ``x-u``:
    旋风), the names without one first (``x-other``); else none.  The names
    under :data:`OTHER` stay on one page."""
    if letter == OTHER or sum(map(links, group)) <= env.config.handbook_card_index_page_links:
        return {}
    out: dict[str, list[Entry]] = {}
    for entry in group:
        second = second_letter(env, entry)
        out.setdefault(f'{group_slug(letter)}-{second or "other"}', []).append(entry)
    return out


def subgroup_label(letter: str, slug: str) -> str:
    """How a page of an initial's second letters is named: ``Ya``; the
    names without a second letter by the initial alone."""
    second = slug.rpartition('-')[2]
    return letter if second == 'other' else letter + second


def overview(env: BuildEnvironment, docname: str, groups: dict[str, list[Entry]]) -> str:
    """The index's page where the initials are pages of their own: the jump
    bar, each initial linked to its page, as HTML; the old anchors of the
    groups and entries (``#initial-x``, ``#card-旋风``) lead to their page."""
    builder = store(env).builder
    items = [(split_pages.part_name(docname, group_slug(letter)), letter) for letter in groups]
    moved = {}
    for letter, group in groups.items():
        pages = subgroups(env, letter, group)
        moved[split_pages.part_name(docname, group_slug(letter))] = [
            group_id(letter), *([] if pages else (entry.id for entry in group))]
        for part, members in pages.items():
            moved[split_pages.part_name(docname, part)] = [entry.id for entry in members]
    return (split_pages.bar(builder, docname, items, '', 'card-index-initials', ' ')
            + split_pages.moved_anchors(builder, docname, moved))


def write_initial_pages(app: Sphinx) -> list:
    """The pages of the initials of each page that holds the index, where
    they are made in this build (``html-collect-pages``)."""
    env = app.env
    for holder in sorted(index_pages(env)):
        if not split_pages.needed(app, INDEX, holder):
            continue
        groups = by_initial(entries(env))
        items = [(split_pages.part_name(holder, group_slug(letter)), letter) for letter in groups]
        title = page_title(env, holder)
        builder = store(env).builder
        parts = []
        for (name, letter), group in zip(items, groups.values()):
            part_title = _('{title}：{part}').format(title=title, part=letter)
            bar = split_pages.bar(builder, name, [(holder, _('全部')), *items], name,
                                  'card-index-initials', ' ')
            pages = subgroups(env, letter, group)
            if not pages:
                body = (f'<section class="card-index-group" id="{group_id(letter)}">\n'
                        f'<h1>{escape(part_title)}</h1>\n' + bar
                        + ''.join(HtmlEntries(env, name).listing(group)) + '</section>\n')
                parts.append(split_pages.Part(name, part_title, letter,
                                              f'{part_title}。{counts(group)}', body))
                continue
            # the initial's page: its second letters, each linked with its count
            subitems = [(split_pages.part_name(holder, slug), subgroup_label(letter, slug))
                        for slug in pages]
            uris = [escape(builder.get_relative_uri(name, page)) for page, _label in subitems]
            listed = ' '.join(
                f'<a class="reference internal" href="{uri}">'
                f'{escape(_("{part}（{count}）").format(part=label, count=len(members)))}</a>'
                for uri, (_page, label), members in zip(uris, subitems, pages.values()))
            body = (f'<section class="card-index-group" id="{group_id(letter)}">\n'
                    f'<h1>{escape(part_title)}</h1>\n' + bar
                    + f'<p class="card-index-initials card-index-subgroups">{listed}</p>\n'
                    + split_pages.moved_anchors(builder, name, {
                        page: [entry.id for entry in members]
                        for (page, _label), members in zip(subitems, pages.values())})
                    + '</section>\n')
            parts.append(split_pages.Part(name, part_title, letter,
                                          f'{part_title}。{counts(group)}', body))
            for (page, label), members in zip(subitems, pages.values()):
                sub_title = _('{title}：{part}').format(title=title, part=label)
                ident = f'initial-{page.rpartition("/")[2]}'
                body = (f'<section class="card-index-group" id="{ident}">\n'
                        f'<h1>{escape(sub_title)}</h1>\n'
                        + split_pages.bar(builder, page, [(holder, _('全部')), *items], '',
                                          'card-index-initials', ' ')
                        + split_pages.bar(builder, page, subitems, page,
                                          'card-index-initials card-index-subgroups', ' ')
                        + ''.join(HtmlEntries(env, page).listing(members)) + '</section>\n')
                parts.append(split_pages.Part(page, sub_title, label,
                                              f'{sub_title}。{counts(members)}', body))
        split_pages.write_parts(app, holder, parts)
    return []


class FillCardIndex(SphinxPostTransform):
    """Replace each ``card_index`` with the jump bar and the groups (HTML,
    EPUB: each entry's sections as a list)."""

    # before ReferencesResolver (10): the entries' card links are resolved
    # as links of the index page
    default_priority = 5
    formats = ('html',)

    def run(self, **kwargs: Any) -> None:
        fill(self.env, self.document, CardIndexDirective, self.index)

    def index(self) -> list[nodes.Node]:
        found = entries(self.env)
        summary = nodes.paragraph(classes=['card-index-summary'])
        summary += nodes.Text(counts(found))
        groups = by_initial(found)
        if split_pages.splits(store(self.env).builder):
            split_pages.due(self.env, INDEX)  # its pages of initials are made at the end
            return [summary, nodes.raw('', overview(self.env, self.env.docname, groups),
                                       format='html')]
        bar = nodes.paragraph(classes=['card-index-initials'])
        for i, letter in enumerate(groups):
            if i:
                bar += nodes.Text(' ')
            bar += nodes.reference('', letter, internal=True, refid=group_id(letter))
        out: list[nodes.Node] = [summary, bar]
        for letter, group in groups.items():
            section = nodes.section(ids=[group_id(letter)], classes=['card-index-group'])
            section += nodes.title('', letter)
            section += self.listing(group)
            out.append(section)
        return out

    def listing(self, group: list[Entry]) -> nodes.Element:
        """The entries of a group: written at once to HTML (:class:`HtmlEntries`),
        into the page's file after the page where the builder can
        (:func:`handbook.render.html_parts.late_part`)."""
        entries = HtmlEntries(self.env, self.env.docname)
        return late_part(self.document, store(self.env).builder, lambda: entries.listing(group))

class FillCompactCardIndex(FillCardIndex):
    """The same for other builders (LaTeX: the PDF), as nodes, an entry's
    sections in one paragraph, separated by ；."""

    def is_supported(self) -> bool:
        return not super().is_supported()  # every builder FillCardIndex leaves

    def listing(self, group: list[Entry]) -> nodes.Element:
        listing = nodes.definition_list(classes=['card-index'])
        listing.extend(self.entry(entry) for entry in group)
        return listing

    def entry(self, entry: Entry) -> nodes.definition_list_item:
        card = entry.card
        name = card.name_in(self.env.config.language)
        term = nodes.term('', '', ids=[entry.id], classes=[f'card-index-{card.kind}'])
        term += card_links.card_link(self.env, card.key, [nodes.Text(name)], name) or \
            nodes.inline('', name, classes=['card-name'])
        if card.kind == 'series':
            term += nodes.Text(' ')
            term += nodes.inline('', _('系列'), classes=['card-index-kind'])
        places = nodes.paragraph(classes=['card-index-places'])  # in one paragraph
        for i, place in enumerate(entry.places):
            if i:
                places += nodes.Text('；')
            places.extend(self.place(place, entry.card.key))
        return nodes.definition_list_item('', term, nodes.definition('', places))

    def place(self, place: Place, key: str) -> list[nodes.Node]:
        """The section, linked, and the date of each of its rulings for the
        card *key* (:meth:`Ruling.dated_for`), linked."""
        text = place.page_title if not place.section_title else \
            f'{place.page_title} › {place.section_title}'
        out: list[nodes.Node] = [self.link(place.docname, place.section_id, nodes.Text(text))]
        if place.rulings:
            dates = nodes.inline('', '', classes=['card-index-rulings'])
            dates += nodes.Text(' ')
            dates += nodes.inline('', _('裁定：'), classes=['card-index-label'])
            for i, ruling in enumerate(place.rulings):
                if i:
                    dates += nodes.Text(' ')
                label = _written(ruling.dated_for(key))
                dates += self.link(ruling.docname, ruling.anchor, nodes.Text(label),
                                   classes=['ruling'])
            out.append(dates)
        return out

    def link(self, docname: str, anchor: str, content: nodes.Node,
             classes: list[str] | None = None) -> nodes.Element:
        """A link to *anchor* (an id, or '' for the top) of page *docname*
        (:func:`handbook.render.anchors.link`)."""
        return link(store(self.env).builder, self.env.docname, docname, anchor,
                    nodes.inline('', '', content, classes=classes or []))


class HtmlEntries:
    """The entries of the index written to HTML at once, as the HTML builders'
    translator writes the nodes of :meth:`FillCompactCardIndex.entry` (with
    the sections in a list): 5,000 entries of 20,000 sections are a hundred
    thousand nodes, which the translator would take seconds to write."""

    def __init__(self, env: BuildEnvironment, docname: str) -> None:
        self.env = env
        self.links = HtmlLinks(env, docname)
        self.link = self.links.link

    def listing(self, group: list[Entry]) -> Iterator[str]:
        yield '<dl class="simple card-index">\n'
        yield from map(self.entry, group)
        yield '</dl>\n'

    def entry(self, entry: Entry) -> str:
        card = entry.card
        name = card.name_in(self.env.config.language)
        term = [f'<dt class="card-index-{card.kind}" id="{escape(entry.id)}">']
        target = card_links.link_target(self.env, card.key)
        if target is None:
            term.append(f'<span class="card-name">{escape(name)}</span>')
        else:
            uri, _title, classes, _key = target
            term.append(f'<a class="{" ".join(classes)} reference external" '
                        f'href="{escape(uri)}"{card_attributes(self.env, card.key, name)}>'
                        f'{escape(name)}</a>')
        if card.kind == 'series':
            term.append(f' <span class="card-index-kind">{escape(_("系列"))}</span>')
        places = ''.join(f'<li>{self.place(place, entry.card.key)}</li>'
                         for place in entry.places)
        return (f'{"".join(term)}</dt><dd><ul class="card-index-places simple">'
                f'{places}</ul></dd>\n')

    def place(self, place: Place, key: str) -> str:
        text = place.page_title if not place.section_title else \
            f'{place.page_title} › {place.section_title}'
        out = [self.link(place.docname, place.section_id, f'<span>{escape(text)}</span>')]
        if place.rulings:
            out.append(f'<span class="card-index-rulings"> <span class="card-index-label">'
                       f'{escape(_("裁定："))}</span>')
            for i, ruling in enumerate(place.rulings):
                label = _written(ruling.dated_for(key))
                out.append((' ' if i else '') + self.link(
                    ruling.docname, ruling.anchor, f'<span class="ruling">{escape(label)}</span>'))
            out.append('</span>')
        return ''.join(out)


# -- the markers ----------------------------------------------------------------------------


def marker_target(env: BuildEnvironment, key: str) -> tuple[str, str, str] | None:
    """Where the § after a link to the card *key* leads, ``(docname, anchor,
    title)``: its card page where the build writes one, else its entry of
    the index, else nowhere (None).  Computed once per card and build."""
    made = store(env).derived('card_markers', dict)
    if key not in made:
        target, ids, indexed = kept(env).markers or (None, {}, frozenset())
        page = card_page(env, key)
        card = card_links.registry(env).get(key)
        if card is None or (page is None and (target is None or key not in indexed)):
            made[key] = None
        elif page is not None:
            made[key] = (page, '', _('卡片页面：{name}').format(
                name=card.name_in(env.config.language)))
        else:
            made[key] = (target, ids[key], _('卡片索引：{name}').format(
                name=card.name_in(env.config.language)))
    return made[key]


def derived_id(name: str) -> str:
    """The id the browser makes of a card name as written: folded
    (:func:`handbook.core.names.fold`), then made an id as a section's is
    (:func:`handbook.sections.ids.slug`).  ``publishing/reader_tools.js``
    does the same."""
    return slug(fold(name))


def target_id(env: BuildEnvironment, key: str) -> str | None:
    """The id of the card *key*'s target in the readers' tools: its card
    page's name in ``cards/``, else its entry's id without ``card-``; None
    where it has neither (:func:`marker_target`)."""
    target = marker_target(env, key)
    if target is None:
        return None
    docname, anchor, _title = target
    return docname.partition('/')[2] if not anchor else anchor.removeprefix('card-')


def card_attributes(env: BuildEnvironment, key: str, name: str) -> str:
    """The attributes a link to the card *key*, written *name*, adds to its
    ``<a>``: `` data-card="…"`` where the browser would not find its target
    from the name (:func:`derived_id`); made once per card, spelling and build."""
    made = store(env).derived('card_attributes', dict)
    if (key, name) not in made:
        ident = target_id(env, key)
        if ident is None:
            made[key, name] = ' data-card=""'  # no page, no entry: no §
        else:
            made[key, name] = '' if ident == derived_id(name) else \
                f' data-card="{escape(ident)}"'
    return made[key, name]


def visit_card_reference_html(self: HTML5Translator, node: card_reference) -> None:
    """A card link, with what the readers' tools need to lead to its page."""
    card_links.visit_card_reference_html(
        self, node, card_attributes(self.builder.env, node['card_key'], node.astext()))


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.cards.links')
    app.setup_extension('handbook.rulings.lines')
    app.setup_extension('handbook.render.anchors')  # links to docname#id
    app.setup_extension('handbook.publishing.reader_tools')  # permalink, copy, §
    app.add_node(card_index)
    add_placeholder(app, 'card-index', CardIndexDirective)
    app.add_post_transform(FillCardIndex)
    app.add_post_transform(FillCompactCardIndex)
    app.add_node(card_reference, override=True,  # (LaTeX: as handbook.cards.links draws it)
                 html=(visit_card_reference_html, card_links.depart_card_reference_html))
    app.setup_extension('handbook.store')
    app.connect(PAGE_READ, read_sections)
    app.connect(CARD_PAGE, where_cards_lead, priority=600)  # after the card pages'
    app.connect('env-get-updated', pages_to_rewrite)
    app.setup_extension('handbook.render.split_pages')
    app.connect('html-collect-pages', write_initial_pages)
    app.add_config_value('handbook_card_index_page_links', 4000, 'html',
                         types=frozenset({int}),
                         description='the most links of an initial\'s page; an initial of '
                                     'more is split by the second letter of its pinyin')
    app.add_event(PINYIN_EVENT)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
