"""最近更新: the rulings changed most recently, on a page and in an Atom feed.

A page holds the directive as its last content (anywhere else is a warning
``handbook.recent``: the list adds sections)::

    最近更新
    ========

    .. recent-rulings::

**When a ruling changed.**  A ruling's date here is the date its source
lines last changed: ``git blame`` of the page's source file, the author date
of the last commit that changed one of the ruling's lines, in the time zone
``git_last_updated_timezone`` (Asia/Shanghai where it is not set), as the
page's own "last updated" date (:mod:`handbook.publishing.page_dates`).  A
ruling's lines run from where it starts (its block's first line, or the
line of the previous ruling's last date in the same line or paragraph) to
the line of its last date (the block's last line for the block's last
ruling, whose text may go on after its date): a source line is the unit, so
editing one of three rulings of a line dates all three.  A ruling of a
file the page includes (``.. include::``) is dated by that file.  Where git
cannot say, the line's date is the file's modification time, and the build
neither warns nor fails: a line not committed yet (a new or edited line, a
file git does not track), a source folder outside a git work tree (a
copied folder, the test roots) or without git, and the first commit of a
shallow clone (``git clone --depth 1``), whose lines carry the clone's cut,
not their change.  A translated edition dates a ruling by the lines of
its line or paragraph in the page's source, as the original edition does
(the translation's own lines are in the catalog; editing the translation
alone does not date the ruling).

**The page.**  At write time the directive's place is filled with the
``handbook_recent_rulings`` (50) rulings changed most recently: a line with
their count and a link to the feed (html and dirhtml builds), then one
section per date, newest first (``#d2024-03-05``, titled 2024 年 3 月 5 日),
each a list of its rulings, the most recent change first (rulings changed
at the same moment, in one commit: pages in table-of-contents order, lines
in page order).  An entry is as on the timeline
(:mod:`handbook.listings.timeline`): the ruling's text as on its page (card
links and dates kept), the word 已推翻, 已过时 or 裁定已变更 on an overturned,
superseded or changed ruling (:func:`handbook.rulings.statuses.flag`), its
page and section (linked) and its permalink.

**The feed**, ``feed.xml`` beside the pages (``handbook_recent_feed``; ''
for none), is written at the end of html and dirhtml builds (not EPUB,
not PDF), and only when its content changed.  It is Atom (RFC 4287), of the
same rulings in the same order: the feed's ``id`` is its own absolute URL,
its ``updated`` the newest entry's date; each entry has as ``id`` and
``link`` the ruling's absolute permalink (``html_baseurl`` + the page + ``#``
+ the ruling's id, so it survives edits of other lines), as ``title`` its
text (shortened to 50 characters), as ``content`` its whole text, its dates as
written (each once) and ``页面 › 小节`` (both after the page's word in 【】,
【已推翻】, where the page has one), one ``category`` per card it names (the name as written), and
as ``updated`` its date (RFC 3339, in the time zone above).
Everything is escaped; characters XML cannot hold are left out.  Every page's
head links it (``<link rel="alternate" type="application/atom+xml">``).
Without an absolute ``html_baseurl`` there is no feed (Atom ids are absolute).

**The current edition** (``-t current``, :mod:`handbook.publishing.editions`)
leaves overturned rulings out of the page and the feed, as everywhere.
Translated editions show their own texts (the rulings as translated, the
generated texts of the ``handbook`` catalog).

**Cost.**  ``git blame`` runs once for each page read in this build that has
rulings (``handbook-page-read``, in the reading process: parallel builds
carry the dates in the page's record, ``extra['recent']``: ``{ruling id:
epoch seconds}``), never for the pages left unread.  The page is rewritten
when a page's rulings or their dates changed (``env-get-updated``).

Configuration (``conf.py``)::

    handbook_recent_rulings = 50       # how many rulings the page and the feed list
    handbook_recent_feed = 'feed.xml'  # the feed's file name; '' for no feed
"""

from __future__ import annotations

import dataclasses
import html
import itertools
import re
import subprocess
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape, quoteattr

from babel.dates import get_timezone
from docutils import nodes
from sphinx.locale import get_translation
from sphinx.util.osutil import relative_uri

from handbook.core import url_policy
from handbook.core.source_lines import locate
from handbook.listings.timeline import FillTimeline, leads_moved, once
from handbook.nodes import references_in
from handbook.publishing.editions import doctree_edition
from handbook.publishing.page_dates import git_state
from handbook.publishing.site_urls import SITE_BUILDERS, remove_stale
from handbook.render.anchors import page_title
from handbook.render.placeholders import (
    PlaceholderDirective,
    add_placeholder,
    fill,
    holders,
    warn_unless_last,
)
from handbook.rulings import lines as ruling_lines
from handbook.rulings import statuses
from handbook.rulings.lines import RULINGS, Ruling
from handbook.store import PAGE_READ, Contribution, PageRecord, changes, store

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment
    from sphinx.writers.html5 import HTML5Translator

_ = get_translation('handbook')

#: what the store records of a page that holds the list, and the key of its record's extra
RECENT = 'recent-rulings'
EXTRA = 'recent'
#: a commit id in ``git blame --porcelain``; all zeros: not committed yet
COMMIT = re.compile(rb'[0-9a-f]{40}')
UNCOMMITTED = b'0' * 40
#: characters XML 1.0 cannot hold
NOT_XML = re.compile('[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]')
ATOM = 'http://www.w3.org/2005/Atom'
#: how the feed begins: a build without the site's address removes one an
#: earlier build left (:func:`handbook.publishing.site_urls.remove_stale`)
FEED_START = '<?xml version="1.0" encoding="utf-8"?>\n<feed '
TITLE_WIDTH = 50


class recent_rulings(nodes.General, nodes.Element):
    """Placeholder for the list, filled at write time."""


class feed_link(nodes.Inline, nodes.TextElement):
    """A link to the feed (``feed``: its file name), relative to the page
    it is written in (html and dirhtml only)."""


class RecentRulingsDirective(PlaceholderDirective):
    """``.. recent-rulings::`` (no arguments, no content)."""

    node_class = recent_rulings
    kind = RECENT


# -- when each ruling last changed ----------------------------------------------------------


def blame(path: Path) -> dict[int, int]:
    """``{line: author time}`` (epoch seconds) of the lines of *path* whose
    last change git knows: committed, and not cut by a shallow clone."""
    try:
        run = subprocess.run(['git', 'blame', '--porcelain', '--', path.name],
                             cwd=path.parent, capture_output=True, check=False)
    except OSError:  # no git
        return {}
    if run.returncode != 0:  # not a work tree, a file git does not track
        return {}
    lines: dict[int, bytes] = {}
    times: dict[bytes, int] = {}
    boundary: set[bytes] = set()
    commit = b''
    for raw in run.stdout.split(b'\n'):
        if raw.startswith(b'\t'):
            continue  # the line's text
        words = raw.split(b' ')
        if len(words) >= 3 and COMMIT.fullmatch(words[0]) and words[2].isdigit():
            commit = words[0]  # <commit> <original line> <final line> [<lines>]
            lines[int(words[2])] = commit
        elif words[0] == b'author-time' and len(words) == 2 and words[1].isdigit():
            times[commit] = int(words[1])
        elif words[0] == b'boundary':
            boundary.add(commit)
    # without --root, the first commit is a boundary: of a shallow clone, the cut
    shallow = bool(boundary) and git_state(path.parent)[1]
    return {line: times[commit] for line, commit in lines.items()
            if commit != UNCOMMITTED and commit in times
            and not (shallow and commit in boundary)}


def spans(lines: list[nodes.Element]) -> dict[str, tuple[str | None, int, int]]:
    """``{ruling id: (source file, first line, last line)}`` of the rulings
    *lines* (the page's ``ruling_line`` nodes, page order; see the module
    docstring).  The source is the page's, or the file it includes the ruling
    from; ``None`` with lines ``(0, 0)`` where docutils gave no line."""
    found: dict[str, tuple[str | None, int, int]] = {}
    for _block, group in itertools.groupby(lines, key=lambda line: id(line.parent)):
        group = list(group)
        parent = group[0].parent
        source, first = locate(parent)
        if not source or not first:
            found.update((line['ids'][0], (None, 0, 0)) for line in group)
            continue
        last = first + getattr(parent, 'rawsource', '').count('\n')
        start = first
        for i, line in enumerate(group):
            dates = [locate(ref) for ref in references_in(line)]
            if any(where != source or not n for where, n in dates):
                # a translation: its dates are at lines of the catalog, the
                # block at its line of the page
                found[line['ids'][0]] = (source, first, last)
                continue
            end = max([start, *(n for _where, n in dates)])
            if i == len(group) - 1:
                end = max(end, last)
            found[line['ids'][0]] = (source, start, end)
            start = end
    return found


def read_dates(app: Sphinx, page: Contribution) -> None:
    """Each ruling's date, for the store (``handbook-page-read``): git blame
    once per source file of the page's rulings."""
    lines = [line for line in page.nodes[RULINGS] if line['ids']]
    if not lines:
        return
    page_source = str(app.env.doc2path(page.docname))
    files: dict[str, tuple[dict[int, int], int]] = {}  # source -> (blame, mtime)

    def date(source: str | None, first: int, last: int) -> int:
        source = source or page_source
        if source not in files:
            path = Path(source)
            if path.is_file():
                files[source] = (blame(path), int(path.stat().st_mtime))
            else:  # not a file docutils read (cannot happen for a page's rulings)
                files[source] = ({}, int(Path(page_source).stat().st_mtime))
        known, mtime = files[source]
        return max(known.get(n, mtime) for n in range(first, last + 1))

    page.extra[EXTRA] = {anchor: date(*span) for anchor, span in spans(lines).items()}


def check_placement(app: Sphinx, page: Contribution) -> None:
    """The list must be the last content of its section (``handbook-page-read``)."""
    warn_unless_last(page, RECENT, 'the list of recent rulings adds one section per date, so '
                     'it must be', 'recent-rulings', 'recent')


# -- the newest rulings ---------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Entry:
    """One ruling of the list, and when it changed."""

    time: int  # epoch seconds
    ruling: Ruling


def entries(env: BuildEnvironment) -> list[Entry]:
    """The rulings changed most recently, most recent first, a ruling in
    several places once (see the docstring)."""
    return store(env).derived(EXTRA, lambda: _entries(env))[0]


def others(env: BuildEnvironment) -> dict[tuple[str, str], tuple[Ruling, ...]]:
    """The other places of each ruling :func:`entries` lists once."""
    return store(env).derived(EXTRA, lambda: _entries(env))[1]


def _entries(env: BuildEnvironment) -> tuple[list[Entry],
                                            dict[tuple[str, str], tuple[Ruling, ...]]]:
    current = doctree_edition(env) == 'current'
    order = {doc: i for i, doc in enumerate(ruling_lines.page_order(env))}
    found = []
    for record in store(env).pages.values():
        times = times_of(record)
        for ruling in record.rulings:
            if ruling.anchor in times and not (current and ruling.struck):
                found.append(Entry(times[ruling.anchor], ruling))
    found.sort(key=lambda e: (-e.time, order.get(e.ruling.docname, len(order)), e.ruling.index))
    listed, elsewhere = once(found, lambda entry: entry.ruling)
    listed = listed[:max(env.config.handbook_recent_rulings, 0)]
    kept = {(entry.ruling.docname, entry.ruling.anchor) for entry in listed}
    return listed, {key: places for key, places in elsewhere.items() if key in kept}


def times_of(record: PageRecord | None) -> dict[str, int]:
    return (record.extra.get(EXTRA) or {}) if record is not None else {}


def zone(config: Config) -> tzinfo:
    """The time zone of the dates (page_dates' ``git_last_updated_timezone``)."""
    value = getattr(config, 'git_last_updated_timezone', None) or 'Asia/Shanghai'
    return get_timezone(value) if isinstance(value, str) else value


def moment(config: Config, time: int) -> datetime:
    return datetime.fromtimestamp(time, timezone.utc).astimezone(zone(config))


def pages(env: BuildEnvironment) -> set[str]:
    """The pages that hold the list."""
    return holders(env, RECENT)


def pages_to_rewrite(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """The pages to write again (``env-get-updated``): those that hold the
    list, whenever rulings or their dates changed."""
    holders = pages(env)
    if not holders:
        return []
    found = changes(env)
    before = store(env).before
    if found.rulings or any(times_of(before.get(doc)) != times_of(store(env).record(doc))
                            for doc in found.pages) \
            or leads_moved(env, (entry.ruling for entry in entries(env))):
        return sorted(holders)
    return []


def feed_name(config: Config, builder: str) -> str | None:
    """The feed's file name, where a build with *builder* writes one."""
    name = config.handbook_recent_feed
    base = config.html_baseurl or ''
    # the entries' links are the base's: an address the URL policy lets the site link
    if not name or builder not in SITE_BUILDERS or url_policy.absolute_problem(base) is not None:
        return None
    return name


class FillRecent(FillTimeline):
    """Replace each ``recent_rulings`` with the dates and their entries (the
    entries as the timeline's, :class:`FillTimeline`)."""

    default_priority = 5  # as the timeline's: before the references are resolved

    def run(self, **kwargs: Any) -> None:
        fill(self.env, self.document, RecentRulingsDirective, self.recent)

    def shown(self) -> list[Ruling]:
        return [entry.ruling for entry in entries(self.env)]

    def others(self) -> dict[tuple[str, str], tuple[Ruling, ...]]:
        return others(self.env)

    def recent(self) -> list[nodes.Node]:
        found = entries(self.env)
        config = self.config
        summary = nodes.paragraph(classes=['recent-rulings-summary'])
        summary += nodes.Text(_('最近改动的 {count} 条裁定，按改动的日期从新到旧。').format(
            count=len(found)))
        feed = feed_name(config, store(self.env).builder.name)
        if feed:
            summary += nodes.Text(' ')
            summary += feed_link('', _('订阅（Atom）'), feed=feed)
        out: list[nodes.Node] = [summary]
        days = itertools.groupby(found, key=lambda e: moment(config, e.time).date())
        for day, items in days:
            section = nodes.section(ids=[f'd{day.isoformat()}'], classes=['recent-rulings-day'])
            section += nodes.title('', _('{year} 年 {month} 月 {day} 日').format(
                year=day.year, month=day.month, day=day.day))
            listing = nodes.bullet_list(classes=['ruling-timeline', 'recent-rulings'])
            for entry in items:
                listing += self.entry(entry.ruling)
            section += listing
            out.append(section)
        return out


# -- the feed --------------------------------------------------------------------------------


def clean(text: str) -> str:
    """*text* escaped for XML, without what XML cannot hold."""
    return escape(NOT_XML.sub('', text))


def attribute(text: str) -> str:
    return quoteattr(NOT_XML.sub('', text))


def shorten(text: str, width: int = TITLE_WIDTH) -> str:
    return text if len(text) <= width else text[:width - 1] + '…'


def feed(app: Sphinx, name: str) -> str:
    """The Atom feed's text."""
    env, config, builder = app.env, app.config, app.builder
    base = config.html_baseurl
    found = entries(env)
    holders = sorted(pages(env))
    home = builder.get_target_uri(holders[0] if holders else config.root_doc)
    if found:
        updated = max(entry.time for entry in found)
    else:  # no ruling: the newest page
        updated = max((int(Path(env.doc2path(doc)).stat().st_mtime) for doc in env.found_docs),
                      default=0)
    language = (config.language or 'en').replace('_', '-')
    title = _('{project} · 最近更新').format(project=config.project)
    out = [FEED_START.removesuffix('\n<feed '),
           f'<feed xmlns="{ATOM}" xml:lang={attribute(language)}>',
           f'  <id>{clean(base + name)}</id>',
           f'  <title type="text">{clean(title)}</title>',
           f'  <updated>{moment(config, updated).isoformat()}</updated>',
           f'  <author><name>{clean(config.author or config.project)}</name></author>',
           f'  <link rel="self" type="application/atom+xml" href={attribute(base + name)}/>',
           f'  <link rel="alternate" type="text/html" href={attribute(base + home)}/>']
    for entry in found:
        ruling = entry.ruling
        url = f'{base}{builder.get_target_uri(ruling.docname)}#{ruling.anchor}'
        where = page_title(env, ruling.docname)
        if ruling.section_title and ruling.section_title != where:
            where += f' › {ruling.section_title}'
        dates = ' '.join(text for text, _date in ruling.shown_dates)
        word = statuses.flag(ruling)  # the page's flag
        flag = f'【{word}】' if word else ''
        content = f'{flag}{ruling.text}（{dates}）\n{where}'
        out += ['  <entry>',
                f'    <id>{clean(url)}</id>',
                f'    <title type="text">{clean(flag + shorten(ruling.text))}</title>',
                f'    <updated>{moment(config, entry.time).isoformat()}</updated>',
                f'    <link rel="alternate" type="text/html" href={attribute(url)}/>',
                *(f'    <category term={attribute(card)}/>' for _key, card in ruling.cards),
                f'    <content type="text">{clean(content)}</content>',
                '  </entry>']
    out += ['</feed>', '']
    return '\n'.join(out)


def visit_feed_link_html(self: HTML5Translator, node: feed_link) -> None:
    here = self.builder.get_target_uri(self.builder.current_docname)
    href = relative_uri(here, node['feed'])
    self.body.append(f'<a class="recent-rulings-feed reference external" '
                     f'href="{html.escape(href)}">')


def depart_feed_link_html(self: HTML5Translator, node: feed_link) -> None:
    self.body.append('</a>')


def write_feed(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None:
        return
    name = feed_name(app.config, app.builder.name)
    if not name:  # no address: an earlier build's feed names one this build was not given
        old = app.config.handbook_recent_feed
        if old and app.builder.name in SITE_BUILDERS:
            remove_stale(Path(app.outdir, old), FEED_START)
        return
    text = feed(app, name)
    path = Path(app.outdir, name)
    if not path.is_file() or path.read_text(encoding='utf-8') != text:
        path.write_text(text, encoding='utf-8')


def link_feed(app: Sphinx, pagename: str, templatename: str,
              context: dict[str, Any], doctree: nodes.document | None) -> None:
    """The feed's link in the page's head (after sphinx-notfound-page's
    ``pathto``, which makes the 404 page's links absolute)."""
    name = feed_name(app.config, app.builder.name)
    if not name:
        return
    href = context['pathto'](name, resource=True)
    title = _('{project} · 最近更新').format(project=app.config.project)
    context['metatags'] = context.get('metatags', '') + (
        f'<link rel="alternate" type="application/atom+xml" title="{html.escape(title)}" '
        f'href="{html.escape(href)}" />\n')


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.listings.timeline')
    app.add_config_value('handbook_recent_rulings', 50, 'html', types=frozenset({int}),
                         description='how many rulings 最近更新 and the feed list')
    app.add_config_value('handbook_recent_feed', 'feed.xml', 'html', types=frozenset({str}),
                         description="the Atom feed's file name, beside the pages ('' for none)")
    app.add_node(recent_rulings)
    app.add_node(feed_link, html=(visit_feed_link_html, depart_feed_link_html))
    add_placeholder(app, 'recent-rulings', RecentRulingsDirective)
    app.add_post_transform(FillRecent)
    app.connect(PAGE_READ, read_dates)
    app.connect(PAGE_READ, check_placement)
    app.connect('env-get-updated', pages_to_rewrite)
    app.connect('build-finished', write_feed)
    app.connect('html-page-context', link_feed, priority=600)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
