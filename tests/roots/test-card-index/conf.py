# the project's _ext/ is on sys.path (tests/conftest.py)
extensions = ['handbook.listings.card_index', 'handbook.listings.related_sections']
handbook_cards = 'cards.tsv'
