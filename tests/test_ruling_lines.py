"""Ruling lines: what one ruling is, its permalink, its record; the strike role."""

from __future__ import annotations

import re

import pytest

from helpers import assert_no_warnings, html, warnings
from handbook.rulings.lines import rulings

#: (anchor, plain text, dates as written, changed, struck) of test-ruling-lines/index.rst
INDEX = [
    ('ruling-2017-03-24-旋风-05ea71', '「旋风」的效果。', ['17/3/24'], False, False),
    # three rulings in one line
    ('ruling-2017-12-22-旋风', '「旋风」甲。', ['17/12/22'], False, False),
    ('ruling-2017-07-28-神之宣告', '「神之宣告」乙。', ['17/7/28'], False, False),
    ('ruling-2018-01-13-faq7000-王宫的铁壁', '「王宫的铁壁」丙。', ['18/1/13'], False, False),
    # two dates, one ruling
    ('ruling-2014-03-21', '两个回答的同一裁定。', ['14/3/21', '14/3/21'], False, False),
    # text after the last date continues the ruling
    ('ruling-2017-03-24-旋风-a0cfac', '「旋风」之后还有文字。 续。', ['17/3/24'], False, False),
    # struck text, then the ruling that replaced it
    ('ruling-2017-03-24-神之宣告', '「神之宣告」不能发动。', ['17/3/24'], True, True),
    ('ruling-2020-01-13', '裁定变更：可以发动。', ['20/1/13'], True, False),
    ('ruling-2019-02-04', '调整中确认。', ['19/2/4'], True, False),
    # a legacy date link: the FAQ id comes from its URL
    ('ruling-2019-02-04-faq19691', '旧式链接。', ['19/2/4'], False, False),
    # a list item's paragraph; a paragraph with the date in the middle
    ('ruling-2017-03-24-旋风-07ad83', '列表项，见第二节。「旋风」', ['17/3/24'], False, False),
    ('ruling-2016-11-26-旋风', '段落「旋风」中间的日期。', ['16/11/26'], False, False),
]


def summary(app, docname: str = 'index') -> list[tuple]:
    return [(r.anchor, r.text, [ref.text for ref in r.references], r.changed, r.struck)
            for r in rulings(app.env)[docname]]


@pytest.mark.sphinx('html', testroot='ruling-lines', freshenv=True)
def test_one_ruling_per_date(app):
    app.build()
    assert_no_warnings(app)
    assert summary(app) == INDEX
    assert summary(app, 'other') == [
        ('ruling-2017-12-22', '另一页，详见标签。', ['17/12/22'], False, False)]
    assert 'timeline' not in rulings(app.env)


@pytest.mark.sphinx('html', testroot='ruling-lines', freshenv=True)
def test_record_of_a_ruling(app):
    app.build()
    records = {r.anchor: r for r in rulings(app.env)['index']}
    legacy = records['ruling-2019-02-04-faq19691']
    assert [(ref.date, ref.faq) for ref in legacy.references] == [('2019-02-04', '19691')]
    assert (legacy.section_id, legacy.section_title) == ('rulings', 'Rulings')
    item = records['ruling-2017-03-24-旋风-07ad83']
    assert (item.section_id, item.section_title) == ('标签', '第二节')
    assert item.cards == (('旋风', '旋风'),)
    faq = records['ruling-2018-01-13-faq7000-王宫的铁壁']
    assert faq.references[0].url == ('https://www.db.yugioh-card.com/yugiohdb/faq_search.action'
                                      '?ope=5&fid=7000&request_locale=ja')
    # each reference node knows its ruling's anchor
    doctree = app.env.get_doctree('index')
    anchors = [n['ruling_anchor'] for n in doctree.findall(
        lambda n: 'ruling_text' in getattr(n, 'attributes', {}))]
    assert anchors == [a for a, _, dates, _, _ in INDEX for _ in dates]


@pytest.mark.sphinx('html', testroot='ruling-lines', freshenv=True)
def test_permalink_html(app):
    app.build()
    page = html(app)
    assert ('<span class="ruling-line" id="ruling-2017-12-22-旋风">「<a class="card-link') in page
    # after its date the ruling ends: no ¶, no button (the readers' tools make them)
    assert ('<span class="ruling">17/12/22</span></span>'
            '<span class="ruling-line" id="ruling-2017-07-28-神之宣告"> 「') in page
    assert len(re.findall(r'class="(?:line )?ruling-line" id="', page)) == len(INDEX)
    # a ruling that is a line on its own is the line itself
    assert '<div class="line ruling-line" id="ruling-2014-03-21">' in page
    assert 'ruling-copy' not in page and 'title="链接到此裁定"' not in page
    # the strike role
    assert '」<del class="strike">不能发动。</del><span class="ruling">17/3/24</span>' in page
    # statuses, the replacement links and the source badges (tests/test_statuses.py)
    assert ('<span class="ruling">17/3/24</span>'
            '<span class="ruling-badge ruling-badge-overturned">已推翻</span>'
            '<a class="ruling-replaced-by" href="#ruling-2020-01-13">→ 现裁定</a></span>') in page
    assert re.search('>19/2/4</a><span class="ruling-source ruling-source-faq">数据库 #19691</span>'
                     '</(span|div)>', page)


@pytest.mark.sphinx('html', testroot='ruling-lines', srcdir='ruling-lines-edits')
def test_permalinks_survive_edits_elsewhere(app, make_app):
    app.build()
    before = {r.anchor: r.text for r in rulings(app.env)['index']}
    index = app.srcdir / 'index.rst'
    text = index.read_text(encoding='utf-8')
    text = text.replace('| 「`旋风`_」的效果。',
                        '| 新插入的一条。\\ :ruling:`21/5/5`\n'
                        '| 新插入的「`旋风`_」裁定。\\ :ruling:`17/3/24`\n'
                        '| 「`旋风`_」的效果。')
    text = text.replace('| 调整中确认。', '| 调整中确认，文字改了。')
    text = text.replace('甲。', '甲，文字也改了。')
    text = text.replace('「`王宫的铁壁`_」丙', '「`王宮的鐵壁`_」丙')  # the card's alias
    index.write_text(text, encoding='utf-8')
    again = make_app('html', srcdir=app.srcdir)
    again.build()
    after = {r.anchor: r.text for r in rulings(again.env)['index']}
    # every ruling keeps its anchor, the edited ones too
    assert set(before) <= set(after)
    assert after['ruling-2019-02-04'] == '调整中确认，文字改了。'
    assert after['ruling-2017-12-22-旋风'] == '「旋风」甲，文字也改了。'
    assert after['ruling-2018-01-13-faq7000-王宫的铁壁'] == '「王宮的鐵壁」丙。'
    assert {a: t for a, t in after.items() if a not in before} == {
        'ruling-2021-05-05': '新插入的一条。',
        'ruling-2017-03-24-旋风-5d2312': '新插入的「旋风」裁定。'}
    assert [w for w in warnings(again) if '[app.' not in w] == []


@pytest.mark.sphinx('latex', testroot='ruling-lines', freshenv=True)
def test_permalink_target_in_latex(app):
    app.build()
    tex = next(app.outdir.glob('*.tex')).read_text(encoding='utf-8')
    # the PDF can link to a ruling: the timeline's links have a target
    assert (r'\phantomsection\label{\detokenize{index:ruling-2017-12-22-_u65cb_u98ce}}'
            r'\DUrole{ruling-line}{') in tex
    assert r'\hyperref[\detokenize{index:ruling-2017-12-22-_u65cb_u98ce}]' in tex
