"""The processes the speed package forks, and how each one ends.

Every process a part of :mod:`handbook.speed` starts is a :class:`Task` of
the build's :class:`Processes` (one per build, on the builder's session,
:mod:`handbook.speed.session`): forked (POSIX only, as Sphinx's own parallel
builds), its log records sent back to the main process and logged there
(Sphinx's :class:`~sphinx.util.logging.LogCollector`), its result or its
exception sent back through a pipe.

**Nothing outlives the build.**  When the build ends -- done, failed, or
interrupted (Ctrl-C) -- the session stops every task still running: it is
terminated, then joined, so no process is left behind, not even a zombie.

**A child's exception is never swallowed.**  A task that raises sends its
exception back; the main process reports it as a warning ``handbook.speed``
located at the page the task was working on (or at the line of the part
that failed), saying what the build did instead (:meth:`Task.result`).  The
parts fall back on what the build does without them: the main process
writes the pages, cuts the texts, finds the pinyin itself.  A task that
dies without a word (killed) is reported the same way.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import traceback
from typing import TYPE_CHECKING, Any

from sphinx.util import logging

from handbook.core import reports

if TYPE_CHECKING:
    from collections.abc import Callable
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

logger = logging.getLogger(__name__)


def forks() -> bool:
    """Whether processes can be forked here (POSIX)."""
    return 'fork' in multiprocessing.get_all_start_methods()


def spare_core() -> bool:
    """Whether a serial build may hand work to a process of its own: the
    machine has a core besides this process's, and processes are forked."""
    if not forks():
        return False
    try:
        return len(os.sched_getaffinity(0)) > 1
    except (AttributeError, OSError):
        return (os.cpu_count() or 1) > 1


def when_idle() -> None:
    """Let this process run only where a core would otherwise be idle
    (Linux's ``SCHED_IDLE``), else at the lowest priority: for work done
    ahead, in a process of its own, that the build never waits for."""
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):
        os.nice(19)


class TaskFailed(Exception):
    """A task's exception, as the main process knows it: its message, the
    innermost frame ``file:line`` and the child's traceback."""

    def __init__(self, message: str, where: str, text: str) -> None:
        super().__init__(message)
        self.message, self.where, self.traceback = message, where, text


class Task:
    """One forked process running ``function(argument)``."""

    def __init__(self, what: str, process: BaseProcess, receiving: Connection,
                 location: str | None) -> None:
        self.what = what  # what it does, for a report: 'writing pages p1, p2'
        self.process = process
        self.receiving = receiving
        self.location = location
        self.done = False
        self.value: Any = None
        self.failure: TaskFailed | None = None

    def running(self) -> bool:
        return not self.done

    def ended(self) -> bool:
        """Whether the process has ended (its result is there to read)."""
        return self.done or self.receiving.poll() or not self.process.is_alive()

    def wait(self) -> None:
        """Wait for the task's end, log what it logged, keep its result."""
        if self.done:
            return
        try:
            message = self.receiving.recv()
        except (EOFError, OSError):  # it died before it could send
            message = None
        self.receiving.close()
        self.process.join()
        self.done = True
        if message is None:
            self.failure = TaskFailed(
                f'the process ended without a result (exit code {self.process.exitcode})',
                '', '')
            return
        failed, records, value = message
        for record in records:
            logger.handle(record)
        if failed:
            self.failure = TaskFailed(*value)
        else:
            self.value = value

    def result(self, fallback: str) -> Any:
        """The task's value once it ended; where it failed, a warning at its
        location saying that the build *fallback* (``'writes them in the
        main process'``), and None."""
        self.wait()
        if self.failure is None:
            return self.value
        where = f' at {self.failure.where}' if self.failure.where else ''
        reports.warning(f'{self.what} failed in a process of its own: {self.failure.message}'
                        f'{where}; the build {fallback} (sphinx-build -vv shows the '
                        'traceback)', location=self.location or self.failure.where or None,
                        subtype='speed')
        logger.debug('the traceback of %s:\n%s', self.what, self.failure.traceback)
        return None

    def stop(self) -> None:
        """End the process now (the build is over or failed)."""
        if self.done:
            return
        self.process.terminate()
        self.process.join()
        self.receiving.close()
        self.done = True


class Processes:
    """The tasks of one build (see the module docstring)."""

    def __init__(self) -> None:
        self.tasks: list[Task] = []
        self.context = multiprocessing.get_context('fork') if forks() else None

    def start(self, what: str, function: Callable[[Any], object], argument: Any = None, *,
              location: str | None = None,
              in_child: Callable[[], object] | None = None) -> Task | None:
        """Fork a process running ``function(argument)`` (*in_child* first);
        None where processes cannot be forked."""
        if self.context is None:
            return None
        receiving, sending = self.context.Pipe(duplex=False)
        process = self.context.Process(target=_run, daemon=True,
                                       args=(sending, function, argument, in_child))
        process.start()
        sending.close()  # the child's end: a child that dies gives an end of file
        task = Task(what, process, receiving, location)
        self.tasks.append(task)
        return task

    def running(self) -> list[Task]:
        return [task for task in self.tasks if task.running()]

    def wait_any(self) -> Task:
        """Wait for one of the running tasks to end; that task."""
        running = {task.receiving: task for task in self.running()}
        ready = multiprocessing.connection.wait(list(running))
        task = running[ready[0]]  # type: ignore[index]
        task.wait()
        return task

    def stop(self) -> None:
        """Stop every task still running (the build's end, on any path)."""
        for task in self.tasks:
            task.stop()
        self.tasks.clear()


def _run(sending: Connection, function: Callable[[Any], object], argument: Any,
         in_child: Callable[[], object] | None) -> None:
    """A task's process: *function* on *argument*, what it logged and what
    it returned (or raised) sent back."""
    collector = logging.LogCollector()
    try:
        with collector.collect():
            if in_child is not None:
                in_child()
            value = function(argument)
        message = (False, collector.logs, value)
    except BaseException as error:  # noqa: BLE001 -- sent to the main process, reported there
        frames = traceback.extract_tb(error.__traceback__)
        where = f'{frames[-1].filename}:{frames[-1].lineno}' if frames else ''
        text = traceback.format_exception_only(error)[-1].strip()
        message = (True, collector.logs, (text, where, traceback.format_exc()))
    logging.convert_serializable(collector.logs)
    try:
        sending.send(message)
    except Exception:  # noqa: BLE001 -- a value that cannot be sent is a failure too
        sending.send((True, collector.logs, (
            f'its result could not be sent back: {traceback.format_exc(limit=0).strip()}',
            '', traceback.format_exc())))
