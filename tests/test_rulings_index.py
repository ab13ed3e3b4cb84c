"""Ruling search: the index of every ruling that the search page loads
(_ext/handbook/search/rulings_index.py).

What the browser does with it is proved in tests/browser/test_ruling_search.py.
"""

from __future__ import annotations

import json
import zlib

import pytest

from handbook.core.names import SEPARATOR_CLASS
from handbook.search.rulings_index import SEPARATORS_SLOT, counterpart, script_text
from helpers import assert_no_warnings

INTL_EXTENSIONS = ['handbook.cards.links', 'handbook.sections.planned', 'handbook.rulings.lines',
                   'handbook.rulings.dates', 'handbook.translations.catalogs',
                   'handbook.search.rulings_index']


def index(app) -> dict:
    text = (app.outdir / '_static' / 'rulings-index.js').read_text(encoding='utf-8')
    assert text.startswith('RulingSearch.setIndex(') and text.endswith(');\n')
    return json.loads(text[len('RulingSearch.setIndex('):-len(');\n')])


def rulings(app) -> list[list]:
    return index(app)['rulings']


@pytest.mark.sphinx('html', testroot='ruling-search', freshenv=True)
def test_index_holds_every_ruling(app):
    app.build()
    assert_no_warnings(app)
    found = index(app)
    assert found['format'] == 1
    assert found['pages'] == [['index.html', '裁定搜索'], ['other.html', '其他']]
    assert found['sections'] == [[0, '裁定搜索', '裁定搜索'], [0, '伤害步骤', '伤害步骤'],
                                 [1, '其他', '其他']]
    # folded registry keys and names as written, each once
    assert found['cards'] == ['旋风', '黑洞', '神之宣告', 'ddd反骨王列奥尼达']
    assert found['rulings'] == [
        [0, 'ruling-2017-03-24-旋风', '「旋风」和「黑洞」同时处理。', '17/3/24', '2017-03-24', 0,
         [0, 1]],
        # struck (2) and so changed (1); then the ruling that replaced it: changed
        [1, 'ruling-2018-01-13-神之宣告', '「神之宣告」不能发动。', '18/1/13', '2018-01-13', 3, [2]],
        [1, 'ruling-2020-01-13-faq123', '裁定变更：可以发动。', '20/1/13', '2020-01-13', 1, []],
        [1, 'ruling-2019-05-01-2019-05-02-黑洞', '「黑洞」在伤害步骤也能发动。', '19/5/1 19/5/2',
         '2019-05-01 2019-05-02', 0, [1]],
        [1, 'ruling-2021-02-03-ddd反骨王列奥尼达', '「ＤＤＤ反骨王 列奥尼达」的效果写作 <b>粗体</b>。',
         '21/2/3', '2021-02-03', 0, [3]],
        [2, 'ruling-2016-01-01-旋风', '「旋风」不能对应「黑洞」。', '16/1/1', '2016-01-01', 0, [0, 1]],
    ]
    assert found['labels']['found'] == '找到 {count} 条裁定'
    assert found['labels']['struck'] == '已推翻'


@pytest.mark.sphinx('html', testroot='ruling-search', freshenv=True)
def test_only_the_search_page_loads_it(app):
    app.build()
    search = (app.outdir / 'search.html').read_text(encoding='utf-8')
    # written before the search page: it names them with their checksum
    for name in ('rulings_search.js', 'rulings-index.js'):
        checksum = zlib.crc32((app.outdir / '_static' / name).read_bytes())
        assert f'<script defer="defer" src="_static/{name}?v={checksum:08x}"></script>' in search
    assert search.index('rulings_search.js') < search.index('rulings-index.js')
    for page in ('index', 'other', 'genindex'):
        text = (app.outdir / f'{page}.html').read_text(encoding='utf-8')
        assert 'rulings' not in text.split('</head>')[0], page
    assert (app.outdir / '_static' / 'rulings_search.js').read_text(encoding='utf-8') == \
        script_text()


def test_the_script_folds_with_the_one_separator_class():
    text = script_text()
    assert SEPARATORS_SLOT not in text
    assert f'}})({json.dumps(SEPARATOR_CLASS)});\n' in text
    # the index's texts reach the page as text only
    assert 'innerHTML' not in text and 'insertAdjacentHTML' not in text


@pytest.mark.sphinx('html', testroot='ruling-search', freshenv=True, tags=['current'])
def test_current_edition_leaves_overturned_rulings_out(app):
    app.build()
    assert_no_warnings(app)
    assert [entry[1] for entry in rulings(app)] == [
        'ruling-2017-03-24-旋风', 'ruling-2020-01-13-faq123', 'ruling-2019-05-01-2019-05-02-黑洞',
        'ruling-2021-02-03-ddd反骨王列奥尼达', 'ruling-2016-01-01-旋风']
    assert all(not entry[5] & 2 for entry in rulings(app))


@pytest.mark.sphinx('html', testroot='ruling-search', srcdir='ruling-search-rewrites')
def test_written_only_when_rulings_change(app, make_app):
    app.build()
    path = app.outdir / '_static' / 'rulings-index.js'
    # marked, to see that it is not even made again
    path.write_text(path.read_text(encoding='utf-8') + '// as written\n', encoding='utf-8')
    written = path.stat().st_mtime_ns
    other = app.srcdir / 'other.rst'

    def rebuild() -> list[str]:
        again = make_app('html', srcdir=app.srcdir)
        read: list[str] = []
        again.connect('env-before-read-docs', lambda app, env, docs: read.extend(docs))
        again.build()
        return sorted(read)

    # a page read again with the same rulings: the index is not touched
    other.write_text(other.read_text(encoding='utf-8').replace(
        '没有裁定的段落。', '没有裁定的另一段落。'), encoding='utf-8')
    assert rebuild() == ['other']
    assert path.stat().st_mtime_ns == written
    assert path.read_text(encoding='utf-8').endswith(');\n// as written\n')
    # a ruling edited: rewritten, with the new text
    other.write_text(other.read_text(encoding='utf-8').replace(
        '不能对应', '可以对应'), encoding='utf-8')
    assert rebuild() == ['other']
    assert path.stat().st_mtime_ns != written
    assert not path.read_text(encoding='utf-8').endswith('// as written\n')
    assert rulings(app)[-1][2] == '「旋风」可以对应「黑洞」。'
    # removed from the output: written again, though no ruling changed
    path.unlink()
    assert rebuild() == []
    assert rulings(app)[-1][2] == '「旋风」可以对应「黑洞」。'


@pytest.mark.sphinx('html', testroot='intl', freshenv=True,
                    confoverrides={'extensions': INTL_EXTENSIONS})
def test_zh_tw_build_indexes_its_texts_and_their_simplified_counterparts(app):
    app.build()
    entries = {entry[1]: entry for entry in rulings(app)}
    translated = entries['ruling-2017-03-24-faq19691-旋风']
    assert translated[2] == '「旋風」的效果發動時，連鎖發動「王宫的铁壁」的場合，無效。'
    assert translated[7] == '「旋风」的效果发动时，连锁发动「王宫的铁壁」的场合，无效。'
    # the name as written in zh_TW and the registry key: either finds it
    cards = index(app)['cards']
    assert {cards[i] for i in translated[6]} == {'旋风', '旋風', '王宫的铁壁'}
    # a text OpenCC leaves as it is gets no counterpart
    untranslated = entries['ruling-2018-01-02-神之宣告']
    assert untranslated[2] == '没有翻译的一行：「神之宣告」。'
    assert len(untranslated) == 7


@pytest.mark.sphinx('html', testroot='intl', freshenv=True,
                    confoverrides={'extensions': INTL_EXTENSIONS, 'language': 'zh_CN'})
def test_a_simplified_build_has_no_counterparts(app):
    app.build()
    assert {len(entry) for entry in rulings(app)} == {7}


def test_counterpart_is_for_traditional_builds_only():
    assert counterpart('zh_CN') is None
    assert counterpart('en') is None
    assert counterpart(None) is None
    for language in ('zh_TW', 'zh-TW', 'zh_HK'):
        assert counterpart(language)('傷害步驟') == '伤害步骤'
