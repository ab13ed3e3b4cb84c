# Invisible characters, full-width dates, line separators (issue 34,
# case 11): tests/test_honest_text.py.
extensions = ['handbook.cards', 'handbook.rulings', 'handbook.sections']
handbook_cards = 'cards.tsv'
