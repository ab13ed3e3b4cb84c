# the project's _ext/ is on sys.path (tests/conftest.py)
extensions = ['card_links', 'ruling_export', 'ruling_lines', 'ruling_timeline', 'strike']
handbook_cards = 'cards.tsv'
