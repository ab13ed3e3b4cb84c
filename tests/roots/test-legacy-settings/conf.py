# A handbook with its own settings file, handbook.toml (issue 11, item 6):
# each of its keys replaces the value below, which it would otherwise get.
# tests/test_legacy_rulings.py
extensions = ['handbook.cards', 'handbook.rulings', 'handbook.sections']
handbook_cards = 'no-such-registry.tsv'
handbook_planned_sections = ['conf的标签']
handbook_changed_markers = ['conf的词']
handbook_ruling_hosts = ['www.db.yugioh-card.com']
handbook_faq_url = 'https://www.db.yugioh-card.com/faq/{id}'
