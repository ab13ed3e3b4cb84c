"""The card registry: every card and series name the handbook links to.

The registry is a file named by the ``handbook_cards`` config value (relative
to the configuration directory; ``-D handbook_cards=path`` overrides it).  It
is read once per build into immutable :class:`Card` records.  Two formats are
understood, chosen by the file's content:

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

A name is looked up *folded*: Unicode NFKC (full-width letters, digits and
punctuation become half-width), case-folded, with whitespace and middle dots
(``·``, ``・``) removed, so ``真龙剑皇卓辉星·拼图`` finds ``真龙剑皇 卓辉星·拼图``.
Two registry names that fold to the same key are a duplicate.

Every bad row is reported at ``registry:line`` with what to do about it; the
bad row is skipped and the rest of the registry is used.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import unicodedata
from collections.abc import Iterator, Mapping
from pathlib import Path
from urllib.parse import quote, urlsplit

KINDS = ('card', 'series')

#: characters that do not distinguish two names: spacing and middle dots
_INSIGNIFICANT = re.compile(r'[\s·・･‧]+')
#: one legacy link definition: .. _`name`: url   or   .. _name: url
_LEGACY = re.compile(r'^\.\.\s+_(?:`(?P<quoted>[^`]*)`|(?P<plain>[^:`]*)):\s*(?P<url>\S*)\s*$')


def fold(name: str) -> str:
    """The lookup key of a card name (see the module docstring)."""
    return _INSIGNIFICANT.sub('', unicodedata.normalize('NFKC', name)).casefold()


@dataclasses.dataclass(frozen=True, slots=True)
class Card:
    """One registry row."""

    name: str
    kind: str  # 'card' or 'series'
    line: int
    id: int | None = None
    url: str | None = None
    aliases: tuple[tuple[str, str], ...] = ()

    @property
    def key(self) -> str:
        return fold(self.name)

    def name_in(self, language: str | None) -> str:
        """The card's name in *language*: its alias there, else its name."""
        return next((alias for lang, alias in self.aliases if lang == language), self.name)


@dataclasses.dataclass(frozen=True, slots=True)
class Problem:
    """A bad registry row: where it is and what is wrong with it."""

    line: int
    message: str


@dataclasses.dataclass(frozen=True, slots=True)
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


class Registry(Mapping[str, Card]):
    """The cards of one registry file, by folded name (aliases included)."""

    def __init__(self, path: Path, cards: list[Card], problems: list[Problem]) -> None:
        self.path = path
        self.problems = problems
        self._cards: dict[str, Card] = {}
        for card in cards:
            for name in (card.name, *(alias for _, alias in card.aliases)):
                self._cards.setdefault(fold(name), card)

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

    def suggest(self, name: str, limit: int = 3, language: str | None = None) -> list[str]:
        """Registry names closest to *name*, best first; names in *language*
        (a card's alias there) where the card has one."""
        by_key = {fold(card.name_in(language)): card.name_in(language)
                  for card in self._cards.values()}
        keys = difflib.get_close_matches(fold(name), by_key, n=limit, cutoff=0.5)
        return [by_key[k] for k in keys]

    def fingerprint(self) -> dict[str, tuple]:
        """What a page's links depend on, per lookup key: compared between
        builds to find the pages whose links changed."""
        return {key: (card.name, card.kind, card.id, card.url)
                for key, card in self._cards.items()}


def load(path: Path) -> Registry:
    """Read a registry file of either format."""
    text = path.read_text(encoding='utf-8-sig')
    lines = text.splitlines()
    legacy = any(_LEGACY.match(ln.strip()) for ln in lines[:50] if ln.strip())
    cards, problems = (_parse_legacy if legacy else _parse_tsv)(lines)
    cards, duplicates = _without_duplicates(cards)
    return Registry(path, cards, sorted(problems + duplicates, key=lambda p: p.line))


def _parse_tsv(lines: list[str]) -> tuple[list[Card], list[Problem]]:
    cards, problems = [], []
    for lineno, raw in enumerate(lines, start=1):
        if not raw.strip() or raw.lstrip().startswith('#'):
            continue
        cols = [c.strip() for c in raw.split('\t')]
        cols += [''] * (5 - len(cols))
        if len(cols) > 5:
            problems.append(Problem(lineno, f'row has {len(cols)} columns; a row is '
                                    'kind, name, id, url, aliases separated by tabs'))
            continue
        kind, name, ident, url, aliases = cols
        if kind not in KINDS:
            problems.append(Problem(lineno, f'unknown kind {kind!r}; the first column '
                                    'is "card" or "series" (columns are separated by tabs)'))
            continue
        problem = _check_name(name) or _check_url(url) or _check_id(ident)
        parsed_aliases = _parse_aliases(aliases)
        if problem is None and parsed_aliases is None:
            problem = (f'bad aliases {aliases!r}; write lang=name pairs separated '
                       'by ";", e.g. zh_TW=旋風;en=Mystical Space Typhoon')
        if problem:
            problems.append(Problem(lineno, problem))
            continue
        cards.append(Card(name, kind, lineno, int(ident) if ident else None,
                          url or None, parsed_aliases))
    return cards, problems


def _parse_legacy(lines: list[str]) -> tuple[list[Card], list[Problem]]:
    cards, problems = [], []
    for lineno, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or (line.startswith('..') and not line.startswith('.. _')):
            continue  # blank line or comment
        m = _LEGACY.match(line)
        if not m:
            problems.append(Problem(lineno, 'not a link definition; write '
                                    '.. _`卡名`: https://…'))
            continue
        name = (m['quoted'] if m['quoted'] is not None else m['plain']).strip()
        url = m['url']
        problem = _check_name(name) or (_check_url(url) if url else
                                        'the link definition has no URL')
        if problem:
            problems.append(Problem(lineno, problem))
            continue
        kind = 'series' if 'search=' in url else 'card'
        cards.append(Card(name, kind, lineno, url=url))
    return cards, problems


def _check_name(name: str) -> str | None:
    if not name:
        return 'empty card name; give the name pages write inside 「`…`_」'
    if name != name.strip() or '`' in name:
        return f'card name {name!r} has stray spaces or backquotes; remove them'
    return None


def _check_url(url: str) -> str | None:
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ('http', 'https') or not parts.netloc:
        return f'URL {url!r} is not an http(s) URL; use https://… or leave it empty'
    return None


def _check_id(ident: str) -> str | None:
    if ident and not (ident.isascii() and ident.isdigit() and int(ident) > 0):
        return f'card id {ident!r} is not a positive integer; use the database id or leave it empty'
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


def _without_duplicates(cards: list[Card]) -> tuple[list[Card], list[Problem]]:
    seen: dict[str, Card] = {}
    kept, problems = [], []
    for card in cards:
        names = (card.name, *(alias for _, alias in card.aliases))
        clash = next((seen[fold(n)] for n in names if fold(n) in seen), None)
        if clash is not None:
            how = '' if clash.name == card.name else \
                ' (the names differ only in spacing, width or case)'
            problems.append(Problem(card.line, f'duplicate card 「{card.name}」: line {clash.line} '
                                    f'already has 「{clash.name}」{how}; keep one row'))
            continue
        for n in names:
            seen[fold(n)] = card
        kept.append(card)
    return kept, problems
