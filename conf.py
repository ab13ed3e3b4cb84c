"""Sphinx configuration of the OCG rulings handbook (游戏王 OCG 裁定手册).

Pages are in source/, the project's extensions in _ext/, the card registry
in cards.tsv.  Build with ``make html``; see README.md.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / '_ext'))

# -- Project -------------------------------------------------------------------

project = '游戏王 OCG 裁定手册'
author = '裁定手册编者'
copyright = '裁定手册编者'  # no year: nothing time-dependent in the configuration
language = 'zh_CN'
needs_sphinx = '9.0'  # keep in sync with requirements.txt

# -- Extensions ------------------------------------------------------------------

extensions = [
    'card_links',         # 「`卡名`_」 -> card database (registry: cards.tsv)
    'planned_sections',   # :ref: to sections not written yet
    'rulings',            # :ruling:`17/3/24` dated ruling references
]

# -- Card links (_ext/card_links.py) ----------------------------------------------

handbook_cards = 'cards.tsv'
handbook_card_url = 'https://ygocdb.com/card/name/{name}'
handbook_card_id_url = 'https://ygocdb.com/card/{id}'
handbook_series_url = 'https://ygocdb.com/?search={name}'

# -- Ruling references (_ext/rulings.py) ------------------------------------------

handbook_faq_url = ('https://www.db.yugioh-card.com/yugiohdb/faq_search.action'
                    '?ope=5&fid={id}&request_locale=ja')
handbook_ruling_hosts = [
    'www.db.yugioh-card.com',  # the official card database and FAQ
    'yugioh-wiki.net',         # 遊戯王カードWiki
]

# -- Planned sections (_ext/planned_sections.py) ----------------------------------
# Labels that pages :ref: but no page defines yet; shown as "not yet written".

handbook_planned_sections = [
    '『时』与『场合』',
    '不受发动的效果影响',
    '也当作陷阱卡使用的陷阱怪兽',
    '必发效果',
    '怪兽发动效果影响攻击力·守备力后又被无效的场合',
    '怪兽的召唤手续',
    '攻击被无效·终止',
    '攻守计算',
    '效果的附加处理',
    '特殊召唤怪兽',
    '诱发类效果',
    '调整中',
    '连锁块',
    '错过时点',
]

# -- HTML ----------------------------------------------------------------------------

html_theme = 'furo'
html_title = project
html_static_path = ['_static']
html_css_files = ['handbook.css']
html_last_updated_fmt = None
html_copy_source = False
html_show_sourcelink = False
