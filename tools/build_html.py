"""``make html``: build the site into a staging folder, then publish what changed.

Sphinx builds into the staging folder (the output folder of the Sphinx
arguments after ``--``); when the build succeeded, the published folder
(``--site``) is made the same as it, file by file, writing only the files
whose bytes changed; the build holds the build folder's lock (``--lock``)
from start to end.  What it guarantees, and why:
``_ext/handbook/publishing/published.py``.

Usage (the Makefile's): ``python tools/build_html.py --site _build/html
--lock _build/.lock -- -b html -W … -d _build/doctrees source
_build/staging/html``.  Exit status: Sphinx's (0, 1 for warnings, 2 for an
error), 2 when the folders cannot be written or the sweep fails.  The
process ends without the interpreter's teardown (:func:`end`).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / '_ext'))

from sphinx.cmd.build import get_parser, main as sphinx_build  # noqa: E402

from handbook.publishing.published import (  # noqa: E402
    Folders,
    PublishError,
    begin,
    failed,
    locked,
    publish,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog='tools/build_html.py', description=__doc__.split('\n')[0])
    parser.add_argument('--site', type=Path, required=True, help='the published folder')
    parser.add_argument('--lock', type=Path, required=True, help="the build folder's lock file")
    parser.add_argument('sphinx', nargs=argparse.REMAINDER,
                        help='-- and the arguments of sphinx-build')
    args = parser.parse_args(argv)
    sphinx_args = args.sphinx[1:] if args.sphinx[:1] == ['--'] else args.sphinx
    options = get_parser().parse_args(sphinx_args)
    staging = Path(options.outputdir)
    folders = Folders(args.site, staging,
                      Path(options.doctreedir) if options.doctreedir else staging / '.doctrees',
                      (Path(options.sourcedir), Path(options.confdir or options.sourcedir)))
    quiet = options.quiet or options.really_quiet
    try:
        with locked(args.lock, f'make html into {args.site}'):
            why = begin(folders)
            if why:
                print(f'make html: the last build into {args.site} {why}: building it from '
                      'scratch', file=sys.stderr)
            exception = False
            try:
                status = sphinx_build(sphinx_args)
            except SystemExit as exit_:  # a fault, said in one line (published.fault_as_one_line)
                status = exit_.code if isinstance(exit_.code, int) else 2
                exception = True
            if status:
                kept = failed(folders, exception=exception or status == 2)
                # what to do, for a CI log's reader too (a CI maintainer's round trip)
                # make check reads the pages, not a translation's catalogs (an adopter's
                # round trip was sent there for a catalog's errors)
                translated = any(d.startswith('language=') for d in options.define or ())
                where = ('each at its line with its fix' if translated
                         else 'make check lists each with its fix')
                print(f'make html: the build failed (the problems are above; {where}): '
                      f'the published site {args.site} is left as '
                      'it was' + ('' if kept else '; the next build starts from scratch'),
                      file=sys.stderr)
                return status
            sweep = publish(folders)
            if not quiet:
                print(f'published {args.site}: {len(sweep.written)} files written, '
                      f'{len(sweep.removed)} removed')
            return 0
    except PublishError as err:
        print(err, file=sys.stderr)
        return 2


def end(status: int) -> None:
    """End this process with *status* once its output is out, without
    freeing what the build kept one object at a time: the environment, the
    records and the doctrees are millions of objects, and the interpreter's
    teardown, freeing them, takes about a second after an edit of a large
    handbook's FAQ page (``make bench``), the editor waiting for it.  By
    then every file the build wrote is closed and every process it started
    has ended (the speed session joins them)."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to say it to
            stream.flush()
    os._exit(status)


if __name__ == '__main__':
    end(main())
