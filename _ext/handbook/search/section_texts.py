"""Section texts: what the search finds in a page besides its rulings.

The search page's section results (:mod:`handbook.search.rulings_index`)
answer "which sections say this?": a section says what its own text says --
its title, its paragraphs, lines, list items, table cells and its rulings,
not its subsections'.  The rulings are in the store already
(:mod:`handbook.rulings.lines`); this module keeps the rest, the blocks of
text that hold no ruling, as each page is read (``handbook-page-read``,
from the store's one walk of the page, :attr:`handbook.store.PageNodes.texts`):

* the page's sections, in page order: ``(id, title, top)``, ``top`` for a
  first-level section (a result for it is the page itself);
* for each section with such text, its blocks' texts (``astext``): a block
  that holds a ruling (a line of a line block, a paragraph with a date) is
  left out whole, since the rulings cut from it cover its text (see
  :mod:`handbook.rulings.lines`); so is a yearly FAQ day's source header
  (``| 数据库：``): a label of the rulings under it, shown with each of them
  (:mod:`handbook.rulings.days`), no text of its own.

The store keeps them with the page's record (``extra['search_texts']``):
purged, merged and kept from build to build as the record is.

Configuration: none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.util.nodes import clean_astext

from handbook.core.records import frozen_record
from handbook.rulings.days import SOURCE_HEADER
from handbook.rulings.lines import RULINGS
from handbook.store import PAGE_READ, Contribution, store

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

#: the record's entry (``PageRecord.extra``)
EXTRA = 'search_texts'


@frozen_record
class PageTexts:
    """A page's sections and the text of each outside its rulings."""

    sections: tuple[tuple[str, str, bool], ...]  # (id, title, top), page order
    texts: tuple[tuple[int, tuple[str, ...]], ...]  # (index in sections, its blocks' texts)


def _block(node: nodes.Node) -> nodes.Node | None:
    """The block of text (not inline) that holds *node*."""
    while node is not None and (isinstance(node, nodes.Inline)
                                or not isinstance(node, nodes.TextElement)):
        node = node.parent
    return node


def _section(node: nodes.Node) -> nodes.section | None | bool:
    """The section that holds *node*; False where a system message holds it
    (a report docutils left in the page, never its text)."""
    parent = node.parent
    while parent is not None and not isinstance(parent, nodes.section):
        if isinstance(parent, nodes.system_message):
            return False
        parent = parent.parent
    return parent


def read_texts(app: Sphinx, page: Contribution) -> None:
    """The page's sections and texts (``handbook-page-read``)."""
    found = page.nodes
    index = {id(section): i for i, section in enumerate(found.sections)}
    sections = [(section['ids'][0] if section['ids'] else '',
                 clean_astext(section[0]) if section.children
                 and isinstance(section[0], nodes.title) else '',
                 isinstance(section.parent, nodes.document)) for section in found.sections]
    with_rulings = {id(_block(line)) for line in found[RULINGS]}
    texts: dict[int, list[str]] = {}
    outside = None  # text before the first section: a section of its own, the page itself
    for block in found.texts:
        if id(block) in with_rulings or block.get(SOURCE_HEADER):
            continue
        text = block.astext().strip()
        if not text:
            continue
        section = _section(block)
        if section is False:
            continue
        if section is not None:
            at = index[id(section)]
        else:
            if outside is None:
                outside = len(sections)
                sections.append(('', '', True))
            at = outside
        texts.setdefault(at, []).append(text)
    page.extra[EXTRA] = PageTexts(tuple(sections), tuple(
        (at, tuple(texts[at])) for at in sorted(texts)))


def page_texts(env: BuildEnvironment, docname: str) -> PageTexts | None:
    """What :func:`read_texts` kept of *docname*."""
    record = store(env).record(docname)
    return record.extra.get(EXTRA) if record is not None else None


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.store')
    app.connect(PAGE_READ, read_texts)
    # 2: without the source headers of a yearly FAQ page's days; 1: the first shape
    return {'version': '1', 'env_version': 2,
            'parallel_read_safe': True, 'parallel_write_safe': True}
