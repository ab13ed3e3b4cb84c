# Two editions from one source (_ext/editions.py): the tests build this root
# without and with the tag `current`.  The project's _ext/ is on sys.path
# (tests/conftest.py).
extensions = ['card_index', 'card_links', 'card_search', 'editions', 'ruling_export',
              'ruling_lines', 'ruling_timeline', 'strike']
handbook_cards = 'cards.tsv'
language = 'zh_CN'
html_search_language = 'zh'
html_theme = 'furo'  # its sidebar has the edition switcher
html_baseurl = 'https://example.org/handbook/'
html_copy_source = False  # as the handbook: no page source next to the pages
