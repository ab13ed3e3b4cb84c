# the project's _ext/ is on sys.path (tests/conftest.py)
extensions = ['handbook.cards.links', 'handbook.sections.planned', 'handbook.rulings.lines', 'handbook.rulings.dates', 'handbook.translations.catalogs', 'handbook.publishing.reader_tools']
project = html_title = '测试手册'  # the root page's title: translated with its catalog
language = 'zh_TW'                 # the translated build; tests also build zh_CN
handbook_cards = 'cards.tsv'
handbook_planned_sections = ['调整中']
handbook_languages = {'zh_CN': '简体中文', 'zh_TW': '繁體中文'}
html_theme = 'furo'
# locale/zh_TW/LC_MESSAGES/*.po are compiled by translations.py at build time
