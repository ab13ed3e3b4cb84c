# the project's _ext/ is on sys.path (tests/conftest.py)
extensions = ['handbook.rulings.dates']
# a handbook that trusts only these sources (the allow-list is opt-in: issue 31)
handbook_ruling_hosts = ['www.db.yugioh-card.com', 'yugioh-wiki.net']
