# the project's _ext/ is on sys.path (tests/conftest.py, tools/check.py)
extensions = ['handbook.cards.links', 'handbook.cards.markup', 'handbook.sections.labels', 'handbook.sections.planned', 'handbook.rulings.dates']
handbook_cards = 'cards.tsv'
handbook_planned_sections = ['调整中']
