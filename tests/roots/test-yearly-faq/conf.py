# An existing handbook with yearly FAQ pages (issue 31): rulings dated by their
# day sections under source headers, most lines without a date, whole struck
# lines, a page-level `.. role:: strike`, an outdated day; a chapter page with
# dates in mid-sentence.  Its link file is a legacy one; it sets no
# ruling_hosts.  tests/test_yearly_faq.py
extensions = ['handbook.cards', 'handbook.rulings', 'handbook.sections', 'handbook.listings',
              'handbook.search']
handbook_cards = 'links.rst'
language = 'zh_CN'
html_search_language = 'zh'
