# The same kind of handbook with real problems in it (issue 11): each is
# reported once, at its file and line, with the right severity and a fix that
# works.  tests/test_legacy_*.py
extensions = ['handbook.cards', 'handbook.rulings', 'handbook.sections']
handbook_cards = 'links.rst'
