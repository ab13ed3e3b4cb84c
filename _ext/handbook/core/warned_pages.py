"""A page that warned is read again until it no longer warns.

Sphinx reports a page's problems when it reads or writes the page.  The
next build reads and writes the pages that changed, so a page whose
problem was left as it was says nothing more: ``make html`` run again
without a change succeeded (``-W``) and published what the build before
had refused, and ``make preview`` showed a problem once, then never again.
A clean build, as CI runs it, still failed.

So every page that a warning or an error named in a build (its location,
``path:line``: the page's source, a file it includes, or the catalog of its
translation) is noted in the doctree folder (``warned-pages.json``), and
read again by the next build (``env-get-outdated``), which says its
problems again, or notes the page no more once they are fixed.  Notes are
no warnings: a page with notes only is not read again.  The logging
handler that notes them is the build's: added when the build begins
(``env-get-outdated``), removed when it ends (``build-finished``, also
after an error).
"""

from __future__ import annotations

import json
import logging
import os
import re
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes
from docutils.utils import get_source_line
from sphinx.util.i18n import docname_to_domain
from sphinx.util.logging import is_suppressed_warning

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

#: the file, in the doctree folder, of the pages that warned in the last build
NOTED = 'warned-pages.json'
#: the build's handle on the handler that notes them (see :func:`setup`)
HANDLER = 'warned-pages'
#: the file of a location ``path:line…``
_PATH = re.compile(r'^(.+?):\d+(?::|$)')


class Warned(logging.Handler):
    """Notes the source paths of the warnings and errors shown (not those
    ``suppress_warnings`` silences).  It leaves the records as they are:
    Sphinx's own handler reads them too (its filters, which change them,
    are not run twice)."""

    def __init__(self, app: Sphinx) -> None:
        super().__init__(logging.WARNING)
        self.config = app.config
        self.paths: set[str] = set()

    def emit(self, record: logging.LogRecord) -> None:
        if is_suppressed_warning(getattr(record, 'type', ''), getattr(record, 'subtype', ''),
                                 self.config.suppress_warnings):
            return
        location = getattr(record, 'location', None)  # as given, or as Sphinx wrote it
        if isinstance(location, nodes.Node):
            location = get_source_line(location)[0]
        elif isinstance(location, tuple):
            location = location[0]
        if isinstance(location, str) and location:
            # path:line, or path:line:<translated>:line (a translated message's)
            found = _PATH.match(location)
            self.paths.add(found[1] if found else location)


def read_again(build: dict[str, Warned | None], app: Sphinx, env: BuildEnvironment,
               added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    """``env-get-outdated``, where a build begins: the pages that warned in
    the last build; and the warnings of this one noted from now on (the
    handler kept in *build*)."""
    handler = Warned(app)
    if build.setdefault(HANDLER, handler) is handler:
        logging.getLogger('sphinx').addHandler(handler)
    return noted(app, env, changed | added)


def noted(app: Sphinx, env: BuildEnvironment, read: set[str]) -> list[str]:
    """The pages the last build noted that exist and are not in *read*."""
    try:
        found = json.loads(Path(app.doctreedir, NOTED).read_text(encoding='utf-8'))
    except (OSError, ValueError):
        return []
    return sorted(set(found) & env.found_docs - read) if isinstance(found, list) else []


def pages_of(app: Sphinx, path: str) -> set[str]:
    """The pages a warning's *path* is of: a page's source or name, a file
    pages include (``.. include::``), or the catalog of pages' translation
    (``…/LC_MESSAGES/<catalog>.po``: a page's own, or its folder's where
    ``gettext_compact`` is on)."""
    env = app.env
    if path in env.found_docs:
        return {path}
    if path.endswith('.po') and '/LC_MESSAGES/' in path:
        catalog = path.rpartition('/LC_MESSAGES/')[2].removesuffix('.po')
        compact = app.config.gettext_compact
        return {docname for docname in env.found_docs
                if docname_to_domain(docname, compact) == catalog}
    path = os.path.abspath(path)  # Sphinx may write it relative to the working folder
    docname = env.path2doc(path)
    if docname is not None:
        return {docname}
    return {docname for docname, files in env.dependencies.items()
            if any(Path(env.srcdir, file) == Path(path) for file in files)}


def finish(build: dict[str, Warned | None], app: Sphinx, exception: Exception | None) -> None:
    """``build-finished``: the pages that warned, for the next build; the
    handler removed."""
    handler = build.pop(HANDLER, None)  # the next build of this application adds its own
    if handler is None:
        return
    logging.getLogger('sphinx').removeHandler(handler)
    env = app.env
    warned = {docname for path in handler.paths for docname in pages_of(app, path)}
    if exception is not None:  # an unfinished build: what it did not read still warns
        warned |= set(noted(app, env, set()))
    target = Path(app.doctreedir, NOTED)
    if warned:
        target.write_text(json.dumps(sorted(warned), ensure_ascii=False), encoding='utf-8')
    else:
        target.unlink(missing_ok=True)


def setup(app: Sphinx) -> dict[str, Any]:
    # the handle is the application's, as its build is (the store loads this
    # extension: it keeps no handle in the store, which would import it back)
    build: dict[str, Warned | None] = {}
    app.connect('env-get-outdated', partial(read_again, build))
    app.connect('build-finished', partial(finish, build), priority=900)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
