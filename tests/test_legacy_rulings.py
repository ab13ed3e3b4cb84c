"""Existing handbooks (issue 11): their rulings, their own settings, hostile input.

Items 6 (settings belong to the handbook being built: ``handbook.toml``,
:mod:`handbook.core.settings`), 7 (``http://`` ruling URLs: notes with the
https URL) and 9 (malformed roles and hostile input: located errors, never a
traceback, never a link that is not http(s), never unescaped HTML).

Roots: ``test-legacy-handbook`` (fine: notes only), ``test-legacy-faults``
(``rulings.rst``, ``hostile.rst``), ``test-legacy-settings`` (a tree with its
own settings file).  Other pages of the two legacy roots belong to other
tests: the assertions here are about the reports located in this file's pages.
"""

from __future__ import annotations

import datetime
import io
import re
import runpy
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from sphinx.util.console import strip_escape_sequences

from conftest import ROOT
from handbook.core import settings
from handbook.rulings.dates import https_url, parse_role_text
from handbook.rulings.lines import rulings
from helpers import html, warnings

FAQ = 'https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid={}&request_locale=ja'
HTTP_FAQ = FAQ.replace('https:', 'http:', 1)
TODAY = datetime.date.today().isoformat()


def notes(app) -> list[str]:
    """The build's notes (status stream), paths relative to srcdir."""
    text = strip_escape_sequences(app.status.getvalue()).replace(str(app.srcdir) + '/', '')
    return re.findall(r'\S+: note: .*', text)


def reports(app, *pages: str) -> list[str]:
    """Errors, warnings and notes located in *pages*, sorted by page and line."""
    found = [r for r in warnings(app) + notes(app) if r.split(':', 1)[0] in pages]
    return sorted(found, key=lambda r: (r.split(':')[0], int(r.split(':')[1])))


def hrefs(outdir: Path) -> list[tuple[str, str]]:
    """``(page, URL)`` of every href and src of every page written."""
    found = []
    for path in sorted(outdir.rglob('*.html')):
        text = path.read_text(encoding='utf-8')
        found += [(path.name, url) for url in
                  re.findall(r'''(?:href|src)\s*=\s*["']?([^"'\s>]*)''', text, re.I)]
    return found


def assert_only_safe_links(outdir: Path) -> None:
    """Every href and src is http(s), mailto or relative; no unescaped script."""
    unsafe = [(name, url) for name, url in hrefs(outdir)
              if re.match(r'\s*[a-z][a-z0-9+.-]*:', url, re.I)
              and not re.match(r'(https?|mailto):', url, re.I)]
    assert unsafe == []
    scripts = [path.name for path in outdir.rglob('*.html')
               if re.search(r'<script>\s*alert', path.read_text(encoding='utf-8'))]
    assert scripts == []


# -- item 7: a fine handbook's rulings ---------------------------------------------


@pytest.mark.sphinx('html', testroot='legacy-handbook', freshenv=True)
def test_fine_rulings_get_notes_only(app):
    app.build()
    https = 'the same page over https; make fix rewrites it'
    wiki = 'http://yugioh-wiki.net/index.php?cmd=read&page=FAQ'
    assert reports(app, 'rulings.rst') == [
        f"rulings.rst:14: note: ruling URL {HTTP_FAQ.format(9000)!r} is http: write "
        f'{FAQ.format(9000)} ({https}) [handbook.ruling-https]',
        f"rulings.rst:15: note: ruling URL {HTTP_FAQ.format(9001)!r} is http: write "
        f'{FAQ.format(9001)} ({https}) [handbook.ruling-https]',
        f"rulings.rst:24: note: ruling URL {wiki!r} is http: write "
        f'https://yugioh-wiki.net/index.php?cmd=read&page=FAQ ({https}) [handbook.ruling-https]',
    ]
    page = html(app, 'rulings')
    # the http links stay as written; every date is a ruling
    assert f'href="{HTTP_FAQ.format(9000).replace("&", "&amp;")}">19/4/18</a>' in page
    assert f'href="{HTTP_FAQ.format(9001).replace("&", "&amp;")}">20/1/13</a>' in page
    found = [(r.dates, tuple(ref.faq for ref in r.references))
             for r in rulings(app.env)['rulings']]
    assert found == [(('2017-03-24',), (None,)), (('2018-01-13',), ('7000',)),
                     (('2019-02-04',), ('8000',)), (('2019-04-18',), ('9000',)),
                     (('2020-01-13',), ('9001',)), (('2017-07-28',), (None,)),
                     (('2017-12-22',), (None,))]
    # 调整中 is written here: an ordinary link, no planned mark
    assert '<a class="reference internal" href="#调整中"><span class="std std-ref">调整中</span></a>' in page
    assert 'planned' not in page


def test_another_handbook_built_with_the_toolchains_conf_gets_its_own_settings(tmp_path):
    """``make check SOURCEDIR=…`` with this project's conf.py (issue 11, item 6):
    the other handbook's handbook.toml applies (its registry, its ruling hosts),
    this handbook's does not -- none of its 14 planned sections, such as 调整中,
    which the other handbook writes.  In a child process: conf.py's extensions
    keep per-process state that later tests must not inherit."""
    ours = settings.load(ROOT / 'source' / 'handbook.toml').values
    assert '调整中' in ours['handbook_planned_sections']  # else this test proves nothing
    srcdir = ROOT / 'tests' / 'roots' / 'test-legacy-handbook'
    done = subprocess.run(
        [sys.executable, '-m', 'sphinx', '-b', 'dummy', '-E', '-c', str(ROOT),
         '-d', str(tmp_path / 'doctrees'), str(srcdir), str(tmp_path / 'out')],
        cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    output = strip_escape_sequences(done.stdout + done.stderr).replace(f'{srcdir}/', '')
    assert 'planned' not in output
    assert 'undefined label' not in output
    # the wiki is a ruling host of this handbook's settings (conf.py lists none)
    assert [re.sub(r' \(the same .*', '', line) for line in re.findall(r'\S*rulings\.rst:.*', output)] == [
        f"rulings.rst:14: note: ruling URL {HTTP_FAQ.format(9000)!r} is http: write {FAQ.format(9000)}",
        f"rulings.rst:15: note: ruling URL {HTTP_FAQ.format(9001)!r} is http: write {FAQ.format(9001)}",
        "rulings.rst:24: note: ruling URL 'http://yugioh-wiki.net/index.php?cmd=read&page=FAQ' is "
        'http: write https://yugioh-wiki.net/index.php?cmd=read&page=FAQ',
    ]


# -- items 7, 9: faults in rulings -------------------------------------------------


ALLOWED = ['www.db.yugioh-card.com', 'yugioh-wiki.net']


@pytest.mark.parametrize('allowed', [None, ALLOWED])
def test_ruling_faults_at_their_line(make_app, rootdir, tmp_path, allowed):
    """Without ``ruling_hosts`` any https host is a source (issue 31, item
    4); a handbook that lists some makes every other host a warning."""
    overrides = {} if allowed is None else {'handbook_ruling_hosts': allowed}
    app = make_app('html', srcdir=rootdir / 'test-legacy-faults', builddir=tmp_path,
                   confoverrides=overrides)
    app.build()
    calendar = 'is not a calendar date; check the month and the day [handbook.ruling]'
    hosts = ('is not an allowed source (www.db.yugioh-card.com, yugioh-wiki.net); link one of '
             'those, or add the host to the command line option -D handbook_ruling_hosts=… if '
             'it is a trusted source [handbook.ruling]')
    https = (f'is http: write {FAQ.format(19691)} (the same page over https; make fix rewrites '
             'it) [handbook.ruling-https]')
    other_hosts = [] if allowed is None else [
        f"rulings.rst:14: WARNING: ruling URL host 'example.org' {hosts}",
        f"rulings.rst:15: WARNING: ruling URL host 'example.org' {hosts}",
        f"rulings.rst:16: WARNING: ruling URL host 'example.org' {hosts}",
    ]
    assert reports(app, 'rulings.rst') == [
        f"rulings.rst:9: ERROR: ruling date '17/2/30' {calendar}",
        "rulings.rst:10: ERROR: malformed ruling date '17/3'; write the date of the official "
        'answer as YY/M/D, e.g. 17/3/24 [handbook.ruling]',
        f"rulings.rst:11: ERROR: ruling date '89/1/1' (2089-01-01) is after today ({TODAY}); "
        'check the year [handbook.ruling]',
        "rulings.rst:12: ERROR: FAQ id 'abc' is not a positive integer of at most 9 digits; the "
        "date is shown without a link: write :ruling:`17/3/24 <faq:ID>` with the number after fid= in the FAQ's URL, "
        'or the date alone, :ruling:`17/3/24` [handbook.ruling]',
        f"rulings.rst:13: ERROR: ruling date '17/3/32' {calendar}",
        *other_hosts,
        # http on a host not known to serve https (example.org, line 16): no fix to offer
        f'rulings.rst:17: note: ruling URL {HTTP_FAQ.format(19691)!r} {https}',
        f'rulings.rst:18: note: ruling URL {HTTP_FAQ.format(19691)!r} {https}',
        f"rulings.rst:22: ERROR: ruling date '17/4/31' {calendar}",
        "rulings.rst:24: note: '17/2/30' is written as a date but is not a calendar date: it is "
        'left as text; if it dates a ruling, correct the month or the day [handbook.ruling-plain]',
        "rulings.rst:26: note: '89/1/1' is written as a date but is after today (2089-01-01): it "
        'is left as text; if it dates a ruling, correct the year [handbook.ruling-plain]',
        "rulings.rst:28: note: '13/14/15' is written as a date but is not a calendar date: it "
        'is left as text; if it dates a ruling, correct the month or the day '
        '[handbook.ruling-plain]',
        "rulings.rst:29: note: '17/2/29' is written as a date but is not a calendar date: it "
        'is left as text; if it dates a ruling, correct the month or the day '
        '[handbook.ruling-plain]',
        "rulings.rst:31: note: ruling date '１７/３/２４' is written with full-width characters: "
        'write 17/3/24 (the same date, as the dates are searched and sorted) '
        '[handbook.ruling-fullwidth]',
        *(f'rulings.rst:{line}: note: {written!r} is a date in a form that dates no ruling: if '
          'it dates one, write 17/3/24 [handbook.ruling-plain]'
          for line, written in ((38, '2017/3/24'), (39, '17-3-24'), (39, '2017-03-24'))),
        "rulings.rst:43: note: '99-3-24' is a date in a form that dates no ruling: if it dates "
        'one, write 99/3/24 [handbook.ruling-plain]',
    ]
    page = html(app, 'rulings')
    # a URL on another host, or http://, stays a link: the reader can follow it
    assert page.count('href="https://example.org/faq/19691">17/3/24</a>') == 2
    assert 'href="http://example.org/faq/19691">17/3/24</a>' in page


# -- item 9: hostile input ---------------------------------------------------------

NOT_LINKED = 'it is not linked, the date is shown as plain text'
FAQ_URL = "write the FAQ's https URL"


@pytest.mark.sphinx('html', testroot='legacy-faults', freshenv=True)
def test_hostile_input_is_a_located_error_never_a_link(app):
    app.build()
    data = 'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=='
    alone = 'or write the date alone, :ruling:`17/3/24` [handbook.ruling]'
    link_fix = ('it is shown as plain text; write the https:// address of the page it should '
                'open, or remove the link [handbook.link]')
    assert reports(app, 'hostile.rst') == [
        "hostile.rst:9: ERROR: malformed ruling reference ':ruling:`17/3/24 <faq:1\">x>`': after "
        'the date, only one target in angle brackets may follow, with no < or > inside; it is '
        'shown as plain text: write :ruling:`17/3/24`, :ruling:`17/3/24 <faq:ID>` or '
        ':ruling:`17/3/24 <https://…>` [handbook.ruling]',
        "hostile.rst:10: ERROR: ruling URL 'javascript:alert(1)' is a javascript: URL, not an "
        f'http(s) address: {NOT_LINKED}; {FAQ_URL}, :ruling:`17/3/24 <https://…>`, {alone}',
        f"hostile.rst:11: ERROR: ruling URL '{data}' is a data: URL, not an http(s) address: "
        f'{NOT_LINKED}; {FAQ_URL}, :ruling:`17/3/24 <https://…>`, {alone}',
        "hostile.rst:12: ERROR: ruling URL 'file:///etc/passwd' is a file: URL, not an http(s) "
        f'address: {NOT_LINKED}; {FAQ_URL}, :ruling:`17/3/24 <https://…>`, {alone}',
        f"hostile.rst:13: ERROR: ruling URL '{FAQ.format(19691)[6:]}' has no scheme (http: or "
        f'https:): {NOT_LINKED}; write :ruling:`17/3/24 <{FAQ.format(19691)}>`, {alone}',
        f"hostile.rst:14: ERROR: ruling URL '{FAQ.format('19691 ')}' holds a space: {NOT_LINKED}; "
        f'remove it from the URL (:ruling:`17/3/24 <https://…>`), {alone}',
        "hostile.rst:15: ERROR: ruling URL 'javascript:alert(1)' is a javascript: URL, not an "
        f'http(s) address: {NOT_LINKED}; {FAQ_URL}, `17/3/24 <https://…>`__, {alone}',
        f"hostile.rst:16: ERROR: ruling URL '{data}' is a data: URL, not an http(s) address: "
        f'{NOT_LINKED}; {FAQ_URL}, `17/3/24 <https://…>`__, {alone}',
        "hostile.rst:17: ERROR: link '链接' goes to 'javascript:alert(1)', which is a javascript: "
        f'URL, not an http(s) address: {link_fix}',
        "hostile.rst:17: ERROR: link '链接二' goes to 'vbscript:msgbox(1)', which is a vbscript: "
        f'URL, not an http(s) address: {link_fix}',
        # HTML typed into the text shows as text, escaped (struck text and a title too)
        "hostile.rst:18: ERROR: HTML tags '<script>', '</script>' in the text: "
        'reStructuredText is not HTML, so readers see them as text: delete them [handbook.html]',
        "hostile.rst:20: ERROR: malformed ruling reference ':ruling:`<script>alert(1)</script>`': "
        'after the date, only one target in angle brackets may follow, with no < or > inside; '
        'it is shown as plain text: write :ruling:`YY/M/D`, :ruling:`YY/M/D <faq:ID>` or '
        ':ruling:`YY/M/D <https://…>` [handbook.ruling]',
        'hostile.rst:21: ERROR: the line holds the control character U+0001, which readers see as '
        'nothing or as a box and which EPUB readers reject: delete it (the page is built without '
        'it) [handbook.control-character]',
        # an invisible character is left out of the page, wherever it is (issue 34)
        'hostile.rst:22: ERROR: the line holds the invisible character U+202E (RIGHT-TO-LEFT '
        'OVERRIDE), which readers do not see but which changes how the text reads and the ids '
        'made from it: delete it (the page is built without it) [handbook.invisible-character]',
        "hostile.rst:29: ERROR: HTML tags '<script>', '</script>' in the text: "
        'reStructuredText is not HTML, so readers see them as text: delete them [handbook.html]',
        # docutils links a URI standing alone in the text
        "hostile.rst:34: ERROR: link 'javascript:alert(1' goes to 'javascript:alert(1', which is "
        f'a javascript: URL, not an http(s) address: {link_fix}',
    ]
    page = html(app, 'hostile')
    assert_only_safe_links(app.outdir)
    # the dates stay rulings, as plain text; the malformed roles are plain text, escaped
    # (line 22's URL, its invisible character left out, is a link)
    assert page.count('<span class="ruling">17/3/24</span>') == 7
    # quotes in a URL stay inside the href
    assert ('href="https://www.db.yugioh-card.com/&quot;onmouseover=&quot;alert(1)">17/3/24</a>'
            in page)
    assert '<span>17/3/24 &lt;faq:1”&gt;x&gt;</span>' in page
    assert '<span>&lt;script&gt;alert(1)&lt;/script&gt;</span>' in page
    assert '<span>链接</span> 与 <span>链接二</span>' in page
    # HTML in a role's text and in a title is text
    assert '<del class="strike">&lt;script&gt;alert(1)&lt;/script&gt;</del>' in page
    assert ('<a class="reference internal" href="#hostile-title"><span class="std std-ref">'
            '&lt;script&gt;alert(1)&lt;/script&gt;</span></a>') in page
    assert '\x01' not in page and '控制字符。' in page
    # a malformed role is not a ruling
    assert [r.references[0].text for r in rulings(app.env)['hostile']] == ['17/3/24'] * 9


@pytest.mark.parametrize(('url', 'problem'), [
    ('https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid=1', None),
    ('https://例子.cn/页', None),
    ('http://a b', 'holds a space'),
    ('http://a\tb', 'holds the character U+0009'),
    ('http://a\x7fb', 'holds the character U+007F'),  # ASCII, not printable
    ('http://a\x1cb', 'holds the character U+001C'),
    ('http://a\u3000b', 'holds the character U+3000'),
    ('http://a\u202eb', 'holds the character U+202E'),
    ('javascript:alert(1)', 'is a javascript: URL, not an http(s) address'),
])
def test_what_a_link_must_not_hold(url, problem):
    # an ASCII URL of printable characters is not looked at character by character
    from handbook.core.hostile_input import unsafe_link

    assert unsafe_link(url) == problem


def test_the_same_unsafe_link_twice_in_a_paragraph_is_reported_at_each_line(
        make_app, rootdir, tmp_path):
    # each link located as the paragraph was read, not among the links not
    # yet replaced (the second one got the first one's line)
    shutil.copytree(rootdir / 'test-legacy-faults', tmp_path / 'src')
    (tmp_path / 'src' / 'twice.rst').write_text(
        ':orphan:\n\nTwice\n=====\n\n'
        '第一行 `链接 <javascript:alert(1)>`__，\n第二行 `链接 <javascript:alert(1)>`__。\n\n'
        '| 第一条裁定。`17/3/24 <javascript:alert(1)>`__\n'
        '  接着写。`17/3/24 <javascript:alert(1)>`__\n',
        encoding='utf-8')
    app = make_app('html', srcdir=tmp_path / 'src')
    app.build()
    unsafe = ("ERROR: link '链接' goes to 'javascript:alert(1)', which is a javascript: URL, "
              'not an http(s) address: it is shown as plain text; write the https:// address '
              'of the page it should open, or remove the link [handbook.link]')
    found = reports(app, 'twice.rst')
    assert found[:2] == [f'twice.rst:6: {unsafe}', f'twice.rst:7: {unsafe}']
    # a legacy date link to such a URL: plain text, reported at its own line
    assert [r.split(': ERROR: ')[0] for r in found[2:]] == ['twice.rst:9', 'twice.rst:10'], found


def test_binary_page_and_megabyte_line(make_app, rootdir, tmp_path):
    """A page that is not UTF-8 (Sphinx 9.0 crashes on it) and a 1 MB line
    with a hostile ruling role: located errors, and the rest builds."""
    srcdir = tmp_path / 'legacy-faults'
    shutil.copytree(rootdir / 'test-legacy-faults', srcdir)
    (srcdir / 'binary.rst').write_bytes(b':orphan:\n\nBinary\n======\n\n\xff\xfe\x00\x01 \xc3(\n')
    huge = 'javascript:' + 'a' * 1_000_000
    (srcdir / 'huge.rst').write_text(
        f':orphan:\n\nHuge\n====\n\n| {"……" * 1000}\\ :ruling:`17/3/24 <{huge}>`\n',
        encoding='utf-8')
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    assert reports(app, 'binary.rst', 'huge.rst') == [
        'binary.rst:6: ERROR: the page is not UTF-8 text (byte 0xff), so it is not built: save '
        'it as UTF-8, or move it out of the source folder if it is not a page [handbook.encoding]',
        f"huge.rst:6: ERROR: ruling URL '{huge[:100]}…' is a javascript: URL, not an http(s) "
        f'address: {NOT_LINKED}; {FAQ_URL}, :ruling:`17/3/24 <https://…>`, or write the date '
        'alone, :ruling:`17/3/24` [handbook.ruling]',
    ]
    assert not (app.outdir / 'binary.html').exists()
    assert '<span class="ruling">17/3/24</span>' in html(app, 'huge')
    assert_only_safe_links(app.outdir)


def test_role_text_parsing():
    assert parse_role_text('17/3/24') == ('17/3/24', None)
    assert parse_role_text(' 17/3/24  <faq:1> ') is None  # text after '>'
    assert parse_role_text('17/3/24  <faq:1>') == ('17/3/24', 'faq:1')
    assert parse_role_text('17/3/24 <faq:1">x>') is None
    assert parse_role_text('17/3/24 <<faq:1>') is None
    assert parse_role_text('17/3/24 faq:1>') is None
    assert parse_role_text('17/3/24 <faq:1') is None
    assert parse_role_text('17/3/24 < >') is None


def test_https_url():
    hosts = ['www.db.yugioh-card.com', 'yugioh-wiki.net']
    assert https_url(HTTP_FAQ.format(1), hosts) == FAQ.format(1)
    assert https_url('HTTP://yugioh-wiki.net/index.php?a#b', hosts) == \
        'https://yugioh-wiki.net/index.php?a#b'
    assert https_url('http://www.db.yugioh-card.com:80/x', hosts) == \
        'https://www.db.yugioh-card.com/x'
    assert https_url('http://www.db.yugioh-card.com:8080/x', hosts) is None  # port unknown
    assert https_url(FAQ.format(1), hosts) is None  # already https
    assert https_url('http://example.org/x', hosts) is None  # not an allowed host
    assert https_url('http://www.db.yugioh-card.com/a b', hosts) is None
    assert https_url('javascript:alert(1)', hosts) is None


# -- item 6: the handbook's own settings -------------------------------------------


@pytest.mark.sphinx('html', testroot='legacy-settings', freshenv=True)
def test_the_settings_file_is_used(app):
    """Each key of handbook.toml replaces conf.py's value: the registry (in a
    subfolder, relative to the file), the planned sections, the changed
    markers, the ruling hosts, the FAQ address."""
    app.build()
    assert reports(app, 'index.rst') == [
        "index.rst:10: WARNING: ruling URL host 'www.db.yugioh-card.com' is not an allowed source "
        '(ocg-rule.readthedocs.io); link one of those, or add the host to ruling_hosts in '
        'handbook.toml if it is a trusted source [handbook.ruling]',
        "index.rst:12: ERROR: undefined label 'conf的标签', so the link leads nowhere (its text "
        'is shown plain): define it on the line before the section it names, .. _conf的标签:, '
        'or write a label the handbook defines, or, for a section not written yet, list it in '
        "planned_sections of the handbook's handbook.toml [handbook.ref]",
        "index.rst:15: note: section '已写' is written now (its label is defined here); remove "
        "'已写' from planned_sections in handbook.toml [handbook.planned]",
    ]
    page = html(app)
    assert '>旋风</a>' in page  # the registry of data/cards.tsv
    assert f'href="{FAQ.format(19691).replace("&", "&amp;")}">17/3/24</a>' in page
    assert page.count('<span class="planned">') == 1
    assert '<span class="planned"><span class="xref std std-ref">调整中</span>' in page
    changed = [(r.dates[0], r.changed) for r in rulings(app.env)['index']]
    assert changed == [('2017-03-24', False), ('2018-01-13', True), ('2018-01-14', False),
                       ('2019-02-04', False), ('2019-02-05', False)]


@pytest.mark.sphinx('html', testroot='legacy-settings', freshenv=True,
                    confoverrides={'handbook_planned_sections': ['conf的标签'],
                                   'handbook_ruling_hosts': 'www.db.yugioh-card.com'})
def test_the_command_line_overrides_the_settings_file(app):
    app.build()
    assert reports(app, 'index.rst') == [
        "index.rst:9: WARNING: ruling URL host 'ocg-rule.readthedocs.io' is not an allowed source "
        '(www.db.yugioh-card.com); link one of those, or add the host to the command line option '
        '-D handbook_ruling_hosts=… if it is a trusted source [handbook.ruling]',
        "index.rst:11: ERROR: undefined label '调整中', so the link leads nowhere (its text is "
        'shown plain): define it on the line before the section it names, .. _调整中:, or write '
        'a label the handbook defines, or, for a section not written yet, list it in '
        "planned_sections of the handbook's handbook.toml [handbook.ref]",
    ]
    assert '<span class="planned"><span class="xref std std-ref">conf的标签</span>' in html(app)


BAD_SETTINGS = [
    # (the settings file, the report: line and message)
    ("planned_sections = ['调整中']\nplanned_section = ['已写']\n",
     "2: ERROR: unknown setting 'planned_section'; the settings are author, cards, "
     "changed_markers, faq_pages, faq_url, locale_dir, meta_http_equiv, outside_files, "
     "planned_sections, raw_html, ruling_hosts, source_headers, superseded_markers, title "
     "(e.g. planned_sections = ['调整中'])"),
    # a link of the pages' policy (a hostile-input round trip: FAQ links went to
    # evil.example, or vanished, with no report)
    ("faq_url = 'https://www.db.yugioh-card.com@evil.example/faq?fid={id}'\n",
     "1: ERROR: setting 'faq_url' holds a user name before @, which hides where it goes "
     "(browsers open evil.example): 'https://www.db.yugioh-card.com@evil.example/faq?fid={id}'; "
     "e.g. faq_url = 'https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid={id}"
     "&request_locale=ja'"),
    # text a reader sees on every page: no invisible character (a round trip)
    ("title = '某某\u00ad手册'\n",
     "1: ERROR: setting 'title' holds the invisible or control character U+00AD: delete it"),
    # the catalogs' folder need not exist (make intl-update makes it), but is no file
    ("locale_dir = 'index.rst'\n",
     "1: ERROR: setting 'locale_dir' names 'index.rst', which is a file (index.rst); "
     "write the path of the folder of the catalogs (<language>/LC_MESSAGES/*.po) relative to "
     "the settings file"),
    ("locale_dir = ['../locale']\n",
     "1: ERROR: setting 'locale_dir' must be a path (a string), relative to the settings file, "
     "not a list; e.g. locale_dir = '../locale'"),
    ("title = ''\n",
     "1: ERROR: setting 'title' must be a string, the handbook's name, not an empty string; "
     "e.g. title = '某某裁定手册'"),
    ("source_headers = { '推特' = 'tweet' }\n",
     "1: ERROR: setting 'source_headers' gives the header '推特' the kind 'tweet'; the kinds are "
     "faq, wiki, mail, other: e.g. source_headers = { '数据库' = 'faq', '邮件' = 'mail' }"),
    ("cards = 'data/cards.tsv'\nplanned_sections = '调整中'\n",
     "2: ERROR: setting 'planned_sections' must be a list of labels (strings), not a string; "
     "e.g. planned_sections = ['调整中']"),
    ("changed_markers = ['修订', 3]\n",
     "1: ERROR: setting 'changed_markers' must be a list of words (strings), not a list with an "
     "empty or non-string item; e.g. changed_markers = ['裁定变更']"),
    # a list where a table goes: not said to hold what it does not
    ("source_headers = ['推特']\n",
     "1: ERROR: setting 'source_headers' must be a table of header words and source kinds "
     "('faq', 'wiki', 'mail' or 'other'), not a list; e.g. source_headers = { '数据库' = 'faq', "
     "'邮件' = 'mail' }"),
    ("cards = 'data/cards.tsv'\n\n[ruling_hosts]\nwww = 1\n",
     "3: ERROR: setting 'ruling_hosts' must be a list of host names (strings), not a table; "
     "e.g. ruling_hosts = ['www.db.yugioh-card.com']"),
    ("ruling_hosts = ['https://www.db.yugioh-card.com/']\n",
     "1: ERROR: setting 'ruling_hosts' holds 'https://www.db.yugioh-card.com/', which is not a "
     "host name; write 'www.db.yugioh-card.com'"),
    ("faq_url = 'https://www.db.yugioh-card.com/faq'\n",
     "1: ERROR: setting 'faq_url' must be an http(s) URL (a string) with {id} where the FAQ id "
     "goes, not 'https://www.db.yugioh-card.com/faq'; e.g. faq_url = "
     "'https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid={id}&request_locale=ja'"),
    # unclosed: at the line that opens it, not where TOML gave up (a round trip)
    ("cards = 'data/cards.tsv'\nplanned_sections = ['调整中'\n",
     "2: ERROR: the settings file is not valid TOML: Unclosed array; write each setting as "
     "key = value, e.g. planned_sections = ['调整中']: none of its settings apply"),
    ("planned_sections = ['调整中'\ncards = 'data/cards.tsv'\n",
     "1: ERROR: the settings file is not valid TOML: Unclosed array; write each setting as "
     "key = value, e.g. planned_sections = ['调整中']: none of its settings apply"),
    # a ] in a string or a comment closes nothing; a list closed on a later line is closed
    ("planned_sections = [\n  '调整中',\n]\nchanged_markers = ['[x]', 'y'\n",
     "4: ERROR: the settings file is not valid TOML: Unclosed array; write each setting as "
     "key = value, e.g. planned_sections = ['调整中']: none of its settings apply"),
    ("changed_markers = ['x'  # ]\ncards = 'data/cards.tsv'\n",
     "1: ERROR: the settings file is not valid TOML: Unclosed array; write each setting as "
     "key = value, e.g. planned_sections = ['调整中']: none of its settings apply"),
    ("cards = data/cards.tsv\n",
     "1: ERROR: the settings file is not valid TOML: Invalid value; write each setting as "
     "key = value, e.g. planned_sections = ['调整中']: none of its settings apply"),
    # at the end of the file: its last line, not the one after (an editor's round trip)
    ("planned_sections = ['调整中]\n",
     "1: ERROR: the settings file is not valid TOML: Expected \"'\"; write each setting as "
     "key = value, e.g. planned_sections = ['调整中']: none of its settings apply"),
    (b"# \xff\ncards = 'data/cards.tsv'\n",
     '1: ERROR: the settings file is not UTF-8 (byte 0xff); save it as UTF-8: none of its '
     'settings apply'),
]


def test_the_handbooks_own_title_and_editors(make_app, rootdir, tmp_path):
    """``title`` and ``author`` in handbook.toml: the handbook's own name and
    editors, in its pages' titles and its EPUB's, and an EPUB identifier of
    its own, the same at each build (an adopter's round trip: its site and
    EPUB carried this project's name and its identifier)."""
    srcdir = tmp_path / 'legacy-settings'
    shutil.copytree(rootdir / 'test-legacy-settings', srcdir)
    with (srcdir / 'handbook.toml').open('a', encoding='utf-8') as settings:
        settings.write("title = '另一本裁定手册'\nauthor = '另一组编者'\n")
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    config = app.config
    assert (config.project, config.html_title, config.epub_title) == ('另一本裁定手册',) * 3
    assert (config.author, config.copyright, config.epub_publisher, config.epub_author) == \
        ('另一组编者',) * 4
    assert config.epub_identifier == 'urn:uuid:' + str(
        uuid.uuid5(uuid.NAMESPACE_URL, 'handbook:另一本裁定手册'))
    assert '<title>' in html(app) and '另一本裁定手册</title>' in html(app)
    assert [w for w in warnings(app) if 'handbook.settings' in w] == []


@pytest.mark.parametrize(('text', 'report'), BAD_SETTINGS)
def test_bad_settings_are_located_errors(make_app, rootdir, tmp_path, text, report):
    srcdir = tmp_path / 'legacy-settings'
    shutil.copytree(rootdir / 'test-legacy-settings', srcdir)
    path = srcdir / 'handbook.toml'
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    # conf.py's registry does not exist: the build goes on with the command line's
    app = make_app('dummy', srcdir=srcdir, freshenv=True,
                   confoverrides={'handbook_cards': 'data/cards.tsv'})
    assert [w for w in warnings(app) if 'handbook.settings' in w] == \
        [f'handbook.toml:{report} [handbook.settings]']


def test_a_translated_edition_reads_the_handbooks_own_catalogs(make_app, rootdir, tmp_path):
    """``locale_dir`` in handbook.toml: the handbook's catalogs, relative to
    the file.  With this project's conf.py, an adopter's zh_TW edition was
    translated by this project's catalogs (``locale/``, relative to conf.py),
    and by none of its own (an adopter's round trip)."""
    srcdir = tmp_path / 'book' / 'source'
    shutil.copytree(rootdir / 'test-intl', srcdir)
    (srcdir / 'locale').rename(tmp_path / 'book' / 'catalogs')
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    assert '<title>测试手册</title>' in html(app)  # conf.py's locale/ is gone: untranslated
    (srcdir / 'handbook.toml').write_text("locale_dir = '../catalogs'\n", encoding='utf-8')
    app = make_app('html', srcdir=srcdir, freshenv=True,
                   confoverrides={'extensions': [*app.config.extensions,
                                                 'handbook.publishing.theme'],
                                  'html_theme': 'furo'})
    app.build()
    assert app.config.handbook_locale_dir == str(tmp_path / 'book' / 'catalogs')
    assert '<title>測試手冊</title>' in html(app)
    assert '<div class="line">1. 入連鎖的效果。</div>' in html(app)
    assert [w for w in warnings(app) if 'handbook.settings' in w] == []
    # the toolchain's own texts, which its catalogs lack: the toolchain's (an
    # adopter's round trip: the theme spoke English with catalogs of its own)
    assert 'Skip to content' not in html(app) and '跳到正文' in html(app)


@pytest.mark.parametrize(('text', 'report'), [
    ("faq_pages = ['faq/*.rst']\n",
     "1: WARNING: faq_pages holds 'faq/*.rst', which names no page, so no page is read as a "
     "yearly FAQ page through it: write 'faq/*': a page's name has no file suffix"),
    ("# the yearly pages\nfaq_pages = ['faq/*', 'yearly/*']\n",
     "2: WARNING: faq_pages holds 'yearly/*', which names no page, so no page is read as a "
     "yearly FAQ page through it: write a page's name as a toctree does (faq/2021), or a glob "
     "of names (faq/*)"),
])
def test_faq_pages_that_name_no_page_are_said_at_their_line(make_app, rootdir, tmp_path, text,
                                                             report):
    """An editor's round trip: ``faq/*.rst`` named no page, and the yearly
    pages' rulings lost their days unsaid."""
    srcdir = tmp_path / 'yearly-faq'
    shutil.copytree(rootdir / 'test-yearly-faq', srcdir)
    (srcdir / 'handbook.toml').write_text(text, encoding='utf-8')
    app = make_app('dummy', srcdir=srcdir, freshenv=True)
    app.build()
    assert [w for w in warnings(app) if 'handbook.settings' in w] == \
        [f'handbook.toml:{report} [handbook.settings]']


def test_faq_pages_of_the_command_line_are_said_as_such(make_app, rootdir, tmp_path):
    """``-D handbook_faq_pages=…``: no file holds the value, so the warning
    names the option (not handbook.toml's line, nor conf.py's)."""
    srcdir = tmp_path / 'yearly-faq'
    shutil.copytree(rootdir / 'test-yearly-faq', srcdir)
    (srcdir / 'handbook.toml').write_text("faq_pages = ['faq/*']\n", encoding='utf-8')
    app = make_app('dummy', srcdir=srcdir, freshenv=True,
                   confoverrides={'handbook_faq_pages': 'faq/*.rst'})
    app.build()
    assert [w for w in warnings(app) if 'handbook.settings' in w] == [
        "WARNING: the option -D handbook_faq_pages holds 'faq/*.rst', which names no page, so "
        "no page is read as a yearly FAQ page through it: write 'faq/*': a page's name has no "
        "file suffix [handbook.settings]"]


def test_a_missing_registry_is_named_at_its_setting(make_app, rootdir, tmp_path):
    srcdir = tmp_path / 'legacy-settings'
    shutil.copytree(rootdir / 'test-legacy-settings', srcdir)
    (srcdir / 'handbook.toml').write_text("# the registry\ncards = 'links.rst'\n",
                                          encoding='utf-8')
    stream = io.StringIO()
    make_app('dummy', srcdir=srcdir, freshenv=True, warning=stream)
    assert strip_escape_sequences(stream.getvalue()).splitlines() == [
        f"{srcdir}/handbook.toml:2: ERROR: setting 'cards' names 'links.rst', which is not a "
        f"file ({srcdir}/links.rst); write the path of the card registry relative to the "
        'settings file [handbook.settings]',
        f'{srcdir}/links.rst:1: ERROR: cannot read the card registry {srcdir}/links.rst: No such '
        'file or directory; give the registry file (a TSV, or a link file of .. _`卡名`: URL rows) '
        'with handbook_cards in conf.py, cards in handbook.toml, or make … CARDS=PATH; until '
        'then the card names are shown without links [handbook.registry]']


def test_settings_for_tools():
    """tools/ read the settings as a build does: conf.py's values, the settings file on top."""
    values = settings.merged(runpy.run_path(str(ROOT / 'conf.py')), ROOT / 'source')
    assert values['handbook_cards'] == str(ROOT / 'cards.tsv')
    assert len(values['handbook_planned_sections']) == 14
    assert values['handbook_ruling_hosts'] == ['www.db.yugioh-card.com', 'yugioh-wiki.net']
    # a handbook without a settings file: conf.py's values
    legacy = ROOT / 'tests' / 'roots' / 'test-legacy-faults'
    assert settings.merged({'handbook_planned_sections': []}, legacy) == \
        {'handbook_planned_sections': []}


def test_a_date_link_in_another_form_dates_its_ruling_with_a_note(make_app, tmp_path):
    """A date link whose date is written as editors also write it
    (``2018/12/24``, ``18-1-13``) dates its ruling, as its editor meant, with
    a note giving the date to write (its ruling was lost, unsaid: no card
    page, no timeline); written so, the same ruling and no note.  A link of
    a four-digit year its two digits cannot give (2095), of a date after
    today, or on a line that names no card (本页更新于 2021/3/4) dates
    nothing, and says nothing."""
    srcdir = tmp_path / 'other-forms'
    srcdir.mkdir()
    (srcdir / 'conf.py').write_text("extensions = ['handbook.cards', 'handbook.rulings']\n"
                                    "handbook_cards = 'links.rst'\n")
    (srcdir / 'links.rst').write_text('.. _`月之书`: https://ygocdb.com/card/name/月之书\n',
                                      encoding='utf-8')
    lines = [f'「`月之书`_」的效果。\\ `{written} <{FAQ.format(8000)}>`__'
             for written in ('2018/12/24', '18-1-13', '2095/1/1', '2088-01-01')]
    # a line that names no card: a news item's date, which dates nothing
    page = 'Rulings\n=======\n\n' + ''.join(f'| {line}\n' for line in lines) + (
        f'\n本页更新于\\ `2021/3/4 <{FAQ.format(8001)}>`__\\ 。\n')
    (srcdir / 'index.rst').write_text(page, encoding='utf-8')
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert warnings(app) == []
    assert notes(app) == [
        "index.rst:4: note: ruling date '2018/12/24' is written in a form no other ruling "
        'reference takes: write 18/12/24 (the same date, as the dates are searched and sorted) '
        '[handbook.ruling-plain]',
        "index.rst:5: note: ruling date '18-1-13' is written in a form no other ruling "
        'reference takes: write 18/1/13 (the same date, as the dates are searched and sorted) '
        '[handbook.ruling-plain]']
    found = [(r.dates, r.anchor) for r in rulings(app.env)['index']]
    assert found == [(('2018-12-24',), 'ruling-2018-12-24-faq8000-月之书'),
                     (('2018-01-13',), 'ruling-2018-01-13-faq8000-月之书')]
    page = page.replace('`2018/12/24 <', '`18/12/24 <').replace('`18-1-13 <', '`18/1/13 <')
    (srcdir / 'index.rst').write_text(page, encoding='utf-8')
    fixed = make_app('html', srcdir=srcdir, freshenv=True)
    fixed.build()
    assert notes(fixed) == []
    assert [(r.dates, r.anchor) for r in rulings(fixed.env)['index']] == found


def test_the_handbooks_title_is_text_on_every_page(make_app, rootdir, tmp_path):
    """``title`` in handbook.toml is text: it became html_title, which Sphinx
    and the theme write as HTML, and a title's ``<script>`` ran on every page
    (a hostile-input round trip).  Escaped in the title, the brand, the card
    pages and the link previews; an ``&`` shown as one."""
    srcdir = tmp_path / 'yearly-faq'
    shutil.copytree(rootdir / 'test-yearly-faq', srcdir)
    (srcdir / 'handbook.toml').write_text(
        'title = "A & B </title><script>alert(1)</script>"\n', encoding='utf-8')
    app = make_app('html', srcdir=srcdir, freshenv=True, confoverrides={
        'extensions': ['handbook.cards', 'handbook.rulings', 'handbook.sections',
                       'handbook.listings', 'handbook.search', 'handbook.publishing'],
        'html_theme': 'furo'})
    app.build()
    escaped = 'A &amp; B &lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;'
    pages = sorted(app.outdir.rglob('*.html'))
    names = []
    for page in pages:
        text = page.read_text(encoding='utf-8')
        assert '<script>alert' not in text, page.relative_to(app.outdir)
        names += [(page.parent.name, name) for name in
                  re.findall(r'<meta property="og:site_name" content="([^"]*)" />', text)]
    assert {name for _folder, name in names} == {escaped}
    assert len([folder for folder, _name in names if folder == 'cards']) > 10  # card pages too
    index = html(app)
    assert f'<title>{escaped}</title>' in index
    assert f'<div class="brand">{escaped}</div>' in index
