#!/usr/bin/env python3
"""The settings a build of a handbook uses, for the targets that do not build it.

``make preview`` (the registry it watches), ``make intl-zh_TW`` (the registry
whose zh_TW aliases it refreshes, the catalogs it writes) and ``make linkcheck-changed`` (the
registry and the FAQ address whose links it checks) work on the registry and
settings that ``make html`` would use for the same ``SOURCEDIR`` and
``CONFDIR``, first to last:

1. ``CARDS=`` (``--cards``; relative to the current folder);
2. the handbook's settings file, ``<SOURCEDIR>/handbook.toml``
   (:func:`handbook.core.settings.merged`, the loader the build uses);
3. ``conf.py``'s ``handbook_*`` values (relative to ``CONFDIR``);
4. the extension's default, ``cards.tsv`` beside ``conf.py``.

Usage: ``python3 tools/handbook_settings.py --srcdir SOURCEDIR --confdir
CONFDIR [--cards CARDS] [NAME]`` prints the value of the config value NAME
(default ``handbook_cards``; it and ``handbook_locale_dir``, the catalogs'
folder, as absolute paths); the Makefile calls it.

Standard library only, like ``make linkcheck-changed``, which runs without
the venv: ``conf.py`` is run as Sphinx runs it
(:func:`handbook.core.settings.conf_values`, as ``tools/autolink.py`` and
``tools/zh_tw.py`` read it), and the settings module reads its file
without Sphinx (it imports Sphinx's logging only for a build's messages).
Offline; writes nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / '_ext'))

from handbook.core import settings  # noqa: E402  (reading it needs no Sphinx)

#: the registry where neither CARDS, the settings file nor conf.py names one
DEFAULT_CARDS = 'cards.tsv'
#: the catalogs' folder where neither the settings file nor conf.py names one
DEFAULT_LOCALE_DIR = 'locale'


def resolve(srcdir: str | os.PathLike[str], confdir: str | os.PathLike[str],
            cards: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """conf.py's values (*confdir*, none without it) under the settings file
    of the handbook in *srcdir* and under *cards*: what a build uses, with
    ``handbook_cards`` as an absolute path."""
    values = settings.merged(settings.conf_values(confdir), srcdir)
    registry = Path(cards) if cards else Path(confdir) / values.get('handbook_cards',
                                                                       DEFAULT_CARDS)
    values['handbook_cards'] = str(registry.resolve())
    # the settings file's is absolute already; conf.py's relative to it
    values['handbook_locale_dir'] = str((Path(confdir) / values.get(
        'handbook_locale_dir', DEFAULT_LOCALE_DIR)).resolve())
    return values


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('name', nargs='?', default='handbook_cards',
                        help='the config value to print (default handbook_cards)')
    parser.add_argument('--srcdir', type=Path, default=Path('source'),
                        help='the pages and their handbook.toml (SOURCEDIR; default source)')
    parser.add_argument('--confdir', type=Path, default=Path('.'),
                        help='the folder of conf.py (CONFDIR; default .)')
    parser.add_argument('--cards', type=Path, help='the registry given on the command line (CARDS)')
    args = parser.parse_args(argv)
    try:
        values = resolve(args.srcdir, args.confdir, args.cards)
    except Exception as err:  # noqa: BLE001  (a conf.py that does not run)
        print(f'tools/handbook_settings.py: cannot read {args.confdir / "conf.py"}: '
              f'{type(err).__name__}: {err}', file=sys.stderr)
        return 2
    if args.name not in values:
        print(f'tools/handbook_settings.py: {args.name} is set neither in '
              f'{args.srcdir / settings.FILENAME} nor in conf.py', file=sys.stderr)
        return 1
    print(values[args.name])
    return 0


if __name__ == '__main__':
    sys.exit(main())
