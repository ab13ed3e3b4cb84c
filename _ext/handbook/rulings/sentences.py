"""Whole sentences: where one ruling of a block ends.

A block (a line of a line block, a paragraph) is cut into rulings at its
dated references (:mod:`handbook.rulings.dates`).  A date cites the sentence
it sits in, so a ruling is made of whole sentences, with every date inside
them:

* a sentence ends at 。！？ (or ``!`` ``?``), with the closing brackets and
  quotes right after it (」』）) …), or at the end of the block; not inside
  quoted text (``记述是『…丢弃。双方从卡组抽5张』，…。`` is one sentence);
* a date right after the end of a sentence (spaces aside) dates that
  sentence: ``…不能发动。\\ :ruling:`17/3/24```; so do the dates right after
  it, separated only by spaces or by one of 、，；和及与~/ (one ruling,
  answered in two FAQs: ``17/3/24、17/12/22``); so does a remark in brackets
  that opens right after that sentence, with the dates inside it, up to its
  closing bracket (``…不能发动。（17/3/24 调整中）``);
* a date inside a sentence dates the whole sentence, up to its end, with the
  dates in between: ``…「地缚神」怪兽\\ :ruling:`17/3/24` 和「罪」怪兽\\
  :ruling:`17/3/24` 立即被自身效果破坏。`` is one ruling;
* a ruling starts where the one before it ended (or at the block's start),
  so the sentences between two dates belong to the second;
* a sentence that starts with a continuation -- ，、；也但而 -- goes on with
  the ruling before it (``…伤害。\\ :ruling:`17/12/22` 但本身造成了2次伤害…``),
  so no ruling starts in the middle of a thought; so does a remark in
  brackets that opens what follows a ruling (``…2次。\\ :ruling:`17/3/24`\\ （\\
  :ruling:`17/7/28` 修正） B。``, ``…（裁定变更） B。``: the remark is the first
  ruling's), while ``（1）B。`` is a sentence of its own;
* text after the block's last dated sentence continues the last ruling.

A block that starts with its date (``17/3/24：「A」…。17/7/28：「B」…。``,
``【17/3/24】「A」…。``) writes each date before what it dates: a ruling
starts at each date that follows the end of a sentence, and runs to the
next.

:func:`cut` works on the block's children as they are: a text node is split
where a ruling ends inside it; an element (emphasis, a card link, struck
text) is never split, so a ruling that ends inside one ends after it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from docutils import nodes

if TYPE_CHECKING:
    from collections.abc import Callable

#: the end of a sentence, with the closing brackets and quotes after it
END = re.compile(r'[。！？!?][」』）)】〕”’"\']*')
#: quoted text, whose 。 ends no sentence of the ruling: 『effect text。』, “…。”
QUOTES_OPEN, QUOTES_CLOSE = '『“', '』”'
#: what a sentence that continues the one before starts with
CONTINUATIONS = frozenset('，、；,;也但而')
#: the brackets of a remark on the ruling before (``（17/7/28 修正）``); the
#: text of a ruling also loses those that only held dates (``rulings.lines``)
OPEN, CLOSE = '（(【[［', '）)】]］'
#: where a text is cut into pieces: after each end of a sentence, and after
#: each closing bracket (where a remark ends)
_CUT = re.compile(f'{END.pattern}|[{re.escape(CLOSE)}]')
#: what joins two dates of one ruling (``17/3/24、17/12/22``, ``… 和 …``); the
#: text of a ruling loses it with the dates (``rulings.lines``)
JOINERS = '、，,；;和及与~～/／'
#: a number or a label in brackets that opens a sentence, ``（1）B。``,
#: ``【问】B？``: no remark
_NUMBERED = re.compile(rf'\s*[{re.escape(OPEN)}]\s*(?:[0-9A-Za-z一二三四五六七八九十①-⑳]{{1,3}}'
                       rf'|问|答|注|例|备注|注意|补充|问题|回答)\s*[{re.escape(CLOSE)}]')
_JOINS = re.compile(rf'\s*[{re.escape(JOINERS)}]\s*')


#: where a text had a part left out (a date, a struck word): no text holds it
LEFT_OUT = '\x00'
#: what was left out, with the spaces beside it, between two Chinese characters or signs
_BETWEEN_WIDE = re.compile(rf'(?<=[\u2e80-\uffef])\s*{LEFT_OUT}+\s*(?=[\u2e80-\uffef])')


#: a line break inside a sentence between two Chinese characters or signs (a line
#: of a line block continued on the next, a paragraph wrapped)
_WRAPPED = re.compile(r'(?<=[\u2e80-\uffef])[ \t]*\n\s*(?=[\u2e80-\uffef])')


def unwrapped(text: str) -> str:
    """*text* without the line breaks between Chinese words: Chinese is
    written without spaces, and a break there is where the editor's line
    ended (``变成0，\\n  对方``: ``变成0，对方``, not ``变成0， 对方``)."""
    return _WRAPPED.sub('', text)


def close_up(text: str) -> str:
    """*text* without its marks of what was left out (:data:`LEFT_OUT`), and
    without the spaces beside them between Chinese words, which stood beside
    what was left out (``怪兽\\ :ruling:`17/3/24` 和``: ``怪兽和``)."""
    return _BETWEEN_WIDE.sub('', text).replace(LEFT_OUT, '')


def ends_sentence(text: str) -> bool:
    """Whether *text* ends with the end of a sentence (spaces aside)."""
    text = text.rstrip()
    m = None
    for m in END.finditer(text):
        pass
    return m is not None and m.end() == len(text)


def continues(text: str) -> bool:
    """Whether a sentence starting with *text* continues the one before."""
    text = text.lstrip()
    return bool(text) and text[0] in CONTINUATIONS


def remark(text: str) -> bool:
    """Whether *text* is one remark in brackets, ``（… 修正）``: it opens with
    a bracket whose match is its last character (spaces aside)."""
    text = text.strip()
    if not text or text[0] not in OPEN:
        return False
    depth = 0
    for at, char in enumerate(text):
        if char in OPEN:
            depth += 1
        elif char in CLOSE:
            depth -= 1
            if depth == 0:
                return at == len(text) - 1
    return False


def opens(text: str) -> bool:
    """Whether *text* is one opening bracket."""
    return len(text) == 1 and text in OPEN


def pieces(children: list[nodes.Node]) -> tuple[list[nodes.Node], list[bool]]:
    """*children* with each text node split after every end of a sentence
    and every closing bracket inside it, except inside quoted text (『…。…』:
    the text a ruling quotes, such as a card's, is no end of its sentence);
    the pieces keep their text, nothing else changes.  And, for each piece,
    whether it ends inside quoted text."""
    out: list[nodes.Node] = []
    quoted: list[bool] = []
    depth = 0
    whole = ''.join(child.astext() for child in children)
    # a quote opened and never closed (a typo) would make the rest one sentence
    quotes = ''.join(o + c for o, c in zip(QUOTES_OPEN, QUOTES_CLOSE)
                     if whole.count(o) == whole.count(c))
    for child in children:
        text = child.astext()
        if not isinstance(child, nodes.Text):
            depth = _quote_depth(text, depth, quotes)
            out.append(child)
            quoted.append(depth > 0)
            continue
        at = 0
        for m in _CUT.finditer(text):
            inside = _quote_depth(text[at:m.start() + 1], depth, quotes)  # at its 。
            if m.end() < len(text) and not inside:
                out.append(nodes.Text(text[at:m.end()]))
                quoted.append(False)
                depth, at = 0, m.end()
        out.append(nodes.Text(text[at:]) if at else child)
        depth = _quote_depth(text[at:], depth, quotes)
        quoted.append(depth > 0)
    return out, quoted


def _quote_depth(text: str, depth: int, quotes: str) -> int:
    """How deep in quoted text the end of *text* is, from *depth* at its
    start; *quotes*: the opening and closing quotes that count, in pairs."""
    for char in text:
        if char in quotes[::2]:
            depth += 1
        elif char in quotes[1::2] and depth:
            depth -= 1
    return depth


def cut(children: list[nodes.Node], dated: Callable[[nodes.Node], bool]) -> list[list[nodes.Node]]:
    """The block's *children* grouped into rulings (see the module
    docstring); *dated* says whether a child is or holds a dated reference.
    Each group but the first starts at a sentence; a block without a date
    is one group."""
    items, quoted = pieces(children)
    n = len(items)
    is_date = [dated(item) for item in items]
    texts = [item.astext() for item in items]
    blank = [not is_date[i] and not texts[i].strip() for i in range(n)]
    joins = [not is_date[i] and _JOINS.fullmatch(texts[i]) is not None for i in range(n)]

    def closes(i: int) -> bool:
        """Item *i* (not a date) ends a sentence."""
        return not is_date[i] and not quoted[i] and ends_sentence(texts[i])

    def date_at(j: int) -> bool:
        """Item *j* is a date, blanks aside."""
        while j < n and blank[j]:
            j += 1
        return j < n and is_date[j]

    def dates_after(i: int) -> int:
        """The last item of the dates right after item *i*, with the blanks
        and the 、 和 … between them."""
        j = i
        while j + 1 < n and (is_date[j + 1] or blank[j + 1] or joins[j + 1] and date_at(j + 2)):
            j += 1
        while j > i and blank[j]:
            j -= 1
        return j

    def remark_at(i: int) -> int | None:
        """Where the date *i* opens a remark in brackets right after the
        end of a sentence (``…发动。（17/3/24 调整中）``), the item that
        closes the remark."""
        b = i - 1
        while b >= 0 and blank[b]:
            b -= 1
        if b < 0 or is_date[b] or not opens(texts[b].strip()):
            return None
        k = b - 1
        while k >= 0 and (blank[k] or is_date[k]):
            k -= 1
        if k < 0 or not closes(k):  # not after a sentence: a date-first block, (1) …
            return None
        return closing(b)

    def closing(b: int) -> int | None:
        """The item whose text closes the bracket that item *b* opens."""
        depth = 0
        for j in range(b, n):
            if is_date[j]:
                continue
            for char in texts[j]:
                if depth == 0 and char not in OPEN:
                    continue  # the spaces before the bracket
                depth += (char in OPEN) - (char in CLOSE)
                if depth == 0:
                    return j
        return None

    def end_of(i: int) -> int:
        """The last item of the sentence that the date *i* dates."""
        remarked = remark_at(i)
        if remarked is not None:
            return dates_after(remarked)
        before = i - 1
        while before >= 0 and (blank[before] or is_date[before] or joins[before]):
            before -= 1
        if before < 0 or closes(before):
            return dates_after(i)  # the date follows the end of a sentence
        for j in range(i + 1, n):
            if closes(j):
                return dates_after(j)
        return n - 1

    def date_first(i: int) -> int | None:
        """In a block that starts with its date, where the date *i* starts
        a ruling: at the block's start or right after the end of a sentence,
        the first of its dates, with the bracket that opens before it."""
        b = i - 1
        while b >= 0 and blank[b]:
            b -= 1
        if b >= 0 and (is_date[b] or joins[b]):
            return None
        at = i
        if b >= 0 and opens(texts[b].strip()):
            at, b = b, b - 1
            while b >= 0 and blank[b]:
                b -= 1
        return at if b < 0 or closes(b) else None

    lead = next((j for j in range(n) if not blank[j]), n)
    if lead < n and (is_date[lead] or opens(texts[lead].strip()) and date_at(lead + 1)):
        # dates written before what they date (17/3/24：「A」…。17/7/28：「B」…。)
        starts = [at for at in map(date_first, (i for i in range(n) if is_date[i]))
                  if at is not None]
        groups = []
        for a, b in zip([0, *starts[1:]], [*starts[1:], n]):
            said = ''.join(t for t, d in zip(texts[a:b], is_date[a:b]) if not d)
            if groups and (remark(said) or not _JOINS.sub('', said).strip(f' {OPEN}{CLOSE}：:')):
                groups[-1].extend(items[a:b])  # more dates of the ruling before, a remark
            else:
                groups.append(items[a:b])
        return groups
    ends: list[int] = []
    i = 0
    while i < n:
        if is_date[i]:
            end = end_of(i)
            ends.append(end)
            i = end + 1
        else:
            i += 1
    if not ends:
        return [items]
    groups: list[list[nodes.Node]] = []
    start = 0
    for end in ends:
        first_at = next((j for j in range(start, end + 1) if not blank[j]), end)
        said = ''.join(t for t, d in zip(texts[start:end + 1], is_date[start:end + 1]) if not d)
        if groups and (continues(texts[first_at]) or remark(said)):
            groups[-1].extend(items[start:end + 1])
            start = end + 1
            continue
        if groups and not is_date[first_at] and texts[first_at].lstrip()[:1] in tuple(OPEN):
            closed = closing(first_at)  # a remark opens the group: the ruling before's
            opening = ''.join(t for t, d in zip(texts[first_at:end + 1], is_date[first_at:end + 1])
                              if not d)
            if closed is not None and closed < end and not _NUMBERED.match(opening):
                groups[-1].extend(items[start:closed + 1])
                start = closed + 1
        groups.append(items[start:end + 1])
        start = end + 1
    groups[-1].extend(items[start:])  # text after the last date continues the last ruling
    return groups
