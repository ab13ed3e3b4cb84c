"""Whether a build links each page to the same page in the other editions and
languages of the site (the sidebar's switchers: :mod:`handbook.publishing.editions`,
:mod:`handbook.translations.catalogs`).

Only a build of the whole site should: ``make html-all`` builds every edition
and language, and a plain ``make html`` builds one, whose links to the others
would be dead.  The config value ``handbook_switchers`` says it; unset, the
Makefile's word, the environment variable ``HANDBOOK_SWITCHERS`` (``0``: off),
rather than ``-D``: a ``conf.py`` of a handbook's own may load neither
extension, and ``-W`` fails on an override of an unknown value.  Neither set:
on (``sphinx-build`` run by hand, the tests' builds).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config

VARIABLE = 'HANDBOOK_SWITCHERS'


def decide(app: Sphinx | None, config: Config) -> None:
    """``config-inited``: ``handbook_switchers`` unset takes the environment's word."""
    if config.handbook_switchers is None:
        config.handbook_switchers = os.environ.get(VARIABLE, '1') != '0'


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value('handbook_switchers', None, 'html',
                         types=frozenset({bool, type(None)}),
                         description='link each page to itself in the other editions and '
                                     f'languages; None: as ${VARIABLE} says (make html: 0, '
                                     'it builds one of them; make html-all: 1), else on')
    app.connect('config-inited', decide)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
