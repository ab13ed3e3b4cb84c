"""A page removed leaves no file.

Sphinx forgets a page whose source is gone, but leaves the files it wrote
for it in the output folder: its HTML, its source's copy in ``_sources/``.
An incremental build then published a page that a clean build has not
(``make html`` publishes the output folder as it is,
:mod:`handbook.publishing.published`).  The pages removed are noted before
the build reads (``env-get-outdated``), and their files are removed from
the output folder once the build succeeded.  (A concern that writes files
of its own per page removes them itself: ``_related/<page>.js``,
:mod:`handbook.listings.related_sections`.)
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment


def note_removed(noted: set[str], app: Sphinx, env: BuildEnvironment, added: set[str],
                 changed: set[str], removed: set[str]) -> list[str]:
    """``env-get-outdated``: the pages whose source is gone, *noted* for this build."""
    noted.update(removed)
    return []


def remove_files(noted: set[str], app: Sphinx, exception: Exception | None) -> None:
    """``build-finished``: the files Sphinx wrote for those pages, out of the
    output folder (an HTML build's)."""
    removed = noted - app.env.found_docs
    noted.clear()  # the next build of this application notes its own
    if exception is not None or not removed or app.builder.format != 'html':
        return
    copies = [f'{suffix}{app.config.html_sourcelink_suffix}' for suffix in app.config.source_suffix]
    for docname in removed:
        Path(app.builder.get_outfilename(docname)).unlink(missing_ok=True)
        for copy in copies:
            Path(app.outdir, '_sources', f'{docname}{copy}').unlink(missing_ok=True)


def setup(app: Sphinx) -> dict[str, Any]:
    # the note is the application's, as its build is (the store loads this
    # extension: it keeps no note in the store, which would import it back)
    noted: set[str] = set()
    app.connect('env-get-outdated', partial(note_removed, noted))
    app.connect('build-finished', partial(remove_files, noted))
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
