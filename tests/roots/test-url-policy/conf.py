# One URL policy for every link the site emits (handbook.core.url_policy;
# issue 34, case 4): URLs read as the browser reads them.
extensions = ['handbook.cards', 'handbook.rulings']
handbook_cards = 'cards.tsv'
handbook_ruling_hosts = ['www.db.yugioh-card.com']
