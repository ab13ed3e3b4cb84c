"""Every ruling of a real handbook is a ruling (issue 31): yearly FAQ pages
dated by their day sections, roles a page declares itself, whole sentences.

The root ``test-yearly-faq`` has the shape existing handbooks keep their
yearly FAQ pages in (see its pages); every sentence is a ruling of the seed
pages.  The root ``test-yearly-faq-listings`` is one such page with the lists
made from its rulings: the timeline, 最近更新 and its feed, the card index."""

from __future__ import annotations

import json
import posixpath
import re
import shutil
import xml.etree.ElementTree as ET

import pytest

from helpers import assert_no_warnings, html, warnings, written_by
from handbook.publishing.reader_tools import STYLES
from handbook.rulings import days, same
from handbook.rulings.lines import rulings

FAQ = 'https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&fid=19691&request_locale=ja'
WIKI = 'https://yugioh-wiki.net/index.php?cmd=read&page=FAQ'

#: (page, anchor, date, dates as written, status, sources, cards, text) of every ruling
EXPORTED = [
    ('chapter', 'ruling-2017-03-24-地缚神', '2017-03-24', ['17/3/24', '17/3/24'], [], [],
     ['地缚神', '罪'],
     '把自己的场地魔法送去墓地，发动新的场地魔法时，如果对方没有场地魔法，在送去墓地的时点「地缚神」'
     '怪兽和「罪」怪兽立即被自身效果破坏。'),
    ('chapter', 'ruling-2017-12-22-2017-07-28-淘气仙星福克希维琪', '2017-12-22',
     ['17/12/22', '17/7/28'], [], [], ['淘气仙星·福克希维琪', '淘气仙星的灯光舞台', '噩梦之拷问室'],
     '「淘气仙星·福克希维琪」造成效果伤害后让「淘气仙星的灯光舞台」也造成效果伤害的场合，也是同时造成的'
     '伤害。但本身造成了2次伤害，「噩梦之拷问室」的效果会连锁发动2次。'),
    ('faq/2021', 'ruling-2021-01-05-倍倍伤害', '2021-01-05', ['21/1/5'], [],
     [{'kind': 'mail', 'faq': None, 'label': None}], ['倍倍伤害'],
     '「倍倍伤害」发动后，受到战斗伤害和造成效果伤害是同时适用的，如果自己基本分变成0，对方基本分也会变成0'
     '的状况，结果平局。'),
    ('faq/2021', 'ruling-2021-01-05-死者苏生', '2021-01-05', ['21/1/5'], ['overturned'],
     [{'kind': 'mail', 'faq': None, 'label': None}], ['死者苏生', '来自墓场的呼声'],
     '「死者苏生」特殊召唤的怪兽被一时除外的场合，是否还受「来自墓场的呼声」的效果影响，调整中。'),
    ('faq/2021', 'ruling-2021-01-05-2021-01-06-手札抹杀', '2021-01-05', ['21/1/5', '21/1/6'], [],
     [{'kind': 'wiki', 'faq': None, 'label': None}], ['手札抹杀'],
     '「手札抹杀」的效果处理时，双方卡组数量都小于要抽的数量的场合，决斗平局。'),
    ('faq/2021', 'ruling-2021-01-05-2021-01-06-faq19691-神之宣告', '2021-01-05',
     ['21/1/5', '21/1/6'], [], [{'kind': 'faq', 'faq': '19691', 'label': None}],
     ['神之宣告', '破坏干扰'],
     '反转召唤和二重怪兽再1次召唤之际，发动「神之宣告」的场合，是破坏场上怪兽的效果，可以连锁发动「破坏干扰」。'),
    ('faq/2021', 'ruling-2021-02-09-试胆竞速', '2021-02-09', ['21/2/9'], ['superseded'],
     [{'kind': 'mail', 'faq': None, 'label': None}], ['试胆竞速', '火炎地狱'],
     '「试胆竞速」的效果适用中，自己基本分7500，对方基本分8000的状态，自己发动「火炎地狱」，给对方造成伤害'
     '和自己受到伤害同时进行，结果对方基本分7000，自己因「试胆竞速」的效果不受伤害。'),
    ('faq/2019', 'ruling-2019-04-17-死者苏生', '2019-04-17', ['19/4/17'], ['open'],
     [{'kind': 'faq', 'faq': None, 'label': None}], ['死者苏生', '来自墓场的呼声'],
     '「死者苏生」特殊召唤的怪兽被一时除外的场合，是否还受「来自墓场的呼声」的效果影响，调整中。'),
    ('faq/2019', 'ruling-2019-04-17', '2019-04-17', ['19/4/17'], ['open'],
     [{'kind': 'faq', 'faq': None, 'label': None}], [],
     '那个效果处理时，要移动『为让这张卡·这个效果发动而除外的怪兽』『除外的那只怪兽』的场合，调整中。'),
    ('faq/2019', 'ruling-2019-05-03-异色眼绝零龙', '2019-05-03', ['19/5/3'], [], [],
     ['异色眼绝零龙', '月之书', '神之宣告'],
     'X召唤的「异色眼绝零龙」因「月之书」的效果变成里侧表示，之后反转召唤被「神之宣告」的效果无效的场合，'
     '也不能发动②效果。'),
]


def edited_root(rootdir, tmp_path, name: str, edits: dict[str, list[tuple[str, str]]]):
    """A copy of the root in ``tmp_path / name``, edited (:func:`edit_pages`);
    the copy's folder."""
    srcdir = tmp_path / name
    shutil.copytree(rootdir / 'test-yearly-faq', srcdir)
    edit_pages(srcdir, edits)
    return srcdir


def edit_pages(srcdir, edits: dict[str, list[tuple[str, str]]]) -> None:
    """Each page of *edits* (relative to *srcdir*) with each ``(old, new)``
    replaced where *old* is first (every *old* must be there)."""
    for page, changes in edits.items():
        path = srcdir / page
        text = path.read_text(encoding='utf-8')
        for old, new in changes:
            assert old in text, (page, old)
            text = text.replace(old, new, 1)
        path.write_text(text, encoding='utf-8')


def notes(app, srcdir) -> list[str]:
    """The notes a build of the copy *srcdir* printed, each at its path in it."""
    return [line.replace(f'{srcdir}/', '') for line in app.status.getvalue().splitlines()
            if ' note: ' in line]


def rebuilt(make_app, srcdir, edits: dict[str, list[tuple[str, str]]], **kwargs):
    """The copy *srcdir* edited (:func:`edit_pages`), then built again (an
    incremental build of the last one's environment); the application."""
    edit_pages(srcdir, edits)
    app = make_app('html', srcdir=srcdir, **kwargs)
    app.build()
    return app


def warning_free_build(make_app, srcdir):
    """A build of the copy *srcdir* that reports no warning (notes it may)."""
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert warnings(app) == []
    return app


def quiet_build(make_app, srcdir):
    """A build of the copy *srcdir* that reports nothing: no warning, no note."""
    app = warning_free_build(make_app, srcdir)
    assert ' note: ' not in app.status.getvalue()
    return app


def exported(app) -> list[tuple]:
    data = json.loads((app.outdir / 'rulings.json').read_text(encoding='utf-8'))
    assert data['format'] == 4
    return [(r['page'], r['anchor'], r['date'], [ref['written'] for ref in r['references']],
             r['status'], r['sources'], r['cards'], r['text']) for r in data['rulings']]


@pytest.mark.sphinx('html', testroot='yearly-faq')
@pytest.mark.test_params(shared_result='yearly_faq-yearly-faq')
def test_every_line_of_a_day_is_a_ruling_dated_by_its_day(app):
    app.build()
    assert_no_warnings(app)  # no report under -W: the page's role, the wiki, the headers
    assert exported(app) == EXPORTED
    data = json.loads((app.outdir / 'rulings.json').read_text(encoding='utf-8'))
    by_anchor = {r['anchor']: r for r in data['rulings']}
    # the day is the ruling's date and its first reference; the line's link is kept
    faq = by_anchor['ruling-2021-01-05-2021-01-06-faq19691-神之宣告']
    assert faq['references'] == [
        {'written': '21/1/5', 'date': '2021-01-05', 'faq': None, 'url': None, 'section': True},
        {'written': '21/1/6', 'date': '2021-01-06', 'faq': '19691', 'url': FAQ, 'section': False}]
    assert by_anchor['ruling-2021-02-09-试胆竞速']['superseded_by'] == {
        'label': '同时处理', 'url': 'chapter.html#同时处理'}
    assert by_anchor['ruling-2021-01-05-倍倍伤害']['superseded_by'] is None


@pytest.mark.sphinx('html', testroot='yearly-faq')
@pytest.mark.test_params(shared_result='yearly_faq-yearly-faq')
def test_each_card_of_a_sentence_is_dated_by_the_date_after_its_name(app):
    """``「淘气仙星·福克希维琪」…17/12/22 但…「噩梦之拷问室」…17/7/28``: one
    ruling, dated 17/12/22 (its newest), whose second card is dated 17/7/28
    on its card page; the page's preview said 17/12/22 for both."""
    app.build()
    described = {}
    for name in ('淘气仙星福克希维琪', '噩梦之拷问室', '淘气仙星的灯光舞台'):
        page = (app.outdir / 'cards' / f'{name}.html').read_text(encoding='utf-8')
        described[name] = re.search(r'<meta name="description" content="[^"]*最新（([^）]*)）',
                                    page)[1]
    assert described == {'淘气仙星福克希维琪': '17/12/22', '噩梦之拷问室': '17/7/28',
                         '淘气仙星的灯光舞台': '17/12/22'}


def test_dates_written_together_date_every_card_alike(make_app, rootdir, tmp_path):
    """The same sentence with both dates after its first sentence
    (``…伤害。17/12/22 17/7/28 但…「噩梦之拷问室」…。``): no date follows the
    second card's name, the two dates are one group, and every card is
    dated 17/12/22, the ruling's newest (a review: the cards were dated
    17/7/28, the group's first, then its oldest)."""
    srcdir = edited_root(rootdir, tmp_path, 'together', {'chapter.rst': [
        ('伤害。\\ :ruling:`17/12/22` 但', '伤害。\\ :ruling:`17/12/22` \\ :ruling:`17/7/28` 但'),
        ('连锁发动2次。\\ :ruling:`17/7/28`', '连锁发动2次。')]})
    app = warning_free_build(make_app, srcdir)
    described = {}
    for name in ('淘气仙星福克希维琪', '噩梦之拷问室'):
        page = (app.outdir / 'cards' / f'{name}.html').read_text(encoding='utf-8')
        described[name] = re.search(r'<meta name="description" content="[^"]*最新（([^）]*)）',
                                    page)[1]
    assert described == {'淘气仙星福克希维琪': '17/12/22', '噩梦之拷问室': '17/12/22'}


@pytest.mark.sphinx('html', testroot='yearly-faq')
@pytest.mark.test_params(shared_result='yearly_faq-yearly-faq')
def test_a_yearly_faq_page_in_html(app):
    app.build()
    page = html(app, 'faq/2021')
    # its conf.py links no styles: the extensions' own, once (badges apart from the text)
    assert re.findall(r'href="([^"]*handbook\.css)[?"]', page) == ['../_static/handbook.css']
    assert (app.outdir / '_static' / 'handbook.css').read_bytes() == STYLES.read_bytes()
    # the headers are not rulings; each line is one.  Its source badge only
    # where it says more than the header above it (the FAQ id): 邮件 under
    # 邮件：, wiki under wiki: would be repeated on thousands of lines
    assert len(re.findall(r'class="[^"]*\bruling-line\b', page)) == 5
    assert re.search(r'<div class="line">邮件：</div>', page)
    assert re.search(r'<div class="line ruling-line" id="ruling-2021-01-05-倍倍伤害">[^\n]*'
                     r'结果平局。</div>', page)
    assert re.findall(r'<span class="ruling-source ruling-source-\w+">[^<]*</span>', page) == [
        '<span class="ruling-source ruling-source-faq">数据库 #19691</span>']
    # the rulings keep their sources (rulings.json lists them)
    sources = {anchor: listed for _page, anchor, *_, listed, _cards, _text in exported(app)}
    assert [s['kind'] for s in sources['ruling-2021-01-05-倍倍伤害']] == ['mail']
    # the whole struck line: the toolchain's strike role, its card names linked
    struck = re.search(r'<div class="line ruling-line ruling-struck" id="ruling-2021-01-05-死者苏生">'
                       r'<del class="strike">(.*?)</del>', page)
    assert struck and struck[1].count('class="card-link card-card') == 2
    assert '<span class="ruling-badge ruling-badge-overturned">已推翻</span>' in page
    # the outdated day: its rulings say so, with the link the note gives
    assert ('<span class="ruling-badge ruling-badge-superseded">已过时</span>'
            '<a class="ruling-superseded-by" href="../chapter.html#同时处理">→ 最新调整</a>') in page


@pytest.mark.sphinx('html', testroot='yearly-faq')
@pytest.mark.test_params(shared_result='yearly_faq-yearly-faq')
def test_card_pages_timeline_and_open_questions_follow(app):
    app.build()
    # a card page: the ruling that holds, the overturned one folded
    page = html(app, 'cards/死者苏生')
    standing, _, folded = page.partition('<details class="card-rulings-overturned">')
    assert 'href="../faq/2019.html#ruling-2019-04-17-死者苏生"' in standing
    assert 'ruling-2021-01-05-死者苏生' not in standing
    assert 'href="../faq/2021.html#ruling-2021-01-05-死者苏生"' in folded
    assert '已被推翻或已过时的裁定（1）' in folded
    # the superseded ruling is folded too
    page = html(app, 'cards/试胆竞速')
    standing, _, folded = page.partition('<details class="card-rulings-overturned">')
    assert 'ruling-2021-02-09-试胆竞速' in folded and 'ruling-2021-02-09-试胆竞速' not in standing
    # 已过时, and the link to what supersedes it, as on its day
    assert ('<span class="ruling-status ruling-status-superseded">已过时</span> '
            '<a class="ruling-superseded-by" href="../chapter.html#同时处理">→ 最新调整</a>') in folded
    # each ruling's source, as on its day: the database with its FAQ id, wiki, 邮件
    assert '21/1/6</a> <span class="ruling-source ruling-source-faq">数据库 #19691</span>' in html(
        app, 'cards/神之宣告')
    assert '<span class="ruling-source ruling-source-wiki">wiki</span>' in html(app, 'cards/手札抹杀')
    # the day's date, which the line does not write, before where the ruling is (an
    # editor's round trip: the day was told by its title alone, as typed: 2021 › １/２０);
    # a ruling whose date is on its line has none
    assert ('<p class="card-ruling-source"><span class="card-ruling-day">21/1/5</span> · '
            '<a href="../faq/2021.html">2021</a> › <a href="../faq/2021.html#1-5">1/5</a>'
            ) in html(app, 'cards/倍倍伤害')
    assert '<p class="card-ruling-source"><a href="../chapter.html">' in html(app, 'cards/罪')
    # a card whose only ruling is folded is not said to have none, nor is its only
    # ruling previewed as current
    gone = '没有现行的裁定提到「火炎地狱」：提到它的 1 条裁定都已被推翻或已过时。'
    assert gone in html(app, 'cards/火炎地狱')
    assert f'<meta name="description" content="{gone}"' in html(app, 'cards/火炎地狱')
    # the open questions: the two of 2019, not the struck (answered) one of 2021
    page = html(app, 'open-questions')
    assert re.findall(r'href="faq/\d+.html#(ruling-[^"]+)"', page) == [
        'ruling-2019-04-17-死者苏生', 'ruling-2019-04-17']
    # with the day's date, which the line does not write (a reader's round trip: 4/17 alone)
    assert page.count('<p class="ruling-entry-source"><span class="ruling-entry-day">19/4/17'
                      '</span> · <a class="reference internal" href="faq/2019.html#') == 2
    # newest first, by the ruling's date: the day's
    assert [(r.date, r.anchor) for r in sorted(
        (r for rs in rulings(app.env).values() for r in rs),
        key=lambda r: r.date, reverse=True)][:1] == [('2021-02-09', 'ruling-2021-02-09-试胆竞速')]


@pytest.mark.sphinx('html', testroot='yearly-faq')
@pytest.mark.test_params(shared_result='yearly_faq-yearly-faq')
def test_the_search_finds_the_rulings_of_a_day(app):
    from handbook.search.rulings_index import Index

    app.build()
    index = Index(app, app.builder)
    places = {r.anchor: group for group in index.rulings for r in group}
    assert set(places) == {r[1] for r in EXPORTED}
    # newest first, by the ruling's date (its day's)
    assert [group[0].anchor for group in index.rulings][:2] == [
        'ruling-2021-02-09-试胆竞速', 'ruling-2021-01-05-倍倍伤害']
    # a day's date is searched as written and as an ISO date
    entry, haystack = index.ruling_entry(places['ruling-2021-01-05-倍倍伤害'])
    assert entry[3][0][2:4] == ['21/1/5', '2021-01-05']
    # the question of 2019, struck in 2021 (answered): not the same ruling to a
    # reader, each shown with its own label; an outdated day's is 已过时
    assert [r.anchor for r in places['ruling-2021-01-05-死者苏生']] == ['ruling-2021-01-05-死者苏生']
    assert [index.ruling_entry(places[anchor])[0][3][0][4] for anchor in (
        'ruling-2021-01-05-死者苏生', 'ruling-2019-04-17-死者苏生', 'ruling-2021-02-09-试胆竞速')] == [
        2, 8, 4]
    manifest, data, _kept = index.parts(app)
    assert manifest['rulings'] == len(EXPORTED)
    # the days' texts outside their rulings: titles and notes, not their source
    # headers (邮件：, wiki:, 数据库：, each a label of the rulings under it);
    # a chapter's 例： is text
    assert [(index.sections[section][2], text) for section, text in index.texts] == [
        ('裁定手册', '裁定手册'), ('特定效果的处理方法', '特定效果的处理方法'),
        ('同时处理', '同时处理'),
        ('同时处理', '同时处理的效果让双方同时决斗败北的场合，决斗平局。'),
        ('同时处理', '例：'), ('2021', '2021'),
        ('2021', '规则上只有怪兽的效果有这些分类，魔法·陷阱卡有的效果虽然很相似，但也没有分类。'),
        ('21/01', '21/01'), ('1/5', '1/5'), ('2/9', '2/9'),
        ('2/9', '这些调整已经过时，最新调整见同时处理中的内容。'), ('2019年', '2019年'),
        ('19/04', '19/04'), ('4/17', '4/17'), ('5月', '5月'), ('5月3日', '5月3日')]


def without_role_declarations(srcdir) -> None:
    for page in (srcdir / 'faq').glob('*.rst'):
        text = page.read_text(encoding='utf-8')
        page.write_text(re.sub(r'\.\. role:: strike\n(    :class: strike\n)?', '', text),
                        encoding='utf-8')


def test_a_page_that_declares_the_strike_role_behaves_as_one_that_does_not(
        make_app, rootdir, tmp_path):
    """Declared as plain Sphinx needs it, not declared, or declared under
    another name with the class ``strike`` (``.. role:: del``, the struck
    look the theme gives): the same rulings, the same page.  The same for
    the other roles of the toolchain (``.. role:: ruling`` on the chapter
    page, whose dates are written :ruling:`…`)."""
    built = {}
    for declared in ('strike', 'none', 'del', 'ruling'):
        srcdir = tmp_path / f'declared-{declared}'
        shutil.copytree(rootdir / 'test-yearly-faq', srcdir)
        page = srcdir / 'faq' / '2021.rst'
        if declared == 'none':
            without_role_declarations(srcdir)
        elif declared == 'del':
            text = page.read_text(encoding='utf-8')
            page.write_text(text.replace('.. role:: strike\n', '.. role:: del\n')
                            .replace(':strike:`', ':del:`'), encoding='utf-8')
            assert ':del:`' in page.read_text(encoding='utf-8')
        elif declared == 'ruling':
            chapter = srcdir / 'chapter.rst'
            text = chapter.read_text(encoding='utf-8')
            chapter.write_text(text.replace('\n\n', '\n\n.. role:: ruling\n\n', 1),
                               encoding='utf-8')
        assert ('.. role:: strike' in page.read_text()) is (declared in ('strike', 'ruling'))
        app = make_app('html', srcdir=srcdir)
        app.build()
        # a second app of one process: Sphinx notes its own nodes registered again
        assert [w for w in warnings(app) if '[app.' not in w] == []
        built[declared] = (exported(app), html(app, 'faq/2021'), html(app, 'chapter'))
    assert built['strike'] == built['none'] == built['del'] == built['ruling']


def test_a_handbooks_own_source_words_add_to_the_defaults(make_app, rootdir, tmp_path):
    """A header word of the handbook's own (``source_headers`` in its
    handbook.toml) names its kind; the default words (数据库, 邮件) still
    name theirs.  Without the setting, ``| 官方：`` is a source of its own."""
    found = {}
    for setting in ("source_headers = { '官方' = 'wiki' }\n", ''):
        srcdir = edited_root(rootdir, tmp_path, f'words{len(setting)}',
                             {'faq/2021.rst': [('| wiki:\n', '| 官方：\n')]})
        (srcdir / 'handbook.toml').write_text(setting, encoding='utf-8')
        app = make_app('html', srcdir=srcdir)
        app.build()
        assert own_warnings(app) == []
        found[bool(setting)] = exported(app)
    assert found[True] == EXPORTED
    other = [r[5] for r in found[False] if r[1] == 'ruling-2021-01-05-2021-01-06-手札抹杀']
    assert other == [[{'kind': 'other', 'faq': None, 'label': '官方'},  # and its link's
                      {'kind': 'wiki', 'faq': None, 'label': None}]]


def test_a_footnote_mark_is_no_word_of_the_ruling(make_app, rootdir, tmp_path):
    """A footnote after a ruling's date (``\\ :ruling:`21/7/16` [#]_``, as
    effect-processing.rst writes it): its number is not in the ruling's text."""
    srcdir = edited_root(rootdir, tmp_path, 'footnote', {'chapter.rst': [
        ('立即被自身效果破坏。\n', '立即被自身效果破坏。 [#]_\n\n'
         '.. [#] | 数据库本条原文称『攻击力变成0』不适用，需要无视，实际处理是适用。\n')]})
    fixed = make_app('html', srcdir=srcdir)
    fixed.build()
    assert own_warnings(fixed) == [] and ' note: ' not in fixed.status.getvalue()
    assert exported(fixed) == EXPORTED


def test_a_sentence_without_a_card_is_about_the_cards_of_the_one_before(
        make_app, rootdir, tmp_path):
    """face-down-banish.rst's line: its second sentence names no card, and
    is 轻盈水星's (its card page lists it); its permalink stays its own."""
    srcdir = edited_root(rootdir, tmp_path, 'goes-on', {
        'links.rst': [('.. _`倍倍伤害`:', '.. _`轻盈水星`: https://ygocdb.com/card/name/轻盈水星\n'
                                          '.. _`倍倍伤害`:')],
        'chapter.rst': [('\n- | 同时处理的效果', '\n| 「`轻盈水星`_」用②效果召唤后，变成里侧表示的场合③效果'
                         '不再适用。\\ :ruling:`17/3/24` 被一时除外的场合，仍然适用。\\ :ruling:`17/3/24`'
                         '\n\n- | 同时处理的效果')]})
    found = [(anchor, cards, text) for page, anchor, _date, _refs, _status, _sources, cards, text
             in exported(quiet_build(make_app, srcdir)) if '17-03-24' in anchor]
    assert found[1:] == [
        ('ruling-2017-03-24-轻盈水星', ['轻盈水星'], '「轻盈水星」用②效果召唤后，变成里侧表示的场合③效果不再适用。'),
        ('ruling-2017-03-24', ['轻盈水星'], '被一时除外的场合，仍然适用。')]


def test_a_line_that_cites_its_source_without_a_date_says_it_is_no_ruling(
        make_app, rootdir, tmp_path):
    """effect-processing.rst's line as the seed writes it, its source a wiki
    link and no date: no ruling (it was left out silently), a note says why
    and how to date it."""
    wiki = 'https://yugioh-wiki.net/index.php?cmd=read&page=FAQ'
    line = ('| 我方场上存在「`神殿守卫者`_」时，对方只在除「`手札抹杀`_」以外没有手卡的场合，才能发动'
            f'「`手札抹杀`_」。\\ `wiki <{wiki}>`__\n')
    srcdir = edited_root(rootdir, tmp_path, 'undated', {
        'links.rst': [('.. _`倍倍伤害`:', '.. _`神殿守卫者`: https://ygocdb.com/card/name/神殿守卫者\n'
                                          '.. _`倍倍伤害`:')],
        'chapter.rst': [('\n- | 同时处理的效果', f'\n{line}\n- | 同时处理的效果')]})
    app = warning_free_build(make_app, srcdir)
    assert notes(app, srcdir) == [
        "chapter.rst:15: note: this line names a card and cites its source, 'wiki', but holds "
        'no date, so it is no ruling (card pages, the search and rulings.json leave it out): '
        f"write the date of the answer as the link's text, `YY/M/D <{wiki}>`__ "
        '[handbook.ruling-undated]']
    assert exported(app) == EXPORTED


def test_the_faults_of_a_day_at_its_line(make_app, rootdir, tmp_path):
    srcdir = edited_root(rootdir, tmp_path, 'faults', {'faq/2021.rst': [
        ('1/5\n-------', '2/30\n-------'), ('2/9\n-------', '9/9\n-------'),
        ('21/01\n=====', '89/01\n=====')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert warnings(app) == [
        "faq/2021.rst:18: ERROR: day section '2/30' of '89/01' is not a calendar date "
        '(2089-02-30): check the month and the day; its rulings are shown without a date '
        '[handbook.ruling]',
        "faq/2021.rst:31: ERROR: day section '9/9' of '89/01' (2089-09-09) is after today "
        f"({__import__('datetime').date.today().isoformat()}); check the year of the month "
        'section or of the page title [handbook.ruling]',
    ]
    dated = {r.anchor: r.date for r in rulings(app.env)['faq/2021']}
    # its rulings stay rulings, without a date (an inline date is still theirs)
    assert dated['ruling-89-2-30-倍倍伤害'] is None


def test_days_and_headers_as_editors_type_them(make_app, rootdir, tmp_path):
    """Titles as editors type them are the day they name, each with a note:
    full-width digits (the ASCII day to write), a day with more after it; 号
    as 日, a date with its year, 月份, with no note; a chapter's numbered
    section is no day, and says nothing.  A source header in 【】, or with a
    date in its label, is a header as one with a colon is; a label further
    down a line block (``| 例：``) is no ruling.  Nothing fails: the same
    rulings as the root's."""
    srcdir = edited_root(rootdir, tmp_path, 'titles', {
        'faq/2019.rst': [('4/17\n----', '４/１７\n--------'), ('5月\n===', '5月份\n====='),
                         ('5月3日\n------', '5月3日（补充）\n--------------'),
                         ('| 数据库：', '| 【数据库】')],
        'faq/2021.rst': [('2/9\n-------', '2月9号\n-------'), ('1/5\n-------', '21/1/5\n-------'),
                         ('| 邮件：', '| 21/1/5 邮件：'),
                         ('| :strike:`「死者苏生」', '| 例：\n| :strike:`「死者苏生」')]})
    with (srcdir / 'chapter.rst').open('a', encoding='utf-8') as chapter:
        chapter.write('\n1\n-\n\n1.1 概述\n^^^^^^^^\n\n文字。\n')
    app = warning_free_build(make_app, srcdir)
    assert notes(app, srcdir) == [
        "faq/2019.rst:12: note: day section '４/１７' writes its day with full-width characters: "
        'write 4/17 (the same day) [handbook.ruling-fullwidth]',
        "faq/2019.rst:22: note: day section '5月3日（补充）' of '5月份' is read as the day 5月3日: "
        'its lines are rulings of that day (a line of another day needs a section of its own) '
        '[handbook.ruling-day]']
    assert exported(app) == EXPORTED


def test_days_laid_out_as_editors_lay_them_out(make_app, rootdir, tmp_path):
    """More of what editors write around a day's lines, read as the root's
    lines are: a month title that goes on (``21/01（共4条）``), an indented
    line block (a block quote), a subsection of the day titled with a source
    (数据库) and its lines, a header that names its source after a colon
    (来源：wiki), a block that starts with 例： (its lines keep the
    source above), admonitions saying the day is not outdated (尚未过时, and
    in Traditional characters 沒有過時) or saying 过时 as a piece of other
    words (错过时点, to miss the timing, with or without its :ref:): no
    report, the same rulings as the root's."""
    srcdir = edited_root(rootdir, tmp_path, 'layout', {
        'faq/2021.rst': [('21/01\n=====', '21/01（共4条）\n=============='),
                         ('| 邮件：\n| 「`倍倍', '.. note:: 这些调整尚未过时。\n\n'
                          '.. note:: 這些調整沒有過時。\n\n'
                          '.. note:: 同时处理不会导致诱发类效果错过时点。\n\n'
                          '.. attention:: 同时处理不会导致诱发类效果\\ :ref:`错过时点 <同时处理>`\\ 。\n\n'
                          '| 邮件：\n| 「`倍倍'),
                         ('\n| :strike:`「死者苏生」', '\n\n| 例：\n| :strike:`「死者苏生」'),
                         ('| wiki:\n| 「`手札抹杀`_」', '  | 来源：wiki\n  | 「`手札抹杀`_」'),
                         ('| 数据库：\n| 反转召唤', '数据库\n~~~~~~\n\n| 反转召唤')]})
    app = quiet_build(make_app, srcdir)
    assert exported(app) == EXPORTED


def test_ranges_of_days_and_the_years_2010_to_2012(make_app, rootdir, tmp_path):
    """A day titled with a range that repeats its month (``11/2-11/3``) is its
    first day, with the note of a title that goes on (not 2011-02-11); on a
    page titled ``2012`` with its days right under the title, ``12/5`` and
    ``12/6（补充）`` (also the shape of a month 2012/05, 2012/06) are days; a
    chapter's section titled with a date and more (``2017年3月25日新大师规则``)
    is no month, and its subsection ``3.1 …`` no day."""
    srcdir = edited_root(rootdir, tmp_path, 'ranges', {
        'faq/2021.rst': [('\n1/5\n-------', '\n11/2-11/3\n---------')],
        'faq/2019.rst': [('2019年\n======', '2012\n===='), ('19/04\n=====\n\n', ''),
                         ('4/17\n----', '12/5\n----'), ('5月\n===\n\n', ''),
                         ('5月3日\n------', '12/6（补充）\n------------')],
        'chapter.rst': [('\n.. _同时处理:\n', '\n2017年3月25日新大师规则\n------------------------------'
                         '\n\n3.1 连接召唤\n^^^^^^^^^^^^\n\n| 「`罪`_」怪兽被除外。17/3/24\n\n'
                         '.. _同时处理:\n')]})
    app = warning_free_build(make_app, srcdir)
    assert notes(app, srcdir) == [
        "faq/2019.rst:16: note: day section '12/6（补充）' of '2012' is read as the day 12/6: its "
        'lines are rulings of that day (a line of another day needs a section of its own) '
        '[handbook.ruling-day]',
        "faq/2021.rst:18: note: day section '11/2-11/3' of '21/01' is read as the day 11/2: its "
        'lines are rulings of that day (a line of another day needs a section of its own) '
        '[handbook.ruling-day]']
    assert sorted({(r[0], r[2]) for r in exported(app) if r[0].startswith('faq/')}) == [
        ('faq/2019', '2012-12-05'), ('faq/2019', '2012-12-06'),
        ('faq/2021', '2021-02-09'), ('faq/2021', '2021-11-02')]
    assert [r[2] for r in exported(app) if r[7] == '「罪」怪兽被除外。'] == ['2017-03-24']


def test_a_chapters_numbered_sections_under_a_title_with_a_year_are_no_days(
        make_app, rootdir, tmp_path):
    """A chapter titled with a year (``2020年规则变更``) whose sections are
    numbered ``1`` › ``1.2``: ``1.2`` is no day of 2020, so its line keeps its
    own date (it was dated 2020-01-02, with no report) and the page has the
    same rulings as the root's chapter."""
    srcdir = edited_root(rootdir, tmp_path, 'numbered', {
        'chapter.rst': [('特定效果的处理方法\n==================', '2020年规则变更\n==============\n\n1\n-'),
                        ('同时处理\n--------', '1.2\n~~~')]})
    app = quiet_build(make_app, srcdir)
    assert [r[2:4] for r in exported(app) if r[0] == 'chapter'] == [
        (r[2], r[3]) for r in EXPORTED if r[0] == 'chapter']


def test_a_day_numbered_with_a_dot_under_a_month_of_two_digits_is_a_day(
        make_app, rootdir, tmp_path):
    """``1.5`` under the month ``01`` of the page ``2021`` is January 5th, as
    ``1/5`` under ``21/01`` is (the rule for a chapter's numbered sections
    must not take it: its lines were lost, unsaid, in a review)."""
    srcdir = edited_root(rootdir, tmp_path, 'dotted', {
        'faq/2021.rst': [('21/01\n=====', '01\n=='), ('\n1/5\n-------', '\n1.5\n---')]})
    app = quiet_build(make_app, srcdir)
    assert exported(app) == EXPORTED


def test_a_line_that_writes_its_days_date_shows_it_once(make_app, rootdir, tmp_path):
    """A line of the day 1/5 whose own date link is 21/1/5 shows that date
    once, its own, on its card page (a review: 21/1/5 · … with 21/1/5)."""
    srcdir = edited_root(rootdir, tmp_path, 'own-day', {
        'faq/2021.rst': [('`21/1/6 <https://yugioh-wiki.net/', '`21/1/5 <https://yugioh-wiki.net/')]})
    app = quiet_build(make_app, srcdir)
    page = html(app, 'cards/手札抹杀')
    assert 'card-ruling-day' not in page and page.count('>21/1/5</a>') == 1
    assert 'card-ruling-day' in html(app, 'cards/倍倍伤害')


@pytest.mark.parametrize('text, outdated', [
    ('这些调整已经过时，最新调整见同时处理中的内容。', True), ('這些調整已經過時。', True),
    ('这些调整已过时。', True), ('这些调整尚未过时。', False),
    ('同时处理不会导致诱发类效果错过时点。', False),
    # other words around 过 and 时 (a review's): skipped, passed, exceeded the time limit
    ('被跳过时', False), ('经过时', False), ('通过时', False), ('超过时限', False)])
def test_what_says_a_day_is_outdated(text, outdated):
    assert days.says(text, '过时' if '过' in text else '過時') is outdated


def test_a_page_of_the_last_century(make_app, rootdir, tmp_path):
    """On a page titled 1999, the month ``99/04`` is April 1999, as the date
    ``99/4/17`` is: its days are rulings of 1999, with no report (it was read
    as 2099: an error for a day after today, and a note to write 99/04)."""
    srcdir = edited_root(rootdir, tmp_path, 'nineties', {
        'faq/2019.rst': [('2019年\n======', '1999年\n======'), ('19/04\n=====', '99/04\n=====')]})
    app = quiet_build(make_app, srcdir)
    assert [(r[2], r[3]) for r in exported(app) if r[0] == 'faq/2019'] == [
        ('1999-04-17', ['99/4/17']), ('1999-04-17', ['99/4/17']), ('1999-05-03', ['99/5/3'])]


def test_dates_written_as_plain_text_are_the_same_rulings(make_app, rootdir, tmp_path):
    """A date written as plain text in a sentence, as the seed pages show
    them (``「地缚神」怪兽17/3/24 和「罪」怪兽17/3/24 立即被…``), is the same
    ruling reference as ``:ruling:`17/3/24```: the same rulings, the same
    page.  A date in a literal, after a version's dot or in a title is none."""
    srcdir = tmp_path / 'plain'
    shutil.copytree(rootdir / 'test-yearly-faq', srcdir)
    chapter = srcdir / 'chapter.rst'
    text = chapter.read_text(encoding='utf-8')
    plain = re.sub(r'\\ :ruling:`([\d/]+)`', r'\1', text)
    assert plain.count('怪兽17/3/24 和「`罪`_」怪兽17/3/24 立即') == 1
    assert ':ruling:' not in plain
    chapter.write_text(plain + '\n17/3/24 裁定\n------------\n\n| ``17/3/24`` 1.17/3/24\n',
                       encoding='utf-8')
    app = warning_free_build(make_app, srcdir)
    assert exported(app) == EXPORTED
    dated = re.findall(r'<span class="ruling">([^<]*)</span>', html(app, 'chapter'))
    assert dated == ['17/3/24', '17/3/24', '17/12/22', '17/7/28']


SENTENCE = ('X召唤的「`异色眼绝零龙`_」因「`月之书`_」的效果变成里侧表示，之后反转召唤被'
            '「`神之宣告`_」的效果无效的场合，也不能发动②效果。')


def test_days_whose_lines_are_no_rulings_say_so_and_how(make_app, rootdir, tmp_path):
    """Two shapes that leave a day's text out of the rulings get a note at
    their line: days with no year anywhere (a month ``1月`` on a page titled
    调整汇总), once for their month; a paragraph or a list under a day that
    names a card but holds no date (a day's rulings are the lines of its
    line blocks; its source link gets no other note).  A paragraph without a
    card (a day's intro) is left alone."""
    srcdir = edited_root(rootdir, tmp_path, 'loose', {
        'faq/2021.rst': [('====\n2021\n====\n', '========\n调整汇总\n========\n'),
                         ('21/01\n=====\n', '1月\n===\n')],
        'faq/2019.rst': [(f'| {SENTENCE}', f'以下为数据库的回答：\n\n{SENTENCE}\\ '
                                           f'`wiki <https://yugioh-wiki.net/>`__'),
                         ('| 数据库：\n| 「`死者苏生`_」', '数据库：\n\n- 「`死者苏生`_」'),
                         ('\n| 那个效果处理时', '\n- 那个效果处理时')]})
    app = warning_free_build(make_app, srcdir)
    assert notes(app, srcdir) == [
        "faq/2019.rst:17: note: this list of the day '4/17' names a card but is no ruling: a "
        "day's rulings are the lines of its line blocks; write its items as the lines of a line "
        'block ("| " for "- ") to make its items rulings of 2019-04-17 [handbook.ruling-day]',
        "faq/2019.rst:28: note: this paragraph of the day '5月3日' names a card but is no "
        "ruling: a day's rulings are the lines of its line blocks; start it with \"| \" (and "
        'indent its other lines) to make it a ruling of 2019-05-03 [handbook.ruling-day]',
        "faq/2021.rst:15: note: the days of '1月' have no year: neither its title nor the page "
        'title gives one, so their lines are not rulings; write the year in the month\'s title '
        '(YY/MM: 21/01) or in the page title (2021年) [handbook.ruling-day]']
    # only the lines with a date of their own are rulings there
    assert [r[1] for r in exported(app) if r[0].startswith('faq/')] == [
        'ruling-2021-01-06-手札抹杀', 'ruling-2021-01-06-faq19691-神之宣告']


def test_a_year_anywhere_in_the_page_title_dates_its_days(make_app, rootdir, tmp_path):
    """The note's other fix: the year in the page title, after other words
    (``OCG FAQ 2021年``, the month still ``1月``): no note, the root's very
    rulings (the title had to start with its year, and the note came back)."""
    srcdir = edited_root(rootdir, tmp_path, 'titled', {
        'faq/2021.rst': [('====\n2021\n====\n', '==============\nOCG FAQ 2021年\n==============\n'),
                         ('21/01\n=====\n', '1月\n===\n')]})
    app = quiet_build(make_app, srcdir)
    assert exported(app) == EXPORTED


def test_the_fixes_the_day_notes_give_work(make_app, rootdir, tmp_path):
    """The pages of the test above with each note's fix applied: the year in
    the month's title (the page title stays 调整汇总), ``| `` before the
    paragraph (its intro stays a paragraph), the list as lines: no note, and
    the root's very rulings."""
    srcdir = edited_root(rootdir, tmp_path, 'fixed', {
        'faq/2021.rst': [('====\n2021\n====\n', '========\n调整汇总\n========\n')],
        'faq/2019.rst': [(f'| {SENTENCE}', f'以下为数据库的回答：\n\n| {SENTENCE}')]})
    app = quiet_build(make_app, srcdir)
    assert exported(app) == EXPORTED


@pytest.mark.parametrize(('title', 'fix'), [
    ('1-5', 'write its day as 1/5'),
    ('01-05', 'write its day as 1/5'),
    ('Jan 5', 'title it with its day, month/day (1/5)'),
    ('-1/5', 'title it with its day, month/day (1/5)'),
    ('备注', 'title it with its day, month/day (1/5); if they are no rulings, write them as a '
           'paragraph, without the |'),
])
def test_a_day_mistyped_says_its_lines_are_no_rulings(make_app, rootdir, tmp_path, title, fix):
    """A section of a month that holds lines but whose title is no day (an
    editor's round trip: their rulings left the card pages unsaid) gets a
    warning at its title, with the title to write: a CI maintainer's round
    trip saw them lost with a note (``1-5``), or without a word (``备注``),
    and CI passing."""
    srcdir = edited_root(rootdir, tmp_path, 'mistyped', {
        'faq/2021.rst': [('\n1/5\n-------\n', f'\n{title}\n{"-" * max(len(title) * 2, 3)}\n')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert [line.replace(f'{srcdir}/', '') for line in own_warnings(app)] == [
        f"faq/2021.rst:18: WARNING: section '{title}' of '21/01' is not read as a day, so its "
        f'lines are no rulings: {fix} [handbook.ruling-day]']
    assert not [r for r in exported(app) if r[2] == '2021-01-05']


def test_a_sections_lines_that_are_no_days_are_said_only_where_shaped_as_a_days(
        make_app, rootdir, tmp_path):
    """A section of a month titled with no day: its lines written as a
    paragraph, as the warning says (or lines that name no card and no
    source), are a note's, said nothing; the other days' rulings stay."""
    srcdir = edited_root(rootdir, tmp_path, 'remarks', {
        'faq/2021.rst': [('\n1/5\n-------\n\n| 邮件：\n| 「`倍倍伤害`_」',
                          '\n备注\n----\n\n邮件：\n「`倍倍伤害`_」'),
                         ('\n| :strike:`「死者苏生」', '\n:strike:`「死者苏生」'),
                         ('\n| wiki:\n| 「`手札抹杀`_」', '\n| 以下为补充。\n\n说明\n----\n\n| 见上。\n\n'
                                                     '1/5\n---\n\n| wiki:\n| 「`手札抹杀`_」')]})
    app = quiet_build(make_app, srcdir)
    assert [r[1] for r in EXPORTED if r not in exported(app)] == [
        'ruling-2021-01-05-倍倍伤害', 'ruling-2021-01-05-死者苏生']


@pytest.mark.parametrize(('title', 'fix'), [
    ('21/13', 'write 21/01, the month of its first day'),
    ('2021年13月', 'write 2021年1月, the month of its first day'),
])
def test_a_month_section_that_names_no_month_gets_the_month_of_its_days(
        make_app, rootdir, tmp_path, title, fix):
    """``21/13`` (a helper's slip, with no report): its days keep their
    dates, but the reader sees a month that is none; a warning at its
    title, whose fix gives the root back."""
    srcdir = edited_root(rootdir, tmp_path, 'no-month', {
        'faq/2021.rst': [('\n21/01\n=====\n', f'\n{title}\n{"=" * len(title) * 2}\n')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert [line.replace(f'{srcdir}/', '') for line in own_warnings(app)] == [
        f"faq/2021.rst:15: WARNING: month section '{title}' names no month (13): {fix} "
        '[handbook.ruling-day]']
    assert exported(app) == EXPORTED
    written = fix.removeprefix('write ').split(',')[0]
    srcdir = edited_root(rootdir, tmp_path, 'no-month-fixed', {
        'faq/2021.rst': [('\n21/01\n=====\n', f'\n{written}\n{"=" * len(written) * 2}\n')]})
    fixed = make_app('html', srcdir=srcdir)
    fixed.build()
    assert own_warnings(fixed) == [] and ' note: ' not in fixed.status.getvalue()
    assert exported(fixed) == EXPORTED


@pytest.mark.parametrize('host', ['www.db.yugioh-crad.com', 'evil.example'])
def test_a_fid_on_another_host_is_no_faq_id(make_app, rootdir, tmp_path, host):
    """The official FAQ's address on another host (a typo, or a look-alike):
    its ``fid=`` is no FAQ id, so no 数据库 #19691 badge and no id in the
    export; the line's header still says 数据库 (a round trip: the badge
    named the official FAQ for any host)."""
    srcdir = edited_root(rootdir, tmp_path, 'other-host', {
        'faq/2021.rst': [('https://www.db.yugioh-card.com/', f'https://{host}/')]})
    app = warning_free_build(make_app, srcdir)
    ruling = next(r for r in json.loads((app.outdir / 'rulings.json').read_text(
        encoding='utf-8'))['rulings'] if r['text'].startswith('反转召唤'))
    assert [ref['faq'] for ref in ruling['references']] == [None, None]
    assert ruling['sources'] == [{'kind': 'faq', 'faq': None, 'label': None},
                                 {'kind': 'other', 'faq': None, 'label': None}]
    assert ruling['anchor'] == 'ruling-2021-01-05-2021-01-06-神之宣告'
    assert '#19691' not in html(app, 'faq/2021')


@pytest.mark.parametrize('written', ['数据库', '[数据库]', '数据库;', '（数据库）'])
def test_a_source_header_without_its_colon_is_a_header_with_a_note(
        make_app, rootdir, tmp_path, written):
    """``| 数据库`` was a ruling whose text was 数据库, and its lines took the
    source of the block above (an editor's round trip): now the header it
    means, the root's very rulings, and a note with the line to write."""
    srcdir = edited_root(rootdir, tmp_path, 'bare', {
        'faq/2021.rst': [('\n| 数据库：\n', f'\n| {written}\n')]})
    app = warning_free_build(make_app, srcdir)
    assert notes(app, srcdir) == [
        f"faq/2021.rst:28: note: the line '{written}' is read as the source header of the lines "
        'below it: write "| 数据库：" (a header ends with its colon) [handbook.ruling-day]']
    assert exported(app) == EXPORTED


@pytest.mark.parametrize('written', ['\\ :sup:`17/7/28`', '\\ *17/7/28*', ' **（17/7/28）**'])
def test_a_date_in_superscript_or_emphasis_dates_its_ruling(make_app, rootdir, tmp_path,
                                                            written):
    """A plain date in ``:sup:`` (as some handbooks write their dates) or in
    emphasis is the ruling's reference as the role's is: the root's very
    rulings (the superscript one was no date: its ruling was lost, unsaid)."""
    srcdir = edited_root(rootdir, tmp_path, 'sup', {
        'chapter.rst': [('连锁发动2次。\\ :ruling:`17/7/28`', f'连锁发动2次。{written}')]})
    app = quiet_build(make_app, srcdir)
    assert exported(app) == EXPORTED


def test_a_date_in_another_form_on_a_day_line_is_no_lost_ruling(make_app, rootdir, tmp_path):
    """A day's line is dated by its day: a date in it in another form
    (``2017/3/24``) is text, with no note that its ruling is lost (a
    review: the note told to add a second date, which changed its id)."""
    srcdir = edited_root(rootdir, tmp_path, 'other-form', {
        'faq/2021.rst': [('「`倍倍伤害`_」发动后', '「`倍倍伤害`_」（2017/3/24）发动后')]})
    app = warning_free_build(make_app, srcdir)
    assert notes(app, srcdir) == []


def test_a_source_label_that_starts_its_ruling_is_its_header(make_app, rootdir, tmp_path):
    """``| 邮件：「旋风」……`` (the label and the ruling on one line) is the
    header and the ruling at once: the root's very rulings, sources and texts, with no label in the
    text; the lines after it take its source, as under a header."""
    srcdir = edited_root(rootdir, tmp_path, 'inline', {'faq/2021.rst': [
        ('\n| 邮件：\n| 「`倍倍伤害`_」', '\n| 【邮件】「`倍倍伤害`_」'),
        ('\n| wiki:\n| 「`手札抹杀`_」', '\n| wiki: 「`手札抹杀`_」'),
        ('\n| 数据库：\n| 反转召唤', '\n| 数据库：反转召唤')]})
    app = quiet_build(make_app, srcdir)
    assert exported(app) == EXPORTED
    html = (app.outdir / 'faq' / '2021.html').read_text(encoding='utf-8')
    assert '<div class="line">数据库：<span class="ruling-line"' in html


@pytest.mark.parametrize('header', ['邮件：\\ :ruling:`21/1/6`', '邮件： `21/1/6 <https://yugioh-wiki.net/>`__'])
def test_a_source_label_with_dates_alone_is_a_header(make_app, rootdir, tmp_path, header):
    """``| 邮件：21/1/6``: the label and a date, no ruling after it, is the
    header (a review: a ruling of no text, with the date and the source)."""
    srcdir = edited_root(rootdir, tmp_path, 'dated-header', {'faq/2021.rst': [
        ('\n| 邮件：\n| 「`倍倍伤害`_」', f'\n| {header}\n| 「`倍倍伤害`_」')]})
    app = quiet_build(make_app, srcdir)
    assert exported(app) == EXPORTED


@pytest.mark.parametrize('label', ['注意：', 'feedback: '])
def test_a_label_that_names_no_source_stays_in_the_ruling(make_app, rootdir, tmp_path, label):
    """``注意：`` names no source; ``feedback:`` holds db, which is no word of it."""
    srcdir = edited_root(rootdir, tmp_path, 'label', {'faq/2021.rst': [
        ('\n| 数据库：\n| 反转召唤', f'\n| 数据库：\n| {label}反转召唤')]})
    app = warning_free_build(make_app, srcdir)
    texts = {r[7]: r[5] for r in exported(app)}
    assert [(text[:len(label) + 4], sources) for text, sources in texts.items()
            if text.startswith((label.strip(), '反转召唤'))] == [
        (f'{label}反转召唤', [{'kind': 'faq', 'faq': '19691', 'label': None}])]


@pytest.mark.parametrize(('old', 'new', 'line', 'note'), [
    ('\n21/01\n=====\n', '\n22/01\n=====\n', 15,
     "section '22/01' dates its days 2022, but the page title says 2021: if they are of 2021, "
     'write 21/01'),
    ('\n21/01\n=====\n', '\n2022年1月\n=========\n', 15,
     "section '2022年1月' dates its days 2022, but the page title says 2021: if they are of "
     '2021, write 2021年1月'),
    ('\n2/9\n-------\n', '\n20/2/9\n-------\n', 31,
     "section '20/2/9' dates its days 2020, but the page title says 2021: if they are of 2021, "
     'write 21/2/9'),
])
def test_a_year_that_is_not_the_page_titles_is_said(make_app, rootdir, tmp_path, old, new, line,
                                                     note):
    """A month or a day titled with another year than the page's dates its
    rulings that year (an editor's round trip: a typo moved a month's
    rulings a year away, unsaid): a note, with the title of the page's year."""
    srcdir = edited_root(rootdir, tmp_path, 'year', {'faq/2021.rst': [(old, new)]})
    app = warning_free_build(make_app, srcdir)
    assert notes(app, srcdir) == [f'faq/2021.rst:{line}: note: {note} [handbook.ruling-day]']


def test_a_misspelt_label_gets_the_label_it_means(make_app, rootdir, tmp_path):
    """The outdated day's :ref: misspells its label (处里 for 处理, read
    alike): an error with the label to write, in place of Sphinx's
    "undefined label" (an editor's round trip: it said no fix); a label read
    differently gets no did-you-mean."""
    srcdir = edited_root(rootdir, tmp_path, 'label', {
        'faq/2021.rst': [(':ref:`同时处理`', ':ref:`同时处里`')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert warnings(app) == [
        "faq/2021.rst:34: ERROR: undefined label '同时处里', so the link leads nowhere (its text "
        'is shown plain): write :ref:`同时处理`, the label it misspells [handbook.ref]']
    assert notes(app, srcdir) == []


def test_a_sections_title_written_for_its_label_gets_the_label(make_app, rootdir, tmp_path):
    """The section retitled, and the :ref: written as its title reads (an
    editor's round trip: Sphinx's "undefined label" alone): the error gives
    the section's label."""
    srcdir = edited_root(rootdir, tmp_path, 'title', {
        'chapter.rst': [('\n同时处理\n--------\n', '\n同时处理的场合\n--------------\n')],
        'faq/2021.rst': [(':ref:`同时处理`', ':ref:`同时处理的场合`')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert warnings(app) == [
        "faq/2021.rst:34: ERROR: undefined label '同时处理的场合', so the link leads nowhere (its "
        "text is shown plain): '同时处理的场合' is the title of the section labelled '同时处理', "
        'not a label: write :ref:`同时处理` [handbook.ref]']
    assert notes(app, srcdir) == []


@pytest.mark.parametrize('silenced', [
    {'suppress_warnings': ['ref.ref']},
    {'nitpicky': True, 'nitpick_ignore': [('std:ref', '同时处里')]}],
    ids=['suppress_warnings', 'nitpick_ignore'])
def test_a_handbook_that_silenced_sphinxs_undefined_label_is_not_told(
        make_app, rootdir, tmp_path, silenced):
    """A handbook that silenced Sphinx's "undefined label" (its own
    ``suppress_warnings`` or, nitpicky, ``nitpick_ignore``) is not told it
    again by the toolchain's error, which took its place (the review of the
    error): the text is shown plain, as Sphinx shows it."""
    srcdir = edited_root(rootdir, tmp_path, 'silenced', {
        'faq/2021.rst': [(':ref:`同时处理`', ':ref:`同时处里`')]})
    app = make_app('html', srcdir=srcdir, confoverrides=silenced)
    app.build()
    assert warnings(app) == []
    page = (app.outdir / 'faq' / '2021.html').read_text(encoding='utf-8')
    assert '最新调整见<span class="xref std std-ref">同时处里</span>中的内容' in page


def test_a_label_read_differently_gets_no_did_you_mean(make_app, rootdir, tmp_path):
    srcdir = edited_root(rootdir, tmp_path, 'other', {
        'faq/2021.rst': [(':ref:`同时处理`', ':ref:`同时发动`')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert notes(app, srcdir) == []


def test_a_line_continued_on_the_next_is_one_text_without_a_space(make_app, rootdir, tmp_path):
    """A line of a line block continued on an indented next line is the same
    ruling, its text joined as written Chinese is, with no space where the
    editor's line ended (an editor's round trip: ``变成0， 对方``)."""
    srcdir = edited_root(rootdir, tmp_path, 'wrapped', {
        'faq/2021.rst': [('如果自己基本分变成0，对方', '如果自己基本分变成0，\n  对方')]})
    assert exported(quiet_build(make_app, srcdir)) == EXPORTED


def test_a_struck_line_with_a_link_gets_the_roles_fix_alone(make_app, rootdir, tmp_path):
    """A link in a struck line's text: the error's fix (the names without
    backquotes) links every name of the line; the name after the link is
    not also told to be linked, which, done, nested a second link (an
    editor's round trip)."""
    struck = '「死者苏生」特殊召唤的怪兽被一时除外的场合，是否还受「来自墓场的呼声」的效果影响，调整中。'
    srcdir = edited_root(rootdir, tmp_path, 'struck', {
        'faq/2021.rst': [(struck, struck.replace('「死者苏生」', '「`死者苏生`_」'))]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert [w for w in warnings(app) if 'handbook' in w] == [
        "faq/2021.rst:23: ERROR: :strike:`…` holds a link, which reStructuredText cannot nest in "
        "a role's text (readers see the markup): write its card names without backquotes, "
        ':strike:`「卡名」…`: the build links the names of struck text [handbook.markup]']


@pytest.mark.parametrize('space', ['\u3000', '\u00a0'])
def test_a_bar_before_a_space_not_asciis_is_an_error_with_the_fix(make_app, rootdir, tmp_path,
                                                                 space):
    """``|`` and an ideographic or no-break space is no line block: readers
    see the bar, and the rulings of the lines are lost (an editor's round
    trip: docutils said "Line block ends without a blank line", and our note
    said to start the paragraph with "| ", which it seemed to)."""
    srcdir = edited_root(rootdir, tmp_path, 'bar', {
        'faq/2021.rst': [('\n| 「`倍倍伤害`_」发动后', f'\n|{space}「`倍倍伤害`_」发动后')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert [w for w in warnings(app) if 'handbook' in w] == [
        f'faq/2021.rst:22: ERROR: this line starts with "|" and the space U+{ord(space):04X}, '
        'which docutils does not read as a line block\'s (readers see the bar): write "| " with '
        'an ASCII space [handbook.markup]']
    assert notes(app, srcdir) == []


@pytest.mark.parametrize('indent', ['  ', '    '])
def test_an_indented_bar_is_an_error_with_the_fix(make_app, rootdir, tmp_path, indent):
    """A line block's line written with its bar indented (``  | …``) goes on
    the line above it: readers saw a "|" in the text, and its card was the
    line above's ruling's, unsaid (an editor's round trip).  The error says
    the two ways to write it; written at the bars' column, the root's very
    rulings; nested after the bar, no report."""
    srcdir = edited_root(rootdir, tmp_path, 'indented', {
        'faq/2021.rst': [('\n| 「`倍倍伤害`_」发动后', f'\n{indent}| 「`倍倍伤害`_」发动后')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert [w for w in warnings(app) if '[handbook.' in w] == [
        'faq/2021.rst:22: ERROR: this line, indented, goes on the line of the line block above it, '
        'so readers see its "|": write its bar at the column of the other bars, "| …", for a '
        'line of its own, or spaces after the bar, "|     …", for a line nested in the one '
        'above [handbook.markup]']
    fixed = edited_root(rootdir, tmp_path, 'indented-nested', {
        'faq/2021.rst': [('\n| 「`倍倍伤害`_」发动后', '\n|     「`倍倍伤害`_」发动后')]})
    app = make_app('html', srcdir=fixed)
    app.build()
    assert [w for w in warnings(app) if '[handbook.' in w] == []


def test_a_struck_line_left_unclosed_is_no_unlinked_names(make_app, rootdir, tmp_path):
    """``:strike:`「死者苏生」…调整中。`` without its closing backquote: docutils
    says so; its names are the struck text's, to be linked by the role once
    the backquote is there, not names to link (the fix made the role hold
    links, and that error's fix was the line as first written).  The error
    says where the backquote goes (docutils' warning says no fix)."""
    srcdir = edited_root(rootdir, tmp_path, 'unclosed', {
        'faq/2021.rst': [('影响，调整中。`\n', '影响，调整中。\n')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert [w for w in warnings(app) if ':23:' in w] == [
        'faq/2021.rst:23: WARNING: Inline interpreted text or phrase reference start-string '
        'without end-string. [docutils]',
        'faq/2021.rst:23: ERROR: role :strike: is not closed (readers see its markup): write its '
        "closing backquote at the end of its text, after '果影响，调整中。' [handbook.markup]"]
    assert [w for w in warnings(app) if ':23:' not in w] == []


def test_a_line_left_unindented_is_told_to_be_indented(make_app, rootdir, tmp_path):
    """A ruling's line that goes on on the next, the next not indented: a
    paragraph after the line block (docutils: "Line block ends without a
    blank line").  The note says to indent it, which makes the ruling whole
    again (its fix was "| ", which made a second ruling of the sentence's end,
    naming no card: an editor's round trip)."""
    split = ('受到战斗伤害和造成效果伤害是同时适用的，如果自己',
             '受到战斗伤害和造成效果伤害是同时适用的，\n{}如果自己')
    srcdir = edited_root(rootdir, tmp_path, 'unindented', {
        'faq/2021.rst': [(split[0], split[1].format(''))]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert [n for n in notes(app, srcdir) if 'ruling-day' in n] == [
        "faq/2021.rst:23: note: this paragraph of the day '1/5' names a card but is no ruling: "
        'it follows the line block above with no blank line; indent it under the text of line '
        '22 to go on with that ruling, or start it with "| " to make it a ruling of 2021-01-05 '
        'of its own [handbook.ruling-day]']
    fixed = edited_root(rootdir, tmp_path, 'indented', {
        'faq/2021.rst': [(split[0], split[1].format('  '))]})
    app = make_app('html', srcdir=fixed)
    app.build()
    # (a second app in one process warns that it sets Sphinx's own nodes up again)
    assert [w for w in warnings(app) if not w.startswith('WARNING: while setting up')] == []
    assert [n for n in notes(app, fixed) if 'ruling-day' in n] == []
    ruling = next(r for r in exported(app) if r[1] == 'ruling-2021-01-05-倍倍伤害')
    assert ruling[-1].endswith('如果自己基本分变成0，对方基本分也会变成0的状况，结果平局。')
    assert ruling[-2] == ['倍倍伤害']


def test_a_day_written_twice_says_so(make_app, rootdir, tmp_path):
    """A second section of a day the page has already (an editor's round
    trip: no report, and the first day's anchor changed from #1-5 to
    #21-01-1-5, breaking links to it): a note at its title, once."""
    srcdir = edited_root(rootdir, tmp_path, 'twice', {
        'faq/2021.rst': [('2/9\n-------\n', '1/5\n-------\n\n| 邮件：\n| 「`手札抹杀`_」的效果'
                          '处理时，双方卡组数量都小于要抽的数量的场合，决斗平局。\n\n2/9\n-------\n')]})
    app = warning_free_build(make_app, srcdir)
    assert [n for n in notes(app, srcdir) if 'ruling-day' in n] == [
        "faq/2021.rst:31: note: day section '1/5' is the day 2021-01-05 a second time on this "
        'page (first at line 18): write its lines under the first (the day then has one '
        'section, and one anchor) [handbook.ruling-day]']


def test_a_date_link_without_its_closing_bracket_is_told_it(make_app, rootdir, tmp_path):
    """```21/1/6 <https://…FAQ`__`` (no ``>``): an anonymous link with no
    target, whose fix is the missing ``>`` (it said to write ``<URL>`` after
    the text, which published the URL as the link's text, or to make the
    date a card link: an editor's round trip)."""
    url = 'https://yugioh-wiki.net/index.php?cmd=read&page=FAQ'
    srcdir = edited_root(rootdir, tmp_path, 'no-bracket', {
        'faq/2021.rst': [(f'<{url}>`__', f'<{url}`__')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert [w for w in warnings(app) if 'anonymous-link' in w] == [
        f"faq/2021.rst:26: ERROR: anonymous link '`21/1/6 <{url}`__' has no target (the page "
        'has 1 anonymous links `…`__ and 0 anonymous targets .. __: URL, which pair up in '
        f'order): write `21/1/6 <{url}>`__: the > that ends its URL is missing '
        '[handbook.anonymous-link]']


@pytest.mark.parametrize(('slip', 'fix'), [
    ('`wiki`__', 'write its https:// address inside the link, `wiki <https://…>`__'),
    ('`21/1/6 <data:text/html,<script>alert(1)</script>>`__',
     'its address holds < or >, so docutils reads none: write the https:// address of the '
     'page it links, with no < or > in it'),
])
def test_a_link_that_lost_its_address_gets_no_fix_that_links_nowhere(
        make_app, rootdir, tmp_path, slip, fix):
    """A date link whose address is lost, or not read (< > inside): the
    error says where the address goes, with no card link for a text that
    names none; the template written as it is, ``https://…``, is an error
    again, not a link to a page ``URL`` (a round trip: ``<URL>`` built clean)."""
    url = 'https://yugioh-wiki.net/index.php?cmd=read&page=FAQ'
    srcdir = edited_root(rootdir, tmp_path, 'lost-address', {
        'faq/2021.rst': [(f'`21/1/6 <{url}>`__', slip)]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert [w.replace(f'{srcdir}/', '') for w in own_warnings(app)] == [
        f"faq/2021.rst:26: ERROR: anonymous link {slip!r} has no target (the page has 1 "
        'anonymous links `…`__ and 0 anonymous targets .. __: URL, which pair up in order): '
        f'{fix} [handbook.anonymous-link]']
    assert '<script>alert' not in html(app, 'faq/2021')
    if '<https://…>' in fix:
        written = edited_root(rootdir, tmp_path, 'template-written', {
            'faq/2021.rst': [(f'`21/1/6 <{url}>`__', '`wiki <https://…>`__')]})
        again = make_app('html', srcdir=written)
        again.build()
        assert [w.replace(f'{written}/', '') for w in own_warnings(again)] == [
            "faq/2021.rst:26: ERROR: link 'wiki' goes to 'https://…', which is not a valid "
            'URL: it is shown as plain text; write the https:// address of the page it should '
            'open, or remove the link [handbook.link]']


@pytest.mark.parametrize('written', ['试胆竟速', '試膽競速'])
def test_a_plain_name_that_reads_as_a_card_gets_a_note(make_app, rootdir, tmp_path, written):
    """「试胆竟速」 (竟 for 竞, read alike), plainly quoted: no card name, so
    not told to be linked, and its ruling was on no card page, unsaid.  A
    note gives the card's link (and no other plain quote of the pages gets
    one).  So does the name in Traditional characters, all four of which
    differ (it was too far from the card's for a slip: unsaid)."""
    srcdir = edited_root(rootdir, tmp_path, 'slip', {
        'faq/2021.rst': [('「`试胆竞速`_」的效果适用中', f'「{written}」的效果适用中')]})
    app = warning_free_build(make_app, srcdir)
    assert [n for n in notes(app, srcdir) if 'card-slip' in n] == [
        f'faq/2021.rst:37: note: 「{written}」 is no card name in the registry, but reads as '
        '「试胆竞速」 does: if it is that card, write 「`试胆竞速`_」 (then its ruling is on the '
        "card's page) [handbook.card-slip]"]


def test_a_bar_without_a_space_gets_the_note_with_the_fix(make_app, rootdir, tmp_path):
    """``|`` glued to the text is no line block either; no space follows the
    bar, so it is no error of ours: the day's note says the fix (docutils
    warns too)."""
    srcdir = edited_root(rootdir, tmp_path, 'glued-bar', {
        'faq/2021.rst': [('\n| 「`倍倍伤害`_」发动后', '\n|「`倍倍伤害`_」发动后')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert [w for w in warnings(app) if 'handbook' in w] == []
    assert [n for n in notes(app, srcdir) if 'no ruling' in n] == [
        "faq/2021.rst:22: note: this paragraph of the day '1/5' names a card but is no "
        "ruling: a day's rulings are the lines of its line blocks; start it with \"| \" (and "
        'indent its other lines) to make it a ruling of 2021-01-05 [handbook.ruling-day]']


def test_a_day_at_the_level_of_the_months_is_a_warning(make_app, rootdir, tmp_path):
    """A day underlined as the months are is one of them, not a day of the
    month above: its rulings would leave the card pages, the search and the
    feed, so a warning (CI fails; an editor's round trip: a note let them go)
    says how to make its lines rulings again."""
    srcdir = edited_root(rootdir, tmp_path, 'level', {
        'faq/2021.rst': [('\n2/9\n-------\n', '\n2/9\n=======\n')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert own_warnings(app) == [
        "faq/2021.rst:31: WARNING: day section '2/9' is at the level of the month sections (its "
        'title is underlined as theirs are), so its lines are no rulings: underline it as the '
        'days are, under its month [handbook.ruling-day]']
    assert not [r for r in exported(app) if r[2] == '2021-02-09']


@pytest.mark.parametrize('month', ['一月', 'Jan', 'January', '说明'])
def test_days_under_a_section_not_read_as_a_month_are_a_warning_with_its_title(
        make_app, rootdir, tmp_path, month):
    """The month section titled in words (一月, Jan), or in an editor's own
    (说明): its days are read as no days, and their rulings were lost without
    a word (an editor's round trip).  A warning, once, at that section, with
    the title to write; written as it says, the rulings are the root's."""
    underline = '=' * (2 * len(month) if not month.isascii() else len(month))
    srcdir = edited_root(rootdir, tmp_path, 'words', {
        'faq/2021.rst': [('\n21/01\n=====\n', f'\n{month}\n{underline}\n')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    fix = '21/01' if month != '说明' else '21/01 (the month of its first day)'
    assert own_warnings(app) == [
        f"faq/2021.rst:15: WARNING: section '{month}' holds the day sections '1/5', '2/9' but is "
        f'not read as a month section (YY/MM), so their lines are no rulings: title it {fix}, '
        'over an underline of 5 characters or more [handbook.ruling-day]']
    app = rebuilt(make_app, srcdir, {
        'faq/2021.rst': [(f'\n{month}\n{underline}\n', '\n21/01\n=====\n')]})
    assert own_warnings(app) == [] and notes(app, srcdir) == []
    assert exported(app) == EXPORTED


def test_a_day_before_its_month_is_a_warning_at_each_day_left_out(make_app, rootdir, tmp_path):
    """A day added before the first month, underlined as the days are (an
    editor's round trip): docutils makes the days the page's first level
    and the month a section of that day, so no line of the page was a
    ruling, without a word.  A warning at each day left out."""
    srcdir = edited_root(rootdir, tmp_path, 'before', {
        'faq/2021.rst': [('\n21/01\n=====\n', '\n1/4\n-------\n\n| 邮件：\n| '
                          '「`倍倍伤害`_」发动后，受到战斗伤害和造成效果伤害是同时适用的。\n'
                          '\n21/01\n=====\n')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    told = ('is under no month section, so its lines are no rulings: write it under its '
            "month's section (YY/MM), underlined as the other days are [handbook.ruling-day]")
    assert own_warnings(app) == [f"faq/2021.rst:15: WARNING: day section '1/4' {told}",
                                 f"faq/2021.rst:24: WARNING: day section '1/5' {told}",
                                 f"faq/2021.rst:37: WARNING: day section '2/9' {told}"]


def test_a_section_of_a_month_in_an_editors_words_is_no_day_and_no_note(
        make_app, rootdir, tmp_path):
    """A section of a month whose title holds no digit (说明) is the
    editor's own: no note, and the days after it are the root's."""
    srcdir = edited_root(rootdir, tmp_path, 'words', {
        'faq/2021.rst': [('\n2/9\n-------\n', '\n说明\n-------\n\n| 以下为说明。\n\n2/9\n-------\n')]})
    assert exported(quiet_build(make_app, srcdir)) == EXPORTED


def test_dates_in_brackets_in_lists_and_before_a_colon(make_app, rootdir, tmp_path):
    """Dates written in brackets (one, or two in a list), two in a list,
    before a colon, or with a remark in brackets after them: each sentence
    is one ruling with its dates, and its text is left without what only
    held the dates (no empty brackets, no leading colon, no trailing 、).
    Two sentences, each with its own date, stay two rulings."""
    lines = ['| 「`地缚神`_」怪兽立即被自身效果破坏。（17/3/24）',
             '| 「`地缚神`_」怪兽不能发动效果。（17/3/24；17/4/1）',
             '| 17/7/28：「`罪`_」怪兽立即被自身效果破坏。',
             '| 「`罪`_」怪兽造成效果伤害后也是同时造成的伤害。17/3/24、17/12/22',
             '| 「`噩梦之拷问室`_」的效果会连锁发动2次。\\ :ruling:`17/3/24`'
             '\\ （\\ :ruling:`17/7/28` 修正）',
             '| 「`罪`_」怪兽被一时除外后，仍然是连接召唤的怪兽。17/8/10 18/11/25',
             '| 「`罪`_」怪兽变成里侧后，不再是P召唤的怪兽。14/11/14 「`地缚神`_」被一时除外后，'
             '还是P召唤的怪兽。16/1/8',
             '| 17/3/24、17/12/22：「`罪`_」怪兽不能发动效果。',
             '| 「`地缚神`_」怪兽被破坏。【17/3/24】',
             '| 「`罪`_」怪兽不能发动效果。（17/3/24、17/4/2 修正）',
             # a sentence that starts with a bracket but goes on is no remark
             '| 「`罪`_」怪兽被除外。\\ :ruling:`17/3/24` '
             '（1）「`地缚神`_」怪兽被破坏。\\ :ruling:`17/4/2`']
    srcdir = edited_root(rootdir, tmp_path, 'shapes', {'chapter.rst': [
        ('\n.. _同时处理:\n', '\n句型\n----\n\n' + '\n'.join(lines) + '\n\n.. _同时处理:\n')]})
    app = warning_free_build(make_app, srcdir)
    data = json.loads((app.outdir / 'rulings.json').read_text(encoding='utf-8'))
    assert [(r['dates'], r['cards'], r['text']) for r in data['rulings']
            if r['section']['title'] == '句型'] == [
        (['2017-03-24'], ['地缚神'], '「地缚神」怪兽立即被自身效果破坏。'),
        (['2017-03-24', '2017-04-01'], ['地缚神'], '「地缚神」怪兽不能发动效果。'),
        (['2017-07-28'], ['罪'], '「罪」怪兽立即被自身效果破坏。'),
        (['2017-03-24', '2017-12-22'], ['罪'], '「罪」怪兽造成效果伤害后也是同时造成的伤害。'),
        (['2017-03-24', '2017-07-28'], ['噩梦之拷问室'],
         '「噩梦之拷问室」的效果会连锁发动2次。（修正）'),
        (['2017-08-10', '2018-11-25'], ['罪'], '「罪」怪兽被一时除外后，仍然是连接召唤的怪兽。'),
        (['2014-11-14'], ['罪'], '「罪」怪兽变成里侧后，不再是P召唤的怪兽。'),
        (['2016-01-08'], ['地缚神'], '「地缚神」被一时除外后，还是P召唤的怪兽。'),
        (['2017-03-24', '2017-12-22'], ['罪'], '「罪」怪兽不能发动效果。'),
        (['2017-03-24'], ['地缚神'], '「地缚神」怪兽被破坏。'),
        (['2017-03-24', '2017-04-02'], ['罪'], '「罪」怪兽不能发动效果。（修正）'),
        (['2017-03-24'], ['罪'], '「罪」怪兽被除外。'),
        (['2017-04-02'], ['地缚神'], '（1）「地缚神」怪兽被破坏。')]


def test_remarks_joined_dates_and_dates_written_first(make_app, rootdir, tmp_path):
    """A remark in brackets after a ruling is that ruling's, with or without
    a date in it, when another ruling follows on the line; dates joined by
    ，、和 / are one ruling's; a line whose dates come before what they date
    (17/3/24：…, 【17/3/24】…) holds one ruling per date; a 。 or ？ in
    quoted text (『…』) ends no sentence.  No ruling is empty, none starts
    with what joined two dates."""
    lines = ['| 「`罪`_」怪兽被除外。\\ :ruling:`17/3/24`\\ （\\ :ruling:`17/7/28` 修正） '
             '「`地缚神`_」怪兽被破坏。\\ :ruling:`17/12/22`',
             '| 「`罪`_」怪兽被除外。\\ :ruling:`17/3/24`\\ （裁定变更） 「`地缚神`_」怪兽被破坏。'
             '\\ :ruling:`17/7/28`',
             '| 「`罪`_」怪兽不能发动效果。（17/3/24 调整中） 「`地缚神`_」怪兽被破坏。（17/7/28）',
             '| 「`罪`_」怪兽被除外。17/3/24，17/12/22 「`地缚神`_」怪兽被破坏。17/7/28',
             '| 「`罪`_」怪兽被除外。\\ :ruling:`17/3/24` 和 :ruling:`17/12/22`',
             '| 「`罪`_」怪兽被除外。\\ :ruling:`17/3/24` / :ruling:`17/12/22`',
             '| 17/3/24：「`罪`_」怪兽被除外。17/12/22：「`地缚神`_」怪兽被破坏。',
             '| 【17/3/24】「`罪`_」怪兽被除外。【17/7/28】「`地缚神`_」怪兽被破坏。',
             # quoted text's 。 and ？ end no sentence
             '| 「`罪`_」\\ :ruling:`17/3/24`\\ 记述是『这张卡不能发动。那之后抽1张』，不是同时进行。'
             '「`地缚神`_」怪兽被破坏。\\ :ruling:`17/7/28`',
             '| 「`罪`_」\\ :ruling:`17/3/24`\\ 对『可以发动吗？』的回答是可以。'
             '「`地缚神`_」怪兽被破坏。\\ :ruling:`17/7/28`',
             # a space before the remark; a label in brackets is no remark; dates at the end
             '| 「`罪`_」怪兽被除外。17/3/24 （17/7/28 修正） 「`地缚神`_」怪兽被破坏。17/12/22',
             '| 「`罪`_」怪兽被除外。17/3/24 【问】「`地缚神`_」怪兽能否发动？【答】不能。17/7/28',
             '| 17/3/24：「`罪`_」怪兽被除外。17/7/28、17/12/22']
    srcdir = edited_root(rootdir, tmp_path, 'remarks', {'chapter.rst': [
        ('\n.. _同时处理:\n', '\n句型\n----\n\n' + '\n'.join(lines) + '\n\n.. _同时处理:\n')]})
    app = warning_free_build(make_app, srcdir)
    data = json.loads((app.outdir / 'rulings.json').read_text(encoding='utf-8'))
    out, banished, destroyed = '「罪」怪兽被除外。', '「罪」怪兽不能发动效果。', '「地缚神」怪兽被破坏。'
    assert [(r['dates'], r['cards'], r['status'], r['text']) for r in data['rulings']
            if r['section']['title'] == '句型'] == [
        (['2017-03-24', '2017-07-28'], ['罪'], [], f'{out}（修正）'),
        (['2017-12-22'], ['地缚神'], [], destroyed),
        (['2017-03-24'], ['罪'], ['changed'], f'{out}（裁定变更）'),
        (['2017-07-28'], ['地缚神'], [], destroyed),
        (['2017-03-24'], ['罪'], ['open'], f'{banished}（调整中）'),
        (['2017-07-28'], ['地缚神'], [], destroyed),
        (['2017-03-24', '2017-12-22'], ['罪'], [], out),
        (['2017-07-28'], ['地缚神'], [], destroyed),
        (['2017-03-24', '2017-12-22'], ['罪'], [], out),
        (['2017-03-24', '2017-12-22'], ['罪'], [], out),
        (['2017-03-24'], ['罪'], [], out),
        (['2017-12-22'], ['地缚神'], [], destroyed),
        (['2017-03-24'], ['罪'], [], out),
        (['2017-07-28'], ['地缚神'], [], destroyed),
        (['2017-03-24'], ['罪'], [], '「罪」记述是『这张卡不能发动。那之后抽1张』，不是同时进行。'),
        (['2017-07-28'], ['地缚神'], [], destroyed),
        (['2017-03-24'], ['罪'], [], '「罪」对『可以发动吗？』的回答是可以。'),
        (['2017-07-28'], ['地缚神'], [], destroyed),
        (['2017-03-24', '2017-07-28'], ['罪'], [], f'{out}（修正）'),
        (['2017-12-22'], ['地缚神'], [], destroyed),
        (['2017-03-24'], ['罪'], [], out),
        (['2017-07-28'], ['地缚神'], [], '【问】「地缚神」怪兽能否发动？【答】不能。'),
        (['2017-03-24', '2017-07-28', '2017-12-22'], ['罪'], [], out)]


def test_an_outdated_day_that_links_no_section_is_outdated_all_the_same(
        make_app, rootdir, tmp_path):
    """An outdated day whose note points to the newer rulings with ``:doc:``
    (no ``:ref:``): its rulings are superseded all the same (before, they
    showed as current on card pages), with no link to follow, and a note
    at the admonition says how to give one."""
    srcdir = edited_root(rootdir, tmp_path, 'doc-link', {'faq/2021.rst': [(
        '最新调整见\\ :ref:`同时处理`\\ 中的内容。', '最新调整见\\ :doc:`/chapter`\\ 中的内容。')]})
    app = warning_free_build(make_app, srcdir)
    assert notes(app, srcdir) == [
        "faq/2021.rst:34: note: the day '2/9' is outdated, but its note links no section with "
        ':ref:, so its rulings show 已过时 with no link to what supersedes them: link that '
        'section, 最新调整见\\ :ref:`标签`\\ 中的内容 [handbook.ruling-day]']
    assert exported(app) == EXPORTED
    data = json.loads((app.outdir / 'rulings.json').read_text(encoding='utf-8'))
    assert [r['superseded_by'] for r in data['rulings'] if 'superseded' in r['status']] == [None]
    assert ('<span class="ruling-badge ruling-badge-superseded">已过时</span></div>'
            in html(app, 'faq/2021'))


def test_date_links_in_brackets_and_among_words(make_app, rootdir, tmp_path):
    """A legacy date link written in brackets (``（17/3/24）``, ``[17/4/2]``)
    is a ruling reference, shown as written; one whose text holds a date
    among words (``17/3/24 FAQ``) is no ruling, with a note at its line
    whose link, the date alone, is one."""
    def line(text, card):
        return f'| 「`{card}`_」怪兽不能发动效果。\\ `{text} <{FAQ}>`__'

    shapes = [line('（17/3/24）', '地缚神'), line('17/3/24 FAQ', '罪'), line('[17/4/2]', '罪'),
              line('说明 13/14/15', '罪')]  # no calendar date: no note (its fix would fail)
    srcdir = edited_root(rootdir, tmp_path, 'links', {'chapter.rst': [
        ('\n.. _同时处理:\n', '\n句型\n----\n\n' + '\n'.join(shapes) + '\n\n.. _同时处理:\n')]})
    app = warning_free_build(make_app, srcdir)
    assert notes(app, srcdir) == [
        "chapter.rst:12: note: the link '17/3/24 FAQ' holds the date 17/3/24 among other words, "
        f'so it dates no ruling: write the date alone as its text, `17/3/24 <{FAQ}>`__ '
        '[handbook.ruling-plain]']
    data = json.loads((app.outdir / 'rulings.json').read_text(encoding='utf-8'))
    found = [(r['cards'], [(x['written'], x['faq']) for x in r['references']])
             for r in data['rulings'] if r['section']['title'] == '句型']
    assert found == [(['地缚神'], [('17/3/24', '19691')]), (['罪'], [('17/4/2', '19691')])]
    href = FAQ.replace('&', '&amp;')
    shown = f'<a class="ruling reference external" href="{href}">（17/3/24）</a>'
    assert shown in html(app, 'chapter')


def test_months_with_no_days_stay_months(make_app, rootdir, tmp_path):
    """A year page whose month sections hold their lines with no day sections
    is no page of days right under its title: its months (``21/01`` under
    ``2021``) are not read as days, and nothing is reported; the lines with
    a date of their own stay rulings, dated by it."""
    srcdir = edited_root(rootdir, tmp_path, 'months', {'faq/2021.rst': [
        ('\n1/5\n-------\n\n', '\n'), ('\n2/9\n-------\n\n', '\n')]})
    app = warning_free_build(make_app, srcdir)
    assert [(r[1], r[2]) for r in exported(app) if r[0] == 'faq/2021'] == [
        ('ruling-2021-01-06-手札抹杀', '2021-01-06'),
        ('ruling-2021-01-06-faq19691-神之宣告', '2021-01-06')]


WIKI = '`21/1/6 <https://yugioh-wiki.net/index.php?cmd=read&page=FAQ>`__'
DECK = '「`手札抹杀`_」的效果处理时，双方卡组数量都小于要抽的数量的场合，决斗平局。'
HELL = ('「`试胆竞速`_」的效果适用中，自己基本分7500，对方基本分8000的状态，自己发动「`火炎地狱`_」，'
        '给对方造成伤害和自己受到伤害同时进行，结果对方基本分7000，自己因「`试胆竞速`_」的效果不受伤害。')


def lone_dates(rootdir, tmp_path, name: str, fixed: bool):
    """The root with a date on a line or in a paragraph of its own, below the
    sentence it dates (a day's wiki link, a chapter's line and paragraph), or,
    *fixed*, each date at the end of that sentence as the notes say."""
    glue = '\\ ' if fixed else '\n| '
    chapter = (f'\n独立的日期\n----------\n\n| {HELL}{glue}:ruling:`21/2/9`\n\n'
               f'{DECK}{"" if fixed else chr(10) * 2}（21/1/6）\n')
    if not fixed:  # under a label: no line to move them to
        chapter += '\n| 例：\n| :ruling:`21/2/9` :ruling:`21/2/10`\n'
    srcdir = edited_root(rootdir, tmp_path, name, {
        'faq/2021.rst': [(f'| {DECK}\\ {WIKI}', f'| {DECK}{glue}{WIKI}')]})
    with (srcdir / 'chapter.rst').open('a', encoding='utf-8') as page:
        page.write(chapter)
    return srcdir


def test_a_line_that_holds_only_a_date_is_no_ruling(make_app, rootdir, tmp_path):
    """A date on a line or in a paragraph of its own, below the sentence it
    dates, is no ruling (it was one with no text: an empty result in the
    search, the feed and the card pages); a note at it says where it goes."""
    srcdir = lone_dates(rootdir, tmp_path, 'lone', fixed=False)
    app = warning_free_build(make_app, srcdir)
    assert notes(app, srcdir) == [
        'chapter.rst:23: note: this line holds only its date 21/2/9, so it is no ruling: a date '
        'dates the sentence it ends; if the line above is what it dates, move it to its end, '
        'line 22 (after "…胆竞速」的效果不受伤害。", joined by "\\ ") '
        '[handbook.ruling-alone]',
        'chapter.rst:27: note: this paragraph holds only its date 21/1/6, so it is no ruling: '
        'a date dates the sentence it ends; if the paragraph above is what it dates, move it '
        'to its end, line 25 (after "…的数量的场合，决斗平局。", joined by "\\ ") '
        '[handbook.ruling-alone]',
        'chapter.rst:30: note: this line holds only its dates 21/2/9, 21/2/10, so it is no '
        'ruling: a date dates the sentence it ends; write them at the end of the sentence they '
        'date [handbook.ruling-alone]',
        'faq/2021.rst:27: note: this line holds only its date 21/1/6, so it is no ruling: a '
        'date dates the sentence it ends; if the line above is what it dates, move it to its '
        'end, line 26 (after "…的数量的场合，决斗平局。", joined by "\\ ") '
        '[handbook.ruling-alone]']
    rulings = exported(app)
    assert all(text for *_, text in rulings)
    assert [r[1] for r in rulings if r[0] == 'chapter' and '2021' in r[1]] == []
    deck = [r for r in rulings if r[1].startswith('ruling-2021-01-05-手札抹杀')]
    assert [(r[3], r[5]) for r in deck] == [
        (['21/1/5'], [{'kind': 'wiki', 'faq': None, 'label': None}])]


def test_the_lone_dates_where_the_notes_say(make_app, rootdir, tmp_path):
    """The fix of the notes above: each date at the end of the sentence above
    it.  No note; the day's ruling is the root's, and the chapter's line and
    paragraph are rulings of their dates."""
    srcdir = lone_dates(rootdir, tmp_path, 'joined', fixed=True)
    app = quiet_build(make_app, srcdir)
    rulings = exported(app)
    assert [r for r in rulings if r[0] != 'chapter' or '2021' not in r[1]] == EXPORTED
    assert [(r[1], r[3], r[6]) for r in rulings if r[0] == 'chapter' and '2021' in r[1]] == [
        ('ruling-2021-02-09-试胆竞速', ['21/2/9'], ['试胆竞速', '火炎地狱']),
        ('ruling-2021-01-06-手札抹杀', ['21/1/6'], ['手札抹杀'])]


def test_a_ruling_in_a_table_names_the_card_of_its_row(make_app, rootdir, tmp_path):
    """A table of 卡名 | 裁定: a ruling in a cell also names the cards of the
    row's cells that hold no ruling, in the row's order (card pages list it,
    its id names the row's card); a cell that is a ruling of its own lends
    its cards to no other."""
    srcdir = tmp_path / 'table'
    shutil.copytree(rootdir / 'test-yearly-faq', srcdir)
    faq = (srcdir / 'faq' / '2021.rst').read_text(encoding='utf-8').splitlines()
    hell, deck = faq[36].removeprefix('| '), faq[25].removeprefix('| ')
    assert hell.startswith('「`试胆竞速`_」') and deck.startswith('「`手札抹杀`_」')
    with (srcdir / 'chapter.rst').open('a', encoding='utf-8') as chapter:
        chapter.write('\n表\n--\n\n.. list-table::\n   :header-rows: 1\n\n'
                      '   * - 卡名\n     - 裁定\n     - 裁定\n'
                      f'   * - 「`火炎地狱`_」\n     - {hell}\\ :ruling:`21/2/9`\n     - {deck}\n')
    app = warning_free_build(make_app, srcdir)
    added = [(anchor, cards) for page, anchor, _date, _written, _status, _sources, cards, _text
             in exported(app) if page == 'chapter' and '2021' in anchor]
    assert added == [('ruling-2021-02-09-火炎地狱', ['火炎地狱', '试胆竞速']),
                     ('ruling-2021-01-06-火炎地狱', ['火炎地狱', '手札抹杀'])]
    card_page = (app.outdir / 'cards' / '火炎地狱.html').read_text(encoding='utf-8')
    assert 'ruling-2021-02-09-火炎地狱' in card_page


def test_days_with_no_month_sections(make_app, rootdir, tmp_path):
    """A year of few rulings, its days right under a page title that is the
    year (no month sections), is dated as one with months; so are days
    titled with their year (``21/1/5``) under any title.  (The root's 2021
    page has its months under the title: they stay months.)"""
    assert (rootdir / 'test-yearly-faq' / 'faq' / '2021.rst').read_text(
        encoding='utf-8').startswith('====\n2021\n====\n')
    srcdir = edited_root(rootdir, tmp_path, 'no-months', {
        'faq/2019.rst': [('19/04\n=====\n\n', ''), ('5月\n===\n\n', '')],
        'faq/2021.rst': [('====\n2021\n====\n', '=======\n官方FAQ\n=======\n'),
                         ('21/01\n=====\n\n', ''), ('\n1/5\n---', '\n21/1/5\n---'),
                         ('\n2/9\n---', '\n21/2/9\n---')]})
    app = quiet_build(make_app, srcdir)
    assert exported(app) == EXPORTED


@pytest.mark.sphinx('html', testroot='yearly-faq', freshenv=True,
                    confoverrides={'handbook_faq_pages': ['faq/2019']})
def test_only_the_pages_faq_pages_names_are_dated_by_their_sections(app):
    app.build()
    pages = {r[0] for r in exported(app)}
    # on 2021 only the lines with a date of their own are rulings, dated by it
    assert [(r[1], r[2]) for r in exported(app) if r[0] == 'faq/2021'] == [
        ('ruling-2021-01-06-手札抹杀', '2021-01-06'),
        ('ruling-2021-01-06-faq19691-神之宣告', '2021-01-06')]
    assert 'faq/2019' in pages


def test_a_moved_label_rewrites_the_pages_that_refer_to_it(make_app, rootdir, tmp_path):
    """An incremental build after an edit that moves, retitles or removes a
    label writes again the pages that :ref: it, as a clean build does: the
    outdated day's link and its note's :ref: follow the label; a removed
    label's :ref: is reported."""
    srcdir = edited_root(rootdir, tmp_path, 'moved', {})
    make_app('html', srcdir=srcdir).build()
    app = rebuilt(make_app, srcdir, {
        'chapter.rst': [('.. _同时处理:\n\n', '')],
        'faq/2019.rst': [('19/04\n=====', '.. _同时处理:\n\n19/04\n=====')]})
    assert own_warnings(app) == []
    page = html(app, 'faq/2021')
    assert '<a class="ruling-superseded-by" href="2019.html#同时处理">→ 最新调整</a>' in page
    assert 'href="2019.html#同时处理"><span class="std std-ref">19/04</span>' in page
    # and the card pages that link it
    assert ('<a class="ruling-superseded-by" href="../faq/2019.html#同时处理">→ 最新调整</a>'
            in html(app, 'cards/火炎地狱'))
    app = rebuilt(make_app, srcdir, {'faq/2019.rst': [('.. _同时处理:\n\n', '')]})
    assert own_warnings(app) == [
        "faq/2021.rst:34: ERROR: undefined label '同时处理', so the link leads nowhere (its text "
        'is shown plain): define it on the line before the section it names, .. _同时处理:, or '
        'write a label the handbook defines, or, for a section not written yet, list it in '
        "planned_sections of the handbook's handbook.toml [handbook.ref]"]


def test_a_label_moved_to_a_page_read_before_stays_defined(make_app, rootdir, tmp_path):
    """A label moved, in one edit, from a page read later to a page read
    before it (faq/2019 to chapter): the domain still held the later page's
    old definition when the first was read, so the label was dropped from
    both and an incremental build said it was undefined (an editor's round
    trip; a clean build passed).  Now it is defined where it moved, as in a
    clean build."""
    srcdir = edited_root(rootdir, tmp_path, 'moved-back', {
        'chapter.rst': [('.. _同时处理:\n\n', '')],
        'faq/2019.rst': [('19/04\n=====', '.. _同时处理:\n\n19/04\n=====')]})
    make_app('html', srcdir=srcdir).build()
    app = rebuilt(make_app, srcdir, {
        'faq/2019.rst': [('.. _同时处理:\n\n', '')],
        'chapter.rst': [('同时处理\n--------', '.. _同时处理:\n\n同时处理\n--------')]})
    assert own_warnings(app) == []
    assert '<a class="ruling-superseded-by" href="../chapter.html#同时处理">→ 最新调整</a>' \
        in html(app, 'faq/2021')


@pytest.mark.parametrize('silenced', [False, True], ids=['warned', 'suppress_warnings'])
def test_the_duplicate_of_a_label_deleted_leaves_the_other_defined(
        make_app, rootdir, tmp_path, silenced):
    """A label of faq/2019 defined again on a page read before it (chapter),
    in an incremental build, which reads chapter alone: chapter drops it.
    The warning is at faq/2019, the second in page order; deleted there, as
    the warning says, the label was defined nowhere until a clean build
    (an editor's round trip).  The page that dropped it is read again with
    the page that held it, and defines it (also where the handbook silenced
    the warning)."""
    conf = {'suppress_warnings': ['handbook.label']} if silenced else {}
    srcdir = edited_root(rootdir, tmp_path, 'duplicate', {
        'chapter.rst': [('.. _同时处理:\n\n', '')],
        'faq/2019.rst': [('19/04\n=====', '.. _同时处理:\n\n19/04\n=====')]})
    make_app('html', srcdir=srcdir, confoverrides=conf).build()
    app = rebuilt(make_app, srcdir, {
        'chapter.rst': [('同时处理\n--------', '.. _同时处理:\n\n同时处理\n--------')]},
        confoverrides=conf)
    assert own_warnings(app) == ([] if silenced else [
        "faq/2019.rst:9: WARNING: duplicate label '同时处理': chapter.rst:8 defines it already; "
        'labels are unique across the handbook: rename one (and the :ref: that mean it) '
        '[handbook.label]'])
    app = rebuilt(make_app, srcdir, {'faq/2019.rst': [('.. _同时处理:\n\n', '')]},
                  confoverrides=conf)
    assert own_warnings(app) == []
    assert '<a class="ruling-superseded-by" href="../chapter.html#同时处理">→ 最新调整</a>' \
        in html(app, 'faq/2021')


def test_a_label_defined_twice_on_one_page_is_said_where_it_is_referred_to(
        make_app, rootdir, tmp_path):
    """A label defined twice on one page: docutils drops it (its "Duplicate
    explicit target name", at the second), and the :ref: to it said the
    label is undefined, with the fix to define it (an editor's round trip).
    The error says where it is defined twice and to delete one."""
    srcdir = edited_root(rootdir, tmp_path, 'twice', {
        'chapter.rst': [('- | 同时处理的效果', '.. _同时处理:\n\n- | 同时处理的效果')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert own_warnings(app) == [
        # docutils' own, at the second
        'chapter.rst:15: WARNING: Duplicate explicit target name: "同时处理". [docutils]',
        "faq/2021.rst:34: ERROR: label '同时处理' is defined twice on chapter.rst (lines 8 and "
        '15), so docutils drops it and the link leads nowhere (its text is shown plain): delete '
        'all but one of the .. _同时处理: lines, or rename one (and the :ref: that mean it) '
        '[handbook.ref]']


@pytest.mark.parametrize('written, where', [
    ('「 `罪`_」', 'after 「'), ('「`罪`_　」', 'before 」'), ('「 `罪`_ 」', 'after 「 and before 」')])
def test_a_space_inside_the_brackets_of_a_card_link_is_said_as_it_is(
        make_app, rootdir, tmp_path, written, where):
    """「 `卡名`_」: a space between 「 and the link was said to be "no opening
    「", whose fix, applied, left the 「 and its space before the link (an
    editor's round trip).  The error names the space; its fix, applied as
    written, leaves no report."""
    srcdir = edited_root(rootdir, tmp_path, 'spaced', {'chapter.rst': [('「`罪`_」', written)]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert own_warnings(app) == [
        f"chapter.rst:13: ERROR: card link {written!r} has a space {where}: write 「`罪`_」 "
        '[handbook.card-markup]']
    app = rebuilt(make_app, srcdir, {'chapter.rst': [(written, '「`罪`_」')]})
    assert own_warnings(app) == [] and notes(app, srcdir) == []


@pytest.mark.parametrize('fid, problem', [
    ('fid=1969l', "has the FAQ id '1969l' (fid=), which is no number of at most 9 digits"),
    ('fid=99999999999999999999999999', "has the FAQ id '99999999999999999999999999' (fid=), "
                                       'which is no number of at most 9 digits'),
    ('', "has no fid=, so it opens the official FAQ's search, not its answer")])
def test_an_faq_address_without_its_number_is_an_error(make_app, rootdir, tmp_path, fid, problem):
    """The official FAQ's address with its id mistyped or missing: the
    badge said 数据库 #1969l, or the link opened the FAQ's search, with no
    report (an editor's round trip).  An error at its line; the source is
    the FAQ, with no number."""
    url = ('https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&'
           f'{fid + "&" if fid else ""}request_locale=ja')
    srcdir = edited_root(rootdir, tmp_path, 'fid', {'faq/2021.rst': [
        ('faq_search.action?ope=5&fid=19691&request_locale=ja',
         url.removeprefix('https://www.db.yugioh-card.com/yugiohdb/'))]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert own_warnings(app) == [
        f"faq/2021.rst:29: ERROR: ruling URL '{url}' {problem}: write the number of the answer, "
        "as the FAQ's own address gives it, or the date alone, :ruling:`21/1/6` "
        '[handbook.ruling]']
    data = json.loads((app.outdir / 'rulings.json').read_text(encoding='utf-8'))
    sources = [r['sources'] for r in data['rulings']
               if r['page'] == 'faq/2021' and '神之宣告' in r['cards']]
    assert sources == [[{'kind': 'faq', 'faq': None, 'label': None}]]
    assert '#1969l' not in html(app, 'faq/2021')  # (the badge said 数据库 #1969l)


def test_a_directive_written_with_one_colon_is_a_warning(make_app, rootdir, tmp_path):
    """``.. attention: …`` with one colon: docutils reads a comment and says
    nothing; the outdated day's note was gone, its rulings no longer outdated
    (an editor's round trip).  A warning at its line, with the fix; written
    as it says, the root is as it was.  A comment in other words (the root's
    own) is none."""
    srcdir = edited_root(rootdir, tmp_path, 'comment', {
        'faq/2021.rst': [('.. attention:: 这些', '.. attention: 这些')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert own_warnings(app) == [
        "faq/2021.rst:34: WARNING: comment '.. attention: 这些调整已经过时，最新调整见\\\\ :ref:`同时处理…' "
        'reads as the directive attention written with one colon: docutils took it for a '
        'comment, which readers do not see: write .. attention:: (two colons), or start the '
        'comment with other words if it is one [handbook.markup]']
    app = rebuilt(make_app, srcdir,
                  {'faq/2021.rst': [('.. attention: 这些', '.. attention:: 这些')]})
    assert own_warnings(app) == []
    assert exported(app) == EXPORTED


def test_a_struck_line_broken_over_two_lines_is_joined(make_app, rootdir, tmp_path):
    """A whole struck line broken over two lines of the line block, its
    closing backquote on the second: the fixes said were "close it on its
    line", then "delete the stray backquote" of the next, which made that
    line's 调整中。 a ruling of its own, an open question (an editor's round
    trip).  One error: join the two lines; joined as it says, the root is as
    it was."""
    srcdir = edited_root(rootdir, tmp_path, 'broken', {
        'faq/2021.rst': [('的效果影响，调整中。`', '的效果影响，\n| 调整中。`')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert own_warnings(app) == [
        'faq/2021.rst:23: WARNING: Inline interpreted text or phrase reference start-string '
        'without end-string. [docutils]',  # docutils' own, beside ours
        'faq/2021.rst:23: ERROR: role :strike: is not closed on its line: its closing backquote '
        'is on the next line of the line block (24), which a role cannot reach (readers see its '
        "markup): join the two lines, deleting the line break and the '| ' before '调整中。' "
        '[handbook.markup]']
    app = rebuilt(make_app, srcdir, {'faq/2021.rst': [('\n| 调整中。`', '调整中。`')]})
    assert own_warnings(app) == []
    assert exported(app) == EXPORTED


def test_a_misspelt_role_or_directive_gets_the_one_it_means(make_app, rootdir, tmp_path):
    """``:stirke:`` and ``.. attension::``: docutils' errors say no fix (an
    editor's round trip); a note at each gives the role or directive the
    name misspells; applied as written, no report.  A name far from any
    (``:日期:``) gets docutils' error alone."""
    srcdir = edited_root(rootdir, tmp_path, 'misspelt', {'faq/2021.rst': [
        (':strike:`「死者苏生」', ':stirke:`「死者苏生」'), ('.. attention::', '.. attension::')],
        'chapter.rst': [(':ruling:`17/3/24`', ':日期:`17/3/24`')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert [w for w in own_warnings(app) if 'Unknown' in w] == [
        'chapter.rst:13: ERROR: Unknown interpreted text role "日期". [docutils]',
        'faq/2021.rst:23: ERROR: Unknown interpreted text role "stirke". [docutils]',
        'faq/2021.rst:34: ERROR: Unknown directive type "attension".']  # (its text follows)
    assert notes(app, srcdir) == [
        "faq/2021.rst:23: note: :stirke: is no role (docutils' error at this line): write "
        ':strike:`…`, the role it misspells [handbook.unknown-markup]',
        "faq/2021.rst:34: note: .. attension:: is no directive (docutils' error at this line): "
        'write .. attention::, the directive it misspells [handbook.unknown-markup]']
    app = rebuilt(make_app, srcdir, {'faq/2021.rst': [(':stirke:', ':strike:'),
                                                      ('.. attension::', '.. attention::')]})
    assert [w for w in own_warnings(app) if 'faq/2021' in w] == []
    assert [n for n in notes(app, srcdir) if 'unknown-markup' in n] == []


def own_warnings(app) -> list[str]:
    """The warnings of a build but those of a second app in one process
    (it sets Sphinx's own nodes up again)."""
    return [w for w in warnings(app) if not w.startswith('WARNING: while setting up')]


def test_a_removed_page_leaves_no_file(make_app, rootdir, tmp_path):
    """A page whose source is removed (and its toctree entry) leaves no file
    of its own in the output: its HTML, its source's copy, its related
    sections' entry, as a clean build has none."""
    srcdir = edited_root(rootdir, tmp_path, 'removed', {
        'index.rst': [('   faq/2019\n', '   faq/2019\n   faq/2020\n')]})
    (srcdir / 'faq' / '2020.rst').write_text(
        (srcdir / 'faq' / '2019.rst').read_text(encoding='utf-8').replace('2019年', '2020年'),
        encoding='utf-8')
    first = make_app('html', srcdir=srcdir)
    first.build()
    files = [first.outdir / 'faq' / '2020.html', first.outdir / '_sources' / 'faq' / '2020.rst.txt',
             first.outdir / '_related' / 'faq' / '2020.js']
    assert [path.is_file() for path in files] == [True, True, True]
    (srcdir / 'faq' / '2020.rst').unlink()
    index = srcdir / 'index.rst'
    index.write_text(index.read_text(encoding='utf-8').replace('   faq/2020\n', ''), encoding='utf-8')
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert own_warnings(app) == []
    assert [path.exists() for path in files] == [False, False, False]


def test_a_page_taken_out_of_the_toctree_leaves_no_page_showing_it(make_app, rootdir, tmp_path):
    """Every page shows the site's navigation (furo's): a page removed from
    the toctree (a round trip: the pages not read again, the card pages and
    the timeline's kept it in their navigation and their next link), or a
    caption given to the toctree, writes every page again; a build with no
    change, none."""
    srcdir = tmp_path / 'navigation'
    shutil.copytree(rootdir / 'test-yearly-faq-listings', srcdir)
    furo = {'confoverrides': {'html_theme': 'furo'}}
    first = make_app('html', srcdir=srcdir, **furo)
    first.build()
    assert 'href="recent.html"' in html(first, 'chapter')
    index = srcdir / 'index.rst'
    index.write_text(index.read_text(encoding='utf-8').replace('   recent\n', ''),
                     encoding='utf-8')
    (srcdir / 'recent.rst').unlink()
    app, written = written_by(make_app, srcdir, **furo)
    assert own_warnings(app) == []
    assert {'chapter', 'faq/2021', 'timeline', 'card-index'} <= written
    assert any(name.startswith('cards/') for name in written)
    showing = sorted(str(path.relative_to(app.outdir)) for path in app.outdir.rglob('*.html')
                     if 'recent.html' in path.read_text(encoding='utf-8'))
    assert showing == []
    index.write_text(index.read_text(encoding='utf-8').replace(
        '.. toctree::\n', '.. toctree::\n   :caption: 本手册的页面\n'), encoding='utf-8')
    app, written = written_by(make_app, srcdir, **furo)
    assert all('本手册的页面' in html(app, name) for name in ('chapter', 'timeline/2021'))
    _, written = written_by(make_app, srcdir, **furo)
    assert written <= {'genindex', 'search'}
    # a page's second title of the first level, which the navigation shows
    # too, retitled (a review: only the first was digested)
    chapter = srcdir / 'chapter.rst'
    chapter.write_text(chapter.read_text(encoding='utf-8')
                       + '\n其他处理\n========\n\n没有裁定的段落。\n', encoding='utf-8')
    app, _ = written_by(make_app, srcdir, **furo)
    assert '其他处理' in html(app, 'faq/2021')
    chapter.write_text(chapter.read_text(encoding='utf-8').replace('其他处理', '别的处理'),
                       encoding='utf-8')
    app, written = written_by(make_app, srcdir, **furo)
    assert '别的处理' in html(app, 'faq/2021') and '其他处理' not in html(app, 'faq/2021')


def test_a_page_that_warned_warns_again(make_app, rootdir, tmp_path):
    """A build again with no change says a page's problem again (and fails
    under -W as the first did), until it is fixed; a page with notes only is
    not read again."""
    srcdir = edited_root(rootdir, tmp_path, 'warned', {})
    chapter = srcdir / 'chapter.rst'
    chapter.write_text(chapter.read_text(encoding='utf-8') + '\n| 「罪」未链接。\n', encoding='utf-8')
    warning = ('chapter.rst:19: WARNING: 「罪」 is a card name in the registry but not linked: '
               'write 「`罪`_」 (make fix does it) [handbook.unlinked]')
    read: list[list[str]] = []
    for _ in range(2):
        app = make_app('html', srcdir=srcdir)
        app.connect('env-before-read-docs', lambda app, env, docnames: read.append(list(docnames)))
        app.build()
        assert own_warnings(app) == [warning]
    assert read[1] == ['chapter']
    chapter.write_text(chapter.read_text(encoding='utf-8').replace('「罪」', '「`罪`_」'),
                       encoding='utf-8')
    for _ in range(2):
        app = make_app('html', srcdir=srcdir)
        app.connect('env-before-read-docs', lambda app, env, docnames: read.append(list(docnames)))
        app.build()
        assert own_warnings(app) == []
    assert read[2:] == [['chapter'], []]


def test_one_application_building_again_notes_each_builds_warnings(make_app, rootdir, tmp_path):
    """The same, with one Sphinx application building three times (as a
    host that keeps it, a test, does): each build notes its own warnings."""
    srcdir = edited_root(rootdir, tmp_path, 'warned-again', {})
    chapter = srcdir / 'chapter.rst'
    chapter.write_text(chapter.read_text(encoding='utf-8') + '\n| 「罪」未链接。\n', encoding='utf-8')
    app = make_app('html', srcdir=srcdir)
    read: list[list[str]] = []
    app.connect('env-before-read-docs', lambda app, env, docnames: read.append(list(docnames)))
    app.build()
    chapter.write_text(chapter.read_text(encoding='utf-8').replace('「罪」', '「`罪`_」'),
                       encoding='utf-8')
    app.build()
    app.build()
    assert read[1:] == [['chapter'], []]


def test_a_page_whose_included_file_warned_warns_again(make_app, rootdir, tmp_path):
    """The same where the problem is in a file the page includes: the
    warning is at the file, the page is read again."""
    srcdir = edited_root(rootdir, tmp_path, 'included', {})
    (srcdir / 'snippet.inc').write_text('| 「罪」未链接。\n', encoding='utf-8')
    chapter = srcdir / 'chapter.rst'
    chapter.write_text(chapter.read_text(encoding='utf-8') + '\n.. include:: snippet.inc\n',
                       encoding='utf-8')
    for _ in range(2):
        app = make_app('html', srcdir=srcdir)
        app.build()
        # (Sphinx writes an included file's path relative to the working folder)
        assert [re.sub(r'^.*/(?=snippet\.inc:)', '', w) for w in own_warnings(app)] == [
            'snippet.inc:1: WARNING: 「罪」 is a card name in the registry but not linked: '
            'write 「`罪`_」 (make fix does it) [handbook.unlinked]']


# -- the lists made from a yearly FAQ page (root test-yearly-faq-listings) ---------------------

LISTED = 'yearly_faq-yearly-faq-listings'
#: a timeline's or 最近更新's entry: its classes, its word (已推翻 …), the link of an
#: outdated ruling to what supersedes it, its text, where it is
ENTRY = re.compile(r'<li class="ruling-entry( ruling-changed)?"><p class="ruling-entry-text">'
                   r'(?:<span class="ruling-flag">([^<]*)</span> )?'
                   r'(?:<a class="ruling-superseded-by[^"]*" href="([^"]+)">→ 最新调整</a> )?'
                   r'(.*?)</p>\n<p class="ruling-entry-source">(.*?)</p>\n</li>', re.S)
#: the source headers of the root's FAQ page: the label of the lines under them, no ruling
HEADERS = ('邮件：', '数据库：', 'wiki:')
SECTION = '特定效果的处理方法 › 同时处理'
#: where an outdated ruling's → 最新调整 leads, from a page one folder down
NEWER = '../chapter.html#同时处理'


def entries_of(page: str, newer: str) -> list[tuple[str | None, str, str, str]]:
    """``(word, permalink, where, text)`` of each entry of a list *page*;
    an entry with a word has the class ``ruling-changed``, one without has
    not; an entry of 已过时 links *newer*, what supersedes it, no other does."""
    found = []
    for changed, word, to_newer, text, source in ENTRY.findall(page):
        assert bool(changed) is bool(word), text
        assert to_newer == (newer if word == '已过时' else ''), (word, to_newer)
        permalink = re.fullmatch(r'.*<a class="reference internal" href="([^"]+)">'
                                 r'<span class="ruling-entry-permalink">固定链接</span></a>',
                                 source, re.S)
        where = re.sub(r'<[^>]+>', '', source).removesuffix(' · 固定链接')
        found.append((word or None, permalink[1], where, text))
    return found


def resolves(app, page: str, href: str) -> bool:
    """Whether the link *href* of the output file *page* leads to a file of
    the build holding the id it names."""
    path, _, anchor = href.partition('#')
    target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)) if path else page
    file = app.outdir / target
    return file.is_file() and (not anchor or f'id="{anchor}"' in file.read_text(encoding='utf-8'))


def assert_superseded_link_works(app) -> None:
    """The outdated day's ruling, on its page: 已过时 and → 最新调整, a link to
    the section its note names, which holds the ruling that supersedes it."""
    page = html(app, 'faq/2021')
    line = re.search(r'<div class="line ruling-line" id="ruling-2021-02-09-试胆竞速">.*?</div>',
                     page, re.S)
    assert line and line[0].endswith(
        '<span class="ruling-badge ruling-badge-superseded">已过时</span>'
        '<a class="ruling-superseded-by" href="../chapter.html#同时处理">→ 最新调整</a></div>')
    assert resolves(app, 'faq/2021.html', '../chapter.html#同时处理')
    section = html(app, 'chapter').partition('id="同时处理"')[2]
    assert 'id="ruling-2021-03-06"' in section


@pytest.mark.sphinx('html', testroot='yearly-faq-listings')
@pytest.mark.test_params(shared_result=LISTED)
def test_the_timeline_lists_a_faq_pages_rulings_at_their_days(app):
    """Each ruling of a day is in the timeline at the day's date: the line
    whose own date link is 21/3/6, under 1/5, is of January (a chapter's
    ruling of 21/3/6 is of March); the struck line says 已推翻, the
    outdated day's 已过时, its permalink leading to its line, which links
    what supersedes it; the source headers are no entries."""
    app.build()
    assert_no_warnings(app)
    assert ' note: ' not in app.status.getvalue()
    overview = html(app, 'timeline')
    assert ('<p class="ruling-timeline-summary">共 5 条注明日期的裁定，最新的在前：</p>'
            in overview)
    assert ('<a class="reference internal" href="timeline/2021.html">2021 年（5 条）</a>：'
            '<a class="reference internal" href="timeline/2021.html#y2021-03">3 月</a> · '
            '<a class="reference internal" href="timeline/2021.html#y2021-02">2 月</a> · '
            '<a class="reference internal" href="timeline/2021.html#y2021-01">1 月</a>'
            in overview)
    page = html(app, 'timeline/2021')
    months = re.findall(r'<section id="(y2021-\d\d)">\n<h2>[^<]*</h2>\n(.*?)</section>',
                        page, re.S)
    listed = [(month, word, permalink, where)
              for month, body in months
              for word, permalink, where, _text in entries_of(body, NEWER)]
    faq = '../faq/2021.html#ruling-2021-'
    assert listed == [
        ('y2021-03', None, '../chapter.html#ruling-2021-03-06', SECTION),
        ('y2021-02', '已过时', faq + '02-09-试胆竞速', '21/2/9 · 2021 › 2/9'),
        ('y2021-01', None, faq + '01-05-倍倍伤害', '21/1/5 · 2021 › 1/5'),
        ('y2021-01', '已推翻', faq + '01-05-死者苏生', '21/1/5 · 2021 › 1/5'),
        ('y2021-01', None, faq + '01-05-2021-03-06-faq19691-神之宣告', '21/1/5 · 2021 › 1/5')]
    # each entry as on its page: the line's own date link kept, the struck line struck
    texts = {permalink: text for _w, permalink, _where, text in entries_of(page, NEWER)}
    assert texts[faq + '01-05-2021-03-06-faq19691-神之宣告'].endswith(
        '「<a class="card-link card-card reference external" '
        'href="https://ygocdb.com/card/name/破坏干扰">破坏干扰</a>」。<a class="ruling reference '
        'external" href="https://www.db.yugioh-card.com/yugiohdb/faq_search.action?ope=5&amp;'
        'fid=19691&amp;request_locale=ja">21/3/6</a>')
    assert texts[faq + '01-05-死者苏生'].startswith('<del class="strike">「<a class="card-link')
    assert not any(header in text for text in texts.values() for header in HEADERS)
    assert not any(header in page for header in HEADERS)
    # every link of the entries leads to its ruling, its section, its page
    hrefs = re.findall(r'<p class="ruling-entry-source">.*?</p>', page, re.S)
    hrefs = [href for source in hrefs for href in re.findall(r'href="([^"]+)"', source)]
    assert len(hrefs) == 15 and all(resolves(app, 'timeline/2021.html', h) for h in hrefs)
    assert_superseded_link_works(app)


@pytest.mark.sphinx('html', testroot='yearly-faq-listings')
@pytest.mark.test_params(shared_result=LISTED)
def test_recent_and_its_feed_show_a_faq_pages_rulings_at_their_days(app):
    """最近更新 and feed.xml: each ruling of a day with the day (its section,
    and in the feed its date first, then the line's own), 已推翻 and 已过时
    before the struck and the outdated ruling, no source header as a ruling.
    (The rulings are grouped by when their lines changed: here the files'
    times, outside git; the FAQ page's in page order.)"""
    app.build()
    page = html(app, 'recent')
    assert '最近改动的 5 条裁定，按改动的日期从新到旧。 <a class="recent-rulings-feed' in page
    listed = [(word, permalink, where)
              for word, permalink, where, _text in entries_of(page, NEWER[3:])]
    faq = 'faq/2021.html#ruling-2021-'
    assert [entry for entry in listed if entry[1].startswith('faq/')] == [
        (None, faq + '01-05-倍倍伤害', '21/1/5 · 2021 › 1/5'),
        ('已推翻', faq + '01-05-死者苏生', '21/1/5 · 2021 › 1/5'),
        (None, faq + '01-05-2021-03-06-faq19691-神之宣告', '21/1/5 · 2021 › 1/5'),
        ('已过时', faq + '02-09-试胆竞速', '21/2/9 · 2021 › 2/9')]
    assert (None, 'chapter.html#ruling-2021-03-06', SECTION) in listed and len(listed) == 5
    assert not any(header in page for header in HEADERS)
    assert all(resolves(app, 'recent.html', permalink) for _w, permalink, _where in listed)
    assert '<span class="ruling-flag">已推翻</span> <del class="strike">「<a class' in page
    assert_superseded_link_works(app)
    # the feed: the same rulings, each with its day's date and the line's own
    atom = '{http://www.w3.org/2005/Atom}'
    feed = (app.outdir / 'feed.xml').read_text(encoding='utf-8')
    assert not any(header in feed for header in HEADERS)
    base = 'https://example.org/handbook/faq/2021.html#ruling-2021-'
    found = [(entry.find(f'{atom}id').text, entry.find(f'{atom}content').text)
             for entry in ET.fromstring(feed.encode()).iter(f'{atom}entry')]
    assert [(url, content) for url, content in found if url.startswith(base)] == [
        (base + '01-05-倍倍伤害', '「倍倍伤害」发动后，受到战斗伤害和造成效果伤害是同时适用的，'
         '如果自己基本分变成0，对方基本分也会变成0的状况，结果平局。（21/1/5）\n2021 › 1/5'),
        (base + '01-05-死者苏生', '【已推翻】「死者苏生」特殊召唤的怪兽被一时除外的场合，是否还受'
         '「来自墓场的呼声」的效果影响，调整中。（21/1/5）\n2021 › 1/5'),
        (base + '01-05-2021-03-06-faq19691-神之宣告', '反转召唤和二重怪兽再1次召唤之际，发动'
         '「神之宣告」的场合，是破坏场上怪兽的效果，可以连锁发动「破坏干扰」。（21/1/5 21/3/6）'
         '\n2021 › 1/5'),
        (base + '02-09-试胆竞速', '【已过时】「试胆竞速」的效果适用中，自己基本分7500，对方基本分'
         '8000的状态，自己发动「火炎地狱」，给对方造成伤害和自己受到伤害同时进行，结果对方基本分'
         '7000，自己因「试胆竞速」的效果不受伤害。（21/2/9）\n2021 › 2/9')]
    assert len(found) == 5


@pytest.mark.sphinx('html', testroot='yearly-faq-listings')
@pytest.mark.test_params(shared_result=LISTED)
def test_the_card_index_dates_a_faq_pages_rulings_by_their_days(app):
    """The card index: each card of the FAQ page under its day's section
    (2021 › 1/5), each ruling dated by the day (神之宣告: 21/1/5, not the
    21/3/6 its line links), linked to its permalink; only the cards, no
    source header."""
    app.build()
    listed = {}
    for part in sorted((app.outdir / 'card-index').glob('*.html')):
        page = part.read_text(encoding='utf-8')
        for card, places in re.findall(r'<dt class="card-index-card" id="card-([^"]+)">.*?</dt>'
                                       r'<dd>(.*?)</dd>', page, re.S):
            listed[card] = [
                (where, href, re.findall(r'<a class="reference internal" href="([^"]+)">'
                                         r'<span class="ruling">([^<]+)</span></a>', rulings))
                for href, where, rulings in re.findall(
                    r'<li><a class="reference internal" href="([^"]+)"><span>([^<]+)</span></a>'
                    r'(.*?)</li>', places)]
            for place in listed[card]:
                links = [place[1], *(href for href, _date in place[2])]
                assert all(resolves(app, f'card-index/{part.name}', h) for h in links), place
    faq = '../faq/2021.html'
    jan5, feb9 = ('2021 › 1/5', f'{faq}#1-5'), ('2021 › 2/9', f'{faq}#2-9')
    hell = [(*feb9, [(f'{faq}#ruling-2021-02-09-试胆竞速', '21/2/9')])]
    call = [(*jan5, [(f'{faq}#ruling-2021-01-05-2021-03-06-faq19691-神之宣告', '21/1/5')])]
    revive = [(*jan5, [(f'{faq}#ruling-2021-01-05-死者苏生', '21/1/5')])]
    assert listed == {
        '倍倍伤害': [(*jan5, [(f'{faq}#ruling-2021-01-05-倍倍伤害', '21/1/5')])],
        '死者苏生': revive, '来自墓场的呼声': revive,  # the struck line: its cards still listed
        '神之宣告': call, '破坏干扰': call,  # 21/1/5, not its line's 21/3/6
        '试胆竞速': hell, '火炎地狱': hell}
    assert '<p class="card-index-summary">共 7 张卡片。</p>' in html(app, 'card-index')


def test_an_outdated_rulings_link_in_the_lists_follows_its_section(make_app, rootdir, tmp_path):
    """The label an outdated day's note names moves (here to another page)
    while no ruling changes: the next build writes the timeline and 最近更新
    again, their → 最新调整 leading where the label now is."""
    srcdir = tmp_path / 'moved'
    shutil.copytree(rootdir / 'test-yearly-faq-listings', srcdir)
    app = make_app('html', srcdir=srcdir)
    app.build()
    for page, edit in (('chapter.rst', lambda text: text.replace('.. _同时处理:\n\n', '')),
                       ('index.rst', lambda text: '.. _同时处理:\n\n' + text)):
        (srcdir / page).write_text(edit((srcdir / page).read_text(encoding='utf-8')),
                                   encoding='utf-8')
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert own_warnings(app) == []
    assert app.env.domains.standard_domain.labels['同时处理'][0] == 'index'
    newer = '../index.html#同时处理'
    words = [word for word, *_rest in entries_of(html(app, 'timeline/2021'), newer)]
    assert words.count('已过时') == 1
    words = [word for word, *_rest in entries_of(html(app, 'recent'), newer[3:])]
    assert words.count('已过时') == 1


def test_an_outdated_day_that_links_sphinxs_own_page_gets_no_link_in_the_lists(
        make_app, rootdir, tmp_path):
    """A note whose :ref: is one of Sphinx's own labels (``search``: its page,
    no section of the handbook): the rulings are 已过时, and no list links
    the search page as what supersedes them."""
    srcdir = tmp_path / 'own-label'
    shutil.copytree(rootdir / 'test-yearly-faq-listings', srcdir)
    page = srcdir / 'faq' / '2021.rst'
    page.write_text(page.read_text(encoding='utf-8').replace(':ref:`同时处理`', ':ref:`search`'),
                    encoding='utf-8')
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert own_warnings(app) == []
    for name in ('timeline/2021', 'recent'):
        words = [word for word, *_rest in entries_of(html(app, name), '')]
        assert words.count('已过时') == 1, name


def test_without_the_sections_concern_a_build_with_no_change_rewrites_no_list(
        make_app, rootdir, tmp_path):
    """The lists know where an outdated ruling's section was without
    handbook.sections loaded: a build with no change writes no page again."""
    srcdir = tmp_path / 'no-sections'
    shutil.copytree(rootdir / 'test-yearly-faq-listings', srcdir)
    extensions = ['handbook.cards', 'handbook.rulings', 'handbook.listings']
    written: list[list[str]] = []
    for _ in range(2):
        app = make_app('html', srcdir=srcdir, confoverrides={'extensions': extensions})
        pages: list[str] = []
        app.connect('html-page-context', lambda app, name, *args, pages=pages: pages.append(name))
        app.build()
        assert own_warnings(app) == []
        written.append([name for name in pages if name not in ('search', 'genindex')])
    assert 'timeline/2021' in written[0] and 'recent' in written[0]
    assert written[1] == []


def test_a_line_naming_no_card_edited_leaves_the_card_index_unwritten(
        make_app, rootdir, tmp_path):
    """A day's line that names no card is in no entry of the card index: its
    words edited (its permalink, a digest of them where the day has two such
    lines, with them), the page and the timeline are written again, the card
    index and its initials' pages are not (the bench's edit of the largest
    FAQ page wrote them every time)."""
    srcdir = tmp_path / 'no-card-edited'
    shutil.copytree(rootdir / 'test-yearly-faq-listings', srcdir)
    page = srcdir / 'faq' / '2021.rst'
    text = page.read_text(encoding='utf-8')
    own = ('| 同时处理的效果让双方同时决斗败北的场合，决斗平局。\n'
           '| 在1个时点进行的效果处理，即使是分步进行的，也是同时处理。\n')
    after = '结果平局。\n'
    assert after in text
    page.write_text(text.replace(after, after + own, 1), encoding='utf-8')
    warning_free_build(make_app, srcdir)
    page.write_text(page.read_text(encoding='utf-8').replace('决斗平局。', '决斗平局，改。'),
                    encoding='utf-8')
    app, written = written_by(make_app, srcdir)
    assert own_warnings(app) == []
    assert '决斗平局，改。' in html(app, 'timeline/2021')
    assert {'faq/2021', 'timeline/2021'} <= written
    assert not {name for name in written if name.startswith('card-index')}
    # (what makes each ruling the same as another digested as its page was
    # read, for the lists that group them)
    assert all(r.same == same.digest(r.text, r.struck_spans, r.cards, r.status)
               for rs in rulings(app.env).values() for r in rs)


@pytest.mark.parametrize(('written', 'report'), [
    (':ruling:``', "role :ruling: has no text (:ruling:``, which readers see as it is): write its "
                   'text between the backquotes, :ruling:`17/3/24` for a date, or delete it '
                   '[handbook.markup]'),
    (':ruling:` `', "role :ruling: has no text (:ruling:` `, which readers see as it is): write "
                    'its text between the backquotes, :ruling:`17/3/24` for a date, or delete it '
                    '[handbook.markup]'),
    (':ruling:`17/12/22 <faq:99999999999999999999999999>`',
     "FAQ id '99999999999999999999999999' is not a positive integer of at most 9 digits; the "
     "date is shown without a link: write :ruling:`17/12/22 <faq:ID>` with the number after "
     "fid= in the FAQ's URL, or the date alone, :ruling:`17/12/22` [handbook.ruling]"),
])
def test_an_empty_ruling_role_and_an_faq_id_too_long_are_said(make_app, rootdir, tmp_path,
                                                             written, report):
    """A hostile-input round trip: ``:ruling:````'s fix wrote the `\\ `
    that was there, and a 26-digit FAQ id became a link and a badge."""
    srcdir = edited_root(rootdir, tmp_path, 'role', {
        'chapter.rst': [('伤害后让「`淘气仙星的灯光舞台`_」也造成效果伤害的场合，也是同时造成的伤害。\\ :ruling:`17/12/22`',
                         f'伤害后让「`淘气仙星的灯光舞台`_」也造成效果伤害的场合，也是同时造成的伤害。\\ {written}')]})
    app = make_app('html', srcdir=srcdir)
    app.build()
    assert [w.split(': ', 1)[1] for w in own_warnings(app)] == [f'ERROR: {report}']
    assert own_warnings(app)[0].startswith('chapter.rst:17: ')
    assert 'faq99999' not in html(app, 'chapter')
