# the project's _ext/ is on sys.path (tests/conftest.py)
extensions = ['card_index', 'related_sections']
handbook_cards = 'cards.tsv'
