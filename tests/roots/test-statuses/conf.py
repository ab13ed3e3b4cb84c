# Ruling statuses, replacements, sources, copy-link and the open questions
# (_ext/handbook/rulings/statuses.py, _ext/handbook/listings/open_questions.py).
# The project's _ext/ is on sys.path (tests/conftest.py).  Built without and
# with the tag `current`; the browser tests serve it with furo.
from pathlib import Path

import handbook  # the project's _ext/handbook/

extensions = ['handbook.cards.links', 'handbook.rulings.lines', 'handbook.rulings.strike',
              'handbook.publishing.editions', 'handbook.listings.timeline',
              'handbook.listings.open_questions', 'handbook.listings.export']
handbook_cards = 'cards.tsv'
handbook_changed_markers = ['裁定变更', '调整中确认', '规则变更']  # 规则变更: a handbook's own word
handbook_ruling_hosts = ['www.db.yugioh-card.com', 'yugioh-wiki.net', 'example.org']
language = 'zh_CN'
html_theme = 'furo'
html_baseurl = 'https://example.org/handbook/'
html_copy_source = False
# the project's stylesheet, for the browser tests' screenshots
html_static_path = [str(Path(handbook.__file__).parents[2] / '_static')]
html_css_files = ['handbook.css']
