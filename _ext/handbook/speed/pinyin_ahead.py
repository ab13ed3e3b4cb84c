"""The pinyin of the registry's names, found while the pages are read.

The card index orders its entries by pinyin (:mod:`handbook.listings.card_index`),
which pypinyin finds a name at a time; the store keeps what it found from
build to build, so only a clean build (or new names) needs it.  Where the
store does not know the pinyin of most of the registry yet, a process of
its own finds every name's while the pages are read, on what the reading
leaves of the cores (:func:`handbook.speed.processes.when_idle`), and
answers the card index's ``handbook-pinyin`` with it; pypinyin's
dictionaries then never enter the main process, nor the processes it forks
to write.  A build that does not need it stops it at its end.  Part
``pinyin-ahead``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from handbook.cards.links import registry
from handbook.listings import card_index
from handbook.speed.processes import when_idle
from handbook.speed.session import uses
from handbook.store import writes_pages

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

    from handbook.speed.processes import Task

#: the fewest names worth a process of their own (fewer: found in the main process)
AHEAD = 200


class PinyinAhead:
    """This build's process, if it started one."""

    def __init__(self) -> None:
        self.task: Task | None = None

    def start(self, app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
        """``env-before-read-docs``: where the build reads pages and writes the index."""
        self.task = None
        session = uses(app, 'pinyin-ahead')
        if session is None or not docnames or not writes_pages(env):
            return
        known = card_index.kept(env).pinyin
        missing = sorted({card.key for card in registry(env).cards()} - known.keys())
        if len(missing) >= AHEAD:
            self.task = session.processes.start('finding the pinyin of the card names',
                                                card_index.orders, missing, in_child=when_idle)

    def found(self, app: Sphinx, keys: frozenset[str]) -> dict[str, tuple[str, str]]:
        """``handbook-pinyin``: every name's order, once the process is done."""
        task, self.task = self.task, None
        if task is None:
            return {}
        return task.result('finds them in the main process') or {}


def setup(app: Sphinx) -> dict[str, Any]:
    ahead = PinyinAhead()
    app.connect('env-before-read-docs', ahead.start)
    app.connect(card_index.PINYIN_EVENT, ahead.found)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
