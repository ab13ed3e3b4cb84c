# Yearly FAQ pages in the generated listings (issue 31): the timeline, 最近更新
# and its feed, the card index, of rulings dated by their day sections; a whole
# struck line, an outdated day whose note links what supersedes it, source
# headers.  The feed needs the site's address.  tests/test_yearly_faq.py
extensions = ['handbook.cards', 'handbook.rulings', 'handbook.sections', 'handbook.listings']
handbook_cards = 'links.rst'
language = 'zh_CN'
html_baseurl = 'https://example.org/handbook/'
