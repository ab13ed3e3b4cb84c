"""The JSON export of every ruling: schema, content, order."""

from __future__ import annotations

import json

import pytest
from test_ruling_lines import INDEX

#: every entry has exactly these keys, with values of these types
SCHEMA = {
    'page': str, 'page_title': str, 'section': dict, 'anchor': str, 'url': str,
    'date': (str, type(None)), 'dates': list, 'references': list, 'cards': list, 'text': str,
    'changed': bool, 'struck': bool, 'struck_spans': list, 'status': list, 'replaces': list,
    'replaced_by': (str, type(None)), 'superseded_by': (dict, type(None)), 'sources': list,
}
REFERENCE = {'written': str, 'date': (str, type(None)), 'faq': (str, type(None)),
             'url': (str, type(None)), 'section': bool}


def load(app) -> dict:
    return json.loads((app.outdir / 'rulings.json').read_text(encoding='utf-8'))


@pytest.mark.sphinx('html', testroot='ruling-lines')
@pytest.mark.test_params(shared_result='ruling_export-ruling-lines')
def test_schema(app):
    app.build()
    data = load(app)
    assert set(data) == {'format', 'rulings'}
    assert data['format'] == 4
    for ruling in data['rulings']:
        assert set(ruling) == set(SCHEMA)
        for key, kind in SCHEMA.items():
            assert isinstance(ruling[key], kind), key
        assert set(ruling['section']) == {'id', 'title'}
        assert ruling['url'] == f'{ruling["page"]}.html#{ruling["anchor"]}'
        assert ruling['dates'] == [r['date'] for r in ruling['references'] if r['date']]
        assert all(isinstance(name, str) for name in ruling['cards'])
        assert ruling['date'] == max(ruling['dates'], default=None)  # no day sections here
        for source in ruling['sources']:
            assert set(source) == {'kind', 'faq', 'label'}
            assert source['kind'] in ('faq', 'wiki', 'mail', 'other')
        for reference in ruling['references']:
            assert set(reference) == set(REFERENCE)
            for key, kind in REFERENCE.items():
                assert isinstance(reference[key], kind), key


@pytest.mark.sphinx('html', testroot='ruling-lines')
@pytest.mark.test_params(shared_result='ruling_export-ruling-lines')
def test_content_and_order(app):
    app.build()
    found = load(app)['rulings']
    # pages in table-of-contents order, rulings in page order
    assert [(r['page'], r['anchor']) for r in found] == \
        [('index', a) for a, *_ in INDEX] + [('other', 'ruling-2017-12-22')]
    by_anchor = {r['anchor']: r for r in found}
    # the FAQ id read from a legacy date link's URL
    assert by_anchor['ruling-2019-02-04-faq19691'] == {
        'page': 'index', 'page_title': 'Rulings',
        'section': {'id': 'rulings', 'title': 'Rulings'},
        'anchor': 'ruling-2019-02-04-faq19691',
        'url': 'index.html#ruling-2019-02-04-faq19691',
        'date': '2019-02-04',
        'dates': ['2019-02-04'],
        'references': [{
            'written': '19/2/4', 'date': '2019-02-04', 'faq': '19691',
            'url': 'https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid=19691',
            'section': False}],
        'cards': [], 'text': '旧式链接。', 'changed': False, 'struck': False, 'struck_spans': [],
        'status': [], 'replaces': [], 'replaced_by': None, 'superseded_by': None,
        'sources': [{'kind': 'faq', 'faq': '19691', 'label': None}],
    }
    assert by_anchor['ruling-2017-03-24-神之宣告']['cards'] == ['神之宣告']
    assert (by_anchor['ruling-2017-03-24-神之宣告']['changed'],
            by_anchor['ruling-2017-03-24-神之宣告']['struck']) == (True, True)
    # the statuses, and the replacement on the struck ruling's line
    assert {a: r['status'] for a, r in by_anchor.items() if r['status']} == {
        'ruling-2017-03-24-神之宣告': ['overturned'], 'ruling-2020-01-13': ['changed'],
        'ruling-2019-02-04': ['confirmed']}
    assert (by_anchor['ruling-2017-03-24-神之宣告']['replaced_by'],
            by_anchor['ruling-2020-01-13']['replaces']) == \
        ('ruling-2020-01-13', ['ruling-2017-03-24-神之宣告'])
    assert by_anchor['ruling-2014-03-21']['dates'] == ['2014-03-21', '2014-03-21']
    # UTF-8 as is, not \\u escapes
    assert '旧式链接' in (app.outdir / 'rulings.json').read_text(encoding='utf-8')


@pytest.mark.sphinx('text', testroot='ruling-lines', freshenv=True)
def test_only_html_builds_export(app):
    app.build()
    assert not (app.outdir / 'rulings.json').exists()


@pytest.mark.sphinx('html', testroot='ruling-lines', srcdir='ruling-lines-no-export',
                    confoverrides={'handbook_rulings_export': ''})
def test_export_can_be_switched_off(app):
    app.build()
    assert not (app.outdir / 'rulings.json').exists()


@pytest.mark.sphinx('html', testroot='ruling-lines', srcdir='ruling-lines-export-kept')
def test_an_edit_shows_in_the_export(app, make_app):
    """Each page's lines are kept from build to build: those of a page read
    again are made again, the others are not stale either."""
    app.build()
    before = load(app)['rulings']
    other = app.srcdir / 'other.rst'
    other.write_text(other.read_text(encoding='utf-8').replace('另一页，', '另一页（改），')
                     .replace('Other\n=====', 'Changed\n======='), encoding='utf-8')
    make_app('html', srcdir=app.srcdir).build()
    after = load(app)['rulings']
    changed = [r for r in before if r['page'] == 'other']
    assert changed and [r for r in after if r['page'] != 'other'] == \
        [r for r in before if r['page'] != 'other']
    assert [(r['text'], r['page_title']) for r in after if r['page'] == 'other'] == \
        [(r['text'].replace('另一页，', '另一页（改），'), 'Changed') for r in changed]


@pytest.mark.sphinx('html', testroot='ruling-lines', srcdir='ruling-lines-export-reworded')
def test_a_reworded_ruling_re_encodes_its_page_alone(app, make_app, monkeypatch):
    """The page's title and address are the same: that it was read again
    says its lines are stale (once per build), and only its lines."""
    from handbook.listings import export

    app.build()
    before = load(app)['rulings']
    encoded: list[str] = []
    real = export.ruling_json
    monkeypatch.setattr(export, 'ruling_json',
                        lambda docname, *args: encoded.append(docname) or real(docname, *args))
    other = app.srcdir / 'other.rst'
    other.write_text(other.read_text(encoding='utf-8').replace('另一页，', '另一页（改），'),
                     encoding='utf-8')
    make_app('html', srcdir=app.srcdir).build()
    after = load(app)['rulings']
    changed = [r for r in before if r['page'] == 'other']
    assert set(encoded) == {'other'} and len(encoded) == len(changed)
    assert [r['text'] for r in after if r['page'] == 'other'] == \
        [r['text'].replace('另一页，', '另一页（改），') for r in changed]
    assert [r for r in after if r['page'] != 'other'] == [r for r in before if r['page'] != 'other']


def test_a_parallel_read_encodes_each_page_as_its_chunk_is_merged(make_app, rootdir, tmp_path):
    # not once every page is read, when the main process computes alone
    import shutil

    from handbook.listings.export import ExportState
    from handbook.store import state

    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    app = make_app('html', srcdir=srcdir, parallel=2)
    kept: list[set[str]] = []
    app.connect('env-get-updated',
                lambda app, env: kept.append(set(state(env, ExportState).lines)) or [],
                priority=100)  # before the export's own
    app.build()
    pages = {r['page'] for r in load(app)['rulings']}
    assert len(pages) > 5 and kept == [pages]
    serial = make_app('html', srcdir=srcdir, builddir=tmp_path / 'serial')
    serial.build()
    assert load(serial) == load(app)


@pytest.mark.parametrize('written, text', [
    ('的效果\\ :strike:`不能`\\ 可以发动。', '「神之宣告」的效果不能可以发动。'),
    ('的效果 :strike:`不能` 可以发动。', '「神之宣告」的效果 不能 可以发动。')])
def test_the_struck_words_of_a_ruling_struck_in_part(make_app, tmp_path, written, text):
    """A ruling whose words are struck in part says which (an editor's round
    trip: its text said 不能可以发动, and nothing told which words were
    struck); the search shows them struck (tests/browser)."""
    srcdir = tmp_path / 'struck'
    srcdir.mkdir()
    (srcdir / 'conf.py').write_text("extensions = ['handbook.cards', 'handbook.rulings', "
                                    "'handbook.listings.export']\n"
                                    "handbook_cards = 'links.rst'\n")
    (srcdir / 'links.rst').write_text('.. _`神之宣告`: https://ygocdb.com/card/name/神之宣告\n',
                                      encoding='utf-8')
    (srcdir / 'index.rst').write_text(
        f'Rulings\n=======\n\n| 「`神之宣告`_」{written}\\ :ruling:`18/4/1`\n', encoding='utf-8')
    app = make_app('html', srcdir=srcdir)
    app.build()
    [ruling] = load(app)['rulings']
    [[start, end]] = ruling['struck_spans']
    assert (ruling['text'], ruling['status'], ruling['text'][start:end]) == (
        text, ['changed'], '不能')
