"""Card pages: a page per card and series, listing every ruling that names it, newest first.

Every registry card or series that a page links (the card index's entries,
:mod:`handbook.listings.card_index`) gets a generated page
``cards/<id>.html`` (HTML builder only; not in the EPUB or the PDF, which
have the card index).  It shows, from the handbook store:

* the card's name in the build's language (``系列`` after a series'), its
  card database link and its other names: its aliases in the registry and
  the spellings pages write it with;
* every ruling whose ``cards`` name it, across the whole handbook, newest
  first (by its date for the card, :meth:`Ruling.dated_for`: its newest,
  or the date after the card's name where a sentence dates its cards
  apart; same date, or no valid date, in reading order).  Each ruling is
  an ``<li class="card-ruling" data-cards="…">``:
  its status flags (``ruling-status``: 裁定变更 for a changed ruling), its
  text rendered from the nodes the store keeps (card links, date links,
  ``:ref:`` resolved for the card page, a § after each card link leading to
  that card's page), ``页面 › 小节`` linking to the section, and its
  permalink (``page.html#ruling-…``).  ``data-cards`` holds the folded
  registry keys of every card the ruling names, space-separated.  A ruling
  that is in several places (the same text and cards,
  :mod:`handbook.rulings.same`) is listed once, where it is first, with a
  link to each other place (``也见于 页面 › 小节``);
* the rulings that no longer hold -- overturned (every word struck, see
  :func:`handbook.nodes.overturned`) or superseded (a yearly FAQ page's
  outdated day, :mod:`handbook.rulings.days`) -- folded in a ``<details>`` of
  their own, 已被推翻或已过时的裁定.  Each ruling shows its status badges
  (:mod:`handbook.rulings.statuses`).  The current edition (``-t current``)
  has no overturned ruling: they are not on its pages, so not on its card
  pages;
* a filter 与另一张卡: an input whose suggestions (a ``<datalist>``) are
  the other cards named together with this one; typing folds the text as
  :func:`handbook.core.names.fold` does (NFKC, separators removed, lower
  case: ``card_pages.js``, served as ``_static/handbook-card-pages.js``)
  and shows only the rulings naming both cards (an exact name, else every
  card whose name contains the text);
* the sections that link the card (``页面 › 小节``), as on the card index.

**A page of many rulings is several parts.**  A card that a handbook of
15,000 rulings names in a thousand of them would make a page of megabytes,
too heavy for a phone.  A page lists at most ``handbook_card_page_rulings``
rulings (each ruling in several places once); the others are on its next
parts, ``cards/<id>_2.html``, ``cards/<id>_3.html``…  (``_`` is never in a
page's id, so a part never has another card's page name).  The rulings
are listed in the same order across the parts: the standing ones newest
first, then the folded ones, so the first page holds the newest rulings;
each part's numbers go on from the previous part's (``<ol start>``).  Each
part has the card's name, database link, other names, summary and filter;
a bar of the parts (``共 3 页：1 · 2 · 3``) above and below its rulings; its
title, after the first, says its number (``旋风（第 2 页）``); the sections
that link the card are on the first part, and a part before the first
folded ruling links to the part holding it.  The filter counts this part's
rulings and names the other parts whose rulings name the second card, each
a link that carries the text (``?card=…``; a part opened with it filters at
once).  Every link to a card's page leads to its first part, which has the
newest rulings; no link leads into a card page's rulings (a ruling's
permalink is the page it is on), so no anchor is forwarded.

Every text is escaped (Jinja's autoescape in
``templates/handbook-card.html``, :func:`html.escape` for the title); the generated texts are messages of the
``handbook`` catalog, card names are shown with
:meth:`~handbook.cards.registry.Card.name_in` the build's language.

**The page's id** is the card's entry id on the card index without its
``card-`` (:func:`handbook.listings.card_index.entry_ids`): the registry key
-- the folded name of the row's primary name -- as a readable slug,
``cards/旋风.html``, ``cards/ddd反骨王列奥尼达.html``.  A spelling variant or
an alias added to the registry names the same row, so it changes no id; the
card database id is not used, since adding one to a row would move the page.
A slug longer than 150 bytes is cut and given a short hash of the key.

**Where the pages are linked from.**  The § marker after every card link and
each entry of the card index lead to the card's page (card_index reads
:class:`handbook.listings.card_index.CardIndexState`'s ``card_pages``,
which this module sets at each build: empty for builders that write no card pages).

**Cheap and never stale.**  The pages are made at the end of the build
(``html-collect-pages``) from the store, with no
doctree: each shown ruling is rendered once per build
(:mod:`handbook.render.ruling_html`, shared with the timeline) and its
HTML shared by every page that lists it.  The theme's frame of
the pages (header, sidebars, footer: the same for every page of ``cards/``
but for its title and address) is rendered once by the builder, with every
``html-page-context`` listener, for a page whose title, address and content
are tokens; each page is that frame with its own, escaped.  Once the pages are
read (``env-get-updated``), a digest of what each card page shows (the card,
its rulings' records, page titles, the names and links of the cards they
name, the sections) is compared with the one kept in the store
(:class:`CardPagesState`); only the pages whose digest changed, or a file of
whose parts is missing, are written (every part of such a page).  Where
neither the registry, nor the reading order, nor the set of card pages
changed, only the digests of the cards whose
rulings, sections, spellings or overturned rulings on the pages read again
changed are computed again (:func:`shown_keys`): another card's page shows
nothing else of those pages -- so a one-page edit rewrites the card pages of
the cards whose rulings or sections on that page changed.  Where a registry
row changed only where its link leads, the pages of that card and of the
cards named with it in a ruling are computed again too.  A change of the
configuration, the tags or the templates writes them all; the page of a card
no page links any more is removed, and so is a part a page no longer has.

Configuration (``conf.py``)::

    handbook_card_pages = True  # False: no card pages; § leads to the card index
    handbook_card_page_rulings = 200  # the rulings a page lists; more are on its next parts
"""

from __future__ import annotations

import hashlib
import html
import json
import os
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from sphinx.locale import get_translation
from sphinx.util import logging

from handbook.cards import links as card_links
from handbook.core.files import write_if_changed
from handbook.core.names import SEPARATOR_CLASS, fold
from handbook.core.records import frozen_record
from handbook.listings import card_index
from handbook.listings.card_index import Entry
from handbook.publishing.editions import edition
from handbook.publishing.link_previews import cut, preview_tags
from handbook.publishing.reader_tools import CARD_PAGE
from handbook.render import navigation
from handbook.render.anchors import page_title, place_title
from handbook.render.ruling_html import ruling_html
from handbook.rulings import lines as ruling_lines
from handbook.rulings import same, statuses
from handbook.rulings.lines import Ruling
from handbook.sections.labels import moved_labels, note_labels
from handbook.store import PageRecord, State, changes, state, store

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

logger = logging.getLogger(__name__)
_ = get_translation('handbook')

#: the folder of the pages, and the template of their content (templates/ beside the package)
FOLDER = 'cards'
#: the card pages are written after the other pages made at the end of the
#: build (``html-collect-pages``): the speed package works around their
#: writing alone (:mod:`handbook.speed.card_pages`)
WRITE_PRIORITY = 550
TEMPLATE = 'handbook-card.html'
#: one ruling of a card page, rendered once however many pages show it
RULING_TEMPLATE = 'handbook-card-ruling.html'
#: what stands for a page's address, title and content in the frame (:func:`writer`)
PAGE_TOKEN = 'handbook-card-page-9f3e1c'
TITLE_TOKEN = 'handbook-card-title-9f3e1c'
DESCRIPTION_TOKEN = 'handbook-card-description-9f3e1c'
BODY_TOKEN = '<!-- handbook-card-body-9f3e1c -->'
TEMPLATES = Path(__file__).resolve().parents[1] / 'templates'
#: the filter's script, and its name in the site's _static/
SCRIPT = Path(__file__).with_suffix('.js')
STATIC_SCRIPT = 'handbook-card-pages.js'
#: the statuses of a ruling that no longer holds, folded on a card page
FOLDED = frozenset({'overturned', 'superseded'})
#: the store's per-build value: the card pages someone is writing (:func:`take`)
TAKEN = 'card_pages_taken'
#: raised when what a page shows, or how, changes shape (every page written again)
VERSION = '4'
#: the longest page id, in UTF-8 bytes (file names are at most 255)
MAX_ID_BYTES = 150


class CardPagesState(State):
    """What the card pages keep from build to build (:func:`handbook.store.state`):
    ``{'base': digest of the build's settings, 'digests': {page: digest of
    what it shows}, 'parts': {page: the names of its parts}, 'order': the
    reading order, 'todo': the pages this build writes (each with its
    parts), 'gone': the parts it removes}``.  A digest says whether a page whose
    cards the store's changes touch shows something else (a ruling's other
    cards lead to their own pages: a page is written only when it changed)."""

    def __init__(self) -> None:
        self.written: dict[str, Any] = {}


def enabled(app: Sphinx) -> bool:
    """Whether this build writes card pages (``handbook_card_pages``, HTML builder)."""
    return bool(app.config.handbook_card_pages) and app.builder.name == 'html'


def where_cards_lead(app: Sphinx) -> tuple[str, str] | None:
    """``handbook-card-page``: a card's § leads to its page, where this build
    writes card pages."""
    return (f'{FOLDER}/{{}}.html', str(_('卡片页面：{name}'))) if enabled(app) else None


def page_name(entry_id: str, key: str) -> str:
    """The page of the card whose card index entry id is *entry_id*."""
    ident = entry_id.removeprefix('card-')
    if len(ident.encode()) > MAX_ID_BYTES:
        cut = ident.encode()[:MAX_ID_BYTES - 8].decode('utf-8', 'ignore').rstrip('-')
        ident = f'{cut}-{hashlib.sha1(key.encode()).hexdigest()[:6]}'
    return f'{FOLDER}/{ident}'


# -- what each page shows -----------------------------------------------------------------


@frozen_record
class CardPage:
    """One card's page."""

    name: str  # the page name, 'cards/…' (its first part's)
    entry: Entry
    spellings: tuple[str, ...]  # the names pages write it with, other than its own
    rulings: tuple[Ruling, ...]  # newest first
    overturned: tuple[Ruling, ...]  # no longer holding (FOLDED), newest first
    parts: tuple[str, ...]  # the names of its parts: (name, 'cards/…_2', …)


def part_names(name: str, listed: int, limit: int) -> tuple[str, ...]:
    """The parts of the page *name* that lists *listed* rulings (each group
    of the same ruling once), *limit* to a part: the page itself, then
    ``<name>_2``, ``<name>_3``…  (``_`` is never in a page's id: no part
    has another card's page name)."""
    count = max(1, -(-listed // max(1, limit)))
    return (name, *(f'{name}_{number}' for number in range(2, count + 1)))


def listed(page: CardPage) -> list[tuple[bool, list[Ruling]]]:
    """What *page* lists, in order: each group of the same ruling
    (:func:`handbook.rulings.same.grouped`) once, the standing ones first,
    then the folded ones (``True``)."""
    return [*((False, group) for group in same.grouped(page.rulings)),
            *((True, group) for group in same.grouped(page.overturned))]


def split(page: CardPage, limit: int) -> list[list[tuple[bool, list[Ruling]]]]:
    """What each part of *page* lists (:func:`listed`), *limit* to a part:
    as many parts as :attr:`CardPage.parts`."""
    shown, limit = listed(page), max(1, limit)
    return [shown[start:start + limit] for start in range(0, len(shown), limit)] or [[]]


def counts(parts: list[list[tuple[bool, list[Ruling]]]]) -> tuple[int, int]:
    """The rulings *parts* (:func:`split`) list, standing and folded: a ruling
    said in several places (one group) counts once, as the page shows it."""
    listed_groups = [folded for part in parts for folded, _group in part]
    return listed_groups.count(False), listed_groups.count(True)


def newest_first(rulings: list[Ruling], order: dict[str, int], key: str) -> list[Ruling]:
    """Newest date first (a ruling's date for the card *key*:
    :meth:`Ruling.dated_for`); the same date, and undated rulings last, in
    reading order."""
    rulings = sorted(rulings, key=lambda r: (order.get(r.docname, len(order)), r.docname, r.index))
    return sorted(rulings, key=lambda r: _date_for(r, key), reverse=True)  # stable


def _date_for(ruling: Ruling, key: str) -> str:
    dated_by = ruling.dated_for(key)
    return (dated_by.date or '') if dated_by is not None else ''


def card_pages(env: BuildEnvironment, keys: Collection[str] | None = None) -> list[CardPage]:
    """Every card page, in card index order; computed once per build.  With
    *keys* (registry keys), only the pages of those cards (computed at each
    call: an incremental build looks at a few)."""
    if keys is not None:
        return _card_pages(env, card_index.entries(env, keys))
    return store(env).derived('card_pages', lambda: _card_pages(env, card_index.entries(env)))


def _card_pages(env: BuildEnvironment, entries: list[Entry]) -> list[CardPage]:
    order = {doc: i for i, doc in enumerate(ruling_lines.page_order(env))}
    spellings: dict[str, dict[str, None]] = {}
    for record in store(env).pages.values():
        for key, written in record.cards:
            spellings.setdefault(key, {})[written] = None
    limit = env.config.handbook_card_page_rulings
    identity = same.identity  # what makes each ruling the same as another (see listed())
    out = []
    for entry in entries:
        card = entry.card
        found = {(r.docname, r.anchor): r for place in entry.places for r in place.rulings}
        standing = [r for r in found.values() if not FOLDED.intersection(r.status)]
        fallen = [r for r in found.values() if FOLDED.intersection(r.status)]
        shown = {card.name_in(env.config.language), card.name}
        shown.update(alias for _lang, alias in card.aliases)
        written = spellings.get(card.key, {})  # as pages write it (records keep card keys)
        page = page_name(entry.id, card.key)
        # how many it lists, each group of the same ruling once (see listed())
        count = len({identity(r) for r in standing}) + len({identity(r) for r in fallen})
        out.append(CardPage(
            page, entry, tuple(name for name in written if name not in shown),
            tuple(newest_first(standing, order, card.key)),
            tuple(newest_first(fallen, order, card.key)),
            part_names(page, count, limit)))
    return out


class Shown:
    """Digests of what card pages show (see the module docstring), for the
    pages of one registry and one set of card pages (*names*: registry key
    -> page name).  A ruling shows on the page of each card it names: its
    part of the digest is made once."""

    def __init__(self, env: BuildEnvironment, names: dict[str, str]) -> None:
        self.env = env
        self.names = names
        self.registry = card_links.registry(env)
        self.urls = card_links.url_templates(env)
        self.language = env.config.language
        self.titles: dict[str, str] = {}
        self.rulings: dict[tuple[str, str], str] = {}

    def __call__(self, page: CardPage) -> str:
        card = page.entry.card
        shown = (
            page.name, page.parts, card, card.name_in(self.language), self.urls.url(card),
            page.spellings,
            tuple(map(self.ruling, page.rulings)), tuple(map(self.ruling, page.overturned)),
            tuple((p.docname, p.section_id, p.page_title, p.section_title)
                  for p in page.entry.places),
        )
        return hashlib.sha256(repr(shown).encode()).hexdigest()

    def ruling(self, r: Ruling) -> str:
        """The digest of what a card page shows of *r*: the ruling, its page's
        title, the cards it names (their names, kinds, links and pages); a
        page's digest is made of its rulings' (not their whole text again)."""
        shown = self.rulings.get((r.docname, r.anchor))
        if shown is None:
            named = []
            for key, _written in r.cards:
                other = self.registry.get(key)
                named.append((key, None if other is None else (
                    other.name_in(self.language), other.kind, self.urls.url(other),
                    self.names.get(other.key))))
            superseding = ruling_lines.labelled_section(self.env, r.superseded_by)  # → 最新调整
            shown = self.rulings[r.docname, r.anchor] = hashlib.sha256(repr(
                (r, self.title(r.docname), tuple(named), superseding)).encode()).hexdigest()
        return shown

    def title(self, docname: str) -> str:
        if docname not in self.titles:
            self.titles[docname] = page_title(self.env, docname)
        return self.titles[docname]


def build_base(app: Sphinx) -> str:
    """What every page depends on: the configuration, tags, templates, this
    module, and the site's navigation, which each page shows (a page taken
    out of a toctree: :mod:`handbook.render.navigation`)."""
    builder = app.builder
    info = getattr(builder, 'build_info', None)
    templates = getattr(builder, 'templates', None)
    parts = [VERSION, app.config.language or '', edition(app), navigation.digest(app.env),
             getattr(info, 'config_hash', ''), getattr(info, 'tags_hash', ''),
             str(templates.newest_template_mtime()) if templates is not None else '',
             (TEMPLATES / TEMPLATE).read_text(encoding='utf-8'),
             (TEMPLATES / RULING_TEMPLATE).read_text(encoding='utf-8'),
             SCRIPT.read_text(encoding='utf-8')]
    return hashlib.sha256('\0'.join(parts).encode()).hexdigest()


def pages_to_write(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Once the pages are read (``env-get-updated``): the card pages to write
    at the end of the build, and their links for card_index.  No page of the
    handbook is written for them."""
    index, kept = card_index.kept(env), state(env, CardPagesState)
    if not enabled(app):
        index.card_pages = {}
        return []
    before = kept.written
    base = build_base(app)
    outdir = Path(app.outdir)
    # the card pages on disk, in one listing of the folder
    written = {f'{FOLDER}/{entry.name.removesuffix(".html")}'
               for entry in os.scandir(outdir / FOLDER)} if (outdir / FOLDER).is_dir() else set()
    old_parts = before.get('parts', {})
    if store(env).unchanged() and before.get('base') == base and index.card_pages:
        # nothing a card page shows changed: write only those with a part missing
        kept.written = {**before, 'gone': [], 'todo': [
            name for name in before['digests']
            if not written.issuperset(old_parts.get(name, (name,)))]}
        return []
    order = ruling_lines.page_order(env)
    old = before.get('digests', {}) if before.get('base') == base else {}
    found = None
    moved = store(env).registry_relinked  # rows whose link alone changed
    if old and index.card_pages and store(env).registry_changed == moved \
            and before.get('order') == order:
        found = _digests_of_changed(env, index.card_pages, old, old_parts, moved)
    if found is None:
        pages = card_pages(env)
        names = {page.entry.card.key: page.name for page in pages}
        index.card_pages = names
        shown = Shown(env, names)
        found = ({page.name: shown(page) for page in pages},
                 {page.name: page.parts for page in pages})
    digests, parts = found
    todo = [name for name, digest in digests.items()
            if old.get(name) != digest or not written.issuperset(parts[name])]
    now = {part for names in parts.values() for part in names}
    # the parts the last build wrote, and the pages on disk: a build with a
    # fresh environment (a new version of the toolchain, another configuration)
    # knows no last build, and an old card's page would stay, stale
    on_disk = written - {f'{FOLDER}/{PAGE_TOKEN}'}
    gone = sorted(({part for names in old_parts.values() for part in names} | on_disk) - now)
    kept.written = {'base': base, 'digests': digests, 'parts': parts, 'todo': todo,
                    'gone': gone, 'order': order}
    return []


def names(env: BuildEnvironment) -> list[str]:
    """Every card page's parts written in this build (the sitemap's)."""
    if not card_index.kept(env).card_pages:
        return []
    return [part for parts in state(env, CardPagesState).written.get('parts', {}).values()
            for part in parts]


def _digests_of_changed(env: BuildEnvironment, names: dict[str, str], old: dict[str, str],
                        old_parts: dict[str, tuple[str, ...]], moved: frozenset[str],
                        ) -> tuple[dict[str, str], dict[str, tuple[str, ...]]] | None:
    """The digests of every card page where only the cards whose rulings,
    sections or spellings on the pages read again changed can show
    something else (the same reading order, and registry rows the same but
    where the links of the cards *moved* lead: see the module docstring):
    those computed again, the others kept; and the parts of each page.  A
    moved card shows on its own page and on those of the cards named with
    it in a ruling.  None where a card gained its first link or lost its
    last (the set of pages changed: every digest is computed again, since §
    links of other pages' rulings lead to the pages)."""
    registry = card_links.registry(env)
    before, records = store(env).before, store(env).pages
    keys = {k for doc in changes(env).pages for k in shown_keys(before.get(doc), records.get(doc))}
    if moved:
        keys |= moved
        keys.update(key for record in records.values() for r in record.rulings
                    if moved.intersection(k for k, _name in r.cards) for key, _name in r.cards)
    labels = moved_labels(env)  # what an outdated ruling's → 最新调整 leads to moved
    if labels:
        keys.update(key for record in records.values() for r in record.rulings
                    if r.superseded_by in labels for key, _name in r.cards)
    keys = {registry[k].key for k in keys if k in registry}
    pages = card_pages(env, keys)
    present = {page.entry.card.key: page.name for page in pages}
    if present != {k: name for k, name in names.items() if k in keys} or \
            any(name not in old or name not in old_parts for name in present.values()):
        return None
    shown = Shown(env, names)
    return ({**old, **{page.name: shown(page) for page in pages}},
            {**old_parts, **{page.name: page.parts for page in pages}})


def shown_keys(old: PageRecord | None, new: PageRecord | None) -> set[str]:
    """The cards whose page may show something else of a page read again
    (its record *old* before, *new* now): every card it links where it is
    new, gone or retitled; else the cards of the rulings (their statuses
    included), sections and spellings that changed."""
    if old is None or new is None or old.title != new.title:
        return {key for record in (old, new) if record is not None
                for key in record.keys | record.ruling_keys}
    keys = {key for r in set(old.rulings) ^ set(new.rulings) for key, _name in r.cards}
    keys |= {key for s in set(old.sections) ^ set(new.sections) for key, _name in s.cards}
    keys |= {key for key, _name in set(old.cards) ^ set(new.cards)}
    return keys


# -- writing ----------------------------------------------------------------------------


def write_card_pages(app: Sphinx) -> list[tuple[str, dict[str, Any], str]]:
    """Write the card pages that changed (``html-collect-pages``; see
    :func:`writer`), those another process does not write (:func:`take`):
    Sphinx is handed no page.  The pages of cards no page links any more
    are removed."""
    if not enabled(app):
        return []
    outdir = Path(app.outdir)
    for name in state(app.env, CardPagesState).written.get('gone', ()):
        (outdir / f'{name}.html').unlink(missing_ok=True)
    copy_script(app)  # before the frame, whose link to it holds its checksum
    pages = take(app.env)
    if pages:
        writer(app, pages)(pages)
    return []


def take(env: BuildEnvironment, count: int | None = None) -> list[CardPage]:
    """*count* (None: all) of the card pages this build still has to write,
    taken: the caller writes them (:func:`writer`), nobody else does."""
    pages = remaining(env)
    pages = pages if count is None else pages[:count]
    store(env).per_build(TAKEN, set).update(page.name for page in pages)
    return pages


def remaining(env: BuildEnvironment) -> list[CardPage]:
    """The card pages this build writes that nobody took yet (:func:`take`)."""
    taken = store(env).per_build(TAKEN, set)
    return [page for page in pages_to_write_now(env) if page.name not in taken]


def pages_to_write_now(env: BuildEnvironment) -> list[CardPage]:
    """The card pages this build writes (computed once the pages were read)."""
    todo = set(state(env, CardPagesState).written.get('todo', ()))
    if not todo:
        return []
    # every page, where this build computed them all; else those of the cards to write
    pages = store(env).made('card_pages') or card_pages(
        env, {key for key, name in card_index.kept(env).card_pages.items() if name in todo})
    return [page for page in pages if page.name in todo]


def writer(app: Sphinx, pages: list[CardPage]) -> Callable[[list[CardPage]], None]:
    """What writes card pages among *pages*.  The theme's frame -- header,
    sidebars, footer, every ``html-page-context`` listener's additions -- is
    the same for every page of ``cards/`` but for the page's title and
    address: it is rendered once, by the builder, for a page whose title,
    address and content are tokens, and each page is that frame with its own
    title, address and content (``templates/handbook-card.html``), escaped.
    The speed package writes some of them in a process of its own
    (:mod:`handbook.speed.card_pages`)."""
    env = app.env
    builder = app.builder
    frame_name = f'{FOLDER}/{PAGE_TOKEN}'
    rulings = {(r.docname, r.anchor): r for page in pages
               for r in (*page.rulings, *page.overturned)}
    fragments = ruling_html(env, rulings.values(), frame_name)
    outdir = Path(app.outdir)
    frame_file = outdir / FOLDER / f'{PAGE_TOKEN}.html'
    builder.handle_page(frame_name, {'title': TITLE_TOKEN, 'body': BODY_TOKEN, 'toc': '',
                                     'display_toc': False, 'handbook_card_frame': True},
                        'page.html', outfilename=frame_file)
    frame = frame_file.read_text(encoding='utf-8')
    frame_file.unlink()
    context = Contexts(app, fragments)
    # the template once (the loader would look it up and stat it for every page)
    template = builder.templates.environment.get_template(TEMPLATE)

    def write(some: list[CardPage]) -> None:
        for page in some:
            parts = split(page, env.config.handbook_card_page_rulings)
            description = html.escape(context.description(page, parts))
            for number, (part, values) in enumerate(zip(page.parts, context(page, parts),
                                                        strict=True), 1):
                title = context.title(page, number)
                ident = part.removeprefix(f'{FOLDER}/')
                text = (frame.replace(TITLE_TOKEN, html.escape(title))
                        .replace(DESCRIPTION_TOKEN, description)
                        .replace(PAGE_TOKEN, quote(ident))
                        # last: nothing in the content is replaced
                        .replace(BODY_TOKEN, template.render(values)))
                (outdir / f'{part}.html').write_text(text, encoding='utf-8')

    return write


def copy_script(app: Sphinx) -> None:
    """``_static/handbook-card-pages.js``, written only when it changed."""
    text = (f'/* handbook card pages (_ext/handbook/listings/card_pages.py) */\n'
            f'const HANDBOOK_CARD_SEPARATORS = {json.dumps(SEPARATOR_CLASS)};\n'
            f'{SCRIPT.read_text(encoding="utf-8")}')
    write_if_changed(Path(app.outdir, '_static', STATIC_SCRIPT), text)


class Contexts:
    """The template's context of each page (plain texts: the template escapes
    them).  What several pages show -- a ruling, a link, a fixed text -- is
    made once: every page is in ``cards/``, so a link is the same on each."""

    def __init__(self, app: Sphinx, fragments: dict[tuple[str, str], str]) -> None:
        self.env = app.env
        self.builder = app.builder
        self.language = self.env.config.language
        self.registry = card_links.registry(self.env)
        self.urls = card_links.url_templates(self.env)
        self.fragments = fragments
        self.links: dict[str, str] = {}
        self.items: dict[tuple[str, str], dict[str, Any]] = {}
        self.rendered: dict[tuple[Any, ...], str] = {}
        self.ruling_template = self.builder.templates.environment.get_template(RULING_TEMPLATE)
        self.partners: dict[str, dict[str, str]] = {}
        self.texts = {
            'series': str(_('系列')),
            'aliases': str(_('其他写法：')),
            'filter': str(_('与另一张卡')),
            'placeholder': str(_('输入卡名')),
            'some': str(_('{count} 条裁定同时提到「{name}」')),
            'none': str(_('没有裁定同时提到「{name}」')),
            # a page of several parts: the filter counts this part's rulings, and names the others
            'some_here': str(_('本页 {count} 条裁定同时提到「{name}」')),
            'none_here': str(_('本页没有裁定同时提到「{name}」')),
            'elsewhere': str(_('其他页：')),
            'part': str(_('第 {page} 页')),
            'parts': str(_('裁定的各页')),
            'permalink': str(_('固定链接')),
            'also': str(_('也见于')),
            'superseded': str(_('→ 最新调整')),
        }

    def uri(self, docname: str, anchor: str = '') -> str:
        if docname not in self.links:
            self.links[docname] = self.builder.get_relative_uri(f'{FOLDER}/', docname)
        return f'{self.links[docname]}#{anchor}' if anchor else self.links[docname]

    def section_uri(self, label: str | None) -> str:
        """The address of the section labelled *label* (what supersedes an
        outdated day's rulings), or '' where there is none."""
        return (ruling_lines.section_href(self.builder, f'{FOLDER}/', label) or '') if label else ''

    def item(self, ruling: Ruling) -> dict[str, Any]:
        """A ruling of the list."""
        key = (ruling.docname, ruling.anchor)
        if key in self.items:
            return self.items[key]
        title = page_title(self.env, ruling.docname)
        registry = self.registry
        cards = dict.fromkeys((registry[k].key if k in registry else k) for k, _ in ruling.cards)
        self.items[key] = item = {
            'cards': ' '.join(cards),
            'statuses': [(code, statuses.label(code)) for code in ruling.status],
            'superseded_url': self.section_uri(ruling.superseded_by),
            # where the answer came from, as on its page: 数据库 #19691, wiki, 邮件
            'sources': [(kind, statuses.source_label(kind, detail))
                        for kind, detail in ruling.sources],
            'html': self.fragments.get((ruling.docname, ruling.anchor), html.escape(ruling.text)),
            'page_title': title, 'page_url': self.uri(ruling.docname),
            'section_title': ruling.section_title if ruling.section_title != title else '',
            # the date of a yearly FAQ page's day, which its line does not write (21/1/5)
            'day': ruling.day or '',
            'section_url': self.uri(ruling.docname, ruling.section_id),
            'url': self.uri(ruling.docname, ruling.anchor),
        }
        return item

    def once(self, group: list[Ruling]) -> dict[str, Any]:
        """A ruling shown once for every place it is in (:mod:`handbook.rulings.same`):
        the first, and the others' places."""
        first = self.item(group[0])
        if len(group) == 1:
            return first
        also = []
        for ruling in group[1:]:
            other = self.item(ruling)
            also.append({'text': place_title(other['page_title'], other['section_title']),
                         'url': other['url']})
        return {**first, 'also': also}

    def html(self, group: list[Ruling], struck: bool) -> str:
        """A ruling of the list, rendered (:data:`RULING_TEMPLATE`): once per
        build, however many card pages show it."""
        key = (struck, *((ruling.docname, ruling.anchor) for ruling in group))
        done = self.rendered.get(key)
        if done is None:
            done = self.rendered[key] = self.ruling_template.render(
                ruling=self.once(group), struck=struck, texts=self.texts)
        return done

    def description(self, page: CardPage, parts: list[list[tuple[bool, list[Ruling]]]]) -> str:
        """What a link to the page says (its preview, ``og:description``): the
        card's name, its count of rulings and the newest of them, cut to
        ``handbook_description_width`` columns; *parts* what its parts list
        (:func:`split`)."""
        name = page.entry.card.name_in(self.language)
        # counted as the page counts them: a ruling said in several places once
        count, gone = counts(parts)
        if not count and gone:  # as the page's summary says it
            return str(_('没有现行的裁定提到「{name}」：提到它的 {count} 条裁定都已被推翻或'
                         '已过时。').format(name=name, count=gone))
        if not count:
            return str(_('没有裁定提到「{name}」。').format(name=name))
        newest = page.rulings[0]
        dated_by = newest.dated_for(page.entry.card.key)
        dates = dated_by.text if dated_by else ''
        return cut(str(_('「{name}」的 {count} 条裁定。最新（{date}）：{text}').format(
            name=name, count=count, date=dates, text=newest.text)),
            self.env.config.handbook_description_width)

    def partner(self, key: str) -> dict[str, str]:
        """A suggestion of the filter: a card, its folded names but its key
        (the script adds the key: most cards have no other name)."""
        if key not in self.partners:
            card = self.registry[key]
            names = {fold(card.name), *(fold(alias) for _lang, alias in card.aliases)} - {key}
            self.partners[key] = {'key': key, 'name': card.name_in(self.language),
                                  'names': ' '.join(sorted(names))}
        return self.partners[key]

    def title(self, page: CardPage, number: int) -> str:
        """The title of the part *number* (from 1) of *page*: the card's name,
        and the part's number after the first."""
        name = page.entry.card.name_in(self.language)
        return name if number == 1 else str(_('{name}（第 {page} 页）').format(
            name=name, page=number))

    def __call__(self, page: CardPage, parts: list[list[tuple[bool, list[Ruling]]]]
                 ) -> list[dict[str, Any]]:
        """The context of each part of *page*, *parts* what they list (:func:`split`)."""
        registry = self.registry
        card = page.entry.card
        name = card.name_in(self.language)
        # the other cards named with this one: how often, and on which parts
        shared: dict[str, int] = {}
        where: dict[str, dict[int, None]] = {}
        for number, part in enumerate(parts, 1):
            for _folded, group in part:
                for ruling in group:
                    for key, _written in ruling.cards:
                        other = registry.get(key)
                        if other is not None and other.key != card.key:
                            shared[other.key] = shared.get(other.key, 0) + 1
                            where.setdefault(other.key, {})[number] = None
        several = len(parts) > 1
        partners = [{**self.partner(key), 'parts': ' '.join(map(str, where[key]) if several else ())}
                    for key in sorted(shared, key=lambda k: (-shared[k], k))]
        count, gone = counts(parts)
        if count:
            summary = _('{count} 条裁定提到「{name}」，最新的在前。').format(count=count, name=name)
        elif gone:
            summary = _('没有现行的裁定提到「{name}」：提到它的 {count} 条裁定都已被推翻或'
                        '已过时。').format(name=name, count=gone)
        else:
            summary = _('没有裁定提到「{name}」。').format(name=name)
        aliases = [alias for _lang, alias in card.aliases if alias != name]
        if name != card.name:
            aliases.insert(0, card.name)
        pager = [{'number': number, 'url': self.uri(part)}
                 for number, part in enumerate(page.parts, 1)] if several else []
        # the first part that lists folded rulings
        folded_at = next((number for number, part in enumerate(parts, 1)
                          if any(folded for folded, _group in part)), 0)
        common = {
            'handbook_card': {
                'name': name, 'key': card.key, 'kind': card.kind, 'url': self.urls.url(card),
                'aliases': [*dict.fromkeys([*aliases, *page.spellings])],
                # its names folded: the filter shows every ruling for them
                'folded': ' '.join(sorted({card.key, fold(card.name),
                                           *(fold(alias) for _lang, alias in card.aliases)})),
            },
            'handbook_card_partners': partners,
            'handbook_card_texts': {
                **self.texts,
                'database': str(_('在卡片数据库中查看「{name}」').format(name=name)),
                'summary': str(summary),
                'overturned': str(_('已被推翻或已过时的裁定（{count}）').format(
                    count=len(page.overturned))),
                'places': str(_('提到「{name}」的章节').format(name=name)),
                'pages': str(_('共 {count} 页：').format(count=len(parts))),
                'overturned_at': str(_('已被推翻或已过时的裁定（{count}）在第 {page} 页')
                                     .format(count=len(page.overturned), page=folded_at)),
            },
        }
        places = [{'text': p.page_title if not p.section_title else
                   f'{p.page_title} › {p.section_title}',
                   'url': self.uri(p.docname, p.section_id)} for p in page.entry.places]
        out, standing, fallen = [], 0, 0
        for number, part in enumerate(parts, 1):
            rulings = [self.html(group, False) for folded, group in part if not folded]
            overturned = [self.html(group, True) for folded, group in part if folded]
            out.append({
                **common,
                'handbook_card_rulings': rulings,
                'handbook_card_overturned': overturned,
                # where each list's numbers start on this part
                'handbook_card_start': (standing + 1, fallen + 1),
                'handbook_card_places': places if number == 1 else [],
                'handbook_card_part': {
                    'number': number, 'pages': _window(pager, number),
                    'overturned_url': self.uri(page.parts[folded_at - 1])
                    if folded_at and not overturned and number < folded_at else '',
                },
            })
            standing, fallen = standing + len(rulings), fallen + len(overturned)
        return out


#: the parts a part's bar links on either side of it (and the first and the last)
NEAR = 2


def _window(pager: list[dict[str, Any]], number: int) -> list[dict[str, Any] | None]:
    """The bar of the part *number*: the first and the last part, those
    within :data:`NEAR` of it, and None for each gap (…).  Every part showed
    every part, twice: a card of 35,000 rulings' 176 parts wrote 60,000
    links (a profiling round trip: quadratic in its rulings)."""
    shown = [entry for entry in pager if entry['number'] in (1, len(pager))
             or abs(entry['number'] - number) <= NEAR]
    out: list[dict[str, Any] | None] = []
    for entry in shown:
        if out and out[-1] is not None and entry['number'] > out[-1]['number'] + 1:
            out.append(None)
        out.append(entry)
    return out


def prepare_frame(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                  doctree: Any) -> None:
    """The card pages' frame gets the filter's script, and the tags of a
    link's preview, each page's title and description a token (``html-page-context``)."""
    if context.get('handbook_card_frame'):
        app.add_js_file(STATIC_SCRIPT)
        if app.builder.name != 'epub':
            context['metatags'] = context.get('metatags', '') + preview_tags(
                app, pagename, TITLE_TOKEN, DESCRIPTION_TOKEN)


def add_templates(app: Sphinx, config: Any) -> None:
    if str(TEMPLATES) not in config.templates_path:
        config.templates_path = [*config.templates_path, str(TEMPLATES)]


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.render.ruling_html')  # rulings rendered once
    app.setup_extension('handbook.listings.card_index')
    app.setup_extension('handbook.publishing.editions')
    app.setup_extension('handbook.publishing.link_previews')  # a page's preview tags
    app.setup_extension('handbook.publishing.reader_tools')  # its § leads to the card pages
    app.add_config_value('handbook_card_pages', True, 'html', types=frozenset({bool}),
                         description='a page per card and series, cards/<id>.html')
    app.add_config_value('handbook_card_page_rulings', 200, 'html', types=frozenset({int}),
                         description='the rulings a card page lists; more are on its '
                                     'next parts, cards/<id>_2.html')
    app.connect('config-inited', add_templates)
    # after card_index's (500): the entry ids are the store's for this build
    app.connect('env-get-outdated', note_labels)  # where → 最新调整 leads, before the read
    app.connect('env-get-updated', pages_to_write, priority=600)
    app.connect('html-collect-pages', write_card_pages, priority=WRITE_PRIORITY)
    app.connect('html-page-context', prepare_frame)
    app.connect(CARD_PAGE, where_cards_lead)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
