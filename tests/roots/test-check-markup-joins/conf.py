# the project's _ext/ is on sys.path (tests/conftest.py, tools/check.py)
extensions = ['handbook.cards.links', 'handbook.cards.markup', 'handbook.rulings.dates',
              'handbook.rulings.strike']
handbook_cards = 'cards.tsv'
