"""Reports: every problem the handbook finds, at its file and line, with a severity.

Each report has the type ``handbook`` and a subtype (printed
``[handbook.<subtype>]``), a location (a node, or ``'path:line'``) and a
message that says what is wrong and how to fix it.  The severity says what
the problem means, and whether it fails a build with ``-W`` (``make html``,
``make check``):

``error`` (:func:`error`)
    broken for readers: a lost link, markup shown as text, a wrong target,
    a malformed role.  Logged as a Sphinx error; fails the build.
``warning`` (:func:`warning`)
    a house rule that CI enforces: an unlinked card name, a duplicate label,
    a ruling URL on a host that is not a trusted source.  Logged as a Sphinx
    warning; fails the build.
``note`` (:func:`note`)
    style with a mechanical fix (``make fix`` applies it), or information:
    ``http://`` where the host serves https, a registry row that spells
    another row's card another way.  Logged at info level as
    ``path:line: note: … [handbook.<subtype>]``; never fails a build.
    ``make check`` prints the notes grouped, one line per kind.

Errors and warnings can be silenced with Sphinx's ``suppress_warnings``
(``'handbook.<subtype>'``); notes with the same setting, or ``-q``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from sphinx.util import logging

if TYPE_CHECKING:
    from sphinx.config import Config

logger = logging.getLogger('handbook')

#: what starts a note's text, after its location (tools/check.py reads it)
NOTE = 'note: '


def one_line(text: str) -> str:
    """*text* on one line: a line break and the spaces around it, one space.
    Every report is one line (``make check`` and editors' tools read them
    line by line), whatever source text it quotes."""
    return _BREAK.sub(' ', text)


_BREAK = re.compile(r'[ \t]*[\r\n]+[ \t]*')


def error(message: str, *, location: Any, subtype: str) -> None:
    """A problem readers see: fails the build."""
    logger.error(one_line(message), location=location, type='handbook', subtype=subtype)


def warning(message: str, *, location: Any, subtype: str) -> None:
    """A house rule broken: fails the build."""
    logger.warning(one_line(message), location=location, type='handbook', subtype=subtype)


def note(message: str, *, location: Any, subtype: str, config: Config | None = None) -> None:
    """Style with a mechanical fix, or information: never fails the build."""
    if config is not None and suppressed(config, subtype):
        return
    logger.info(f'{NOTE}{one_line(message)} [handbook.{subtype}]', location=location)


def suppressed(config: Config, subtype: str) -> bool:
    wanted = config.suppress_warnings
    return 'handbook' in wanted or f'handbook.{subtype}' in wanted
