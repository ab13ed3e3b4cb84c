"""Related sections: at the end of a section, the sections of other pages that name the same cards.

Every section whose own text (not its subsections') links cards gets, at
write time, a collapsed block after that text (before its first
subsection), in HTML and EPUB::

    ▸ 相关章节（3）
        效果处理 › 同时处理 · 4 个共同的卡名：旋风、神之宣告、王宫的铁壁……
        …

listing the sections of *other* pages that link at least one of the same
registry cards (see :mod:`handbook.listings.card_index` for what a section links), most shared
cards first, then by page name and position in the page; at most
``handbook_related_sections`` of them (0: no blocks).  Each links to the
section (the page, for its top section) and names up to three of the shared
cards, in the order the section names them.  The block is a
``<details class="related-sections no-search">``, added as the page is
written: the search's section texts, kept as the page is read
(:mod:`handbook.search.section_texts`), never hold it, so a page is never
found for a title of another page.  LaTeX gets no blocks: the PDF has the card
index.

**Listed when opened.**  A yearly FAQ page has hundreds of blocks of five
entries each, most of them closed for good: written out, they would be a
large share of the page's elements and bytes, which every reader downloads
and every browser lays out.  So an HTML page holds, per block, only
``<details class="related-sections no-search"><summary>相关章节（5）</summary>
</details>``, and the entries of every block of the page are in a file of
their own, ``_related/<page>.js``, which sets
``window.handbookRelatedSections`` to
``{"targets": [[href or null, text], …], "names": […], "blocks": {section
id: entries}}`` (a block's entries: one per space, each the target's number,
the count of shared cards and the shown names' numbers, comma-separated).
``related_sections.js`` (``_static/related_sections.js``, loaded by the
pages that have blocks; its tag's ``data-tables`` names the page's file)
loads that file when a reader first opens a block -- a script, not a fetch,
so that pages read from disk list them too -- and writes the block's list:
the same ``<ul class="simple"><li><a class="reference internal">…</a> ·
<span class="related-cards">…</span></li>…</ul>`` the EPUB gets written
out (a builder whose pages are ``embedded``, without scripts).  The script
makes its elements with ``textContent`` and ``setAttribute``: no text
becomes HTML.  The file is written with its page, and removed when the page
is written without blocks.

Never stale, and no page written for nothing: once the pages are read
(``env-get-updated``), every page's blocks are computed in one pass and
compared with what was written last time; exactly the pages whose blocks
changed -- a related section renamed, added or gone, a different count or
card name -- are written again.  The ranking does not depend on the table
of contents.

Configuration (``conf.py``)::

    handbook_related_sections = 5  # at most this many per section; 0: none
"""

from __future__ import annotations

import collections
import heapq
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.locale import get_translation
from sphinx.transforms.post_transforms import SphinxPostTransform

from handbook.cards import links as card_links
from handbook.core.files import copy_script_to_static, write_if_changed
from handbook.listings import card_index
from handbook.listings.card_index import Section
from handbook.render.anchors import page_title
from handbook.render.html_parts import HtmlLinks, escape
from handbook.store import State, changes, state, store

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.writers.html5 import HTML5Translator

_ = get_translation('handbook')

#: how many shared card names an entry shows
SHOWN_NAMES = 3
#: between the shown names, and after them where more are shared
NAMES_SEPARATOR, MORE = '、', '……'
#: the script that writes a block's list when it is opened, copied into _static/
SCRIPT = Path(__file__).with_suffix('.js')
#: the folder of the pages' entries (``_related/<page>.js``) in the HTML folder
FOLDER = '_related'
#: what a page's file of entries sets
GLOBAL = 'window.handbookRelatedSections'
#: the document's attribute holding the page's entries until the page is written
ENTRIES = 'handbook_related_sections'


class related_sections(nodes.General, nodes.Element):
    """The block of related sections (HTML only): ``<details>``."""


Related = list[tuple[Section, list[tuple[Section, list[str]]]]]


def related_all(env: BuildEnvironment, limit: int) -> dict[str, Related]:
    """For each page, for each of its sections that links cards: the related
    sections of other pages, best first (the most shared cards, then page and
    section order), with the shared cards' registry keys in the order the
    section names them.  One pass over every section: each section's count
    of shared cards per other section is made in C (:class:`collections.Counter`
    over the sections of each of its cards), and only the best are looked at."""
    registry = card_links.registry(env)
    pages = card_index.sections(env)
    # every section, numbered in page and section order: the order of a tie
    ordered = sorted((section for secs in pages.values() for section in secs),
                     key=lambda section: (section.docname, section.index))
    keys_of: list[list[str]] = []
    by_key: dict[str, list[int]] = {}
    for n, section in enumerate(ordered):
        found = (registry.get(key) for key, _name in section.cards)
        keys = list(dict.fromkeys(card.key for card in found if card is not None))
        keys_of.append(keys)
        for key in keys:
            by_key.setdefault(key, []).append(n)
    out: dict[str, Related] = {}
    for section, keys in zip(ordered, keys_of):
        if not section.section_id:
            continue
        shared = collections.Counter()
        for key in keys:
            shared.update(by_key[key])
        best = heapq.nsmallest(limit, ((-count, n) for n, count in shared.items()
                                       if ordered[n].docname != section.docname))
        others = []
        for _count, n in best:
            theirs = set(keys_of[n])
            others.append((ordered[n], [key for key in keys if key in theirs]))
        if others:
            out.setdefault(section.docname, []).append((section, others))
    return out


class RelatedState(State):
    """What the related sections keep from build to build
    (:func:`handbook.store.state`): each page's blocks as computed (None:
    never), the limit they were computed for, what each page's blocks show."""

    def __init__(self) -> None:
        self.related: dict[str, Related] | None = None
        self.limit: int | None = None
        self.shown: dict[str, tuple] = {}


def related(env: BuildEnvironment, docname: str) -> Related:
    """The related sections of *docname*'s sections, as computed for this build."""
    return (state(env, RelatedState).related or {}).get(docname, [])


def rendered(env: BuildEnvironment, found: Related) -> tuple:
    """Everything a page's blocks show: equal values, equal HTML."""
    registry = card_links.registry(env)
    language = env.config.language
    return tuple(
        (section.section_id, tuple(
            (other.docname, other.section_id, other.title,
             page_title(env, other.docname), len(keys),
             tuple(registry[k].name_in(language) for k in keys[:SHOWN_NAMES]))
            for other, keys in others))
        for section, others in found)


class RelatedSections(SphinxPostTransform):
    """Add the block of related sections to each section that has some: its
    list written to HTML at once (:mod:`handbook.render.html_parts`), the
    bytes the HTML translator wrote for its nodes: thousands of entries
    never become nodes to resolve and translate."""

    default_priority = 5
    formats = ('html',)  # HTML and EPUB

    def run(self, **kwargs: Any) -> None:
        env = self.env
        found = related(env, env.docname)
        if not found:
            return
        by_id = {s['ids'][0]: s for s in self.document.findall(nodes.section) if s['ids']}
        links = HtmlLinks(env, env.docname)
        registry = card_links.registry(env)
        language = env.config.language
        written = getattr(store(env).builder, 'embedded', False)  # EPUB: no script
        targets: dict[tuple[str | None, str], int] = {}
        names: dict[str, int] = {}
        blocks: dict[str, str] = {}
        for section, others in found:
            node = by_id.get(section.section_id)
            if node is None:
                continue
            block = related_sections(classes=['related-sections', 'no-search'],
                                     summary=_('相关章节（{count}）').format(count=len(others)))
            if written:
                block += self.listing(links, others, registry, language)
            else:
                entries = []
                for other, keys in others:
                    target = targets.setdefault(self.target(links, other), len(targets))
                    shown = (names.setdefault(registry[k].name_in(language), len(names))
                             for k in keys[:SHOWN_NAMES])
                    entries.append(','.join(map(str, (target, len(keys), *shown))))
                blocks[section.section_id] = ' '.join(entries)
            at = next((i for i, child in enumerate(node.children)
                       if isinstance(child, nodes.section)), len(node.children))
            node.insert(at, block)
        if blocks:  # written to the page's own file with the page (write_entries)
            self.document[ENTRIES] = {'targets': [list(t) for t in targets],
                                      'names': list(names), 'blocks': blocks}

    def listing(self, links: HtmlLinks, others: list[tuple[Section, list[str]]],
                registry: Any, language: str) -> nodes.raw:
        """A block's list, written out (the EPUB's)."""
        items = []
        for other, keys in others:
            href, text = self.target(links, other)
            link = escape(text) if href is None else \
                f'<a class="reference internal" href="{escape(href)}">{escape(text)}</a>'
            names = NAMES_SEPARATOR.join(registry[k].name_in(language)
                                         for k in keys[:SHOWN_NAMES])
            if len(keys) > SHOWN_NAMES:
                names += MORE
            shared = _('{count} 个共同的卡名：{names}').format(count=len(keys), names=names)
            items.append(f'<li>{link} · <span class="related-cards">{escape(shared)}</span></li>')
        # no paragraph in an item, no line break between items: each an
        # element of the page, on a chapter page with hundreds of them
        return nodes.raw('', f'<ul class="simple">{"".join(items)}</ul>\n', format='html')

    def target(self, links: HtmlLinks, other: Section) -> tuple[str | None, str]:
        """Where an entry leads (None: no page of this build) and its text."""
        page = page_title(self.env, other.docname)
        top = other.top and other.title in ('', page)
        uri = links.uri(other.docname)
        if uri is not None and not top:
            uri = f'{uri}#{other.section_id}'
        return uri, page if top else f'{page} › {other.title}'


def pages_to_rewrite(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """The pages to write again (``env-get-updated``): every page's related
    sections are computed once the pages are read; the pages whose blocks
    changed are written again."""
    kept = state(env, RelatedState)
    limit = env.config.handbook_related_sections
    changed = changes(env)
    shown_rows = store(env).registry_changed - store(env).registry_relinked
    if kept.related is not None and kept.limit == limit and \
            not changed.sections and not changed.titles and not shown_rows:
        # no section's cards or title, no page title, no registry row changed
        # but in where its link leads (which the blocks do not show)
        return []
    kept.related = related_all(env, limit) if limit > 0 else {}
    kept.limit = limit
    before = kept.shown
    now = {doc: rendered(env, found) for doc, found in kept.related.items()}
    kept.shown = now
    return sorted(doc for doc in before.keys() | now.keys()
                  if doc in env.all_docs and before.get(doc) != now.get(doc))


def visit_related_html(self: HTML5Translator, node: related_sections) -> None:
    self.body.append(self.starttag(node, 'details', ''))
    self.body.append(f'<summary>{self.encode(node["summary"])}</summary>')


def depart_related_html(self: HTML5Translator, node: related_sections) -> None:
    self.body.append('</details>\n')


def write_entries(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
                  doctree: nodes.document | None) -> None:
    """Write the page's file of entries, and have the page load the script
    that lists them, with its texts and the file's address
    (``html-page-context``); remove the file of a page without blocks."""
    builder = app.builder
    if builder.format != 'html' or getattr(builder, 'embedded', False):
        return
    path = Path(builder.outdir, FOLDER, f'{pagename}.js')
    entries = doctree.get(ENTRIES) if doctree is not None else None
    if not entries:
        if doctree is not None and path.is_file():
            path.unlink()
        return
    tables = json.dumps(entries, ensure_ascii=False, separators=(',', ':'))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_if_changed(path, f'{GLOBAL} = {tables};\n')
    app.add_js_file(SCRIPT.name, priority=510, defer='defer', **{
        'data-tables': context['pathto'](f'{FOLDER}/{pagename}.js', resource=True),
        'data-shared': str(_('{count} 个共同的卡名：{names}')),
        'data-separator': NAMES_SEPARATOR,
        'data-more': MORE,
    })


def copy_script(app: Sphinx) -> None:
    """Copy the script into ``_static/`` (``builder-inited``)."""
    copy_script_to_static(app.builder, SCRIPT)


def skip(self: Any, node: nodes.Node) -> None:
    raise nodes.SkipNode


def remove_entries_of_removed_pages(app: Sphinx, env: BuildEnvironment, added: set[str],
                                   changed: set[str], removed: set[str]) -> list[str]:
    """The entries of the pages whose source is gone (``env-get-outdated``):
    a clean build has none."""
    for docname in removed:
        Path(app.outdir, FOLDER, f'{docname}.js').unlink(missing_ok=True)
    return []


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.listings.card_index')
    app.add_config_value('handbook_related_sections', 5, 'html', types=frozenset({int}),
                         description='related sections shown per section; 0: none')
    app.add_node(related_sections, html=(visit_related_html, depart_related_html),
                 latex=(skip, None), text=(skip, None), man=(skip, None), texinfo=(skip, None))
    app.add_post_transform(RelatedSections)
    app.connect('env-get-updated', pages_to_rewrite)
    app.connect('env-get-outdated', remove_entries_of_removed_pages)
    app.connect('builder-inited', copy_script)
    app.connect('html-page-context', write_entries)
    return {'version': '4', 'env_version': 4,
            'parallel_read_safe': True, 'parallel_write_safe': True}
