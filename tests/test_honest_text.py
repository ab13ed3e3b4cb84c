"""Honest text (issue 34, case 11; _ext/handbook/core/hostile_input.py,
_ext/handbook/rulings/dates.py): bidi controls and zero-width characters are
errors at their line and never reach an id; a full-width date is a note with
its ASCII form; lines are counted as editors count them (U+2028 is no line
break)."""

from __future__ import annotations

import re
import shutil
import unicodedata

import pytest
from sphinx.util.console import strip_escape_sequences

from helpers import html, warnings


def notes(app) -> list[str]:
    text = strip_escape_sequences(app.status.getvalue()).replace(str(app.srcdir) + '/', '')
    return re.findall(r'\S+: note: .*', text)


@pytest.mark.sphinx('html', testroot='honest-text', freshenv=True)
def test_invisible_characters_full_width_dates_and_line_separators(app):
    app.build()
    assert warnings(app) == [
        'index.rst:6: ERROR: the line holds the invisible characters U+200B (ZERO WIDTH SPACE), '
        'U+202E (RIGHT-TO-LEFT OVERRIDE), which readers do not see but which change how the '
        'text reads and the ids made from it: delete them (the page is built without them) '
        '[handbook.invisible-character]',
        'index.rst:9: ERROR: the line holds the invisible character U+200D (ZERO WIDTH JOINER), '
        'which readers do not see but which changes how the text reads and the ids made from '
        'it: delete it (the page is built without it) [handbook.invisible-character]',
        # after the line separator of line 13: still the editor's line
        "index.rst:15: ERROR: ruling date '17/2/30' is not a calendar date; check the month "
        'and the day [handbook.ruling]',
    ]
    assert sorted(notes(app)) == [
        "index.rst:10: note: ruling date '１７/３/２４' is written with full-width characters: "
        'write 17/3/24 (the same date, as the dates are searched and sorted) '
        '[handbook.ruling-fullwidth]',
        "index.rst:11: note: ruling date '１７／３／２５' is written with full-width characters: "
        'write 17/3/25 (the same date, as the dates are searched and sorted) '
        '[handbook.ruling-fullwidth]',
        'index.rst:13: note: the line holds U+2028 (a line or paragraph separator), which '
        'editors do not show as a line break: it is read as a space; write a space, or break '
        'the line [handbook.line-separator]',
    ]
    page = html(app)
    assert not re.search('[\u200b-\u200f\u202a-\u202e\u2028\u2029]', page)
    assert 'id="同时处理"' in page
    # the full-width dates are rulings, dated as their ASCII form
    dates = [n.get('ruling_date') for n in app.env.get_doctree('index').findall(
        lambda n: 'ruling_text' in getattr(n, 'attributes', {}))]
    assert dates == ['2017-03-24', '2017-03-24', '2017-03-25', None]


HTML_TYPED = [
    "index.rst:9: ERROR: HTML tags '<b>', '</b>' in the text: reStructuredText is not HTML, "
    'so readers see them as text: delete them [handbook.html]',
    "index.rst:10: ERROR: HTML tags '<b>', '</b>' in the text: reStructuredText is not HTML, "
    'so readers see them as text: write \\ **效果** for <b>效果</b> [handbook.html]',
    "index.rst:11: ERROR: HTML tag '<br>' in the text: reStructuredText is not HTML, so "
    'readers see it as text: write a new line of the line block (| …) for <br> '
    '[handbook.html]',
    "index.rst:12: ERROR: HTML tags '<script>', '</script>' in the text: reStructuredText "
    'is not HTML, so readers see them as text: delete them [handbook.html]',
    "index.rst:13: ERROR: HTML tags '<SPAN class=\"x\">', '</SPAN>' in the text: "
    'reStructuredText is not HTML, so readers see them as text: delete them '
    '[handbook.html]',
]


@pytest.mark.sphinx('html', testroot='html-typed', freshenv=True)
def test_html_typed_into_the_text_is_an_error_with_rests_form(app):
    """HTML tags typed into a ruling are shown as text, escaped (safe, but
    readers see ``<b>``): an error at each line, with reST's form of a pair
    that has one, but around a card link, which emphasis cannot hold;
    ``攻击力<1000``, a literal ``<b>`` and a ``<https://…>`` link are text and
    get no report (stop 54's left-alone list)."""
    app.build()
    assert warnings(app) == HTML_TYPED
    page = html(app)
    assert '&lt;script&gt;alert(1)&lt;/script&gt;' in page and '<script>alert' not in page


def test_the_fixes_of_html_typed_work_as_written(make_app, rootdir, tmp_path):
    """Each report's fix, applied as written, leaves no report: the bold
    text is bold (docutils reads ``\\ **效果**`` after Chinese text), the
    line goes on in a new line."""
    srcdir = tmp_path / 'fixed'
    shutil.copytree(rootdir / 'test-html-typed', srcdir)
    page = srcdir / 'index.rst'
    text = page.read_text(encoding='utf-8')
    for old, new in [('<b>「`旋风`_」的效果。</b>', '「`旋风`_」的效果。'),
                     ('<b>效果</b>', '\\ **效果**'), ('<br>', '\n| '),
                     ('<script>alert(1)</script>', ''), ('<SPAN class="x">效果</SPAN>', '效果')]:
        assert old in text
        text = text.replace(old, new, 1)
    page.write_text(text, encoding='utf-8')
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    assert warnings(app) == []
    assert '的<strong>效果</strong>。' in html(app)


@pytest.mark.parametrize('extensions, fix', [
    (['handbook.cards', 'handbook.rulings'], 'write \\ :strike:`效果` for <s>效果</s>'),
    (['handbook.cards'], 'delete them')])
def test_struck_html_gets_the_strike_role_only_where_there_is_one(make_app, rootdir, tmp_path,
                                                                  extensions, fix):
    """``<s>…</s>``: the fix is ``:strike:`…``` where the page has the role
    (handbook.rulings); a handbook that loads handbook.cards alone has none,
    so the fix deletes the tags rather than name an unknown role."""
    srcdir = tmp_path / 'struck'
    shutil.copytree(rootdir / 'test-html-typed', srcdir)
    page = srcdir / 'index.rst'
    page.write_text(page.read_text(encoding='utf-8') + '\n| 「`旋风`_」的<s>效果</s>。\n',
                    encoding='utf-8')
    app = make_app('html', srcdir=srcdir, freshenv=True, confoverrides={'extensions': extensions})
    app.build()
    assert [w for w in warnings(app) if '<s>' in w] == [
        "index.rst:17: ERROR: HTML tags '<s>', '</s>' in the text: reStructuredText is not HTML, "
        f'so readers see them as text: {fix} [handbook.html]']


def test_every_format_character_is_an_invisible_one():
    """The page check's invisible characters are Unicode's format characters
    (Cf), as the registry's are: a soft hyphen and a tag character passed it,
    and reached the search and the card pages (a hostile-input round trip).
    Written out in the module; this says when a Python's Unicode adds one."""
    from handbook.core.hostile_input import _INVISIBLE

    every = ''.join(map(chr, range(0x110000)))
    assert set(_INVISIBLE.findall(every)) == {c for c in every
                                              if unicodedata.category(c) == 'Cf'}


@pytest.mark.parametrize(('char', 'name'), [('\u00ad', 'SOFT HYPHEN'),
                                            ('\U000e0041', 'TAG LATIN CAPITAL LETTER A')])
def test_a_format_character_in_a_card_name_is_said_and_left_out(make_app, rootdir, tmp_path,
                                                                char, name):
    srcdir = tmp_path / 'honest-text'
    shutil.copytree(rootdir / 'test-honest-text', srcdir)
    with (srcdir / 'index.rst').open('a', encoding='utf-8') as page:
        page.write(f'\n| 「`旋风{char}`_」的效果。\\ :ruling:`17/3/26`\n')
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    assert [w for w in warnings(app) if 'index.rst:17' in w] == [
        f'index.rst:17: ERROR: the line holds the invisible character U+{ord(char):04X} '
        f'({name}), which readers do not see but which changes how the text reads and the ids '
        'made from it: delete it (the page is built without it) [handbook.invisible-character]']
    assert char not in html(app)


@pytest.mark.parametrize('step', ['  ', ' ', '\t'])
def test_blocks_nested_past_what_docutils_reads_are_an_error_not_a_traceback(
        make_app, rootdir, tmp_path, step):
    """A thousand nested list items: docutils stopped with a RecursionError
    (a traceback, nothing built; make check blamed conf.py: a hostile-input
    round trip).  An error at the first line indented 100 columns or more;
    the page built with those lines read at 100."""
    srcdir = tmp_path / 'honest-text'
    shutil.copytree(rootdir / 'test-honest-text', srcdir)
    with (srcdir / 'index.rst').open('a', encoding='utf-8') as page:
        page.write('\n' + ''.join(f'{step * i}- 项{i}\n\n' for i in range(1000)))
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    first = 17 + 2 * (100 // len(step.expandtabs(8)) + (100 % len(step.expandtabs(8)) > 0))
    columns = len((step * ((first - 17) // 2)).expandtabs(8))
    assert [w for w in warnings(app) if 'nesting' in w] == [
        f'index.rst:{first}: ERROR: the line is indented {columns} columns: docutils reads each '
        'indentation as a block inside the one before and cannot read them nested this deep; '
        'indent it less (the page is built with its lines indented 100 columns or more read at '
        'that indentation) [handbook.nesting]']
    assert '项999' in html(app)


def test_a_page_with_no_title_is_an_error_at_the_page(make_app, rootdir, tmp_path):
    """A page with no title: readers saw "<no title>" in its tab, the
    navigation, the search and rulings.json, and Sphinx said so only at the
    toctree that lists it, once per page written (a hostile-input round trip)."""
    srcdir = tmp_path / 'yearly-faq'
    shutil.copytree(rootdir / 'test-yearly-faq', srcdir)
    (srcdir / 'notitle.rst').write_text('.. a comment\n\n| 「`罪`_」的效果。\\ :ruling:`17/3/24`\n',
                                        encoding='utf-8')
    index = srcdir / 'index.rst'
    index.write_text(index.read_text(encoding='utf-8').replace('   chapter\n',
                                                               '   chapter\n   notitle\n'),
                     encoding='utf-8')
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    assert warnings(app) == [
        'notitle.rst:1: ERROR: the page has no title, so readers see "<no title>" in its tab, '
        'the navigation and the search: give it one at its top, a line of text over a line of = '
        'as long (a Chinese character counts 2) [handbook.title]']
