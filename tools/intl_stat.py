"""How much of each page is translated: per language and catalog, the share
of messages a translated build uses.

Usage (``make intl-stat [LANGUAGES="zh_TW en"]``)::

    python tools/intl_stat.py [--locale-dir locale] [LANGUAGE ...]

Without languages, every language folder of the locale directory.  A message
counts as translated when its msgstr is not empty and it is not fuzzy (a
build uses exactly those; ``gettext_allow_fuzzy_translations`` is off).
``machine`` are the translated messages still flagged ``opencc``
(tools/zh_tw.py converted them, no one has reviewed them yet).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = ('translated', 'machine', 'fuzzy', 'untranslated')


def count(path: Path, language: str) -> Counter:
    with path.open('rb') as f:
        catalog = read_po(f, locale=language)
    counts: Counter = Counter()
    for message in catalog:
        if not message.id:
            continue  # the header
        counts['total'] += 1
        if not message.string:
            counts['untranslated'] += 1
        elif message.fuzzy:
            counts['fuzzy'] += 1
        else:
            counts['translated'] += 1
            counts['machine'] += 'opencc' in message.flags
    return counts


def row(language: str, name: str, counts: Counter) -> str:
    total = counts['total']
    share = f'{100 * counts["translated"] / total:5.1f}%' if total else '    -'
    cells = ''.join(f'{counts[c]:>14}' for c in COLUMNS)
    return f'{language:<10}{name:<22}{share:>8}{total:>7}{cells}'


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--locale-dir', type=Path, default=ROOT / 'locale')
    parser.add_argument('languages', nargs='*', help='default: every language folder')
    args = parser.parse_args(argv)
    if not args.locale_dir.is_dir():  # a locale_dir mistyped: said, no traceback
        print(f'no catalogs: {args.locale_dir} is not a folder; run make intl-update, or check '
              'locale_dir in the handbook.toml (LOCALEDIR=)', file=sys.stderr)
        return 1
    languages = args.languages or sorted(
        p.name for p in args.locale_dir.iterdir() if (p / 'LC_MESSAGES').is_dir())
    print(f'{"language":<10}{"catalog":<22}{"share":>8}{"total":>7}'
          + ''.join(f'{c:>14}' for c in COLUMNS))
    for language in languages:
        folder = args.locale_dir / language / 'LC_MESSAGES'
        catalogs = sorted(folder.rglob('*.po'))
        if not catalogs:
            print(f'{language:<10}no catalogs in {folder}: run make intl-update '
                  f'LANGUAGES={language}')
            continue
        total: Counter = Counter()
        for path in catalogs:
            counts = count(path, language)
            total += counts
            print(row(language, path.relative_to(folder).with_suffix('').as_posix(), counts))
        print(row(language, '(all)', total))
    return 0


if __name__ == '__main__':
    sys.exit(main())
