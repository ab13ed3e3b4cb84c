"""Search: Sphinx's Chinese search with card names as words; rulings first."""

from handbook import setup_concern


def setup(app):
    return setup_concern(app, 'handbook.search.card_search',
                         'handbook.search.rulings_index')
