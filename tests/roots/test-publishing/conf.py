# Publishing: site address, sitemap, robots.txt, link previews, page dates,
# the 404 page, redirects.  The handbook's settings of conf.py, in small.
extensions = ['handbook.publishing.link_previews', 'handbook.publishing.page_dates', 'handbook.rulings.dates', 'handbook.publishing.site_urls']
project = '测试手册'
language = 'zh_CN'
html_theme = 'furo'
html_baseurl = 'https://example.org/handbook'  # no final slash: site_urls adds it
html_last_updated_fmt = '%Y-%m-%d'
git_last_updated_timezone = 'Asia/Shanghai'
ogp_social_cards = {'enable': False}
ogp_custom_meta_tags = ['<meta name="twitter:card" content="summary" />']
notfound_template = 'handbook-404.html'  # _ext/handbook/templates/, added by site_urls
notfound_context = {'body': ''}
redirects = {
    'old-name': 'renamed.html',             # a page renamed
    'sub/moved': '../renamed.html#foreword',  # a page moved out of sub/, to a section
}
