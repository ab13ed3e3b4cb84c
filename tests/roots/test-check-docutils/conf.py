# the project's _ext/ is on sys.path (tests/conftest.py, tools/check.py)
extensions = ['card_links', 'card_markup', 'link_targets']
handbook_cards = 'cards.tsv'
