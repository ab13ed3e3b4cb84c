"""Ruling statuses, replacements, sources, the copy-link button, the open questions
(_ext/handbook/rulings/statuses.py, _ext/handbook/listings/open_questions.py)."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from docutils import nodes
from handbook.core.names import SEPARATOR_CLASS
from handbook.listings.open_questions import answers
from handbook.nodes import ruling_line, strike
from handbook.rulings import statuses
from handbook.rulings.dates import ruling_node
from handbook.rulings.lines import Reference, Ruling, rulings
from helpers import ROOT, assert_no_warnings, html, warnings, written_by

#: (anchor, status, replaces, replaced_by, sources) of test-statuses/index.rst, page order
INDEX = [
    # an overturned ruling and the one that replaced it, on one line
    ('ruling-2017-03-24-神之宣告', ('overturned',), (), 'ruling-2020-01-13', ()),
    ('ruling-2020-01-13', ('changed',), ('ruling-2017-03-24-神之宣告',), None, ()),
    # two overturned, one replacement
    ('ruling-2015-01-01-旋风', ('overturned',), (), 'ruling-2017-01-01-旋风', ()),
    ('ruling-2016-01-01-旋风', ('overturned',), (), 'ruling-2017-01-01-旋风', ()),
    ('ruling-2017-01-01-旋风', (), ('ruling-2015-01-01-旋风', 'ruling-2016-01-01-旋风'), None, ()),
    # the next line replaces nothing
    ('ruling-2014-02-02-黑洞', ('overturned',), (), None, ()),
    ('ruling-2014-02-03-黑洞', (), (), None, ()),
    # corrected in place; the handbook's own marker
    ('ruling-2019-05-01-旋风', ('changed',), (), None, ()),
    ('ruling-2018-03-03-王宫的铁壁', ('changed',), (), None, ()),
    # sources
    ('ruling-2017-03-24-faq19691-旋风', (), (), None, (('faq', '19691'),)),
    ('ruling-2017-03-24-旋风', (), (), None, (('faq', '19691'),)),
    ('ruling-2019-02-04-faq8000', (), (), None, (('faq', '8000'),)),
    ('ruling-2017-12-22', (), (), None, (('wiki', ''),)),
    ('ruling-2016-04-01', (), (), None, (('other', ''),)),
    ('ruling-2017-03-24-2018-01-13-faq19691-faq8000', (), (), None,
     (('faq', '19691'), ('faq', '8000'))),
    # 待确认
    ('ruling-2019-04-17-死者苏生-3d9d79', ('open',), (), None, ()),
    ('ruling-2019-04-17-死者苏生-294f81', ('confirmed',), (), None, ()),
    ('ruling-2019-04-17-旋风', ('open',), (), None, ()),
    ('ruling-2020-01-13-旋风', (), (), None, ()),
    ('ruling-2018-01-01-黑洞', (), (), None, ()),
    ('ruling-2019-06-01-黑洞', ('open',), (), None, ()),
    ('ruling-2021-01-01-王宫的铁壁', (), (), None, ()),
    ('ruling-2019-02-04-神之宣告-84fcad', ('confirmed',), (), None, ()),
    ('ruling-2019-02-04-神之宣告-e34c57', ('open',), (), None, ()),
    ('ruling-2019-01-01-9abfd1', ('open',), (), None, ()),
    ('ruling-2019-01-01-eeb923', ('confirmed',), (), None, ()),
    ('ruling-2019-01-02', ('open',), (), None, ()),
    ('ruling-2022-01-02', (), (), None, ()),
    # overturned: its struck 调整中 does not count
    ('ruling-2019-03-03-王宫的铁壁', ('overturned',), (), 'ruling-2020-03-03', ()),
    ('ruling-2020-03-03', (), ('ruling-2019-03-03-王宫的铁壁',), None, ()),
    ('ruling-2023-01-01-黑洞', (), (), None, ()),
]
#: the permalinks the open questions list, page by page
OPEN = [('index', ['ruling-2019-06-01-黑洞', 'ruling-2019-02-04-神之宣告-e34c57',
                   'ruling-2019-01-02']),
        ('other', ['ruling-2020-02-02-旋风'])]


def summary(app, docname: str = 'index') -> list[tuple]:
    return [(r.anchor, r.status, r.replaces, r.replaced_by, r.sources)
            for r in rulings(app.env)[docname]]


def listed(app, docname: str = 'open') -> list[tuple[str, list[str]]]:
    """``(page, [anchor, …])`` of each page section of the open questions."""
    page = html(app, docname)
    return [(section_id, re.findall(r'href="\w+\.html#(ruling-[^"]+)"><span class="ruling-entry'
                                    r'-permalink"', body))
            for section_id, body in re.findall(
                r'<section class="open-questions-page" id="open-(\w+)">(.*?)</section>', page,
                re.S)]


@pytest.mark.sphinx('html', testroot='statuses')
@pytest.mark.test_params(shared_result='statuses-statuses')
def test_statuses_replacements_and_sources(app):
    app.build()
    assert_no_warnings(app)
    assert summary(app) == INDEX
    assert summary(app, 'other') == [('ruling-2020-02-02-旋风', ('open',), (), None, ())]
    # the changed flag: struck text or a marker (调整中确认 is one here)
    flags = {r.anchor: r.changed for r in rulings(app.env)['index']}
    assert [a for a, *_ in INDEX if flags[a]] == [
        'ruling-2017-03-24-神之宣告', 'ruling-2020-01-13', 'ruling-2015-01-01-旋风',
        'ruling-2016-01-01-旋风', 'ruling-2014-02-02-黑洞', 'ruling-2019-05-01-旋风',
        'ruling-2018-03-03-王宫的铁壁', 'ruling-2019-04-17-死者苏生-294f81',
        'ruling-2019-02-04-神之宣告-84fcad', 'ruling-2019-01-01-eeb923',
        'ruling-2019-03-03-王宫的铁壁']


@pytest.mark.sphinx('html', testroot='statuses')
@pytest.mark.test_params(shared_result='statuses-statuses')
def test_the_first_twin_keeps_the_id_without_its_hash(app):
    """Two rulings of 死者苏生 dated 19/4/17: each gets a hash; the first
    also keeps ``ruling-2019-04-17-死者苏生``, the id a ruling had before a
    twin was written (an editor's round trip: links made to it led to the
    page's top), on the page alone (a card page's copy has no second id)."""
    app.build()
    page = html(app, 'index')
    assert page.count('id="ruling-2019-04-17-死者苏生"') == 1
    assert ('id="ruling-2019-04-17-死者苏生-3d9d79"><span id="ruling-2019-04-17-死者苏生"></span>'
            in page)
    assert not [path.name for path in (app.outdir / 'cards').glob('*.html')
                if 'id="ruling-2019-04-17-死者苏生"' in path.read_text(encoding='utf-8')]


@pytest.mark.sphinx('html', testroot='statuses')
@pytest.mark.test_params(shared_result='statuses-statuses')
def test_badges_links_and_readers_tools_in_html(app):
    app.build()
    page = html(app)
    # an overturned ruling: its badge and the link to the ruling that replaced it; the
    # ruling that replaced it: its badge and the link back; then the ruling ends
    assert ('<span class="ruling">17/3/24</span>'
            '<span class="ruling-badge ruling-badge-overturned">已推翻</span>'
            '<a class="ruling-replaced-by" href="#ruling-2020-01-13">→ 现裁定</a></span>') in page
    assert ('<span class="ruling-line" id="ruling-2020-01-13"> 裁定变更：可以发动。'
            '<span class="ruling">20/1/13</span>'
            '<span class="ruling-badge ruling-badge-changed">裁定变更</span>'
            '<a class="ruling-replaces" href="#ruling-2017-03-24-神之宣告">← 原裁定</a>'
            '</span>') in page
    assert ('<a class="ruling-replaces" href="#ruling-2015-01-01-旋风">← 原裁定</a>'
            '<a class="ruling-replaces" href="#ruling-2016-01-01-旋风">← 原裁定</a>') in page
    # the source badges
    for anchor, badges in [
            ('ruling-2017-03-24-faq19691-旋风', ['faq">数据库 #19691']),
            ('ruling-2019-02-04-faq8000', ['faq">数据库 #8000']),
            ('ruling-2017-12-22', ['wiki">wiki']),
            ('ruling-2016-04-01', ['other">邮件/其他']),
            ('ruling-2017-03-24-2018-01-13-faq19691-faq8000',
             ['faq">数据库 #19691', 'faq">数据库 #8000'])]:
        line = re.search(f'id="{anchor}">(.*?)(?:</div>|<span class="ruling-line")', page)[1]
        assert re.findall(r'<span class="ruling-source ruling-source-(\w+">[^<]+)</span>',
                          line) == badges
    for code, label in [('open', '调整中'), ('confirmed', '调整中确认')]:
        assert f'<span class="ruling-badge ruling-badge-{code}">{label}</span>' in page
    # a ruling with no status, no link: its date ends it
    assert re.search(r'id="ruling-2014-02-03-黑洞">.*?<span class="ruling">14/2/3</span>'
                     r'</(span|div)>', page)
    # no ¶ and no button per ruling: the readers' tools make them; their script
    # once, with its texts
    assert not re.search(r'<button[^>]*class="(?:ruling|reader)-', page)
    assert 'title="链接到此裁定"' not in page
    assert page.count('reader_tools.js') == 1
    script = re.search(r'<script ([^>]*)src="_static/reader_tools\.js\?v=[0-9a-f]{8}"></script>',
                       page)[1]
    assert dict(re.findall(r'(data-[\w-]+)="([^"]*)"', script)) == {
        'data-card-page': '', 'data-card-label': '',  # no card index, no card pages: no §
        'data-copied': '已复制此裁定的链接', 'data-copy': '复制此裁定的链接',
        'data-failed': '无法自动复制，请复制这个链接：', 'data-permalink': '链接到此裁定',
        'data-separators': SEPARATOR_CLASS}
    assert (app.outdir / '_static' / 'reader_tools.js').read_bytes() == \
        (ROOT / '_ext/handbook/publishing/reader_tools.js').read_bytes()
    # every page loads it: the lists show rulings and card names too
    for docname in ('open', 'timeline'):
        assert 'reader_tools.js' in html(app, docname)


@pytest.mark.sphinx('html', testroot='statuses')
@pytest.mark.test_params(shared_result='statuses-statuses')
def test_export_carries_the_status(app):
    app.build()
    data = json.loads((app.outdir / 'rulings.json').read_text(encoding='utf-8'))
    assert data['format'] == 4
    found = [(r['anchor'], r['status'], r['replaces'], r['replaced_by'], r['sources'])
             for r in data['rulings'] if r['page'] == 'index']
    assert found == [(a, list(s), list(rs), rb, [{'kind': k, 'faq': f or None, 'label': None}
                                                  for k, f in src])
                     for a, s, rs, rb, src in INDEX]
    # the FAQ id of a role's address is its reference's, as a date link's or a faq:ID's;
    # its permalink stays the one it had before the id was read (no faq19691 in it)
    by_anchor = {r['anchor']: r for r in data['rulings']}
    assert [ref['faq'] for ref in by_anchor['ruling-2017-03-24-旋风']['references']] == ['19691']


@pytest.mark.sphinx('html', testroot='statuses')
@pytest.mark.test_params(shared_result='statuses-statuses')
def test_open_questions(app):
    app.build()
    assert listed(app) == OPEN
    page = html(app, 'open')
    assert '<p class="open-questions-summary">共 4 条裁定仍在调整中，分布在 2 个页面：</p>' in page
    assert ('<h2><a class="reference internal" href="index.html">裁定的状态</a>（3 条）'
            '<a class="headerlink"') in page
    # each entry: the ruling as on its page, its section, its permalink
    assert ('<li class="ruling-entry open-question"><p class="ruling-entry-text">'
            '「<a class="card-link card-card reference external" href="https://ygocdb.com/card/name/%E9%BB%91%E6%B4%9E"'
            '>黑洞</a>」破坏的场合，'
            '调整中。<span class="ruling">19/6/1</span></p>\n'
            '<p class="ruling-entry-source"><a class="reference internal" href="index.html#待确认">'
            '待确认</a> · <a class="reference internal" href="index.html#ruling-2019-06-01-黑洞">'
            '<span class="ruling-entry-permalink">固定链接</span></a></p>') in page


@pytest.mark.sphinx('html', testroot='statuses', srcdir='statuses-updates')
def test_open_questions_follow_the_pages(app, make_app):
    app.build()

    other = app.srcdir / 'other.rst'
    # the page is read again, its rulings unchanged: the list is not rewritten
    other.write_text(other.read_text(encoding='utf-8') + '\n一段没有裁定的文字。\n',
                     encoding='utf-8')
    _, written = written_by(make_app, app.srcdir)
    assert 'other' in written
    assert 'open' not in written
    # a confirmation of its first card, later on its page: the page leaves the list
    other.write_text(other.read_text(encoding='utf-8') +
                     '\n| 「`旋风`_」另一页的场合，调整中确认。\\ :ruling:`20/2/2`\n',
                     encoding='utf-8')
    second, written = written_by(make_app, app.srcdir)
    assert 'open' in written
    assert listed(second) == OPEN[:1]
    # the last open ruling answered: none left
    index = app.srcdir / 'index.rst'
    text = index.read_text(encoding='utf-8')
    for old, new in [('破坏的场合，调整中。', '破坏的场合，调整中确认。'),
                     ('| 「`神之宣告`_」无效的场合，调整中。', '| 「`神之宣告`_」无效的场合，可以。'),
                     ('丙的场合，调整中。', '丙的场合，调整中确认。')]:
        assert old in text
        text = text.replace(old, new)
    index.write_text(text, encoding='utf-8')
    third, _ = written_by(make_app, app.srcdir)
    assert listed(third) == []
    assert '<p class="open-questions-summary">目前没有仍在调整中的裁定。</p>' in html(third, 'open')
    assert [w for w in warnings(third) if '[app.' not in w] == []


@pytest.mark.sphinx('html', testroot='statuses', srcdir='statuses-current', tags=['current'])
def test_current_edition(app):
    app.build()
    assert_no_warnings(app)
    found = summary(app)
    # the overturned rulings are gone, and every replacement link with them
    assert [a for a, *_ in found] == [a for a, s, *_ in INDEX if s != ('overturned',)]
    assert all(replaces == () and replaced_by is None for _a, _s, replaces, replaced_by, _src
               in found)
    # struck words are gone: corrected in place is no longer marked changed
    assert dict((a, s) for a, s, *_ in found)['ruling-2019-05-01-旋风'] == ()
    page = html(app)
    assert 'ruling-badge-overturned' not in page
    assert 'ruling-replace' not in page
    assert listed(app) == OPEN


@pytest.mark.sphinx('epub', testroot='statuses', freshenv=True)
def test_epub_has_badges_but_no_button(app):
    app.build()
    page = (app.outdir / 'index.xhtml').read_text(encoding='utf-8')
    assert '<span class="ruling-badge ruling-badge-overturned">已推翻</span>' in page
    assert '<button' not in page
    assert 'reader_tools.js' not in page
    assert not (app.outdir / '_static' / 'reader_tools.js').exists()


@pytest.mark.sphinx('latex', testroot='statuses', freshenv=True)
def test_latex_marks_ruling_lines(app):
    app.build()
    tex = next(app.outdir.glob('*.tex')).read_text(encoding='utf-8')
    assert r'\DUrole{ruling-line}{' in tex


def test_open_questions_must_end_the_page(make_app, rootdir, tmp_path):
    srcdir = tmp_path / 'statuses-misplaced'
    shutil.copytree(rootdir / 'test-statuses', srcdir)
    (srcdir / 'open.rst').write_text('待确认的裁定\n============\n\n.. open-questions::\n\n'
                                     '之后的段落。\n', encoding='utf-8')
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert warnings(app) == [
        'open.rst:4: WARNING: the open questions add one section per page, so they must be the '
        'last content of a section; move the open-questions directive to the end of the page '
        '[handbook.open-questions]']


# -- the rules, on their own ---------------------------------------------------------------


def line_of(*children: nodes.Node) -> ruling_line:
    line = ruling_line('', '', classes=['ruling-line'])
    line.extend(children)
    return line


@pytest.mark.parametrize(('children', 'markers', 'status'), [
    ([nodes.Text('可以发动。')], [], ()),
    ([nodes.Text('裁定变更：可以发动。')], [], ('changed',)),
    ([nodes.Text('裁定變更：可以發動。')], [], ('changed',)),  # a Traditional build's text
    ([nodes.Text('是否可以发动，调整中。')], [], ('open',)),
    ([nodes.Text('是否可以發動，調整中。')], [], ('open',)),
    ([nodes.Text('调整中确认。')], [], ('confirmed',)),
    ([nodes.Text('調整中確認。')], [], ('confirmed',)),
    ([nodes.Text('甲调整中确认，乙调整中。')], [], ('open', 'confirmed')),
    ([nodes.Text('裁定变更：调整中。')], [], ('changed', 'open')),
    # the handbook's own markers: another word means changed, a fixed word its status
    ([nodes.Text('规则变更：可以发动。')], ['规则变更'], ('changed',)),
    ([nodes.Text('规则变更：可以发动。')], [], ()),
    ([nodes.Text('调整中确认。')], ['调整中确认'], ('confirmed',)),
    ([nodes.Text('调整中。')], ['调整中'], ('open',)),
    # struck: some words (changed), every word (overturned, nothing else read)
    ([nodes.Text('效果'), strike('', '不能', classes=['strike']), nodes.Text('可以发动。')], [],
     ('changed',)),
    ([strike('', '是否可以发动，调整中。', classes=['strike'])], [], ('overturned',)),
    ([nodes.Text('「'), strike('', '裁定变更', classes=['strike']), nodes.Text('」调整中。')], [],
     ('changed', 'open')),
])
def test_read_status(children, markers, status):
    line = line_of(*children, ruling_node('17/3/24', '17/3/24', None, None))
    assert statuses.read_status(line, markers) == status


class Config:
    handbook_faq_url = ('https://www.db.yugioh-card.com/yugiohdb/faq_search.action'
                        '?ope=5&fid={id}&request_locale=ja')


FAQ = 'https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid=19691'


@pytest.mark.parametrize(('references', 'sources'), [
    ([], ()),
    ([Reference('17/3/24', '2017-03-24', None, None)], ()),  # no URL: no badge
    ([Reference('17/3/24', '2017-03-24', '19691', FAQ)], (('faq', '19691'),)),
    ([Reference('17/3/24', '2017-03-24', None, FAQ)], (('faq', '19691'),)),
    ([Reference('17/3/24', '2017-03-24', None, 'https://www.db.yugioh-card.com/yugiohdb/')],
     (('faq', ''),)),
    ([Reference('17/3/24', '2017-03-24', None,
                'https://yugioh-wiki.net/index.php?cmd=read&page=FAQ')], (('wiki', ''),)),
    ([Reference('17/3/24', '2017-03-24', None, 'https://example.org/faq/19691'),
      Reference('17/3/24', '2017-03-24', None, 'https://example.org/faq/19691'),
      Reference('17/3/24', '2017-03-24', '19691', FAQ)], (('other', ''), ('faq', '19691'))),
])
def test_read_sources(references, sources):
    assert statuses.read_sources(references, Config()) == sources


@pytest.mark.parametrize(('kind', 'faq', 'label'), [
    ('faq', '19691', '数据库 #19691'), ('faq', '', '数据库'), ('wiki', '', 'wiki'),
    ('other', '', '邮件/其他')])
def test_source_labels(kind, faq, label):
    assert statuses.source_label(kind, faq) == label


def ruling(index: int, *, block: int = 0, section: str = 's', cards=('旋风',),
           date: str = '2019-04-17', status=()) -> Ruling:
    return Ruling('p', index, f'r{index}', section, '', (Reference('', date, None, None),),
                  tuple((card, card) for card in cards), '', False, False, status=status,
                  block=block)


@pytest.mark.parametrize(('c', 'same_line', 'answered'), [
    (ruling(2, block=2, status=('confirmed',)), False, True),  # later, confirmed
    (ruling(0, block=0, status=('confirmed',)), False, False),  # confirmed, but before it
    (ruling(2, block=2, date='2020-01-13'), False, True),  # a later date
    (ruling(0, block=0, date='2020-01-13'), False, True),  # a later date, before it
    (ruling(2, block=2, date='2018-01-01'), False, False),  # an older date
    (ruling(2, block=2, date='2020-01-13', cards=('黑洞',)), False, False),  # another card
    (ruling(2, block=2, date='2020-01-13', cards=('黑洞', '旋风')), False, False),  # not first
    (ruling(2, block=2, date='2020-01-13', section='t'), False, False),  # another section
    (ruling(2, block=1, date='2020-01-13', cards=('黑洞',)), True, True),  # its own line
])
def test_what_answers_an_open_ruling(c, same_line, answered):
    r = ruling(1, block=1, status=('open',))
    assert answers(c, r, same_line) is answered


def test_a_ruling_naming_no_card_is_answered_on_its_line_only():
    r = ruling(1, block=1, cards=(), status=('open',))
    assert answers(ruling(2, block=2, cards=(), date='2020-01-13'), r, False) is False
    assert answers(ruling(2, block=1, cards=(), status=('confirmed',)), r, True) is True


# -- the handbook's own pages ----------------------------------------------------------------


def test_the_handbook_shows_its_statuses(handbook_build):
    """Our pages have one dated ruling still 调整中 (face-down-banish.rst), and no
    struck text and no 裁定变更: the lines of 调整中 without a date are no rulings."""
    data = json.loads((handbook_build.html / 'rulings.json').read_text(encoding='utf-8'))
    assert {f"{r['page']}#{r['anchor']}": r['status'] for r in data['rulings']
            if r['status'] or r['replaces'] or r['replaced_by']} == {
        'face-down-banish#ruling-2019-04-17-死者苏生': ['open']}
    page = (handbook_build.html / 'face-down-banish.html').read_text(encoding='utf-8')
    assert re.search('的效果影响，调整中。<span class="ruling">19/4/17</span>'
                     '<span class="ruling-badge ruling-badge-open">调整中</span></(span|div)>',
                     page)
    assert page.count('<span class="ruling-badge ') == 1
    listing = (handbook_build.html / 'open-questions.html').read_text(encoding='utf-8')
    assert re.findall(r'href="([\w-]+\.html#ruling-[^"]+)"><span class="ruling-entry-permalink"',
                      listing) == ['face-down-banish.html#ruling-2019-04-17-死者苏生']


def test_the_word_a_listing_puts_before_a_ruling():
    """The timeline, 最近更新 and its feed show a ruling's text alone: an
    overturned or outdated one must say so there, before it changes."""
    from handbook.rulings.statuses import flag

    from types import SimpleNamespace

    assert [flag(SimpleNamespace(status=status, changed=changed)) for status, changed in [
        (('changed', 'overturned'), True), (('changed', 'superseded'), True),
        (('superseded', 'overturned'), False), (('changed',), True), (('confirmed',), True),
        (('open',), False), ((), False)]] == [
        '已推翻', '已过时', '已推翻', '裁定已变更', '裁定已变更', None, None]
