# Two editions from one source (_ext/handbook/publishing/editions.py): the tests build this root
# without and with the tag `current`.  The project's _ext/ is on sys.path
# (tests/conftest.py).
extensions = ['handbook.listings.card_index', 'handbook.cards.links', 'handbook.search.rulings_index', 'handbook.publishing.editions', 'handbook.listings.export',
              'handbook.rulings.lines', 'handbook.listings.timeline', 'handbook.rulings.strike']
handbook_cards = 'cards.tsv'
language = 'zh_CN'
html_theme = 'furo'  # its sidebar has the edition switcher
html_baseurl = 'https://example.org/handbook/'
html_copy_source = False  # as the handbook: no page source next to the pages
