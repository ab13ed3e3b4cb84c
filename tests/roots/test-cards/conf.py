# the project's _ext/ is on sys.path (tests/conftest.py)
extensions = ['handbook.cards.links']
handbook_cards = 'cards.tsv'
