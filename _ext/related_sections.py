"""Related sections: at the end of a section, the sections of other pages that name the same cards.

Every section whose own text (not its subsections') links cards gets, at
write time, a collapsed block after that text (before its first
subsection), in HTML and EPUB::

    ▸ 相关章节（3）
        效果处理 › 同时处理 · 4 个共同的卡名：旋风、神之宣告、王宫的铁壁……
        …

listing the sections of *other* pages that link at least one of the same
registry cards (see :mod:`card_index` for what a section links), most shared
cards first, then by page name and position in the page; at most
``handbook_related_sections`` of them (0: no blocks).  Each links to the
section (the page, for its top section) and names up to three of the shared
cards, in the order the section names them.  The block is a
``<details class="related-sections no-search">``: Sphinx's search index and
the section search (``card_search.js``) skip it, so a page is never found
for a title of another page.  LaTeX gets no blocks: the PDF has the card
index.

Never stale: when pages are read again or removed, every page that shares a
card with their old or new text is written again (``env-get-updated``).  The
ranking does not depend on the table of contents.

Configuration (``conf.py``)::

    handbook_related_sections = 5  # at most this many per section; 0: none
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.environment.collectors import EnvironmentCollector
from sphinx.locale import get_translation
from sphinx.transforms.post_transforms import SphinxPostTransform

import card_index
import card_links
from card_index import Section

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment
    from sphinx.writers.html5 import HTML5Translator

_ = get_translation('handbook')

#: how many shared card names an entry shows
SHOWN_NAMES = 3


class related_sections(nodes.General, nodes.Element):
    """The block of related sections (HTML only): ``<details>``."""


def related(env: BuildEnvironment, docname: str, limit: int
            ) -> list[tuple[Section, list[tuple[Section, list[str]]]]]:
    """For each section of *docname* that links cards: the related sections
    of other pages, best first, with the shared cards' registry keys in the
    order the section names them."""
    registry = card_links.registry(env)

    def keys(section: Section) -> list[str]:
        found = (registry.get(key) for key, _name in section.cards)
        return list(dict.fromkeys(card.key for card in found if card is not None))

    by_key: dict[str, list[Section]] = {}
    for other, secs in card_index.sections(env).items():
        if other == docname:
            continue
        for section in secs:
            for key in keys(section):
                by_key.setdefault(key, []).append(section)
    out = []
    for section in card_index.sections(env).get(docname, []):
        if not section.section_id:
            continue
        shared: dict[tuple[str, int], tuple[Section, list[str]]] = {}
        for key in keys(section):
            for other in by_key.get(key, ()):
                shared.setdefault((other.docname, other.index), (other, []))[1].append(key)
        best = sorted(shared.values(), key=lambda o: (-len(o[1]), o[0].docname, o[0].index))
        if best[:limit]:
            out.append((section, best[:limit]))
    return out


class RelatedSections(SphinxPostTransform):
    """Add the block of related sections to each section that has some."""

    default_priority = 5  # before ReferencesResolver (10), which resolves its links
    formats = ('html',)  # HTML and EPUB

    def run(self, **kwargs: Any) -> None:
        env = self.env
        limit = env.config.handbook_related_sections
        if limit <= 0:
            return
        found = related(env, env.docname, limit)
        if not found:
            return
        by_id = {s['ids'][0]: s for s in self.document.findall(nodes.section) if s['ids']}
        registry = card_links.registry(env)
        language = env.config.language
        for section, others in found:
            node = by_id.get(section.section_id)
            if node is None:
                continue
            block = related_sections(classes=['related-sections', 'no-search'],
                                     summary=_('相关章节（{count}）').format(count=len(others)))
            listing = nodes.bullet_list()
            for other, keys in others:
                item = nodes.paragraph()
                item += self.link(other)
                names = '、'.join(registry[k].name_in(language) for k in keys[:SHOWN_NAMES])
                if len(keys) > SHOWN_NAMES:
                    names += '……'
                item += nodes.Text(' · ')
                item += nodes.inline('', _('{count} 个共同的卡名：{names}').format(
                    count=len(keys), names=names), classes=['related-cards'])
                listing += nodes.list_item('', item)
            block += listing
            at = next((i for i, child in enumerate(node.children)
                       if isinstance(child, nodes.section)), len(node.children))
            node.insert(at, block)

    def link(self, other: Section) -> nodes.Node:
        page = card_index.page_title(self.env, other.docname)
        top = other.top and other.title in ('', page)
        text = nodes.Text(page if top else f'{page} › {other.title}')
        return card_index.anchor_link(self.env.docname, other.docname,
                                      '' if top else other.section_id, text)


class RelatedPages(EnvironmentCollector):
    """Writes again the pages that share a card with a page read again or removed."""

    def clear_doc(self, app: Sphinx, env: BuildEnvironment, docname: str) -> None:
        pass  # the record is card_index's

    def merge_other(self, app: Sphinx, env: BuildEnvironment, docnames: set[str],
                    other: BuildEnvironment) -> None:
        pass

    def process_doc(self, app: Sphinx, doctree: nodes.document) -> None:
        pass

    def get_updated_docs(self, app: Sphinx, env: BuildEnvironment) -> list[str]:
        touched = card_index.touched_keys(env)
        if not touched or env.config.handbook_related_sections <= 0:
            return []
        return sorted(doc for doc, secs in card_index.sections(env).items()
                      if any(s.keys & touched for s in secs))


def visit_related_html(self: HTML5Translator, node: related_sections) -> None:
    self.body.append(self.starttag(node, 'details', ''))
    self.body.append(f'<summary>{self.encode(node["summary"])}</summary>')


def depart_related_html(self: HTML5Translator, node: related_sections) -> None:
    self.body.append('</details>\n')


def skip(self: Any, node: nodes.Node) -> None:
    raise nodes.SkipNode


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('card_index')
    app.add_config_value('handbook_related_sections', 5, 'html', types=frozenset({int}),
                         description='related sections shown per section; 0: none')
    app.add_node(related_sections, html=(visit_related_html, depart_related_html),
                 latex=(skip, None), text=(skip, None), man=(skip, None), texinfo=(skip, None))
    app.add_post_transform(RelatedSections)
    app.add_env_collector(RelatedPages)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
