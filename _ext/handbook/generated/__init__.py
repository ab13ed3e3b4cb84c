"""Generated pages: the timeline, the card index, related sections, rulings.json,
最近更新 and its feed, a page per card."""

from handbook import setup_concern


def setup(app):
    return setup_concern(app, 'handbook.generated.timeline', 'handbook.generated.card_index',
                         'handbook.generated.related_sections', 'handbook.generated.export',
                         'handbook.generated.recent', 'handbook.generated.open_questions',
                         'handbook.generated.card_pages')
