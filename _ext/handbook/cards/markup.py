"""Card markup checks: card references that are not written 「`卡名`_」.

A card is written 「`卡名`_」 (see :mod:`handbook.cards.links`).  Small slips in that
markup are not errors for docutils: it renders them as italics, as plain
text with stray backquotes, or as a link to a nonsense name.  This extension
reports each one at its exact file and line, in every build, with its
severity (:mod:`handbook.core.reports`):

``handbook.card-markup`` (error: readers lose the link or see the markup) --
broken card markup:

* 「`卡名`」, no underscore: docutils reads it as text in the default role
  (``title_reference``, rendered in italics), not as a link;
* 「`卡名`_ without the closing 」, or `卡名`_」 without the opening 「 (for a
  registry name; an unknown name is card_links' report, 「」 or not);
* 「` 卡名`_」 (spaces inside the backquotes), 「卡名`_」 (a registry name
  without its opening backquote), 和`卡名`_」: markup docutils does not
  recognise stays in the text with its backquotes.  The fix keeps the name
  as written (a space inside a name, 霸王黑龙 异色眼叛逆龙, stays) and says
  when the name is not in the registry;
* 「`卡名 `_」…「`旋风`_」: a space before the closing backquote makes docutils
  pair the backquote with a later one; the "name" then contains backquotes.
  It is reported here (not as an unknown card) and rendered as plain text;
* a card link inside strong emphasis or emphasis,
  ``**不能连锁发动「`星尘龙`_」的①效果**``: reStructuredText does not nest
  inline markup, so readers see the backquotes.  One report per emphasised
  span, naming every card link in it, with the split form
  ``**不能连锁发动**\\ 「`星尘龙`_」\\ **的①效果**`` (:func:`split_emphasis`,
  which ``make fix`` applies).

``handbook.markup`` (error: readers see the markup as text) -- the same kind
of slip outside card names: a role written right after Chinese text
(详见:ref:`标签`, which docutils does not recognise: write 详见\\ :ref:`标签`),
or with Chinese text right after its closing backquote (详见\\ :ref:`标签`中的…:
its text runs on to a later backquote, a card link's too, or is left
unclosed; write \\ after it as well), or with a space inside its backquotes
(\\ :ref:` 标签`: the fix is the role without the space), a link written
right after Chinese text (文本`17/3/24 <https://…>`__, whose URL docutils
makes a link of its own: the text around it is checked as one), text in
backquotes without a role (`文本`, italics), a link without its
underscores (`17/3/24 <https://…>`), text left between backquotes, and stray
backquotes: a lone ````` or a ```_`` / ```__`` with no opening backquote
on the line (『●炎属性`_』) is left over from markup: the fix is to delete it.
A card link inside a role's text (``:red:`「`卡名`_」…```) is reported with the
split form; where the page does not declare the role, with its declaration
first (the split alone would be an unknown role still).

``handbook.html`` (error: readers see the markup as text) -- an HTML tag
typed into prose (``<b>…</b>``, ``<br>``, ``<span …>``): reStructuredText
shows it as text, escaped, so readers see the tag.  One report per line,
naming its tags, with reST's form where there is one (``**…**`` for
``<b>``, ``*…*`` for ``<i>``, ``:strike:`…``` for ``<s>`` where the role
exists, a new line of the line block for ``<br>``; with the ``\\ `` docutils
needs beside Chinese text; none around a link, which emphasis cannot
hold), else: delete the tags.  Only the names of
HTML's tags are taken for tags (:data:`_HTML_TAG`): 攻击力<1000, ``<b>`` in a
literal and a ``<https://…>`` link are text.

``handbook.unlinked`` (warning: a house rule) -- a plain 「卡名」 whose
content is a registry name (or alias): linking card names is the house
style.  ``make autolink`` (and ``make fix``) writes the links; inside
emphasis the fix is the split form; inside the text of a role the page
declares (``:red:`「卡名」…```), the role split around the link
(:func:`split_role`), which ``make fix`` writes where the page, a file it
includes or conf.py's ``rst_prolog`` declares the role.  Not reported:

* text inside 『…』: effect text is quoted as printed on the card, where
  「卡名」 stands for the card's own name or an archetype (『「战吼」怪兽』);
* 「…」 inside a card name (「`魔界剧场「奇幻剧场」`_」) or a literal;
* section titles (a linked title would make the table of contents a list of
  links to the card database);
* placeholders (:func:`is_placeholder`: 「○○」, 「××」, 「A」), never linked
  or reported, even where the registry has such a row; names that are not in
  the registry (「卡名」), and names ``make autolink`` could not put between
  backquotes (:data:`LINKABLE`: spaces at an edge, a backquote);
  a name not in the registry that reads as one does (「试胆竟速」: the
  did-you-mean of an unknown card link) gets a note ``handbook.card-slip``
  with that card's link;
* 「卡名」 inside ``:strike:`` text: the strike role links it itself
  (:mod:`handbook.rulings.strike`).

The plain 「…」 of each page, struck text's included, are remembered (folded,
in the handbook store), so that editing the registry re-reads the pages whose
plain quotes became, or stopped being, registry names.

The checks take time in proportion to the page's size, also for hostile
input (a long block full of 「 and backquotes): the patterns scan without
backtracking over long runs, lines are counted once per block, and a 「…」
longer than :data:`LONGEST_QUOTE` characters is never a card name.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from docutils import nodes
from docutils.parsers.rst import directives, languages, roles
from docutils.utils import punctuation_chars
from sphinx import addnodes
from sphinx.transforms import SphinxTransform

from handbook.cards.links import changed_keys, registry
from handbook.cards.registry import fold
from handbook.core import reports
from handbook.core.hostile_input import quoted as quoted_text
from handbook.core.source_lines import BlockLines, foreign_bar, locate
from handbook.nodes import ancestors, card_of, card_reference, is_struck
from handbook.store import PAGE_READ, Contribution, carry, store

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

#: what the store keeps of a page's plain 「…」 (their folded contents)
QUOTES = 'plain_quotes'
#: nodes whose text is not prose: markup inside them is not checked
_NOT_PROSE = (nodes.literal, nodes.FixedTextElement, nodes.comment, nodes.raw,
              nodes.reference, addnodes.pending_xref, nodes.problematic,
              nodes.title_reference, nodes.target, nodes.math, nodes.system_message,
              nodes.substitution_definition, nodes.image)
#: the same, when docutils took the backquoted part for text in the default role
_ROLE_BEFORE = re.compile(r':[A-Za-z0-9_.+-]+(?::[A-Za-z0-9_.+-]+)?:$')
#: what docutils leaves of a role whose text holds a link (:strike:`「`卡名`_」…`):
#: the role, its text up to the link's end
_ROLE_AND_LINK = re.compile(r'(:[A-Za-z0-9_.+-]+(?::[A-Za-z0-9_.+-]+)?:)`.*`_+$', re.DOTALL)
#: markup left in a line of prose, tried in this order at each position; every
#: part is bounded by a character its run excludes, so a search is linear
_LEFTOVER = re.compile(r'''
    (?P<role>:[A-Za-z0-9_.+-]+(?::[A-Za-z0-9_.+-]+)?:`[^`\n]*`?)  # 详见:ref:` 标签`
  | (?P<literal>``[^`\n]+``)                                    # 见``21/3/4``的
  | (?P<open>「[ \t\u3000]*`(?P<oname>[^`「」\n]*)`_*」?)          # 「` 卡名`_」
  | (?P<bare>「(?P<bname>[^`「」\n]+)`_+」?)                      # 「卡名`_」
  | (?P<pair>`(?P<pname>[^`_\n][^`\n]*)`(?P<under>_*)(?P<close>」?))  # `卡名`_」, `文本`
  | (?P<stray>`+_*)                                            # `_ with nothing opened
''', re.VERBOSE)
#: a card link's start, after 「, that misses a piece of its markup: 卡名_」,
#: 卡名`_ (no 」 after it), 卡名」 (:meth:`CardMarkup.card_cut_short`)
_CUT_SHORT = re.compile(r'(?P<name>[^`_」\s][^`」\n]*?)(?:(?P<under>_+」)|(?P<tick>`_+)(?!」)|」)')
#: one with a space before its closing backquote, 「`卡名 `_」, which ends nothing
_SPACED = re.compile(r'(?P<name>[^`_」\s][^`」\n]*?)\s+`_+」?')
#: a role written before its text, ``:red:`…```: what split_role splits
_ROLE_TEXT = re.compile(r'(?P<role>:[A-Za-z0-9_.+-]+(?::[A-Za-z0-9_.+-]+)?:`)(?P<text>.+)`',
                        re.DOTALL)
#: a card reference as written, 「`卡名`_」 (the 「」 optional): what split_emphasis moves
_CARD_REFERENCE = re.compile(r'「?`(?P<name>[^`]+)`_(?!_)」?')
#: a name that can go between backquotes as a card link (make autolink's rule too):
#: no backquote or backslash, no space at an edge, not one line break, no <uri> ending
LINKABLE = re.compile(r'[^`\s\\](?:[^`\\\n]*[^`\s\\>])?')
#: an HTML tag typed into prose (:meth:`CardMarkup.check_html`): a name of HTML's
#: tags, then its attributes, on one line
_HTML_TAG = re.compile(
    r'</?(?P<name>b|i|u|s|em|strong|del|ins|strike|mark|small|big|sub|sup|br|hr|p|span|'
    r'div|font|a|img|script|style|iframe|table|tr|td|th|ul|ol|li|h[1-6]|code|pre|center|'
    r'blockquote)(?:\s[^<>\n]*)?/?>', re.IGNORECASE)
#: the quotes smart quotes make, as typed
_STRAIGHT = str.maketrans('“”‘’', '""\'\'')
#: reST's form of some tags (:meth:`CardMarkup.check_html`)
_HTML_IN_REST = {'b': '**{}**', 'strong': '**{}**', 'i': '*{}*', 'em': '*{}*',
                 's': ':strike:`{}`', 'del': ':strike:`{}`', 'strike': ':strike:`{}`',
                 'br': 'a new line of the line block (| …) for <br>'}
#: a 「 and spaces just before a card link; spaces and a 」 just after one
_SPACE_AFTER_OPENING = re.compile('「[ \t\u3000\u00a0]+$')
_SPACE_BEFORE_CLOSING = re.compile('[ \t\u3000\u00a0]+」')
#: a comment's first line that is a directive written with one colon (.. note: …)
_ONE_COLON = re.compile(r'(?P<name>[A-Za-z][\w-]*):(?!:)(?:\s|$)')
#: the brackets :func:`quotes` pairs
_BRACKETS = re.compile(r'[「」『』]')
#: a 「…」 longer than this is never a card name (nor looked up, nor remembered)
LONGEST_QUOTE = 200
#: what a placeholder 「…」 is made of (besides spaces): 「○○」, 「××」, 「？」
PLACEHOLDER_SYMBOLS = frozenset('○◯〇●×✕✖＊*？?□■△▲▽▼☆★◇◆…⋯')
#: a stray backquote's context in a message: this many characters each side
_CONTEXT = 12
#: what may come before inline markup's start-string and after its end-string
#: (docutils' rule, besides whitespace): else docutils does not see the markup
#: (docutils' strings are regular-expression classes, with ranges)
_BEFORE_MARKUP = re.compile(f'[{punctuation_chars.openers}{punctuation_chars.delimiters}]')
_AFTER_MARKUP = re.compile(f'[\x00{punctuation_chars.closing_delimiters}'
                           f'{punctuation_chars.delimiters}{punctuation_chars.closers}]')


def is_placeholder(content: str) -> bool:
    """「content」 stands for "some card": 「○○」, 「××」, 「A」 (one Latin letter,
    full-width too), or only placeholder symbols (:data:`PLACEHOLDER_SYMBOLS`).
    A placeholder is never linked nor reported, by the build, the strike role
    or ``make autolink``."""
    text = content.strip()
    if not text:
        return False
    if len(text) == 1 and unicodedata.normalize('NFKC', text).isascii() \
            and unicodedata.normalize('NFKC', text).isalpha():
        return True
    return all(ch in PLACEHOLDER_SYMBOLS or ch.isspace() for ch in text)


def quotes(text: str) -> Iterator[tuple[int, int, str, bool]]:
    """Each balanced 「…」 of *text* (at most :data:`LONGEST_QUOTE` characters
    inside): ``(start, end, content, quoted)``, outermost first, where
    ``quoted`` says it lies inside 『…』 (effect text).  *start* is the index
    of 「, *end* the index after 」.  Used by tools/autolink.py too."""
    depth = 0
    stack: list[tuple[int, int]] = []  # (index of 「, 『』 depth there)
    found = []
    for m in _BRACKETS.finditer(text):
        ch, i = m.group(), m.start()
        if ch == '『':
            depth += 1
        elif ch == '』':
            depth = max(depth - 1, 0)
        elif ch == '「':
            stack.append((i, depth))
        elif stack:
            start, at = stack.pop()
            if i - start - 1 <= LONGEST_QUOTE:
                found.append((start, i + 1, text[start + 1:i], at > 0))
    found.sort(key=lambda q: (q[0], -q[1]))
    yield from found


def split_emphasis(raw: str) -> str | None:
    """*raw*, strong emphasis ``**…**`` or emphasis ``*…*`` with its
    delimiters, split around the card links inside it (reStructuredText
    cannot nest them): ``**不能连锁发动「`星尘龙`_」的①效果**`` gives
    ``**不能连锁发动**\\ 「`星尘龙`_」\\ **的①效果**``.  Whitespace at the
    edges of a segment moves outside its delimiters; ``\\ `` joins a segment
    and a card link that no space separates; a segment of nothing but
    whitespace is not emphasised.  The card links are kept as written.
    Delimiters the writer already put beside a link are not doubled
    (``**不能**「`旋风`_」**发动**``, which docutils reads as one span, gives
    ``**不能**\\ 「`旋风`_」\\ **发动**``), and ``***…***`` keeps its three
    stars on each segment.  None when *raw* is not emphasis or holds no
    card link."""
    stars = min(len(raw) - len(raw.lstrip('*')), len(raw) - len(raw.rstrip('*')), 3)
    if not stars or len(raw) <= 2 * stars:
        return None
    delimiter = '*' * stars
    return _split(raw[stars:-stars], delimiter, delimiter)


def split_role(raw: str) -> str | None:
    """*raw*, a role and its text (``:red:`…```), split around the card links
    inside it as :func:`split_emphasis` splits emphasis:
    ``:red:`「`旋风`_」的效果```` gives ``「`旋风`_」\\ :red:`的效果```.  None
    when *raw* is not a role written before its text, or holds no card link."""
    m = _ROLE_TEXT.fullmatch(raw)
    return _split(m['text'], m['role'], '`') if m else None


def _split(inner: str, opening: str, closing: str) -> str | None:
    """*inner* (the text between *opening* and *closing*) split around its card links."""
    links = list(_CARD_REFERENCE.finditer(inner))
    if not links:
        return None
    pieces: list[tuple[str, str]] = []  # (kind, text): 'text' or 'card'
    at = 0
    for m in links:
        pieces += [('text', inner[at:m.start()]), ('card', m.group())]
        at = m.end()
    pieces.append(('text', inner[at:]))
    if opening == closing:  # emphasis: the writer's own delimiters beside a link
        for i, (kind, text) in enumerate(pieces):
            if kind != 'text':
                continue
            core = text.strip()
            if not core:
                continue
            lead, trail = text[:len(text) - len(text.lstrip())], text[len(text.rstrip()):]
            if i + 1 < len(pieces) and core.endswith(closing):  # before a link: its end
                core = core[:-len(closing)]
            if i and core.startswith(opening):  # after a link: its start again
                core = core[len(opening):]
            pieces[i] = (kind, f'{lead}{core}{trail}')
    out: list[str] = []
    joinable = False  # the output ends with a delimiter or a card link, no space
    for kind, text in pieces:
        if kind == 'card':
            if joinable and out and out[-1].endswith(closing):
                out.append('\\ ')
            out.append(text)
            joinable = True
            continue
        core = text.strip()
        if not core:
            out.append(text)
            joinable = joinable and not text
            continue
        lead, trail = text[:len(text) - len(text.lstrip())], text[len(text.rstrip()):]
        if joinable and not lead and out:
            out.append('\\ ')
        out.append(f'{lead}{opening}{core}{closing}{trail}')
        joinable = not trail
    return ''.join(out)


def _excerpt(line: str, start: int, end: int) -> str:
    """*line* around ``line[start:end]``, at most :data:`_CONTEXT` characters each side."""
    before = line[max(start - _CONTEXT, 0):start].lstrip()
    after = line[end:end + _CONTEXT].rstrip()
    return (('…' if start - _CONTEXT > 0 else '') + before + line[start:end] + after
            + ('…' if end + _CONTEXT < len(line.rstrip()) else ''))


def _run_on(role: str, target: str, rest: str, before: str = '') -> str:
    """The message for *role* whose text *target* docutils did not end at its
    closing backquote, so that it ran on to a later backquote, *rest* after
    it (or the role is not recognised at all): Chinese text after that
    backquote (``详见:ref:`标签`中的…``), or a space before it (:func:`_spaced`,
    *before* the character before the role)."""
    if target[-1:].isspace():
        return _spaced(role, target, before, rest[:1])
    return (f'role {role} not recognised: next to Chinese text write `\\ ` before it, and '
            f'after its closing backquote: {_escaped(before, role, target, rest[:1])}')


def _escaped(before: str, role: str, target: str, after: str = '') -> str:
    """*role* with its text *target* as the fix writes it, between the
    characters *before* and *after* it on the line: ``\\ `` where text
    touches it (``…怪兽\\ :ruling:`17/3/24`\\ 发…``)."""
    lead = f'…{before}\\ ' if before and not before.isspace() else ''
    tail = f'\\ {after}…' if after and not after.isspace() else ''
    return f'{lead}{role}`{target}`{tail}'


def _glued_sides(m: re.Match) -> tuple[bool, bool]:
    """Whether text touches the markup *m* (of its line, ``m.string``) before
    it and after it where docutils needs a space, a sign or ``\\ ``."""
    line = m.string
    before, after = line[m.start() - 1:m.start()], line[m.end():m.end() + 1]
    return (bool(before) and not before.isspace() and not _BEFORE_MARKUP.match(before),
            bool(after) and not after.isspace() and not _AFTER_MARKUP.match(after))


def _glued(m: re.Match) -> str:
    """The fix of a link or reference *m* (of its line, ``m.string``) that
    docutils did not see because text touches it: ``\\ `` on each side where
    it does, ``…结果\\ `详见 <…>`__\\ 对方…``."""
    line, written = m.string, m.group()
    before, after = line[m.start() - 1:m.start()], line[m.end():m.end() + 1]
    glued_before, glued_after = _glued_sides(m)
    if not glued_before and not glued_after:  # not said why: the usual side
        return f'`\\ ` before it (…\\ {written})'
    sides = ('before and after it' if glued_before and glued_after
             else 'before it' if glued_before else 'after it')
    lead = f'…{before}\\ ' if glued_before else ''
    tail = f'\\ {after}…' if glued_after else ''
    return f'`\\ ` {sides} ({lead}{written}{tail})'


def _spaced(role: str, target: str, before: str, after: str) -> str:
    """The message for *role* with a space inside its backquotes
    (``\\ :ref:` 标签```), between the characters *before* and *after*: the
    fix is the role without the space, with `\\ ` on a side where docutils
    would not see the markup start or end (Chinese text next to it)."""
    fixed = f'{role}`{target.strip()}`'
    if before and not before.isspace() and not _BEFORE_MARKUP.match(before):
        fixed = f'{before}\\ {fixed}'
    if after and not after.isspace() and not _AFTER_MARKUP.match(after):
        fixed = f'{fixed}\\ {after}'
    lead, trail = target[0].isspace(), target[-1].isspace()
    where = ('inside its backquotes' if lead and trail else
             'after its opening backquote' if lead else 'before its closing backquote')
    return f'role {role} not recognised: remove the space {where}, write {fixed}'


class _Siblings:
    """A node's neighbours in constant time (``parent.index`` is linear)."""

    def __init__(self) -> None:
        self.positions: dict[int, dict[int, int]] = {}

    def __call__(self, node: nodes.Node, step: int) -> nodes.Node | None:
        parent = node.parent
        if parent is None:
            return None
        positions = self.positions.get(id(parent))
        if positions is None:
            positions = {id(child): i for i, child in enumerate(parent.children)}
            self.positions[id(parent)] = positions
        i = positions.get(id(node))
        if i is None:
            return None
        i += step
        return parent[i] if 0 <= i < len(parent) else None

    def line_from(self, node: nodes.Node | None) -> tuple[str, nodes.Node | None]:
        """The text of *node* and of the siblings after it, up to the first
        one that ends a line (their texts joined: a line break is in the
        last); and the sibling after that one, where the block goes on."""
        text = ''
        while node is not None and '\n' not in text:
            text += node.astext()
            node = self(node, +1)
        return text, node


class CardMarkup(SphinxTransform):
    """Report broken card markup; remember and report plain registry names."""

    # after card_links.CardReferences (845), before the domains collect (850)
    default_priority = 846

    def apply(self, **kwargs: Any) -> None:
        self.sibling = _Siblings()
        self.lines = BlockLines()
        self.registry = registry(self.env)
        #: the text blocks that hold a role with a link in its text: their plain
        #: names are not told to be linked (the role's fix makes them its text)
        self.tangled: set[int] = set()
        #: the lines whose backquote closes a role left open on the line before
        #: (:meth:`closed_on_next_line`): not a stray backquote of their own
        self.joined: set[tuple[str | None, int]] = set()
        #: the did-you-mean of each plain 「…」 the registry does not know, this page's
        self.meant: dict[str, str | None] = {}
        self.check_card_references()
        self.check_default_role()
        emphasised = self.check_emphasis()
        plain: set[str] = set()
        comments: list[nodes.comment] = []  # found by the same walk (prose_blocks)
        for block in self.prose_blocks(comments):  # struck text is prose: its quotes too
            self.check_text(block, plain, emphasised)
        self.check_comments(comments)
        if plain:  # for the store (read_quotes)
            self.document[QUOTES] = frozenset(plain)

    # -- 「`卡名`_」 parsed as a card reference ------------------------------------

    def check_card_references(self) -> None:
        titled = []
        for xref in list(self.document.findall(nodes.Inline)):  # a walk for a class: fast
            found = card_of(xref)
            if found is None:
                continue
            name = found[1]
            if isinstance(xref, card_reference):  # a registry name, not in a title
                self.check_brackets(xref, name)
                continue
            if '`' in name:
                before = self.sibling(xref, -1)
                role = _ROLE_BEFORE.search(before) if isinstance(before, nodes.Text) else None
                cut_short = self.card_cut_short(name) \
                    if isinstance(before, nodes.Text) and before.endswith('「') else None
                if role:  # 详见:ref:`标签`中的…「`卡名`_」: the role's text ran on to the link
                    target, _tick, rest = name.partition('`')
                    self.error(xref, _run_on(role.group(), target, rest,
                                             before[role.start() - 1:role.start()]), 'markup')
                elif cut_short is not None:  # 「`旋风_」和「`王宫的铁壁`_」: ran on to the next
                    self.error(xref, cut_short, 'card-markup')
                else:
                    self.error(xref, f'broken card markup {xref.rawsource!r}: a space before a '
                                     'closing backquote joined two card names; write each as '
                                     '「`卡名`_」', 'card-markup')
                xref.replace_self(nodes.problematic(xref.rawsource, xref.rawsource))
                continue
            if self.struck_in_title(xref):
                titled.append(xref)
                continue
            if self.registry is None or self.registry.lookup(name) is None:
                continue  # an unknown name: card_links reports it, 「」 or not
            self.check_brackets(xref, name)
        for xref in titled:  # a title is never linked by the strike role
            xref.replace_self(nodes.Text(xref.astext()))

    def check_brackets(self, link: nodes.Element, name: str) -> None:
        """A registry name's link is written between 「 and 」."""
        before, after = self.sibling(link, -1), self.sibling(link, +1)
        opened = isinstance(before, nodes.Text) and before.endswith('「')
        closed = isinstance(after, nodes.Text) and after.startswith('」')
        if opened and closed:
            return
        if closed and isinstance(before, nodes.problematic) and before.rawsource == '`' \
                and isinstance(self.sibling(before, -1), nodes.Text) \
                and self.sibling(before, -1).endswith('「'):  # 「`卡名_」: read as 卡名_
            self.error(link, f'card link 「`{name}_」 misses the backquote before _ (readers '
                             f'see the other one): write 「`{name}`_」', 'card-markup')
            return
        # 「 `卡名`_」: a space between the bracket and the link (an editor's round
        # trip: "no opening 「" was said, and its fix left the 「 and its space)
        space_before = isinstance(before, nodes.Text) and _SPACE_AFTER_OPENING.search(before)
        space_after = isinstance(after, nodes.Text) and _SPACE_BEFORE_CLOSING.match(after)
        if (opened or space_before) and (closed or space_after):
            written = (f'{space_before.group() if space_before else "「"}`{name}`_'
                       f'{space_after.group() if space_after else "」"}')
            where = ' and '.join(side for side, spaced in (
                ('after 「', space_before), ('before 」', space_after)) if spaced)
            self.error(link, f'card link {written!r} has a space {where}: write 「`{name}`_」',
                       'card-markup')
            return
        if opened:
            problem = f'card link 「`{name}`_ has no closing 」'
        elif closed:
            problem = f'card link `{name}`_」 has no opening 「'
        else:
            problem = f'card link `{name}`_ is not in 「」'
        self.error(link, f'{problem}: write 「`{name}`_」', 'card-markup')

    @staticmethod
    def struck_in_title(xref: addnodes.pending_xref) -> bool:
        """*xref* is a name the strike role linked, in a section title."""
        struck = False
        node = xref.parent
        while node is not None:
            struck = struck or (isinstance(node, nodes.Element) and 'strike' in node['classes'])
            if isinstance(node, (nodes.title, nodes.subtitle)):
                return struck
            node = node.parent
        return False

    # -- a directive or a label that docutils read as a comment ---------------------

    def check_comments(self, comments: list[nodes.comment]) -> None:
        """``.. attention: …`` (one colon): docutils reads a comment, which
        readers never see, and says nothing (an editor's round trip: an outdated
        day's note was gone, and its rulings were no longer outdated).  A
        warning: a comment may say such words on purpose.  (A label without
        its colon, ``.. _标签``, is docutils' "malformed hyperlink target".)"""
        for comment in comments:
            text = comment.astext()
            first = text.split('\n', 1)[0]
            directive = _ONE_COLON.match(first)
            if not directive or not self.is_directive(directive['name']):
                continue
            name = directive['name']
            source, line = locate(comment)
            # docutils gives a comment the line after it (before the blank line)
            line = max(1, (line or 0) - text.count('\n') - 1)
            shown = quoted_text('.. ' + first, 40)
            reports.warning(f'comment {shown} reads as the directive {name} '
                            'written with one colon: docutils took it for a comment, which '
                            f'readers do not see: write .. {name}:: (two colons), or start the '
                            'comment with other words if it is one',
                            location=f'{source or self.document.get("source")}:{line}',
                            subtype='markup')

    def is_directive(self, name: str) -> bool:
        """Whether *name* is a directive docutils or Sphinx knows."""
        found, _messages = directives.directive(
            name, languages.get_language(self.document.settings.language_code,
                                         self.document.reporter), self.document)
        return found is not None

    # -- `卡名` without the underscore --------------------------------------------

    def check_default_role(self) -> None:
        tangled = set()  # the blocks of a role with a link in its text: reported once
        for node in self.document.findall(nodes.problematic):
            role = _ROLE_AND_LINK.match(node.rawsource)
            if role:
                name = role[1]
                # the role's text up to the link's opening backquote: a backquote in
                # it closed the role, before Chinese text (\\ :ruling:`17/3/24`发动。
                # 「`卡名`_」), and the text ran on to the link: no link in the role
                text = node.rawsource[len(name) + 1:].rstrip('_')[:-1]
                target, _tick, rest = text.partition('`')
                if '`' in rest:
                    before = self.sibling(node, -1)
                    before = before[-1:] if isinstance(before, nodes.Text) else ''
                    self.error(node, _run_on(name, target, rest, before), 'markup')
                    tangled.add(id(node.parent))
                    continue
                fix = (f'write its card names without backquotes, {name}`「卡名」…`: the build '
                       'links the names of struck text' if name == ':strike:' else
                       f'end the role before the link and start it again after it, '
                       f'{name}`…`\\ 「`卡名`_」\\ {name}`…`')
                if not self.declared(name.strip(':')):  # the split would fail as well
                    fix = (f'{name} is not a declared role: check its spelling, or declare '
                           f'it first (.. role:: {name.strip(":")}); then {fix}')
                self.error(node, f'{name}`…` holds a link, which reStructuredText cannot nest '
                                 f'in a role\'s text (readers see the markup): {fix}', 'markup')
                tangled.add(id(node.parent))
                self.tangle(node)
            elif node.rawsource == '`':
                self.check_unended_role(node)
        for node in self.document.findall(nodes.title_reference):
            if id(node.parent) in tangled:
                continue
            text = node.astext()
            before = self.sibling(node, -1)
            role = _ROLE_BEFORE.search(before) if isinstance(before, nodes.Text) else None
            subtype = 'markup'
            if role and '`' in text:
                # its text ran on past its closing backquote (Chinese text after
                # it is no end), to the next backquote that ends something
                target, _tick, rest = text.partition('`')
                message = _run_on(role.group(), target, rest,
                                  before[role.start() - 1:role.start()])
            elif role:
                message = (f'role {role.group()} not recognised: next to Chinese text write '
                           f'`\\ ` before it: '
                           f'{_escaped(before[role.start() - 1:role.start()], role.group(), text)}')
            elif isinstance(before, nodes.Text) and before.endswith('「') \
                    and is_placeholder(text):
                message = (f'「`{text}`」 shows the placeholder in italics: write 「{text}」 '
                           '(a placeholder is plain text, never a link)')
            elif isinstance(before, nodes.Text) and before.endswith('「') \
                    and (cut_short := self.card_cut_short(text)) is not None:
                message, subtype = cut_short, 'card-markup'
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
            self.error(node, message, subtype)

    def card_cut_short(self, text: str) -> str | None:
        """The message for a card link after 「 whose markup misses a piece,
        so that docutils read on from its opening backquote (*text*, up to a
        later backquote or the line's end): 「`卡名_」 (the closing backquote),
        「`卡名`_ and text (the 」), 「`卡名」 (the backquote and _); None where
        *text* does not start with a registry name cut so.  And 「`卡名 `_」, a
        space before the closing backquote, which closes nothing there."""
        spaced = _SPACED.match(text)
        if spaced is not None and self.known(spaced['name'].strip()):
            return (f'card link 「`{spaced.group()} has a space before its closing backquote, '
                    'where reStructuredText sees no end, so that it is shown as text: write '
                    f'「`{spaced["name"].strip()}`_」')
        m = _CUT_SHORT.match(text)
        if m is None or not self.known(m['name'].strip()):
            return None
        missing = ('the backquote before _' if m['under'] else
                   'its closing 」' if m['tick'] else 'the backquote and _ before 」')
        return (f'card link 「`{m.group()} misses {missing}, so that it is shown as text: '
                f'write 「`{m["name"].strip()}`_」')

    def check_unended_role(self, tick: nodes.problematic) -> None:
        """*tick*, a backquote docutils found no end for: after a role
        (``\\ :ruling:`17/3/24`发动。`` at a line's end), the role's closing
        backquote has Chinese text after it, or a space before it, where
        docutils sees no end.  Without a later backquote in the block, the
        role is left unclosed: the fix is its closing backquote after its
        text (docutils' warning says no fix)."""
        before = self.sibling(tick, -1)
        role = _ROLE_BEFORE.search(before) if isinstance(before, nodes.Text) else None
        if not role:
            after = self.sibling(tick, +1)
            if isinstance(before, nodes.Text) and before.endswith('「') \
                    and isinstance(after, nodes.Text):  # 「`卡名`_的…: the 」 is missing
                # the rest of the line (「`卡名 `_」: its closing tick a node of its own)
                line, _after_line = self.sibling.line_from(after)
                message = self.card_cut_short(line.split('\n')[0])
                if message is not None:
                    self.error(tick, message, 'card-markup')
            else:
                # `17/3/24 `__ (the seeds' shape): a link with no address, whose
                # space before its closing backquote leaves it open (its date read
                # as one: an element of its own)
                between, closing = '', after
                while closing is not None and '\n' not in between and not (
                        isinstance(closing, nodes.problematic) and closing.rawsource == '`'):
                    between += closing.astext()
                    closing = self.sibling(closing, +1)
                rest = self.sibling(closing, +1) if closing is not None else None
                text = between.strip()
                if closing is not None and text and between[-1].isspace() \
                        and '\n' not in between and isinstance(rest, nodes.Text) \
                        and rest.startswith('_'):
                    written = f'`{text} `{rest[:len(rest) - len(rest.lstrip("_"))]}'
                    self.error(tick, f'link {written} has no address, and the space before '
                                     f'its closing backquote leaves it open (readers see its '
                                     f'markup): give it its address, `{text} <https://…>`__, '
                                     f'or write its text alone, {text}', 'markup')
            return
        following, node = self.sibling.line_from(self.sibling(tick, +1))  # the rest of the line
        target, tick_after, rest = following.split('\n')[0].partition('`')
        if tick_after and target.strip():
            self.error(tick, _run_on(role.group(), target, rest,
                                     before[role.start() - 1:role.start()]), 'markup')
        elif not tick_after:
            # unclosed to the line's end: its names are the role's text once
            # the backquote is there (a :strike: links them), not names to link
            self.tangle(tick)
            later = following
            while node is not None:  # the rest of the block: a backquote there may end it
                later += node.astext()
                node = self.sibling(node, +1)
            text = target.rstrip()
            joined = self.closed_on_next_line(tick, role.group()) if text and '`' not in later \
                else None
            if joined is not None:
                self.error(tick, joined, 'markup')
            elif text and '`' not in later:
                # the whole text where it is short; else where the backquote goes
                # (a text cut with … in the fix, written as it is, lost its words)
                where = (f'after its text, {role.group()}`{text}`' if len(text) <= 24 else
                         f'at the end of its text, after {text[-8:]!r}')
                self.error(tick, f'role {role.group()} is not closed (readers see its markup): '
                                 f'write its closing backquote {where}', 'markup')

    def closed_on_next_line(self, tick: nodes.Node, role: str) -> str | None:
        """The message for a role left open at the end of a line of a line
        block whose next line holds its closing backquote: a role cannot span
        two lines of a line block (an editor's round trip: the fix "close it
        on its line", then "delete the stray backquote" of the next, made that
        line's 调整中。 a ruling of its own).  That backquote is not reported
        again as a stray (:attr:`joined`)."""
        line = next((a for a in ancestors(tick) if isinstance(a, nodes.line)), None)
        following = self.sibling(line, +1) if line is not None else None
        # the next line's one backquote, ending its text (not a literal's, a role's)
        raw = following.rawsource if isinstance(following, nodes.line) else ''
        if raw.count('`') != 1 or raw.rstrip().rstrip('_')[-1:] != '`':
            return None
        source, number = locate(following)
        if number is None:
            return None
        self.joined.add((source, number))
        start = raw.split('`', 1)[0][:12]
        return (f'role {role} is not closed on its line: its closing backquote is on the next '
                f'line of the line block ({number}), which a role cannot reach (readers see its '
                f"markup): join the two lines, deleting the line break and the '| ' before "
                f'{start!r}')

    def tangle(self, node: nodes.Node) -> None:
        """The text blocks around *node*, a role that holds a link or runs
        unclosed: their plain names are not told to be linked."""
        self.tangled.update(id(a) for a in ancestors(node) if isinstance(a, nodes.TextElement))

    def declared(self, name: str) -> bool:
        """Whether the role *name* (``red``, ``std:ref``) exists where the page
        is read: docutils', Sphinx's or an extension's, or one a ``.. role::``
        declared.  Looked up as docutils looks it up (the lookup's messages,
        for an unknown name, are not reported: docutils' own error is)."""
        language = languages.get_language(self.document.settings.language_code)
        found, _messages = roles.role(name, language, 0, self.document.reporter)
        return found is not None

    # -- 「`卡名`_」 inside **…** or *…* ----------------------------------------------

    def check_emphasis(self) -> set[int]:
        """Report emphasis holding card links; the ids of those reported."""
        reported = set()
        for node in self.document.findall(nodes.Inline):  # a walk for a class: the fast one
            if not isinstance(node, (nodes.strong, nodes.emphasis)) or self.not_prose(node):
                continue
            raw = node.rawsource
            split = split_emphasis(raw)
            if split is None:
                continue
            delimiter = '*' * min(len(raw) - len(raw.lstrip('*')), 3)
            links = [m.group() for m in _CARD_REFERENCE.finditer(raw)]
            self.error(node, f'card link{"s" if len(links) > 1 else ""} {"、".join(links)} '
                             f'cannot sit inside {delimiter}…{delimiter}: reStructuredText does '
                             'not nest inline markup, so readers see the backquotes; write '
                             f'{split}', 'card-markup')
            reported.add(id(node))
        return reported

    @staticmethod
    def not_prose(node: nodes.Node) -> bool:
        parent = node.parent
        while parent is not None:
            if isinstance(parent, _NOT_PROSE):
                return True
            parent = parent.parent
        return False

    # -- markup left in the text, plain 「卡名」 --------------------------------------

    def prose_blocks(self, comments: list[nodes.comment]) -> Iterator[nodes.TextElement]:
        """The outermost text elements that are prose (paragraphs, lines,
        titles…); the comments, text elements too, into *comments*."""
        for block in self.document.findall(nodes.TextElement):
            if isinstance(block, _NOT_PROSE):
                if isinstance(block, nodes.comment):
                    comments.append(block)
                continue
            parent = block.parent
            while parent is not None and not isinstance(parent, (nodes.TextElement, *_NOT_PROSE)):
                parent = parent.parent
            if parent is None:
                yield block

    def check_text(self, block: nodes.TextElement, plain: set[str], emphasised: set[int]) -> None:
        pieces = list(self.pieces(block))
        text = ''.join(t for t, _, _, _ in pieces)
        if isinstance(block, nodes.paragraph):
            self.check_bar(block, text)
        elif isinstance(block, nodes.line) and '\n| ' in text:
            self.check_indented_bar(block, text)
        if '<' in text:
            self.check_html(block, text, pieces)
        title = isinstance(block, (nodes.title, nodes.subtitle, nodes.rubric))
        backquoted = '`' in text
        if not backquoted and (title or '「' not in text):
            return  # nothing to check: most lines of a page
        source, first = self.first_line(block)
        newlines = [m.start() for m in re.finditer('\n', text)]

        def line_at(offset: int) -> int:
            return first + bisect.bisect_left(newlines, offset)

        # lines where docutils reported broken inline markup already
        reported = {self.lines(n)[1] for n in block.findall(nodes.problematic)} \
            if backquoted else set()
        offset = 0
        starts, ends, emphases = [], [], []  # the prose pieces
        # checked as one: prose pieces of the same emphasis that follow each
        # other (text a transform split, around a date 17/3/24), and standalone
        # URIs between them (a link next to Chinese text, 文本`17/3/24 <https://…>`__,
        # is text, a URI docutils found in it, text)
        run, run_at, run_emphasis = '', 0, None
        for piece, prose, emphasis, uri in pieces:
            checked = prose and backquoted and (emphasis is None
                                                or id(emphasis) not in emphasised)
            if prose:
                starts.append(offset)
                ends.append(offset + len(piece))
                emphases.append(emphasis)
            if run and (uri or (checked and emphasis is run_emphasis)):
                run += piece
            else:
                if run:
                    self.check_backquotes(run, source, line_at(run_at), reported, run_emphasis)
                run, run_at, run_emphasis = (piece, offset, emphasis) if checked else ('', 0, None)
            offset += len(piece)
        if run:
            self.check_backquotes(run, source, line_at(run_at), reported, run_emphasis)
        if title or '「' not in text:
            return
        in_table = any(isinstance(node, nodes.entry) for node in ancestors(block))
        reported_until = -1
        told: set[tuple[int, str]] = set()  # (line, name): once per line
        for start, end, content, quoted in quotes(text):
            if quoted or start < reported_until or not content.strip() or '`' in content:
                continue
            i = bisect.bisect_right(starts, start) - 1
            if i < 0 or end > ends[i]:
                continue  # part of a card name or a literal
            if is_placeholder(content):
                continue
            plain.add(fold(content))
            name = content.strip()  # 「 卡名」: the spaces go
            if not LINKABLE.fullmatch(name) or self.registry is None:
                continue
            if self.registry.lookup(name) is None:
                self.check_slip(content, name, f'{source}:{line_at(start)}', told,
                                emphases[i])
                continue
            line = line_at(start)
            if (line, content) in told:
                reported_until = end
                continue
            told.add((line, content))
            # make autolink and make fix link a name with no spaces at its edges; in
            # a table's cell where its column has room for the link's three characters
            tool = ('without the spaces' if name != content else
                    'make fix does it where its column has room' if in_table else
                    'make fix does it')
            fix = f'「`{name}`_」 ({tool})'
            emphasis = emphases[i]
            if isinstance(emphasis, (nodes.strong, nodes.emphasis)):
                raw = emphasis.rawsource.replace(f'「{content}」', f'「`{name}`_」')
                split = split_emphasis(raw)
                if split is not None:
                    tool = 'make fix does it' if name == content else 'without the spaces'
                    fix = (f'it outside the emphasis, {split} (a link cannot sit '
                           f'inside emphasis; {tool})')
            elif emphasis is not None:  # a role's text: make fix splits the page's own roles
                raw = emphasis.rawsource.replace(f'「{content}」', f'「`{name}`_」')
                split = split_role(raw)
                fix = (f'it outside the role, {split}' if split is not None
                       else f'「`{name}`_」 outside the role')
                fix += (' (a link cannot sit inside a role; make fix does it for a role '
                        'declared on the page, in a file it includes or in rst_prolog)')
            if id(block) not in self.tangled:
                reports.warning(f'「{content}」 is a card name in the registry but not linked: '
                                f'write {fix}', location=f'{source}:{line}',
                                subtype='unlinked')
            reported_until = end

    def check_slip(self, content: str, name: str, location: str, told: set,
                   emphasis: nodes.Element | None) -> None:
        """A note for a plain 「name」 that is no registry name but reads as one
        does (the did-you-mean of an unknown card link, :meth:`Registry.did_you_mean`):
        a misspelt card's ruling is on no card page.  Once per line and name.
        In struck text (*emphasis*: the markup it is in) the fix is the name
        plain, as struck text writes names (the build links them); in other
        emphasis or a role's text, the link outside it."""
        if (location, content) in told:
            return
        told.add((location, content))
        if name not in self.meant:
            self.meant[name] = self.registry.did_you_mean(name, language=self.config.language)
        close = self.meant[name]
        if close:
            if emphasis is None:
                fix = f'「`{close}`_」'
            elif is_struck(emphasis) or any(map(is_struck, ancestors(emphasis))):
                fix = f'「{close}」 (struck text links the names it writes plainly)'
            else:
                what = 'emphasis' if isinstance(emphasis, (nodes.strong, nodes.emphasis)) \
                    else 'role'
                fix = f'「`{close}`_」 outside the {what} (a link cannot sit inside it)'
            reports.note(f'「{content}」 is no card name in the registry, but reads as 「{close}」 '
                         f'does: if it is that card, write {fix} (then its ruling is '
                         'on the card\'s page)', location=location, subtype='card-slip',
                         config=self.config)

    def check_backquotes(self, piece: str, source: str, first: int, reported: set,
                         emphasis: nodes.Element | None = None) -> None:
        """Report the markup left, with its backquotes, in the lines of *piece*
        (in *emphasis*, or a role's text, where it is).  A backquote escaped
        with a backslash (``\\```: docutils keeps a NUL before it) is text as
        written: masked, at its place."""
        piece = piece.replace('\x00`', '\x00\x02')
        for number, line in enumerate(piece.split('\n')):
            if '`' not in line or first + number in reported \
                    or (source, first + number) in self.joined:
                continue
            location = f'{source}:{first + number}'
            strays = []
            for m in _LEFTOVER.finditer(line):
                if m['role']:
                    self.role_left(line, m, location, emphasis)
                elif m['literal']:  # not deleted: its text would be read (a date dates)
                    self.literal_left(m, location, emphasis)
                elif m['open'] or m['bare']:
                    name = (m['oname'] if m['open'] else m['bname']).strip()
                    if m['bare'] and not self.known(name):
                        strays.append((m.start() + 1 + len(m['bname']), m.end()
                                       - m.group().endswith('」')))
                    elif not name:
                        strays.append((m.start() + 1, m.end() - m.group().endswith('」')))
                    else:
                        self.broken_card(m.group(), name, location)
                elif m['pair']:
                    self.pair(m, location)
                else:
                    strays.append((m.start(), m.end()))
            if strays:
                self.strays(line, strays, location)

    @staticmethod
    def literal_left(m: re.Match, location: str, emphasis: nodes.Element | None) -> None:
        """A literal docutils did not see (``另见``21/3/4``的``): next to
        Chinese text, with spaces inside its backquotes, or in a role's text
        or emphasis, where no markup nests."""
        written = m['literal']
        inner = written[2:-2]
        if emphasis is not None:
            reports.error(f'literal {written!r} cannot sit inside a role\'s text or emphasis '
                          '(readers see its backquotes): end the role or emphasis before it and '
                          'start it again after it', location=location, subtype='markup')
            return
        fixed = f'``{inner.strip()}``'
        if not any(_glued_sides(m)):  # `` 21/3/4 ``: the spaces inside alone
            reports.error(f'literal {written!r} has spaces inside its backquotes, so that it is '
                          f'no literal: write {fixed}', location=location, subtype='markup')
            return
        spaces = (' and remove the spaces inside its backquotes' if inner != inner.strip()
                  else '')
        reports.error(f'literal {written!r} not recognised next to Chinese text: write '
                      f'{_glued(m).replace(written, fixed)}{spaces}', location=location,
                      subtype='markup')

    @staticmethod
    def role_left(line: str, m: re.Match, location: str,
                  emphasis: nodes.Element | None = None) -> None:
        """A role left as text: next to Chinese text (详见:ref:`标签`), or with
        a space inside its backquotes (``\\ :ref:` 标签```), which docutils does
        not take for a start-string (nor, before the closing one, an end-string):
        the fix is the role without the space, with `\\ ` where Chinese text
        is next to it.  At the end of another role's text, with no closing
        backquote (``:strike:`…。\\ :ruling:`17/3/24```): that role is not
        closed before it, and ran on to its closing backquote (an editor's
        round trip: told to write `\\ ` that was there)."""
        role, _tick, text = m['role'].partition('`')
        target = text[:-1] if text.endswith('`') else ''
        outer = _ROLE_TEXT.match(getattr(emphasis, 'rawsource', '') or '')
        if outer and not target and text.strip() and m.end() == len(line) \
                and role in outer['text']:
            whole = outer['text']  # the role's text as written, up to the one inside
            own = whole[:whole.rfind(role)].rstrip()
            own = own[:-1].rstrip() if own.endswith('\\') else own
            shown = own if len(own) <= 12 else f'…{own[-8:]}'
            name = outer['role'][:-1]
            reports.error(f'role {name} is not closed before {role}, so that its text runs on '
                          f'over {role}`{text}` (readers see the markup): write its closing '
                          f'backquote before {role}: {name}`{shown}`\\ {role}`{text}`',
                          location=location, subtype='markup')
        elif target.strip() and target != target.strip():
            before, after = line[m.start() - 1:m.start()], line[m.end():m.end() + 1]
            reports.error(_spaced(role, target, before, after), location=location,
                          subtype='markup')
        elif text.endswith('`') and not text[:-1].strip():
            # :ruling:`` or :ruling:` ` (a hostile-input round trip was told to write the \ there)
            example = ':ruling:`17/3/24` for a date' if role == ':ruling:' else role + '`…`'
            reports.error(f'role {role} has no text ({role}`{text}, which readers see as it is): '
                          f'write its text between the backquotes, {example}, or delete it',
                          location=location, subtype='markup')
        else:
            reports.error(f'role {role} not recognised: next to Chinese text write `\\ ` '
                          f'before it: {_escaped(line[m.start() - 1:m.start()], role, "…")}',
                          location=location, subtype='markup')

    def known(self, name: str) -> bool:
        return bool(name) and not is_placeholder(name) and self.registry is not None \
            and self.registry.lookup(name) is not None

    def broken_card(self, written: str, name: str, location: str) -> None:
        """An attempted card link *written* as text: the fix is 「`name`_」."""
        if is_placeholder(name):
            reports.error(f'broken markup {written!r} around a placeholder: write 「{name}」 '
                          '(a placeholder is plain text, never a link)',
                          location=location, subtype='markup')
            return
        fix = f'「`{name}`_」'
        if fix == written:  # right, but docutils did not see it: other markup around it
            reports.error(f'card link {written!r} is shown as text: it cannot sit inside '
                          'other inline markup; move it out, with `\\ ` between them',
                          location=location, subtype='card-markup')
            return
        unknown = '' if self.known(name) else (
            f'; 「{name}」 is not in the registry: add its row to '
            f'{self.registry.path.name if self.registry is not None else "the registry"}')
        reports.error(f'broken card markup {written!r}: write {fix} '
                      f'(backquotes right around the name, no space between them and the name, '
                      f'then _){unknown}',
                      location=location, subtype='card-markup')

    def pair(self, m: re.Match, location: str) -> None:
        """Text left between backquotes: `卡名`_」, `文本`, `17/3/24 <…>`__."""
        written, name = m['pair'], m['pname'].strip()
        if name.endswith('>') and '<' in name:
            reports.error(f'link {written!r} not recognised next to Chinese text: write '
                          f'{_glued(m)}', location=location, subtype='markup')
        elif (m['close'] or self.known(name)) and LINKABLE.fullmatch(name):
            self.broken_card(written, name, location)
        elif m['under']:
            reports.error(f'reference {written!r} not recognised next to Chinese text: write '
                          f'{_glued(m)}, or 「`{name}`_」 for a card',
                          location=location, subtype='markup')
        else:
            reports.error(f'{written!r} is shown with its backquotes: for a card write '
                          f'「`{name}`_」, for literal text ``{name}``; else delete the '
                          'backquotes', location=location, subtype='markup')

    @staticmethod
    def strays(line: str, spans: list[tuple[int, int]], location: str) -> None:
        """Backquotes (and underscores after them) that are left over: delete them."""
        (start, end), (last_start, last_end) = spans[0], spans[-1]
        written = ', '.join(repr(line[s:e]) for s, e in spans[:5]) + (' …' if len(spans) > 5 else '')
        if last_end - start <= 4 * _CONTEXT:
            where = repr(_excerpt(line, start, last_end))
        else:
            where = f'{_excerpt(line, start, end)!r} and on to {_excerpt(line, last_start, last_end)!r}'
        them = 'them' if len(spans) > 1 else 'it'
        reports.error(f'stray {written} in {where}: delete {them} (not markup: readers see '
                      f'{them} as text)', location=location, subtype='markup')

    def pieces(self, block: nodes.Element
               ) -> Iterator[tuple[str, bool, nodes.Element | None, bool]]:
        """The block's text, in order, each piece marked prose or not, with the
        inline markup it is in: emphasis (``**…**``, ``*…*``), or a role's
        text (``:red:`…```, a role the page declares), which cannot hold a
        link either; and whether it is a standalone URI (not prose)."""
        for text in block.findall(nodes.Text):
            node, prose, emphasis = text.parent, True, None
            uri = isinstance(node, nodes.reference) and 'refuri' in node \
                and node.rawsource == node.astext()  # a standalone URI
            while node is not None and node is not block:
                if isinstance(node, _NOT_PROSE):
                    prose = False
                    break
                if isinstance(node, (nodes.strong, nodes.emphasis)) or (
                        isinstance(node, nodes.Inline) and emphasis is None
                        and node.rawsource.startswith(':')):
                    emphasis = node
                node = node.parent
            yield str(text), prose, emphasis, uri

    def check_bar(self, block: nodes.paragraph, text: str) -> None:
        """A paragraph whose lines start with ``|`` and a space that is not
        ASCII's (an editor's ``|　`` or ``|`` and a no-break space): meant
        as a line block, which docutils reads only before an ASCII space;
        readers see the bars, and its lines are no rulings."""
        source, first = self.first_line(block)
        for i, line in enumerate(text.split('\n')):
            if foreign_bar(line):
                reports.error(f'this line starts with "|" and the space U+{ord(line[1]):04X}, '
                              'which docutils does not read as a line block\'s (readers see '
                              'the bar): write "| " with an ASCII space',
                              location=f'{source}:{first + i}', subtype='markup')

    def check_indented_bar(self, line: nodes.line, text: str) -> None:
        """A line of a line block that goes on with an indented ``| …`` (meant
        as a line of its own, or a nested one): docutils reads it as the
        line's text going on, so readers see the bar, and its cards are the
        line's ruling's."""
        source, first = self.first_line(line)
        for i, piece in enumerate(text.split('\n')):
            if i and piece.startswith('| '):
                reports.error('this line, indented, goes on the line of the line block above it, '
                              'so readers see its "|": write its bar at the column of the '
                              'other bars, "| …", for a line of its own, or spaces after the '
                              'bar, "|     …", for a line nested in the one above',
                              location=f'{source}:{first + i}', subtype='markup')

    def check_html(self, block: nodes.TextElement, text: str,
                   pieces: list[tuple[str, bool, nodes.Element | None, bool]]) -> None:
        """HTML tags typed into the block's prose: one error per line, naming
        its tags, with reST's form of a pair that has one (``<b>…</b>`` as
        ``**…**``, with ``\\ `` where text touches it, as docutils needs),
        but where the pair holds a link, a literal or a role, which reST's
        emphasis or role could not hold: delete the tags."""
        source, first = self.first_line(block)
        found: list[tuple[int, re.Match]] = []  # (offset in text, tag)
        markup: list[int] = []  # where the pieces that are no prose start
        offset = 0
        for piece, prose, emphasis, _uri in pieces:
            # (a malformed :ruling:`…` shown as text: its own error says it)
            if prose and '<' in piece and not (
                    emphasis is not None and emphasis.get('ruling_malformed')):
                found += [(offset + tag.start(), tag) for tag in _HTML_TAG.finditer(piece)]
            elif not prose or emphasis is not None:
                markup.append(offset)
            offset += len(piece)
        lines: dict[int, list[str]] = {}  # line: its tags as written
        forms: dict[int, list[str]] = {}  # line: reST's forms
        paired: set[int] = set()  # the closing tags of a pair given its form
        covered: dict[int, int] = {}  # line: how many of its tags a form replaces
        for i, (at, tag) in enumerate(found):
            line = first + text.count('\n', 0, at)
            # as typed: docutils' smart quotes curled an attribute's quotes
            lines.setdefault(line, []).append(tag.group().translate(_STRAIGHT))
            name = tag['name'].lower()
            if i in paired or name not in _HTML_IN_REST or tag.group().startswith('</') or (
                    _HTML_IN_REST[name].startswith(':strike:') and not self.declared('strike')):
                continue  # (no strike role where the page is read: its form would be none)
            if name == 'br':
                forms.setdefault(line, []).append(_HTML_IN_REST[name])
                covered[line] = covered.get(line, 0) + 1
                continue
            close = next((j for j in range(i + 1, len(found))
                          if found[j][1].group().lower() == f'</{name}>'), None)
            if close is None:
                continue
            inner_at, end = at + len(tag.group()), found[close][0]
            inner = text[inner_at:end]
            after = end + len(found[close][1].group())
            if not inner.strip() or '\n' in inner or any(at < m < end for m in markup):
                continue
            paired.add(close)
            covered[line] = covered.get(line, 0) + 2
            before = '\\ ' if at and not (text[at - 1].isspace()
                                          or _BEFORE_MARKUP.match(text[at - 1])) else ''
            behind = '\\ ' if after < len(text) and not (
                text[after].isspace() or _AFTER_MARKUP.match(text[after])) else ''
            forms.setdefault(line, []).append(
                f'{before}{_HTML_IN_REST[name].format(inner)}{behind} for '
                f'{text[at:after].translate(_STRAIGHT)}')
        for line, tags in lines.items():
            written = ', '.join(repr(tag) for tag in dict.fromkeys(tags))
            them = 'it' if len(tags) == 1 else 'them'
            told = forms.get(line, [])
            fix = f'write {"; ".join(told)}' if told else f'delete {them}'
            if told and covered.get(line, 0) < len(tags):
                fix += ', and delete the other tags'
            reports.error(f'HTML {"tag" if len(tags) == 1 else "tags"} {written} in the text: '
                          f'reStructuredText is not HTML, so readers see {them} as text: {fix}',
                          location=f'{source}:{line}', subtype='html')

    def first_line(self, block: nodes.Element) -> tuple[str, int]:
        """Source and line of the block's first line of text."""
        source, line = locate(block)
        source = source or self.document.get('source', '')
        if isinstance(block, (nodes.title, nodes.subtitle)) and line:
            line -= 1  # docutils gives a title the line of its underline
        return source, line or 0

    def error(self, node: nodes.Node, message: str, subtype: str) -> None:
        source, line = self.lines(node)
        reports.error(message, location=f'{source or self.document.get("source")}:{line or 0}',
                      subtype=subtype)


# -- what each page quotes plainly (for re-reading after a registry edit) -----------

def read_quotes(app: Sphinx, page: Contribution) -> None:
    """The page's plain 「…」, folded, for the store (``handbook-page-read``)."""
    carry(page, QUOTES)


def pages_quoting_changed_cards(app: Sphinx, env: BuildEnvironment, added: Any,
                                changed: Any, removed: Any) -> list[str]:
    """Re-read the pages whose plain 「…」 became or stopped being registry names."""
    keys = changed_keys(env)
    if not keys:
        return []
    return sorted(doc for doc, page in store(env).pages.items()
                  if keys & page.extra.get(QUOTES, frozenset()))


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.cards.links')
    app.add_transform(CardMarkup)
    app.connect(PAGE_READ, read_quotes)
    app.connect('env-get-outdated', pages_quoting_changed_cards)
    return {'version': '2', 'env_version': 3,
            'parallel_read_safe': True, 'parallel_write_safe': True}
