"""The speed package's search (``handbook.speed.search``,
``handbook.speed.jieba_dictionary``): jieba's dictionary shared and read by
first character cuts as jieba's own; an index made with each page's words
kept, or cut ahead by another process, is the index made without them."""

from __future__ import annotations

import shutil

import pytest
from helpers import SPEED, assert_no_warnings

pytestmark = pytest.mark.skipif(not SPEED, reason='the speed package is off in this run')


def test_jiebas_cache_is_read_in_one_piece_or_not_at_all(tmp_path):
    import marshal

    import jieba

    from handbook.speed.jieba_dictionary import _read_jieba_cache

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

    from handbook.speed.jieba_dictionary import _quiet_jieba, jieba_dictionary

    own = jieba.Tokenizer()
    with _quiet_jieba():
        own.initialize()
    shared = jieba_dictionary()
    shared.lend(None, lambda tokenizer: None)  # without the words of the last build
    assert (dict(shared), shared.total) == (own.FREQ, own.total)


def cutter(*names, folder=None, key=None):
    from pathlib import Path

    from handbook.speed.search import Cutter

    return Cutter(names, {}, folder or Path('/nonexistent'), key)


def test_the_dictionary_is_lent_to_one_build_at_a_time_without_the_others_words():
    from handbook.speed.jieba_dictionary import jieba_dictionary

    shared = jieba_dictionary()
    before = dict(shared.lend(None, lambda tokenizer: None).FREQ)
    first, second = cutter('旋风龙骑士', '黑洞龙'), cutter('冥王结界波')
    words = list(first.cut_for_search('旋风龙骑士的效果'))
    assert '旋风龙骑士' in words and first.tokenizer.FREQ is shared
    assert '黑洞龙' in shared and '旋风龙骑' in shared  # a word and its prefixes
    list(second.cut_for_search('冥王结界波'))
    assert second.tokenizer.total == shared.total + shared['冥王结界波']  # jieba's total, and its word
    assert '冥王结界波' in shared and '旋风龙骑士' not in shared and '黑洞龙' not in shared
    assert list(first.cut_for_search('旋风龙骑士的效果')) == words  # lent back: its words again
    assert '冥王结界波' not in shared
    assert dict(jieba_dictionary().lend(None, lambda tokenizer: None).FREQ) == before


NAMES = ('黑洞龙', 'DDD 反骨王 列奥尼达')
TEXTS = ['「黑洞龙」的效果破坏场上的怪兽。', 'DDD反骨王列奥尼达从手卡发动效果，进入伤害步骤。',
         '连锁处理时，这张卡已经离开场上的场合，效果不适用。']


@pytest.fixture
def kept_dictionary(tmp_path, monkeypatch):
    """jieba's dictionary by first character in *tmp_path*, and the words of
    a build with :data:`NAMES` kept in its folder: (folder, key)."""
    from handbook.speed import jieba_dictionary as dictionary
    from handbook.speed import search as speed_search

    shared = dictionary.jieba_dictionary()
    base = dict(shared.lend(None, lambda tokenizer: None).FREQ)  # jieba's own
    stamp = (1, 2)  # a stamp of jieba's cache
    shards = tmp_path / dictionary.SHARDS
    dictionary.Shards.write(shards, stamp, base, shared.total)
    monkeypatch.setattr(dictionary, 'shards_file', lambda: shards)
    monkeypatch.setattr(dictionary, 'jieba_stamp', lambda: stamp)
    folder = tmp_path / 'build'
    key = dictionary.words_key(NAMES, None)
    assert key is not None
    cutter(*NAMES, folder=folder, key=key).lend()  # keeps the build's words
    monkeypatch.setattr(speed_search, 'whole_dictionary_loaded', lambda: False)  # a new process
    return folder, key


def test_a_dictionary_read_by_first_character_cuts_as_the_whole_one(kept_dictionary):
    from handbook.speed import jieba_dictionary as dictionary

    folder, key = kept_dictionary
    whole = cutter(*NAMES)  # no key: jieba's whole dictionary
    expected = [list(whole.cut_for_search(text)) for text in TEXTS]
    assert dictionary.WORDS in {path.name for path in folder.iterdir()}
    partial = cutter(*NAMES, folder=folder, key=key)
    assert [list(partial.cut_for_search(text)) for text in TEXTS] == expected
    read = partial.tokenizer.FREQ
    assert isinstance(read, dictionary.PartialDictionary)
    assert 0 < len(read) < len(dictionary.jieba_dictionary()) / 10
    assert read['黑洞龙'] == whole.tokenizer.FREQ['黑洞龙']


def test_a_damaged_dictionary_file_leaves_the_whole_dictionary(kept_dictionary, monkeypatch):
    from handbook.speed import jieba_dictionary as dictionary

    folder, key = kept_dictionary
    expected = [list(cutter(*NAMES).cut_for_search(text)) for text in TEXTS]

    def damaged(self, text):
        raise ValueError('bad marshal data')
    monkeypatch.setattr(dictionary.PartialDictionary, 'need', damaged)
    partial = cutter(*NAMES, folder=folder, key=key)
    assert [list(partial.cut_for_search(text)) for text in TEXTS] == expected
    assert partial.tokenizer.FREQ is dictionary.jieba_dictionary()


def test_the_dictionary_by_first_character_is_read_whole_and_for_its_cache_only(tmp_path):
    import marshal

    from handbook.speed.jieba_dictionary import FORMAT, Shards

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

    from handbook.speed.search import read_cuts as _read_cuts
    from handbook.speed.jieba_dictionary import FORMAT

    path = tmp_path / 'page.marshal'
    path.write_bytes(marshal.dumps((FORMAT, 'key', {'伤害步骤': ['伤害', '步骤', '伤害步骤']})))
    assert _read_cuts(path, 'key') == {'伤害步骤': ['伤害', '步骤', '伤害步骤']}
    assert _read_cuts(path, 'another key') == {}  # other names, another jieba
    path.write_bytes(marshal.dumps((FORMAT + 1, 'key', {})))
    assert _read_cuts(path, 'key') == {}
    path.write_bytes(b'\x00not marshal')
    assert _read_cuts(path, 'key') == {}



def heavy_handbook(rootdir, tmp_path, rulings: int):
    """The test handbook, one of its pages a yearly FAQ page of *rulings* rulings."""
    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    heavy = srcdir / 'p3.rst'
    heavy.write_text(heavy.read_text(encoding='utf-8')
                     + '\n'.join(f'| 第{n}条裁定，「`旋风`_」的效果处理。' for n in range(rulings))
                     + '\n', encoding='utf-8')
    return srcdir


def index_of(make_app, srcdir, out, speed: bool, parallel: int = 1) -> bytes:
    from sphinx.config import Config
    from sphinx.util.tags import Tags

    extensions = [e for e in Config.read(srcdir, overrides={}, tags=Tags()).extensions
                  if e != 'handbook.speed'] + (['handbook.speed'] if speed else [])
    app = make_app('html', srcdir=srcdir, builddir=out, parallel=parallel,
                   confoverrides={'extensions': extensions})
    app.build()
    app.cleanup()  # Sphinx's global registries, before the next app
    assert_no_warnings(app)
    return (app.outdir / 'searchindex.js').read_bytes()


@pytest.mark.parametrize(('parallel', 'rulings'), [
    (1, 2500),  # a serial build of 128 KB or more: cut ahead while the pages are read
    (2, 400),  # a parallel build: each page's words kept as the main process indexes it
])
def test_an_index_cut_ahead_is_the_index_cut_by_the_main_process(
        make_app, rootdir, tmp_path, parallel, rulings):
    from handbook.speed.jieba_dictionary import jieba_dictionary

    jieba_dictionary()  # jieba's cache exists (on a new machine, made now): the words' key
    srcdir = heavy_handbook(rootdir, tmp_path, rulings)
    ahead = index_of(make_app, srcdir, tmp_path / 'ahead', True, parallel)
    assert any((tmp_path / 'ahead' / 'doctrees' / 'handbook-search' / 'cuts').iterdir())
    assert ahead == index_of(make_app, srcdir, tmp_path / 'plain', False)


def test_an_edit_indexed_with_the_kept_words_is_a_clean_builds_index(
        make_app, rootdir, tmp_path):
    from handbook.speed.jieba_dictionary import jieba_dictionary

    jieba_dictionary()  # jieba's cache and its shards exist
    srcdir = tmp_path / 'src'
    shutil.copytree(rootdir / 'test-search', srcdir)
    index_of(make_app, srcdir, tmp_path / 'edited', True)
    page = srcdir / 'other.rst'
    page.write_text(page.read_text(encoding='utf-8') + '\n连锁处理时效果不适用。\n', encoding='utf-8')
    edited = index_of(make_app, srcdir, tmp_path / 'edited', True)
    assert edited == index_of(make_app, srcdir, tmp_path / 'clean', False)


def test_a_removed_pages_cuts_go(make_app, rootdir, tmp_path):
    srcdir = tmp_path / 'src'
    shutil.copytree(rootdir / 'test-search', srcdir)
    index_of(make_app, srcdir, tmp_path / 'out', True)
    cuts = tmp_path / 'out' / 'doctrees' / 'handbook-search' / 'cuts'
    assert (cuts / 'other.marshal').is_file()
    (srcdir / 'other.rst').unlink()
    index = srcdir / 'index.rst'
    index.write_text(index.read_text(encoding='utf-8').replace('   other\n', ''), encoding='utf-8')
    index_of(make_app, srcdir, tmp_path / 'out', True)
    assert not (cuts / 'other.marshal').exists() and (cuts / 'index.marshal').is_file()
