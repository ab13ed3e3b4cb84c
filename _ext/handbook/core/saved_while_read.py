"""A page saved while it was read is read again at the next build.

Sphinx notes when it read a page once it has parsed it, and reads the page
again when its file is newer than that.  A save that lands while the page is
parsed is older than the note: the next build found the page up to date and
the site kept the save before it until another edit (a preview's round trip:
two saves 0.7 s apart in ``make preview``, the second lost).

The file's modification time as the page is read (``source-read``) is kept
with its record (:mod:`handbook.store`: purged and merged with it); a page
whose file's time is not that time any more is read again
(``env-get-outdated``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from handbook.store import PAGE_READ, Contribution, store

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

#: the record's entry (``PageRecord.extra``), and the reading page's (``current_document``)
EXTRA = 'read_mtime'


def _mtime(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def note_time(app: Sphinx, docname: str, source: list[str]) -> None:
    """``source-read``: the time of the file read, for the page's record."""
    app.env.current_document[EXTRA] = _mtime(Path(app.env.doc2path(docname)))


def keep_time(app: Sphinx, page: Contribution) -> None:
    page.extra[EXTRA] = app.env.current_document.get(EXTRA)


def saved_since(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str],
                removed: set[str]) -> list[str]:
    """``env-get-outdated``: the pages whose file changed since it was read."""
    kept = store(env)
    again = []
    for docname in sorted(env.found_docs - added - changed - removed):
        record = kept.record(docname)
        read = record.extra.get(EXTRA) if record is not None else None
        if read is not None and _mtime(Path(env.doc2path(docname))) != read:
            again.append(docname)
    return again


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect('source-read', note_time, priority=100)  # before any handler changes it
    app.connect(PAGE_READ, keep_time)
    app.connect('env-get-outdated', saved_since)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
