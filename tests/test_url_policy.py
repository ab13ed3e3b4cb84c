"""One URL policy for every link the site emits (_ext/handbook/core/url_policy.py;
issue 34, case 4): read as the browser reads it (WHATWG), only http(s) or
relative paths inside the site; a backslash or a user name is an error, and
the host a badge names is the host the browser visits."""

from __future__ import annotations

import re

import pytest

from helpers import html, warnings
from handbook.core import url_policy


@pytest.mark.parametrize(('url', 'problem', 'host'), [
    ('https://www.db.yugioh-card.com/yugiohdb/faq_search.action?fid=1', None,
     'www.db.yugioh-card.com'),
    ('HTTP://WWW.DB.YUGIOH-CARD.COM:80/x', None, 'www.db.yugioh-card.com'),
    # Python's urlsplit reads the official database as the host of the first
    # two; the browser opens evil.host
    ('https://evil.host\\@www.db.yugioh-card.com/',
     'holds a backslash, which browsers read as / (this link would open evil.host)', None),
    ('https://www.db.yugioh-card.com@evil.host/',
     'holds a user name before @, which hides where it goes (browsers open evil.host)', None),
    ('https://a:b@ygocdb.com/', 'holds a user name before @, which hides where it goes '
                                '(browsers open ygocdb.com)', None),
    # what the browser visits, as it writes it
    ('https://www.db.yugioh-card%2Ecom/x', None, 'www.db.yugioh-card.com'),
    ('https://例子.中国/', None, 'xn--fsqu00a.xn--fiqs8s'),
    ('http://0x7f.1/', None, '127.0.0.1'),
    ('//evil.host/y', 'has no scheme (http: or https:)', None),
    ('\\\\evil.host/z', 'has no scheme (http: or https:)', None),
    ('javascript:alert(1)', 'is a javascript: URL, not an http(s) address', None),
    ('JaVaScRiPt:alert(1)', 'is a javascript: URL, not an http(s) address', None),
    ('mailto:a@b.c', 'is a mailto: URL, not an http(s) address', None),
    ('data:text/html,x', 'is a data: URL, not an http(s) address', None),
    ('\x01javascript:alert(1)', 'holds the character U+0001', None),
    ('https://ygocdb.com/\u202ex', 'holds the character U+202E', None),
    ('https://', 'is not a valid URL', None),
    ('https://h:99999/', 'is not a valid URL', None),
])
def test_absolute_urls_are_read_as_the_browser_reads_them(url, problem, host):
    assert url_policy.absolute_problem(url) == problem
    assert url_policy.host(url) == host


@pytest.mark.parametrize(('url', 'page', 'problem'), [
    ('other.html#x', 'index', None),
    ('../index.html', 'cards/旋风', None),
    ('../index.html', 'index', 'leads out of the site'),
    ('/etc/passwd', 'index', 'leads out of the site'),
    ('\\other.html', 'index', 'holds a backslash, which browsers read as /'),
    ('other.html', None, 'is not an http(s) URL'),
])
def test_relative_paths_stay_inside_the_site(url, page, problem):
    assert url_policy.problem(url, page=page) == problem


@pytest.mark.sphinx('html', testroot='url-policy', freshenv=True)
def test_every_link_the_site_emits_follows_the_policy(app):
    app.build()
    shown = 'it is not linked, the date is shown as plain text'
    plain = ('it is shown as plain text; write the https:// address of the page it should '
             'open, or remove the link [handbook.link]')
    assert warnings(app) == [
        "cards.tsv:3: ERROR: URL 'https://evil.host\\\\@ygocdb.com/card/1' holds a backslash, "
        'which browsers read as / (this link would open evil.host), so it is never a link; use '
        'https://… or leave it empty; until then, pages that name 「增殖的G」 show it without a '
        'link [handbook.registry]',
        "cards.tsv:4: ERROR: URL 'https://ygocdb.com@evil.host/card/2' holds a user name before "
        '@, which hides where it goes (browsers open evil.host), so it is never a link; use '
        'https://… or leave it empty; until then, pages that name 「神之宣告」 show it without a '
        'link [handbook.registry]',
        "index.rst:6: ERROR: ruling URL 'https://evil.host\\\\@www.db.yugioh-card.com/' holds a "
        f'backslash, which browsers read as / (this link would open evil.host): {shown}; remove '
        'it from the URL (:ruling:`17/3/28 <https://…>`), or write the date alone, '
        ':ruling:`17/3/28` [handbook.ruling]',
        "index.rst:7: ERROR: ruling URL 'https://www.db.yugioh-card.com@evil.host/' holds a user "
        f'name before @, which hides where it goes (browsers open evil.host): {shown}; remove it '
        'from the URL (:ruling:`17/3/29 <https://…>`), or write the date alone, '
        ':ruling:`17/3/29` [handbook.ruling]',
        "index.rst:10: ERROR: link '斜线' goes to '//evil.host/y', which has no scheme (http: or "
        f'https:): {plain}',
        "index.rst:10: ERROR: link '反斜线' goes to '\\\\evil.host/z', which holds a backslash, "
        f'which browsers read as /: {plain}',
        "index.rst:10: ERROR: link '邮件' goes to 'mailto:a@b.c', which is a mailto: URL, not an "
        f'http(s) address: {plain}',
        "index.rst:12: ERROR: link '出站' goes to '../../../x.html', which leads out of the "
        f'site: {plain}',
        "index.rst:14: ERROR: image 'javascript:alert(1)' is a javascript: URL, not an http(s) "
        'address: it is left out; give a file of the source folder or an https:// address '
        '[handbook.link]',
    ]
    page = html(app)
    hrefs = re.findall(r'(?:href|src)="([^"]*)"', page)
    assert [h for h in hrefs if 'evil' in h or h.startswith(('javascript', 'mailto', '//'))] == []
    assert 'index.html#页' in hrefs  # a link inside the site stays
    # the host the browser visits is the official database: no warning, its badge
    assert ('<a class="ruling reference external" href="https://www.db.yugioh-card%2Ecom/'
            'yugiohdb/faq_search.action?fid=5">17/3/30</a>') in page
    assert 'ruling-source-faq">数据库 #5</span>' in page
