"""The ruling timeline: every dated ruling of the handbook, newest first.

A page holds the directive as its last content (anywhere else is a warning
``handbook.timeline``: the timeline adds sections)::

    裁定时间线
    ==========

    .. ruling-timeline::

At write time the directive's place is filled from the record of
:mod:`handbook.rulings.lines`: one section per year (its title gives the year's
count), one per month inside it, and in each month the rulings, newest date
first (rulings of the same date in reading order: pages in table-of-contents
order, lines in page order).  A ruling is listed once, at its date
(:attr:`~handbook.rulings.lines.Ruling.date`: its day's on a yearly FAQ
page, else its newest); one said in several places at that date
(:mod:`handbook.rulings.same`) once, where it is first, its entry ending
with 也见于 and a link to each other place, and counted once (said again at
another date, it is listed at that date too).  Each entry shows the ruling's text as on its page (card links
and dates kept, resolved for the timeline page), its page and section
(linked), after the day's date for a line of a yearly FAQ page's day (``21/1/5 ·
2021 › 1/5``: the line does not write it), and a link to its permalink; an
overturned, superseded or changed ruling carries the class ``ruling-changed``
and the word that says so, 已推翻, 已过时 or 裁定已变更 (:func:`handbook.rulings.statuses.flag`); a superseded
one, the link to the section that supersedes it (``→ 最新调整``, as on its
line), the timeline written again when that section moves.  A
line above the years gives the total and links each year with its count.
For HTML builders a month's entries are written to HTML at once
(:mod:`handbook.render.html_parts`), each ruling's text being its HTML
as its page's writing gave it, or rendered once, and kept
(:mod:`handbook.render.ruling_html`); other
builders (LaTeX) get the entries as nodes, the rulings' nodes copied.

**A page per year** where the build writes a site of pages (the ``html``
builder, :mod:`handbook.render.split_pages`): the timeline's page keeps the
total and the jump bar (each year, its count and its months, linked), and
each year is a page of its own, ``timeline/2021.html`` (its months
``#y2021-06``), with the years' bar, its title and months, and the entries;
``timeline.html#y2021-06`` still leads there.  Other builders keep the whole
timeline on its page.

**A page per month** for a year of more entries than
``handbook_timeline_page_rulings`` (500 by default): each of its months is a
page of its own, ``timeline/2024-06.html`` (its section ``#y2024-06``), with
the years' bar, the year's months (this one marked) and the entries; the
year's page keeps the years' bar and its months, each linked with its count.
A month of more entries than that is several pages of as many
(``timeline/2017-03.html``, ``timeline/2017-03-2.html``, ``#y2017-03-2``): a
day can hold a thousand rulings.  The timeline's page links the months to
their (first) pages, and both old addresses, ``timeline.html#y2024-06`` and
``timeline/2024.html#y2024-06``, lead to the month's (first) page
(:func:`handbook.render.split_pages.moved_anchors`).  The limit
is a count of entries, not bytes: the pages are decided when the pages are
read (``env-get-updated``: the sitemap and the parts to remove need them),
before any entry is written to HTML.  An entry of a yearly FAQ page is
about a kilobyte of HTML, a few kilobytes at most, so 500 keep a page well
under a megabyte, what a phone loads without strain.

Nothing is hand-written and nothing goes stale: the timeline page is
rewritten whenever a page's rulings are read again (``env-get-updated``), in
serial and parallel builds alike.  The generated texts are messages of the
``handbook`` catalog (Chinese msgids).
"""

from __future__ import annotations

import hashlib
import itertools
from typing import TYPE_CHECKING, Any, TypeVar

from docutils import nodes
from sphinx.locale import get_translation
from sphinx.transforms.post_transforms import SphinxPostTransform

from handbook.core.records import frozen_record
from handbook.render import ruling_html, split_pages
from handbook.render.anchors import link, page_title, place_title
from handbook.render.html_parts import HtmlLinks, escape, late_part
from handbook.render.placeholders import (
    PlaceholderDirective,
    add_placeholder,
    fill,
    holders,
    warn_unless_last,
)
from handbook.rulings import lines as ruling_lines
from handbook.rulings import same, statuses
from handbook.rulings.lines import Ruling
from handbook.sections.labels import moved_labels, note_labels
from handbook.store import PAGE_READ, Contribution, store

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

_ = get_translation('handbook')
T = TypeVar('T')
#: what the store records of a page that holds the timeline
TIMELINE = 'ruling-timeline'


class ruling_timeline(nodes.General, nodes.Element):
    """Placeholder for the timeline, filled at write time."""


class RulingTimelineDirective(PlaceholderDirective):
    """``.. ruling-timeline::`` (no arguments, no content)."""

    node_class = ruling_timeline
    kind = TIMELINE


def check_placement(app: Sphinx, page: Contribution) -> None:
    """A timeline must be the last content of its section (``handbook-page-read``)."""
    warn_unless_last(page, TIMELINE, 'the ruling timeline adds one section per year, so it '
                     'must be', 'ruling-timeline', 'timeline')


def pages_to_rewrite(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """The pages to write again (``env-get-updated``): those that hold a
    timeline, whenever rulings changed.  The year pages of each are noted
    (:func:`handbook.render.split_pages.note_parts`)."""
    holders = sorted(pages(env))
    if split_pages.splits(store(env).builder):
        slugs = [slug for year, group in by_year(entries(env))
                 for slug in (year, *(page.slug for page in month_pages(env, year, group)))]
        split_pages.note_parts(app, TIMELINE, dict.fromkeys(holders, slugs))
    else:
        split_pages.note_parts(app, TIMELINE, {})
    if not ruling_lines.changed_pages(env) and not leads_moved(
            env, (ruling for _date, ruling in entries(env))):
        return []
    return holders


def pages(env: BuildEnvironment) -> set[str]:
    """The pages that hold the timeline."""
    return holders(env, TIMELINE)


def entries(env: BuildEnvironment) -> list[tuple[str, Ruling]]:
    """``(date, ruling)``, newest first, same date in reading order; a
    ruling in several places once, where it is first (:func:`others`)
    (computed once per build)."""
    return store(env).derived('timeline_entries', lambda: _entries(env))[0]


def others(env: BuildEnvironment) -> dict[tuple[str, str], tuple[Ruling, ...]]:
    """The other places of each ruling :func:`entries` lists once, by its
    page and anchor (:mod:`handbook.rulings.same`): its entry's 也见于."""
    return store(env).derived('timeline_entries', lambda: _entries(env))[1]


def _entries(env: BuildEnvironment) -> tuple[list[tuple[str, Ruling]],
                                            dict[tuple[str, str], tuple[Ruling, ...]]]:
    order = {doc: i for i, doc in enumerate(ruling_lines.page_order(env))}
    found = [(r.date, r) for rs in ruling_lines.rulings(env).values() for r in rs if r.date]
    found.sort(key=lambda e: (order[e[1].docname], e[1].index))
    found.sort(key=lambda e: e[0], reverse=True)  # stable: keeps reading order per date
    # the same ruling of another date is listed at that date too: the timeline
    # is the rulings' dates
    return once(found, lambda entry: entry[1], lambda entry: entry[0])


def once(found: list[T], ruling_of: Callable[[T], Ruling],
         apart: Callable[[T], Any] = lambda _item: None,
         ) -> tuple[list[T], dict[tuple[str, str], tuple[Ruling, ...]]]:
    """*found* with each ruling in several places once, where it is first
    (:func:`handbook.rulings.same.grouped`; and the same *apart*), and the
    others of each, by the first's page and anchor (a reader's round trip:
    the timeline and 最近更新 listed such a ruling twice, the search and the
    card pages once)."""
    groups = same.grouped(found, ruling_of, apart)
    return [group[0] for group in groups], {
        (ruling_of(group[0]).docname, ruling_of(group[0]).anchor):
            tuple(map(ruling_of, group[1:])) for group in groups if len(group) > 1}


def by_year(found: list[tuple[str, Ruling]]) -> list[tuple[str, list[tuple[str, Ruling]]]]:
    """The entries by year, newest first."""
    return [(year, list(group)) for year, group in itertools.groupby(found, key=lambda e: e[0][:4])]


def by_month(group: list[tuple[str, Ruling]]) -> list[tuple[str, list[Ruling]]]:
    """A year's entries by month (``'06'``), newest first."""
    return [(month, [ruling for _date, ruling in items])
            for month, items in itertools.groupby(group, key=lambda e: e[0][5:7])]


@frozen_record
class MonthPage:
    """A page of a month of a year that is a page per month."""

    slug: str  # '2024-06', its second page '2024-06-2'
    month: str  # '06'
    label: str  # text: '6 月', or '3 月，第 2 页' where the month is several pages
    rulings: tuple[Ruling, ...]

    @property
    def id(self) -> str:
        return f'y{self.slug}'


def month_pages(env: BuildEnvironment, year: str,
                group: list[tuple[str, Ruling]]) -> list[MonthPage]:
    """The pages of the months of a year of more entries than
    ``handbook_timeline_page_rulings``, newest first (none for a lighter
    year); a month of more entries than that is several pages of as many."""
    limit = max(1, env.config.handbook_timeline_page_rulings)
    if len(group) <= limit:
        return []
    out = []
    for month, rulings in by_month(group):
        pieces = range(0, len(rulings), limit)
        for number, start in enumerate(pieces, 1):
            label = month_title(month) if len(pieces) == 1 else \
                _('{month} 月，第 {page} 页').format(month=int(month), page=number)
            out.append(MonthPage(f'{year}-{month}' + (f'-{number}' if number > 1 else ''), month,
                                 label, tuple(rulings[start:start + limit])))
    return out


def year_title(year: str, count: int) -> str:
    return _('{year} 年（{count} 条）').format(year=year, count=count)


def month_title(month: str) -> str:
    return _('{month} 月').format(month=int(month))


# -- split into a page per year (handbook.render.split_pages) -----------------------------


def overview(env: BuildEnvironment, docname: str, found: list[tuple[str, Ruling]],
             years: list[tuple[str, list[tuple[str, Ruling]]]]) -> str:
    """The timeline's page where the years are pages of their own: the
    total, and each year linked to its page with its months, as HTML; the
    old anchors of the years and months (``#y2021``, ``#y2021-06``) are the
    items', and lead to the year's page."""
    builder = store(env).builder
    out = [f'<p class="ruling-timeline-summary">'
           f'{escape(_("共 {count} 条注明日期的裁定，最新的在前：").format(count=len(found)))}</p>\n'
           '<ul class="ruling-timeline-years">\n']
    moved = {}
    for year, group in years:
        name = split_pages.part_name(docname, year)
        uri = escape(builder.get_relative_uri(docname, name))
        months = by_month(group)
        split = month_pages(env, year, group)
        if split:
            moved[name] = [f'y{year}']
            hrefs = {}
            for page in split:
                page_name = split_pages.part_name(docname, page.slug)
                moved[page_name] = [page.id]
                hrefs.setdefault(page.month, escape(builder.get_relative_uri(docname, page_name)))
        else:
            moved[name] = [f'y{year}', *(f'y{year}-{month}' for month, _rulings in months)]
            hrefs = {month: f'{uri}#y{year}-{month}' for month, _rulings in months}
        links = ' · '.join(f'<a class="reference internal" href="{hrefs[month]}">'
                           f'{escape(month_title(month))}</a>' for month, _rulings in months)
        out.append(f'<li id="y{year}"><a class="reference internal" href="{uri}">'
                   f'{escape(year_title(year, len(group)))}</a>：{links}</li>\n')
    out.append('</ul>\n')
    out.append(split_pages.moved_anchors(builder, docname, moved))
    return ''.join(out)


def write_year_pages(app: Sphinx) -> list:
    """The year pages of each page that holds the timeline, where they are
    made in this build (``html-collect-pages``).  A page's entries are
    written only where its key changed (:meth:`EntryHtml.key`, with what
    else its body shows: its year, its months and the years)."""
    env = app.env
    for holder in sorted(pages(env)):
        if not split_pages.needed(app, TIMELINE, holder):
            continue
        years = by_year(entries(env))
        all_years = [y for y, _g in years]
        title = page_title(env, holder)
        parts = []
        for year, group in years:
            name = split_pages.part_name(holder, year)
            nav_title = _('{year} 年').format(year=year)
            description = _('{year} 年的 {count} 条裁定，最新的在前。').format(
                year=year, count=len(group))
            split = month_pages(env, year, group)
            pages_key = repr([(p.slug, p.label, p.id, len(p.rulings)) for p in split])
            if not split:
                writer = EntryHtml(env, name, lambda group=group: [r for _date, r in group],
                                   others(env))
                parts.append(split_pages.Part(
                    name, _('{title}：{part}').format(title=title, part=nav_title), nav_title,
                    description,
                    lambda name=name, year=year, group=group, writer=writer: year_page(
                        env, holder, name, year, group, all_years, writer),
                    '\0'.join([writer.key(), repr(all_years),
                               repr([(m, len(r)) for m, r in by_month(group)])])))
                continue
            parts.append(split_pages.Part(
                name, _('{title}：{part}').format(title=title, part=nav_title), nav_title,
                description, months_page(env, holder, name, year, group, split, all_years)))
            for page in split:
                page_name = split_pages.part_name(holder, page.slug)
                writer = EntryHtml(env, page_name, lambda page=page: list(page.rulings),
                                   others(env))
                nav_title = _('{year} 年 {part}').format(year=year, part=page.label)
                parts.append(split_pages.Part(
                    page_name, _('{title}：{part}').format(title=title, part=nav_title), nav_title,
                    _('{title}的 {count} 条裁定，最新的在前。').format(
                        title=nav_title, count=len(page.rulings)),
                    lambda page_name=page_name, year=year, page=page, split=split,
                    writer=writer: month_page(env, holder, page_name, year, page, split,
                                              all_years, writer),
                    '\0'.join([writer.key(), repr(all_years), page.slug, pages_key])))
        split_pages.write_parts(app, holder, parts)
    return []


def years_bar(env: BuildEnvironment, holder: str, name: str, years: list[str],
              current: str) -> str:
    """The years' bar of a page of the timeline: each year a link to its
    page (the whole timeline first), the year *current* marked."""
    items = [(holder, _('全部')), *((split_pages.part_name(holder, y), y) for y in years)]
    return split_pages.bar(store(env).builder, name, items, current, 'ruling-timeline-bar')


def months_page(env: BuildEnvironment, holder: str, name: str, year: str,
                group: list[tuple[str, Ruling]], split: list[MonthPage],
                years: list[str]) -> str:
    """The body of the page of a year whose months are pages of their own:
    the years, the year's title, and its months' pages, each linked with its
    count; the months' old anchors (``#y2024-06``) lead to their pages
    (:func:`handbook.render.split_pages.moved_anchors`)."""
    builder = store(env).builder
    pages = {page.slug: split_pages.part_name(holder, page.slug) for page in split}
    links = ' · '.join(
        f'<a class="reference internal" '
        f'href="{escape(builder.get_relative_uri(name, pages[page.slug]))}">'
        f'{escape(_("{title}（{count} 条）").format(title=page.label, count=len(page.rulings)))}'
        '</a>' for page in split)
    return (f'<section class="ruling-timeline-year" id="y{year}">\n'
            f'<h1>{escape(year_title(year, len(group)))}</h1>\n'
            + years_bar(env, holder, name, years, name)
            + f'<p class="ruling-timeline-months">{links}</p>\n'
            + split_pages.moved_anchors(builder, name, {
                pages[page.slug]: [page.id] for page in split})
            + '</section>\n')


def month_page(env: BuildEnvironment, holder: str, name: str, year: str, page: MonthPage,
               split: list[MonthPage], years: list[str], writer: EntryHtml) -> str:
    """The body of a month's page: the years (its year a link to the
    year's page), its title, the year's months (each a link to its page,
    this one marked), the entries."""
    builder = store(env).builder
    items = [(split_pages.part_name(holder, p.slug), p.label) for p in split]
    heading = _('{title}（{count} 条）').format(
        title=_('{year} 年 {part}').format(year=year, part=page.label), count=len(page.rulings))
    out = [f'<section class="ruling-timeline-month" id="{page.id}">\n'
           f'<h1>{escape(heading)}</h1>\n',
           years_bar(env, holder, name, years, ''),
           split_pages.bar(builder, name, items, name, 'ruling-timeline-months'),
           '<ul class="ruling-timeline">\n', *map(writer.entry, page.rulings),
           '</ul>\n</section>\n']
    return ''.join(out)


def year_page(env: BuildEnvironment, holder: str, name: str, year: str,
              group: list[tuple[str, Ruling]], years: list[str], writer: EntryHtml) -> str:
    """The body of a year's page: the years (each a link to its page, the
    whole timeline first), the year's title and months, the entries."""
    months = by_month(group)
    out = [f'<section class="ruling-timeline-year" id="y{year}">\n'
           f'<h1>{escape(year_title(year, len(group)))}</h1>\n',
           years_bar(env, holder, name, years, name),
           '<p class="ruling-timeline-months">',
           ' · '.join(f'<a class="reference internal" href="#y{year}-{month}">'
                      f'{escape(month_title(month))}</a>' for month, _rulings in months),
           '</p>\n']
    for month, rulings in months:
        out.append(f'<section id="y{year}-{month}">\n<h2>{escape(month_title(month))}</h2>\n'
                   '<ul class="ruling-timeline">\n')
        out.extend(map(writer.entry, rulings))
        out.append('</ul>\n</section>\n')
    out.append('</section>\n')
    return ''.join(out)


class FillTimeline(SphinxPostTransform):
    """Replace each ``ruling_timeline`` with the years, months and entries."""

    # before ReferencesResolver (10): the copied card links and :ref:s are
    # resolved as links of the timeline page
    default_priority = 5

    _copies: ruling_html.Copies | None = None
    _writer: EntryHtml | None = None
    _docname: str

    def apply(self, **kwargs: Any) -> None:
        self._docname = self.env.docname  # the entries may be written later (late_part)
        super().apply(**kwargs)

    def run(self, **kwargs: Any) -> None:
        fill(self.env, self.document, RulingTimelineDirective, self.timeline)

    def timeline(self) -> list[nodes.Node]:
        found = entries(self.env)
        years = by_year(found)
        if split_pages.splits(store(self.env).builder):
            split_pages.due(self.env, TIMELINE)  # its year pages are made at the end
            return [nodes.raw('', overview(self.env, self._docname, found, years),
                              format='html')]
        summary = nodes.paragraph(classes=['ruling-timeline-summary'])
        summary += nodes.Text(_('共 {count} 条注明日期的裁定，最新的在前：').format(count=len(found)))
        for i, (year, group) in enumerate(years):
            if i:
                summary += nodes.Text(' · ')
            summary += nodes.reference('', _('{year} 年（{count} 条）').format(
                year=year, count=len(group)), internal=True, refid=f'y{year}')
        out: list[nodes.Node] = [summary]
        for year, group in years:
            year_section = nodes.section(ids=[f'y{year}'], classes=['ruling-timeline-year'])
            year_section += nodes.title('', _('{year} 年（{count} 条）').format(
                year=year, count=len(group)))
            for month, items in itertools.groupby(group, key=lambda e: e[0][5:7]):
                month_section = nodes.section(ids=[f'y{year}-{month}'])
                month_section += nodes.title('', _('{month} 月').format(month=int(month)))
                month_section += self.month([ruling for _date, ruling in items])
                year_section += month_section
            out.append(year_section)
        return out

    def entry(self, ruling: Ruling) -> nodes.list_item:
        item = nodes.list_item(classes=['ruling-entry'])
        text = nodes.paragraph(classes=['ruling-entry-text'])
        word = statuses.flag(ruling)
        if word:
            item['classes'].append('ruling-changed')
            text += nodes.inline('', word, classes=['ruling-flag'])
            text += nodes.Text(' ')
        newer = superseding(self.env, ruling)
        if newer:
            to_newer = self.link(*newer, nodes.Text(_('→ 最新调整')))
            if isinstance(to_newer, nodes.Element):  # (no link where the builder has none)
                to_newer['classes'].insert(0, 'ruling-superseded-by')
                text += to_newer
                text += nodes.Text(' ')
        text.extend(self.copy_of(ruling))
        item += text
        where = self.where(ruling)
        title = page_title(self.env, ruling.docname)
        where += self.link(ruling.docname, '', nodes.Text(title))
        if ruling.section_title and ruling.section_title != title:
            where += nodes.Text(' › ')
            where += self.link(ruling.docname, ruling.section_id, nodes.Text(ruling.section_title))
        where += nodes.Text(' · ')
        where += self.link(ruling.docname, ruling.anchor,
                           nodes.inline('', _('固定链接'), classes=['ruling-entry-permalink']))
        item += where
        elsewhere = self.others().get((ruling.docname, ruling.anchor))
        if elsewhere:
            also = nodes.paragraph('', _('也见于'), classes=['ruling-entry-also'])
            for i, other in enumerate(elsewhere):
                also += nodes.Text(' ' if not i else '、')
                also += self.link(other.docname, other.anchor, nodes.Text(place_title(
                    page_title(self.env, other.docname), other.section_title)))
            item += also
        return item

    def others(self) -> dict[tuple[str, str], tuple[Ruling, ...]]:
        """The other places of the rulings this page lists once; each list
        that shows rulings as the timeline does says its own."""
        return others(self.env)

    @staticmethod
    def where(ruling: Ruling) -> nodes.paragraph:
        """An entry's line of where its ruling is, begun: with the date of a
        yearly FAQ page's day, which the ruling's line does not write."""
        where = nodes.paragraph(classes=['ruling-entry-source'])
        if ruling.day:
            where += nodes.inline('', ruling.day, classes=['ruling-entry-day'])
            where += nodes.Text(' · ')
        return where

    def link(self, docname: str, anchor: str, content: nodes.Node) -> nodes.Element:
        """A link to *anchor* (an id, or '' for the top) of page *docname*."""
        return link(store(self.env).builder, self.env.docname, docname, anchor, content)

    def copy_of(self, ruling: Ruling) -> list[nodes.Node]:
        """The ruling as on its page, made to work on this page: for HTML
        builders its HTML, rendered once per build
        (:mod:`handbook.render.ruling_html`), else a copy of its nodes."""
        if store(self.env).builder.format != 'html':
            if self._copies is None:
                self._copies = ruling_html.Copies(self.env, self.env.docname)
            return self._copies.of(ruling)
        return [nodes.raw('', self.html_of(ruling), format='html')]

    def html_of(self, ruling: Ruling) -> str:
        """The ruling's HTML for this page (rendered with every ruling the page shows)."""
        return self.writer().html_of(ruling)

    def writer(self) -> EntryHtml:
        if self._writer is None:
            self._writer = EntryHtml(self.env, self._docname, self.shown, self.others())
        return self._writer

    def month(self, rulings: list[Ruling]) -> nodes.Element:
        """The entries of a month: for HTML builders written at once
        (:mod:`handbook.render.html_parts`), as the translator writes the
        nodes of :meth:`entry`, and into the page's file after the page
        where the builder can (:func:`handbook.render.html_parts.late_part`)."""
        builder = store(self.env).builder
        if builder.format != 'html':
            listing = nodes.bullet_list(classes=['ruling-timeline'])
            listing.extend(self.entry(ruling) for ruling in rulings)
            return listing
        writer = self.writer()

        def month_html() -> Iterator[str]:
            yield '<ul class="ruling-timeline">\n'
            yield from map(writer.entry, rulings)
            yield '</ul>\n'
        return late_part(self.document, builder, month_html)

    def shown(self) -> list[Ruling]:
        """The rulings this page shows (rendered together: one document);
        each list that shows rulings as the timeline does says its own."""
        return [ruling for _date, ruling in entries(self.env)]


def superseding(env: BuildEnvironment, ruling: Ruling) -> tuple[str, str] | None:
    """The page and id of the section that supersedes an outdated day's
    *ruling* (its day's note's ``:ref:``), where a page defines it: the
    entry's ``→ 最新调整``."""
    if 'superseded' not in ruling.status:
        return None
    return ruling_lines.labelled_section(env, ruling.superseded_by)


def leads_moved(env: BuildEnvironment, rulings: Iterable[Ruling]) -> bool:
    """Whether the section an outdated ruling of *rulings* leads to (its
    ``→ 最新调整``) moved, was retitled or is gone in this build."""
    moved = moved_labels(env)
    return bool(moved) and any(r.superseded_by in moved for r in rulings if r.superseded_by)


class EntryHtml:
    """Entries of the timeline written to HTML at once, for page *docname*,
    as the translator writes the nodes of :meth:`FillTimeline.entry`; the
    rulings' HTML rendered with every ruling *shown* gives (one document)."""

    def __init__(self, env: BuildEnvironment, docname: str,
                 shown: Callable[[], list[Ruling]],
                 elsewhere: dict[tuple[str, str], tuple[Ruling, ...]] | None = None) -> None:
        self.env = env
        self.docname = docname
        self.shown = shown
        #: the other places of the rulings it lists once (their 也见于)
        self.elsewhere = elsewhere or {}
        self.links = HtmlLinks(env, docname)
        self.texts = {'permalink': escape(_('固定链接')), 'also': escape(_('也见于'))}
        self.move = ruling_html.rebase(store(env).builder, ruling_html.ROOT, docname)
        self.at_root: dict[tuple[str, str], str] | None = None

    def html_at_root(self) -> dict[tuple[str, str], str]:
        """The shown rulings' HTML as for a page at the site's root."""
        if self.at_root is None:
            self.at_root = {(r.docname, r.anchor): text for r, text
                            in ruling_html.at_root(self.env, self.shown()).items()}
        return self.at_root

    def html_of(self, ruling: Ruling) -> str:
        """The ruling's HTML for this page."""
        text = self.html_at_root().get((ruling.docname, ruling.anchor))
        if text is None:
            text = ruling_html.at_root(self.env, [ruling])[ruling]
        return self.move(text)

    def key(self) -> str:
        """The digest of everything the entries of the shown rulings are
        written from (their HTML as at the root, page, section, flag and
        order): equal keys, equal entries.  What a page of the split
        timeline digests (:class:`handbook.render.split_pages.Part`), without
        moving the links of 15,000 rulings' HTML and writing their entries
        at every build."""
        html = self.html_at_root()
        digest = hashlib.sha256()
        for ruling in self.shown():
            digest.update('\0'.join((
                ruling.docname, ruling.anchor, ruling.section_id, ruling.section_title,
                ruling.day or '', statuses.flag(ruling) or '',
                '#'.join(superseding(self.env, ruling) or ()),
                page_title(self.env, ruling.docname),
                html[ruling.docname, ruling.anchor], *self.also(ruling), '\1')).encode())
        return digest.hexdigest()

    def also(self, ruling: Ruling) -> list[str]:
        """Its other places, each its page, anchor and title (:meth:`entry`)."""
        return [f'{other.docname}#{other.anchor}#' + place_title(
                    page_title(self.env, other.docname), other.section_title)
                for other in self.elsewhere.get((ruling.docname, ruling.anchor), ())]

    def entry(self, ruling: Ruling) -> str:
        link, texts = self.links.link, self.texts
        title = page_title(self.env, ruling.docname)
        word = statuses.flag(ruling)
        flag = f'<span class="ruling-flag">{escape(word)}</span> ' if word else ''
        newer = superseding(self.env, ruling)
        if newer:
            uri = self.links.uri(newer[0])
            if uri is not None:
                flag += statuses.superseded_html(f'{uri}#{newer[1]}' if newer[1] else uri) + ' '
        where = [f'<span class="ruling-entry-day">{escape(ruling.day)}</span> · '
                 if ruling.day else '', link(ruling.docname, '', escape(title))]
        if ruling.section_title and ruling.section_title != title:
            where.append(' › ' + link(ruling.docname, ruling.section_id,
                                       escape(ruling.section_title)))
        where.append(' · ' + link(ruling.docname, ruling.anchor,
                                   f'<span class="ruling-entry-permalink">{texts["permalink"]}'
                                   '</span>'))
        text = self.html_of(ruling)
        elsewhere = self.elsewhere.get((ruling.docname, ruling.anchor))
        also = ('<p class="ruling-entry-also">' + texts['also'] + ' ' + '、'.join(
            link(other.docname, other.anchor, escape(place_title(
                page_title(self.env, other.docname), other.section_title)))
            for other in elsewhere) + '</p>\n') if elsewhere else ''
        return (f'<li class="ruling-entry{" ruling-changed" if word else ""}">'
                f'<p class="ruling-entry-text">{flag}{text}</p>\n'
                f'<p class="ruling-entry-source">{"".join(where)}</p>\n{also}</li>\n')


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.render.ruling_html')  # rulings rendered once
    app.setup_extension('handbook.rulings.lines')
    app.add_node(ruling_timeline)
    app.setup_extension('handbook.render.anchors')
    add_placeholder(app, 'ruling-timeline', RulingTimelineDirective)
    app.add_post_transform(FillTimeline)
    app.connect(PAGE_READ, check_placement)
    app.connect('env-get-outdated', note_labels)  # where → 最新调整 leads, before the read
    app.connect('env-get-updated', pages_to_rewrite)
    app.setup_extension('handbook.render.split_pages')
    app.connect('html-collect-pages', write_year_pages)
    app.add_config_value('handbook_timeline_page_rulings', 500, 'html', types=frozenset({int}),
                         description='the most entries of a year page; a year of more is '
                                     'split into a page per month')
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
