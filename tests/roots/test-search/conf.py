# the project's _ext/ is on sys.path (tests/conftest.py)
extensions = ['handbook.cards.links', 'handbook.search.card_search']
handbook_cards = 'cards.tsv'
language = 'zh_CN'
html_search_language = 'zh'
