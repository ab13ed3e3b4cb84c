# What a page may publish or read (handbook.core.safe_reading; issue 34,
# cases 1-3): raw HTML, files outside the source folder, meta http-equiv.
extensions = ['handbook.cards', 'handbook.rulings']
handbook_cards = 'cards.tsv'
