# the project's _ext/ is on sys.path (tests/conftest.py)
extensions = ['handbook.generated.card_index', 'handbook.generated.related_sections']
handbook_cards = 'cards.tsv'
