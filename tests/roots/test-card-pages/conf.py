# Card pages (_ext/handbook/listings/card_pages.py): tests/test_card_pages.py
# builds this root in both editions and in zh_TW.  The project's _ext/ is on
# sys.path (tests/conftest.py).
extensions = ['handbook.listings.card_pages', 'handbook.rulings.strike']
handbook_cards = 'cards.tsv'
language = 'zh_CN'
html_baseurl = 'https://example.org/handbook/'
