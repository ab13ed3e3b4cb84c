"""Card links: resolution, same-page targets, variants, unknown names, rebuilds."""

from __future__ import annotations

import shutil

import pytest
from handbook.nodes import card_reference
from helpers import PagesWritten, assert_no_warnings, html, links, warnings


@pytest.mark.sphinx('html', testroot='cards')
@pytest.mark.test_params(shared_result='card_links-cards')
def test_card_links_resolve(app):
    app.build()
    found = links(app)
    assert ('card', 'https://ygocdb.com/card/name/%E6%97%8B%E9%A3%8E', '旋风') in found
    # spelling variants link to the registry's name, keep the text as written
    assert ('card',
            'https://ygocdb.com/card/name/%E7%9C%9F%E9%BE%99%E5%89%91%E7%9A%87%20'
            '%E5%8D%93%E8%BE%89%E6%98%9F%C2%B7%E6%8B%BC%E5%9B%BE',
            '真龙剑皇卓辉星·拼图') in found
    assert ('card',
            'https://ygocdb.com/card/name/DDD%20%E5%8F%8D%E9%AA%A8%E7%8E%8B%20'
            '%E5%88%97%E5%A5%A5%E5%B0%BC%E8%BE%BE',
            'ＤＤＤ反骨王  列奥尼达') in found
    # a database id wins over the name; an explicit URL wins over both
    assert ('card', 'https://ygocdb.com/card/4711', '王宫的铁壁') in found
    assert ('card', 'https://example.org/solemn', '神之宣告') in found
    assert ('series',
            'https://ygocdb.com/?search=%E6%98%9F%E9%AA%91%E5%A3%AB', '星骑士') in found
    # an alias links to its card
    assert ('card',
            'https://ygocdb.com/card/name/%E6%97%8B%E9%A2%A8%E4%B9%8B%E7%8E%8B', '旋風王') in found


@pytest.mark.sphinx('html', testroot='cards')
@pytest.mark.test_params(shared_result='card_links-cards')
def test_same_page_targets_win(app):
    app.build()
    page = html(app)
    # 同时处理 is both a registry name and a section title of the page
    assert '<a class="reference internal" href="#id1">同时处理</a>' in page
    assert '<a class="reference internal" href="#label-target">label target</a>' in page
    assert [text for _, _, text in links(app)].count('同时处理') == 0


@pytest.mark.sphinx('html', testroot='cards')
@pytest.mark.test_params(shared_result='card_links-cards')
def test_unknown_names_are_errors_at_their_line(app):
    app.build()
    assert warnings(app) == [
        # 旋风的主人 contains 旋风: another card, so no did-you-mean
        'index.rst:23: ERROR: unknown card name 「旋风的主人」: check the spelling; '
        'if it is a new card, add a row to cards.tsv. [handbook.card]',
        'index.rst:28: ERROR: unknown card name 「王宫铁壁」: did you mean 「王宫的铁壁」? '
        'If it is a new card, add a row to cards.tsv. [handbook.card]',
    ]
    # the unknown name stays readable text
    assert '旋风的主人' in html(app)


def test_the_same_name_twice_in_a_paragraph_is_reported_at_each_line(
        make_app, rootdir, tmp_path):
    # each reference located as the paragraph was read, not among the
    # references not yet resolved (the second one got the first one's line)
    shutil.copytree(rootdir / 'test-cards', tmp_path / 'src')
    (tmp_path / 'src' / 'twice.rst').write_text(
        ':orphan:\n\nTwice\n=====\n\n第一行「`王宫铁壁`_」，\n第二行「`王宫铁壁`_」。\n',
        encoding='utf-8')
    app = make_app('html', srcdir=tmp_path / 'src')
    app.build()
    unknown = ('ERROR: unknown card name 「王宫铁壁」: did you mean 「王宫的铁壁」? '
               'If it is a new card, add a row to cards.tsv. [handbook.card]')
    assert [w for w in warnings(app) if w.startswith('twice.rst')] == [
        f'twice.rst:6: {unknown}', f'twice.rst:7: {unknown}']


@pytest.mark.sphinx('html', testroot='cards', srcdir='cards-registry-edit')
def test_registry_edit_rereads_only_pages_using_changed_names(app, make_app):
    # without the root's unknown names: a page that reported them is read again at
    # every build, to report them again (core/warned_pages.py)
    index = app.srcdir / 'index.rst'
    index.write_text(index.read_text(encoding='utf-8').replace(' 「`旋风的主人`_」', '').replace(
        '   | 「`王宫铁壁`_」\n', ''), encoding='utf-8')
    app.build()
    assert_no_warnings(app)
    registry = app.srcdir / 'cards.tsv'
    text = registry.read_text(encoding='utf-8')
    registry.write_text(text.replace('https://example.org/solemn', 'https://example.org/new'),
                        encoding='utf-8')

    again = make_app('html', srcdir=app.srcdir)
    read: list[str] = []
    noted = PagesWritten(again)
    again.connect('env-before-read-docs', lambda app, env, docnames: read.extend(docnames))
    again.build()
    written = noted()
    # only where its link leads changed: the two pages that use 神之宣告 are
    # written again with the new URL, not read again
    assert read == []
    assert {'index', 'other'} <= set(written)
    for page in ('index', 'other'):
        assert ('card', 'https://example.org/new', '神之宣告') in links(again, page)
    # a builder that does not draw card links reads them again, once
    text = make_app('text', srcdir=app.srcdir)
    text.connect('env-before-read-docs', lambda app, env, docnames: read.extend(docnames))
    text.build()
    assert sorted(read) == ['index', 'other']
    assert [n['refuri'] for n in text.env.get_doctree('other').findall(card_reference)] == \
        ['https://example.org/new']
    read.clear()
    make_app('text', srcdir=app.srcdir).build()
    assert read == []

    registry.write_text(registry.read_text(encoding='utf-8').replace('星骑士', '星骑士团'),
                        encoding='utf-8')
    third = make_app('html', srcdir=app.srcdir)
    read.clear()
    third.connect('env-before-read-docs', lambda app, env, docnames: read.extend(docnames))
    third.build()
    assert read == ['index']  # only index uses 星骑士
    assert 'unknown card name 「星骑士」' in '\n'.join(warnings(third))

    fourth = make_app('html', srcdir=app.srcdir)
    read.clear()
    fourth.connect('env-before-read-docs', lambda app, env, docnames: read.extend(docnames))
    fourth.build()
    # nothing changed: only the page that reported an unknown name is read again,
    # to report it again (core/warned_pages.py), as a clean build would
    assert read == ['index']
    assert 'unknown card name 「星骑士」' in '\n'.join(warnings(fourth))


@pytest.mark.sphinx('html', testroot='legacy', freshenv=True)
def test_legacy_link_definitions(app):
    app.build()
    assert_no_warnings(app)
    assert links(app) == [
        ('card', 'https://ygocdb.com/card/name/旋风', '旋风'),
        ('series', 'https://ygocdb.com/?search=星骑士', '星骑士'),
    ]
    # the link file lies in the source folder but is not a page
    assert not (app.outdir / 'links.html').exists()
    assert 'links' not in app.env.found_docs


@pytest.mark.sphinx('html', testroot='legacy', freshenv=True, confoverrides={'handbook_cards': 'other-links.txt'})
def test_registry_path_is_a_config_value(app):
    app.build()
    assert links(app)[0] == ('card', 'https://example.org/旋风', '旋风')


@pytest.mark.sphinx('html', testroot='registry-errors', freshenv=True)
def test_bad_registry_rows_are_errors_at_their_line(app):
    app.build()
    until = '; until then, pages that name 「{}」 show it without a link'
    assert warnings(app) == [
        'cards.tsv:3: ERROR: empty card name; give the name pages write inside 「`…`_」 [handbook.registry]',
        "cards.tsv:6: ERROR: URL 'ftp://example.org/x' is not an http(s) URL, so it is never a link; "
        f"use https://… or leave it empty{until.format('某卡')} [handbook.registry]",
        "cards.tsv:7: ERROR: card id 'abc' is not a positive integer; use the database id or leave it "
        f"empty{until.format('某卡二')} [handbook.registry]",
        "cards.tsv:8: ERROR: unknown kind 'monster'; the first column is \"card\" or \"series\" (columns "
        f"are separated by tabs){until.format('某卡三')} [handbook.registry]",
        'cards.tsv:9: ERROR: row has 6 columns; a row is kind, name, id, url, aliases separated by '
        f"tabs{until.format('某卡四')} [handbook.registry]",
        "cards.tsv:10: ERROR: bad aliases 'zh_TW'; write lang=name pairs separated by \";\", e.g. "
        f"zh_TW=旋風;en=Mystical Space Typhoon{until.format('某卡五')} [handbook.registry]",
    ]
    # a repeated row and a second spelling are notes (tests/test_legacy_registry.py)
    status = app.status.getvalue()
    assert 'cards.tsv:4: note: duplicate row: line 2 has 「旋风」 with the same link; remove this row ' \
        '(make fix does) [handbook.registry]' in status
    assert 'cards.tsv:5: note: 「旋\u3000风」 spells line 2\'s card 「旋风」 another way' in status
    assert links(app) == [('card', 'https://ygocdb.com/card/name/%E6%97%8B%E9%A3%8E', '旋风')]


def test_a_kept_registry_repeats_its_errors_and_sums_up_its_notes(make_app, rootdir, tmp_path):
    """The build after, the registry unchanged: its errors fail the build
    again, its notes (printed by the build that read it) are one line."""
    srcdir = tmp_path / 'src'
    shutil.copytree(rootdir / 'test-registry-errors', srcdir)
    first = make_app('html', srcdir=srcdir, freshenv=True)
    first.build()
    assert 'cards.tsv:5: note: 「旋\u3000风」 spells line 2\'s card' in first.status.getvalue()
    first.cleanup()  # Sphinx's global registries, before the next app
    (srcdir / 'index.rst').write_text((srcdir / 'index.rst').read_text(encoding='utf-8') + '\n',
                                      encoding='utf-8')
    again = make_app('html', srcdir=srcdir)
    again.build()
    assert warnings(again) == warnings(first) != []  # the rows' errors, again
    assert [line for line in again.status.getvalue().splitlines() if 'note: ' in line] == [
        f'{srcdir / "cards.tsv"}:4: note: the card registry is as the last build read it: its 2 '
        'notes (handbook.registry ×1, handbook.registry-alias ×1) were printed then and are not '
        'repeated; make check lists them [handbook.registry-notes]']
    again.cleanup()
    # the notes a build suppresses are not counted
    quiet = make_app('html', srcdir=srcdir,
                     confoverrides={'suppress_warnings': ['handbook.registry']})
    quiet.build()
    assert [line for line in quiet.status.getvalue().splitlines() if 'note: ' in line] == [
        f'{srcdir / "cards.tsv"}:5: note: the card registry is as the last build read it: its note '
        '(handbook.registry-alias ×1) was printed then and is not repeated; make check lists them '
        '[handbook.registry-notes]']


@pytest.mark.sphinx('html', testroot='cards', freshenv=True,
                    confoverrides={'handbook_cards': 'missing.tsv'})
def test_missing_registry_is_a_clear_error(app):
    """One located error (issue 34, case 12: no crash report), the card names
    shown without links and not reported one by one."""
    app.build()
    assert warnings(app) == [
        'missing.tsv:1: ERROR: cannot read the card registry missing.tsv: '
        'No such file or directory; give the registry file (a TSV, or a link file of .. _`卡名`: '
        'URL rows) with handbook_cards in conf.py, cards in handbook.toml, or make … CARDS=PATH; '
        'until then the card names are shown without links [handbook.registry]']
    assert links(app) == []


def test_a_registry_name_is_its_link_as_soon_as_it_is_read(make_app, rootdir, tmp_path):
    # CardReferences makes the link itself; an unknown name and a name in a
    # section title (tables of contents take xrefs only) are card xrefs
    from handbook.nodes import card_of, in_title

    srcdir = tmp_path / 'src'
    shutil.copytree(rootdir / 'test-cards', srcdir)
    (srcdir / 'titled.rst').write_text(
        ':orphan:\n\n「`旋风`_」的标题\n==============\n\n正文「`旋风`_」。\n', encoding='utf-8')
    app = make_app('html', srcdir=srcdir)
    seen: dict[str, list] = {}
    app.connect('handbook-page-read', lambda app, page: seen.setdefault(page.docname, [
        (type(node).__name__, card_of(node)[1], in_title(node)) for node in page.nodes['cards']]),
        priority=1)
    app.build()
    unknown = {'旋风的主人', '王宫铁壁'}  # not in the registry
    assert {(kind, name) for kind, name, _ in seen['index'] if name in unknown} == \
        {('pending_xref', name) for name in unknown}
    assert {kind for kind, name, _ in seen['index'] if name not in unknown} == {'card_reference'}
    assert seen['titled'] == [('pending_xref', '旋风', True), ('card_reference', '旋风', False)]
    # the title's name is linked when the page is written
    assert html(app, 'titled').count('class="card-link card-card reference external"') >= 2


def test_a_cards_link_is_made_once_per_build(make_app, rootdir, tmp_path, monkeypatch):
    # not once per page read (the store's derived values are made again
    # once a page is read; a link depends on the registry alone)
    from collections import Counter

    from handbook.cards.registry import UrlTemplates

    srcdir = tmp_path / 'src'
    shutil.copytree(rootdir / 'test-cards', srcdir)
    for name in ('second', 'third'):
        (srcdir / f'{name}.rst').write_text(
            f':orphan:\n\n{name}\n======\n\n| 「`旋风`_」和「`神之宣告`_」。\n', encoding='utf-8')
    made = Counter()
    real = UrlTemplates.url
    monkeypatch.setattr(UrlTemplates, 'url',
                        lambda self, card: made.update([card.key]) or real(self, card))
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert made['旋风'] == made['神之宣告'] == 1


def test_an_unknown_name_too_long_for_a_card_is_shown_cut(make_app, rootdir, tmp_path):
    """A 10,000-character name: its report echoed all of it and said to add
    a row, which the registry refuses past 2,000 characters (a hostile-input
    round trip)."""
    srcdir = tmp_path / 'cards'
    shutil.copytree(rootdir / 'test-cards', srcdir)
    name = '龙' * 10_000
    with (srcdir / 'index.rst').open('a', encoding='utf-8') as page:
        page.write(f'\n「`{name}`_」\n')
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    [report] = [w for w in warnings(app) if "10,000 characters" in w]
    assert report.endswith(f'ERROR: unknown card name 「{"龙" * 100}…」 (10,000 characters): no '
                           'card has a name this long: check that the link ends where the name '
                           'does [handbook.card]')
