"""Ruling lines: what one ruling is, its permalink, its record; the strike role."""

from __future__ import annotations

import re

import pytest

from helpers import assert_no_warnings, html, warnings
from handbook.rulings.lines import rulings

#: a button of ours in a page (the readers' tools add the copy button in the browser)
HANDBOOK_BUTTON = re.compile(r'<button[^>]*class="(?:ruling|reader)-')

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
    ('ruling-2017-03-24-旋风-a0cfac', '「旋风」之后还有文字。续。', ['17/3/24'], False, False),
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


@pytest.mark.sphinx('html', testroot='ruling-lines')
@pytest.mark.test_params(shared_result='ruling_lines-ruling-lines')
def test_one_ruling_per_date(app):
    app.build()
    assert_no_warnings(app)
    assert summary(app) == INDEX
    assert summary(app, 'other') == [
        ('ruling-2017-12-22', '另一页，详见标签。', ['17/12/22'], False, False)]
    assert 'timeline' not in rulings(app.env)


@pytest.mark.sphinx('html', testroot='ruling-lines')
@pytest.mark.test_params(shared_result='ruling_lines-ruling-lines')
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


@pytest.mark.sphinx('html', testroot='ruling-lines')
@pytest.mark.test_params(shared_result='ruling_lines-ruling-lines')
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
    assert not HANDBOOK_BUTTON.search(page) and 'title="链接到此裁定"' not in page
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


# -- whole sentences, on the real handbook (issue 31) ---------------------------------

#: the rulings of the handbook whose sentence has a date in its middle: each is one
#: ruling with every date of the sentence (anchor: how many dates)
MID_SENTENCE = {
    ('effect-processing', 'ruling-2017-03-24-2016-11-26-光与暗之龙'): 2,
    ('effect-processing', 'ruling-2018-11-12-黑色花园'): 3,
    ('effect-processing', 'ruling-2017-03-24-狱火机提耶拉'): 1,
    ('effect-processing', 'ruling-2017-03-24-升阶魔法-七皇之剑'): 1,
    ('effect-processing', 'ruling-2021-11-20-命运英雄冲刺人'): 1,
    ('effect-processing', 'ruling-2021-04-28-混沌no-39希望皇霍普雷胜光'): 1,
    ('effect-processing', 'ruling-2017-03-24-元素英雄绝对零度侠'): 1,
    ('effect-processing', 'ruling-2020-04-01-强制脱出装置'): 5,
    ('effect-processing', 'ruling-2025-03-24-星辰法宫狮子宝瓶龙魔'): 1,
    ('effect-types', 'ruling-2017-03-24-地缚神'): 2,
    ('effect-types', 'ruling-2017-03-24-2017-09-08-真魔兽加泽特'): 2,
    ('face-down-banish', 'ruling-2017-03-24-bdab30'): 1,
    ('face-down-banish', 'ruling-2016-11-10-2016-10-07-十二兽的会局'): 3,
    ('face-down-banish', 'ruling-2015-02-13-2014-07-31-2016-10-13-2017-02-02-2015-07-08-'
                         '2016-01-08-2014-09-13-2015-12-18-2016-10-07-2014-11-14-2016-05-13-'
                         '电子龙无限'): 13,
    ('negation', 'ruling-2020-06-04-电子龙新星'): 1,
    ('negation', 'ruling-2017-10-01-虹之古代都市'): 1,
}


def handbook_lines(build) -> dict[tuple[str, str], tuple]:
    """``(docname, anchor) -> (ruling line, its index among its block's
    rulings, how many its block has)`` of every ruling of the built handbook."""
    import pickle

    from handbook.nodes import ruling_line

    found = {}
    for path in sorted(build.doctrees.glob('*.doctree')):
        doctree = pickle.loads(path.read_bytes())
        for line in doctree.findall(ruling_line):
            siblings = [n for n in line.parent.children if isinstance(n, ruling_line)]
            found[path.stem, line['ids'][0]] = (line, siblings.index(line), len(siblings))
    return found


def test_a_sentence_with_a_date_in_its_middle_is_one_ruling(handbook_build):
    from handbook.nodes import is_reference, references_in
    from handbook.rulings.sentences import ends_sentence

    lines = handbook_lines(handbook_build)
    for where, count in MID_SENTENCE.items():
        line, at, of = lines[where]
        assert len(list(references_in(line))) == count, where
        # it ends where its sentence does: at an end of a sentence, or its line's end
        text = ''.join(n.astext() for n in line.children if not is_reference(n))
        assert at == of - 1 or ends_sentence(text), where


def test_no_ruling_of_the_handbook_is_a_fragment(handbook_build):
    """No ruling starts with a continuation (，、；和也等但而) unless its line
    does, and none ends mid-sentence unless its line does."""
    from handbook.nodes import is_reference
    from handbook.rulings.sentences import ends_sentence

    lines = handbook_lines(handbook_build)
    assert len(lines) > 400
    fragments = []
    for where, (line, at, of) in lines.items():
        words = [n for n in line.children if not is_reference(n) and n.astext().strip()]
        text = ''.join(n.astext() for n in words).strip()
        if at > 0 and text[:1] in '，、；和也等但而':
            fragments.append(('starts', where, text[:20]))
        last_word = words[-1].astext() if words else ''
        if at < of - 1 and not ends_sentence(last_word):
            fragments.append(('ends', where, text[-20:]))
    assert fragments == []
