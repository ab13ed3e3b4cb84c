"""Planned sections: ``:ref:`` targets that are not written yet.

The handbook's pages refer to sections that no page has yet (调整中,
错过时点, …).  Their labels are listed in one place, the
``handbook_planned_sections`` config value.  A ``:ref:`` to a planned label
renders as plain text marked as not yet written (``<span class="planned">``,
which the handbook's stylesheet shows like a wiki's red link), followed by
the label （待编写） (``<span class="planned-label">``, translatable: the
``handbook`` catalog of translations.py); every other unresolved reference stays Sphinx's
``undefined label`` warning.

When a planned label gets written (some page defines it), the build warns
``handbook.planned`` so that it is taken off the list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.locale import get_translation
from sphinx.util import logging

if TYPE_CHECKING:
    from sphinx import addnodes
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

logger = logging.getLogger(__name__)
_ = get_translation('handbook')  # texts shown in pages (translations.py)


def planned_reference(app: Sphinx, env: BuildEnvironment, node: addnodes.pending_xref,
                      contnode: nodes.Element) -> nodes.Node | None:
    if node.get('refdomain') != 'std' or node.get('reftype') != 'ref':
        return None
    if node['reftarget'] not in env.config.handbook_planned_sections:
        return None
    label = nodes.inline('', _('（待编写）'), classes=['planned-label'])
    marked = nodes.inline('', '', contnode, label, classes=['planned'])
    return marked


def check_still_planned(app: Sphinx, env: BuildEnvironment) -> None:
    labels = env.domains.standard_domain.labels
    for label in env.config.handbook_planned_sections:
        if label in labels:
            docname = labels[label][0]
            logger.warning('section %r is written now (label defined here); remove it '
                           'from handbook_planned_sections in conf.py', label,
                           location=docname, type='handbook', subtype='planned')


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value('handbook_planned_sections', [], 'env', types=frozenset({list, tuple}),
                         description='labels of sections not written yet')
    app.connect('missing-reference', planned_reference)
    app.connect('env-check-consistency', check_still_planned)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
