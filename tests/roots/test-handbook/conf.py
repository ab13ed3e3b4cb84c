# The project's own configuration, every extension, with this root's pages and registry.
from conftest import ROOT

exec((ROOT / 'conf.py').read_text(encoding='utf-8'))
handbook_cards = 'cards.tsv'
html_static_path = [str(ROOT / '_static')]
html_baseurl = 'https://example.org/handbook/'  # as published: sitemap, robots.txt, feed
