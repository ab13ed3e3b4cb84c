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

from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.locale import get_translation
from sphinx.transforms.post_transforms import SphinxPostTransform

from handbook.cards import links as card_links
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


class related_sections(nodes.General, nodes.Element):
    """The block of related sections (HTML only): ``<details>``."""


Related = list[tuple[Section, list[tuple[Section, list[str]]]]]


def related_all(env: BuildEnvironment, limit: int) -> dict[str, Related]:
    """For each page, for each of its sections that links cards: the related
    sections of other pages, best first, with the shared cards' registry keys
    in the order the section names them.  One pass over every section."""
    registry = card_links.registry(env)
    pages = card_index.sections(env)
    keys_of: dict[tuple[str, int], list[str]] = {}
    by_key: dict[str, list[Section]] = {}
    for secs in pages.values():
        for section in secs:
            found = (registry.get(key) for key, _name in section.cards)
            keys = list(dict.fromkeys(card.key for card in found if card is not None))
            keys_of[section.docname, section.index] = keys
            for key in keys:
                by_key.setdefault(key, []).append(section)
    out: dict[str, Related] = {}
    for docname, secs in pages.items():
        for section in secs:
            if not section.section_id:
                continue
            shared: dict[tuple[str, int], tuple[Section, list[str]]] = {}
            for key in keys_of[docname, section.index]:
                for other in by_key.get(key, ()):
                    if other.docname != docname:
                        shared.setdefault((other.docname, other.index), (other, []))[1].append(key)
            best = sorted(shared.values(), key=lambda o: (-len(o[1]), o[0].docname, o[0].index))
            if best[:limit]:
                out.setdefault(docname, []).append((section, best[:limit]))
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
        for section, others in found:
            node = by_id.get(section.section_id)
            if node is None:
                continue
            block = related_sections(classes=['related-sections', 'no-search'],
                                     summary=_('相关章节（{count}）').format(count=len(others)))
            items = []
            for other, keys in others:
                names = '、'.join(registry[k].name_in(language) for k in keys[:SHOWN_NAMES])
                if len(keys) > SHOWN_NAMES:
                    names += '……'
                shared = _('{count} 个共同的卡名：{names}').format(count=len(keys), names=names)
                items.append(f'<li>{self.link(links, other)} · '
                             f'<span class="related-cards">{escape(shared)}</span></li>')
            # no paragraph in an item, no line break between items: each an
            # element of the page, on a chapter page with hundreds of them
            block += nodes.raw('', f'<ul class="simple">{"".join(items)}</ul>\n',
                               format='html')
            at = next((i for i, child in enumerate(node.children)
                       if isinstance(child, nodes.section)), len(node.children))
            node.insert(at, block)

    def link(self, links: HtmlLinks, other: Section) -> str:
        """The link to *other*, in HTML."""
        page = page_title(self.env, other.docname)
        top = other.top and other.title in ('', page)
        text = escape(page if top else f'{page} › {other.title}')
        return links.link(other.docname, '' if top else other.section_id, text)


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


def skip(self: Any, node: nodes.Node) -> None:
    raise nodes.SkipNode


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.listings.card_index')
    app.add_config_value('handbook_related_sections', 5, 'html', types=frozenset({int}),
                         description='related sections shown per section; 0: none')
    app.add_node(related_sections, html=(visit_related_html, depart_related_html),
                 latex=(skip, None), text=(skip, None), man=(skip, None), texinfo=(skip, None))
    app.add_post_transform(RelatedSections)
    app.connect('env-get-updated', pages_to_rewrite)
    return {'version': '2', 'env_version': 2,
            'parallel_read_safe': True, 'parallel_write_safe': True}
