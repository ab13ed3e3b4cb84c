"""Card-aware search: the index holds whole card names; the search script is sound.

What the browser does with the index is proved in tests/browser/.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys

import pytest

from handbook.core.names import fold as search_key
from handbook.search.card_search import NameFinder, dictionary_words
from helpers import ROOT, assert_no_warnings


def search_index(app) -> dict:
    text = (app.outdir / 'searchindex.js').read_text(encoding='utf-8')
    assert text.startswith('Search.setIndex(') and text.endswith(')')
    return json.loads(text[len('Search.setIndex('):-1])


def pages_with(index: dict, term: str) -> set[str]:
    """The pages whose text or titles hold *term* as a word of the index."""
    found = set()
    for mapping in (index['terms'], index['titleterms']):
        docs = mapping.get(term, [])
        found.update(index['docnames'][i] for i in ([docs] if isinstance(docs, int) else docs))
    return found


def test_search_key_ignores_spacing_width_case_and_middle_dots():
    assert search_key('DDD 反骨王 列奥尼达') == 'ddd反骨王列奥尼达'
    assert search_key('ＤＤＤ反骨王\u3000列奥尼达') == 'ddd反骨王列奥尼达'
    assert search_key('G·B·猎人') == search_key('G・B･猎人') == 'gb猎人'
    # @ and - are part of a name
    assert search_key('牢牢妖@火灵天星') == '牢牢妖@火灵天星'
    assert search_key('毁灭咒文-死亡终极咒') == '毁灭咒文-死亡终极咒'


def test_dictionary_holds_names_and_their_pieces():
    # jieba never joins across a space, a middle dot, @ or /: those names give their pieces
    names = ['DDD 反骨王 列奥尼达', 'G·B·猎人', '旋风', '罪', '旋风', '星尘龙/爆裂体',
             'A-突击核', '混沌No.103 神葬零娘 暮永']
    assert dictionary_words(names) == [
        'DDD', '反骨王', '列奥尼达', '猎人', '旋风', '星尘龙', '爆裂体', 'A-突击核',
        '混沌No.103', '神葬零娘', '暮永']


def test_names_are_found_leftmost_longest():
    finder = NameFinder(['黑洞', '黑洞龙', 'DDD', 'DDD 反骨王 列奥尼达'])
    assert list(finder.find('「黑洞龙」破坏「黑洞」；ＤＤＤ反骨王  列奥尼达，DDD怪兽')) == [
        '黑洞龙', '黑洞', 'ddd反骨王列奥尼达', 'ddd']
    assert list(finder.find('没有卡名')) == []


@pytest.mark.sphinx('html', testroot='search', freshenv=True)
def test_index_holds_whole_card_names(app):
    app.build()
    assert_no_warnings(app)
    index = search_index(app)
    # each card name is one word, found on exactly the pages that write it
    assert pages_with(index, 'ddd反骨王列奥尼达') == {'index'}
    assert pages_with(index, '混沌no.103神葬零娘暮永') == {'index'}
    assert pages_with(index, 'gb猎人') == {'index'}
    assert pages_with(index, '牢牢妖@火灵天星') == {'index'}
    assert pages_with(index, '毁灭咒文-死亡终极咒') == {'index'}
    assert pages_with(index, '旋风') == {'other'}
    # a name inside a longer name is not a mention of it
    assert pages_with(index, '黑洞龙') == {'index'}
    assert pages_with(index, '黑洞') == {'other'}
    assert pages_with(index, 'ddd') == {'other'}
    # pieces of names are words too (jieba's dictionary holds them)
    assert pages_with(index, '反骨王') == pages_with(index, '列奥尼达') == {'index'}
    assert pages_with(index, '神葬零娘') == pages_with(index, '暮永') == {'index'}
    # jieba cuts phrases: the browser script puts them together again
    assert pages_with(index, '伤害') == pages_with(index, '步骤') == {'index'}
    assert pages_with(index, '伤害步骤') == set()
    assert pages_with(index, '调整') == {'other'}
    # no punctuation, no single characters
    assert not [t for t in index['terms'] if len(t) < 2 or t in ('「', '」', '。')]


@pytest.mark.sphinx('html', testroot='search', freshenv=True)
def test_search_script_is_served_with_the_registry(app):
    app.build()
    script = (app.outdir / '_static' / 'language_data.js').read_text(encoding='utf-8')
    # Sphinx 9.0.4's Chinese search ends in `window.Stemmer = ChineseStemmer;`,
    # an undefined name: search never finishes.  Ours defines its Stemmer.
    assert 'ChineseStemmer' not in script
    assert 'var Stemmer = function ()' in script
    assert not (app.outdir / '_static' / 'english-stemmer.js').exists()
    keys = json.loads(script.split('const CARD_KEYS = ', 1)[1].split(';\n', 1)[0])
    assert keys == sorted(['ddd反骨王列奥尼达', 'gb猎人', '旋风', '混沌no.103神葬零娘暮永',
                           '牢牢妖@火灵天星', '黑洞', '黑洞龙', '毁灭咒文-死亡终极咒', 'ddd'])
    assert 'const CardSearch = ' in script
    # served verbatim (not HTML-escaped)
    assert '&gt;' not in script and '=>' in script


@pytest.mark.sphinx('html', testroot='search', freshenv=True)
def test_jieba_is_quiet(app, caplog):
    # jieba logs its dictionary loading at DEBUG level, to stderr
    with caplog.at_level(logging.DEBUG, logger='jieba'):
        app.build()
    assert [r.getMessage() for r in caplog.records if r.name == 'jieba'] == []


@pytest.mark.sphinx('html', testroot='search', freshenv=True)
def test_search_language_is_bound_to_each_build(app):
    from handbook.search.card_search import registered_language
    from sphinx.search.zh import SearchChinese

    app.build()
    # Sphinx's table of languages is a global: Sphinx's own again after the build ...
    assert isinstance(registered_language()({}), SearchChinese)
    # ... and bound again for the next build of the same application
    app.build(force_all=True)
    assert pages_with(search_index(app), 'ddd反骨王列奥尼达') == {'index'}
    assert isinstance(registered_language()({}), SearchChinese)


def test_a_short_text_is_cut_once_and_its_words_are_the_callers():
    from handbook.search import card_search

    language = type('Bound', (card_search.CardAwareChinese,), {'card_names': ('黑洞龙',)})({})
    cuts = []
    cut = language.cut
    language.cut = lambda text: cuts.append(text) or cut(text)
    short, long = '」的效果破坏「黑洞龙」', '黑洞龙的效果' * 10
    first = language.split(short)
    first.append('改了')  # the caller's own list
    assert language.split(short) == cut(short) and '改了' not in language.split(short)
    assert language.split(long) == language.split(long) == cut(long)
    assert cuts == [short, long, long]  # a long text, unlikely to recur, is not kept


def test_each_word_of_jiebas_is_weighed_once_per_build(monkeypatch):
    # a word jieba cuts is dropped if it folds to a registry name (the name
    # finder indexes the name where it is written); jieba's words recur
    from handbook.search import card_search

    language = type('Bound', (card_search.CardAwareChinese,), {'card_names': ('黑洞龙',)})({})
    folded: list[str] = []
    fold = card_search.fold
    monkeypatch.setattr(card_search, 'fold', lambda text: folded.append(text) or fold(text))
    text = '这张卡的效果发动时，黑洞龙的效果不能发动。' * 2  # long: cut each time
    words = language.split(text)
    # jieba's 黑洞龙 dropped, the name finder's kept: once where it is written
    assert '效果' in words and '发动' in words and words.count('黑洞龙') == 2
    weighed = [word for word in folded if word != text]  # the name finder folds the text
    assert weighed and len(weighed) == len(set(weighed))
    folded.clear()
    assert language.split(text) == words
    assert folded == [text]  # only the name finder's


def test_a_build_that_indexes_no_page_does_not_import_jieba(rootdir, tmp_path):
    # jieba's import is a tenth of a second; a build with nothing to do needs none
    script = f'''
import sys
sys.path.insert(0, {str(ROOT / '_ext')!r})
from sphinx.application import Sphinx
app = Sphinx({str(rootdir / 'test-search')!r}, {str(rootdir / 'test-search')!r},
             {str(tmp_path / 'html')!r}, {str(tmp_path / 'doctrees')!r}, 'html',
             status=None, warning=None)
app.build()
print('jieba' in sys.modules)
'''
    builds = [subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                             timeout=120) for _ in ('first', 'nothing to do')]
    assert [run.stdout.strip() for run in builds] == ['True', 'False'], builds[1].stderr


def test_a_page_is_split_with_the_words_learned_for_it():
    from handbook.search import card_search

    language = type('Bound', (card_search.CardAwareChinese,), {'card_names': ('黑洞龙',)})({})
    cut = language.cut
    cuts: list[str] = []
    language.cut = lambda text: cuts.append(text) or cut(text)
    short, long = '」的效果破坏「黑洞龙」', '黑洞龙的效果' * 10
    learned = {short: cut(short), long: cut(long)}
    language.learn(learned)
    assert language.split(short) == learned[short] and language.split(long) == learned[long]
    assert cuts == []
    language.begin()  # the next page: nothing learned
    assert language.split(long) == learned[long] and cuts == [long]


