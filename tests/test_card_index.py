"""The card index, the markers after card links, related sections: structure,
order, links, never stale, the same in parallel; the real handbook against
its sources."""

from __future__ import annotations

import functools
import html as html_module
import json
import random
import re
import shutil
from types import SimpleNamespace
from pathlib import Path
from urllib.parse import unquote

import pytest
import seeds
from conftest import ROOT
from docutils import frontend, nodes, utils
from docutils.parsers.rst import Parser
from handbook.cards import registry as card_registry
from handbook.cards.registry import Card
from handbook.listings import card_index
from helpers import (
    assert_no_warnings,
    card_targets,
    html,
    moved_anchors,
    warnings,
    whole_list,
    written_by,
)

#: (group id, title, [(entry id, kind, name, [(href, text, [(ruling href, date)])])])
#: of test-card-index
INDEX = [
    ('initial-d', 'D', [
        # a Latin name before the Chinese names of its letter; a spelling
        # variant of the name is the same entry
        ('card-ddd反骨王列奥尼达', 'card', 'DDD 反骨王 列奥尼达', [
            ('index.html#第一节', 'Cards › 第一节',
             [('index.html#ruling-2018-01-13-ddd反骨王列奥尼达', '18/1/13')])]),
        ('card-大逮捕', 'card', '大逮捕', [('index.html', 'Cards', [])]),
    ]),
    ('initial-n', 'N', [
        ('card-no-39希望皇彼端超霍普', 'card', 'No.39 希望皇 彼端超霍普',
         [('other.html#另一节', 'Other › 另一节', [])]),
    ]),
    ('initial-s', 'S', [
        ('card-神之宣告', 'card', '神之宣告', [
            ('index.html', 'Cards', [('index.html#ruling-2017-03-24-旋风', '17/3/24')]),
            ('other.html', 'Other', [('other.html#ruling-2017-12-22-旋风', '17/12/22')])]),
    ]),
    ('initial-w', 'W', [
        ('card-王宫的铁壁', 'card', '王宫的铁壁', [
            ('index.html#第一节', 'Cards › 第一节',
             [('index.html#ruling-2018-01-13-ddd反骨王列奥尼达', '18/1/13')]),
            ('other.html', 'Other', [('other.html#ruling-2017-12-22-旋风', '17/12/22')])]),
    ]),
    ('initial-x', 'X', [  # xin, xing chen, xing qi, xuan
        ('card-心眼的女神', 'card', '心眼的女神', [
            ('index.html#子节', 'Cards › 子节',
             [('index.html#ruling-2020-01-13-心眼的女神', '20/1/13')])]),
        ('card-星尘龙', 'card', '星尘龙', [('other.html#另一节', 'Other › 另一节', [])]),
        ('card-星骑士', 'series', '星骑士', [('index.html#标签', 'Cards › 「星骑士」与「Ω眼镜」', [])]),
        ('card-旋风', 'card', '旋风', [
            ('index.html', 'Cards', [('index.html#ruling-2017-03-24-旋风', '17/3/24')]),
            ('index.html#第一节', 'Cards › 第一节', [('index.html#ruling-2019-02-04-旋风', '19/2/4')]),
            ('other.html', 'Other', [('other.html#ruling-2017-12-22-旋风', '17/12/22')])]),
    ]),
    ('initial-other', '#', [
        ('card-ω眼镜', 'card', 'Ω眼镜', [
            ('index.html#标签', 'Cards › 「星骑士」与「Ω眼镜」', []),
            ('other.html#另一节', 'Other › 另一节', [])]),
    ]),
]

#: {section id: [(href, text, shared cards)]} of the related sections of each page
RELATED = {
    'index': {
        'cards': [('other.html', 'Other', '2 个共同的卡名：旋风、神之宣告')],
        '第一节': [('other.html', 'Other', '2 个共同的卡名：王宫的铁壁、旋风')],
        '标签': [('other.html#另一节', 'Other › 另一节', '1 个共同的卡名：Ω眼镜')],
    },
    'other': {
        # the same number of shared cards: in page order
        'other': [('index.html', 'Cards', '2 个共同的卡名：旋风、神之宣告'),
                  ('index.html#第一节', 'Cards › 第一节', '2 个共同的卡名：旋风、王宫的铁壁')],
        '另一节': [('index.html#标签', 'Cards › 「星骑士」与「Ω眼镜」', '1 个共同的卡名：Ω眼镜')],
    },
}


def strip(text: str) -> str:
    return re.sub(r'<[^>]+>', '', text)


def index_of(app, docname: str = 'card-index') -> list:
    """The index page as the structure of :data:`INDEX`."""
    groups = []
    # a page per initial (render/split_pages.py): its title is the index's and the initial
    for group in re.finditer(r'<section class="card-index-group" id="([^"]+)">\s*<h1>[^<：]*：'
                             r'(.*?)</h1>.*?</section>', whole_list(app.outdir, docname), re.S):
        entries = []
        for entry in re.finditer(r'<dt class="card-index-(\w+)" id="([^"]+)">(.*?)</dt>'
                                 r'<dd>(.*?)</dd>', group[0], re.S):
            kind, ident, term, places = entry.groups()
            name = re.search(r'<a class="card-link[^>]*>(.*?)</a>|<span class="card-name">(.*?)'
                             r'</span>', term)
            name = name[1] if name[1] is not None else name[2]
            listed = []
            for item in re.findall(r'<li>(.*?)</li>', places, re.S):
                link = re.match(r'<a class="reference internal" href="([^"]*)"><span>(.*?)</span>'
                                r'</a>', item)
                rulings = re.findall(r'<a class="reference internal" href="([^"]*)">'
                                     r'<span class="ruling">([^<]*)</span></a>', item)
                listed.append((link[1], link[2], rulings))
            entries.append((ident, kind, name, listed))
        groups.append((group[1], group[2], entries))
    return groups


def related_of(app, docname: str) -> dict[str, list[tuple[str, str, str]]]:
    """``{section id: [(href, text, shared cards)]}`` of a page's related
    sections, as ``related_sections.js`` lists them from the page's file of
    entries (an HTML page), or as the page writes them out (the EPUB's)."""
    tables = None
    if app.builder.name == 'html':
        page = html(app, docname)
        path = app.outdir / '_related' / f'{docname}.js'
        if path.is_file():
            text = path.read_text(encoding='utf-8')
            assert text.startswith('window.handbookRelatedSections = ') and text.endswith(';\n')
            tables = json.loads(text[len('window.handbookRelatedSections = '):-2])
    else:
        page = (app.outdir / f'{docname}.xhtml').read_text(encoding='utf-8')
    found = {}
    for chunk in re.split(r'<section id="', page)[1:]:
        section = chunk[:chunk.index('"')]
        head = chunk.split('<section', 1)[0]
        block = re.search(r'<details class="related-sections no-search">'
                          r'<summary>相关章节（(\d+)）</summary>(.*?)</details>', head, re.S)
        if not block:
            assert tables is None or section not in tables['blocks']
            continue
        if tables is not None:  # entries numbering the file's tables; nothing written out
            assert block[2] == ''
            items = []
            for entry in tables['blocks'][html_module.unescape(section)].split(' '):
                target, count, *shown = map(int, entry.split(','))
                href, text = tables['targets'][target]
                names = '、'.join(tables['names'][i] for i in shown)
                names += '……' if count > len(shown) else ''
                items.append((href, text, f'{count} 个共同的卡名：{names}'))
        else:
            items = re.findall(r'<li><a class="reference internal" href="([^"]*)">(.*?)</a> · '
                               r'<span class="related-cards">(.*?)</span></li>', block[2])
        assert int(block[1]) == len(items)
        found[section] = items
    return found


def markers(app, docname: str) -> list[tuple[str, str, str]]:
    """``(card name as written, § target, § label)`` of every card link, as
    the readers' tools make its § (``helpers.card_targets``); ('', '') where
    it has none."""
    return card_targets(whole_list(app.outdir, docname) if docname == 'card-index' else
                        html(app, docname))


# -- structure --------------------------------------------------------------------------


@pytest.mark.sphinx('html', testroot='card-index')
@pytest.mark.test_params(shared_result='card_index-card-index')
def test_index_structure(app):
    app.build()
    assert_no_warnings(app)
    assert index_of(app) == INDEX
    page = whole_list(app.outdir, 'card-index')
    assert '<p class="card-index-summary">共 9 张卡片、1 个系列。</p>' in page
    # the jump bar: a page per initial (render/split_pages.py), on the index's
    # page and on each of them, every link of it leading to a page that is there
    bar = re.search(r'<p class="card-index-initials">(.*?)</p>', html(app, 'card-index'))[1]
    assert re.findall(r'href="card-index/([^"]*)\.html">([^<]*)</a>', bar) == [
        (g.removeprefix('initial-'), t) for g, t, _ in INDEX]
    for group, letter, _entries in INDEX:
        part = html(app, f'card-index/{group.removeprefix("initial-")}')
        assert f'<title>Card index：{letter} ' in part
        bar = re.search(r'<p class="card-index-initials">(.*?)</p>', part)[1]
        assert f'<strong aria-current="page">{letter}</strong>' in bar
        for href in re.findall(r'href="([^"]*)"', bar):
            assert (app.outdir / 'card-index' / href).resolve().is_file(), href
    assert sorted(p.name for p in (app.outdir / 'card-index').iterdir()) == sorted(
        f'{g.removeprefix("initial-")}.html' for g, _t, _e in INDEX)
    # a card no page links (大宇宙) is not on the index
    assert '大宇宙' not in page
    # the groups' and entries' ids, once each
    ids = re.findall(r' id="((?:card|initial)-[^"]*)"', page)
    assert len(ids) == len(set(ids))


@pytest.mark.sphinx('html', testroot='card-index')
@pytest.mark.test_params(shared_result='card_index-card-index')
def test_old_anchors_of_the_index_lead_to_the_pages_of_the_initials(app):
    """card-index.html#card-旋风 and #initial-x still lead to their entry: the
    index's page maps each id to its page, which a script follows."""
    app.build()
    moved = moved_anchors(app, 'card-index')
    assert sorted(moved) == sorted(f'card-index/{g.removeprefix("initial-")}.html'
                                   for g, _t, _e in INDEX)
    assert moved['card-index/x.html'][:2] == ['initial-x', 'card-心眼的女神']
    for target, anchors in moved.items():
        text = (app.outdir / target).read_text(encoding='utf-8')
        assert all(f'id="{anchor}"' in text for anchor in anchors)
    assert sum(map(len, moved.values())) == len(INDEX) + sum(len(e) for _g, _t, e in INDEX)


@pytest.mark.sphinx('html', testroot='card-index')
@pytest.mark.test_params(shared_result='card_index-card-index')
def test_every_card_link_has_a_marker_to_its_entry(app):
    app.build()
    entry_ids = {name: ident for _, _, entries in INDEX for ident, _, name, _ in entries}
    found = markers(app, 'index') + markers(app, 'other')
    assert len(found) == 17
    for name, href, title in found:
        registry_name = 'DDD 反骨王 列奥尼达' if name == 'DDD反骨王列奥尼达' else name
        assert href == f'card-index.html#{entry_ids[registry_name]}'
        assert title == f'卡片索引：{name}'
    # a spelling the browser cannot fold to the entry's id says its entry
    assert 'data-card="ddd反骨王列奥尼达"' not in html(app, 'other')  # it can
    # the index's own card links lead to their own entries
    assert {(name, href) for name, href, _ in markers(app, 'card-index')} == \
        {(name, f'card-index.html#{ident}') for name, ident in entry_ids.items()}
    # the § is no text of the page: the page's text is as written, one link a card
    assert '卡片索引' not in strip(html(app, 'other'))
    assert 'card-index-marker' not in html(app, 'other')


@pytest.mark.sphinx('html', testroot='card-index', freshenv=True)
def test_related_sections(app, monkeypatch):
    # an HTML builder's links are made with the blocks: no xref is left for
    # Sphinx's resolver (each resolved xref is a cycle for the collector)
    anchors = app.env.domains['anchor']
    resolved = []
    real = anchors.resolve_xref
    monkeypatch.setattr(anchors, 'resolve_xref', lambda *a: resolved.append(a) or real(*a))
    app.build()
    assert resolved == []
    for docname, related in RELATED.items():
        assert related_of(app, docname) == related, docname
        # the page holds no list: its blocks are listed when opened, by the
        # script the page loads, with the texts of the build's language
        page = html(app, docname)
        assert '<li>' not in re.search(r'<details class="related-sections.*</details>', page, re.S)[0]
        script = re.findall(r'<script ([^>]*)src="_static/related_sections\.js\?v=[0-9a-f]{8}"', page)
        assert len(script) == 1 and 'defer="defer"' in script[0]
        assert f'data-tables="_related/{docname}.js"' in script[0]
        assert 'data-shared="{count} 个共同的卡名：{names}"' in script[0]
        assert 'data-separator="、"' in script[0] and 'data-more="……"' in script[0]
    assert (app.outdir / '_static' / 'related_sections.js').read_bytes() == \
        (ROOT / '_ext/handbook/listings/related_sections.js').read_bytes()
    # no related sections on a page without card links of its own, nor their script
    assert 'related-sections' not in whole_list(app.outdir, 'card-index')
    assert 'related_sections.js' not in html(app, 'card-index')
    assert sorted(p.name for p in (app.outdir / '_related').iterdir()) == ['index.js', 'other.js']


@pytest.mark.sphinx('epub', testroot='card-index', freshenv=True)
def test_related_sections_are_written_as_the_translator_writes_their_nodes(app):
    # the EPUB (no script) gets the blocks' lists written out: HTML made at
    # once (render/html_parts.py), the same bytes as the translator writes
    # for the list as nodes, but for the paragraph in each item and the line
    # breaks between them (elements of the page, hundreds on a chapter page)
    from handbook.cards.links import registry as registry_of
    from handbook.listings import related_sections as rs
    from handbook.render.anchors import page_title
    from handbook.render.html_parts import Writer
    from sphinx.util.docutils import new_document

    app.build()
    env = app.env
    registry = registry_of(env)
    document = new_document('<index>', app.builder.docsettings)
    for docname in ('index', 'other'):
        page = (app.outdir / f'{docname}.xhtml').read_text(encoding='utf-8')
        assert 'related_sections.js' not in page
        assert not (app.outdir / '_related').exists()
        assert related_of(app, docname) == {
            section: [(href.replace('.html', '.xhtml'), text, shared)
                      for href, text, shared in items]
            for section, items in RELATED[docname].items()}
        for section, others in rs.related(env, docname):
            listing = nodes.bullet_list()
            for other, keys in others:
                title = page_title(env, other.docname)
                top = other.top and other.title in ('', title)
                uri = app.builder.get_relative_uri(docname, other.docname)
                item = nodes.paragraph()
                item += nodes.reference('', '', nodes.Text(
                    title if top else f'{title} › {other.title}'), internal=True,
                    refuri=uri if top else f'{uri}#{other.section_id}')
                names = '、'.join(registry[k].name for k in keys[:rs.SHOWN_NAMES])
                names += '……' if len(keys) > rs.SHOWN_NAMES else ''
                item += nodes.Text(' · ')
                item += nodes.inline('', f'{len(keys)} 个共同的卡名：{names}',
                                     classes=['related-cards'])
                listing += nodes.list_item('', item)
            document += listing
            with Writer(env, docname, document) as write:
                expected = write(listing)
            expected = re.sub(r'</?p>|\n', '', expected) + '\n'
            assert expected.startswith('<ul class="simple"><li>') and expected in page, section


@pytest.mark.parametrize('seed', range(20))
def test_related_sections_are_the_most_shared_then_in_page_order(seed, monkeypatch):
    # pages of sections linking cards from a small pool: many ties, sections
    # of the same page, sections linking nothing and a key no row has
    from handbook.listings import related_sections

    rng = random.Random(seed)
    pool = [f'k{i}' for i in range(10)]
    pages = {}
    for p in rng.sample(range(8), 8):  # the store's pages in no particular order
        docname = f'p{p}'
        pages[docname] = [card_index.Section(
            docname, i, f's{i}' if i else '', f'T{i}', i == 0,
            tuple((key, key) for key in rng.choices(pool + ['gone'], k=rng.randrange(0, 6))))
            for i in range(rng.randrange(1, 7))]
    registry = {key: SimpleNamespace(key=key) for key in pool}
    monkeypatch.setattr(related_sections.card_index, 'sections', lambda env: pages)
    monkeypatch.setattr(related_sections.card_links, 'registry', lambda env: registry)

    def keys(section):
        return list(dict.fromkeys(k for k, _name in section.cards if k in registry))

    every = [section for secs in pages.values() for section in secs]
    for limit in (1, 3, 100):
        expected = {}
        for docname, secs in pages.items():
            for section in secs:
                if not section.section_id:
                    continue
                others = [(other, [k for k in keys(section) if k in keys(other)])
                          for other in every if other.docname != docname]
                others = sorted((o for o in others if o[1]),
                                key=lambda o: (-len(o[1]), o[0].docname, o[0].index))
                if others:
                    expected.setdefault(docname, []).append((section, others[:limit]))
        assert related_sections.related_all(None, limit) == expected


@pytest.mark.sphinx('html', testroot='card-index', freshenv=True,
                    confoverrides={'handbook_related_sections': 1})
def test_related_sections_limit(app):
    app.build()
    assert related_of(app, 'other')['other'] == RELATED['other']['other'][:1]
    assert related_of(app, 'index') == RELATED['index']


@pytest.mark.sphinx('html', testroot='card-index', freshenv=True,
                    confoverrides={'handbook_related_sections': 0})
def test_related_sections_off(app):
    app.build()
    assert 'related-sections' not in html(app, 'index') + html(app, 'other')


@pytest.mark.sphinx('html', testroot='card-index', freshenv=True,
                    confoverrides={'language': 'zh_TW'})
def test_names_in_the_language_of_the_build_ids_in_every_language(app):
    app.build()
    entry = next(e for _, _, es in index_of(app) for e in es if e[0] == 'card-王宫的铁壁')
    assert entry[2] == '王宮的鐵壁'
    assert ('王宫的铁壁', 'card-index.html#card-王宫的铁壁', '卡片索引：王宫的铁壁') in \
        markers(app, 'other')


@pytest.mark.sphinx('latex', testroot='card-index', freshenv=True)
def test_latex_has_the_index_without_markers_or_related_sections(app):
    app.build()
    assert_no_warnings(app)
    tex = next(app.outdir.glob('*.tex')).read_text(encoding='utf-8')
    index = tex[tex.index(r'\chapter{Card index}'):]
    assert index.count(r'\sphinxlineitem{') == 10  # the entries
    # an entry's sections in one paragraph, separated by ；
    assert r'\begin{itemize}' not in index
    assert '{Cards}}}\\DUrole{card-index-rulings}' in index and '；' in index
    # links to sections and rulings (LaTeX escapes the ids' Chinese), all to a target
    assert r'\hyperref[\detokenize{index:ruling-2019-02-04-_u65cb_u98ce}]' in index  # 旋风
    assert r'\hyperref[\detokenize{other:_u53e6_u4e00_u8282}]' in index  # 另一节
    targets = set(re.findall(r'\\label\{\\detokenize\{([^}]*)\}\}', tex))
    assert set(re.findall(r'\\hyperref\[\\detokenize\{([^}]*)\}\]', tex)) <= targets
    assert 'card-index-marker' not in tex and '相关章节' not in tex


# -- order and ids ------------------------------------------------------------------------


@pytest.mark.parametrize(('name', 'letter'), [
    ('旋风', 'X'), ('DDD 反骨王 列奥尼达', 'D'), ('No.39 希望皇 彼端超霍普', 'N'),
    ('Ω眼镜', '#'), ('1st', '#'), ('「A」', '#'), ('阿不思的落胤', 'A'), ('ｚ', 'Z'),
])
def test_initial(name, letter):
    assert card_index.initial(Card(name, 'card', 1).key) == letter


def test_pinyin_order():
    names = ['旋风', '星骑士', '心眼的女神', '星尘龙', '新宇', 'XYZ诛罚', 'X·Y·Z合体', '吸血鬼帝国']
    ordered = sorted(names, key=lambda n: card_index.sort_key(Card(n, 'card', 1).key))
    assert ordered == ['X·Y·Z合体', 'XYZ诛罚', '吸血鬼帝国', '心眼的女神', '新宇', '星尘龙',
                       '星骑士', '旋风']


def test_entry_ids_are_readable_and_unique():
    cards = [Card(name, 'card', i) for i, name in enumerate(
        ['旋风', 'G·B·猎人', 'No.39 霍普', 'No-39 霍普', '「」'], start=1)]
    ids = card_index.entry_ids(cards)
    assert ids['旋风'] == 'card-旋风'
    assert ids['gb猎人'] == 'card-gb猎人'
    # the same readable id for two names: both get a hash of their own key
    assert re.fullmatch(r'card-no-39霍普-[0-9a-f]{6}', ids['no.39霍普'])
    assert re.fullmatch(r'card-no-39霍普-[0-9a-f]{6}', ids['no-39霍普'])
    assert ids['no.39霍普'] != ids['no-39霍普']
    assert re.fullmatch(r'card-[0-9a-f]{6}', ids['「」'])
    # an id depends on the registry's names, not their order
    assert card_index.entry_ids(reversed(cards)) == ids


# -- never stale, the same in parallel ------------------------------------------------------


def edit(path, old: str, new: str) -> None:
    text = path.read_text(encoding='utf-8')
    assert old in text
    path.write_text(text.replace(old, new), encoding='utf-8')


def pages_written(make_app, srcdir):
    """:func:`helpers.written_by`, but for the pages of the index's initials
    (made whenever the index is, written only where they changed)."""
    app, written = written_by(make_app, srcdir)
    return app, {name for name in written if not name.startswith('card-index/')}


def entry_places(app, ident: str) -> list[str]:
    return [href for _, _, es in index_of(app) for e in es if e[0] == ident for href, _, _ in e[3]]


@pytest.mark.sphinx('html', testroot='card-index', srcdir='card-index-updates')
def test_index_and_related_sections_follow_the_pages(app, make_app):
    app.build()
    src = app.srcdir
    # a card leaves a page: the index and the pages sharing its cards are rewritten
    edit(src / 'other.rst', '「`神之宣告`_」「`王宫的铁壁`_」', '「`王宫的铁壁`_」')
    second, written = pages_written(make_app, src)
    assert written >= {'other', 'card-index', 'index'}
    assert entry_places(second, 'card-神之宣告') == ['index.html']
    assert related_of(second, 'index')['cards'] == [('other.html', 'Other', '1 个共同的卡名：旋风')]

    # a page whose cards no other page links: only it and the index are rewritten
    (src / 'plain.rst').write_text(':orphan:\n\nPlain\n=====\n\n「`大宇宙`_」。\n', encoding='utf-8')
    # (and Sphinx rewrites index, whose table of contents holds the card index)
    third, written = pages_written(make_app, src)
    assert written - {'genindex', 'search'} == {'plain', 'card-index', 'index'}
    assert entry_places(third, 'card-大宇宙') == ['plain.html']
    # its text changes, its cards do not: the index shows the same, only it is rewritten
    edit(src / 'plain.rst', '。', '，改。')
    _, written = pages_written(make_app, src)
    assert written - {'genindex', 'search'} == {'plain'}
    # a ruling's date is written another way (full width: a note), its cards and
    # anchor stay: the index shows the date as written
    edit(src / 'other.rst', ':ruling:`17/12/22`', ':ruling:`１７/１２/２２`')
    dated, written = pages_written(make_app, src)
    assert written - {'genindex', 'search'} == {'other', 'card-index', 'index'}  # (as above)
    assert '>１７/１２/２２<' in whole_list(dated.outdir, 'card-index')

    # it now names 旋风 too: the pages naming 旋风 get it as a related section
    edit(src / 'plain.rst', '「`大宇宙`_」', '「`大宇宙`_」「`旋风`_」')
    fifth, written = pages_written(make_app, src)
    assert written - {'genindex', 'search'} == {'plain', 'card-index', 'index', 'other'}
    assert ('plain.html', 'Plain', '1 个共同的卡名：旋风') in related_of(fifth, 'other')['other']
    assert related_of(fifth, 'plain') and (fifth.outdir / '_related/plain.js').is_file()
    # and no longer: its file of entries goes with its blocks
    edit(src / 'plain.rst', '「`大宇宙`_」「`旋风`_」', '「`大宇宙`_」')
    gone, written = pages_written(make_app, src)
    assert 'plain' in written and related_of(gone, 'plain') == {}
    assert not (gone.outdir / '_related/plain.js').exists()
    assert 'related_sections.js' not in html(gone, 'plain')
    edit(src / 'plain.rst', '「`大宇宙`_」', '「`大宇宙`_」「`旋风`_」')
    again, _ = pages_written(make_app, src)
    assert (again.outdir / '_related/plain.js').is_file()

    # the page is removed: it leaves the index and the related sections
    (src / 'plain.rst').unlink()
    sixth, written = pages_written(make_app, src)
    assert {'card-index', 'index', 'other'} <= written
    assert 'plain.html' not in whole_list(sixth.outdir, 'card-index') + html(sixth, 'other')
    assert 'card-大宇宙' not in whole_list(sixth.outdir, 'card-index')

    # a registry row whose entry id would be No.39's: the page linking No.39
    # is rewritten with the new id, though its links did not change
    with (src / 'cards.tsv').open('a', encoding='utf-8') as registry:
        registry.write('# test only: a name that differs from No.39 in punctuation\n'
                       'card\tNo-39 希望皇 彼端超霍普\n')
    seventh, written = pages_written(make_app, src)
    assert 'other' in written
    new_id = card_index.entry_ids(card_index.card_links.registry(seventh.env).cards())[
        'no.39希望皇彼端超霍普']
    assert new_id != 'card-no-39希望皇彼端超霍普'
    assert ('No.39 希望皇 彼端超霍普', f'card-index.html#{new_id}',
            '卡片索引：No.39 希望皇 彼端超霍普') in markers(seventh, 'other')
    assert f'id="{new_id}"' in whole_list(seventh.outdir, 'card-index')
    assert [w for w in warnings(seventh) if '[app.' not in w] == []


@pytest.mark.sphinx('html', testroot='card-index', srcdir='card-index-relinked')
def test_a_row_whose_link_alone_changed_leaves_the_related_sections_as_they_were(
        app, make_app, monkeypatch):
    from handbook.listings import related_sections

    app.build()
    before = {doc: related_of(app, doc) for doc in ('index', 'other')}
    assert before['index']
    computed = []
    monkeypatch.setattr(related_sections, 'related_all', lambda *args: computed.append(args) or {})
    edit(app.srcdir / 'cards.tsv', 'card\t旋风\n', 'card\t旋风\t\thttps://example.com/travel\n')
    second, written = written_by(make_app, app.srcdir)
    assert {'index', 'other', 'card-index'} <= written  # their links to 旋风 moved
    assert 'https://example.com/travel' in html(second, 'index') + whole_list(second.outdir, 'card-index')
    assert computed == []  # the blocks show no link to the card database
    assert {doc: related_of(second, doc) for doc in ('index', 'other')} == before
    second.cleanup()

    # a row no page links moves: the index does not show it, nothing is written again
    edit(app.srcdir / 'cards.tsv', 'card\t大宇宙\n', 'card\t大宇宙\t\thttps://example.com/universe\n')
    _, written = written_by(make_app, app.srcdir)
    assert written - {'genindex', 'search'} == set()


@pytest.mark.sphinx('html', testroot='card-index', srcdir='card-index-removed')
def test_markers_follow_the_index_page(app, make_app):
    app.build()
    src = app.srcdir
    stub = (src / 'card-index.rst').read_text(encoding='utf-8')
    # no index page: no markers, though the pages did not change
    edit(src / 'index.rst', '   card-index\n', '')
    (src / 'card-index.rst').unlink()
    second, written = written_by(make_app, src)
    assert 'other' in written
    assert {href for _, href, _ in markers(second, 'other')} == {''}
    # an index page under another name: the markers lead there
    (src / 'cards.rst').write_text(stub, encoding='utf-8')
    edit(src / 'index.rst', '   other\n', '   other\n   cards\n')
    third, written = written_by(make_app, src)
    assert 'other' in written
    assert ('Ω眼镜', 'cards.html#card-ω眼镜', '卡片索引：Ω眼镜') in markers(third, 'other')
    assert [w for w in warnings(third) if '[app.' not in w] == []


@pytest.mark.sphinx('html', testroot='card-index', srcdir='card-index-parallel', parallel=4)
def test_parallel_build_gives_the_same_pages(app, make_app, tmp_path):
    # parallel reading needs more than five pages to read
    extra = [f'p{i}' for i in range(6)]
    cards = ['星尘龙', '大逮捕', 'Ω眼镜', '神之宣告', '心眼的女神', '王宫的铁壁']
    for day, (name, card) in enumerate(zip(extra, cards), start=2):
        (app.srcdir / f'{name}.rst').write_text(
            f'{name}\n==\n\n| 第{name}页「`旋风`_」「`{card}`_」。\\ :ruling:`19/3/{day}`\n',
            encoding='utf-8')
    edit(app.srcdir / 'index.rst', '   card-index\n',
         ''.join(f'   {name}\n' for name in extra) + '   card-index\n')
    app.build()
    assert_no_warnings(app)
    serial_src = tmp_path / 'serial'
    shutil.copytree(app.srcdir, serial_src, ignore=shutil.ignore_patterns('_build'))
    serial = make_app('html', srcdir=serial_src, parallel=0)
    serial.build()
    for docname in ['card-index', 'index', 'other', *extra]:
        assert html(app, docname) == html(serial, docname), docname
    assert len(entry_places(app, 'card-旋风')) == 9
    assert len(related_of(app, 'p0')['p0']) == 5


@pytest.mark.sphinx('html', testroot='card-index', srcdir='card-index-misplaced')
def test_misplaced_index_warns_at_its_line(app):
    edit(app.srcdir / 'card-index.rst', '.. card-index::\n', '.. card-index::\n\nAfter it.\n')
    app.build()
    assert warnings(app) == [
        'card-index.rst:4: WARNING: the card index adds one section per initial, so it must be '
        'the last content of a section; move the card-index directive to the end of the page '
        '[handbook.card-index]']


# -- the real handbook ----------------------------------------------------------------------

SOURCE = ROOT / 'source'


@pytest.fixture
def handbook(handbook_build) -> Path:
    """The real handbook's site, as the suite builds it once (conftest.py)."""
    return handbook_build.html


@pytest.fixture(scope='module')
def registry() -> card_registry.Registry:
    return card_registry.load(ROOT / 'cards.tsv')


def sections_from_sources(registry) -> dict[str, set[tuple[str, str]]]:
    """``{registry key: {(docname, '页面' or '页面 › 小节')}}``, counted from the
    sources with docutils' parser alone (no Sphinx, no transforms): every
    「`name`_」 whose name is no target of its page, in its innermost section."""
    found: dict[str, set[tuple[str, str]]] = {}
    parser = Parser()
    settings = frontend.get_default_settings(Parser)
    settings.report_level = settings.halt_level = 5  # Sphinx's roles and directives are unknown
    for path in sorted(SOURCE.glob('*.rst')):
        document = utils.new_document(str(path), settings)
        parser.parse(path.read_text(encoding='utf-8'), document)
        sections = list(document.findall(nodes.section))
        if not sections:
            continue
        page = sections[0][0].astext()
        for ref in document.findall(nodes.reference):
            if 'refname' not in ref or ref['refname'] in document.nameids:
                continue  # external, anonymous, or a link inside the page
            siblings, at = ref.parent.children, ref.parent.index(ref)
            before = siblings[at - 1].astext() if at else ''
            after = siblings[at + 1].astext() if at + 1 < len(siblings) else ''
            assert before.endswith('「') and after.startswith('」'), ref.rawsource
            card = registry.lookup(ref.astext())
            assert card is not None, f'{path.name}: {ref.astext()} is not in the registry'
            section = ref.parent
            while not isinstance(section, nodes.section):
                section = section.parent
            title = section[0].astext()
            where = page if isinstance(section.parent, nodes.document) else f'{page} › {title}'
            found.setdefault(card.key, set()).add((path.stem, where))
    return found


def entries_of(page: str) -> dict[str, tuple[str, list[tuple[str, str, list[str]]]]]:
    """``{entry id: (name, [(href, text, [ruling hrefs])])}`` of the index page."""
    out = {}
    for ident, name, places in re.findall(
            r'<dt class="card-index-\w+" id="([^"]+)"><a class="card-link[^>]*>(.*?)</a>.*?'
            r'</dt><dd>(.*?)</dd>', page, re.S):
        listed = []
        for item in re.findall(r'<li>(.*?)</li>', places, re.S):
            link = re.match(r'<a class="reference internal" href="([^"]*)"><span>(.*?)</span>', item)
            listed.append((link[1], html_module.unescape(link[2]),
                           re.findall(r'href="([^"]*)"><span class="ruling">', item)))
        out[ident] = (html_module.unescape(name), listed)
    return out


def test_handbook_index_lists_exactly_the_sections_naming_each_card(handbook, registry):
    entries = entries_of(whole_list(handbook, 'card-index'))
    ids = card_index.entry_ids(registry.cards())
    key_of = {ident: key for key, ident in ids.items()}
    on_index = {key_of[ident]: {(href.split('.html')[0], text) for href, text, _ in places}
                for ident, (_, places) in entries.items()}
    expected = sections_from_sources(registry)
    assert len(expected) > 900
    assert on_index == expected
    # the entries are in index order: by initial, then pinyin
    keys = [key_of[ident] for ident in entries]
    order = [(card_index.initial(k) == '#', card_index.initial(k), card_index.sort_key(k))
             for k in keys]
    assert order == sorted(order)


@pytest.mark.skipif(seeds.ABSENT is not None, reason=seeds.ABSENT or '')
def test_handbook_index_lists_every_card_of_the_seeds(handbook, registry):
    """Every card name of the seeds (../shared/seeds) is on the index, with the
    sections of its page."""
    entries = entries_of(whole_list(handbook, 'card-index'))
    key_of = {ident: key for key, ident in card_index.entry_ids(registry.cards()).items()}
    on_index = {key_of[ident]: {(href.split('.html')[0], text) for href, text, _ in places}
                for ident, (_, places) in entries.items()}
    expected = sections_from_sources(registry)
    for seed in seeds.PAGES:
        source = seeds.load(seed)
        for name in source.cards:
            key = registry.lookup(name).key
            assert {p for p in on_index[key] if p[0] == source.docname} == \
                {p for p in expected[key] if p[0] == source.docname}, name


def test_handbook_section_links_lead_to_their_sections(handbook):
    entries = entries_of(whole_list(handbook, 'card-index'))
    headings: dict[str, dict[str, str]] = {}  # page -> {section id: its heading}
    for page in handbook.glob('*.html'):
        text = page.read_text(encoding='utf-8')
        headings[page.name] = {
            ident: html_module.unescape(strip(title)) for ident, title in
            re.findall(r'<section id="([^"]+)">\s*(?:<span id="[^"]*"></span>)*<h\d>(.*?)'
                       r'<a class="headerlink"', text, re.S)}
    for ident, (_, places) in entries.items():
        for href, text, _ in places:
            page, _, anchor = href.partition('#')
            title = text.split(' › ', 1)[1] if anchor else text
            if not anchor:  # the page itself: its first heading
                anchor = next(iter(headings[page]))
            assert headings[page][unquote(anchor)] == title, (ident, href)


def test_handbook_rulings_on_the_index_are_those_of_the_export(handbook, registry):
    """Every ruling that names a card is on the card's entry, and no other."""
    entries = entries_of(whole_list(handbook, 'card-index'))
    ids = card_index.entry_ids(registry.cards())
    on_index = {ident: {r for _, _, rulings in places for r in rulings}
                for ident, (_, places) in entries.items()}
    export = json.loads((handbook / 'rulings.json').read_text(encoding='utf-8'))
    expected: dict[str, set[str]] = {}
    for ruling in export['rulings']:
        for name in ruling['cards']:
            expected.setdefault(ids[registry.lookup(name).key], set()).add(ruling['url'])
    assert sum(map(len, expected.values())) > 700
    assert {i: r for i, r in on_index.items() if r} == expected


def test_handbook_index_dates_each_card_by_the_date_after_its_name(handbook, registry):
    """face-down-banish: ``「电子龙·无限」15/2/13 「鬼计惰天使」14/7/31 …
    「十二兽的相克」17/2/2 …`` is one ruling, dated 17/2/2; each card's entry
    shows the date written after its name (all showed 17/2/2)."""
    page = whole_list(handbook, 'card-index')
    ids = card_index.entry_ids(registry.cards())

    def dates(name: str) -> list[str]:
        entry = re.search(rf'<dt class="card-index-\w+" id="{ids[registry.lookup(name).key]}">'
                          r'.*?</dt><dd>(.*?)</dd>', page, re.S)[1]
        return re.findall(r'<span class="ruling">([^<]*)</span>', entry)

    assert [dates(name) for name in ('鬼计惰天使', '十二兽的相克', '十二兽的方合',
                                     '十二兽的会局')] == [
        ['14/7/31'], ['17/2/2'], ['16/10/7'], ['17/3/24', '16/11/10']]


def test_handbook_markers_lead_to_the_page_of_their_card(handbook, registry):
    """The § after a card link leads to the card's page, cards/<entry id>.html
    (the entry id without card-; test_card_pages.py has the pages)."""
    entries = entries_of(whole_list(handbook, 'card-index'))
    names = {ident: name for ident, (name, _) in entries.items()}
    count = 0
    for page in sorted(SOURCE.glob('*.rst')):
        text = (handbook / f'{page.stem}.html').read_text(encoding='utf-8')
        for name, target, label in card_targets(text):  # the card index's entries too
            assert target.startswith('cards/'), f'{page.stem}: no § for {name}'
            assert label == f'卡片页面：{name}'
            ident = target.removeprefix('cards/').removesuffix('.html')
            assert registry.lookup(names[f'card-{ident}']) is registry.lookup(name)
            assert (handbook / 'cards' / f'{ident}.html').is_file(), ident
            count += 1
    assert count > 2000


@pytest.mark.parametrize('text', ['', '灵摆读阵', 'A&B <C> "D" @E', '&lt;&amp;', '@@&&""<<>>',
                                  '「<script>alert(1)</script>」'])
def test_the_lists_escape_text_as_the_translator_does(text):
    from handbook.render.html_parts import escape
    from sphinx.writers.html5 import HTML5Translator
    assert escape(text) == text.translate(HTML5Translator.special_characters)


#: test-card-index with initials of more links than a page holds: D (5
#: links), S, W (5 each) and X (14) are split by the second letter of the
#: pinyin; N (2) stays one page
SECOND_LETTERS = {'handbook_card_index_page_links': 4}
#: {page of an initial: [(page of a second letter, its label, its entry ids)]}
SPLIT = {
    'd': [('d-other', 'D', ['card-ddd反骨王列奥尼达']), ('d-a', 'Da', ['card-大逮捕'])],
    's': [('s-h', 'Sh', ['card-神之宣告'])],
    'w': [('w-a', 'Wa', ['card-王宫的铁壁'])],
    'x': [('x-i', 'Xi', ['card-心眼的女神', 'card-星尘龙', 'card-星骑士']),
          ('x-u', 'Xu', ['card-旋风'])],
}


@pytest.mark.sphinx('html', testroot='card-index', confoverrides=SECOND_LETTERS)
@pytest.mark.test_params(shared_result='card_index-card-index-second-letters')
def test_a_heavy_initial_is_a_page_per_second_letter(app):
    """An initial of more links than handbook_card_index_page_links is a
    page per second letter of its names' pinyin (card-index/x-u.html), each
    with the initials' bar and the initial's letters; the initial's page
    lists its letters with their counts; the entries are those of the whole
    index, in its order; every link of every bar resolves to a page and an
    id that are there."""
    app.build()
    assert_no_warnings(app)
    folder = app.outdir / 'card-index'
    assert sorted(p.stem for p in folder.glob('*.html')) == sorted(
        [g.removeprefix('initial-') for g, _t, _e in INDEX]
        + [page for pages in SPLIT.values() for page, _l, _i in pages])
    ids = []
    for group, letter, entries in INDEX:
        slug = group.removeprefix('initial-')
        part = html(app, f'card-index/{slug}')
        if slug not in SPLIT:
            assert [e[0] for e in entries] == re.findall(r'<dt [^>]*id="([^"]*)"', part)
            ids.extend(e[0] for e in entries)
            continue
        assert '<dt ' not in part
        subbar = re.search(r'<p class="card-index-initials card-index-subgroups">(.*?)</p>',
                           part)[1]
        assert re.findall(r'href="([^"]*)\.html">([^<]*)</a>', subbar) == [
            (page, f'{label}（{len(found)}）') for page, label, found in SPLIT[slug]]
        for page, label, found in SPLIT[slug]:
            sub = html(app, f'card-index/{page}')
            assert f'<title>Card index：{label} ' in sub
            assert f'<strong aria-current="page">{label}</strong>' in sub
            assert f'<a class="reference internal" href="{slug}.html">{letter}</a>' in sub
            assert re.findall(r'<dt [^>]*id="([^"]*)"', sub) == found
            ids.extend(found)
    assert ids == [e[0] for _g, _t, entries in INDEX for e in entries]  # index order
    for path in folder.glob('*.html'):
        text = path.read_text(encoding='utf-8')
        for bar in re.findall(r'<p class="card-index-initials[^"]*">(.*?)</p>', text):
            for href in re.findall(r'href="([^"]*)"', bar):
                page, _hash, anchor = href.partition('#')
                target = (folder / page).resolve()
                assert target.is_file(), (path.name, href)
                assert not anchor or f'id="{anchor}"' in target.read_text(encoding='utf-8')


@pytest.mark.sphinx('html', testroot='card-index', confoverrides=SECOND_LETTERS)
@pytest.mark.test_params(shared_result='card_index-card-index-second-letters')
def test_old_anchors_lead_to_the_pages_of_the_second_letters(app):
    """card-index.html#card-旋风 and card-index/x.html#card-旋风 both lead
    to card-index/x-u.html, through the moved anchors' map of each page."""
    app.build()
    moved = functools.partial(moved_anchors, app)
    overview = moved('card-index')
    assert overview['card-index/x.html'] == ['initial-x']
    assert overview['card-index/x-u.html'] == ['card-旋风']
    assert overview['card-index/n.html'] == ['initial-n', 'card-no-39希望皇彼端超霍普']
    assert moved('card-index/x') == {f'{page}.html': found for page, _l, found in SPLIT['x']}
    every = [anchor for anchors in overview.values() for anchor in anchors]
    assert sorted(every) == sorted([g for g, _t, _e in INDEX]
                                   + [e[0] for _g, _t, entries in INDEX for e in entries])
    for folder, found in (('', overview), ('card-index/', moved('card-index/x'))):
        for target, anchors in found.items():
            text = (app.outdir / folder / target).read_text(encoding='utf-8')
            for anchor in anchors:
                assert f'id="{anchor}"' in text, (target, anchor)


@pytest.mark.parametrize('split, page, count', [({}, 'w', 6), (SECOND_LETTERS, 'w-a', 12)],
                         ids=['initials', 'second-letters'])
def test_an_edit_renders_and_rewrites_only_its_page(make_app, rootdir, tmp_path, split, page,
                                                     count):
    """A section that links another card renders and rewrites the page of
    that card's initial (its second letter, where the initial is a page per
    second letter) and no other; the site is byte for byte a clean build's."""
    srcdir = tmp_path / 'card-index'
    shutil.copytree(rootdir / 'test-card-index', srcdir)
    app = make_app('html', srcdir=srcdir, confoverrides=split)
    app.build()

    def stamps() -> dict[str, int]:
        return {p.name: p.stat().st_mtime_ns for p in (app.outdir / 'card-index').glob('*.html')}

    before = stamps()
    other = srcdir / 'other.rst'
    other.write_text(other.read_text(encoding='utf-8') + '\n再提「`王宫的铁壁`_」。\n',
                     encoding='utf-8')
    again = make_app('html', srcdir=srcdir, confoverrides=split)
    made = []  # the pages the theme renders: the other parts are not made again
    again.connect('html-page-context', lambda app, pagename, *args: made.append(pagename))
    again.build()
    after = stamps()
    assert sorted(n for n in after if after[n] != before.get(n)) == [f'{page}.html']
    assert sorted(n for n in made if n.startswith('card-index/')) == [f'card-index/{page}']
    clean = make_app('html', srcdir=srcdir, builddir=tmp_path / 'clean', freshenv=True,
                     confoverrides=split)
    clean.build()
    names = sorted(p.stem for p in (clean.outdir / 'card-index').glob('*.html'))
    assert len(names) == count
    for name in ('card-index', *(f'card-index/{n}' for n in names)):
        assert html(again, name) == html(clean, name), name
