# the project's _ext/ is on sys.path (tests/conftest.py, tools/check.py)
extensions = ['card_links', 'card_markup', 'link_targets', 'planned_sections', 'rulings']
handbook_cards = 'cards.tsv'
handbook_planned_sections = ['调整中']
