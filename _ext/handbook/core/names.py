"""Names: the one folding function for card names, in Python and in the browser.

A card name is compared *folded*: Unicode NFKC (full-width letters, digits
and punctuation become half-width, compatibility forms their plain form),
whitespace and middle dots removed, lower case.  So ``真龙剑皇卓辉星·拼图``,
``真龙剑皇 卓辉星・拼图`` and ``ＰＳＹ骨架王·Λ`` / ``psy骨架王Λ`` fold alike.

:func:`fold` is the registry's lookup key, the card index's and the ruling
permalinks' card key, and the search index's word for a card name.  The
browser folds queries the same way: ``core/names.js`` is this function in
JavaScript (NFKC, :data:`SEPARATOR_CLASS` removed, lower case), the build
writing the class into it; the search scripts are served with it
(JavaScript's ``toLowerCase`` and Python's ``str.lower`` agree; Python's
``casefold`` would not, so it is not used).
"""

from __future__ import annotations

import re
import unicodedata

#: what never distinguishes two names: whitespace (Python's and JavaScript's
#: ``\s`` together, spelled out, as the two differ) and middle dots; a regex
#: character class in the syntax both languages share
SEPARATOR_CLASS = (r'[\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029'
                   r'\u202f\u205f\u3000\ufeff\u00b7\u30fb\uff65\u2027]')
_SEPARATORS = re.compile(SEPARATOR_CLASS + '+')


def fold(name: str) -> str:
    """The folded form of a card name (see the module docstring)."""
    return _SEPARATORS.sub('', unicodedata.normalize('NFKC', name)).lower()
