# the project's _ext/ is on sys.path (tests/conftest.py)
extensions = ['handbook.cards.links', 'handbook.listings.export', 'handbook.rulings.lines', 'handbook.listings.timeline', 'handbook.rulings.strike']
handbook_cards = 'cards.tsv'
