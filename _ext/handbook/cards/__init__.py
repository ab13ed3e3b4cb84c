"""Cards: the registry, card links (resolved in :mod:`handbook.cards.links`), markup checks."""

from handbook import setup_concern


def setup(app):
    metadata = setup_concern(app, 'handbook.cards.links', 'handbook.cards.markup')
    # the readers' tools (a card's §, a ruling's ¶ and copy) and handbook.css, which
    # handbook.rulings does not load (it imports nothing of publishing): a conf.py of
    # cards, rulings and sections gets them as it did
    app.setup_extension('handbook.publishing.reader_tools')
    return metadata
