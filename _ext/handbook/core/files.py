"""Files the handbook writes beside the pages, written only when their content changes.

A file whose bytes are the same keeps its modification time, so that what
watches or uploads the output folder by date sees only real changes (see
:mod:`handbook.publishing.unchanged_files` for Sphinx's own files).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import BinaryIO

    from sphinx.environment import BuildEnvironment


def write_if_changed(path: Path, content: str | bytes) -> bool:
    """Write *content* (text as UTF-8) to *path* unless the file holds it
    already (:func:`write_pieces_if_changed`, in one piece); whether it wrote."""
    data = content.encode('utf-8') if isinstance(content, str) else content
    return write_pieces_if_changed(path, lambda: (data,))


def write_pieces_if_changed(path: Path, pieces: Callable[[], Iterable[bytes]]) -> bool:
    """Write what *pieces* gives to *path* unless the file holds it already,
    for a large file given piece by piece, never held whole: *pieces* gives
    them, once to compare them with the file and, if they differ, once more
    to write them (to a temporary file moved into place: a reader never sees
    half of it); whether it wrote."""
    if _holds(path, pieces()):
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as out:
        for piece in pieces():
            out.write(piece)
    return True


@contextlib.contextmanager
def replacing(path: Path) -> Iterator[BinaryIO]:
    """A temporary file beside *path* to write its new bytes to, moved over
    *path* when the block ends (a reader never sees half of it), removed if
    the block fails."""
    temporary = path.with_name(f'.{path.name}.{os.getpid()}.tmp')
    try:
        with temporary.open('wb') as out:
            yield out
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _holds(path: Path, pieces: Iterable[bytes]) -> bool:
    """Whether the file *path* holds exactly *pieces*, one after the other."""
    try:
        with path.open('rb') as existing:
            for piece in pieces:
                if existing.read(len(piece)) != piece:
                    return False
            return existing.read(1) == b''
    except OSError:
        return False


def doctree_file(env: BuildEnvironment, docname: str) -> Path:
    """The file where Sphinx keeps the doctree of page *docname*."""
    return Path(env.doctreedir, f'{docname}.doctree')
