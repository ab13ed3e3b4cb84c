"""Rulings: dated references, one ruling per date with its permalink, struck text."""

from handbook import setup_concern


def setup(app):
    return setup_concern(app, 'handbook.rulings.dates', 'handbook.rulings.lines',
                         'handbook.rulings.strike')
