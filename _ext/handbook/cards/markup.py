"""Card markup checks: card references that are not written 「`卡名`_」.

A card is written 「`卡名`_」 (see :mod:`handbook.cards.links`).  Small slips in that
markup are not errors for docutils: it renders them as italics, as plain
text with stray backquotes, or as a link to a nonsense name.  This extension
reports each one as a warning at its exact file and line, in every build
(so ``make html``, which turns warnings into errors, fails on them):

``handbook.card-markup`` -- broken markup:

* 「`卡名`」, no underscore: docutils reads it as text in the default role
  (``title_reference``, rendered in italics), not as a link;
* 「`卡名`_ without the closing 」, or `卡名`_」 without the opening 「 (for a
  registry name; an unknown name is card_links' warning, 「」 or not);
* 「` 卡名`_」 (spaces inside the backquotes), 「卡名`_」: markup docutils
  does not recognise stays in the text with its backquotes;
* 「`卡名 `_」…「`旋风`_」: a space before the closing backquote makes docutils
  pair the backquote with a later one; the "name" then contains backquotes.
  It is reported here (not as an unknown card) and rendered as plain text.

``handbook.markup`` -- the same kind of slip outside card names: a role
written right after Chinese text (详见:ref:`标签`, which docutils does not
recognise: write 详见\\ :ref:`标签`), text in backquotes without a role
(`文本`, italics), a link without its underscores (`17/3/24 <https://…>`).  Any backquote left in the text is reported; a backquote
meant as text goes inside a literal, ``…``.

``handbook.unlinked`` -- a plain 「卡名」 whose content is a registry name
(or alias): linking card names is the house style.  ``make autolink``
writes the links.  Not reported:

* text inside 『…』: effect text is quoted as printed on the card, where
  「卡名」 stands for the card's own name or an archetype (『「战吼」怪兽』);
* 「…」 inside a card name (「`魔界剧场「奇幻剧场」`_」) or a literal;
* section titles (a linked title would make the table of contents a list of
  links to the card database);
* placeholders and names that are not in the registry (「○○」, 「卡名」).

The plain 「…」 of each page are remembered (folded, on the environment),
so that editing the registry re-reads the pages whose plain quotes became,
or stopped being, registry names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

from handbook.cards.registry import fold
from handbook.core.source_lines import locate

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

logger = logging.getLogger(__name__)

#: nodes whose text is not prose: markup inside them is not checked
_NOT_PROSE = (nodes.literal, nodes.FixedTextElement, nodes.comment, nodes.raw,
              nodes.reference, addnodes.pending_xref, nodes.problematic,
              nodes.title_reference, nodes.target, nodes.math, nodes.system_message,
              nodes.substitution_definition, nodes.image)
#: a role docutils did not recognise (right after Chinese text, without `\ `)
_ROLE = re.compile(r':[\w.+-]+(?::[\w.+-]+)?:`')
#: the same, when docutils took the backquoted part for text in the default role
_ROLE_BEFORE = re.compile(r':[\w.+-]+(?::[\w.+-]+)?:$')
#: broken card markup left in the text: 「 … ` … 」 on one line
_BROKEN_CARD = re.compile(r'「[^「」\n`]*`[^「」\n]*」?|[^「」\s`]*`+_*」')


def quotes(text: str) -> Iterator[tuple[int, int, str, bool]]:
    """Each balanced 「…」 of *text*: ``(start, end, content, quoted)``, outermost
    first, where ``quoted`` says it lies inside 『…』 (effect text).  *start* is
    the index of 「, *end* the index after 」.  Used by tools/autolink.py too."""
    depth = 0
    stack: list[tuple[int, int]] = []  # (index of 「, 『』 depth there)
    found = []
    for i, ch in enumerate(text):
        if ch == '『':
            depth += 1
        elif ch == '』':
            depth = max(depth - 1, 0)
        elif ch == '「':
            stack.append((i, depth))
        elif ch == '」' and stack:
            start, at = stack.pop()
            found.append((start, i + 1, text[start + 1:i], at > 0))
    found.sort(key=lambda q: (q[0], -q[1]))
    yield from found


def _sibling(node: nodes.Node, step: int) -> nodes.Node | None:
    parent = node.parent
    if parent is None:
        return None
    i = parent.index(node) + step
    return parent[i] if 0 <= i < len(parent) else None


class CardMarkup(SphinxTransform):
    """Report broken card markup; remember and report plain registry names."""

    # after card_links.CardReferences (845), before the domains collect (850)
    default_priority = 846

    def apply(self, **kwargs: Any) -> None:
        self.check_card_references()
        self.check_default_role()
        plain: set[str] = set()
        for block in self.prose_blocks():
            self.check_text(block, plain)
        docname = self.env.current_document.docname
        if plain:
            self.env.handbook_plain_quotes[docname] = frozenset(plain)

    # -- 「`卡名`_」 parsed as a card reference ------------------------------------

    def check_card_references(self) -> None:
        for xref in list(self.document.findall(addnodes.pending_xref)):
            if xref.get('refdomain') != 'card':
                continue
            name = xref['cardname']
            if '`' in name:
                self.warn(xref, f'broken card markup {xref.rawsource!r}: a space before a closing '
                                'backquote joined two card names; write each as 「`卡名`_」',
                          'card-markup')
                xref.replace_self(nodes.problematic(xref.rawsource, xref.rawsource))
                continue
            if self.env.handbook_cards.lookup(name) is None:
                continue  # an unknown name: card_links reports it, 「」 or not
            before, after = _sibling(xref, -1), _sibling(xref, +1)
            opened = isinstance(before, nodes.Text) and before.endswith('「')
            closed = isinstance(after, nodes.Text) and after.startswith('」')
            if opened and closed:
                continue
            if opened:
                problem = f'card link 「`{name}`_ has no closing 」'
            elif closed:
                problem = f'card link `{name}`_」 has no opening 「'
            else:
                problem = f'card link `{name}`_ is not in 「」'
            self.warn(xref, f'{problem}: write 「`{name}`_」', 'card-markup')

    # -- `卡名` without the underscore --------------------------------------------

    def check_default_role(self) -> None:
        for node in self.document.findall(nodes.title_reference):
            text = node.astext()
            before = _sibling(node, -1)
            role = _ROLE_BEFORE.search(before) if isinstance(before, nodes.Text) else None
            subtype = 'markup'
            if role:
                message = (f'role {role.group()} not recognised: next to Chinese text write '
                           f'`\\ ` before it, e.g. 详见\\ {role.group()}`{text}`')
            elif isinstance(before, nodes.Text) and before.endswith('「'):
                message = (f'「`{text}`」 is not a card link: write 「`{text}`_」 '
                           '(an underscore after the closing backquote)')
                subtype = 'card-markup'
            elif text.endswith('>') and '<' in text:
                message = (f'`{text}` is not a link: write `{text}`__ (two underscores after '
                           'the closing backquote)')
            else:
                message = (f'`{text}` is interpreted text without a role (shown in italics): '
                           f'write 「`{text}`_」 for a card, ``{text}`` for literal text')
            self.warn(node, message, subtype)

    # -- markup left in the text, plain 「卡名」 --------------------------------------

    def prose_blocks(self) -> Iterator[nodes.TextElement]:
        """The outermost text elements that are prose (paragraphs, lines, titles…)."""
        for block in self.document.findall(nodes.TextElement):
            if isinstance(block, _NOT_PROSE):
                continue
            parent = block.parent
            while parent is not None and not isinstance(parent, (nodes.TextElement, *_NOT_PROSE)):
                parent = parent.parent
            if parent is None:
                yield block

    def check_text(self, block: nodes.TextElement, plain: set[str]) -> None:
        pieces = list(self.pieces(block))
        text = ''.join(t for t, _ in pieces)
        source, first = self.first_line(block)
        title = isinstance(block, (nodes.title, nodes.subtitle, nodes.rubric))
        registry = self.env.handbook_cards
        # lines where docutils reported broken inline markup already
        reported = {locate(n)[1] for n in block.findall(nodes.problematic)}
        offset = 0
        spans = []  # (start, end) of the prose pieces
        for piece, prose in pieces:
            if prose:
                spans.append((offset, offset + len(piece)))
                self.check_backquotes(piece, source, first + text.count('\n', 0, offset),
                                      reported)
            offset += len(piece)
        if title or '「' not in text:
            return
        reported_until = -1
        for start, end, content, quoted in quotes(text):
            if quoted or start < reported_until or not content.strip():
                continue
            if not any(s <= start and end <= e for s, e in spans):
                continue  # part of a card name or a literal
            plain.add(fold(content))
            if registry.lookup(content) is not None:
                line = first + text.count('\n', 0, start)
                logger.warning('「%s」 is a card name in the registry but not linked: write '
                               '「`%s`_」 (make autolink does it)', content, content,
                               location=f'{source}:{line}', type='handbook', subtype='unlinked')
                reported_until = end

    def check_backquotes(self, piece: str, source: str, first: int, reported: set) -> None:
        """Report the lines of *piece* that still hold backquotes."""
        for number, line in enumerate(piece.split('\n')):
            if '`' not in line or first + number in reported:
                continue
            role = _ROLE.search(line)
            card = _BROKEN_CARD.search(line)
            subtype = 'card-markup' if card and not role else 'markup'
            if role:
                message = (f'role {role.group()[:-1]} not recognised: next to Chinese text write '
                           f'`\\ ` before it, e.g. 详见\\ {role.group()}…`')
            elif card:
                name = re.sub(r'[「」`_\s]', '', card.group())
                message = (f'broken card markup {card.group()!r}: write 「`{name}`_」 '
                           '(backquotes right around the name, no spaces, then _)')
            else:
                message = (f'stray backquote in {line.strip()!r}: inline markup not recognised; '
                           'next to Chinese text write `\\ ` before and after the markup; '
                           'a backquote meant as text goes inside ``…``')
            logger.warning(message, location=f'{source}:{first + number}',
                           type='handbook', subtype=subtype)

    @staticmethod
    def pieces(block: nodes.Element) -> Iterator[tuple[str, bool]]:
        """The block's text, in order, each piece marked prose or not."""
        for text in block.findall(nodes.Text):
            node, prose = text.parent, True
            while node is not None and node is not block:
                if isinstance(node, _NOT_PROSE):
                    prose = False
                    break
                node = node.parent
            yield str(text), prose

    def first_line(self, block: nodes.Element) -> tuple[str, int]:
        """Source and line of the block's first line of text."""
        source, line = locate(block)
        source = source or self.document.get('source', '')
        if isinstance(block, (nodes.title, nodes.subtitle)) and line:
            line -= 1  # docutils gives a title the line of its underline
        return source, line or 0

    def warn(self, node: nodes.Node, message: str, subtype: str) -> None:
        source, line = locate(node)
        logger.warning(message, location=f'{source or self.document.get("source")}:{line or 0}',
                       type='handbook', subtype=subtype)


# -- what each page quotes plainly (for re-reading after a registry edit) -----------

def purge_doc(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    env.handbook_plain_quotes.pop(docname, None)


def merge_info(app: Sphinx, env: BuildEnvironment, docnames: Any, other: BuildEnvironment) -> None:
    for docname in docnames:
        if docname in other.handbook_plain_quotes:
            env.handbook_plain_quotes[docname] = other.handbook_plain_quotes[docname]


def init_env(app: Sphinx) -> None:
    if not hasattr(app.env, 'handbook_plain_quotes'):
        app.env.handbook_plain_quotes = {}


def pages_quoting_changed_cards(app: Sphinx, env: BuildEnvironment, added: Any,
                                changed: Any, removed: Any) -> list[str]:
    """Re-read the pages whose plain 「…」 became or stopped being registry names."""
    keys = getattr(env, 'handbook_cards_changed', set())
    if not keys:
        return []
    return sorted(doc for doc, quoted in env.handbook_plain_quotes.items() if keys & quoted)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.cards.links')
    app.add_transform(CardMarkup)
    app.connect('builder-inited', init_env)
    app.connect('env-purge-doc', purge_doc)
    app.connect('env-merge-info', merge_info)
    app.connect('env-get-outdated', pages_quoting_changed_cards)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
