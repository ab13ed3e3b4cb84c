# The property tests' handbook (tests/test_properties.py): the project's own
# configuration, every extension; each example writes page.rst and cards.tsv.
from conftest import ROOT

exec((ROOT / 'conf.py').read_text(encoding='utf-8'))
handbook_cards = 'cards.tsv'
html_static_path = [str(ROOT / '_static')]
handbook_settings = ''
