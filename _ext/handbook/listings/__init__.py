"""Listings: the pages made from what every page contributes -- the timeline,
the card index, related sections, rulings.json, 最近更新 and its feed, a page
per card, the open questions.  Each is hand-written code that reads the store
(:mod:`handbook.store`) and writes through :mod:`handbook.render`."""

from handbook import setup_concern


def setup(app):
    return setup_concern(app, 'handbook.listings.timeline', 'handbook.listings.card_index',
                         'handbook.listings.related_sections', 'handbook.listings.export',
                         'handbook.listings.recent', 'handbook.listings.open_questions',
                         'handbook.listings.card_pages')
