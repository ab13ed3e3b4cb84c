"""Cards: the registry, card links (resolved in :mod:`handbook.cards.links`), markup checks."""

from handbook import setup_concern


def setup(app):
    return setup_concern(app, 'handbook.cards.links', 'handbook.cards.markup')
