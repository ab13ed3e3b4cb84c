# 最近更新 and its feed (_ext/handbook/listings/recent.py).  The tests copy this
# root into a temporary git repository and commit its pages with fixed author
# dates.  The project's _ext/ is on sys.path (tests/conftest.py).
extensions = ['handbook.cards.links', 'handbook.rulings.lines', 'handbook.rulings.strike',
              'handbook.publishing.editions', 'handbook.listings.recent']
handbook_cards = 'cards.tsv'
language = 'zh_CN'
html_baseurl = 'https://example.org/handbook/'
exclude_patterns = ['_build']
