"""The card registry: every card and series name the handbook links to.

The registry is a file named by the ``handbook_cards`` config value (relative
to the configuration directory; ``-D handbook_cards=path`` overrides it).  It
is read once per build into immutable :class:`Card` records.  Two formats are
understood: a file whose name ends in ``.rst``, or whose first rows start with
``..``, is a legacy link file; any other is a registry.

**Registry (TSV)** -- one card per line, tab-separated columns, ``#`` starts a
comment line::

    # kind   name                 id      url   aliases
    card     幻变骚灵·网络傀儡师
    card     旋风                 12345
    series   星骑士
    card     某卡                         https://example.org/某卡
    card     真红眼黑龙                            zh_TW=真紅眼黑龍;en=Red-Eyes Black Dragon

``kind`` is ``card`` or ``series``; ``name`` is the name pages write inside
「`…`_」.  The optional ``id`` is the card database id: when present the link
uses it (``handbook_card_id_url``), which survives renames.  The optional
``url`` overrides the templates.  ``aliases`` are names in other languages
(``lang=name`` separated by ``;``): translated pages may write them and they
link to the same card.

**Legacy link definitions** -- the format existing handbooks keep in a page of
link targets, one per line::

    .. _`幻变骚灵·网络傀儡师`: https://ygocdb.com/card/name/幻变骚灵·网络傀儡师

Every row docutils accepts as a hyperlink target is accepted, read as
docutils reads it: the name may be quoted in backquotes or not; the URL is
the rest of the row (and of its indented continuation lines) with all
whitespace removed, so ``https://ygocdb.com/?search=No.39 希望皇 霍普`` links
``https://ygocdb.com/?search=No.39希望皇霍普`` (a backslash-escaped space
stays a space; other backslash escapes lose their backslash).  A URL with
``search=`` makes a series.  An indirect row, ``.. _`旋風`: `旋风`_``, gives
another row's card a second name.  Comments (``..`` followed by anything but
``_``) and directives are skipped.

**Names and identity.**  A name is looked up *folded*
(:func:`handbook.core.names.fold`: Unicode NFKC, whitespace and middle dots
removed, lower case), so ``真龙剑皇卓辉星·拼图`` finds ``真龙剑皇 卓辉星·拼图``.
Rows are read in order, and in both formats:

* a row whose name folds like an earlier row's but is spelled otherwise
  (``D.D. 乌鸦`` / ``D.D.乌鸦``, ``幻变骚灵·协议`` / ``幻变骚灵协议``) is an
  *alias*: both spellings link the earlier row's card (one identity, the
  earlier row's URL), and a note ``handbook.registry-alias`` says so;
* a row that repeats an earlier row's name exactly, with the same link, is
  redundant: a note says to remove it (``make fix`` does,
  :func:`redundant_rows`);
* the same name with another link is a warning ``handbook.registry`` naming
  both rows and URLs; pages link the earlier row's URL.  Where the links
  differ in their scheme alone (``http://`` and ``https://``), the http row
  is redundant: a note says to remove it (``make fix`` does).

**Bad rows** are errors at ``registry:line`` (readers lose those links): a
row docutils would not read as a link definition (the message names the
cause -- no ``:`` after the name, unbalanced backquotes, no space after
``..`` -- and gives the corrected row when one can be derived), an empty
name, a URL that is not http(s) (``javascript:`` and the like never become
links), a control character (named as ``U+XXXX``), a row longer than
:data:`MAX_ROW` characters, a row that is not UTF-8.  The bad row is
skipped and the rest of the registry is used.  The names of rejected rows
are kept (:attr:`Registry.rejected`): their uses in pages are not reported
again as unknown cards.  A binary or UTF-16 file (NUL bytes, with UTF-16's
byte-order mark, more than one byte in ten, or bytes that are not UTF-8) is
not read at all: :class:`RegistryError`; a stray NUL in UTF-8 text is its
row's control character.

**Suggestions** for an unknown name (:meth:`Registry.did_you_mean`) are
offered only when they can be accepted blindly: the one card closest by
Levenshtein distance over folded names, within reach (a distance of at most
1 when either name folds to 4 characters or fewer, else at most 2), each
character it changes one that reads alike (:func:`slip`: 旋凤 is 旋风, 白洞
is not 黑洞), each it adds or drops a particle (王宫铁壁 is 王宫的铁壁, 水龙 is
not 水晶龙), and none when another card is as close, or when a name within
reach contains the unknown one or is contained in it (「黑洞」 is not
「黑洞龙」, 「No.39 希望皇 霍普」 not 「No.39 希望皇 霍普·翻倍」): those are other
cards.  A name written in Traditional characters is the card whose name
it is, however many of its characters differ (幻變騷靈·網絡傀儡師 is
幻变骚灵·网络傀儡师: OpenCC's ``tw2s``), and is otherwise compared as that name.  The candidates are built once
per registry, on the first question.  One question over a 7,000-name
registry takes well under the 5 ms ``make bench`` allows it (rapidfuzz);
measured without the tests::

    .venv/bin/python -m timeit -s "
    import random, sys; sys.path.insert(0, '_ext')
    from pathlib import Path
    from handbook.cards.registry import Card, Registry, fold
    rnd = random.Random(1)
    names = {''.join(chr(rnd.randrange(0x4e00, 0x4e80)) for _ in range(rnd.randrange(3, 12)))
             for _ in range(7000)}
    r = Registry(Path('x'), {fold(n): Card(n, 'card', i) for i, n in enumerate(names)}, [])
    typo = sorted(names)[0][:-1] + '丁'
    r.did_you_mean(typo)" "r.did_you_mean(typo)"
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from urllib.parse import quote

from handbook.core import url_policy
from handbook.core.names import fold
from handbook.core.records import frozen_record

__all__ = ['KINDS', 'MAX_ROW', 'Card', 'Problem', 'Registry', 'RegistryError', 'UrlTemplates',
           'DEFAULT_URLS', 'fold', 'load', 'redundant_rows']

KINDS = ('card', 'series')
#: the longest row read, in characters: a card's name and URL take a few hundred
MAX_ROW = 2000
#: the longest name a suggestion is looked for (folded characters)
_MAX_SUGGESTED = 100

#: docutils' explicit markup start of a hyperlink target: "..", spaces, "_"
_ROW_START = re.compile(r'\.\.[ ]+_(?![ ]|$)')
#: a line meant as a target that docutils reads as a comment or text
_SPACE_AFTER_UNDERSCORE = re.compile(r'\.\.[ ]+_[ ]+\S')
_NO_SPACE_AFTER_DOTS = re.compile(r'\.\._\S')
_COMMENT = re.compile(r'\.\.(?:[ ]|$)')
#: docutils' hyperlink target name (``Body.explicit.patterns.target``),
#: matched on text whose backslash escapes are NULs
_TARGET = re.compile(r"""
    (?!_)(?P<quote>`?)(?![ `])(?P<name>.+?)(?<![\s\x00])(?P=quote)
    (?<!(?<!\x00):)(?<![\s\x00])[ ]?:([ ]+|$)""", re.VERBOSE)
#: docutils' reference, the target of an indirect row (``…patterns.reference``)
_SIMPLENAME = r'(?:(?!_)\w)+(?:[-._+:](?:(?!_)\w)+)*'
_REFERENCE = re.compile(rf'(?:(?P<simple>{_SIMPLENAME})_|`(?![ ])(?P<phrase>.+?)(?<![\s\x00])`_)$')
#: an http(s) URL in a broken row, where the row's URL probably starts
_HTTP = re.compile(r'https?://', re.IGNORECASE)
#: the characters a name may miss, or have too many, and still be the card's
#: (王宫铁壁 for 王宫的铁壁); any other makes another name (水龙 and 水晶龙,
#: 青眼白龙 and 青眼亚白龙).  Spaces and middle dots are folded away already.
_PARTICLES = frozenset('的之')
#: a Chinese character (CJK unified ideographs, their extensions A and B on,
#: the compatibility ideographs)
_HAN = re.compile(r'[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]')
#: a URL without its scheme: a host name, then a path, query or nothing
_HOST_FIRST = re.compile(r'(?://)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?:[/?#]|$)')


def _escape2null(text: str) -> str:
    """docutils' ``escape2null``: each backslash escape becomes NUL + the character."""
    return re.sub(r'\\(.?)', '\x00\\1', text, flags=re.S)


def _unescape(text: str) -> str:
    """docutils' ``unescape``: escaped whitespace and the NULs removed."""
    for sep in ('\x00 ', '\x00\n', '\x00'):
        text = ''.join(text.split(sep))
    return text


@frozen_record
class Card:
    """One registry row."""

    name: str
    kind: str  # 'card' or 'series'
    line: int
    id: int | None = None
    url: str | None = None
    aliases: tuple[tuple[str, str], ...] = ()
    key: str = dataclasses.field(init=False, compare=False, repr=False)
    """The card's identity: its name folded (:func:`handbook.core.names.fold`)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, 'key', fold(self.name))

    def name_in(self, language: str | None) -> str:
        """The card's name in *language*: its alias there, else its name."""
        return next((alias for lang, alias in self.aliases if lang == language), self.name)

    def same_link(self, other: Card) -> bool:
        """Whether two rows say the same thing (their lines aside)."""
        return dataclasses.replace(other, name=self.name, line=self.line) == self

    def only_scheme_differs(self, other: Card) -> bool:
        """Whether two rows say the same thing but one links over http and the
        other over https, the same address otherwise."""
        if not (self.url and other.url) or self.url == other.url:
            return False
        schemes = {self.url.partition(':')[0], other.url.partition(':')[0]}
        return schemes == {'http', 'https'} and self.url.partition(':')[2] == \
            other.url.partition(':')[2] and dataclasses.replace(
                other, name=self.name, line=self.line, url=self.url) == self


@frozen_record
class Problem:
    """What a registry row needs: where, what, how serious (see core/reports.py)."""

    line: int
    message: str
    severity: str = 'error'  # 'error', 'warning' or 'note'
    subtype: str = 'registry'  # 'registry' or 'registry-alias'


class RegistryError(ValueError):
    """The file cannot be a registry at all (it is binary)."""


@frozen_record
class UrlTemplates:
    """How a card's link is made when its row gives no URL."""

    card: str  # with {name}
    card_id: str  # with {id}
    series: str  # with {name}

    def url(self, card: Card) -> str:
        if card.url:
            return card.url
        if card.id is not None:
            return self.card_id.format(id=card.id)
        template = self.series if card.kind == 'series' else self.card
        return template.format(name=quote(card.name, safe=''))


#: the config values' defaults (handbook.cards.links)
DEFAULT_URLS = UrlTemplates('https://ygocdb.com/card/name/{name}', 'https://ygocdb.com/card/{id}',
                            'https://ygocdb.com/?search={name}')


class Registry(Mapping[str, Card]):
    """The cards of one registry file, by folded name (every spelling and alias)."""

    def __init__(self, path: Path, names: dict[str, Card], problems: list[Problem],
                 rejected: Mapping[str, int] | None = None, redundant: tuple[int, ...] = ()) -> None:
        self.path = path
        self.problems = problems
        #: folded name of a rejected row -> the row's line
        self.rejected = dict(rejected or {})
        #: lines of rows that repeat an earlier row exactly
        self.redundant = redundant
        self._cards = names
        self._candidates: tuple[list[str], list[Card]] | None = None
        self._simplified: Callable[[str], str] | None = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, '_candidates': None, '_simplified': None}  # rebuilt when needed

    def __getitem__(self, key: str) -> Card:
        return self._cards[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._cards)

    def __len__(self) -> int:
        return len(self._cards)

    def lookup(self, name: str) -> Card | None:
        return self._cards.get(fold(name))

    def cards(self) -> list[Card]:
        """Each card once, in registry order."""
        return sorted(set(self._cards.values()), key=lambda c: c.line)

    def did_you_mean(self, name: str, language: str | None = None) -> str | None:
        """The one registry name *name* is a misspelling of, or None (see the
        module docstring); in *language* (a card's alias there) where the card
        has one."""
        query = fold(name)
        if not query or len(query) > _MAX_SUGGESTED:
            return None
        queries = [query]
        if _HAN.search(query):  # in Traditional characters: read as its Simplified name too
            if self._simplified is None:
                import opencc  # imported with the first suggestion
                self._simplified = opencc.OpenCC('tw2s').convert
            simplified = self._simplified(query)
            if simplified != query:  # the card of that name, however many characters differ
                card = self._cards.get(simplified)
                if card is not None:
                    return self._shown(card, query, language)
                queries.append(simplified)  # as written first: tw2s also turns 乾 into 干
        if self._candidates is None:
            self._candidates = (list(self._cards), list(self._cards.values()))
        keys, cards = self._candidates
        for asked in queries:
            close = slips(asked, keys)
            if close:
                best = min(distance for distance, _ in close)
                at_best = {cards[i] for distance, i in close if distance == best}
                return self._shown(at_best.pop(), query, language) if len(at_best) == 1 else None
        return None

    @staticmethod
    def _shown(card: Card, query: str, language: str | None) -> str | None:
        """*card*'s name as a did-you-mean shows it, None where it is *query* folded."""
        shown = card.name_in(language)
        return shown if fold(shown) != query else None

    def fingerprint(self) -> dict[str, tuple[tuple, tuple]]:
        """What a page's links depend on, per lookup key: ``((name, kind),
        (id, url))``, what the page shows of the card and where its link
        leads.  Compared between builds to find the pages whose links changed."""
        return {key: ((card.name, card.kind), (card.id, card.url))
                for key, card in self._cards.items()}


def slips(query: str, keys: list[str]) -> list[tuple[int, int]]:
    """The *keys* that *query* may be a misspelling of, ``(distance, index)``:
    one edit away (two for names over four characters), each edit a slip
    (:func:`_accepted`: a character read alike, a particle); none where a
    key holds *query* or *query* a key (a longer or shorter name is
    another).  A did-you-mean offers one only if it is the one closest."""
    reach = 1 if len(query) <= 4 else 2
    from rapidfuzz import process  # imported once a name is unknown: most builds never
    from rapidfuzz.distance import Levenshtein

    close = [(distance, i) for _, distance, i in process.extract(
                 query, keys, scorer=Levenshtein.distance, score_cutoff=reach, limit=None)
             if distance <= (1 if min(len(query), len(keys[i])) <= 4 else 2)]
    if any(query in keys[i] or keys[i] in query for _, i in close):
        return []  # a longer or shorter name: another card
    return [(distance, i) for distance, i in close  # 白洞 is not 黑洞
            if all(_accepted(op, query, keys[i]) for op in Levenshtein.editops(query, keys[i]))]


def _accepted(op, query: str, key: str) -> bool:
    """Whether the edit *op* (rapidfuzz's, from *query* to *key*) is a slip:
    a character changed for one that reads alike (:func:`slip`), or a
    particle missing or too many (:data:`_PARTICLES`)."""
    if op.tag == 'replace':
        return slip(query[op.src_pos], key[op.dest_pos])
    return (query[op.src_pos] if op.tag == 'delete' else key[op.dest_pos]) in _PARTICLES


def slip(written: str, meant: str) -> bool:
    """Whether the character *written* may be a slip for *meant* in a card's
    name: two Chinese characters that read alike, as an input method offers
    them side by side (凤 for 风, 愧 for 傀, 凬 for 风: pypinyin, without tones,
    every reading), or two signs that are neither letters nor digits.  Two
    characters that read differently make another name (白洞 and 黑洞, 警告 and
    宣告 are cards of their own), as do two digits or letters (No.38 and
    No.39, PSY骨架王 λ and PSY骨架王 ω)."""
    han = bool(_HAN.match(written)) and bool(_HAN.match(meant))
    if not han:
        return not (written.isalnum() or meant.isalnum())
    from pypinyin import Style, pinyin  # imported with the first suggestion

    def readings(character: str) -> set[str]:
        return set(pinyin(character, style=Style.NORMAL, heteronym=True,
                          errors=lambda text: [[text]])[0])
    return not readings(written).isdisjoint(readings(meant))


def load(path: Path, urls: UrlTemplates = DEFAULT_URLS) -> Registry:
    """Read a registry file of either format.  *urls* make the URLs that
    messages show.  Raises OSError, or RegistryError for a binary file."""
    lines, undecodable = _read(path)
    legacy = path.suffix == '.rst' or any(
        _COMMENT.match(ln) or _NO_SPACE_AFTER_DOTS.match(ln)
        for ln in [ln for ln in lines if ln.strip()][:50])
    rows = _Rows(urls)
    (_parse_legacy if legacy else _parse_tsv)(lines, undecodable, rows)
    return rows.registry(path)


def redundant_rows(path: Path) -> list[int]:
    """The line numbers of the rows of *path* that repeat an earlier row
    exactly (same name, same link), or that link over http a page another
    row of the name links over https: removing them leaves every link
    leading where it led (an http row's link made https)."""
    return list(load(path).redundant)


# -- reading ------------------------------------------------------------------------

def _utf8(data: bytes) -> bool:
    try:
        data.decode('utf-8')
    except UnicodeDecodeError:
        return False
    return True


def _read(path: Path) -> tuple[list[str], dict[int, str]]:
    """The file's lines (split at line feeds only, as editors count them) and
    the problems of the lines that are not UTF-8, by line number."""
    data = path.read_bytes()
    # UTF-16 (a NUL in every other byte of its ASCII) or binary; a stray NUL in
    # a UTF-8 file is its row's control character (a hostile-input round trip:
    # one row's NUL dropped every row, said at line 1 as a file of another kind)
    if b'\x00' in data and (data.startswith((b'\xff\xfe', b'\xfe\xff'))
                           or data.count(b'\x00') * 10 > len(data) or not _utf8(data)):
        raise RegistryError(f'{path} holds NUL bytes: it is a binary or UTF-16 file, not a card '
                            'registry; point handbook_cards at the registry, saved as UTF-8')
    data = data.removeprefix(b'\xef\xbb\xbf')
    lines, undecodable = [], {}
    for number, raw in enumerate(data.split(b'\n'), start=1):
        try:
            text = raw.decode('utf-8')
        except UnicodeDecodeError as err:
            column = len(raw[:err.start].decode('utf-8', 'replace')) + 1
            undecodable[number] = (f'the row is not UTF-8 (byte 0x{raw[err.start]:02X} at '
                                   f'column {column}); save the registry as UTF-8')
            text = raw.decode('utf-8', 'replace')
        lines.append(text.removesuffix('\r'))
    if len(undecodable) > 3 and len(undecodable) * 2 > sum(1 for ln in lines if ln.strip()):
        raise RegistryError(f'{path} is not UTF-8 text ({len(undecodable)} of its lines are not '
                            'UTF-8): save the registry as UTF-8')
    return lines, undecodable


def _shown(text: str, limit: int = 80) -> str:
    """*text* for a message: shortened, control characters as escapes."""
    text = text if len(text) <= limit else text[:limit - 1] + '…'
    return ''.join(f'\\u{ord(c):04x}' if unicodedata.category(c) in ('Cc', 'Cf') else c
                   for c in text)


def _first_control(text: str) -> tuple[int, str] | None:
    """The column and character of *text*'s first control character (a tab is none)."""
    if text.replace('\t', ' ').isprintable():
        return None  # the common case, quickly
    for column, char in enumerate(text, start=1):
        if char != '\t' and unicodedata.category(char) in ('Cc', 'Cf'):
            return column, char
    return None


def _control_problem(text: str) -> str | None:
    found = _first_control(text)
    if found is None:
        return None
    column, char = found
    return f'the row holds the control character U+{ord(char):04X} (column {column}); delete it'


def _without_controls(text: str) -> str:
    return ''.join(c for c in text if c == '\t' or unicodedata.category(c) not in ('Cc', 'Cf'))


def _too_long(row: str) -> str | None:
    if len(row) <= MAX_ROW:
        return None
    return (f'the row is {len(row):,} characters long (a row is at most {MAX_ROW:,}): is it '
            'several rows run together, or text pasted by mistake? split it into rows or '
            'remove it')


class _Rows:
    """The rows of one registry as they are read: the names they define and
    the problems, by the rules of the module docstring."""

    def __init__(self, urls: UrlTemplates) -> None:
        self.urls = urls
        self.names: dict[str, Card] = {}  # folded name -> card
        self.exact: dict[str, Card] = {}  # name as written -> the first row with it
        self.redundant: list[int] = []
        self.problems: list[Problem] = []
        self.rejections: list[tuple[int, str, str | None]] = []  # line, message, name

    def registry(self, path: Path) -> Registry:
        problems, rejected = list(self.problems), {}
        for line, message, name in self.rejections:
            same = self.exact.get(name) if name else None
            written = f'; write it as .. _`{name}`: {same.url}' if same and same.url else None
            if written and message.endswith(written):  # the fix would repeat a row
                message = (f'{message[:-len(written)]}; line {same.line} has that row already, '
                           f'.. _`{name}`: {same.url}: delete this line')
            key = fold(name) if name and len(name) <= _MAX_SUGGESTED else ''
            if key and key not in self.names:
                rejected.setdefault(key, line)
                message += f'; until then, pages that name 「{_shown(name)}」 show it without a link'
            problems.append(Problem(line, message))
        return Registry(path, self.names, sorted(problems, key=lambda p: p.line), rejected,
                        tuple(self.redundant))

    def reject(self, line: int, message: str, name: str | None = None) -> None:
        """An error: the row is skipped; *name* is the name it was meant for."""
        self.rejections.append((line, message, name))

    def add(self, card: Card, same: Card | None = None) -> None:
        """A good row.  *same*: the card an indirect row names (*card* has its link)."""
        first = self.exact.get(card.name)
        if first is not None:
            owner = self.names[card.key]
            if card.same_link(first):
                self.redundant.append(card.line)
                self.problems.append(Problem(card.line, (
                    f'duplicate row: line {first.line} has 「{card.name}」 with the same link; '
                    'remove this row (make fix does)'), 'note'))
            elif card.only_scheme_differs(first):
                http, https = (first, card) if first.url.startswith('http:') else (card, first)
                self.redundant.append(http.line)
                self.problems.append(Problem(card.line, (
                    f'「{card.name}」 has two rows whose links differ in their scheme alone: line '
                    f'{http.line} links {http.url}, line {https.line} the same page over https; '
                    f'remove line {http.line} (make fix does)'), 'note'))
            else:
                self.problems.append(Problem(card.line, (
                    f'「{card.name}」 has two rows with different links: line {first.line} links '
                    f'{self.link(first)}, this row {self.link(card)}; pages link '
                    f'{self.link(owner)}: keep the right row and remove the other'), 'warning'))
            return
        self.exact[card.name] = card
        owner = self.names.get(card.key)
        if owner is None:
            self.names[card.key] = same or card
            if same is None:
                self.add_aliases(card)
            return
        if same is not None and same is not owner:
            self.problems.append(Problem(card.line, (
                f'「{card.name}」 is a spelling of line {owner.line}\'s 「{owner.name}」, but the '
                f'row points at 「{same.name}」 (line {same.line}); pages link '
                f'{self.link(owner)}: keep the right row and remove the other'), 'warning'))
            return
        alias = next(((lang, a) for lang, a in owner.aliases if fold(a) == card.key), None)
        if fold(owner.name) == card.key:
            spelled = f'spells line {owner.line}\'s card 「{owner.name}」 another way'
        elif alias is not None:
            spelled = (f'spells 「{alias[1]}」, the {alias[0]} name of line {owner.line}\'s card '
                       f'「{owner.name}」, another way')
        else:
            spelled = f'spells a name of line {owner.line}\'s card 「{owner.name}」 another way'
        unused = ('' if self.link(card) == self.link(owner) else
                  f' (this row\'s {self.link(card)} is not used)')
        self.problems.append(Problem(card.line, (
            f'「{card.name}」 {spelled}: both spellings link that card, at {self.link(owner)}'
            f'{unused}; keep both rows while pages write both spellings'),
            'note', 'registry-alias'))

    def add_aliases(self, card: Card) -> None:
        for lang, alias in card.aliases:
            owner = self.names.setdefault(fold(alias), card)
            if owner is not card:
                self.problems.append(Problem(card.line, (
                    f'the {lang} alias 「{alias}」 is already a name of line {owner.line}\'s card '
                    f'「{owner.name}」 and links that card, not this one: remove the alias '
                    'or correct the other row'), 'warning'))

    def link(self, card: Card) -> str:
        return self.urls.url(card) + (' (a series)' if card.kind == 'series' else '')


# -- TSV ----------------------------------------------------------------------------

def _parse_tsv(lines: list[str], undecodable: dict[int, str], rows: _Rows) -> None:
    for lineno, raw in enumerate(lines, start=1):
        if not raw.strip() or raw.lstrip().startswith('#'):
            continue
        cols = [c.strip() for c in raw.split('\t')]
        cols += [''] * (5 - len(cols))
        kind, name, ident, url, aliases = cols[:5]
        problem = (_too_long(raw) or undecodable.get(lineno) or _control_problem(raw))
        if problem:
            shown = _without_controls(name)
            rows.reject(lineno, problem, None if lineno in undecodable or len(raw) > MAX_ROW
                        else shown)
            continue
        if len(cols) > 5:
            rows.reject(lineno, f'row has {len(cols)} columns; a row is kind, name, id, url, '
                                'aliases separated by tabs', name)
            continue
        if kind not in KINDS:
            rows.reject(lineno, f'unknown kind {_shown(kind)!r}; the first column is "card" or '
                                '"series" (columns are separated by tabs)', name)
            continue
        problem = _check_name(name) or _check_url(url) or _check_id(ident)
        parsed_aliases = _parse_aliases(aliases)
        if problem is None and parsed_aliases is None:
            problem = (f'bad aliases {_shown(aliases)!r}; write lang=name pairs separated '
                       'by ";", e.g. zh_TW=旋風;en=Mystical Space Typhoon')
        if problem:
            rows.reject(lineno, problem, name)
            continue
        rows.add(Card(name, kind, lineno, int(ident) if ident else None, url or None,
                      parsed_aliases))


def _check_name(name: str) -> str | None:
    if not name:
        return 'empty card name; give the name pages write inside 「`…`_」'
    if '`' in name:
        return f'card name 「{_shown(name)}」 has backquotes; remove them'
    return None


def _is_http(url: str) -> bool:
    """Whether *url* is an http(s) URL the site may link (:mod:`handbook.core.url_policy`)."""
    return _url_problem(url) is None


def _url_problem(url: str) -> str | None:
    """The URL policy's verdict on a registry URL.  A space inside it is
    allowed: legacy link files hold card names with spaces in their URLs
    (``https://ygocdb.com/?search=No.39 希望皇 霍普``), which browsers send
    as ``%20``."""
    return url_policy.absolute_problem(url.replace(' ', '%20'))


def _check_url(url: str) -> str | None:
    problem = _url_problem(url) if url else None
    if problem is None:
        return None
    if problem.startswith('is a '):  # another scheme
        problem = 'is not an http(s) URL'
    return (f'URL {_shown(url)!r} {problem}, so it is never a link; '
            'use https://… or leave it empty')


def _check_id(ident: str) -> str | None:
    if ident and not (ident.isascii() and ident.isdigit() and int(ident) > 0):
        return (f'card id {_shown(ident)!r} is not a positive integer; use the database id '
                'or leave it empty')
    return None


def _parse_aliases(text: str) -> tuple[tuple[str, str], ...] | None:
    if not text:
        return ()
    out = []
    for item in text.split(';'):
        lang, sep, name = item.partition('=')
        if not sep or not lang.strip() or not name.strip():
            return None
        out.append((lang.strip(), name.strip()))
    return tuple(out)


# -- legacy link definitions ------------------------------------------------------------

@frozen_record
class _Target:
    """A row docutils reads as a hyperlink target."""

    name: str
    uri: str  # '' for none
    refname: str | None = None  # the name an indirect row points at
    written: str = ''  # the URL as written, where a line of it holds a space docutils drops


def _parse_legacy(lines: list[str], undecodable: dict[int, str], rows: _Rows) -> None:
    indirect: list[tuple[int, _Target]] = []
    for lineno, block in _blocks(lines):
        row = ' '.join(line.strip() for line in block)
        problem = _too_long(row) or next(
            (undecodable[n] for n in range(lineno, lineno + len(block)) if n in undecodable), None)
        if problem:
            target = None if len(row) > MAX_ROW else _target(block, diagnose=False)[0]
            rows.reject(lineno, problem, target.name if target and '\ufffd' not in target.name
                        else None)
            continue
        target, problem, name = _target(block)
        if problem is None:
            problem = _check_name(target.name) or _uri_problem(target, row)
            name = target.name
        if problem:
            rows.reject(lineno, problem, name)
        elif target.refname is not None:
            indirect.append((lineno, target))
        else:
            kind = 'series' if 'search=' in target.uri else 'card'
            rows.add(Card(target.name, kind, lineno, url=target.uri))
            # a hostile-input round trip: …/a b linked …/ab unsaid (a repeated row's
            # fix, its removal, is said already)
            if target.written and lineno not in rows.redundant:
                rows.problems.append(Problem(lineno, (
                    f'URL {_shown(target.written)!r} holds a space, which reStructuredText '
                    f'drops from a link definition, so it links {_shown(target.uri)!r}: write '
                    '%20 for each space it means, or delete them'), 'note'))
    # indirect rows, once the rows they name are known (a chain resolves in turns)
    while indirect:
        waiting = []
        for lineno, target in indirect:
            card = rows.names.get(fold(target.refname))
            if card is None:
                waiting.append((lineno, target))
            else:
                rows.add(Card(target.name, card.kind, lineno, url=card.url), same=card)
        if len(waiting) == len(indirect):
            for lineno, target in waiting:
                rows.reject(lineno, f'the row points at 「{_shown(target.refname)}」 (an indirect '
                                    'link), which no row defines; give the row its own URL: '
                                    f'.. _`{_shown(target.name)}`: https://…', target.name)
            break
        indirect = waiting


def _blocks(lines: list[str]) -> Iterator[tuple[int, list[str]]]:
    """The rows meant as link definitions and the lines of text, each
    ``(line, its lines)`` (a row with its indented continuation lines, as
    docutils reads them); comments and directives are left out."""
    state = None  # 'row' or 'comment' (a comment or directive, with its indented lines)
    current: tuple[int, list[str]] | None = None
    for lineno, raw in enumerate(lines, start=1):
        if not raw.strip():
            state = None if state == 'row' else state
            continue
        if raw[0] in ' \t' and state is not None:
            if state == 'row':
                current[1].append(raw)
            continue
        if current is not None:
            yield current
            current = None
        if _COMMENT.match(raw) and not (_ROW_START.match(raw) or _SPACE_AFTER_UNDERSCORE.match(raw)):
            state = 'comment'
        else:
            current, state = (lineno, [raw]), 'row'
    if current is not None:
        yield current


def _target(block: list[str], diagnose: bool = True
            ) -> tuple[_Target | None, str | None, str | None]:
    """The target a row defines, else what is wrong (with the corrected row
    when there is one) and the name it was meant for.  ``diagnose=False``
    only tells whether it is a target."""
    row = ' '.join(line.strip() for line in block)
    control = _control_problem(row)
    if control:
        if not diagnose:
            return None, control, None
        fixed = _without_controls(row)
        target = _target([fixed], diagnose=False)[0]
        return (None, control + (f'; write it as {_shown(fixed, 200)}' if _good(fixed) else ''),
                target.name if target else None)
    start = _ROW_START.match(block[0])
    rest = [_escape2null(block[0][start.end():] if start else ''),
            *(_escape2null(ln) for ln in block[1:])]
    if start is None or rest[0].startswith('_'):
        if not diagnose:
            return None, 'not a target', None
        if start is None:
            return None, *_not_a_row(row)
        return None, ('an anonymous link target (.. __: URL) names no card; a row is '
                      '.. _`卡名`: https://…'), None
    escaped, used = rest[0], 0
    while (match := _TARGET.match(escaped)) is None:
        used += 1
        if used == len(rest):
            return (None, 'not a target', None) if not diagnose else (None, *_not_a_row(row))
        escaped += rest[used]
    name = ' '.join(_unescape(match['name']).split())
    uri_block = [(rest[used] + ' ')[match.end() - len(escaped) - 1:].strip(), *rest[used + 1:]]
    if '`' in name:
        if not diagnose:
            return None, 'not a target', None
        fixed = f'.. _`{name.replace("`", "")}`: {_unescape(" ".join(uri_block))}'
        return None, _message('unbalanced backquotes', fixed, row), name.replace('`', '')
    if uri_block[-1].strip().endswith('_'):
        reference = ' '.join(' '.join(line.strip() for line in uri_block).split())
        ref = _REFERENCE.match(reference)
        if ref:
            return _Target(name, '', _unescape(ref['simple'] or ref['phrase'])), None, None
    parts = ' '.join(uri_block).split('\x00 ')
    uri = ' '.join(''.join(_unescape(part).split()) for part in parts)
    # a space inside a line of it, which docutils drops as it drops line breaks
    spaced = len(parts) == 1 and any(len(line.split()) > 1 for line in uri_block)
    return _Target(name, uri, written=' '.join(_unescape(line.strip()) for line in uri_block
                                               if line.strip()) if spaced else ''), None, None


def _good(row: str) -> bool:
    """Whether *row* is a good registry row."""
    target, problem, _ = _target([row], diagnose=False)
    return problem is None and bool(target.name) and (target.refname is not None or
                                                      _is_http(target.uri))


def _not_a_row(row: str) -> tuple[str, str | None]:
    """Why *row*, a row or a line of text, is not a link definition; the name
    it was meant for."""
    body = row.split('_', 1)[1] if '_' in row else row
    fixed = None
    if _NO_SPACE_AFTER_DOTS.match(row):
        cause, fixed = 'no space between `..` and `_`', '.. ' + row[2:]
    elif _SPACE_AFTER_UNDERSCORE.match(row):
        cause, fixed = 'a space after `.. _`', re.sub(r'^(\.\.[ ]+_)[ ]+', r'\1', row)
    elif not _ROW_START.match(row):
        cause = 'a line of text (a row starts with `.. _`)'
    elif re.match(r'`\s*`', body):
        cause = 'the name is empty'
    elif body.count('`') % 2:
        cause = 'unbalanced backquotes'
    elif re.match(r'`\s', body) or re.search(r'\s`\s?:', body):
        cause = 'a space inside the backquotes'
    elif ':' not in body.replace('://', ''):
        cause = 'no `:` after the name'
    else:
        cause = 'no space after the `:` that ends the name'
    if fixed is None or not _good(fixed):
        fixed, name = _derived_row(row)
    else:
        name = _target([fixed], diagnose=False)[0].name
    if fixed is None and not _ROW_START.match(row) and not _COMMENT.match(row) \
            and not _ROW_START.match(f'.. {row}'):
        return (f'not a link definition: {cause}; remove the line, or make it a comment: '
                f'{_shown(f".. {row}", 200)}'), None
    return _message(cause, fixed, row), name


def _derived_row(row: str) -> tuple[str | None, str | None]:
    """The row as it was probably meant, from its name and its http(s) URL."""
    found = _HTTP.search(row)
    if found is None:
        return None, None
    head = re.sub(r'^(?:\.\.)?\s*_?', '', row[:found.start()])
    name = ' '.join(head.replace('`', ' ').strip().rstrip(':').split())
    if not name:
        return None, None
    return f'.. _`{name}`: {row[found.start():].strip()}', name


def _message(cause: str, fixed: str | None, row: str) -> str:
    """The text of a row that is no link definition: the cause, and the
    corrected row when there is one that differs from the row and works."""
    text = f'not a link definition: {cause}'
    if fixed is not None and fixed != row and _good(fixed):
        return f'{text}; write it as {_shown(fixed, 200)}'
    return f'{text}; a row is .. _`卡名`: https://…'


#: the first address of a row, and what follows it after a space: a second
#: address, or a second row (two rows on one line), not words of the same
#: address (``?search=No.39 希望皇``) nor one a query carries (``?u=https://…``)
_SECOND_URL = re.compile(r'(?P<first>https?://\S*(?:\s+(?!https?://|\.\.\s+_)\S+)*?)'
                         r'\s+(?:https?://|\.\.\s+_)', re.IGNORECASE)


def _uri_problem(target: _Target, row: str) -> str | None:
    """What is wrong with a target's URL, with the corrected row if there is one."""
    second = _SECOND_URL.search(row) if target.refname is None else None
    if second is not None and _is_http(second['first']):
        after = row[second.end('first'):].strip()
        return (f'the row holds a second address or row after its URL ({_shown(after, 60)!r}), '
                'which the link would join to it (a second row goes on a line of its own); '
                f'write it as .. _`{_shown(target.name)}`: {_shown(second["first"], 200)}')
    if target.refname is not None or _is_http(target.uri):
        return None
    name = target.name
    if not target.uri:
        return ('the row has no URL after the name (docutils reads it as a link to what '
                f'follows it); write .. _`{_shown(name)}`: https://…')
    text = f'the URL {_shown(target.uri)!r} is not http(s), so it is never a link'
    body = row.split('_', 1)[1]
    colon = re.search(r':\s+(?=https?://)', body)
    if _HOST_FIRST.match(target.uri):
        fixed = f'.. _`{name}`: https://{target.uri.removeprefix("//")}'
    elif colon and not body.startswith('`'):
        fixed = f'.. _`{body[:colon.start()].strip()}`: {body[colon.end():]}'
        text += ' (a name that holds ": " ends at the first one: put the name in backquotes)'
    else:
        fixed = None
    if fixed is not None and fixed != row and _good(fixed):
        return f'{text}; write it as {_shown(fixed, 200)}'
    return f'{text}; a row links https://…'
