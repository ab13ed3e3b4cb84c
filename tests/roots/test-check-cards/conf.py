# the project's _ext/ is on sys.path (tests/conftest.py, tools/check.py)
extensions = ['card_links', 'card_markup', 'rulings']
handbook_cards = 'cards.tsv'
