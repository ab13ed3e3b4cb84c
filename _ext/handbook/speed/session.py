"""One HTML build's speed session: which parts are on, the collector's
policy, the processes the parts start; everything given back at the end.

The session lives on the builder of :mod:`handbook.speed.writing` and spans
its ``build()`` -- reading, writing, finishing -- in a ``try``/``finally``:
whichever way the build ends (done, an error, Ctrl-C), every process a
part started is stopped and joined, and the garbage collector is as it was
before (:meth:`Session.close`).  Nothing a part changes outlives the build:
the parts change no other library's state, only this build's builder, the
processes it forks, and the application's ``-j`` while one page is read
(:meth:`Session.read_serially`), given back when the read ends.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from handbook.speed.gc_policy import Policy
from handbook.speed.processes import Processes

if TYPE_CHECKING:
    from sphinx.application import Sphinx

#: the config value naming the parts that are on (``-D handbook_speed_parts=gc,write``)
PARTS_SETTING = 'handbook_speed_parts'


class Session:
    """The speed session of one build (see the module docstring)."""

    def __init__(self, parts: set[str]) -> None:
        self.parts = parts
        self.gc = Policy()
        self.processes = Processes()
        self.open = False
        self.jobs: tuple[Sphinx, int] | None = None  # -j, while a read is serial

    def read_serially(self, app: Sphinx) -> None:
        """Read this build's pages in the main process: the application's
        ``-j`` is 1 until :meth:`read_ended` (or the session's end)."""
        if self.jobs is None:
            self.jobs = (app, app.parallel)
            app.parallel = 1

    def read_ended(self) -> None:
        """Give the application its ``-j`` back, where the read made it 1."""
        if self.jobs is not None:
            app, jobs = self.jobs
            self.jobs = None
            app.parallel = jobs

    def uses(self, part: str) -> bool:
        return part in self.parts

    def __enter__(self) -> Session:
        self.open = True
        self.gc.apply(self.uses('gc'))
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop every process still running; give the collector back."""
        try:
            self.read_ended()
            self.processes.stop()
        finally:
            self.gc.restore()
            self.open = False


def enabled(app: Sphinx, part: str) -> bool:
    """Whether the part *part* is on in this application's configuration
    (``handbook.speed`` loaded, the part in ``handbook_speed_parts``)."""
    return 'handbook.speed' in app.extensions and \
        part in (getattr(app.config, PARTS_SETTING, None) or ())


def session(app: Sphinx) -> Session | None:
    """The session of this build, where its builder has one and it is open."""
    found = getattr(app.builder, 'speed_session', None) if app.builder is not None else None
    return found if isinstance(found, Session) and found.open else None


def uses(app: Sphinx, part: str) -> Session | None:
    """The session of this build, where the part *part* is on in it."""
    found = session(app)
    return found if found is not None and found.uses(part) else None
