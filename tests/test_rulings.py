"""Dated ruling references: the role, legacy date links, validation."""

from __future__ import annotations

import re

import pytest
from docutils import nodes
from sphinx.util.console import strip_escape_sequences

from helpers import html, warnings


def notes(app) -> list[str]:
    """The build's notes (status stream), paths relative to srcdir."""
    text = strip_escape_sequences(app.status.getvalue()).replace(str(app.srcdir) + '/', '')
    return re.findall(r'\S+: note: .*', text)


@pytest.mark.sphinx('html', testroot='rulings')
@pytest.mark.test_params(shared_result='rulings-rulings')
def test_ruling_forms_render_as_the_date(app):
    app.build()
    page = html(app)
    assert '<span class="ruling">17/3/24</span>' in page
    faq = 'https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&amp;fid='
    assert f'<a class="ruling reference external" href="{faq}19691&amp;request_locale=ja">17/3/24</a>' in page
    assert f'<a class="ruling reference external" href="{faq}7000&amp;request_locale=ja">18/1/13</a>' in page
    assert f'<a class="ruling reference external" href="{faq}8000">19/2/4</a>' in page


@pytest.mark.sphinx('html', testroot='rulings')
@pytest.mark.test_params(shared_result='rulings-rulings')
def test_ruling_attributes(app):
    app.build()
    doctree = app.env.get_doctree('index')
    found = [(n['ruling_text'], n.get('ruling_date'), n.get('ruling_faq'))
             for n in doctree.findall(lambda n: 'ruling_text' in getattr(n, 'attributes', {}))]
    # the FAQ id of a role's address is read as a date link's (it was not: null in rulings.json)
    assert found[:4] == [('17/3/24', '2017-03-24', None), ('17/3/24', '2017-03-24', '19691'),
                         ('18/1/13', '2018-01-13', '7000'), ('19/2/4', '2019-02-04', '8000')]


@pytest.mark.sphinx('html', testroot='rulings')
@pytest.mark.test_params(shared_result='rulings-rulings')
def test_bad_rulings_are_reported_at_their_line(app):
    app.build()
    today = __import__('datetime').date.today().isoformat()
    assert warnings(app) == [
        "index.rst:11: ERROR: ruling date '17/2/30' is not a calendar date; check the month and the day [handbook.ruling]",
        "index.rst:12: ERROR: malformed ruling date '17/3'; write the date of the official answer as YY/M/D, e.g. 17/3/24 [handbook.ruling]",
        "index.rst:13: ERROR: malformed ruling date '2017-3-24': a ruling reference writes its date as YY/M/D: write :ruling:`17/3/24` [handbook.ruling]",
        "index.rst:14: ERROR: ruling date '17/13/1' is not a calendar date; check the month and the day [handbook.ruling]",
        "index.rst:16: WARNING: ruling URL host 'example.org' is not an allowed source (www.db.yugioh-card.com, "
        "yugioh-wiki.net); link one of those, or add the host to "
        "handbook_ruling_hosts in conf.py if it is a trusted source [handbook.ruling]",
        "index.rst:17: ERROR: FAQ id 'abc' is not a positive integer of at most 9 digits; the date "
        "is shown without a link: "
        "write :ruling:`17/3/24 <faq:ID>` with the number after fid= in the FAQ's URL, or the date "
        "alone, :ruling:`17/3/24` [handbook.ruling]",
        f"index.rst:18: ERROR: ruling date '89/1/1' (2089-01-01) is after today ({today}); check the year [handbook.ruling]",
        "index.rst:22: ERROR: ruling date '17/2/29' is not a calendar date; check the month and the day [handbook.ruling]",
        "index.rst:26: ERROR: ruling date '17/4/31' is not a calendar date; check the month and the day [handbook.ruling]",
    ]
    # http:// on an allowed host: a note with the https URL, and still a link
    assert notes(app) == [
        "index.rst:15: note: ruling URL 'http://www.db.yugioh-card.com/x' is http: write "
        'https://www.db.yugioh-card.com/x (the same page over https; make fix rewrites it) '
        '[handbook.ruling-https]']
    assert ('<a class="ruling reference external" href="http://www.db.yugioh-card.com/x">'
            '17/3/24</a>') in html(app)
    # a date after today dates nothing (the build fails; a preview shows it undated)
    future = [node for node in app.env.get_doctree('index').findall(nodes.Element)
              if node.get('ruling_text') == '89/1/1']
    assert len(future) == 1 and 'ruling_date' not in future[0].attributes


#: roles that hold a date in another form or several dates, each with the fix its error gives
WRITTEN_OTHERWISE = {
    ':ruling:`17/3/24、17/12/22`': (
        "ruling reference ':ruling:`17/3/24、17/12/22`' holds 2 dates, which one reference "
        'cannot: write a reference for each, ',
        ':ruling:`17/3/24`、\\ :ruling:`17/12/22`'),
    ':ruling:`17/3/24 17/12/22 <faq:19691>`': (
        "ruling reference ':ruling:`17/3/24 17/12/22 <faq:19691>`' holds 2 dates, which one "
        'reference cannot: write a reference for each, ',
        ':ruling:`17/3/24 <faq:19691>` :ruling:`17/12/22`'),
    ':ruling:`2017/03/24`': (
        "malformed ruling date '2017/03/24': a ruling reference writes its date as YY/M/D: "
        'write ', ':ruling:`17/3/24`'),
    # 和 is a letter: no role ends or starts beside it without an escaped space
    ':ruling:`17/3/24和17/12/22`': (
        "ruling reference ':ruling:`17/3/24和17/12/22`' holds 2 dates, which one reference "
        'cannot: write a reference for each, ',
        ':ruling:`17/3/24`\\ 和\\ :ruling:`17/12/22`'),
}


def test_a_role_of_a_date_in_another_form_or_of_two_dates_is_told_the_roles_to_write(
        make_app, rootdir, tmp_path):
    """The error gives the roles to write, with what separated the dates (a
    reference was told to write one date, e.g. 17/3/24: the other was lost);
    written as told, they date the line with both dates and say nothing."""
    srcdir = tmp_path / 'several'
    srcdir.mkdir()
    (srcdir / 'conf.py').write_text((rootdir / 'test-rulings' / 'conf.py').read_text())
    roles = list(WRITTEN_OTHERWISE)
    page = 'Rulings\n=======\n\n' + ''.join(
        f'| 例{i}。\\ {role}\n' for i, role in enumerate(roles))
    (srcdir / 'index.rst').write_text(page, encoding='utf-8')
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert warnings(app) == [f'index.rst:{4 + i}: ERROR: {message}{fix} [handbook.ruling]'
                             for i, (message, fix) in enumerate(WRITTEN_OTHERWISE.values())]
    for role, (_message, fix) in WRITTEN_OTHERWISE.items():
        page = page.replace(role, fix)
    (srcdir / 'index.rst').write_text(page, encoding='utf-8')
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    # (a second app in one process warns that it sets Sphinx's own nodes up again)
    assert [w for w in warnings(app) if not w.startswith('WARNING: while setting up')] == []
    dates = [node['ruling_date'] for node in app.env.get_doctree('index').findall(nodes.Element)
             if 'ruling_date' in node.attributes]
    assert dates == ['2017-03-24', '2017-12-22', '2017-03-24', '2017-12-22', '2017-03-24',
                     '2017-03-24', '2017-12-22']
    assert '和' in app.env.get_doctree('index').astext()
