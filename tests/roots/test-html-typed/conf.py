# HTML tags typed into a page's text (the review of stop 54's round trip):
# tests/test_honest_text.py.
extensions = ['handbook.cards', 'handbook.rulings', 'handbook.sections']
handbook_cards = 'cards.tsv'
