"""Ruling lines: what one ruling is, its permalink, and the record of every ruling.

**What one ruling is.**  A ruling is whole sentences with their dated
ruling references (the ``ruling`` role, a legacy date link or a date written
as plain text, see :mod:`handbook.rulings.dates`).  The block that holds them -- a line of a
line block, or a paragraph (of a list item, an admonition, …) -- is cut
into rulings at its dates (:mod:`handbook.rulings.sentences`):

* a ruling runs from the end of the previous ruling (or the start of the
  block) to the end of the sentence its date dates, with every date of that
  sentence: a date right after a 。 dates the sentence before it, a date
  inside a sentence the whole sentence;
* dates separated only by spaces belong to one ruling (``14/3/21 14/3/21``:
  one ruling, answered in two FAQs);
* a sentence that starts with a continuation (，、；也但而) goes on with the
  ruling before it;
* text after the block's last date, if any, belongs to the last ruling (it
  continues it: ``…不会无效。14/3/21 把这个…就仍然被无效。``).

A ruling whose sentence gives its cards dates of their own (``「A」16/11/10
「B」16/10/7 的效果…``, ``…A。17/12/22 但「B」…。17/7/28``) dates each card
by the first dates after its name (the dates with no card's name between
them are one group, dated by its newest; the last group, for a name after
every date): the card index and the card pages show that date for the card
(:meth:`Ruling.dated_for`), the ruling's own date being its newest.  Where
every card falls to one group (``「A」和「B」…。17/3/24 18/1/10``), each
is dated as the ruling is.

A block that holds only its dates (``| 17/3/24`` under the line it dates, a
paragraph or a table cell that is a date) is no ruling: a ruling with no
text would show as an empty result in the search, the feed and the card
pages.  Its dates stay on the page, checked and linked; a note
(``handbook.ruling-alone``) says to write them at the end of the sentence
they date, the line or paragraph before it when there is one.

So this line holds three rulings, A, B and C, and the next one::

    | A。\\ :ruling:`17/12/22` B。\\ :ruling:`17/7/28` C。\\ :ruling:`17/12/22`
    | 「甲」怪兽\\ :ruling:`17/3/24` 和「乙」怪兽\\ :ruling:`17/3/24` 立即被破坏。

On a yearly FAQ page (:mod:`handbook.rulings.days`) every line of a day's
line blocks is one ruling, dated with the day (its first reference, whose
``section`` is true), with the source of the header above it; the header
lines are not rulings.

**Permalinks.**  Each ruling is wrapped in an inline ``ruling_line`` node,
in HTML ``<span class="ruling-line" id="…">``, followed by the theme's
permalink icon (shown on hover, like a heading's ¶; CSS in
``_static/handbook.css``); in LaTeX a link target.  The id depends only on
what identifies the ruling, never on its position, so inserting or editing
other lines keeps it::

    ruling-<date>[-<date>…][-faq<id>…][-<first card>]
    ruling-2018-12-24-倍倍伤害
    ruling-2017-03-24-faq19691-旋风

(dates ISO, each distinct date once, a yearly FAQ page's day first; FAQ ids as given
by ``<faq:ID>`` or a date link's address -- not by a role's address, whose id
is read for the export and the badge but was not in the permalinks before; the first card the
ruling names, as its registry key -- the folded registry name, see
:func:`card_registry.fold` -- so a spelling variant or an alias gives the same
id).  Where two rulings of a page would get the same id, each of them gets a
short hash of its card keys and text appended
(``ruling-2017-03-24-旋风-1a2b3c``), so neither depends on which comes first;
only rulings identical in every respect fall back to a number (``-2``) in
page order.  Editing a ruling's own text keeps its id unless the ruling has
such a twin, whose hash the text is part of; a new twin of a ruling (same
date, FAQ id and first card) changes that ruling's id, and the first twin in
page order keeps the id without its hash as a second one (its ``ids[1]``), so
that a link made before leads to it (to the new twin, where that is first).  The id is also
recorded on each of the ruling's reference nodes, as the attribute
``ruling_anchor``.

**The record.**  Every ruling of every page is kept in the handbook store
(:mod:`handbook.store`: purged and merged per page, so parallel and
incremental builds stay exact); other extensions read it with :func:`rulings`:
``{docname: [Ruling, …]}`` in page order.  A :class:`Ruling` has the page,
section id and title, anchor, references (date as written, ISO date, FAQ id,
URL), the cards it names (registry key and name as written; in a table, also
those of its row's cells that hold no ruling: :func:`ruling_cards`; a sentence
that names none, cut from a block after one that does, is about that one's
cards and takes them: ``「轻盈水星」…不再适用。17/3/24 被一时除外的场合，仍然
适用。17/3/24``; its permalink stays its own), its plain text (without the
dates and the marks of footnotes), two flags: ``struck`` (it contains ``:strike:``
text) and ``changed`` (struck, or its text contains one of
``handbook_changed_markers``), and what :mod:`handbook.rulings.statuses`
reads: ``status`` (codes ``changed``, ``open``, ``confirmed``,
``superseded``, ``overturned``), ``replaces`` / ``replaced_by`` (anchors of
the overturned rulings of its line it replaced, of the ruling that replaced
it), ``superseded_by`` (the label of the section an outdated day points to)
and ``sources`` (``(kind, detail)``); ``block`` numbers its line on the page
(rulings of one line share it); :attr:`Ruling.date` is its date (its day's,
else its newest).  :class:`RulingNodes` gives a ruling's nodes
as read.  :func:`changed_pages` tells which pages' rulings were added,
removed or changed in this build -- a page read again with the same rulings
does not count, unless a registry edit changed one of their card links --
(the timeline uses it).

**In HTML** a ruling is ``<span class="ruling-line" id="…">``, or, where
it is a line of a line block on its own (most are), that line itself:
``<div class="line ruling-line" id="…">``.  After its dates come its status
badges, its replacement links (``← 原裁定``, ``→ 现裁定``) and its source
badges (:mod:`handbook.rulings.statuses`), and nothing else: its permalink ¶
and its copy-link button are made by the browser, once, when a reader points
at, taps or tabs into the ruling (:mod:`handbook.publishing.reader_tools`),
so that a page of thousands of rulings carries no button or second link per
ruling.  EPUB and LaTeX get the badges and links.  As it writes a ruling
line, the HTML translator leaves the HTML of the ruling (up to its badges)
on the page's document (:func:`written_html`), for the pages that show the
ruling elsewhere (:mod:`handbook.render.ruling_html`).

Configuration: ``changed_markers`` in the handbook's settings file
(``source/handbook.toml``, :mod:`handbook.core.settings`), else conf.py's
``handbook_changed_markers``::

    changed_markers = ['裁定变更', '调整中确认']
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import pickle
import re
from collections import Counter
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx import addnodes
from sphinx.errors import NoUri
from sphinx.transforms import SphinxTransform
from sphinx.util.nodes import clean_astext

from handbook.core import reports
from handbook.core.records import frozen_record
from handbook.nodes import (
    ancestors,
    card_of,
    held_references,
    is_reference,
    is_struck,
    references_in,
    ruling_line,
)
from handbook.rulings import days, same, sentences, statuses
from handbook.sections.ids import slug
from handbook.store import PAGE_READ, Contribution, changes, collect, store, writes_pages

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment
    from sphinx.writers.html5 import HTML5Translator
    from sphinx.writers.latex import LaTeXTranslator

#: the cross-references whose text depends on nothing but the registry and the
#: ruling's own page; a ruling with another one (a :ref:) keeps its nodes in the store
LASTING_XREFS = ('card', 'anchor')
#: the page's document attribute where the HTML translator leaves each ruling's
#: HTML as it writes it (:func:`written_html`), and the attribute of a ruling
#: line, while it is written, that says where its HTML starts
WRITTEN_HTML = 'handbook_written_rulings'
_WRITTEN_FROM = 'handbook_written_from'
#: the store's walk sorts each page's ruling lines under this kind (``PageNodes[RULINGS]``)
RULINGS = 'rulings'
#: the store's kind of the links whose text names a source (``wiki <URL>``__)
SOURCE_LINKS = 'ruling-source-links'
#: the attribute of a yearly FAQ page's day section
DAY_SECTION = 'ruling_day_section'


@frozen_record
class Reference:
    """One dated ruling reference."""

    text: str  # the date as written, e.g. '17/3/24'
    date: str | None  # ISO date, None when the date is invalid (warned)
    faq: str | None  # official FAQ id
    url: str | None
    section: bool = False  # the date of the day section the ruling sits in (days.py)


@frozen_record
class Ruling:
    """One ruling of a page (see the module docstring)."""

    docname: str
    index: int  # position in the page, for ordering only (never in the anchor)
    anchor: str
    section_id: str
    section_title: str
    references: tuple[Reference, ...]
    cards: tuple[tuple[str, str], ...]  # (registry key, name as written), first use first
    text: str
    changed: bool
    struck: bool
    status: tuple[str, ...] = ()  # handbook.rulings.statuses.STATUSES, in that order
    replaces: tuple[str, ...] = ()  # anchors of the overturned rulings it replaced
    replaced_by: str | None = None  # anchor of the ruling that replaced it
    sources: tuple[tuple[str, str], ...] = ()  # (kind, FAQ id, label or ''): header, links
    block: int = 0  # its line (line-block line or paragraph) on the page, counted from 0
    superseded_by: str | None = None  # the label of the section an outdated day points to
    #: (card key, index of its reference) of each card dated otherwise than the
    #: ruling (:func:`card_dates`); most rulings have none
    card_dates: tuple[tuple[str, int], ...] = ()
    #: ``[start, end)`` of each struck part of :attr:`text`, in characters, where
    #: some of its words are struck and some not (:func:`struck_spans`)
    struck_spans: tuple[tuple[int, int], ...] = ()
    #: a digest of its markup (:func:`markup_of`): a ruling whose markup alone
    #: changed (its words set in bold) is another record, so that the lists that
    #: show its HTML (card pages) write it again
    markup: str = ''
    #: a digest of what makes two rulings the same (:func:`handbook.rulings.same.digest`),
    #: made as the page is read: the lists that show each ruling once group by it
    same: str = ''

    @property
    def dates(self) -> tuple[str, ...]:
        """The valid ISO dates, one per reference, as written (the day's first)."""
        return tuple(r.date for r in self.references if r.date)

    @property
    def day(self) -> str | None:
        """The date of the yearly FAQ page's day it is a line of, as written
        (``21/1/5``), where the line itself does not write it; None elsewhere."""
        day = next((r for r in self.references if r.section), None)
        if day is None or any(r.date == day.date for r in self.references if not r.section):
            return None
        return day.text

    @property
    def shown_dates(self) -> tuple[tuple[str, str | None], ...]:
        """Its dates as the lists show them, ``(as written, ISO)``, each once
        (a sentence that cites 17/3/24 for two clauses shows it once)."""
        return tuple(dict.fromkeys((r.text, r.date) for r in self.references))

    @property
    def newest(self) -> str | None:
        return max(self.dates, default=None)

    @property
    def dated_by(self) -> Reference | None:
        """The reference that gives the ruling its date: its day on a yearly
        FAQ page, else its newest valid one (else its first)."""
        if not self.references:
            return None
        first = self.references[0]
        if first.section:
            return first
        return max((r for r in self.references if r.date), key=lambda r: r.date, default=first)

    def dated_for(self, key: str) -> Reference | None:
        """The reference that dates the ruling for the card *key*: the date
        written after the card's name where the sentence dates its cards
        apart, else :attr:`dated_by`."""
        for card, at in self.card_dates:
            if card == key:
                return self.references[at]
        return self.dated_by

    @property
    def date(self) -> str | None:
        """The ruling's date (ISO): its day's on a yearly FAQ page, else its newest."""
        dated_by = self.dated_by
        return dated_by.date if dated_by is not None else None


def cards_named(env: BuildEnvironment, node: nodes.Element) -> list[tuple[str, str]]:
    """``(key, name as written)`` of each card the ruling links, first use
    first.  The key is the registry's folded name of the card (so spelling
    variants and aliases give the same key), else the folded name as written:
    resolved when it was read (:func:`handbook.nodes.card_of`)."""
    found: dict[str, str] = {}
    for link in node.findall(nodes.Inline):  # a walk for a class: fast
        card = card_of(link)
        if card is not None:
            found.setdefault(*card)
    return list(found.items())


def ruling_cards(env: BuildEnvironment, line: ruling_line) -> list[tuple[str, str]]:
    """The cards a ruling names (:func:`cards_named`); for a ruling in a table
    cell, also those linked in the cells of its row that hold no ruling (a
    table of 卡名 | 裁定: the row's card is the ruling's), in the row's
    order."""
    own = cards_named(env, line)
    cell = line.parent
    while cell is not None and not isinstance(cell, (nodes.entry, nodes.section)):
        cell = cell.parent
    if not isinstance(cell, nodes.entry) or not isinstance(cell.parent, nodes.row):
        return own
    found: dict[str, str] = {}
    for other in cell.parent.children:
        if other is cell:
            named = own
        elif next(references_in(other), None) is None:
            named = cards_named(env, other)
        else:
            continue
        for key, name in named:
            found.setdefault(key, name)
    return list(found.items())


class RulingLines(SphinxTransform):
    """Wrap each ruling in a ``ruling_line`` with its permanent id: the lines
    of a yearly FAQ page's days whole (:mod:`handbook.rulings.days`), the
    other blocks that hold dates cut into whole sentences
    (:mod:`handbook.rulings.sentences`)."""

    # after section ids (840) and card references (845), before doctree-read (880)
    default_priority = 870

    def apply(self, **kwargs: Any) -> None:
        config = self.config
        found_days: dict[int, days.Day] = {}
        whole: dict[int, days.DayLine] = {}  # the lines of the days, by id()
        if days.is_faq_page(config, self.env.docname):
            today = datetime.date.today()
            for section, day in days.days(self.document, today, config):
                found_days[id(section)] = day
                section[DAY_SECTION] = True  # its text is the days' (undated_sources)
                for day_line in days.day_lines(section, day, config):
                    whole[id(day_line.line)] = day_line
        blocks: dict[int, nodes.Element] = {id(d.line): d.line for d in whole.values()}
        for ref in references_in(self.document):
            block = self.block_of(ref)
            if block is not None and not block.get(days.SOURCE_HEADER):  # | 邮件：21/3/1
                blocks.setdefault(id(block), block)
        if len(blocks) > len(whole) and whole:  # both kinds: in page order
            ordered = [node for node in self.document.findall(nodes.TextElement)
                       if id(node) in blocks]
        else:
            ordered = list(blocks.values())
        found = []
        for block in ordered:
            if only_dates(block):
                lone_dates(block, config)
                continue
            day_line = whole.get(id(block))
            if day_line is not None:
                children = list(block.children)
                block.clear()
                if day_line.label:  # | 邮件：「旋风」……: the label stays outside the ruling
                    first = children.pop(0).astext()
                    block += nodes.Text(first[:day_line.label])
                    if first[day_line.label:]:
                        children.insert(0, nodes.Text(first[day_line.label:]))
                line, refs = self.wrap(block, children)
                line['ruling_day'] = (day_line.day.written, day_line.day.iso)
                if day_line.source is not None:
                    line['ruling_header'] = day_line.source
                if day_line.outdated:  # '': superseded, with no section to link
                    line['ruling_superseded'] = day_line.superseded_by or ''
                found.append((line, refs))
                continue
            day = days.day_of(block, found_days) if found_days else None
            for line, refs in self.split(block):
                if day is not None:
                    line['ruling_day'] = (day.written, day.iso)
                found.append((line, refs))
        self.assign_ids(found)

    @staticmethod
    def block_of(ref: nodes.Element) -> nodes.Element | None:
        """The line or paragraph whose text the reference dates."""
        node = ref.parent
        while node is not None and not isinstance(node, nodes.TextElement):
            node = node.parent
        while node is not None and not isinstance(node, (nodes.line, nodes.paragraph)) \
                and isinstance(node.parent, nodes.TextElement):
            node = node.parent  # a date inside emphasis: the enclosing line
        return node

    @staticmethod
    def wrap(block: nodes.Element, children: list[nodes.Node]
             ) -> tuple[ruling_line, list[nodes.Element]]:
        """*children* of *block* (taken out of it), wrapped in one ruling line
        at the block's end; the line and its ruling references."""
        line = ruling_line('', '', classes=['ruling-line'])
        line.extend(children)
        block += line
        return line, [ref for child in children for ref in held_references(child)]

    def split(self, block: nodes.Element) -> list[tuple[ruling_line, list[nodes.Element]]]:
        """Cut *block*'s children into rulings of whole sentences: each
        ruling, and its ruling references."""
        groups = sentences.cut(list(block.children), lambda child: bool(held_references(child)))
        block.clear()
        return [self.wrap(block, group) for group in groups]

    def assign_ids(self, found: list[tuple[ruling_line, list[nodes.Element]]]) -> None:
        document = self.document
        bases = [self.base_id(line, refs) for line, refs in found]
        count = Counter(bases)
        taken = set(document.ids)
        used: set[str] = set()
        for (line, refs), base in zip(found, bases):
            alias = None
            if count[base] > 1 or base in taken:
                if base not in taken and base not in used:
                    alias = base  # links made before it had a twin lead to the first twin
                    used.add(base)
                keys = sorted(key for key, _name in ruling_cards(self.env, line))
                text = re.sub(r'\s+', '', line.astext())
                digest = hashlib.sha1('\0'.join([*keys, text]).encode()).hexdigest()[:6]
                base = f'{base}-{digest}'
            anchor, n = base, 1
            while anchor in used or anchor in taken:
                n += 1
                anchor = f'{base}-{n}'
            used.add(anchor)
            line['ids'].append(anchor)
            document.ids[anchor] = line
            if alias is not None:
                line['ids'].append(alias)
                document.ids[alias] = line
            for ref in refs:
                ref['ruling_anchor'] = anchor

    def base_id(self, line: ruling_line, refs: list[nodes.Element]) -> str:
        """``ruling-<dates>-<FAQ ids>-<first card>``: the day's date first, on
        a yearly FAQ page."""
        parts: list[str] = []
        day = line.get('ruling_day')
        if day is not None:
            parts.append(day[1] or slug(day[0]))
        for ref in refs:
            part = ref.get('ruling_date') or slug(ref['ruling_text'])
            if part not in parts:
                parts.append(part)
        for ref in refs:
            faq = ref.get('ruling_faq')
            if ref.get('ruling_faq_of_url'):
                continue  # a role's address: not in the permalinks it gave before it was read
            if faq and f'faq{slug(faq)}' not in parts:
                parts.append(f'faq{slug(faq)}')
        cards = ruling_cards(self.env, line)
        if cards:
            parts.append(slug(cards[0][0]))
        return '-'.join(['ruling', *filter(None, parts)])


def record(env: BuildEnvironment, index: int, line: ruling_line,
           sections: dict[int, tuple[str, str]]) -> Ruling:
    """What the environment keeps about one ruling (*sections*: the id and
    title of each section of the page met so far, by ``id()``)."""
    section = line.parent
    while section is not None and not isinstance(section, nodes.section):
        section = section.parent
    if section is None:
        section_id = section_title = ''
    elif id(section) in sections:
        section_id, section_title = sections[id(section)]
    else:
        section_id = section['ids'][0] if section['ids'] else ''
        section_title = clean_astext(section[0]) if isinstance(section[0], nodes.title) else ''
        sections[id(section)] = section_id, section_title
    day = line.get('ruling_day')
    references = tuple(
        Reference(ref['ruling_text'], ref.get('ruling_date'), ref.get('ruling_faq'),
                  ref.get('ruling_url'))
        for ref in references_in(line))
    if day is not None:
        references = (Reference(day[0], day[1], None, None, section=True), *references)
    cards = tuple(ruling_cards(env, line))
    inside = list(line.findall(include_self=False))
    struck = is_struck(line) or any(is_struck(node) for node in inside
                                    if isinstance(node, nodes.Element))
    text = plain_text(line)
    markers = env.config.handbook_changed_markers
    changed = struck or any(marker in text for marker in markers)
    superseded = line.get('ruling_superseded')
    status = statuses.read_status(line, markers, superseded=superseded is not None)
    spans = struck_spans(line, text) if struck and 'overturned' not in status else ()
    ruling = Ruling(env.docname, index, line['ids'][0], section_id, section_title, references,
                    cards, text, changed, struck, status=status,
                    sources=statuses.read_sources(references, env.config,
                                                  line.get('ruling_header')),
                    superseded_by=superseded or None, struck_spans=spans,
                    markup=markup_of(inside))
    if day is None and len(cards) > 1 and len({r.date for r in references if r.date}) > 1:
        dates = card_dates(line, ruling.dated_by)
        if dates:
            return dataclasses.replace(ruling, card_dates=dates)
    return ruling


#: the attributes of an element that say what a ruling's HTML shows (its
#: targets, its kind of reference, an image's address), besides its name and classes
_MARKUP = ('refuri', 'reftarget', 'refid', 'reftype', 'refdomain', 'refexplicit', 'uri')


def markup_of(inside: list[nodes.Node]) -> str:
    """A short digest of a ruling's markup, the nodes *inside* its line in
    document order: each element's name, classes and target, each text as
    it is (a date moved in the sentence is the same text to the record)."""
    digest = hashlib.blake2b(digest_size=8)
    for node in inside:
        if isinstance(node, nodes.Text):
            digest.update(f'{node}\1'.encode())
        else:
            digest.update('\0'.join(map(str, (
                node.tagname, node.get('classes'), *(node.get(name, '') for name in _MARKUP)),
            )).encode() + b'\1')
    return digest.hexdigest()


#: around struck text, as :func:`struck_spans` reads it (control characters: no text holds them)
_STRUCK_START, _STRUCK_END = '\x02', '\x03'


def struck_spans(line: nodes.Element, text: str) -> tuple[tuple[int, int], ...]:
    """``[start, end)`` of each struck part of *text*, the plain text of
    *line* (:func:`plain_text`): its text read again with its struck
    elements marked.  None (``()``) where the marks moved the text otherwise
    (a space beside struck text that the plain text closes up): its reader
    sees the words unstruck, as before."""
    marked = plain_text(line, struck=True)
    for attempt in (marked, re.sub(r'\s*([\x02\x03])\s*', r'\1', marked)):
        spans, out, start = [], [], None
        for char in attempt:
            if char == _STRUCK_START:
                start = len(out) if start is None else start
            elif char == _STRUCK_END:
                if start is not None and len(out) > start:
                    spans.append((start, len(out)))
                start = None
            else:
                out.append(char)
        if ''.join(out) == text:
            return tuple(spans)
    return ()


def card_dates(line: ruling_line, own: Reference | None) -> tuple[tuple[str, int], ...]:
    """``(card key, index of its reference)`` of each card of *line* dated
    otherwise than *own*, the ruling's date, where the line dates its cards
    apart: the dates between two card names are a group (``17/3/24、18/1/10``
    after a sentence is one), and a card is dated by the newest date of the
    first group after its name (the last group, after every date).  Empty
    where every card falls to one group.  One walk of the line."""
    firsts: dict[str, int] = {}  # card key -> its group
    groups: list[list[int]] = []  # each group's references, by index
    written: list[str | None] = []  # each reference's ISO date, in page order
    after_card = True  # a card's name since the last date: the next date opens a group
    for node in line.findall(nodes.Inline):
        if 'ruling_text' in node.attributes:
            if after_card:
                groups.append([])
                after_card = False
            groups[-1].append(len(written))
            written.append(node.get('ruling_date'))
            continue
        card = card_of(node)
        if card is not None:
            firsts.setdefault(card[0], len(groups))
            after_card = True
    if not groups or len({min(at, len(groups) - 1) for at in firsts.values()}) < 2:
        return ()
    out = []
    for key, at in firsts.items():
        dated = [i for i in groups[min(at, len(groups) - 1)] if written[i]]
        if dated:
            newest = max(dated, key=lambda i: written[i])
            if written[newest] != (own and own.date):
                out.append((key, newest))
    return tuple(out)


#: where a date was (no text holds it: control characters are not text)
_DATE = sentences.LEFT_OUT
#: what the dates leave behind once removed: brackets around dates only
#: (``…破坏。（17/3/24）``, ``【17/3/24】``), dates and their colon at the start
#: (``17/7/28：「罪」…``), the 、 ， ； 和 … between two dates (``17/3/24、17/12/22``),
#: the space after a bracket that a date opened (``（17/7/28 修正）``)
_DATES = rf'{_DATE}(?:\s*[{re.escape(sentences.JOINERS)}]?\s*{_DATE})*'
_OPEN, _CLOSE = (f'[{re.escape(brackets)}]' for brackets in (sentences.OPEN, sentences.CLOSE))
#: a character that no date leaves behind (what only held a date: brackets, a
#: colon, what joins two dates; Chinese characters outside the signs block)
_HOLDERS = re.escape(sentences.OPEN + sentences.CLOSE + sentences.JOINERS)
_WORD = re.compile(rf'[^\s{_DATE}{_HOLDERS}：:]')
_LEFT_BY_DATES = re.compile(rf'^\s*{_DATES}\s*[：:]|\s*{_OPEN}\s*{_DATES}\s*{_CLOSE}'
                            rf'|(?<={_OPEN})\s*{_DATES}\s*|{_DATES}')


def plain_text(line: nodes.Element, struck: bool = False) -> str:
    """The ruling's text as the reader sees it, without its dates (the
    line's ``astext()`` as if its date references were removed) and without
    the brackets and separators that only held them, nor the spaces that
    stood beside them between Chinese words (``怪兽\\ :ruling:`17/3/24` 和``:
    ``怪兽和``).  *struck*: each struck element's text between
    :data:`_STRUCK_START` and :data:`_STRUCK_END`."""
    text, left = _text_without_dates(line, struck), None
    while text != left:  # brackets that held only brackets that held dates: （（17/3/24））
        left, text = text, _LEFT_BY_DATES.sub(_DATE, text)  # each one date, as it were
    return re.sub(r'\s+', ' ', sentences.unwrapped(sentences.close_up(text))).strip()


def only_dates(block: nodes.Element) -> bool:
    """Whether *block* holds nothing but its dates and what held them (most
    blocks have a word: told at a glance, not by their whole plain text)."""
    return not _WORD.search(_text_without_dates(block)) and not plain_text(block)


def lone_dates(block: nodes.Element, config: Config) -> None:
    """The note for *block*, a line, paragraph or cell that holds only its
    dates: it is no ruling (see the module docstring), and where its dates go."""
    written = [ref['ruling_text'] for ref in references_in(block)]
    dates, it, they = (f'date {written[0]}', 'it', 'it dates') if len(written) == 1 else (
        f'dates {", ".join(written)}', 'them', 'they date')
    what = 'line' if isinstance(block, nodes.line) else 'paragraph'
    before = block.parent[block.parent.index(block) - 1] if block.parent.index(block) else None
    if isinstance(before, type(block)) and before.astext().strip() and before.line \
            and not before.get(days.SOURCE_HEADER) and days.label_of(before) is None:
        end = re.sub(r'\s+', ' ', before.astext()).strip()[-12:]
        fix = (f'if the {what} above is what {they}, move {it} to its end, line '
               f'{before.line} (after "…{end}", joined by "\\ ")')
    else:  # the first line, or under a header or a label (| 数据库：, | 例：)
        fix = f'write {it} at the end of the sentence {they}'
    reports.note(f'this {what} holds only its {dates}, so it is no ruling: a date dates the '
                 f'sentence it ends; {fix}', location=block, subtype='ruling-alone',
                 config=config)


def is_source_link(node: nodes.Element, config: Config) -> bool:
    """Whether *node*, a link, names a ruling's source by its text
    (``wiki <https://yugioh-wiki.net/…>`__``, ``数据库 <…>``: a word of
    ``source_headers``, the whole text) and leads to an http(s) address."""
    if 'ruling' in node['classes'] or not node.get('refuri', '').startswith(('http://',
                                                                              'https://')):
        return False  # a date link, or no address
    text = node.astext().strip().casefold()
    return 0 < len(text) <= 12 and any(  # a date link's text is no word: told at a glance
        text == word.casefold() for word in days.with_defaults(config, 'handbook_source_headers'))


def undated_sources(app: Sphinx, page: Contribution) -> None:
    """``handbook-page-read``: a note for each line or paragraph that names a
    card and cites its source by a link (:func:`is_source_link`) but holds no
    date, outside a yearly FAQ page's days (whose text has notes of its own,
    :mod:`handbook.rulings.days`): it is no ruling, and the card pages, the
    search and ``rulings.json`` leave it out."""
    seen: set[int] = set()
    for link in page.nodes[SOURCE_LINKS]:
        block = RulingLines.block_of(link)  # as a date there would be found
        if not isinstance(block, (nodes.line, nodes.paragraph)) or id(block) in seen \
                or block.next_node(ruling_line) is not None \
                or any(node.get(DAY_SECTION) for node in ancestors(block)):
            continue
        seen.add(id(block))
        if not any(card_of(node) for node in block.findall(nodes.Inline)):
            continue
        what = 'line' if isinstance(block, nodes.line) else 'paragraph'
        reports.note(f'this {what} names a card and cites its source, {link.astext()!r}, but '
                     f'holds no date, so it is no ruling (card pages, the search and '
                     f'rulings.json leave it out): write the date of the answer as the '
                     f"link's text, `YY/M/D <{link['refuri']}>`__",
                     location=block, subtype='ruling-undated', config=app.config)


def _text_without_dates(node: nodes.Node, struck: bool = False) -> str:
    """*node*'s text, each date reference :data:`_DATE`, without the marks
    of its footnotes and citations (``[#]_``: a number, no word of the ruling);
    *struck*: struck text marked (:func:`plain_text`)."""
    if isinstance(node, (nodes.footnote_reference, nodes.citation_reference)) or (
            isinstance(node, addnodes.pending_xref) and node.get('refdomain') == 'citation'):
        return ''  # (Sphinx makes a citation's mark a cross-reference before we read)
    if not isinstance(node, nodes.Element) or type(node).astext is not nodes.Element.astext:
        text = node.astext()  # text, or a node of its own text
    else:
        text = node.child_text_separator.join(
            _DATE if is_reference(child) else _text_without_dates(child, struck)
            for child in node.children)
    return f'{_STRUCK_START}{text}{_STRUCK_END}' if struck and is_struck(node) else text


def read_rulings(app: Sphinx, page: Contribution) -> None:
    """The page's rulings, for the store (``handbook-page-read``)."""
    env = app.env
    lines = page.nodes[RULINGS]
    sections: dict[int, tuple[str, str]] = {}
    found = [record(env, i, line, sections) for i, line in enumerate(lines)]
    replaced_by, replaces = statuses.replacements(
        lines, ['overturned' in r.status for r in found])
    blocks: dict[int, int] = {}
    cards = [r.cards for r in found]
    for i, line in enumerate(lines):
        if not cards[i] and i and lines[i - 1].parent is line.parent \
                and '「' not in found[i].text:  # (a name not linked: another card)
            cards[i] = cards[i - 1]  # a sentence that goes on about the one before it
    found = [dataclasses.replace(
        r, replaces=tuple(found[j].anchor for j in replaces.get(i, ())),
        replaced_by=found[replaced_by[i]].anchor if i in replaced_by else None,
        block=blocks.setdefault(id(line.parent), len(blocks)), cards=cards[i],
        # with its final cards (those a sentence takes from the one before: a review)
        same=same.digest(r.text, r.struck_spans, cards[i], r.status))
        for i, (r, line) in enumerate(zip(found, lines))]
    for line, ruling in zip(lines, found):  # what the HTML shows after the dates
        line['ruling_marks'] = (ruling.status, ruling.replaces, ruling.replaced_by,
                                ruling.sources, ruling.superseded_by)
    page.rulings = tuple(found)
    if writes_pages(env):  # the rulings that the generated pages render at each build
        anew = {id(line) for line in map(ruling_of, page.nodes.xrefs) if line is not None}
        page.ruling_nodes = {line['ids'][0]: [detached(child) for child in line.children]
                             for line in lines if id(line) in anew and line['ids']}


def ruling_of(xref: addnodes.pending_xref) -> ruling_line | None:
    """The ruling that holds *xref*, a cross-reference whose text is another
    page's (not a card link; the store keeps that ruling's nodes), if any."""
    if xref.get('refdomain') in LASTING_XREFS:
        return None
    node = xref.parent
    while node is not None and not isinstance(node, ruling_line):
        node = node.parent
    return node


def detached(node: nodes.Node) -> nodes.Node:
    """A copy of *node* that keeps no reference to its document (a copied
    Text node would, and pickling it would pickle the whole page), nor its
    place in the page's source."""
    copy = node.deepcopy()
    for n in copy.findall():
        n.document = None
        n.source = n.line = None
    return copy


class RulingNodes:
    """The nodes of rulings as read, for the pages that show rulings of
    other pages (:mod:`handbook.render.ruling_html`), a new copy at each
    call: the store's where it keeps them (a ruling whose text is partly
    other pages'), else from the ruling's page's doctree (each read once)."""

    def __init__(self, env: BuildEnvironment) -> None:
        self.env = env
        self.lines: dict[str, dict[str, ruling_line]] = {}  # docname -> {anchor: line}

    def of(self, docname: str, anchor: str) -> list[nodes.Node] | None:
        kept = store(self.env).ruling_nodes(docname, anchor)
        if kept is not None:
            return kept
        if docname not in self.lines:
            self.lines[docname] = self._read(docname)
        line = self.lines[docname].get(anchor)
        return None if line is None else [detached(child) for child in line.children]

    def _read(self, docname: str) -> dict[str, ruling_line]:
        try:
            doctree = self.env.get_doctree(docname)
        except (OSError, EOFError, pickle.UnpicklingError):
            return {}
        return {line['ids'][0]: line for line in doctree.findall(ruling_line) if line['ids']}


def rulings(env: BuildEnvironment) -> dict[str, list[Ruling]]:
    """Every ruling of the handbook: ``{docname: [Ruling, …]}``, page order."""
    return {docname: list(page.rulings) for docname, page in store(env).pages.items()
            if page.rulings}


def page_order(env: BuildEnvironment) -> list[str]:
    """Every page in reading order: the table of contents from the root page,
    then pages outside it, sorted."""
    ordered = [doc for doc in env.collect_relations() if doc in env.all_docs]
    return ordered + sorted(set(env.all_docs) - set(ordered))


def changed_pages(env: BuildEnvironment) -> frozenset[str]:
    """Pages whose rulings were removed, added or changed in this build."""
    return changes(env).rulings


#: what HTML5Translator.visit_line writes for a line of a line block
_LINE_TAG = '<div class="line">'
#: the attribute of a ruling line written as its line's own element
_MERGED = 'handbook_merged'


def visit_ruling_line_html(self: HTML5Translator, node: ruling_line) -> None:
    """A ruling that is a line of a line block on its own is that line's
    ``<div class="line ruling-line" id="…">``: no ``<span>`` inside it, one
    element a ruling fewer on a page of thousands; else a ``<span
    class="ruling-line" id="…">``."""
    line = node.parent
    if (isinstance(line, nodes.line) and len(line) == 1 and len(node['ids']) == 1
            and self.body and self.body[-1] == _LINE_TAG):
        classes = ' '.join(['line', *node['classes']])
        self.body[-1] = f'<div class="{classes}" id="{self.attval(node["ids"][0])}">'
        node[_MERGED] = True
    else:
        self.visit_inline(node)
    node[_WRITTEN_FROM] = len(self.body)


def depart_ruling_line_html(self: HTML5Translator, node: ruling_line) -> None:
    """After the ruling: its status, replacement and source badges.  Its
    permalink and copy button are the readers' tools, made by the browser
    when a reader points at, taps or tabs into the ruling
    (:mod:`handbook.publishing.reader_tools`)."""
    start = node.attributes.pop(_WRITTEN_FROM, None)
    if start is not None and node['ids']:  # the ruling's HTML, for the pages that show it
        self.document.setdefault(WRITTEN_HTML, {})[node['ids'][0]] = ''.join(self.body[start:])
    marks = node.get('ruling_marks')
    if marks:
        *shown, superseded_by = marks
        href = section_href(self.builder, self.builder.current_docname, superseded_by) \
            if superseded_by else None
        self.body.append(statuses.marks_html(*shown, superseded_href=href,
                                             header=node.get('ruling_header')))
    if not node.attributes.pop(_MERGED, False):
        self.depart_inline(node)


def labelled_section(env: BuildEnvironment, label: str | None) -> tuple[str, str] | None:
    """The page and id of the section labelled *label* (a ``:ref:`` target:
    where an outdated day's ``→ 最新调整`` leads), or None where no page of
    the build defines it (its ``:ref:`` is reported where it is written;
    Sphinx's own labels, ``search`` or ``genindex``, are no section)."""
    found = env.domains.standard_domain.labels.get(label) if label else None
    if found is None or found[0] not in env.all_docs:
        return None
    return found[0], found[1]


def section_href(builder: Any, fromdocname: str, label: str) -> str | None:
    """The address, from *fromdocname*, of the section labelled *label*, or
    None (:func:`labelled_section`)."""
    found = labelled_section(builder.env, label)
    if found is None:
        return None
    docname, labelid = found
    try:
        uri = builder.get_relative_uri(fromdocname, docname)
    except NoUri:
        return None
    return f'{uri}#{labelid}' if labelid else uri


def written_html(doctree: nodes.document) -> dict[str, str]:
    """The HTML of each ruling of a page the HTML translator has just
    written, as on the page (without its status marks and permalink):
    ``{anchor: html}`` (taken from the doctree, once)."""
    return doctree.attributes.pop(WRITTEN_HTML, None) or {}


def visit_ruling_line_latex(self: LaTeXTranslator, node: ruling_line) -> None:
    self.body.append(self.hypertarget_to(node, anchor=True))  # the PDF's link target
    self.visit_inline(node)


def depart_ruling_line_latex(self: LaTeXTranslator, node: ruling_line) -> None:
    self.depart_inline(node)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.rulings.dates')
    app.setup_extension('handbook.sections.ids')
    # the readers' tools (¶, copy, §: handbook.publishing.reader_tools) are loaded by
    # the extensions that show rulings and cards to readers (handbook.cards, the
    # editions, the card index, handbook.publishing), not here: the rulings load
    # nothing of publishing
    app.add_config_value('handbook_changed_markers', ['裁定变更', '调整中确认'], 'env',
                         types=frozenset({list, tuple}),
                         description='words that mark a ruling as changed')
    for name, default in days.DEFAULTS.items():  # yearly FAQ pages (handbook.rulings.days)
        app.add_config_value(name, default, 'env', types=frozenset({type(default)}))
    app.add_node(ruling_line, html=(visit_ruling_line_html, depart_ruling_line_html),
                 latex=(visit_ruling_line_latex, depart_ruling_line_latex))
    app.add_transform(RulingLines)
    app.setup_extension('handbook.store')
    collect(app, RULINGS, ruling_line)
    collect(app, SOURCE_LINKS, nodes.reference, lambda node: is_source_link(node, app.config))
    app.connect('env-before-read-docs', days.check_faq_pages)
    app.connect(PAGE_READ, read_rulings)
    app.connect(PAGE_READ, undated_sources)
    # env_version 11: no space where a line broke between Chinese words; 10: a source's word alone on a line (| 数据库) a header; 9: a ruling's text without its footnote and citation marks; a
    # sentence that names no card (nor a name in 「」) takes the cards of the one
    # before it in its block; a day section marked; 8: a block that holds only its
    # dates is no ruling; the lines of a
    # day's block quotes and subsections, months titled with more, ranges of days,
    # 2010-2012 pages, labels never sources, 尚未过时, remarks after a ruling,
    # dates joined by 、，和 /, lines that start with their date; 7: notes for a
    # day's text that is no ruling, a label in a day's line block no ruling, an
    # outdated day that links no section superseded all the same, a ruling's text
    # without what held its dates, a remark in brackets kept with its ruling; 6: a
    # ruling in a table names the cards of its row; 5: days right under a year's
    # page title, days titled with their year (21/1/5) and months titled 1月份; 4:
    # days titled in full width, headers in 【】 and a page's strike role of another
    # name.  A kept environment is read again.
    return {'version': '3', 'env_version': 11,
            'parallel_read_safe': True, 'parallel_write_safe': True}
