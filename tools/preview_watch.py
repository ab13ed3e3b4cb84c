#!/usr/bin/env python3
"""What ``make preview`` watches: sphinx-autobuild's ``--watch`` and ``--re-ignore``.

sphinx-autobuild (watchfiles) watches a file by the file it finds at the
start: an editor that saves by writing a new file and renaming it over the
old one (vim, VS Code, ``sed -i``) ends the watch at its first save (a
preview's round trip: the registry's second save rebuilt nothing, nor a row
put back).  So a file is watched through its folder, and whatever else that
folder holds is ignored, but for the other paths watched: ``conf.py`` and
the registry in this project's folder, and its ``source/``, ``_ext/`` …
beside them.  A folder that does not exist (the catalogs before ``make
intl-update``) is not watched; a file inside a watched folder needs nothing
more.

Usage: ``python3 tools/preview_watch.py [--file PATH]… [--folder PATH]…
[--source SOURCEDIR]``
prints the arguments, quoted for the shell; the Makefile calls it.
Standard library only.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from pathlib import Path


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def arguments(files: list[Path], folders: list[Path], source: Path | None = None) -> list[str]:
    """The arguments that watch *files* (through their folders) and
    *folders*, beside *source*, the pages' folder (sphinx-autobuild watches it)."""
    pages = [source.resolve()] if source else []
    folders = [f.resolve() for f in folders if f.is_dir()]
    files = [f.resolve() for f in files]
    # the folders of the files that no folder watched holds
    parents = sorted({f.parent for f in files
                      if not any(_inside(f.parent, folder) for folder in [*folders, *pages])})
    out = []
    for folder in sorted({*parents, *(f for f in folders
                                       if not any(_inside(f, p) for p in parents))}):
        out += ['--watch', str(folder)]
    for parent in parents:
        kept = [re.escape(f.relative_to(parent).as_posix()) + '$' for f in files
                if f.parent == parent]
        kept += [re.escape(f.relative_to(parent).as_posix()) + '(?:/|$)'
                 for f in [*folders, *pages] if parent in f.parents]
        out += ['--re-ignore', f'^{re.escape(parent.as_posix())}/(?!{"|".join(kept)})']
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--file', type=Path, action='append', default=[],
                        help='a file to watch (conf.py, the registry)')
    parser.add_argument('--folder', type=Path, action='append', default=[],
                        help='a folder to watch, all it holds')
    parser.add_argument('--source', type=Path, help="the pages' folder (watched already)")
    args = parser.parse_args(argv)
    print(shlex.join(arguments(args.file, args.folder, args.source)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
