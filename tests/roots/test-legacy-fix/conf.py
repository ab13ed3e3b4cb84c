# A tiny existing handbook with one of each problem `make fix` repairs
# (tests/test_fix.py): a plain card name, http:// ruling URLs on a host that
# serves https, a card link inside strong emphasis, a plain card name inside a
# role the page declares, a repeated registry row.
# Around them, what it must leave alone.  Once fixed, it builds with -W.
extensions = ['handbook.cards', 'handbook.rulings', 'handbook.sections']
handbook_cards = 'links.rst'
# the handbook's own setting, not the extension's default: make fix reads it
handbook_ruling_hosts = ['www.db.yugioh-card.com']
