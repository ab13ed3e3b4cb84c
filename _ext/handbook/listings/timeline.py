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
page, else its newest).  Each entry shows the ruling's text as on its page (card links
and dates kept, resolved for the timeline page), its page and section
(linked), and a link to its permalink; a ruling flagged as changed (see
:mod:`handbook.rulings.lines`) carries the class ``ruling-changed`` and a marker.  A
line above the years gives the total and links each year with its count.
For HTML builders a month's entries are written to HTML at once
(:mod:`handbook.render.html_parts`), each ruling's text being its HTML
as its page's writing gave it, or rendered once, and kept
(:mod:`handbook.render.ruling_html`); other
builders (LaTeX) get the entries as nodes, the rulings' nodes copied.

Nothing is hand-written and nothing goes stale: the timeline page is
rewritten whenever a page's rulings are read again (``env-get-updated``), in
serial and parallel builds alike.  The generated texts are messages of the
``handbook`` catalog (Chinese msgids).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.locale import get_translation
from sphinx.transforms.post_transforms import SphinxPostTransform

from handbook.render import ruling_html
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
from handbook.rulings.lines import Ruling
from handbook.store import PAGE_READ, Contribution, store

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

_ = get_translation('handbook')
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
    timeline, whenever rulings changed."""
    if not ruling_lines.changed_pages(env):
        return []
    return sorted(pages(env))


def pages(env: BuildEnvironment) -> set[str]:
    """The pages that hold the timeline."""
    return holders(env, TIMELINE)


def entries(env: BuildEnvironment) -> list[tuple[str, Ruling]]:
    """``(date, ruling)``, newest first, same date in reading order."""
    order = {doc: i for i, doc in enumerate(ruling_lines.page_order(env))}
    found = [(r.date, r) for rs in ruling_lines.rulings(env).values() for r in rs if r.date]
    found.sort(key=lambda e: (order[e[1].docname], e[1].index))
    found.sort(key=lambda e: e[0], reverse=True)  # stable: keeps reading order per date
    return found


class FillTimeline(SphinxPostTransform):
    """Replace each ``ruling_timeline`` with the years, months and entries."""

    # before ReferencesResolver (10): the copied card links and :ref:s are
    # resolved as links of the timeline page
    default_priority = 5

    _html: dict[tuple[str, str], str] | None = None
    _copies: ruling_html.Copies | None = None
    _links: HtmlLinks | None = None
    _texts: dict[str, str]
    _docname: str

    def apply(self, **kwargs: Any) -> None:
        self._docname = self.env.docname  # the entries may be written later (late_part)
        super().apply(**kwargs)

    def run(self, **kwargs: Any) -> None:
        fill(self.env, self.document, RulingTimelineDirective, self.timeline)

    def timeline(self) -> list[nodes.Node]:
        found = entries(self.env)
        years = [(year, list(group)) for year, group in
                 itertools.groupby(found, key=lambda e: e[0][:4])]
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
        if ruling.changed:
            item['classes'].append('ruling-changed')
            text += nodes.inline('', _('裁定已变更'), classes=['ruling-flag'])
            text += nodes.Text(' ')
        text.extend(self.copy_of(ruling))
        item += text
        where = nodes.paragraph(classes=['ruling-entry-source'])
        title = page_title(self.env, ruling.docname)
        where += self.link(ruling.docname, '', nodes.Text(title))
        if ruling.section_title and ruling.section_title != title:
            where += nodes.Text(' › ')
            where += self.link(ruling.docname, ruling.section_id, nodes.Text(ruling.section_title))
        where += nodes.Text(' · ')
        where += self.link(ruling.docname, ruling.anchor,
                           nodes.inline('', _('固定链接'), classes=['ruling-entry-permalink']))
        item += where
        return item

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
        if self._html is None:
            self._html = ruling_html.ruling_html(self.env, self.shown(), self._docname)
        text = self._html.get((ruling.docname, ruling.anchor))
        if text is None:
            text = ruling_html.ruling_html(self.env, [ruling], self._docname)[
                ruling.docname, ruling.anchor]
        return text

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
        if self._links is None:
            self._links = HtmlLinks(self.env, self.env.docname)
            self._texts = {'flag': escape(_('裁定已变更')), 'permalink': escape(_('固定链接'))}

        def month_html() -> Iterator[str]:
            yield '<ul class="ruling-timeline">\n'
            yield from map(self.entry_html, rulings)
            yield '</ul>\n'
        return late_part(self.document, builder, month_html)

    def entry_html(self, ruling: Ruling) -> str:
        link, texts = self._links.link, self._texts
        title = page_title(self.env, ruling.docname)
        flag = f'<span class="ruling-flag">{texts["flag"]}</span> ' if ruling.changed else ''
        where = [link(ruling.docname, '', escape(title))]
        if ruling.section_title and ruling.section_title != title:
            where.append(' › ' + link(ruling.docname, ruling.section_id,
                                       escape(ruling.section_title)))
        where.append(' · ' + link(ruling.docname, ruling.anchor,
                                   f'<span class="ruling-entry-permalink">{texts["permalink"]}'
                                   '</span>'))
        text = self.html_of(ruling)
        return (f'<li class="ruling-entry{" ruling-changed" if ruling.changed else ""}">'
                f'<p class="ruling-entry-text">{flag}{text}</p>\n'
                f'<p class="ruling-entry-source">{"".join(where)}</p>\n</li>\n')

    def shown(self) -> list[Ruling]:
        """The rulings this page shows (rendered together: one document);
        each list that shows rulings as the timeline does says its own."""
        return [ruling for _date, ruling in entries(self.env)]


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.render.ruling_html')  # rulings rendered once
    app.setup_extension('handbook.rulings.lines')
    app.add_node(ruling_timeline)
    app.setup_extension('handbook.render.anchors')
    add_placeholder(app, 'ruling-timeline', RulingTimelineDirective)
    app.add_post_transform(FillTimeline)
    app.connect(PAGE_READ, check_placement)
    app.connect('env-get-updated', pages_to_rewrite)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
