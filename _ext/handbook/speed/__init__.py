"""The speed package: faster HTML builds of the handbook, opt-in.

Enabled by one line of ``conf.py`` (``'handbook.speed'``, after the
concerns in ``extensions``).  Without it every feature works on Sphinx's,
docutils' and furo's public APIs, and the site is the same, byte
for byte (``tests/test_speed.py``); with it, HTML builds are faster.  It
holds everything that replaces, re-implements or tunes the libraries'
machinery, each part behind its name in ``handbook_speed_parts`` (all by
default; ``-D handbook_speed_parts=gc,write`` keeps two):

=====================  =====================================================
``gc``                 the garbage collector during a build
                       (:mod:`handbook.speed.gc_policy`)
``write``              the HTML builder's write: ``-j`` writing processes,
                       pages by weight, the timeline last, late parts
                       (:mod:`handbook.speed.writing`)
``toctrees``           each page's tables of contents, and each folder's
                       navigation, kept from build to build
                       (:mod:`handbook.speed.toctree_cache`)
``parser``             nested parses make only the states they use
                       (:mod:`handbook.speed.rst_parser`)
``pinyin-ahead``       the names' pinyin found while the pages are read
                       (:mod:`handbook.speed.pinyin_ahead`)
``card-pages-aside``   card pages written by a process of their own
                       (:mod:`handbook.speed.card_pages`)
``index-aside``        the search index made by a process of its own while
                       the pages are written (:mod:`handbook.speed.index_aside`)
``read-order``         a ``-j`` read's chunks of about the same weight
                       (:mod:`handbook.speed.read_order`)
=====================  =====================================================

Each part is kept because ``make bench`` shows it earns at least 5 % of a
clean or an edit build (``docs/bench-records.md``); what earned less was
dropped (the templates' bytecode kept); a parallel read's order, dropped
on a corpus whose large pages were spread out by their names, came back
when the corpus took real handbooks' shape (yearly FAQ pages, neighbours);
what
served a feature that is gone went with it (jieba's dictionary shared and
each page's words kept, for Sphinx's own search index, which the handbook
no longer fills: :mod:`handbook.search.rulings_index`).

**Nothing outlives the build.**  The parts act during an HTML build, in
the session of the builder (:mod:`handbook.speed.session`): whichever way
the build ends -- done, failed, interrupted -- every process a part started
is stopped and joined and the garbage collector is as it was.  A part's
process that fails is reported, at the page it worked on, with what the
build did instead (:mod:`handbook.speed.processes`).

**Guarded.**  A part that leans on a library's internals names them in
:data:`ALLOWED`, with the reason and the library versions it was written
for: loading the package with another version fails at once
(:func:`check_versions`), before a build could silently go wrong.  The
handbook's other modules use no private name of these libraries and write
into none of their modules, classes or tables (``tests/test_private_api.py``).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import importlib.metadata
from typing import TYPE_CHECKING, Any

from sphinx.errors import ExtensionError

from handbook.speed.session import PARTS_SETTING

if TYPE_CHECKING:
    from collections.abc import Callable

    from sphinx.application import Sphinx
    from sphinx.config import Config

#: every part, and the extension module that holds it (loaded whatever the
#: parts: each acts only where its part is on)
PARTS = {
    'gc': 'handbook.speed.gc_policy',
    'write': 'handbook.speed.writing',
    'toctrees': 'handbook.speed.toctree_cache',
    'parser': 'handbook.speed.rst_parser',
    'pinyin-ahead': 'handbook.speed.pinyin_ahead',
    'card-pages-aside': 'handbook.speed.card_pages',
    'index-aside': 'handbook.speed.index_aside',
    'read-order': 'handbook.speed.read_order',
}
#: the parts that accelerate a concern: loaded only where the concern is
CONCERNS = {
    'handbook.speed.pinyin_ahead': 'handbook.listings.card_index',
    'handbook.speed.card_pages': 'handbook.listings.card_pages',
    'handbook.speed.index_aside': 'handbook.search.rulings_index',
}


@dataclasses.dataclass(frozen=True)
class Allowance:
    """One use of a library's internals by a part: where, what, why, and
    the library versions it was written for (``fnmatch`` patterns)."""

    module: str  # the module of handbook.speed that uses it
    name: str  # the private name, or the attribute written
    library: str  # the distribution: 'sphinx', 'docutils', 'furo'
    versions: str  # e.g. '0.42.*'
    reason: str


ALLOWED = (
    Allowance('handbook.speed.rst_parser', 'NestedStateMachine', 'docutils', '0.22*',
              "each of docutils' states is subclassed so that its nested parses make "
              'their states when used; the machine initialises a state made later as '
              'its start would have'),
    Allowance('handbook.speed.toctree_cache', '_get_local_toctree', 'sphinx', '9.0.*',
              "the page context's toctree() is kept only for builders that take its "
              "arguments as StandaloneHTMLBuilder's (the method is compared, not called)"),
)


def check_versions(version: Callable[[str], str] = importlib.metadata.version) -> None:
    """Fail, naming the part and the versions, where an installed library
    (its *version*) is not one that :data:`ALLOWED` was written for."""
    for allowance in ALLOWED:
        try:
            found = version(allowance.library)
        except importlib.metadata.PackageNotFoundError:
            continue  # not installed: the part that needs it never runs
        if not fnmatch.fnmatch(found, allowance.versions):
            raise ExtensionError(
                f'handbook.speed: {allowance.module} relies on {allowance.name} of '
                f'{allowance.library} {allowance.versions} ({allowance.reason}), and this is '
                f'{allowance.library} {found}.  Check that part against {found} and update '
                f'handbook.speed.ALLOWED, or remove handbook.speed from conf.py\'s extensions '
                '(every feature works without it).')


def load_concern_parts(app: Sphinx, config: Config) -> None:
    """The parts of the concerns this build loaded (``config-inited``: every
    extension of ``conf.py`` is loaded by then)."""
    unknown = {part for part in getattr(config, PARTS_SETTING) or () if part} - PARTS.keys()
    if unknown:
        raise ExtensionError(f'handbook_speed_parts: no part {", ".join(sorted(unknown))}; '
                             f'the parts are {", ".join(PARTS)}')
    for module, concern in CONCERNS.items():
        if concern in app.extensions:
            app.setup_extension(module)


def setup(app: Sphinx) -> dict[str, Any]:
    check_versions()
    app.add_config_value(PARTS_SETTING, list(PARTS), '', types=frozenset({list, tuple}),
                         description='the parts of handbook.speed that are on')
    for module in dict.fromkeys(PARTS.values()):
        if module not in CONCERNS:
            app.setup_extension(module)
    app.connect('config-inited', load_concern_parts, priority=100)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
