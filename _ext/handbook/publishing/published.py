"""The published site: built aside, then updated with exactly the files that changed.

``make html`` (``tools/build_html.py``) never builds into the folder it
publishes.  Sphinx builds into a *staging* folder beside it, under the
build folder (``_build/staging/html`` for ``_build/html``); only when that
build succeeded does :func:`publish` make the published folder the same
as the staging folder, writing exactly the files whose bytes changed and
removing the files that are gone.  So:

* a failed, killed or disk-full build never damages the good site: the
  published folder is the last good build's until a build succeeds;
* a build that changed nothing writes no file of the published site, and an
  edit writes the files whose content changed, no others: whatever watches
  or uploads the folder by date (a sync to the web host, a cache) sees only
  real changes.  Sphinx itself may write a file again with the same bytes
  (the search page, the static files, ``.buildinfo``, …): that happens in
  the staging folder, and the sweep leaves the published copy alone.

**The sweep** (:func:`publish`) is in two steps.  First every changed file
is copied to a temporary file beside its published copy (``.<name>.<pid>.tmp``),
written out and checked complete (:func:`_copy`); when one fails (a full disk),
every temporary file is removed and the published folder is as it was.
Then the temporary files are moved over their files (``os.replace``, which
needs no space), and the files that are gone are removed.  A sweep that is
killed between the two leaves a mix of whole old and new files, which the
next build repairs (below).  Folders of the published folder that hold a
site of their own (``.buildinfo``: ``_build/html/zh_TW``, the translated
edition, built by another ``make html``) are left alone.

**Interrupted builds.**  While a build runs, a marker file sits beside the
staging folder (``_build/staging/html.incomplete``); the sweep's success
removes it.  A build that finds it knows the one before was killed (or
ended by a fault), so that what it left in the staging and doctree
folders cannot be trusted -- a page cut half-way, a search index that
lists a few pages, an environment written in part -- and starts from
scratch: both folders emptied.  Its result, swept, is byte for byte a clean
build's, and the stray temporary files of the killed sweep are gone with
the files that are not in it.  A build that failed on its pages' problems
alone (``-W``, a warning) keeps its staging folder for the next build, as
Sphinx would, unless the disk is full or the folder cannot be written
(where Sphinx may have cut a page and only warned).

**One build at a time.**  A build holds a lock on the build folder
(``_build/.lock``, ``flock``) from start to sweep; the processes it forks
hold it too, so that a killed build's last processes are waited for.  A
second ``make html`` into the same build folder says which build holds it
(its process, command and start) and waits for it.

**Faults are one line.**  A build folder that cannot be written (read-only,
full) is one error before anything is built; a write that fails during the
build (a full disk) ends the build with one line naming the file and the
fault, instead of Sphinx's crash report (:func:`fault_as_one_line`, the
``build-finished`` handler of this extension); the published site is left
as it was either way.

``make preview`` (sphinx-autobuild) builds into its own folder, directly.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import os
import re
import shutil
import sys
import time
from pathlib import Path, PurePosixPath
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sphinx.application import Sphinx

#: what Sphinx keeps of the last build's info when the configuration changed
_BACKUP = '.buildinfo.bak'
#: the marker beside the staging folder while a build into it has not succeeded
INCOMPLETE = '.incomplete'
#: beside the staging folder: when the last sweep started and ended (ns)
SWEPT = '.swept'
#: beside it, the folders it was built from (Folders.read_from)
FROM = '.from'
#: what marks a folder as a site of its own (another build's), left alone by the sweep
SITE_MARK = '.buildinfo'
#: temporary files: ours (``.<name>.<pid>.tmp``) and those of the files module
_TEMPORARY = re.compile(r'^\..+\.tmp$')
#: write faults: the disk or the folder, not the pages
FAULTS = {errno.ENOSPC: 'the disk is full', errno.EDQUOT: 'the disk quota is used up',
          errno.EROFS: 'the file system is read-only', errno.EACCES: 'permission denied',
          errno.EPERM: 'operation not permitted', errno.EFBIG: 'the file is too large',
          errno.EIO: 'an input/output error'}
#: a free space below which a failed build is taken for a full disk
LOW_SPACE = 16 * 2**20


class PublishError(Exception):
    """What stops a build or its sweep: one line, the published site left as it was."""


# -- the lock --------------------------------------------------------------------------

@contextlib.contextmanager
def locked(lock_file: Path, command: str, say: IO[str] = sys.stderr) -> Iterator[None]:
    """Hold the build folder's lock while the block runs.  Where another
    build holds it, say which (its process, start, command) and wait."""
    try:
        lock_file.parent.mkdir(parents=True, exist_ok=True)
        handle = open(lock_file, 'a+', encoding='utf-8')  # noqa: SIM115 -- held to the end
    except OSError as err:
        raise PublishError(cannot_write(lock_file.parent, err)) from None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or 'another process'
            print(f'make html: {lock_file.parent} is in use by another build ({holder}); '
                  'waiting for it to end', file=say, flush=True)
            fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        handle.truncate()
        handle.write(f'process {os.getpid()}, started {time.strftime("%Y-%m-%d %H:%M:%S")}: '
                     f'{command}\n')
        handle.flush()
        yield


# -- the staging folder ------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Folders:
    """The folders of one ``make html``."""

    site: Path  # published
    staging: Path  # Sphinx's output folder
    doctrees: Path  # Sphinx's doctree folder
    #: what the build reads (the source and configuration folders), where it
    #: matters: a staging folder built from other ones starts from scratch
    sources: tuple[Path, ...] = ()

    @property
    def read_from(self) -> Path:
        """The file beside the staging folder that says what it was built from."""
        return self.staging.with_name(self.staging.name + FROM)

    @property
    def marker(self) -> Path:
        return self.staging.with_name(self.staging.name + INCOMPLETE)

    @property
    def swept(self) -> Path:
        return self.staging.with_name(self.staging.name + SWEPT)


def begin(folders: Folders) -> str | None:
    """Before the build: check that the folders can be written, and set the
    marker.  Where the last build did not succeed, or read other folders,
    empty the staging and doctree folders first; why it did so, or None."""
    for folder in (folders.staging.parent, folders.site.parent):
        probe = folder / f'.probe.{os.getpid()}.tmp'
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with open(probe, 'wb') as out:
                out.write(b'\0' * 4096)
                out.flush()
                os.fsync(out.fileno())
        except OSError as err:  # the folder's fault, not the probe's
            raise PublishError(cannot_write(folder, OSError(err.errno, err.strerror))) from None
        finally:
            with contextlib.suppress(OSError):
                probe.unlink()
    fresh = folders.marker.exists()
    # built from another handbook (another SOURCEDIR): Sphinx's environment is
    # a new one, which knows none of the other handbook's pages, so their files
    # stayed in the staging folder and were published (an adopter's round trip)
    said = '\n'.join(str(path.resolve()) for path in folders.sources) + '\n'
    other = bool(folders.sources) and folders.staging.exists() and _read(folders.read_from) \
        not in (None, said)
    if fresh or other:
        folders.swept.unlink(missing_ok=True)
        for folder in (folders.staging, folders.doctrees):
            shutil.rmtree(folder, ignore_errors=True)
    try:
        folders.marker.write_text('a build has not finished: the next one starts from scratch\n',
                                  encoding='utf-8')
        if folders.sources:
            folders.read_from.write_text(said, encoding='utf-8')
    except OSError as err:
        raise PublishError(cannot_write(folders.marker.parent, err)) from None
    return ('did not finish (killed, or ended by a fault)' if fresh else
            'read another source or configuration folder' if other else None)


def _read(path: Path) -> str | None:
    """The text of *path*, or None where there is none."""
    try:
        return path.read_text(encoding='utf-8')
    except (OSError, UnicodeDecodeError):
        return None


def failed(folders: Folders, exception: bool) -> bool:
    """After a build that did not succeed: whether its staging folder can be
    kept for the next build (a build that failed on its pages' problems
    alone), else the marker stays and the next build starts from scratch."""
    if exception or not _writable(folders.staging):
        return False
    folders.marker.unlink(missing_ok=True)
    return True


def _writable(folder: Path) -> bool:
    """Whether *folder* can still be written, with room to spare (a build
    that met a full disk may have cut a page and only warned)."""
    try:
        stat = os.statvfs(folder)
        if stat.f_bavail * stat.f_frsize < LOW_SPACE:
            return False
        probe = folder / f'.probe.{os.getpid()}.tmp'
        probe.write_bytes(b'\0')
        probe.unlink()
    except OSError:
        return False
    return True


# -- the sweep ---------------------------------------------------------------------------

@dataclasses.dataclass
class Sweep:
    """What :func:`publish` did."""

    written: list[str] = dataclasses.field(default_factory=list)
    removed: list[str] = dataclasses.field(default_factory=list)


def publish(folders: Folders) -> Sweep:
    """Make the published folder the same as the staging folder, writing
    only what changed (see the module's docstring), then drop the marker.

    A file is compared byte for byte with its published copy unless neither
    changed since the last sweep, which made them equal: the staging file
    not written since that sweep began, its copy not since it ended (their
    ``ctime``, which no program can set back), the sizes the same.  A
    rebuild that changed nothing reads no file."""
    start = time.time_ns()
    last = _last_sweep(folders)
    staged = _files(folders.staging)
    site = folders.site
    published = _files(site, skip_sites=True)
    changed = []
    for name, stat in staged.items():
        copy = published.get(name)
        if copy is None or copy.st_size != stat.st_size:
            changed.append(name)
        elif last and stat.st_ctime_ns < last[0] and copy.st_ctime_ns < last[1]:
            continue
        elif not _same(folders.staging / name, site / name):
            changed.append(name)
    gone = sorted(set(published) - set(staged))
    _room_for(site, sum(staged[name].st_size for name in changed))
    temporaries: list[tuple[Path, Path]] = []
    try:
        for name in changed:  # step 1: every new file beside its place, whole, or none
            target = site / name
            temporary = target.with_name(f'.{target.name}.{os.getpid()}.tmp')
            _clear_way(site, target.parent)
            target.parent.mkdir(parents=True, exist_ok=True)
            temporaries.append((temporary, target))
            _copy(folders.staging / name, temporary)
    except OSError as err:
        for temporary, _target in temporaries:
            with contextlib.suppress(OSError):
                temporary.unlink()
        raise PublishError(cannot_write(temporaries[-1][1] if temporaries else site, err)
                           + f'; the published site {site} is left as it was') from None
    for temporary, target in temporaries:  # step 2: renames, no space needed
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        os.replace(temporary, target)
    for name in gone:
        with contextlib.suppress(FileNotFoundError):
            (site / name).unlink()
    _remove_empty_folders(site, {str(parent) for name in staged
                                 for parent in PurePosixPath(name).parents})
    with contextlib.suppress(OSError):
        folders.swept.write_text(f'{start} {time.time_ns()}\n', encoding='ascii')
    folders.marker.unlink(missing_ok=True)
    return Sweep(changed, gone)


def _last_sweep(folders: Folders) -> tuple[int, int] | None:
    """When the last sweep started and ended (ns), or None."""
    try:
        start, end = folders.swept.read_text(encoding='ascii').split()
        return int(start), int(end)
    except (OSError, ValueError):
        return None


def _files(root: Path, skip_sites: bool = False) -> dict[str, os.stat_result]:
    """``{relative path: its lstat}`` of the files under *root* (our
    temporary files: excluded, but with *skip_sites*, where they are stray
    files to remove; with *skip_sites*, the folders holding a site of their
    own are left out)."""
    out: dict[str, os.stat_result] = {}
    if not root.is_dir():
        return out
    for folder, dirs, names in os.walk(root):
        here = Path(folder)
        if skip_sites:
            dirs[:] = [d for d in dirs if not (here / d / SITE_MARK).is_file()]
        prefix = here.relative_to(root).as_posix()
        prefix = '' if prefix == '.' else prefix + '/'
        for name in names:
            if (_TEMPORARY.match(name) or name == _BACKUP) and not skip_sites:
                continue  # (Sphinx's backup of the last build's info: no file of the site)
            with contextlib.suppress(OSError):
                out[prefix + name] = os.lstat(os.path.join(folder, name))
    return out


def _same(a: Path, b: Path) -> bool:
    """Whether the files *a* and *b* (of the same size) hold the same bytes."""
    try:
        with open(a, 'rb') as left, open(b, 'rb') as right:
            while True:
                chunk = left.read(1 << 20)
                if chunk != right.read(1 << 20):
                    return False
                if not chunk:
                    return True
    except OSError:
        return False


def _copy(source: Path, temporary: Path) -> None:
    """*source* copied to *temporary*, written out and checked complete.
    A full disk fails the write (or the close, where the file system says
    so only then), and the sweep with it.  Not ``fsync``'ed: that waits for
    the disk at every file, and a clean build publishes thousands (a page
    per card, the search's shards); keeping a site's files through a power
    cut is the file system's work, not the build's."""
    size = source.stat().st_size
    with open(source, 'rb') as src, open(temporary, 'wb') as out:
        shutil.copyfileobj(src, out, 1 << 20)
        out.flush()
        if os.fstat(out.fileno()).st_size != size:
            raise OSError(errno.EIO, 'the copy is not complete', str(temporary))
    shutil.copymode(source, temporary)


def _room_for(folder: Path, size: int) -> None:
    """Refuse a sweep that the disk has no room for, before writing anything."""
    try:
        stat = os.statvfs(folder if folder.exists() else folder.parent)
    except OSError:
        return
    free = stat.f_bavail * stat.f_frsize
    if size > free:
        raise PublishError(f'make html: error: no room to publish {folder}: the changed files '
                           f'take {size:,} bytes, the disk has {free:,} free; free some space '
                           'and run make html again (the published site is left as it was)')


def _clear_way(site: Path, folder: Path) -> None:
    """A file of the published site where a folder must now be: removed."""
    for parent in [folder, *folder.parents]:
        if parent == site or site not in parent.parents:
            break
        if parent.is_file() or parent.is_symlink():
            parent.unlink()


def _remove_empty_folders(site: Path, holding: set[str]) -> None:
    """The folders of the site that hold no staged file (*holding*: the
    folders that do, relative) removed where they are empty: a folder
    whose last file the build removed (``_related/``) is in no clean build's
    site, though the staging folder keeps it, empty."""
    for folder, dirs, files in os.walk(site, topdown=False):
        here = Path(folder)
        if here == site or (here / SITE_MARK).is_file():
            continue
        if here.relative_to(site).as_posix() not in holding:
            with contextlib.suppress(OSError):
                here.rmdir()  # only an empty one


# -- faults, in one line -------------------------------------------------------------------

def cannot_write(path: Path, err: OSError) -> str:
    what = FAULTS.get(err.errno or 0, err.strerror or str(err))
    return (f'make html: error: cannot write {err.filename or path}: {what} '
            f'({err.strerror or err}); free some space or make it writable, then run make html '
            'again')


_ERRNO = re.compile(r'^(?:\w+\.)*\w+Error: \[Errno (\d+)\] ([^:]*)(?:: (.*))?')


def write_fault(exception: BaseException, where: Path) -> str | None:
    """The one line that says what *exception* is, where it is a write fault
    of the disk or the folder (also from a process of a parallel build, or
    wrapped by Sphinx as an extension's error); else None.  *where*: the
    folder written, for a fault that names no file."""
    seen: set[int] = set()
    current: BaseException | None = exception
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in FAULTS:
            return cannot_write(where, current)
        message = getattr(current, 'message', None)
        if isinstance(message, str):  # SphinxParallelError: the child's exception, as text
            m = _ERRNO.match(message.strip())
            if m and int(m[1]) in FAULTS:
                err = OSError(int(m[1]), m[2], *([m[3].strip("'\"")] if m[3] else []))
                return cannot_write(where, err)
        current = getattr(current, 'orig_exc', None) or current.__cause__ or current.__context__
    return None


def fault_as_one_line(app: Sphinx, exception: BaseException | None) -> None:
    """``build-finished``, last: a build ended by a write fault (a full
    disk, a read-only folder) says so in one line and exits with status 2,
    instead of Sphinx's crash report."""
    if exception is None:
        return
    line = write_fault(exception, Path(os.path.commonpath([app.outdir, app.doctreedir])))
    if line is not None:
        print(line, file=sys.stderr, flush=True)
        raise SystemExit(2)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect('build-finished', fault_as_one_line, priority=1000)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
