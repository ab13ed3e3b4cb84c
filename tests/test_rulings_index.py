"""Ruling search: the index the search page and every search box load, cut in
shards (_ext/handbook/search/rulings_index.py, shards.py, section_texts.py).

What the browser does with it is proved in tests/browser/test_ruling_search.py
and tests/browser/test_search_index.py; here, what the build writes, and
that the shards find exactly the documents a substring search finds
(:func:`holding`, the lookup the script makes, against every substring).
"""

from __future__ import annotations

import json
import pickle
import random
import re
import shutil
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from handbook.core.names import SEPARATOR_CLASS, fold
from handbook.search import layout, other_scripts, shards
from handbook.search.rulings_index import (
    KEPT_INDEX,
    SEPARATORS_SLOT,
    counterpart,
    names_text,
    script_text,
)
from helpers import (
    assert_no_warnings,
    search_answers as answers,
    search_manifest as manifest,
    search_parts as parts,
)

INTL_EXTENSIONS = ['handbook.cards.links', 'handbook.sections.planned', 'handbook.rulings.lines',
                   'handbook.rulings.dates', 'handbook.translations.catalogs',
                   'handbook.search.rulings_index']


def rulings(app) -> list[list]:
    """The rulings' chunk entries, in id order (oldest first: newest first is the
    reverse; an id an incremental build left empty, None, left out)."""
    found = parts(app)
    return [entry for i in range(len(found)) if f'r{i}' in found for entry in found[f'r{i}']
            if entry is not None]


class Lookup:
    """The shards' answers, found as rulings_search.js finds them."""

    def __init__(self, found: dict, count: int, chars: int, alone=()) -> None:
        self.found = found
        self.counts = {'k': count, 'u': chars}
        self.alone = set(alone)  # the manifest's: the bigrams that are parts of their own

    def part(self, key: str, kind: str) -> dict:
        if kind == 'g' and key in self.alone:
            return self.found[shards.alone_name(key)]['g']
        prefix = 'u' if kind == 'c' else 'k'
        number = shards.shard_of(key, self.counts[prefix])
        return self.found.get(f'{prefix}{number}', {}).get(kind, {})

    @staticmethod
    def docs(gaps: list[int]) -> list[int]:
        return shards.ungapped(gaps)

    def gram(self, key: str) -> dict[int, list[int]]:
        entry = self.part(key, 'g').get(key, [])
        out, doc = {}, -1
        for gap, where in zip(entry[0::2], entry[1::2]):
            doc += gap
            if isinstance(where, int):
                out[doc] = [where]
            else:
                positions = [where[0]]
                for step in where[1:]:
                    positions.append(positions[-1] + step)
                out[doc] = positions
        return out

    def holding(self, text: str) -> list[int]:
        """The documents whose haystack holds *text* (folded)."""
        if len(text) == 1:
            return self.docs(self.part(text, 'c').get(text, []))
        offsets = list(range(0, len(text) - 1, 2))
        if offsets[-1] != len(text) - 2:
            offsets.append(len(text) - 2)
        lists = [self.gram(text[k:k + 2]) for k in offsets]
        return sorted(doc for doc, positions in lists[0].items()
                      if all(doc in other for other in lists)
                      and any(all(p + k in lists[i][doc] for i, k in enumerate(offsets))
                              for p in positions))

    def day(self, iso: str) -> list[int]:
        return self.docs(self.part(shards.month_key(iso), 'd').get(iso[:7], {}).get(iso[8:], []))

    def spelling(self, text: str) -> list | None:
        return self.part(shards.spelling_key(text), 'n').get(text)


def lookup(app) -> Lookup:
    found = manifest(app)
    return Lookup(parts(app), found['shards'], found['chars'], found['alone'])


@pytest.mark.sphinx('html', testroot='ruling-search')
@pytest.mark.test_params(shared_result='rulings_index-ruling-search')
def test_index_holds_every_ruling(app):
    app.build()
    assert_no_warnings(app)
    found = manifest(app)
    assert found['format'] == 4
    assert found['pages'] == [['index.html', '裁定搜索', 1], ['other.html', '其他', 1]]
    assert found['sections'] == [[0, '裁定搜索', '裁定搜索', 1], [0, '伤害步骤', '伤害步骤', 0],
                                 [1, '其他', '其他', 1]]
    assert (found['rulings'], found['chunk']) == (6, shards.CHUNK)
    # newest first (the ids' reverse): each ruling's text, counterpart, cards and places
    assert rulings(app)[::-1] == [
        ['「ＤＤＤ反骨王 列奥尼达」的效果写作 <b>粗体</b>。', '', ['ddd反骨王列奥尼达'],
         [[1, 'ruling-2021-02-03-ddd反骨王列奥尼达', '21/2/3', '2021-02-03', 0]]],
        # the line's second sentence names no card: it is about 神之宣告, as the first
        ['裁定变更：可以发动。', '', ['神之宣告'],
         [[1, 'ruling-2020-01-13-faq123', '20/1/13', '2020-01-13', 1]]],
        ['「黑洞」在伤害步骤也能发动。', '', ['黑洞'],
         [[1, 'ruling-2019-05-01-2019-05-02-黑洞', '19/5/1 19/5/2', '2019-05-01 2019-05-02', 0]]],
        # overturned (2): 已推翻 alone
        ['「神之宣告」不能发动。', '', ['神之宣告'],
         [[1, 'ruling-2018-01-13-神之宣告', '18/1/13', '2018-01-13', 2]]],
        ['「旋风」和「黑洞」同时处理。', '', ['旋风', '黑洞'],
         [[0, 'ruling-2017-03-24-旋风', '17/3/24', '2017-03-24', 0]]],
        ['「旋风」不能对应「黑洞」。', '', ['旋风', '黑洞'],
         [[2, 'ruling-2016-01-01-旋风', '16/1/1', '2016-01-01', 0]]],
    ]
    assert found['labels']['found'] == '找到 {count} 条裁定'
    assert found['labels']['struck'] == '已推翻'


@pytest.mark.sphinx('html', testroot='ruling-search')
@pytest.mark.test_params(shared_result='rulings_index-ruling-search')
def test_sections_say_their_text_outside_rulings(app):
    app.build()
    found = parts(app)
    texts = [entry for name in sorted(found) if name.startswith('b') for entry in found[name]]
    # titles and paragraphs, not the lines that hold rulings, nor comments
    assert texts == [[0, '裁定搜索'], [1, '伤害步骤'], [2, '其他'], [2, '没有裁定的段落。']]
    # then the texts' spare ids, empty (layout.py): their chunks, all empty, no parts
    spare = [None] * layout.spare(4)
    assert manifest(app)['texts'] == 4 + len(spare)
    assert sorted(name for name in found if name[0] == 'b') == ['b0']
    # the sections of each document: texts, then rulings oldest first
    assert found['s'] == [0, 1, 2, 2, *spare, 2, 0, 1, 1, 1, 1]


@pytest.mark.sphinx('html', testroot='ruling-search')
@pytest.mark.test_params(shared_result='rulings_index-ruling-search')
def test_shards_find_words_dates_and_spellings(app):
    app.build()
    look = lookup(app)
    # the ids: the section texts (0-3) and their spare ids, then the rulings oldest first
    first = manifest(app)['texts']
    assert look.holding(fold('伤害步骤')) == [1, first + 3]  # a section's title, a ruling
    assert look.holding('旋风') == [first, first + 1]
    # part of a card name, written with full-width letters
    assert look.holding('反骨王') == [first + 5]
    assert look.holding('ddd反骨王列奥尼达') == [first + 5]
    assert look.holding('段') == [3]
    assert look.holding('不存在') == []
    # dates are found by day, not as text
    assert look.day('2019-05-02') == [first + 3]
    assert look.day('2017-03-24') == [first + 1]
    assert look.holding('17/3/24') == []
    # every spelling of a linked card: the registry's, its alias, as pages write it
    assert look.spelling('旋风') == ['旋风', '', '旋风', ['旋風', '旋风']]
    assert look.spelling('旋風') == look.spelling('旋风')
    assert look.spelling('ddd反骨王列奥尼达')[3] == ['ddd反骨王列奥尼达']
    # and each in the other script, with no alias in the registry (OpenCC)
    assert look.spelling(fold('ＤＤＤ反骨王 列奧尼達')) == look.spelling('ddd反骨王列奥尼达')
    assert look.spelling('黑') is None


@pytest.mark.sphinx('html', testroot='ruling-search')
@pytest.mark.test_params(shared_result='rulings_index-ruling-search')
def test_only_the_search_page_loads_it(app):
    app.build()
    search = (app.outdir / 'search.html').read_text(encoding='utf-8')
    # written before the search page: it names them with their checksum
    for name in ('rulings_search.js', 'rulings-index.js'):
        checksum = zlib.crc32((app.outdir / '_static' / name).read_bytes())
        assert f'<script defer="defer" src="_static/{name}?v={checksum:08x}"></script>' in search
    assert search.index('rulings_search.js') < search.index('rulings-index.js')
    # not Sphinx's index and scripts: no result fetches a page
    for name in ('searchindex.js', 'searchtools.js', 'language_data.js'):
        assert name not in search
    for page in ('index', 'other', 'genindex'):
        text = (app.outdir / f'{page}.html').read_text(encoding='utf-8')
        assert 'rulings' not in text.split('</head>')[0], page
    assert (app.outdir / '_static' / 'rulings_search.js').read_text(encoding='utf-8') == \
        script_text()


@pytest.mark.sphinx('html', testroot='ruling-search')
@pytest.mark.test_params(shared_result='rulings_index-ruling-search')
def test_every_page_loads_the_search_box_script_only(app):
    app.build()
    engine = zlib.crc32((app.outdir / '_static' / 'rulings_search.js').read_bytes())
    for page in ('index', 'other', 'search', 'genindex'):
        text = (app.outdir / f'{page}.html').read_text(encoding='utf-8')
        assert re.search(r'<script data-version="%08x" defer="defer" '
                         r'src="_static/handbook-search-box.js\?v=\w+"></script>' % engine, text)
    box = (app.outdir / '_static' / 'handbook-search-box.js').read_text(encoding='utf-8')
    assert 'rulings_search.js' in box and 'focus' in box


def test_the_script_folds_with_the_one_separator_class():
    text = script_text()
    assert SEPARATORS_SLOT not in text
    assert text.startswith(names_text())
    assert f'}})({json.dumps(SEPARATOR_CLASS)});\n' in names_text()
    # the index's texts reach the page as text only
    assert 'innerHTML' not in text and 'insertAdjacentHTML' not in text


@pytest.mark.sphinx('html', testroot='ruling-search', freshenv=True, tags=['current'])
def test_current_edition_leaves_overturned_rulings_out(app):
    app.build()
    assert_no_warnings(app)
    assert [entry[3][0][1] for entry in rulings(app)[::-1]] == [
        'ruling-2021-02-03-ddd反骨王列奥尼达', 'ruling-2020-01-13-faq123',
        'ruling-2019-05-01-2019-05-02-黑洞', 'ruling-2017-03-24-旋风', 'ruling-2016-01-01-旋风']
    assert all(not place[4] & 2 for entry in rulings(app) for place in entry[3])


@pytest.mark.sphinx('html', testroot='ruling-search', srcdir='ruling-search-rewrites')
def test_written_only_when_it_changes(app, make_app):
    app.build()
    folder = app.outdir / '_static' / 'search'
    index = app.outdir / '_static' / 'rulings-index.js'

    def times() -> dict[str, int]:
        return {path.name: path.stat().st_mtime_ns for path in [index, *folder.iterdir()]
                if path.exists()}

    def rebuild() -> list[str]:
        before = times()
        again = make_app('html', srcdir=app.srcdir)
        again.build()
        after = times()
        return sorted(name for name in after if before.get(name) != after[name])

    other = app.srcdir / 'other.rst'
    # a page read again, nothing changed: no part written
    other.write_text(other.read_text(encoding='utf-8') + '\n', encoding='utf-8')
    assert rebuild() == []
    # text outside the rulings edited: its chunk and the shards of its words
    other.write_text(other.read_text(encoding='utf-8').replace(
        '没有裁定的段落。', '没有裁定的另一段落。'), encoding='utf-8')
    written = rebuild()
    assert len([name for name in written if name[0] == 'b']) == 1
    assert 'rulings-index.js' in written  # a new version
    assert not [name for name in written if name[0] == 'r' and name[1].isdigit()]
    assert 's.js' not in written
    # a ruling edited: its chunk, with the new text (the oldest ruling: the first chunk)
    other.write_text(other.read_text(encoding='utf-8').replace(
        '不能对应', '可以对应'), encoding='utf-8')
    written = rebuild()
    assert rulings(app)[0][0] == '「旋风」可以对应「黑洞」。'
    assert [name for name in written if name[0] == 'r' and name[1].isdigit()] == ['r0.js']
    # a ruling added, the newest: its chunk, the shards of its words, the
    # sections of each document; every other part as it was
    parts_before = {path.name for path in folder.iterdir()}
    other.write_text(other.read_text(encoding='utf-8') + '| 新的一条裁定。\\ :ruling:`22/2/2`\n',
                     encoding='utf-8')
    written = rebuild()
    assert rulings(app)[-1][0] == '新的一条裁定。'
    last = (len(rulings(app)) - 1) // shards.CHUNK
    assert [name for name in written if name[0] in 'rb' and name[1].isdigit()] == [f'r{last}.js']
    assert 's.js' in written and 'rulings-index.js' in written
    assert 0 < len([name for name in written if name[0] in 'kug']) < len(parts_before) // 2
    # the manifest removed: written again, though no page changed (the index
    # laid out whole: its parts of a new epoch), then left as it is
    index.unlink()
    assert 'rulings-index.js' in rebuild()
    other.write_text(other.read_text(encoding='utf-8') + '\n', encoding='utf-8')
    assert rebuild() == []
    # a part the index no longer has is removed
    (folder / 'k999.js').write_text('stale', encoding='utf-8')
    other.write_text(other.read_text(encoding='utf-8') + '\n', encoding='utf-8')
    rebuild()
    assert not (folder / 'k999.js').exists()


@pytest.mark.sphinx('html', testroot='intl', freshenv=True,
                    confoverrides={'extensions': INTL_EXTENSIONS})
def test_zh_tw_build_indexes_its_texts_and_their_simplified_counterparts(app):
    app.build()
    entries = {entry[3][0][1]: entry for entry in rulings(app)}
    translated = entries['ruling-2017-03-24-faq19691-旋风']
    assert translated[0] == '「旋風」的效果發動時，連鎖發動「王宫的铁壁」的場合，無效。'
    assert translated[1] == '「旋风」的效果发动时，连锁发动「王宫的铁壁」的场合，无效。'
    assert translated[2] == ['旋风', '王宫的铁壁']
    # a text OpenCC leaves as it is gets no counterpart
    untranslated = entries['ruling-2018-01-02-神之宣告']
    assert untranslated[0] == '没有翻译的一行：「神之宣告」。'
    assert untranslated[1] == ''
    # either script finds it
    look = lookup(app)
    doc = manifest(app)['texts'] + list(entries).index('ruling-2017-03-24-faq19691-旋风')
    assert doc in look.holding('發動時') and doc in look.holding('发动时')
    assert look.spelling('旋風')[3] == ['旋風', '旋风']


@pytest.mark.sphinx('html', testroot='intl', freshenv=True,
                    confoverrides={'extensions': INTL_EXTENSIONS, 'language': 'zh_CN'})
def test_a_simplified_build_has_no_counterparts(app):
    app.build()
    assert {entry[1] for entry in rulings(app)} == {''}


@pytest.mark.sphinx('html', testroot='ruling-search')
@pytest.mark.test_params(shared_result='rulings_index-ruling-search')
def test_a_simplified_build_says_the_other_scripts_characters_of_its_texts(app, monkeypatch):
    app.build()
    assert manifest(app)['script'] == 1
    others, own = parts(app)['t']
    table = dict(zip(others, own))
    # 傷害步驟 in the index's script: each character whose own is in a text
    assert ''.join(table.get(char, char) for char in '傷害步驟') == '伤害步骤'
    assert table['發'] == '发' and table['動'] == '动'
    texts = [text for name, entries in parts(app).items() if name[0] in 'rb'
             for entry in entries if entry for text in entry if isinstance(text, str)]
    assert set(own) <= set(''.join(texts)) and not set(others) & set(own)
    assert '龜' not in table  # 龟 is in no text
    # the table of the whole script is made once, and kept
    kept = app.doctreedir / other_scripts.KEPT_CHARACTERS
    assert json.loads(kept.read_text(encoding='utf-8'))['table']['龜'] == '龟'
    monkeypatch.setattr(other_scripts, 'CHARACTERS_PROGRAM', 'raise SystemExit("made again")')
    assert other_scripts.character_table(app, '伤发') == {'傷': '伤', '發': '发', '髮': '发'}


def test_a_traditional_build_finds_a_simplified_name_by_its_traditional_spelling(
        make_app, rootdir, tmp_path):
    """A card with no zh_TW alias keeps its Simplified name in the
    Traditional edition (an adopter's link file has none): 試膽競速 found
    nothing there (an adopter's round trip).  The table of characters turns a
    Traditional query into the counterparts' script, and the card's
    spellings hold its Traditional one."""
    srcdir = tmp_path / 'intl'
    shutil.copytree(rootdir / 'test-intl', srcdir)
    with (srcdir / 'cards.tsv').open('a', encoding='utf-8') as registry:
        registry.write('card\t月之书\n')
    with (srcdir / 'index.rst').open('a', encoding='utf-8') as page:
        page.write('\n| 「`月之书`_」的效果。\\ :ruling:`19/3/3`\n')
    app = make_app('html', srcdir=srcdir, freshenv=True,
                   confoverrides={'extensions': INTL_EXTENSIONS})
    app.build()
    assert manifest(app)['script'] == 1
    others, own = parts(app)['t']
    table = dict(zip(others, own))
    assert ''.join(table.get(char, char) for char in '月之書') == '月之书'
    look = lookup(app)
    entries = {entry[3][0][1]: entry for entry in rulings(app)}
    doc = manifest(app)['texts'] + list(entries).index('ruling-2019-03-03-月之书')
    assert doc in look.holding('月之书')  # what 月之書 becomes through the table
    assert look.spelling('月之書') == look.spelling('月之书') is not None  # the card, its page


def test_counterpart_is_for_traditional_builds_only():
    assert counterpart('zh_CN') is None
    assert counterpart('en') is None
    assert counterpart(None) is None
    for language in ('zh_TW', 'zh-TW', 'zh_HK'):
        assert counterpart(language)('傷害步驟') == '伤害步骤'


# -- the shards against a substring search -----------------------------------------------


def test_fnv_is_the_scripts():
    # FNV-1a of the code points; the script computes the same (tests/browser/test_search_index.py)
    assert shards.fnv('') == 0x811C9DC5
    assert shards.fnv('a') == 0xE40C292C
    assert shards.fnv('旋风') == 0x81D9468C
    assert shards.fnv('旋风') != shards.fnv('风旋')


@pytest.mark.parametrize('alone_bytes', [shards.ALONE_BYTES, 300])
def test_shards_find_exactly_the_documents_holding_a_text(alone_bytes, monkeypatch):
    # with a lower bound, the commonest bigrams are parts of their own
    monkeypatch.setattr(shards, 'ALONE_BYTES', alone_bytes)
    rng = random.Random(33)
    alphabet = '旋风黑洞的效果发动ab1/·'
    haystacks = []
    for _ in range(300):
        fields = [''.join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
                  for _ in range(rng.randrange(1, 4))]
        haystacks.append(shards.SEPARATOR.join(fields))
    postings = shards.Postings()
    for doc, haystack in enumerate(haystacks):
        postings.add(doc, haystack)
    made = shards.shards(postings, shards.months({'2017-03-24': [3, 1], '2017-04-01': [2]}),
                         {'旋风': shards.dumps(['旋风', '', '旋风', ['旋风']])})
    found = {f'{kind}{n}': json.loads(text) for kind, (_count, texts, _size) in made.items()
             for n, text in texts.items()}
    alone = [shards.alone_gram(name) for name in found if name[0] == 'g']
    # 300 short documents: no bigram reaches the real bound, many the low one
    assert (len(alone) > 5) == (alone_bytes == 300)
    for gram in alone:  # in its own part only
        assert list(found[shards.alone_name(gram)]['g']) == [gram]
        assert not any(gram in part.get('g', {}) for name, part in found.items() if name[0] == 'k')
    look = Lookup(found, made['k'][0], made['u'][0], alone)
    queries = {haystack[i:i + n] for haystack in haystacks for n in (1, 2, 3, 4, 5, 7)
               for i in range(0, max(len(haystack) - n, 0), 5)}
    queries = {q for q in queries if q and shards.SEPARATOR not in q} | {'旋风旋风旋风', 'zz'}
    assert len(queries) > 500
    for query in sorted(queries):
        expected = [doc for doc, haystack in enumerate(haystacks) if query in haystack]
        assert look.holding(query) == expected, query
    assert look.day('2017-03-24') == [1, 3] and look.day('2017-04-01') == [2]
    assert look.spelling('旋风')[0] == '旋风'


def test_a_shard_is_a_few_kilobytes():
    postings = shards.Postings()
    rng = random.Random(1)
    for doc in range(3000):
        postings.add(doc, ''.join(chr(0x4E00 + rng.randrange(800)) for _ in range(80)))
    count, made, _size = shards.shards(postings, {}, {})['k']
    assert count & (count - 1) == 0 and count >= shards.MIN_SHARDS
    sizes = sorted(len(text) for text in made.values())
    assert sizes[len(sizes) // 2] <= 2 * shards.SHARD_BYTES


def test_a_sentence_that_takes_its_cards_from_the_one_before_is_the_same_by_them(
        make_app, rootdir, tmp_path):
    """A sentence that names no card is about the card of the sentence before
    it (its cards): two such sentences about two cards are two rulings, one
    each, though their words are the same (a review: what made them the same
    was digested before they took their cards, so they were one result)."""
    srcdir = tmp_path / 'taken'
    shutil.copytree(rootdir / 'test-ruling-search', srcdir)
    for page, card in (('index.rst', '旋风'), ('other.rst', '黑洞')):
        path = srcdir / page
        path.write_text(path.read_text(encoding='utf-8') + f'\n| 「`{card}`_」可以发动。\\ '
                        ':ruling:`17/3/25` 这个场合，不能发动。\\ :ruling:`17/3/25`\n',
                        encoding='utf-8')
    app = make_app('html', srcdir=srcdir)
    app.build()
    said = [entry for entry in rulings(app) if entry[0] == '这个场合，不能发动。']
    assert sorted((entry[2], len(entry[3])) for entry in said) == [(['旋风'], 1), (['黑洞'], 1)]


def test_the_same_ruling_is_its_folded_text_and_cards():
    from types import SimpleNamespace

    from handbook.rulings.same import digest, grouped

    def ruling(text, *cards, where='', status=(), struck=()):
        # the digest as a page's reading made it, or none (made when grouped)
        cards = tuple((c, c) for c in cards)
        return SimpleNamespace(text=text, cards=cards, where=where, status=status,
                               struck_spans=struck,
                               same=digest(text, struck, cards, status) if where in 'aceg' else '')

    first = ruling('「旋风」不能对应「黑洞」。', '旋风', '黑洞', where='a')
    again = ruling('「旋风」不能对应 「黑洞」。', '黑洞', '旋风', where='b')  # spacing, card order
    other_cards = ruling('「旋风」不能对应「黑洞」。', '旋风', where='c')
    other_text = ruling('「旋风」可以对应「黑洞」。', '旋风', '黑洞', where='d')
    # an open question, and the same struck (answered) elsewhere or on an outdated day
    text = '「旋风」不能对应「黑洞」。'
    changed = ruling(text, '旋风', '黑洞', where='e', status=('changed',))
    overturned = ruling(text, '旋风', '黑洞', where='f', status=('overturned',))
    superseded = ruling(text, '旋风', '黑洞', where='g', status=('superseded',))
    # struck in part: the same words struck are the same ruling, other words another
    # (不能 struck says it can; 对应 struck says something else: a review)
    can = ruling(text, '旋风', '黑洞', where='h', status=('changed',), struck=((4, 6),))
    can_again = ruling(text, '旋风', '黑洞', where='i', status=('changed',), struck=((4, 6),))
    other_struck = ruling(text, '旋风', '黑洞', where='j', status=('changed',), struck=((6, 8),))
    groups = grouped([first, other_cards, again, other_text, changed, overturned, superseded,
                      can, can_again, other_struck])
    assert [[r.where for r in group] for group in groups] == [
        ['a', 'b', 'e'], ['c'], ['d'], ['f'], ['g'], ['h', 'i'], ['j']]


@pytest.mark.sphinx('html', testroot='ruling-search')
@pytest.mark.test_params(shared_result='rulings_index-ruling-search')
def test_the_other_scripts_spellings_are_converted_once_in_a_process_of_their_own(
        app, monkeypatch):
    app.build()
    kept = json.loads((app.doctreedir / other_scripts.KEPT).read_text(encoding='utf-8'))
    assert kept['configs'] == ['s2t', 's2tw', 's2twp', 's2hk']
    assert kept['names']['ddd反骨王列奥尼达'] == ['ddd反骨王列奧尼達']
    assert kept['names']['旋风'] == ['旋風']

    # a later build converts only what no build converted: here, nothing (a
    # converting process would fail, and the names would have no spelling)
    monkeypatch.setattr(other_scripts, 'PROGRAM', 'raise SystemExit("converted again")')
    assert other_scripts.variants(app, ['旋风', 'ddd反骨王列奥尼达']) == {
        '旋风': ['旋風'], 'ddd反骨王列奥尼达': ['ddd反骨王列奧尼達']}
    assert other_scripts.variants(app, ['旋风', '测试']) == {'旋风': ['旋風']}  # it would fail

    # a damaged file is converted again, not trusted
    monkeypatch.undo()
    path = app.doctreedir / other_scripts.KEPT
    path.write_text(json.dumps({**kept, 'names': {'旋风': 3, '黑洞': [None]}}), encoding='utf-8')
    assert other_scripts.variants(app, ['旋风', '黑洞']) == {'旋风': ['旋風'], '黑洞': []}
    path.write_text('[', encoding='utf-8')
    assert other_scripts.variants(app, ['旋风']) == {'旋风': ['旋風']}


@pytest.mark.sphinx('html', testroot='ruling-search', srcdir='ruling-search-no-opencc')
def test_where_opencc_cannot_run_a_note_says_so_and_the_index_is_made(app, monkeypatch):
    for program in ('PROGRAM', 'CHARACTERS_PROGRAM'):
        monkeypatch.setattr(other_scripts, program, 'raise SystemExit("No module named opencc")')
    app.build()
    assert_no_warnings(app)
    notes = [line for line in app.status.getvalue().splitlines() if 'search-scripts' in line]
    assert notes == [
        "note: the search finds the cards by the spellings the registry and the pages give, "
        "not in the other script too: OpenCC did not run (No module named opencc); install "
        "the project's requirements (pip install -r requirements.txt) "
        "[handbook.search-scripts]",
        "note: the search finds no text written in Traditional characters but the cards' "
        "spellings: OpenCC did not run (No module named opencc); install the project's "
        "requirements (pip install -r requirements.txt) [handbook.search-scripts]"]
    assert manifest(app)['script'] == 0 and 't' not in parts(app)
    look = lookup(app)
    assert look.spelling('旋風') == look.spelling('旋风')  # the registry's alias
    assert look.spelling(fold('DDD反骨王 列奧尼達')) is None
    assert not (app.doctreedir / other_scripts.KEPT).exists()


@pytest.mark.parametrize('language, configs', [
    ('zh_CN', other_scripts.INTO_TRADITIONAL), ('zh', other_scripts.INTO_TRADITIONAL),
    ('zh-Hans', other_scripts.INTO_TRADITIONAL),
    ('zh_TW', other_scripts.INTO_SIMPLIFIED + other_scripts.INTO_TRADITIONAL),
    ('zh_HK', other_scripts.INTO_SIMPLIFIED + other_scripts.INTO_TRADITIONAL),
    ('en', ()), (None, ()), ('', ())])
def test_which_conversions_a_language_gets(language, configs):
    assert other_scripts.configs(language) == configs


def haystacks(kept) -> dict:
    """Each document's haystack in a kept index, by its kind and key."""
    laid = kept.layout
    first = len(laid.texts.keys)
    return {**{('text', key): kept.haystacks[doc] for doc, key in enumerate(laid.texts.keys)
               if key is not None},
            **{('ruling', key): kept.haystacks[first + at]
               for at, key in enumerate(laid.rulings.keys) if key is not None}}


def editing(app, make_app, tmp_path) -> Callable[[str, str, str], bool]:
    """``edit(page, old, new)``: the page of *app*'s root edited and built
    again, its index answering as a clean build of the same pages does
    (:func:`answers`); whether its shards were patched."""
    builds = 0

    def edit(page: str, old: str, new: str) -> bool:
        nonlocal builds
        path = app.srcdir / page
        text = path.read_text(encoding='utf-8')
        assert old in text
        path.write_text(text.replace(old, new), encoding='utf-8')
        make_app('html', srcdir=app.srcdir).build()
        builds += 1
        whole = make_app('html', srcdir=app.srcdir, builddir=tmp_path / f'whole{builds}',
                         freshenv=True)
        whole.build()
        assert answers(app) == answers(whole)
        kept = pickle.loads((app.doctreedir / KEPT_INDEX).read_bytes())
        made = pickle.loads((whole.doctreedir / KEPT_INDEX).read_bytes())
        assert not made.patched
        # every document's haystack, reused or folded anew, is the clean build's
        assert haystacks(kept) == haystacks(made)
        return kept.patched

    return edit


@pytest.mark.sphinx('html', testroot='ruling-search', srcdir='ruling-search-patched')
def test_an_edit_patches_the_shards_into_what_a_whole_index_holds(app, make_app, tmp_path):
    app.build()
    edit = editing(app, make_app, tmp_path)

    # a ruling's words, a section's text: bigrams and characters come and go
    assert edit('index.rst', '同时处理。', '同时处理，新的词句甲乙。')
    assert edit('other.rst', '没有裁定的段落。', '没有裁定的另一段落。')
    # a second card linked (the first names the ruling's anchor): its spelling
    # in the table, the ruling's haystack longer
    assert edit('other.rst', '「`黑洞`_」。', '「`黑洞`_」和「`神之宣告`_」。')
    # a card's alias added to the registry: its spellings' entries
    assert edit('cards.tsv', 'card\t黑洞\n', 'card\t黑洞\t\t\ten=Dark Hole\n')
    # a ruling dated elsewhere moves in the order: the ids between change
    assert edit('index.rst', ':ruling:`19/5/1` :ruling:`19/5/2`', ':ruling:`16/5/1`')
    # a ruling added on the newest day, an editor's commonest edit: an id at
    # the end, every other document's the same, the epoch too
    epoch = manifest(app)['epoch']
    assert edit('index.rst', ':ruling:`16/5/1`',
                ':ruling:`16/5/1`\n| 新裁定。\\ :ruling:`22/2/2`')
    assert manifest(app)['epoch'] == epoch
    assert rulings(app)[-1][0] == '新裁定。'
    # and removed again
    assert edit('index.rst', '\n| 新裁定。\\ :ruling:`22/2/2`', '')
    assert manifest(app)['epoch'] == epoch
    # a ruling of an older date added (a chapter's commonest edit): a new id
    # after the last, ranked among the oldest; no other document moves
    assert edit('other.rst', '| 「`旋风`_」不能对应', '| 早的裁定。\\ :ruling:`15/5/5`\n| 「`旋风`_」不能对应')
    assert manifest(app)['epoch'] == epoch
    assert rulings(app)[-1][0] == '早的裁定。'
    assert len(manifest(app)['ranks']) == 2  # and the ruling that moved above
    # a paragraph added: a spare id of the texts
    assert edit('other.rst', '没有裁定的另一段落。', '没有裁定的另一段落。\n\n新的段落。')
    # a section added before another page's: the sections' next number, ranked
    # before that page's
    assert edit('index.rst', '\n.. toctree::', '新小节\n------\n\n新小节的段落。\n\n.. toctree::')
    assert manifest(app)['epoch'] == epoch
    assert len(manifest(app)['section_ranks']) == 1
    assert edit('index.rst', '新小节\n------\n\n新小节的段落。\n\n.. toctree::', '\n.. toctree::')
    assert edit('other.rst', '\n\n新的段落。', '')
    assert edit('other.rst', '| 早的裁定。\\ :ruling:`15/5/5`\n', '')
    assert manifest(app)['epoch'] == epoch and len(manifest(app)['ranks']) == 1
    # more texts added than the texts have spare ids: laid out whole
    more = ''.join(f'\n\n段落{i}。' for i in range(layout.spare(4) + 1))
    assert not edit('other.rst', '没有裁定的另一段落。', '没有裁定的另一段落。' + more)
    assert manifest(app)['epoch'] != epoch
    assert edit('other.rst', more, '')
    # the kept index no longer the files': made whole
    (app.outdir / '_static' / 'rulings-index.js').unlink()
    assert not edit('other.rst', '另一段落', '又一段落')
    assert edit('other.rst', '又一段落', '再一段落')
    # what an older toolchain kept (a field fewer): made whole, no error
    kept_path = app.doctreedir / KEPT_INDEX
    older = pickle.loads(kept_path.read_bytes())
    del older.__dict__['shards']
    older.format -= 1
    kept_path.write_bytes(pickle.dumps(older))
    assert not edit('other.rst', '再一段落', '再二段落')
    assert edit('other.rst', '再二段落', '再一段落')
    # a part of the last index gone: made whole, the part written again
    sorted((app.outdir / '_static' / 'search').glob('k*.js'))[0].unlink()
    assert not edit('other.rst', '再一段落', '第四段落')


@pytest.mark.sphinx('html', testroot='ruling-search', srcdir='ruling-search-earlier')
def test_an_edit_folds_only_the_pages_read_since_the_last_index(app, make_app, tmp_path):
    """The haystacks of the pages not read since the last index are that
    index's (:class:`handbook.search.rulings_index._Earlier`); a page read
    by a build that made no index (here a text build on the same
    environment) is folded anew by the next that makes one, though that
    one does not read it."""
    app.build()
    edit = editing(app, make_app, tmp_path)
    assert edit('other.rst', '没有裁定的段落。', '没有裁定的另一段落。')
    # a ruling said in a second place (one result, two places), then edited there
    copy = '| 「`黑洞`_」在伤害步骤也能发动。\\ :ruling:`19/5/1`\n'
    assert edit('other.rst', '| 「`旋风`_」不能对应', copy + '| 「`旋风`_」不能对应')
    assert any(len(entry[3]) == 2 for entry in rulings(app))
    assert edit('other.rst', '在伤害步骤也能发动。', '在伤害步骤也能发动，另说。')
    assert not any(len(entry[3]) == 2 for entry in rulings(app))
    path = app.srcdir / 'other.rst'
    path.write_text(path.read_text(encoding='utf-8').replace('另一段落', '第三段落'),
                    encoding='utf-8')
    make_app('text', srcdir=app.srcdir).build()
    assert edit('index.rst', '同时处理。', '同时处理，又说。')
    assert any('第三段落' in haystack for haystack in haystacks(
        pickle.loads((app.doctreedir / KEPT_INDEX).read_bytes())).values())
    # a build that makes the index and reads no page (a registry row no page
    # links) saves no environment: the next build has its number, and the
    # page it reads is folded anew all the same (a review)
    assert edit('cards.tsv', 'card\t黑洞\n', 'card\t黑洞\ncard\t死者苏生\n')
    assert edit('other.rst', '不能对应', '不能对应新词')
    # an index folded otherwise (fold() or the conversion changed): none of
    # its haystacks is taken, though their pages were not read (here one is
    # made wrong, to tell)
    kept_path = app.doctreedir / KEPT_INDEX
    kept = pickle.loads(kept_path.read_bytes())
    kept.haystacks[0], kept.folding = '错的', 'folded otherwise'
    kept_path.write_bytes(pickle.dumps(kept))
    edit('other.rst', '新词', '新的词')  # (made whole: the wrong haystack's shards disagree)
    # a part whose JSON is the last index's is not written again; but a part
    # whose file is gone is
    chunk = app.outdir / '_static' / 'search' / 'r0.js'
    chunk.unlink()
    assert edit('other.rst', '第三段落', '第四段落')
    assert chunk.is_file()


@pytest.mark.sphinx('html', testroot='ruling-search', srcdir='ruling-search-patched-alone')
def test_a_bigram_alone_is_patched_while_it_stays_alone(app, make_app, tmp_path, monkeypatch):
    # a bound so low that the root's commonest bigrams are parts of their own
    monkeypatch.setattr(shards, 'ALONE_BYTES', 12)
    app.build()
    edit = editing(app, make_app, tmp_path)
    alone = manifest(app)['alone']
    assert '黑洞' in alone and '步骤' not in alone
    # one document more holds 黑洞 (still alone): its part patched
    assert edit('other.rst', '没有裁定的段落。', '没有裁定的段落，说到黑洞。')
    assert manifest(app)['alone'] == alone
    # 步骤 in one document more: its entry over the bound, a part of its own
    # now, and a new epoch (a manifest kept from before would look for 步骤
    # in the shard of its hash: the parts tell it to load the new one)
    epoch = manifest(app)['epoch']
    assert not edit('other.rst', '说到黑洞。', '说到黑洞的步骤。')
    assert manifest(app)['alone'] == sorted({*alone, '步骤'})
    assert manifest(app)['epoch'] != epoch
    # and back: no longer alone
    assert not edit('other.rst', '说到黑洞的步骤。', '说到黑洞。')
    assert manifest(app)['alone'] == alone


def test_a_results_labels_say_its_statuses():
    """已推翻 alone for an overturned ruling (every word struck); a ruling
    with some struck words is 裁定变更, not overturned; 已过时 and 调整中 as
    they apply."""
    from types import SimpleNamespace

    from handbook.search.rulings_index import CHANGED, OPEN, STRUCK, SUPERSEDED, flags_of

    assert [flags_of(SimpleNamespace(status=status, changed=changed)) for status, changed in [
        (('changed', 'overturned'), True), (('changed',), True), (('changed', 'superseded'), True),
        (('confirmed',), True), (('open',), False), ((), False)]] == [
        STRUCK, CHANGED, CHANGED | SUPERSEDED, CHANGED, OPEN, 0]


def test_the_struck_words_are_where_the_script_slices_them(make_app, tmp_path):
    """The ranges of the struck words in a chunk are in UTF-16 units, as the
    script slices the text: a character outside the BMP before them counts
    two (rulings.json counts it one, as Python does)."""
    srcdir = tmp_path / 'astral'
    shutil.copytree(Path(__file__).parent / 'roots' / 'test-ruling-search', srcdir)
    with (srcdir / 'index.rst').open('a', encoding='utf-8') as page:
        page.write('\n| 「`神之宣告`_」𠮷的效果\\ :strike:`不能`\\ 可以发动。\\ :ruling:`18/4/1`\n')
    app = make_app('html', srcdir=srcdir, freshenv=True)
    app.build()
    [entry] = [entry for entry in rulings(app) if '𠮷' in entry[0]]
    [[start, end]] = entry[4]
    assert (start, end) == (11, 13)
    assert entry[0].encode('utf-16-le')[2 * start:2 * end].decode('utf-16-le') == '不能'
