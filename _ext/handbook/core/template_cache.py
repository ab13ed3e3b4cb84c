"""The theme's templates, compiled once and kept from build to build.

Jinja compiles every template a build renders (the theme's ``page.html``,
``layout.html``, ``base.html`` and their partials, the handbook's own) from
its source, at every build: 0.07 s of the 0.96 s of a rebuild that writes no
page, and as much of every edit previewed, on the benchmark corpus.

Jinja keeps what it compiled in a bytecode cache when its environment has one
(:class:`jinja2.FileSystemBytecodeCache`, public API): here a folder in the
doctree folder (:data:`FOLDER`), set on the builder's template environment
at ``builder-inited``.  A template is taken from it only when its source is
the one it was compiled from (Jinja compares a checksum of the source), and
only by the Python that compiled it; a cache written by another process is
moved into place whole (Jinja writes a temporary file), so the processes of a
parallel build can share it.  A folder that cannot be made or written leaves
the templates compiled as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from jinja2 import FileSystemBytecodeCache

if TYPE_CHECKING:
    from sphinx.application import Sphinx

#: the folder, in the doctree folder, that keeps the compiled templates
FOLDER = 'handbook-templates'


def keep_compiled(app: Sphinx) -> None:
    """Give the builder's template environment a bytecode cache (``builder-inited``)."""
    environment = getattr(getattr(app.builder, 'templates', None), 'environment', None)
    if environment is None or environment.bytecode_cache is not None:
        return  # not a template builder, or someone chose a cache already
    folder = Path(app.doctreedir) / FOLDER
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return
    environment.bytecode_cache = FileSystemBytecodeCache(str(folder))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect('builder-inited', keep_compiled)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
