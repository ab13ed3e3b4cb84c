"""Card-aware search: the index holds whole card names; the search script is sound.

What the browser does with the index is proved in tests/browser/.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys

import pytest
import sphinx.search

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
    app.build()
    # Sphinx's table of languages is a global: given back after the build ...
    assert sphinx.search.languages['zh'] == 'sphinx.search.zh.SearchChinese'
    # ... and bound again for the next build of the same application
    app.build(force_all=True)
    assert pages_with(search_index(app), 'ddd反骨王列奥尼达') == {'index'}
    assert sphinx.search.languages['zh'] == 'sphinx.search.zh.SearchChinese'


def test_a_short_text_is_cut_once_and_its_words_are_the_callers():
    from handbook.search import card_search

    language = type('Bound', (card_search.CardAwareChinese,), {'card_names': ('黑洞龙',)})({})
    cuts = []
    cut = language._split
    language._split = lambda text: cuts.append(text) or cut(text)
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


def test_jiebas_cache_is_read_in_one_piece_or_not_at_all(tmp_path):
    import marshal

    import jieba

    from handbook.search.dictionary import _read_jieba_cache

    tokenizer = jieba.Tokenizer()
    tokenizer.tmp_dir = str(tmp_path)
    assert _read_jieba_cache(tokenizer) is None  # no cache: jieba makes one
    cache = tmp_path / 'jieba.cache'
    cache.write_bytes(b'\x00not marshal')
    assert _read_jieba_cache(tokenizer) is None
    cache.write_bytes(marshal.dumps(['not', 'a', 'dictionary']))
    assert _read_jieba_cache(tokenizer) is None
    cache.write_bytes(marshal.dumps(({'旋风': 3, '旋': 0}, 3)))
    assert _read_jieba_cache(tokenizer) == ({'旋风': 3, '旋': 0}, 3)
    tokenizer.cache_file = 'other.cache'  # a cache of jieba's choosing: jieba reads it
    assert _read_jieba_cache(tokenizer) is None


def test_the_dictionary_is_jiebas_own():
    import jieba

    from handbook.search.dictionary import _quiet_jieba, jieba_dictionary

    own = jieba.Tokenizer()
    with _quiet_jieba():
        own.initialize()
    shared = jieba_dictionary()
    shared.lend(None, lambda tokenizer: None)  # without the words of the last build
    assert (dict(shared), shared.total) == (own.FREQ, own.total)


def test_the_dictionary_is_lent_to_one_build_at_a_time_without_the_others_words():
    import jieba

    from handbook.search.card_search import CardAwareChinese
    from handbook.search.dictionary import jieba_dictionary

    def language(*names):
        return type('Bound', (CardAwareChinese,), {'card_names': names})({})

    shared = jieba_dictionary()
    before = dict(shared.lend(None, lambda tokenizer: None).FREQ)
    first, second = language('旋风龙骑士', '黑洞龙'), language('冥王结界波')
    assert '旋风龙骑士' in first.tokenizer.FREQ and first.tokenizer.FREQ is shared
    assert '黑洞龙' in shared and '旋风龙骑' in shared  # a word and its prefixes
    assert first.split('旋风龙骑士的效果') == first.split('旋风龙骑士的效果')
    assert second.tokenizer.total == shared.total + shared['冥王结界波']  # jieba's own total, and its word
    assert '冥王结界波' in shared and '旋风龙骑士' not in shared and '黑洞龙' not in shared
    assert '旋风龙骑士' in first.tokenizer.FREQ  # lent back to the first: its words again
    assert '冥王结界波' not in shared
    assert dict(jieba_dictionary().lend(None, lambda tokenizer: None).FREQ) == before
    assert isinstance(first.tokenizer, jieba.Tokenizer)


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


@pytest.mark.parametrize(('builder', 'parallel', 'ahead'), [
    ('html', 2, True),  # loaded while the other process reads
    ('html', 1, False),  # a serial read: when the first page is indexed
    ('text', 2, False),  # a builder that indexes no page: never
])
def test_a_parallel_read_loads_jiebas_dictionary_while_the_main_process_waits(
        make_app, rootdir, tmp_path, monkeypatch, builder, parallel, ahead):
    import os
    import shutil

    from handbook.search import card_search

    calls = []
    reading = [True]
    real = card_search.jieba_dictionary

    def jieba_dictionary():
        calls.append((reading[0], os.getpid()))
        return real()
    monkeypatch.setattr(card_search, 'jieba_dictionary', jieba_dictionary)
    srcdir = tmp_path / 'src'
    shutil.copytree(rootdir / 'test-search', srcdir)
    app = make_app(builder, srcdir=srcdir, builddir=tmp_path / 'out', parallel=parallel)
    app.connect('env-updated', lambda app, env: reading.__setitem__(0, False), priority=1)
    app.build()
    assert_no_warnings(app)
    assert (calls[:1] == [(True, os.getpid())]) is ahead
    assert calls if builder == 'html' else not calls


def test_a_page_is_split_with_the_words_learned_for_it():
    from handbook.search import card_search

    language = type('Bound', (card_search.CardAwareChinese,), {'card_names': ('黑洞龙',)})({})
    cut = language._split
    cuts: list[str] = []
    language._split = lambda text: cuts.append(text) or cut(text)
    short, long = '」的效果破坏「黑洞龙」', '黑洞龙的效果' * 10
    learned = {short: cut(short), long: cut(long)}
    language.learn(learned)
    assert language.split(short) == learned[short] and language.split(long) == learned[long]
    assert cuts == []
    language.begin()  # the next page: nothing learned
    assert language.split(long) == learned[long] and cuts == [long]


@pytest.mark.parametrize(('parallel', 'rulings', 'ahead'), [
    (2, 400, 'every page'),  # once read: the heavy page, then the others (the test waits)
    (1, 400, set()),  # a serial build of a light handbook: none
    (1, 2500, 'every page'),  # of a handbook of 128 KB or more: while the pages are read
])
def test_a_build_indexes_words_a_process_of_its_own_cut_ahead(
        make_app, rootdir, tmp_path, monkeypatch, parallel, rulings, ahead):
    import shutil

    from handbook.core.writing_order import INDEXING, WAITING
    from handbook.search import card_search
    from handbook.search.dictionary import jieba_dictionary

    jieba_dictionary()  # jieba's cache exists (on a new machine, made now): the words' key
    # the light pages' cutting at the idle priority would wait for the other
    # tests' processes here (see the next test)
    monkeypatch.setattr(card_search, 'when_idle', lambda: None)
    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    heavy = srcdir / 'p3.rst'  # the page of a yearly FAQ: the others weigh less than a quarter
    heavy.write_text(heavy.read_text(encoding='utf-8')
                     + '\n'.join(f'| 第{n}条裁定，「`旋风`_」的效果处理。' for n in range(rulings))
                     + '\n', encoding='utf-8')
    app = make_app('html', srcdir=srcdir, builddir=tmp_path / 'ahead', parallel=parallel)
    cutting = next(listener.handler.__self__ for listener in app.events.listeners['env-updated']
                   if isinstance(getattr(listener.handler, '__self__', None),
                                 card_search.CutsAhead))

    def wait(app, pagename):
        # a test waits until every page is cut, so that each is taken; a build does not
        if cutting.process is not None:
            cutting.process.join(60)

    taken: dict[str, bool] = {}  # each page indexed: whether it had words cut ahead
    kept: list[set[str]] = []  # the pages' words kept (see below)

    def kept_now(app, *args):
        kept.append({path.name for path in (app.doctreedir / 'handbook-search').rglob('*')
                     if not path.name.endswith('.ahead.marshal')})
        return []
    app.connect(INDEXING, wait, priority=1)  # before the handler taking them
    app.connect(WAITING, kept_now, priority=1)  # before the handler writing them
    app.connect(WAITING, kept_now, priority=999)
    app.connect('build-finished', kept_now, priority=999)
    app.connect(INDEXING, lambda app, pagename: taken.__setitem__(
        pagename, bool(app.builder.indexer.lang._ahead)), priority=999)
    app.build()
    assert_no_warnings(app)
    assert len(taken) > 6
    if parallel > 1:  # the main process keeps its pages' words while it waits for the writing
        # (those of the texts it cut itself: the index's toctree, resolved once read)
        assert len(kept) == 3 and 'index.marshal' in kept[1] - kept[0]
        assert kept[2] - kept[1] <= {'timeline.marshal'}  # written after, alone
    else:  # as each page is indexed
        assert kept == [kept[-1]] and 'index.marshal' in kept[-1]
    assert {page for page, cut in taken.items() if cut} == (
        set(taken) if ahead == 'every page' else ahead)
    if ahead:
        assert cutting.process is None  # ended with the build
        app.cleanup()  # Sphinx's global registries, before the next app
        monkeypatch.setattr(card_search, 'PAGES_AHEAD', 1000)  # none cut ahead
        alone = make_app('html', srcdir=srcdir, builddir=tmp_path / 'alone')
        alone.build()
        assert (app.outdir / 'searchindex.js').read_bytes() == \
            (alone.outdir / 'searchindex.js').read_bytes()


def test_a_parallel_build_cuts_the_heavy_pages_then_the_others_from_the_lightest_when_idle(
        make_app, rootdir, tmp_path, monkeypatch):
    # the heavy pages while the main process computes the lists; the others
    # from those the write indexes last, on what the write leaves of the cores
    import shutil

    from handbook.search import card_search
    from handbook.search.dictionary import jieba_dictionary

    jieba_dictionary()  # jieba's cache exists: the words' key
    given: list[list[tuple[str, object]]] = []
    monkeypatch.setattr(card_search.CutsAhead, '_start',
                        lambda self, app, language, receiving, doctrees: given.append(doctrees))
    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    heavy = srcdir / 'p3.rst'
    heavy.write_text(heavy.read_text(encoding='utf-8')
                     + '\n'.join(f'| 第{n}条裁定，「`旋风`_」的效果处理。' for n in range(400))
                     + '\n', encoding='utf-8')
    app = make_app('html', srcdir=srcdir, builddir=tmp_path / 'out', parallel=2)
    app.build()
    assert_no_warnings(app)
    [doctrees] = given
    marker = doctrees.index(card_search.WHEN_IDLE)
    assert [docname for docname, _ in doctrees[:marker]] == ['p3']
    light = doctrees[marker + 1:]
    sizes = [path.stat().st_size for _, path in light]
    assert sizes == sorted(sizes) and {docname for docname, _ in light} == \
        app.env.found_docs - {'p3'}
    # the process goes on at the idle priority from the marker on
    calls: list[str] = []
    monkeypatch.setattr(card_search.os, 'nice', lambda increment: 0)  # this process's own
    monkeypatch.setattr(card_search, 'when_idle', lambda: calls.append('idle'))
    monkeypatch.setattr(card_search, 'write_cuts', lambda *args: calls.append('cut'))
    bound = type('Bound', (card_search.CardAwareChinese,),
                 {'card_names': ('旋风',), 'cache': tmp_path / 'kept'})
    card_search._cut_pages(bound, {}, doctrees[marker - 1:marker + 3])
    assert calls == ['cut', 'idle', 'cut', 'cut']


def test_the_process_cutting_ahead_stops_quietly_at_what_it_cannot_read(
        tmp_path, capsys, monkeypatch):
    from handbook.search import card_search
    from handbook.search.dictionary import jieba_dictionary

    jieba_dictionary()  # jieba's cache exists: the words' key
    monkeypatch.setattr(card_search.os, 'nice', lambda increment: 0)  # this process's own
    bound = type('Bound', (card_search.CardAwareChinese,),
                 {'card_names': ('黑洞龙',), 'cache': tmp_path / 'kept'})
    card_search._cut_pages(bound, {}, [('gone', tmp_path / 'gone.doctree')])
    assert capsys.readouterr() == ('', '')
    assert not card_search.ahead_file(bound.cache, 'gone').exists()


# -- what a build keeps for the next: each page's cuts, jieba's dictionary by first character

def bound_language(*names):
    from handbook.search.card_search import CardAwareChinese

    return type('Bound', (CardAwareChinese,), {'card_names': names})


TEXTS = ['「黑洞龙」的效果破坏场上的怪兽。', 'DDD反骨王列奥尼达从手卡发动效果，进入伤害步骤。',
         '连锁处理时，这张卡已经离开场上的场合，效果不适用。']


@pytest.fixture
def kept_dictionary(tmp_path, monkeypatch):
    """jieba's dictionary by first character in *tmp_path*, and the words of
    a language bound to two names kept in its build folder: the language."""
    from handbook.search import card_search, dictionary

    bound = bound_language('黑洞龙', 'DDD 反骨王 列奥尼达')
    shared = dictionary.jieba_dictionary()
    # jieba's own, without a build's words
    base = dict(shared.lend(None, lambda tokenizer: None).FREQ)
    stamp = (1, 2)  # a stamp of jieba's cache
    shards = tmp_path / dictionary.SHARDS
    dictionary.Shards.write(shards, stamp, base, shared.total)
    monkeypatch.setattr(dictionary, 'shards_file', lambda: shards)
    monkeypatch.setattr(dictionary, 'jieba_stamp', lambda: stamp)
    bound.cache = tmp_path / 'build'
    whole = bound({})
    assert whole.key is not None
    dictionary.save_words(bound.cache, whole.key, shared, whole.tokenizer.total)
    monkeypatch.setattr(card_search, 'whole_dictionary_loaded', lambda: False)  # a new process
    return bound


def test_a_dictionary_read_by_first_character_cuts_as_the_whole_one(kept_dictionary):
    from handbook.search import dictionary

    whole = dictionary.jieba_dictionary()
    # the same names on jieba's whole dictionary (a language with no build folder)
    on_whole = bound_language('黑洞龙', 'DDD 反骨王 列奥尼达')({})
    expected = [on_whole._split(text) for text in TEXTS]
    assert on_whole.tokenizer.FREQ is whole and dictionary.WORDS in {
        path.name for path in kept_dictionary.cache.iterdir()}
    language = kept_dictionary({})
    assert [language.split(text) for text in TEXTS] == expected
    partial = language.tokenizer.FREQ
    assert isinstance(partial, dictionary.PartialDictionary)
    assert partial._read == set(''.join(TEXTS))  # the characters of the texts only
    assert 0 < len(partial) < len(whole) / 10
    assert partial['黑洞龙'] == whole['黑洞龙'] and partial['黑洞'] == whole['黑洞']


def test_a_damaged_dictionary_file_leaves_the_whole_dictionary(kept_dictionary, monkeypatch):
    from handbook.search import dictionary

    expected = [bound_language('黑洞龙', 'DDD 反骨王 列奥尼达')({})._split(text) for text in TEXTS]

    def damaged(self, text):
        raise ValueError('bad marshal data')
    monkeypatch.setattr(dictionary.PartialDictionary, 'need', damaged)
    language = kept_dictionary({})
    assert [language.split(text) for text in TEXTS] == expected
    assert language.tokenizer.FREQ is dictionary.jieba_dictionary()


def test_the_dictionary_by_first_character_is_read_whole_and_for_its_cache_only(tmp_path):
    import marshal

    from handbook.search.dictionary import FORMAT, Shards

    path = tmp_path / 'shards'
    Shards.write(path, (10, 20), {'旋风': 3, '旋': 0, '黑洞': 5, '黑': 1}, 9)
    shards = Shards.open(path, (10, 20))
    assert shards.total == 9
    assert shards.entries('旋') == {'旋风': 3, '旋': 0} and shards.entries('龙') == {}
    assert Shards.open(path, (10, 21)) is None  # jieba's cache changed since
    data = path.read_bytes()
    header = marshal.dumps((FORMAT, (10, 20), 9, {'旋': 'not where'}))
    for damaged in (data[:-1], data + b'\x00', b'', b'\x00' * 12,
                    len(header).to_bytes(8, 'little') + header):
        path.write_bytes(damaged)
        assert Shards.open(path, (10, 20)) is None


def test_a_pages_cuts_are_taken_under_their_key_only(tmp_path):
    import marshal

    from handbook.search.card_search import _read_cuts
    from handbook.search.dictionary import FORMAT

    path = tmp_path / 'page.marshal'
    path.write_bytes(marshal.dumps((FORMAT, 'key', {'伤害步骤': ['伤害', '步骤', '伤害步骤']})))
    assert _read_cuts(path, 'key') == {'伤害步骤': ['伤害', '步骤', '伤害步骤']}
    assert _read_cuts(path, 'another key') == {}  # other names, another jieba
    path.write_bytes(marshal.dumps((FORMAT + 1, 'key', {})))
    assert _read_cuts(path, 'key') == {}
    path.write_bytes(b'\x00not marshal')
    assert _read_cuts(path, 'key') == {}


def test_an_edit_has_jieba_cut_its_new_text_only(rootdir, tmp_path):
    # each build in a process of its own, as make html runs it: jieba's whole
    # dictionary is not loaded, and the edited page's other texts are the last build's
    import shutil

    from handbook.search.dictionary import jieba_dictionary

    jieba_dictionary()  # jieba's cache and its shards exist (on a new machine, made now)
    srcdir = tmp_path / 'src'
    shutil.copytree(rootdir / 'test-search', srcdir)
    script = f'''
import json, sys
sys.path.insert(0, {str(ROOT / '_ext')!r})
from sphinx.application import Sphinx
from handbook.search import card_search
cut = []
split = card_search.CardAwareChinese._split
card_search.CardAwareChinese._split = lambda self, text: cut.append(text) or split(self, text)
app = Sphinx({str(srcdir)!r}, {str(srcdir)!r}, sys.argv[1] + '/html', sys.argv[1] + '/doctrees',
             'html', status=None, warning=sys.stderr)
app.build()
tokenizer = app.builder.indexer.lang._tokenizer
print(json.dumps([cut, type(tokenizer.FREQ).__name__ if tokenizer else None]))
'''

    def build(out):
        run = subprocess.run([sys.executable, '-c', script, str(tmp_path / out)],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 0 and not run.stderr, run.stderr
        return json.loads(run.stdout)

    cut, dictionary = build('edited')
    assert dictionary == 'SharedDictionary' and '进入伤害步骤。' in cut
    page = srcdir / 'other.rst'
    page.write_text(page.read_text(encoding='utf-8') + '\n连锁处理时效果不适用。\n', encoding='utf-8')
    assert build('edited') == [['连锁处理时效果不适用。'], 'PartialDictionary']
    cut, dictionary = build('clean')
    assert dictionary == 'SharedDictionary' and '连锁处理时效果不适用。' in cut and len(cut) > 5
    assert (tmp_path / 'edited/html/searchindex.js').read_bytes() == \
        (tmp_path / 'clean/html/searchindex.js').read_bytes()


def test_a_removed_pages_cuts_go(make_app, rootdir, tmp_path):
    import shutil

    from handbook.search.card_search import cuts_file

    srcdir = tmp_path / 'src'
    shutil.copytree(rootdir / 'test-search', srcdir)
    app = make_app('html', srcdir=srcdir, builddir=tmp_path / 'out')
    app.build()
    kept = cuts_file(app.builder.indexer.lang.cache, 'other')
    assert kept.is_file()
    app.cleanup()  # Sphinx's global registries, before the next app
    (srcdir / 'other.rst').unlink()
    index = srcdir / 'index.rst'
    index.write_text(index.read_text(encoding='utf-8').replace('   other\n', ''), encoding='utf-8')
    again = make_app('html', srcdir=srcdir, builddir=tmp_path / 'out')
    again.build()
    assert_no_warnings(again)
    assert not kept.exists() and cuts_file(again.builder.indexer.lang.cache, 'index').is_file()


def test_the_serial_cutting_process_ends_with_the_main_process_pipe(make_app, rootdir, tmp_path):
    # should the main process end without telling it the read is over (killed),
    # the process cutting a serial build's pages is not left waiting
    import shutil

    from handbook.search import card_search
    from handbook.search.dictionary import jieba_dictionary

    jieba_dictionary()  # jieba's cache exists: the words' key
    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    heavy = srcdir / 'p3.rst'
    heavy.write_text(heavy.read_text(encoding='utf-8')
                     + '\n'.join(f'| 第{n}条裁定。' for n in range(12000)) + '\n', encoding='utf-8')
    app = make_app('html', srcdir=srcdir, builddir=tmp_path / 'out')
    cutting = next(listener.handler.__self__ for listener in app.events.listeners['env-updated']
                   if isinstance(getattr(listener.handler, '__self__', None),
                                 card_search.CutsAhead))
    found = []

    def abandon(app, docname, source):  # the main process's end of the pipe goes, unsaid
        if cutting.telling is not None and cutting.process is not None:
            found.append(cutting.process)
            cutting.telling.close()
            cutting.telling = None
    app.connect('source-read', abandon, priority=1)
    app.build()
    assert found and found[0].exitcode == 0  # it ended on its own, before the build's end
