"""Stable section ids: readable anchors that survive edits elsewhere.

Docutils derives a section's id from its title with ASCII letters only, so a
Chinese heading gets a numbered id (``id3``) that changes whenever a section,
footnote or other numbered element is added above it: links into the page
break silently.  This extension gives every section a *readable* id that
depends only on the section itself:

* its label, where it has one (``.. _同时处理:`` before the heading gives
  ``#同时处理``);
* else its title as written, except that spaces, brackets and quotes
  (『』「」（）…) and ASCII punctuation become ``-`` (one for a run, none at
  the ends) and ASCII letters are lowercased: ``『时』与『场合』`` gives
  ``#时-与-场合``, ``『A，B』`` gives ``#a，b`` (other punctuation is kept, it
  can be all that tells two titles apart), ``Label Target`` gives
  ``#label-target``, as docutils would.

In a translated build the id comes from the original title (the label is
the same in every language), so a section has one id in every language.

Two sections of a page that would get the same id (the same title under
different parents) are both qualified by their parent's id
(``#父章节-例``), so neither depends on which comes first; only sibling
sections with the same title fall back to a number (``-2``) in page order.

The readable id becomes the section's first id: the table of contents (furo's
too), ``:ref:`` links, same-page references (```标题`_``) and the heading's
¶ link use it.  Docutils' own ids stay on the section as secondary ids, so a
link that already points at ``#id3`` keeps working as long as docutils
would have kept it -- except an old id that is now another section's
readable id (docutils gives ``作为cost`` the id ``cost``; a section titled
``cost`` now has it).

Nothing to configure; ``slug()`` is the id function, also used by
:mod:`handbook.rulings.lines`.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.util.nodes import clean_astext

from handbook.core import reports

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config

#: Unicode categories that separate words in an id: spaces, brackets, quotes
_SEPARATING = ('Zs', 'Zl', 'Zp', 'Cc', 'Ps', 'Pe', 'Pi', 'Pf')


def slug(text: str) -> str:
    """A readable id for *text* (see the module docstring)."""
    chars = []
    for c in text:
        if unicodedata.category(c) in _SEPARATING or (c.isascii() and not c.isalnum()):
            c = '-'
        chars.append(c.lower() if c.isascii() else c)
    return re.sub('-{2,}', '-', ''.join(chars)).strip('-')


class SectionIds(SphinxTransform):
    """Give every section a readable id from its label or title."""

    # after docutils has resolved same-page references (InternalTargets, 660),
    # before the domains collect the labels (SphinxDomains, 850) and before
    # doctree-read (880), where the table of contents is collected
    default_priority = 840

    def apply(self, **kwargs: Any) -> None:
        document = self.document
        sections = [s for s in document.findall(nodes.section) if s['ids']]
        wanted = {id(s): self.candidate(s) for s in sections}
        count = Counter(wanted.values())
        # ids that stay: those of footnotes, targets, … and of sections
        # without a readable title
        own = {i for s in sections if wanted[id(s)] for i in s['ids']}
        taken = set(document.ids) - own
        final: dict[int, str] = {}
        for section in sections:  # document order: parents before children
            base = wanted[id(section)]
            if not base:
                continue  # nothing readable in the title: keep docutils' id
            if count[base] > 1 or base in taken:
                parent = section.parent
                while parent is not None and not isinstance(parent, nodes.section):
                    parent = parent.parent
                prefix = final.get(id(parent)) if parent is not None else None
                base = f'{prefix}-{base}' if prefix else base
            new, n = base, 1
            while new in taken:
                n += 1
                new = f'{base}-{n}'
            taken.add(new)
            final[id(section)] = new
        renamed: dict[str, str] = {}  # old id -> new id
        for section in sections:
            if id(section) in final:
                renamed.update(self.rename(section, final[id(section)], set(final.values())))
        # links that docutils resolved to an old id now use the readable one
        if renamed:
            for node in document.findall(nodes.Element):
                if node.get('refid') in renamed:
                    node['refid'] = renamed[node['refid']]

    def candidate(self, section: nodes.section) -> str:
        document = self.document
        label = next((n for n in section['names'] if document.nametypes.get(n)), None)
        if label:
            return slug(label)
        title = section[0] if section.children else None
        if not isinstance(title, nodes.title):
            return ''
        if title.get('translated') and title.rawsource:
            return slug(title.rawsource)  # the original's title, as in every language
        return slug(clean_astext(title))

    def rename(self, section: nodes.section, new: str, readable: set[str]) -> dict[str, str]:
        """Make *new* the section's first id, keep its old ids except those
        that are another section's readable id; return {old id: new}."""
        document = self.document
        old = list(section['ids'])
        section['ids'] = [new, *(i for i in old if i != new and i not in readable)]
        document.ids[new] = section
        for name in section['names']:
            if document.nameids.get(name) in old:
                document.nameids[name] = new
        return {i: new for i in old if i != new}


class PageTitle(SphinxTransform):
    """error ``handbook.title`` -- a page with no title: Sphinx titles it
    ``<no title>`` in its tab, the navigation, the search and the rulings'
    export (a hostile-input round trip), and said so at each toctree that
    lists it, once per page written (``toc.no_title``, left to this one)."""

    default_priority = 841  # with the ids, before doctree-read collects the title

    def apply(self, **kwargs: Any) -> None:
        document = self.document
        if document.next_node(nodes.section) is not None or 'title' in document:
            return
        reports.error('the page has no title, so readers see "<no title>" in its tab, the '
                      'navigation and the search: give it one at its top, a line of text over '
                      'a line of = as long (a Chinese character counts 2)',
                      location=(self.env.docname, 1), subtype='title')


def said_here(app: Sphinx, config: Config) -> None:
    """Sphinx's report of a page with no title, at each toctree, is this module's."""
    if 'toc.no_title' not in config.suppress_warnings:
        config.suppress_warnings = [*config.suppress_warnings, 'toc.no_title']


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_transform(SectionIds)
    app.add_transform(PageTitle)
    app.connect('config-inited', said_here)
    return {'version': '1', 'env_version': 2,
            'parallel_read_safe': True, 'parallel_write_safe': True}
