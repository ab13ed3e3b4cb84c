"""Planned sections: ``:ref:`` targets that are not written yet.

The handbook's pages refer to sections that no page has yet (调整中,
错过时点, …).  Their labels are listed in one place, the handbook's own
settings: ``planned_sections`` in its ``handbook.toml``
(:mod:`handbook.core.settings`; else conf.py's ``handbook_planned_sections``).
A handbook built with this toolchain gets no planned sections but its own.
A ``:ref:`` to a planned label renders as plain text marked as not yet
written (``<span class="planned">``, which the handbook's stylesheet shows
like a wiki's red link), followed by the label （待编写）
(``<span class="planned-label">``, translatable: the ``handbook`` catalog of
translations.py); every other label no page defines is an error with its fix
(``handbook.ref``, :func:`handbook.sections.labels.missing_label`).

When a planned label gets written (some page defines it), a note
``handbook.planned`` at the label's definition (file and line, recorded by
:mod:`handbook.sections.labels`) says to take it off the list, naming the
file the list is in.  References to it are ordinary links already.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.locale import get_translation

from handbook.core import reports, settings
from handbook.sections.labels import page_labels

if TYPE_CHECKING:
    from sphinx import addnodes
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

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
    written = [label for label in env.config.handbook_planned_sections if label in labels]
    if not written:
        return
    where = settings.origin(env.config, env.srcdir, 'handbook_planned_sections')
    for label in written:
        docname = labels[label][0]
        source, line = page_labels(env, docname).get(label, (None, None))
        location = f'{source}:{line}' if source else env.doc2path(docname)
        reports.note(f'section {label!r} is written now (its label is defined here); remove '
                     f'{label!r} from {where}', location=location, subtype='planned',
                     config=env.config)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.core.settings')  # the handbook's planned_sections
    app.setup_extension('handbook.core.hostile_input')
    app.setup_extension('handbook.sections.labels')  # where each label is defined
    app.add_config_value('handbook_planned_sections', [], 'env', types=frozenset({list, tuple}),
                         description='labels of sections not written yet')
    app.connect('missing-reference', planned_reference)
    app.connect('env-check-consistency', check_still_planned)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
