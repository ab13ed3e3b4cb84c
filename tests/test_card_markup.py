"""Card markup checks: broken 「`卡名`_」 markup (an error: readers see it) and
unlinked 「卡名」 (a warning: the house style) at their exact line in a normal
build (so make html, with -W, fails on them)."""

from __future__ import annotations

import shutil

import pytest

from conftest import ROOT
from helpers import assert_no_warnings, warnings

CARD_MARKUP = [
    # one fault per marked line of tests/roots/test-check-cards/index.rst
    'index.rst:7: ERROR: 「`旋风`」 is not a card link: write 「`旋风`_」 '
    '(an underscore after the closing backquote) [handbook.card-markup]',
    'index.rst:8: ERROR: card link 「`旋风`_ has no closing 」: write 「`旋风`_」 [handbook.card-markup]',
    "index.rst:9: ERROR: broken card markup '「` 旋风`_」': write 「`旋风`_」 "
    '(backquotes right around the name, no space between them and the name, then _) '
    '[handbook.card-markup]',
    'index.rst:11: WARNING: 「旋风」 is a card name in the registry but not linked: '
    'write 「`旋风`_」 (make fix does it) [handbook.unlinked]',
    # a nested line block: a line's continuation, then the innermost block
    'index.rst:18: ERROR: 「`王宫的铁壁`」 is not a card link: write 「`王宫的铁壁`_」 '
    '(an underscore after the closing backquote) [handbook.card-markup]',
    'index.rst:19: WARNING: 「星骑士」 is a card name in the registry but not linked: '
    'write 「`星骑士`_」 (make fix does it) [handbook.unlinked]',
    # list items: a line block's second line, a nested item's second line
    "index.rst:22: ERROR: broken card markup '「旋风`_」': write 「`旋风`_」 "
    '(backquotes right around the name, no space between them and the name, then _) '
    '[handbook.card-markup]',
    'index.rst:25: ERROR: card link 「`星骑士`_ has no closing 」: write 「`星骑士`_」 [handbook.card-markup]',
    # an admonition: a line block's second line, a paragraph's second line
    'index.rst:30: ERROR: card link `旋风`_」 has no opening 「: write 「`旋风`_」 [handbook.card-markup]',
    'index.rst:33: WARNING: 「王宫的铁壁」 is a card name in the registry but not linked: '
    'write 「`王宫的铁壁`_」 (make fix does it) [handbook.unlinked]',
    # backquotes without a role; a link in a role's text (docutils' word, then the fix),
    # with a date after it (the backquotes after the tangle say nothing more); this
    # root declares neither role (nor loads handbook.rulings.strike): the fix says so
    'index.rst:41: ERROR: `旋风` is interpreted text without a role (shown in italics): '
    'write 「`旋风`_」 for a card, ``旋风`` for literal text [handbook.markup]',
    *[f'index.rst:{line}: WARNING: Mismatch: both interpreted text role prefix and reference '
      'suffix. [docutils]' for line in (42, 43, 44)],
    *[f'index.rst:{line}: ERROR: :strike:`…` holds a link, which reStructuredText cannot nest '
      "in a role's text (readers see the markup): :strike: is not a declared role: check its "
      'spelling, or declare it first (.. role:: strike); then write its card names without '
      'backquotes, '
      ':strike:`「卡名」…`: the build links the names of struck text [handbook.markup]'
      for line in (42, 43)],
    "index.rst:44: ERROR: :red:`…` holds a link, which reStructuredText cannot nest in a role's "
    'text (readers see the markup): :red: is not a declared role: check its spelling, or '
    'declare it first (.. role:: red); then end the role before the link and start it again after '
    'it, :red:`…`\\ 「`卡名`_」\\ :red:`…` [handbook.markup]',
]


def by_line(warning: str) -> int:
    return int(warning.split(':')[1])


@pytest.mark.sphinx('html', testroot='check-cards')
@pytest.mark.test_params(shared_result='card_markup-check-cards')
def test_broken_markup_warns_at_its_line(app):
    app.build()
    # the unknown name (line 10) is card_links' error
    assert sorted(warnings(app), key=by_line) == sorted([
        *CARD_MARKUP, 'index.rst:10: ERROR: unknown card name 「旋风的主人」: check the spelling; '
        'if it is a new card, add a row to cards.tsv. [handbook.card]'], key=by_line)


@pytest.mark.sphinx('html', testroot='check-cards')
@pytest.mark.test_params(shared_result='card_markup-check-cards')
def test_what_is_not_reported(app):
    app.build()
    text = '\n'.join(warnings(app))
    # effect text in 『』 (also over two lines), a placeholder, a title, a name
    # that holds 「」, the right links
    for line in (6, 35, 38, 39):
        assert f'index.rst:{line}:' not in text
    assert '「○○」' not in text


@pytest.mark.sphinx('html', testroot='check-clean', freshenv=True)
def test_clean_page_has_no_warnings(app):
    app.build()
    assert_no_warnings(app)


@pytest.mark.sphinx('html', testroot='check-clean', srcdir='card-markup-registry-edit')
def test_registry_edit_rereads_pages_quoting_the_name(app, make_app):
    app.build()
    assert_no_warnings(app)
    registry = app.srcdir / 'cards.tsv'
    registry.write_text(registry.read_text(encoding='utf-8') + 'card\t卡名\n', encoding='utf-8')

    again = make_app('html', srcdir=app.srcdir)
    read: list[str] = []
    again.connect('env-before-read-docs', lambda app, env, docnames: read.extend(docnames))
    again.build()
    assert read == ['index']  # only index quotes 「卡名」 plainly
    # (a second app in one process warns that it sets Sphinx's own nodes up again)
    assert [w for w in warnings(again) if not w.startswith('WARNING: while setting up')] == [
        'index.rst:15: WARNING: 「卡名」 is a card name in the registry but not linked: '
        'write 「`卡名`_」 (make fix does it) [handbook.unlinked]']



#: tests/roots/test-check-markup-joins/index.rst: markup next to Chinese text.  For
#: each marked line, what the build reports there (ours, and docutils' own where it
#: has a word), and the line as our report says to write it
JOINED_URL = ('https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid=22372'
              '&request_locale=ja')
MISMATCH = 'WARNING: Mismatch: both interpreted text role prefix and reference suffix. [docutils]'
UNENDED = ('WARNING: Inline interpreted text or phrase reference start-string without '
           'end-string. [docutils]')
SPLIT = ("holds a link, which reStructuredText cannot nest in a role's text (readers see the "
         'markup):')
JOINS = {
    # a link glued to Chinese text: docutils makes its URL a link of its own
    13: ([f"ERROR: link '`18/12/24 <{JOINED_URL}>`__' not recognised next to Chinese text: "
          f'write `\\ ` before it (…局\\ `18/12/24 <{JOINED_URL}>`__) [handbook.markup]'],
         f'| 结果平局\\ `18/12/24 <{JOINED_URL}>`__'),
    # a role's closing backquote before Chinese text: its text runs on, to a card
    # link (with or without `\ ` before the role), or to nothing at the line's end
    14: (['ERROR: role :ruling: not recognised: next to Chinese text write `\\ ` before it, '
          'and after its closing backquote: :ruling:`17/3/24`\\ 发… [handbook.markup]',
          MISMATCH],
         '| 「`旋风`_」\\ :ruling:`17/3/24`\\ 发动。「`王宫的铁壁`_」不能发动。'),
    15: (['ERROR: role :ref: not recognised: next to Chinese text write `\\ ` before it, '
          'and after its closing backquote: …见\\ :ref:`同时处理`\\ 中… [handbook.markup]'],
         '| 详见\\ :ref:`同时处理`\\ 中的内容，「`旋风`_」不能发动。'),
    16: (['ERROR: role :ruling: not recognised: next to Chinese text write `\\ ` before it, '
          'and after its closing backquote: :ruling:`17/3/24`\\ 发… [handbook.markup]',
          'WARNING: Inline interpreted text or phrase reference start-string without '
          'end-string. [docutils]'],
         '| 「`旋风`_」\\ :ruling:`17/3/24`\\ 发动。'),
    # a space after the opening backquote (`\ ` is there already, or not)
    17: (['ERROR: role :ref: not recognised: remove the space after its opening backquote, '
          'write :ref:`同时处理` [handbook.markup]'],
         '| 详见\\ :ref:`同时处理`\\ 。'),
    18: (['ERROR: role :ruling: not recognised: remove the space after its opening backquote, '
          'write :ruling:`17/3/24` [handbook.markup]'],
         '| 「`旋风`_」\\ :ruling:`17/3/24`'),
    19: (['ERROR: role :ref: not recognised: remove the space after its opening backquote, '
          'write 见\\ :ref:`同时处理`\\ 中 [handbook.markup]'],
         '| 详见\\ :ref:`同时处理`\\ 中的内容。'),
    # a link in a role's text: a declared role, an undeclared one, the strike role
    20: ([f'ERROR: :red:`…` {SPLIT} end the role before the link and start it again after '
          'it, :red:`…`\\ 「`卡名`_」\\ :red:`…` [handbook.markup]', MISMATCH],
         '| 「`旋风`_」\\ :red:`不能发动。`'),
    21: ([f'ERROR: :blue:`…` {SPLIT} :blue: is not a declared role: check its spelling, or '
          'declare it first (.. role:: blue); then end the role before the link and start it again after '
          'it, :blue:`…`\\ 「`卡名`_」\\ :blue:`…` [handbook.markup]', MISMATCH],
         '| 「`旋风`_」\\ :blue:`不能发动。`'),
    22: ([f'ERROR: :strike:`…` {SPLIT} write its card names without backquotes, '
          ':strike:`「卡名」…`: the build links the names of struck text [handbook.markup]',
          MISMATCH],
         '| :strike:`「旋风」不能发动。`'),
    # a link with Chinese text on both sides: `\ ` on both (before alone, the
    # backquote after it was taken to open markup running on to the card's)
    23: (["ERROR: link '`详见 <https://yugioh-wiki.net/>`__' not recognised next to Chinese "
          'text: write `\\ ` before and after it (…果\\ `详见 <https://yugioh-wiki.net/>`__\\ '
          '对…) [handbook.markup]'],
         '| 结果\\ `详见 <https://yugioh-wiki.net/>`__\\ 对方基本分7000，「`旋风`_」不能发动。'),
    # a literal next to Chinese text: `\ ` on both sides (told to delete its
    # backquotes, the editor made its date a ruling's)
    24: (["ERROR: literal '``21/3/4``' not recognised next to Chinese text: write `\\ ` "
          'before and after it (…见\\ ``21/3/4``\\ 的…) [handbook.markup]'],
         '| 另见\\ ``21/3/4``\\ 的说明。'),
    # a card link that misses a piece of its markup, with a later backquote on
    # the line or none: its name, not the text up to that backquote, in the fix
    26: (['ERROR: card link 「`旋风_」 misses the backquote before _, so that it is shown as '
          'text: write 「`旋风`_」 [handbook.card-markup]'],
         '| 「`旋风`_」的场合，效果不适用。\\ :ruling:`17/3/24`'),
    27: (['ERROR: card link 「`旋风`_ misses its closing 」, so that it is shown as text: '
          'write 「`旋风`_」 [handbook.card-markup]'],
         '| 「`旋风`_」的场合，效果不适用。\\ :ruling:`17/3/24`'),
    28: (['ERROR: card link 「`旋风_」 misses the backquote before _ (readers see the other '
          'one): write 「`旋风`_」 [handbook.card-markup]', UNENDED],
         '| 「`旋风`_」的场合，效果不适用。'),
    29: (['ERROR: card link 「`旋风`_ misses its closing 」, so that it is shown as text: '
          'write 「`旋风`_」 [handbook.card-markup]', UNENDED],
         '| 「`旋风`_」的场合，效果不适用。'),
    30: (['ERROR: card link 「`旋风」 misses the backquote and _ before 」, so that it is shown '
          'as text: write 「`旋风`_」 [handbook.card-markup]'],
         '| 「`旋风`_」的场合，效果不适用。\\ :ruling:`17/3/24`'),
    # a role left unclosed: the fix is its closing backquote (docutils' warning says none)
    31: (['ERROR: role :ruling: is not closed (readers see its markup): write its closing '
          'backquote after its text, :ruling:`17/3/24` [handbook.markup]', UNENDED],
         '| 「`旋风`_」不能发动。\\ :ruling:`17/3/24`'),
    # a review's shapes: spaces inside a literal's backquotes; a card link cut
    # short with a space in it, or before another card link on the line; a
    # literal in a role's text
    32: (["ERROR: literal '`` 21/3/4 ``' has spaces inside its backquotes, so that it is no "
          'literal: write ``21/3/4`` [handbook.markup]'],
         '| 另见 ``21/3/4`` 的说明。'),
    33: (['ERROR: card link 「`旋风 _」 misses the backquote before _, so that it is shown as '
          'text: write 「`旋风`_」 [handbook.card-markup]'],
         '| 「`旋风`_」的场合，效果不适用。\\ :ruling:`17/3/24`'),
    34: (['ERROR: card link 「`旋风_」 misses the backquote before _, so that it is shown as '
          'text: write 「`旋风`_」 [handbook.card-markup]'],
         '| 「`旋风`_」和「`王宫的铁壁`_」不能发动。'),
    35: (['ERROR: card link 「`旋风`_ misses its closing 」, so that it is shown as text: '
          'write 「`旋风`_」 [handbook.card-markup]'],
         '| 「`旋风`_」的场合，「`王宫的铁壁`_」不能发动。'),
    36: (["ERROR: literal '``21/3/4``' cannot sit inside a role's text or emphasis (readers "
          'see its backquotes): end the role or emphasis before it and start it again after '
          'it [handbook.markup]'],
         '| :strike:`另见`\\ ``21/3/4``\\ :strike:`的说明。`'),
    # a role not closed before the role after it (an editor's round trip: told
    # to write the `\\ ` that was there); a date link with no address, as the
    # seeds write it (an adopter's: docutils' warnings alone)
    37: (['ERROR: role :strike: is not closed before :ruling:, so that its text runs on over '
          ':ruling:`17/3/24` (readers see the markup): write its closing backquote before '
          ':ruling:: :strike:`「旋风」不能发动。`\\ :ruling:`17/3/24` [handbook.markup]'],
         '| :strike:`「旋风」不能发动。`\\ :ruling:`17/3/24`'),
    38: (['ERROR: link `17/3/24 `__ has no address, and the space before its closing backquote '
          'leaves it open (readers see its markup): give it its address, '
          '`17/3/24 <https://…>`__, or write its text alone, 17/3/24 [handbook.markup]',
          UNENDED, UNENDED],
         '| 「`旋风`_」不能发动。\\ 17/3/24'),
    # a space before a card link's closing backquote (a round trip: the fix
    # quoted the line up to its next backquote; the line holding none,
    # docutils' warning alone)
    39: (['ERROR: card link 「`旋风 `_」 has a space before its closing backquote, where '
          'reStructuredText sees no end, so that it is shown as text: write 「`旋风`_」 '
          '[handbook.card-markup]'],
         '| 「`旋风`_」的场合，效果不适用。\\ :ruling:`17/3/24`'),
    40: (['ERROR: card link 「`旋风 `_」 has a space before its closing backquote, where '
          'reStructuredText sees no end, so that it is shown as text: write 「`旋风`_」 '
          '[handbook.card-markup]', UNENDED, UNENDED],
         '| 「`旋风`_」的场合，效果不适用。'),
}


def reported_and_fixed(app, make_app, tmp_path, lines: list[int]) -> None:
    """The build reports on *lines* what JOINS says (and nothing on a line it
    does not name); the page with those lines written as the reports say
    (the undeclared role declared on the comment's line, so no line moves)
    builds without their reports, and with no other."""
    app.build()
    found = warnings(app)
    assert {by_line(w) for w in found} <= JOINS.keys(), found
    assert sorted(w for w in found if by_line(w) in lines) == sorted(
        f'index.rst:{line}: {report}' for line in lines for report in JOINS[line][0])
    root = tmp_path / 'fixed'
    shutil.copytree(ROOT / 'tests' / 'roots' / 'test-check-markup-joins', root)
    page = root / 'index.rst'
    text = page.read_text(encoding='utf-8').split('\n')
    for line in lines:
        assert JOINS[line][1] != text[line - 1]  # a fix is never the text as written
        text[line - 1] = JOINS[line][1]
    if 21 in lines:
        assert text[3].startswith('.. One fault')
        text[3] = '.. role:: blue'
    page.write_text('\n'.join(text), encoding='utf-8')
    fixed = make_app('html', srcdir=root)
    fixed.build()
    # (a second app in one process warns that it sets Sphinx's own nodes up again)
    assert sorted(w for w in warnings(fixed) if not w.startswith('WARNING: while setting up')) \
        == sorted(w for w in found if by_line(w) not in lines)



@pytest.mark.sphinx('html', testroot='check-markup-joins')
@pytest.mark.test_params(shared_result='card_markup-check-markup-joins')
def test_a_link_glued_to_chinese_text(app, make_app, tmp_path):
    """文本`17/3/24 <https://…>`__: docutils makes the URL a link of its own,
    which splits the text; the backquotes around it are still one link
    written next to Chinese text, not two stray ones to delete."""
    reported_and_fixed(app, make_app, tmp_path, [13])


@pytest.mark.sphinx('html', testroot='check-markup-joins')
@pytest.mark.test_params(shared_result='card_markup-check-markup-joins')
def test_a_link_glued_on_both_sides(app, make_app, tmp_path):
    """结果`详见 <…>`__对方…: the fix writes `\\ ` on both sides; before it alone,
    the next check took the backquote after the link for a card link's."""
    reported_and_fixed(app, make_app, tmp_path, [23])


@pytest.mark.sphinx('html', testroot='check-markup-joins')
@pytest.mark.test_params(shared_result='card_markup-check-markup-joins')
def test_a_literal_glued_to_chinese_text(app, make_app, tmp_path):
    """另见``21/3/4``的说明: a literal docutils did not see, whose fix is
    `\\ ` on both sides; "delete the stray backquotes" made its date a
    ruling's (an editor's round trip).  Spaces inside its backquotes, or a
    role around it, have fixes of their own (a review)."""
    reported_and_fixed(app, make_app, tmp_path, [24, 32, 36])


@pytest.mark.sphinx('html', testroot='check-markup-joins')
@pytest.mark.test_params(shared_result='card_markup-check-markup-joins')
def test_a_card_link_that_misses_a_piece_of_its_markup(app, make_app, tmp_path):
    """「`旋风_」, 「`旋风`_的, 「`旋风」: the fix is the card's link; it quoted the
    text up to the line's next backquote, with _ after it (an editor's round
    trip: that fix gave a second error), or, the line holding none, said the
    link had no opening 「 or gave no fix at all."""
    reported_and_fixed(app, make_app, tmp_path, [26, 27, 28, 29, 30, 33, 34, 35, 39, 40])


@pytest.mark.sphinx('html', testroot='check-markup-joins')
@pytest.mark.test_params(shared_result='card_markup-check-markup-joins')
def test_a_role_left_unclosed(app, make_app, tmp_path):
    """``\\ :ruling:`17/3/24`` and the line's end: docutils' warning alone,
    with no fix (an editor's round trip); now the closing backquote.  Before
    another role, the first role's closing backquote (it was told to write
    the `\\ ` it had)."""
    reported_and_fixed(app, make_app, tmp_path, [31, 37])


@pytest.mark.sphinx('html', testroot='check-markup-joins')
@pytest.mark.test_params(shared_result='card_markup-check-markup-joins')
def test_a_date_link_with_no_address(app, make_app, tmp_path):
    """`17/3/24 `__, as the seeds write a date link: docutils' two warnings,
    with no fix (an adopter's round trip); now its address or its text."""
    reported_and_fixed(app, make_app, tmp_path, [38])


@pytest.mark.sphinx('html', testroot='check-markup-joins')
@pytest.mark.test_params(shared_result='card_markup-check-markup-joins')
def test_a_misspelt_name_in_struck_text_is_told_plain(app, make_app, tmp_path):
    """:strike:`「旋凤」…`: the note's fix is the name plain, as struck text
    writes names (the link it gave nested in the role: an error, an
    editor's round trip); so written, no report."""
    app.build()
    assert [line for line in app.status.getvalue().splitlines() if ' note: ' in line] == [
        f'{app.srcdir / "index.rst"}:25: note: 「旋凤」 is no card name in the registry, but '
        'reads as 「旋风」 does: if it is that card, write 「旋风」 (struck text links the names '
        "it writes plainly) (then its ruling is on the card's page) [handbook.card-slip]"]
    assert not [w for w in warnings(app) if by_line(w) == 25]
    root = tmp_path / 'fixed'
    shutil.copytree(ROOT / 'tests' / 'roots' / 'test-check-markup-joins', root)
    page = root / 'index.rst'
    page.write_text(page.read_text(encoding='utf-8').replace('「旋凤」', '「旋风」'),
                    encoding='utf-8')
    fixed = make_app('html', srcdir=root)
    fixed.build()
    assert ' note: ' not in fixed.status.getvalue()
    # (a second app in one process warns that it sets Sphinx's own nodes up again)
    assert not [w for w in warnings(fixed)
                if not w.startswith('WARNING: while setting up') and by_line(w) == 25]


@pytest.mark.sphinx('html', testroot='check-markup-joins')
@pytest.mark.test_params(shared_result='card_markup-check-markup-joins')
def test_a_roles_closing_backquote_before_chinese_text(app, make_app, tmp_path):
    """The role's text runs on: to a card link (not a role that holds a link,
    nor two joined card names), or to nothing at the line's end (docutils'
    warning alone has no fix)."""
    reported_and_fixed(app, make_app, tmp_path, [14, 15, 16])


@pytest.mark.sphinx('html', testroot='check-markup-joins')
@pytest.mark.test_params(shared_result='card_markup-check-markup-joins')
def test_a_space_after_a_roles_opening_backquote(app, make_app, tmp_path):
    """One report, the space; its fix is not the text as written where
    `\\ ` is there already."""
    reported_and_fixed(app, make_app, tmp_path, [17, 18, 19])


@pytest.mark.sphinx('html', testroot='check-markup-joins')
@pytest.mark.test_params(shared_result='card_markup-check-markup-joins')
def test_a_link_in_a_roles_text(app, make_app, tmp_path):
    """The split for a declared role; for an undeclared one, the declaration
    first (the split alone is an unknown role still); the strike role's own fix."""
    reported_and_fixed(app, make_app, tmp_path, [20, 21, 22])
