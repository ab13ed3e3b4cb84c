"""The theme's templates, compiled once and kept from build to build.

Jinja compiles every template a build renders (the theme's ``page.html``,
``layout.html``, ``base.html`` and their partials, the handbook's own) from
its source, at every build: a noticeable part of a rebuild that writes few
pages, as every edit previewed does.

Jinja keeps what it compiled in a bytecode cache when its environment has one
(:class:`jinja2.BytecodeCache`, public API): here :class:`KeptTemplates`, a
file per template in a folder of the doctree folder (:data:`FOLDER`), set on
the builder's template environment at ``builder-inited``.  Jinja takes a
template from it only when the template's source is the one it was compiled
from (it compares a checksum) and by the Python that compiled it.  What
else shapes the compiled code is in each file's name (:func:`signature`):
the versions of Jinja and Sphinx, the environment's syntax and options, its
extensions, and which filters and tests it has (a filter may be called while
compiling).  Files are moved into place whole, so the processes of a
parallel build share them; one that cannot be read or written is compiled
as before.
"""

from __future__ import annotations

import contextlib
import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
import sphinx
from jinja2 import BytecodeCache

from handbook.core.files import replacing
from handbook.speed.session import enabled

if TYPE_CHECKING:
    from jinja2.bccache import Bucket
    from sphinx.application import Sphinx

#: the folder, in the doctree folder, that keeps the compiled templates
FOLDER = 'handbook-templates'


class KeptTemplates(BytecodeCache):
    """Compiled templates in *folder*, for *environment*."""

    def __init__(self, folder: Path, environment: jinja2.Environment) -> None:
        self.folder = folder
        self.environment = environment

    def _path(self, bucket: Bucket) -> Path:
        return self.folder / f'{signature(self.environment)}-{bucket.key}.cache'

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            with self._path(bucket).open('rb') as kept:
                bucket.load_bytecode(kept)
        except (OSError, EOFError, ValueError, TypeError):  # none, or not whole: compiled
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        with contextlib.suppress(OSError), replacing(self._path(bucket)) as out:
            bucket.write_bytecode(out)


def signature(environment: jinja2.Environment) -> str:
    """A digest of what, besides a template's source, shapes its compiled code."""
    def named(table: dict[str, Any]) -> list[str]:
        return sorted(f'{name}={getattr(f, "__module__", "")}.'
                      f'{getattr(f, "__qualname__", type(f).__qualname__)}'
                      f':{getattr(f, "jinja_pass_arg", "")}' for name, f in table.items())

    autoescape = environment.autoescape
    parts = [jinja2.__version__, sphinx.__version__, type(environment).__qualname__,
             environment.block_start_string, environment.block_end_string,
             environment.variable_start_string, environment.variable_end_string,
             environment.comment_start_string, environment.comment_end_string,
             str(environment.line_statement_prefix), str(environment.line_comment_prefix),
             repr((environment.trim_blocks, environment.lstrip_blocks,
                   environment.newline_sequence, environment.keep_trailing_newline,
                   environment.optimized,
                   getattr(autoescape, '__qualname__', autoescape))),
             *sorted(environment.extensions), *named(environment.filters),
             *named(environment.tests)]
    return hashlib.sha256('\x00'.join(parts).encode()).hexdigest()[:16]


def keep_compiled(app: Sphinx) -> None:
    """Give the builder's template environment a bytecode cache (``builder-inited``)."""
    if not enabled(app, 'templates'):
        return
    environment = getattr(getattr(app.builder, 'templates', None), 'environment', None)
    if not isinstance(environment, jinja2.Environment) or environment.bytecode_cache is not None:
        return  # not a template builder, or someone chose a cache already
    folder = Path(app.doctreedir) / FOLDER
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return
    environment.bytecode_cache = KeptTemplates(folder, environment)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect('builder-inited', keep_compiled)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
