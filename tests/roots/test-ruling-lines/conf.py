# the project's _ext/ is on sys.path (tests/conftest.py)
extensions = ['handbook.cards.links', 'handbook.generated.export', 'handbook.rulings.lines', 'handbook.generated.timeline', 'handbook.rulings.strike']
handbook_cards = 'cards.tsv'
