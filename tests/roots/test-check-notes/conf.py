# Notes only (tests/test_check.py): make check groups them, one line per kind,
# and exits 0.  The ruling notes come from the build's status stream, the
# unused rows from the runner itself.
extensions = ['handbook.cards.links', 'handbook.rulings.dates']
handbook_cards = 'cards.tsv'
handbook_ruling_hosts = ['www.db.yugioh-card.com']
