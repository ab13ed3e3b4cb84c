#!/usr/bin/env python3
"""Catalogs whose strings are closed, before anything rewrites them.

Babel reads ``msgstr "…調整中。`` (no closing quote) without its last
character, and writes it back so: ``make intl-update`` (sphinx-intl) and
``make intl-zh_TW`` cut a translation by hand without a word (a round trip).
So they first look for such a string in every catalog of the folder, and
stop at the first, at its line (the build says it too:
:func:`handbook.translations.catalogs.unclosed_string`).

Usage: ``python tools/po_strings.py LOCALEDIR``; exit status 1 where one is found.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / '_ext'))

from handbook.translations.catalogs import unclosed_string  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    found = 0
    for path in sorted(Path(args[0]).rglob('*.po')) if args else ():
        line = unclosed_string(path.read_text(encoding='utf-8', errors='replace'))
        if line is not None:
            print(f'{path}:{line}: a string is not closed: end it with ", then run this again '
                  '(the catalogs are left as they are)', file=sys.stderr)
            found += 1
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main())
