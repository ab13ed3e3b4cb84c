"""Files the handbook writes: whole or not at all, and only when their content changes.

:func:`write_atomically` replaces a file with new bytes so that no fault
leaves half of it: the bytes go to a temporary file in the same folder,
which is flushed to the disk and checked complete, then moved over the file
(``os.replace``, one atomic rename).  A full disk, a file or folder that may
not be written, a process killed at any moment leave the old file as it was
and no temporary file behind (a killed process may leave its hidden
``.<name>.*.tmp``, never a cut file).  ``make fix`` and ``make autolink``
write the pages so, and :mod:`handbook.publishing.published` the site.

The files extensions write beside the pages (``rulings.json``, the
sitemap) are written only when their bytes change (:func:`write_if_changed`),
so that a build that changed nothing leaves their dates alone.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from typing import BinaryIO

    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment


def write_if_changed(path: Path, content: str | bytes) -> bool:
    """Write *content* (text as UTF-8) to *path* unless the file holds it
    already (:func:`write_pieces_if_changed`, in one piece); whether it wrote."""
    data = content.encode('utf-8') if isinstance(content, str) else content
    return write_pieces_if_changed(path, lambda: (data,))


def copy_script_to_static(builder: Builder, script: Path) -> None:
    """Copy *script* into the builder's ``_static/`` where its bytes differ,
    for a builder whose pages run scripts (HTML, not the EPUB's
    ``embedded`` pages); at ``builder-inited``, before the pages are
    written, so that each names it with its checksum."""
    if builder.format != 'html' or getattr(builder, 'embedded', False):
        return
    write_if_changed(Path(builder.outdir) / '_static' / script.name, script.read_bytes())


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
    """A temporary file beside *path* to write its new bytes to, checked
    complete, then moved over *path* when the block ends (a reader never
    sees half of it); removed if the block fails."""
    temporary = path.with_name(f'.{path.name}.{os.getpid()}.tmp')
    try:
        with temporary.open('wb') as out:
            yield out
            out.flush()  # not fsync'ed: a build's own files; make html publishes them (published.py)
            if os.fstat(out.fileno()).st_size != out.tell():
                raise OSError(errno.EIO, 'the file was not written whole', str(temporary))
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace the file *path* (or create it) with *data*, whole or not at
    all: a temporary file beside it, flushed to the disk (``fsync``), its
    size checked, then ``os.replace``.  A symbolic link is written at its
    target, and the file keeps its permissions.  On an error (``OSError``,
    raised) the file is as it was and the temporary file is removed."""
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f'.{target.name}.', suffix='.tmp')
    try:
        with os.fdopen(handle, 'wb') as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
            if os.fstat(out.fileno()).st_size != len(data):
                raise OSError(errno.EIO, 'the file was not written whole', name)
        os.chmod(name, mode)
        os.replace(name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise


def _umask() -> int:
    """The process's file mode mask (read by setting it, then set back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


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
