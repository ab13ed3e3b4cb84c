"""Sphinx configuration of the OCG rulings handbook (游戏王 OCG 裁定手册).

Pages are in source/, the project's extensions in _ext/, the card registry
in cards.tsv.  Build with ``make html``; see README.md.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / '_ext'))

# -- Project ---------------------------------------------------------------------------

project = '游戏王 OCG 裁定手册'
author = '裁定手册编者'
copyright = '裁定手册编者'  # no year: nothing time-dependent in the configuration
language = 'zh_CN'
needs_sphinx = '9.0'  # keep in sync with requirements.txt

# -- Extensions ------------------------------------------------------------------------

extensions = [
    # the handbook's own, one name per concern (_ext/handbook/, README "Layout")
    'handbook.cards',         # 「`卡名`_」 -> card database (_ext/handbook/cards/links.py); markup checks
    'handbook.rulings',       # :ruling:`17/3/24`, one ruling per date with its permalink, :strike:
    'handbook.sections',      # readable section ids, labels defined twice, planned sections
    'handbook.listings',      # the timeline, the card index, related sections, rulings.json
    'handbook.search',        # the search: rulings, sections, every spelling of a card
    'handbook.publishing',    # editions, canonical/sitemap/404/redirects, link previews, page dates
    'handbook.translations',  # translated builds: catalogs, card names in any language, switcher
    'handbook.speed',         # faster HTML builds (_ext/handbook/speed/); the site is the same without
    'notfound.extension',          # the 404 page (sphinx-notfound-page)
    'sphinx_last_updated_by_git',  # page dates from git
    'sphinx_reredirects',          # old URLs of renamed pages keep working
    'sphinxext.opengraph',         # OpenGraph and Twitter-card tags
]

# -- The handbook's own settings (_ext/handbook/core/settings.py) ---------------------
# The registry, planned sections, changed-ruling markers, ruling hosts and FAQ
# address belong to the handbook being built: source/handbook.toml (each
# handbook's <SOURCEDIR>/handbook.toml).  A key there overrides the neutral
# defaults below; -D handbook_…= (make … CARDS=) overrides both.

handbook_settings = 'handbook.toml'  # relative to the source folder; '' for none

# -- Card links (_ext/handbook/cards/links.py) -----------------------------------------

handbook_cards = 'cards.tsv'  # relative to this file, where the settings file names none
handbook_card_url = 'https://ygocdb.com/card/name/{name}'
handbook_card_id_url = 'https://ygocdb.com/card/{id}'
handbook_series_url = 'https://ygocdb.com/?search={name}'

# -- Ruling references (_ext/handbook/rulings/dates.py) --------------------------------
# Defaults for a handbook whose settings file names none: the official FAQ, and
# no allow-list of ruling sources (a handbook opts in with ruling_hosts).

handbook_faq_url = ('https://www.db.yugioh-card.com/yugiohdb/faq_search.action'
                    '?ope=5&fid={id}&request_locale=ja')
handbook_ruling_hosts: list[str] = []

# -- Ruling lines, timeline, export (_ext/handbook/rulings/, _ext/handbook/listings/) --
# A ruling containing one of these words (or :strike: text) is flagged as changed;
# the settings file's changed_markers replace them.

handbook_changed_markers = ['裁定变更']
handbook_rulings_export = 'rulings.json'  # written next to the HTML; '' for none

# -- 最近更新 and its Atom feed (_ext/handbook/listings/recent.py) --------------------
# source/recent.rst (.. recent-rulings::) lists the rulings changed most recently
# (git blame of their lines), and feed.xml beside the pages the same rulings.

handbook_recent_rulings = 50       # how many rulings the page and the feed list
handbook_recent_feed = 'feed.xml'  # '' for no feed

# -- Card index and related sections (_ext/handbook/listings/) -------------------------
# The card index is source/card-index.rst (.. card-index::); each section that
# links cards lists up to this many sections of other pages naming the same cards.

handbook_related_sections = 5  # 0: no related sections

# -- Card pages (_ext/handbook/listings/card_pages.py) --------------------------------
# A page per linked card, cards/<id>.html, listing every ruling that names it;
# the § after each card link leads there.  False: no card pages, § leads to the index.

handbook_card_pages = True

# -- Planned sections (_ext/handbook/sections/planned.py) ------------------------------
# Labels that pages :ref: but no page defines yet: planned_sections in the
# handbook's settings file (source/handbook.toml); none by default.

handbook_planned_sections: list[str] = []

# -- Translations (_ext/handbook/translations/catalogs.py; README, "Translations") -----
# The catalogs are locale/<lang>/LC_MESSAGES/<page>.po (make intl-update); each
# build compiles its language's into the doctree folder and points Sphinx's
# locale_dirs there.  Chosen so that rewording a sentence invalidates that
# sentence's message only, and the committed catalogs change only there:

handbook_locale_dir = 'locale'            # relative to this file
gettext_compact = False                   # one catalog per page, not one for the site
gettext_uuid = False                      # no uuid comment per message: less churn
gettext_location = False                  # no source:line comments: a line inserted above
                                          # would change every later entry of the catalog
gettext_allow_fuzzy_translations = False  # an outdated (fuzzy) translation is never shown;
                                          # OpenCC's output is flagged "opencc", not fuzzy
gettext_additional_targets = []           # no literal blocks, images or index entries
handbook_languages = {                    # the site's languages; the first is its root,
    'zh_CN': '简体中文',                  # the others are in <root>/<lang>/ (make html-all)
    'zh_TW': '繁體中文',
}

# -- make linkcheck (_ext/handbook/publishing/linkcheck_policy.py) ---------------------
# The only target that uses the network.  The card database is one small site:
# few requests at a time, and on HTTP 429 wait as long as it asks (up to 10 min).

linkcheck_workers = 4
linkcheck_timeout = 30
linkcheck_retries = 2
linkcheck_rate_limit_timeout = 600.0
linkcheck_anchors = False          # card and FAQ pages are linked whole, never by #anchor
linkcheck_ignore = []              # hosts that forbid robots: read from their robots.txt
handbook_linkcheck_cache_days = 7  # a URL found working this recently is not requested again

# -- HTML ------------------------------------------------------------------------------

html_theme = 'furo'
html_title = project
html_static_path = ['_static']
# handbook.css: added by the extensions (_ext/handbook/publishing/reader_tools.py)
html_last_updated_fmt = '%Y-%m-%d'  # each page's last change (_ext/handbook/publishing/page_dates.py)
html_copy_source = False
html_show_sourcelink = False
# no index entries in the handbook: Sphinx's general index would be an empty page,
# linked from every page's head (rel=index); the card index is the handbook's index
html_use_index = False

# -- Publishing (_ext/handbook/publishing/) -------------------------------------------
# The published site's address: canonical links, sitemap.xml, robots.txt, link
# previews (og:url), the feed and the 404 page's links derive from it.
# `make html BASEURL=…` sets it (the GitHub Pages workflow passes the Pages URL);
# Read the Docs gives its own.  Without one they are left out: a local build
# or preview knows no address to point to.

html_baseurl = os.environ.get('READTHEDOCS_CANONICAL_URL', '')


# A service worker keeps the pages a reader opened and the search's parts
# they used, for reading with no network (_ext/handbook/publishing/offline.py)
handbook_offline = True

ogp_social_cards = {'enable': False}  # no generated images (they would need matplotlib)
ogp_custom_meta_tags = ['<meta name="twitter:card" content="summary" />']
handbook_description_width = 160      # columns: about 80 Chinese characters

notfound_template = 'handbook-404.html'  # _ext/handbook/templates/: search, card index, contents
notfound_context = {'body': ''}  # its title: the template's, in the build's language

git_last_updated_timezone = 'Asia/Shanghai'

# Renamed or moved pages: old name -> new page, relative to the old page.  The
# old URL then redirects there (sphinx-reredirects).  For example, after
# renaming source/negate.rst to source/negation.rst:
#   redirects = {'negate': 'negation.html'}
redirects: dict[str, str] = {}

# -- Search (_ext/handbook/search/) ------------------------------------------------------
# The search page and every page's search box answer from the rulings' index,
# cut in shards (rulings_index.py); Sphinx's own index holds no words.
# No result fetches its page to show a summary: the snippets are in the index.
html_show_search_summary = False

# -- EPUB and PDF (make epub, make pdf) ------------------------------------------------
# The whole handbook for offline reading.  Card links stay links to the card
# database, without the URL printed after each (there are hundreds).

epub_basename = 'handbook'
epub_publisher = author
epub_identifier = 'urn:uuid:34c7ef90-2062-5780-adf0-caee118c95ec'  # fixed: the same book
epub_scheme = 'uuid'
epub_show_urls = 'no'
epub_use_index = False  # no index entries: the general index would be empty
epub_exclude_files = ['.buildinfo.bak']  # Sphinx's, after a change of configuration

latex_engine = 'xelatex'
latex_documents = [('index', 'handbook.tex', project, author, 'manual')]
latex_docclass = {'manual': 'ctexbook'}  # Chinese chapter titles, spacing and line breaking
latex_use_xindy = False                  # no index entries; xindy is one more TeX package
latex_show_urls = 'no'
latex_elements = {
    'papersize': 'a4paper',
    'classoptions': ',fontset=none',     # ctex: fonts are set below
    'babel': '',                         # ctex does the Chinese; babel knows no zh_CN
    'fncychap': '',                      # ctex styles the chapter titles
    'fontpkg': r'''
\setCJKmainfont{Noto Serif CJK SC}
\setCJKsansfont{Noto Sans CJK SC}
\setCJKmonofont{Noto Sans Mono CJK SC}
% ① ○ ● and other symbols the pages use: from the CJK fonts
\xeCJKDeclareCharClass{CJK}{"2460 -> "24FF, "2500 -> "27BF}
% keep the spaces of card names: DDD 反骨王 列奥尼达
\xeCJKsetup{CJKspace=true}
''',
    'preamble': r'''
% the contents are 目录 (Sphinx would call them after the first toctree's caption)
\renewcommand{\contentsname}{目录}
% a ruling line (a \DUrole) may hold a footnote of several lines: \long
\renewcommand{\DUrole}[2]{%
  \ifcsname DUrole\detokenize{#1}\endcsname\csname DUrole\detokenize{#1}\endcsname{#2}\else#2\fi}
''',
}
