"""Generated pages: the timeline, the card index, related sections, rulings.json."""

from handbook import setup_concern


def setup(app):
    return setup_concern(app, 'handbook.generated.timeline', 'handbook.generated.card_index',
                         'handbook.generated.related_sections', 'handbook.generated.export')
