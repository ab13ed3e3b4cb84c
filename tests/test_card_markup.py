"""Card markup checks: broken 「`卡名`_」 markup (an error: readers see it) and
unlinked 「卡名」 (a warning: the house style) at their exact line in a normal
build (so make html, with -W, fails on them)."""

from __future__ import annotations

import pytest

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
    # with a date after it (the backquotes after the tangle say nothing more)
    'index.rst:41: ERROR: `旋风` is interpreted text without a role (shown in italics): '
    'write 「`旋风`_」 for a card, ``旋风`` for literal text [handbook.markup]',
    *[f'index.rst:{line}: WARNING: Mismatch: both interpreted text role prefix and reference '
      'suffix. [docutils]' for line in (42, 43, 44)],
    *[f'index.rst:{line}: ERROR: :strike:`…` holds a link, which reStructuredText cannot nest '
      "in a role's text (readers see the markup): write its card names without backquotes, "
      ':strike:`「卡名」…`: the build links the names of struck text [handbook.markup]'
      for line in (42, 43)],
    "index.rst:44: ERROR: :red:`…` holds a link, which reStructuredText cannot nest in a role's "
    'text (readers see the markup): end the role before the link and start it again after '
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
