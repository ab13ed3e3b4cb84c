"""Sections: readable ids, labels defined twice, planned (not yet written) sections."""

from handbook import setup_concern


def setup(app):
    return setup_concern(app, 'handbook.sections.ids', 'handbook.sections.labels',
                         'handbook.sections.planned')
