"""待确认的裁定: the rulings still 调整中, grouped by page.

A page holds the directive as its last content (anywhere else is a warning
``handbook.open-questions``: the list adds one section per page)::

    待确认的裁定
    ============

    .. open-questions::

At write time the directive's place is filled from the ruling record
(:mod:`handbook.rulings.lines`, statuses of :mod:`handbook.rulings.statuses`):
a line with the count, then one section per page that has open rulings, in
table-of-contents order, titled with the page (linked), listing them in page
order.  Each entry shows the ruling's text as on its page (card links and
dates kept), its section (linked) and a link to its permalink.
With none: a line saying so.

**Still open.**  A ruling *R* is listed when its status has ``open``
(it says 调整中; an overturned ruling never has: its struck words no longer
hold, so a struck 调整中 question of a yearly FAQ page is an answered one)
and neither ``confirmed`` nor ``superseded`` (its day is outdated), and no
ruling *C* of the same page *answers* it.  *C* answers *R* when both hold:

1. *C* is on the same line as *R* (the same line-block line or paragraph);
   or *C* is in the same section as *R*, and *R* names a card, and *C*'s
   first card is *R*'s first card (registry keys: spellings and aliases are
   one card);
2. *C* comes after *R* on the page and its status has ``confirmed`` (it says
   调整中确认), or *C*'s date is later than *R*'s (a ruling's date: its
   day's on a yearly FAQ page, else its newest).

So ``| 「`旋风`_」……调整中。\\ :ruling:`19/4/17``` is answered by a later line
of its section, ``| 「`旋风`_」……调整中确认。\\ :ruling:`19/4/17```, or by
``| 「`旋风`_」……可以发动。\\ :ruling:`20/1/13```; not by a ruling about
another card, nor by an older one.  In the current edition overturned rulings
are gone before they are read, so neither list nor answer counts them.

The page is rewritten only when rulings changed (``changes(env).rulings``,
``env-get-updated``); the list is computed once per build from the store
(``store(env).derived``).  The generated texts are messages of the
``handbook`` catalog.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.locale import get_translation

from handbook.listings.timeline import FillTimeline
from handbook.render.anchors import page_title
from handbook.render.placeholders import (
    PlaceholderDirective,
    add_placeholder,
    fill,
    holders,
    warn_unless_last,
)
from handbook.rulings import lines as ruling_lines
from handbook.store import PAGE_READ, Contribution, changes, store

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from handbook.rulings.lines import Ruling

_ = get_translation('handbook')
#: what the store records of a page that holds the list
OPEN_QUESTIONS = 'open-questions'


class open_questions(nodes.General, nodes.Element):
    """Placeholder for the list, filled at write time."""


class OpenQuestionsDirective(PlaceholderDirective):
    """``.. open-questions::`` (no arguments, no content)."""

    node_class = open_questions
    kind = OPEN_QUESTIONS


def check_placement(app: Sphinx, page: Contribution) -> None:
    """The list must be the last content of its section (``handbook-page-read``)."""
    warn_unless_last(page, OPEN_QUESTIONS, 'the open questions add one section per page, so '
                     'they must be', 'open-questions', 'open-questions')


def first_card(ruling: Ruling) -> str | None:
    return ruling.cards[0][0] if ruling.cards else None


def answers(c: Ruling, r: Ruling, same_line: bool) -> bool:
    """Whether ruling *c* answers the open ruling *r* (see the module docstring)."""
    if c is r or c.docname != r.docname:
        return False
    related = same_line or (c.section_id == r.section_id and first_card(r) is not None
                            and first_card(c) == first_card(r))
    if not related:
        return False
    confirmed = 'confirmed' in c.status and c.index > r.index
    later = c.date is not None and r.date is not None and c.date > r.date
    return confirmed or later


def still_open(page: list[Ruling]) -> list[Ruling]:
    """The rulings of one page (page order) still open."""
    return [r for r in page if 'open' in r.status and 'confirmed' not in r.status
            and 'superseded' not in r.status
            and not any(answers(c, r, c.block == r.block) for c in page)]


def entries(env: BuildEnvironment) -> list[tuple[str, list[Ruling]]]:
    """``(docname, open rulings)`` of every page that has some, in reading order."""
    def compute() -> list[tuple[str, list[Ruling]]]:
        pages = ruling_lines.rulings(env)
        found = [(doc, still_open(pages[doc])) for doc in ruling_lines.page_order(env)
                 if doc in pages]
        return [(doc, rulings) for doc, rulings in found if rulings]
    return store(env).derived(OPEN_QUESTIONS, compute)


def pages_to_rewrite(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """The pages that hold the list, whenever rulings changed (``env-get-updated``)."""
    if not changes(env).rulings:
        return []
    return sorted(holders(env, OPEN_QUESTIONS))


class FillOpenQuestions(FillTimeline):
    """Replace each ``open_questions`` with the count and a section per page
    (the timeline's copies of a ruling and links, reused)."""

    default_priority = 5  # as the timeline: before the references are resolved

    def run(self, **kwargs: Any) -> None:
        fill(self.env, self.document, OpenQuestionsDirective, self.listing)

    def shown(self) -> list[Ruling]:
        return [ruling for _doc, rulings in entries(self.env) for ruling in rulings]

    def others(self) -> dict[tuple[str, str], tuple[Ruling, ...]]:
        return {}  # listed by page: a ruling in several places is under each

    def listing(self) -> list[nodes.Node]:
        found = entries(self.env)
        count = sum(len(rulings) for _doc, rulings in found)
        summary = nodes.paragraph(classes=['open-questions-summary'])
        if count:
            summary += nodes.Text(_('共 {count} 条裁定仍在调整中，分布在 {pages} 个页面：').format(
                count=count, pages=len(found)))
        else:
            summary += nodes.Text(_('目前没有仍在调整中的裁定。'))
        out: list[nodes.Node] = [summary]
        for docname, rulings in found:
            section = nodes.section(ids=[f'open-{docname}'.replace('/', '-')],
                                    classes=['open-questions-page'])
            title = nodes.title()
            title += self.link(docname, '', nodes.Text(page_title(self.env, docname)))
            title += nodes.Text(_('（{count} 条）').format(count=len(rulings)))
            section += title
            listing = nodes.bullet_list(classes=['open-questions'])
            for ruling in rulings:
                listing += self.open_entry(ruling)
            section += listing
            out.append(section)
        return out

    def open_entry(self, ruling: Ruling) -> nodes.list_item:
        item = nodes.list_item(classes=['ruling-entry', 'open-question'])
        text = nodes.paragraph(classes=['ruling-entry-text'])
        text.extend(self.copy_of(ruling))
        item += text
        where = self.where(ruling)
        if ruling.section_title and ruling.section_title != page_title(self.env, ruling.docname):
            where += self.link(ruling.docname, ruling.section_id, nodes.Text(ruling.section_title))
            where += nodes.Text(' · ')
        where += self.link(ruling.docname, ruling.anchor,
                           nodes.inline('', _('固定链接'), classes=['ruling-entry-permalink']))
        item += where
        return item


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.listings.timeline')  # FillTimeline, and its links
    app.add_node(open_questions)
    add_placeholder(app, 'open-questions', OpenQuestionsDirective)
    app.add_post_transform(FillOpenQuestions)
    app.connect(PAGE_READ, check_placement)
    app.connect('env-get-updated', pages_to_rewrite)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
