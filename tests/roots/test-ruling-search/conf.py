# Ruling search (_ext/handbook/search/rulings_index.py): tests/test_ruling_search.py builds
# this root (also with the tag `current`).  The project's _ext/ is on sys.path (tests/conftest.py).
extensions = ['handbook.cards.links', 'handbook.rulings.lines', 'handbook.rulings.strike',
              'handbook.publishing.editions', 'handbook.search.rulings_index',
              'handbook.search.search_box']
handbook_cards = 'cards.tsv'
language = 'zh_CN'
html_theme = 'furo'  # the search page's template overrides furo's
