"""Search: rulings first, then sections, from an index cut in shards; results as you type."""

from handbook import setup_concern


def setup(app):
    return setup_concern(app, 'handbook.search.rulings_index', 'handbook.search.search_box')
