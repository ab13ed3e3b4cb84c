"""The ruling timeline: order, grouping, links, and never stale."""

from __future__ import annotations

import os
import re
import shutil

import pytest

from helpers import assert_no_warnings, html, warnings, written_by

I = 'index.html#'
#: (year title, [(month title, [permalink of each entry])]) of test-ruling-lines
TIMELINE = [
    ('2020 年（1 条）', [('1 月', [I + 'ruling-2020-01-13'])]),
    ('2019 年（2 条）', [('2 月', [I + 'ruling-2019-02-04', I + 'ruling-2019-02-04-faq19691'])]),
    ('2018 年（1 条）', [('1 月', [I + 'ruling-2018-01-13-faq7000-王宫的铁壁'])]),
    ('2017 年（7 条）', [
        # the same date: pages in table-of-contents order
        ('12 月', [I + 'ruling-2017-12-22-旋风', 'other.html#ruling-2017-12-22']),
        ('7 月', [I + 'ruling-2017-07-28-神之宣告']),
        # the same date, the same page: page order
        ('3 月', [I + 'ruling-2017-03-24-旋风-05ea71', I + 'ruling-2017-03-24-旋风-a0cfac',
                 I + 'ruling-2017-03-24-神之宣告', I + 'ruling-2017-03-24-旋风-07ad83']),
    ]),
    ('2016 年（1 条）', [('11 月', [I + 'ruling-2016-11-26-旋风'])]),
    ('2014 年（1 条）', [('3 月', [I + 'ruling-2014-03-21'])]),
]


def timeline(app, docname: str = 'timeline') -> list[tuple[str, list[tuple[str, list[str]]]]]:
    page = html(app, docname)
    years = []
    for year in re.split(r'<section class="ruling-timeline-year" id="y\d{4}">', page)[1:]:
        months = []
        for month in re.split(r'<section id="y\d{4}-\d\d">', year)[1:]:
            months.append((re.search(r'<h3>(.*?)<a class="headerlink"', month)[1],
                           re.findall(r'href="([^"]*)"><span class="ruling-entry-permalink">',
                                      month)))
        years.append((re.search(r'<h2>(.*?)<a class="headerlink"', year)[1], months))
    return years


def entry(app, permalink: str, docname: str = 'timeline') -> str:
    """The HTML of the timeline entry that links to *permalink*."""
    items = re.findall(r'<li class="ruling-entry[^"]*">.*?</li>', html(app, docname), re.S)
    return next(i for i in items if f'href="{permalink}"' in i)


@pytest.mark.sphinx('html', testroot='ruling-lines', freshenv=True)
def test_order_and_grouping(app):
    app.build()
    assert_no_warnings(app)
    assert timeline(app) == TIMELINE
    page = html(app, 'timeline')
    assert ('共 13 条注明日期的裁定，最新的在前：<a class="reference internal" href="#y2020">'
            '2020 年（1 条）</a> · <a class="reference internal" href="#y2019">') in page


@pytest.mark.sphinx('html', testroot='ruling-lines', freshenv=True)
def test_entries_keep_their_links(app):
    app.build()
    # card links, resolved for the timeline page, and the date with its FAQ link
    faq = entry(app, I + 'ruling-2018-01-13-faq7000-王宫的铁壁')
    assert ('<p class="ruling-entry-text">「<a class="card-link card-card reference external" '
            'href="https://ygocdb.com/card/name/%E7%8E%8B%E5%AE%AB%E7%9A%84%E9%93%81%E5%A3%81"'
            ) in faq
    assert 'fid=7000&amp;request_locale=ja">18/1/13</a></p>' in faq
    # page and section, linked
    item = entry(app, I + 'ruling-2017-03-24-旋风-07ad83')
    assert ('<p class="ruling-entry-source"><a class="reference internal" href="index.html">'
            'Rulings</a> › <a class="reference internal" href="index.html#标签">第二节</a> · ') in item
    # a same-page reference of the ruling's page now points into that page
    assert '见<a class="reference internal" href="index.html#标签"><span>第二节</span></a>' in item
    # a :ref: is resolved as on any page
    assert ('详见<a class="reference internal" href="index.html#标签"><span class="std std-ref">第二节'
            '</span></a>') in entry(app, 'other.html#ruling-2017-12-22')
    # changed rulings are flagged; struck text stays struck
    struck = entry(app, I + 'ruling-2017-03-24-神之宣告')
    assert struck.startswith('<li class="ruling-entry ruling-changed"><p class="ruling-entry-text">'
                             '<span class="ruling-flag">裁定已变更</span> 「')
    assert '<del class="strike">不能发动。</del>' in struck
    assert 'ruling-changed' not in entry(app, I + 'ruling-2014-03-21')
    # every permalink points at an id of its page, and no id is copied
    for _, months in timeline(app):
        for _, links in months:
            for link in links:
                docname, anchor = link.split('.html#')
                assert f'id="{anchor}"' in html(app, docname)
    assert 'id="ruling-' not in html(app, 'timeline')


@pytest.mark.sphinx('html', testroot='ruling-lines', srcdir='ruling-timeline-updates')
def test_timeline_follows_the_pages(app, make_app):
    app.build()

    other = app.srcdir / 'other.rst'
    other.write_text(other.read_text(encoding='utf-8').replace('17/12/22', '21/6/1'),
                     encoding='utf-8')
    second, written = written_by(make_app, app.srcdir)
    # other.rst was read again, and the timeline was rewritten
    assert {'other', 'timeline'} <= set(written)
    assert timeline(second)[0] == ('2021 年（1 条）', [('6 月', ['other.html#ruling-2021-06-01'])])
    assert '2017 年（6 条）' in html(second, 'timeline')

    # a page without rulings changes: the timeline is left alone
    (app.srcdir / 'plain.rst').write_text('Plain\n=====\n\nNo ruling.\n', encoding='utf-8')
    index = app.srcdir / 'index.rst'
    text = index.read_text(encoding='utf-8')
    index.write_text(text.replace('   other\n', '   other\n   plain\n'), encoding='utf-8')
    other.write_text(other.read_text(encoding='utf-8').replace('| 另一页', '| 另一页，改'),
                     encoding='utf-8')
    third, _ = written_by(make_app, app.srcdir)
    assert '另一页，改，详见' in html(third, 'timeline')
    (app.srcdir / 'plain.rst').write_text('Plain\n=====\n\nStill no ruling.\n', encoding='utf-8')
    _, written = written_by(make_app, app.srcdir)
    assert 'plain' in written
    assert 'timeline' not in written

    # a page with rulings is read again, its rulings unchanged: the timeline is left alone
    other.write_text(other.read_text(encoding='utf-8') + '\nA paragraph without ruling.\n',
                     encoding='utf-8')
    _, written = written_by(make_app, app.srcdir)
    assert 'other' in written
    assert 'timeline' not in written

    # the registry changes a card of a ruling: the timeline's copy of its link follows
    registry = app.srcdir / 'cards.tsv'
    registry.write_text(registry.read_text(encoding='utf-8').replace(
        'card\t神之宣告\n', 'card\t神之宣告\t\thttps://example.org/solemn\n'), encoding='utf-8')
    edited, written = written_by(make_app, app.srcdir)
    assert 'timeline' in written
    assert 'href="https://example.org/solemn"' in html(edited, 'timeline')

    # a page with rulings is removed: its rulings leave the timeline
    index.write_text(index.read_text(encoding='utf-8').replace('   other\n', ''), encoding='utf-8')
    other.unlink()
    fifth, _ = written_by(make_app, app.srcdir)
    assert 'other.html' not in html(fifth, 'timeline')
    assert [w for w in warnings(fifth) if '[app.' not in w] == []


@pytest.mark.sphinx('html', testroot='ruling-lines', srcdir='ruling-timeline-parallel', parallel=4)
def test_parallel_build_gives_the_same_timeline(app, make_app, tmp_path, monkeypatch):
    """Also when a parallel build renders the rulings in a process of their
    own (generated/ruling_html.py), which a serial build does not."""
    from handbook.generated import ruling_html
    from handbook.rulings import lines as ruling_lines

    renderers = tmp_path / 'renderers'  # the process of each render(), from any process
    render = ruling_html.render

    def noting(env, rulings):
        with renderers.open('a', encoding='utf-8') as out:
            out.write(f'{os.getpid()} {len(rulings)}\n')
        return render(env, rulings)

    monkeypatch.setattr(ruling_html, 'render', noting)
    # parallel reading needs more than five pages to read
    extra = [f'p{i}' for i in range(6)]
    for day, name in enumerate(extra, start=2):
        (app.srcdir / f'{name}.rst').write_text(
            f'{name}\n==\n\n| 第{name}页「`旋风`_」。\\ :ruling:`19/3/{day}`\n', encoding='utf-8')
    index = app.srcdir / 'index.rst'
    toctree = ''.join(f'   {name}\n' for name in extra) + '   timeline\n'
    index.write_text(index.read_text(encoding='utf-8').replace('   timeline\n', toctree),
                     encoding='utf-8')
    app.build()
    assert_no_warnings(app)
    [(pid, count)] = [line.split() for line in renderers.read_text().splitlines()]
    every = sum(map(len, ruling_lines.rulings(app.env).values()))
    assert pid != str(os.getpid()) and int(count) == every == 19  # every ruling, at once
    renderers.unlink()
    serial_src = tmp_path / 'serial'
    shutil.copytree(app.srcdir, serial_src, ignore=shutil.ignore_patterns('_build'))
    serial = make_app('html', srcdir=serial_src, parallel=0)
    serial.build()
    assert {line.split()[0] for line in renderers.read_text().splitlines()} == {str(os.getpid())}
    assert html(app, 'timeline') == html(serial, 'timeline')
    assert (app.outdir / 'rulings.json').read_text(encoding='utf-8') == \
        (serial.outdir / 'rulings.json').read_text(encoding='utf-8')
    assert '2019 年（8 条）' in html(app, 'timeline')


@pytest.mark.sphinx('html', testroot='timeline-misplaced', freshenv=True)
def test_misplaced_timeline_warns_at_its_line(app):
    app.build()
    message = ('the ruling timeline adds one section per year, so it must be the last content '
               'of a section; move the ruling-timeline directive to the end of the page '
               '[handbook.timeline]')
    assert warnings(app) == [f'index.rst:4: WARNING: {message}', f'index.rst:8: WARNING: {message}']


@pytest.mark.sphinx('html', testroot='ruling-lines', srcdir='ruling-timeline-kept')
def test_rulings_rendered_once_are_kept_until_they_change(app, make_app, monkeypatch):
    """The rulings' HTML is kept from build to build (generated/ruling_html.py): an
    edit renders again the rulings whose nodes it changed, and those with a
    :ref:, whose text is another page's; never one that is as it was."""
    from handbook.generated import ruling_html

    app.build()
    rendered: list[tuple[str, str]] = []
    render = ruling_html.render

    def counting(env, rulings):
        rendered.extend((r.docname, r.anchor) for r in rulings)
        return render(env, rulings)

    monkeypatch.setattr(ruling_html, 'render', counting)
    index = app.srcdir / 'index.rst'
    index.write_text(index.read_text(encoding='utf-8').replace('第二节\n------', '第二节改\n--------')
                     .replace('`第二节`_', '`第二节改`_').replace('Rulings\n=======\n',
                                                                   'Rulings\n=======\n\n'),
                     encoding='utf-8')
    again = make_app('html', srcdir=app.srcdir)
    again.build()
    assert rendered and {doc for doc, _anchor in rendered} == {'index', 'other'}
    # of index.rst, only the ruling whose link text changed (a line inserted
    # above the others, moving them, changes nothing of them)
    [changed] = [a for doc, a in rendered if doc == 'index']
    assert changed.startswith('ruling-2017-03-24-旋风-')  # a new text, a new hash
    # other.rst was not read again: of its rulings, only the one with a :ref: is rendered
    assert [a for doc, a in rendered if doc == 'other'] == ['ruling-2017-12-22']
    assert '详见<a class="reference internal" href="index.html#标签"><span class="std std-ref">' \
        '第二节改</span></a>' in entry(again, 'other.html#ruling-2017-12-22')

    rendered.clear()
    other = app.srcdir / 'other.rst'
    other.write_text(other.read_text(encoding='utf-8').replace('| 另一页', '| 另一页，改'),
                     encoding='utf-8')
    third = make_app('html', srcdir=app.srcdir)
    third.build()
    assert {doc for doc, _anchor in rendered} == {'other'}
    assert '另一页，改' in entry(third, 'other.html#ruling-2017-12-22')
    assert [w for w in warnings(third) if '[app.' not in w] == []


@pytest.mark.sphinx('html', testroot='ruling-lines', freshenv=True)
def test_the_timeline_is_left_out_of_the_page_search(app):
    """A page that holds a generated list repeats the other pages' words: no
    word of the page search leads to it (generated/placeholders.py)."""
    import json

    app.build()
    text = (app.outdir / 'searchindex.js').read_text(encoding='utf-8')
    index = json.loads(text[text.index('(') + 1:text.rindex(')')])
    timeline_page = index['docnames'].index('timeline')
    other_page = index['docnames'].index('other')

    def pages(found) -> set[int]:
        return {found} if isinstance(found, int) else set(found)

    found = [pages(docs) for docs in index['terms'].values()]
    assert not any(timeline_page in docs for docs in found)
    assert any(other_page in docs for docs in found)  # the other pages are indexed
