"""The ruling timeline: order, grouping, links, and never stale."""

from __future__ import annotations

import functools
import os
import re
import shutil

import pytest
from helpers import SPEED, assert_no_warnings, html, moved_anchors, warnings, written_by

I = '../index.html#'  # from a year page, timeline/<year>.html
#: (year title, [(month title, [permalink of each entry])]) of test-ruling-lines
TIMELINE = [
    ('2020 年（1 条）', [('1 月', [I + 'ruling-2020-01-13'])]),
    ('2019 年（2 条）', [('2 月', [I + 'ruling-2019-02-04', I + 'ruling-2019-02-04-faq19691'])]),
    ('2018 年（1 条）', [('1 月', [I + 'ruling-2018-01-13-faq7000-王宫的铁壁'])]),
    ('2017 年（7 条）', [
        # the same date: pages in table-of-contents order
        ('12 月', [I + 'ruling-2017-12-22-旋风', '../other.html#ruling-2017-12-22']),
        ('7 月', [I + 'ruling-2017-07-28-神之宣告']),
        # the same date, the same page: page order
        ('3 月', [I + 'ruling-2017-03-24-旋风-05ea71', I + 'ruling-2017-03-24-旋风-a0cfac',
                 I + 'ruling-2017-03-24-神之宣告', I + 'ruling-2017-03-24-旋风-07ad83']),
    ]),
    ('2016 年（1 条）', [('11 月', [I + 'ruling-2016-11-26-旋风'])]),
    ('2014 年（1 条）', [('3 月', [I + 'ruling-2014-03-21'])]),
]


def years(app, docname: str = 'timeline') -> list[str]:
    """The years the timeline's page lists, each a link to its page."""
    return re.findall(r'<li id="y(\d{4})"><a class="reference internal" href="%s/\d{4}\.html">'
                      % re.escape(docname.rpartition('/')[2]), html(app, docname))


def year_pages(app, docname: str = 'timeline') -> str:
    """The HTML of the timeline's year pages, newest first."""
    return ''.join(html(app, f'{docname}/{year}') for year in years(app, docname))


def timeline(app, docname: str = 'timeline') -> list[tuple[str, list[tuple[str, list[str]]]]]:
    out = []
    for year in years(app, docname):
        page = html(app, f'{docname}/{year}')
        months = []
        for month in re.split(r'<section id="y\d{4}-\d\d">', page)[1:]:
            months.append((re.search(r'<h2>(.*?)</h2>', month)[1],
                           re.findall(r'href="([^"]*)"><span class="ruling-entry-permalink">',
                                      month)))
        out.append((re.search(r'<h1>(.*?)</h1>', page)[1], months))
    return out


def entry(app, permalink: str, docname: str = 'timeline') -> str:
    """The HTML of the timeline entry that links to *permalink*."""
    items = re.findall(r'<li class="ruling-entry[^"]*">.*?</li>', year_pages(app, docname), re.S)
    return next(i for i in items if f'href="{permalink}"' in i)


@pytest.mark.sphinx('html', testroot='ruling-lines')
@pytest.mark.test_params(shared_result='ruling_timeline-ruling-lines')
def test_order_and_grouping(app):
    app.build()
    assert_no_warnings(app)
    assert timeline(app) == TIMELINE
    page = html(app, 'timeline')
    assert ('<p class="ruling-timeline-summary">共 13 条注明日期的裁定，最新的在前：</p>\n'
            '<ul class="ruling-timeline-years">\n'
            '<li id="y2020"><a class="reference internal" href="timeline/2020.html">2020 年（1 条）'
            '</a>：<a class="reference internal" href="timeline/2020.html#y2020-01">1 月</a></li>\n'
            '<li id="y2019"><a class="reference internal" href="timeline/2019.html">') in page
    assert 'ruling-entry' not in page  # the entries are on the year pages


@pytest.mark.sphinx('html', testroot='ruling-lines')
@pytest.mark.test_params(shared_result='ruling_timeline-ruling-lines')
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
    assert ('<p class="ruling-entry-source"><a class="reference internal" href="../index.html">'
            'Rulings</a> › <a class="reference internal" href="../index.html#标签">第二节</a> · ') in item
    # a same-page reference of the ruling's page now points into that page,
    # written as on that page
    assert '见<a class="reference internal" href="../index.html#标签">第二节</a>' in item
    assert '见<a class="reference internal" href="#标签">第二节</a>' in html(app, 'index')
    # a :ref: is resolved as on any page
    assert ('详见<a class="reference internal" href="../index.html#标签"><span class="std std-ref">第二节'
            '</span></a>') in entry(app, '../other.html#ruling-2017-12-22')
    # an overturned ruling says so (its text alone would read as current); struck
    # text stays struck
    struck = entry(app, I + 'ruling-2017-03-24-神之宣告')
    assert struck.startswith('<li class="ruling-entry ruling-changed"><p class="ruling-entry-text">'
                             '<span class="ruling-flag">已推翻</span> 「')
    assert '<del class="strike">不能发动。</del>' in struck
    assert 'ruling-changed' not in entry(app, I + 'ruling-2014-03-21')
    # every permalink points at an id of its page, and no id is copied
    for _, months in timeline(app):
        for _, links in months:
            for link in links:
                docname, anchor = link.removeprefix('../').split('.html#')
                assert f'id="{anchor}"' in html(app, docname)
    assert 'id="ruling-' not in html(app, 'timeline') + year_pages(app)


@pytest.mark.sphinx('html', testroot='ruling-lines', srcdir='ruling-timeline-updates')
def test_timeline_follows_the_pages(app, make_app):
    app.build()

    other = app.srcdir / 'other.rst'
    other.write_text(other.read_text(encoding='utf-8').replace('17/12/22', '21/6/1'),
                     encoding='utf-8')
    second, written = written_by(make_app, app.srcdir)
    # other.rst was read again, and the timeline was rewritten
    assert {'other', 'timeline'} <= set(written)
    assert timeline(second)[0] == ('2021 年（1 条）', [('6 月', ['../other.html#ruling-2021-06-01'])])
    assert '2017 年（6 条）' in html(second, 'timeline')

    # a page without rulings changes: the timeline is left alone
    (app.srcdir / 'plain.rst').write_text('Plain\n=====\n\nNo ruling.\n', encoding='utf-8')
    index = app.srcdir / 'index.rst'
    text = index.read_text(encoding='utf-8')
    index.write_text(text.replace('   other\n', '   other\n   plain\n'), encoding='utf-8')
    other.write_text(other.read_text(encoding='utf-8').replace('| 另一页', '| 另一页，改'),
                     encoding='utf-8')
    third, _ = written_by(make_app, app.srcdir)
    assert '另一页，改，详见' in year_pages(third)
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
    assert 'href="https://example.org/solemn"' in year_pages(edited)

    # a page with rulings is removed: its rulings leave the timeline
    index.write_text(index.read_text(encoding='utf-8').replace('   other\n', ''), encoding='utf-8')
    other.unlink()
    fifth, _ = written_by(make_app, app.srcdir)
    assert 'other.html' not in year_pages(fifth)
    assert not (fifth.outdir / 'timeline' / '2021.html').exists()  # its only ruling is gone
    assert [w for w in warnings(fifth) if '[app.' not in w] == []


@pytest.mark.sphinx('html', testroot='ruling-lines', srcdir='ruling-timeline-parallel', parallel=4)
def test_parallel_build_gives_the_same_timeline(app, make_app, tmp_path, monkeypatch):
    """Also when the rulings' HTML comes from the pages written by other
    processes (render/ruling_html.py): the timeline is written after them."""
    from handbook.render import ruling_html

    noted = tmp_path / 'noted'  # what render() and capture() did, and in which process
    render, capture = ruling_html.render, ruling_html.Rendered.capture

    def note(line: str) -> None:
        with noted.open('a', encoding='utf-8') as out:
            out.write(f'{line} {os.getpid()}\n')

    def noting_render(env, rulings):
        note(' '.join(sorted(f'render:{r.docname}#{r.anchor}' for r in rulings)))
        return render(env, rulings)

    def noting_capture(self, docname, written):
        note(f'capture:{docname}')
        return capture(self, docname, written)

    monkeypatch.setattr(ruling_html, 'render', noting_render)
    monkeypatch.setattr(ruling_html.Rendered, 'capture', noting_capture)
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

    def done() -> tuple[dict[str, str], list[str]]:
        """``{page: process}`` of each capture; what was rendered."""
        lines = [line.rsplit(' ', 1) for line in noted.read_text().splitlines()]
        noted.unlink()
        captured = {what.removeprefix('capture:'): pid for what, pid in lines
                    if what.startswith('capture:')}
        rendered = [what for what, pid in lines if what.startswith('render:')]
        return captured, rendered

    captured, rendered = done()
    # every page with rulings gave its rulings' HTML, most in other processes;
    # with the speed package, which writes the timeline after them, only the
    # ruling with a :ref: (its text is another page's title) is rendered
    assert set(captured) == {'index', 'other', *extra}
    assert len({pid for pid in captured.values() if pid != str(os.getpid())}) >= 1
    if SPEED:
        assert rendered == ['render:other#ruling-2017-12-22']
    serial_src = tmp_path / 'serial'
    shutil.copytree(app.srcdir, serial_src, ignore=shutil.ignore_patterns('_build'))
    serial = make_app('html', srcdir=serial_src, parallel=0)
    serial.build()
    captured, rendered = done()
    assert set(captured.values()) == {str(os.getpid())}
    assert rendered == ['render:other#ruling-2017-12-22']
    assert html(app, 'timeline') == html(serial, 'timeline')
    assert year_pages(app) == year_pages(serial)
    assert (app.outdir / 'rulings.json').read_text(encoding='utf-8') == \
        (serial.outdir / 'rulings.json').read_text(encoding='utf-8')
    assert '2019 年（8 条）' in html(app, 'timeline/2019')


@pytest.mark.sphinx('html', testroot='timeline-misplaced', freshenv=True)
def test_misplaced_timeline_warns_at_its_line(app):
    app.build()
    message = ('the ruling timeline adds one section per year, so it must be the last content '
               'of a section; move the ruling-timeline directive to the end of the page '
               '[handbook.timeline]')
    assert warnings(app) == [f'index.rst:4: WARNING: {message}', f'index.rst:8: WARNING: {message}']


@pytest.mark.sphinx('html', testroot='ruling-lines', srcdir='ruling-timeline-kept')
def test_rulings_html_is_kept_until_their_page_is_written_again(app, make_app, tmp_path,
                                                                monkeypatch):
    """The rulings' HTML is kept from build to build (render/ruling_html.py):
    an edit takes the HTML of the rulings of the pages it writes again from
    their writing, renders those with a :ref:, whose text is another page's,
    and nothing else."""
    from handbook.render import ruling_html

    app.build()
    noted = tmp_path / 'rendered'  # in whichever process writes the timeline
    captured: list[str] = []
    render, capture = ruling_html.render, ruling_html.Rendered.capture

    def counting(env, rulings):
        with noted.open('a', encoding='utf-8') as out:
            out.writelines(f'{r.docname} {r.anchor}\n' for r in rulings)
        return render(env, rulings)

    def rendered() -> list[tuple[str, str]]:
        lines = noted.read_text(encoding='utf-8').splitlines() if noted.exists() else []
        noted.unlink(missing_ok=True)
        return [tuple(line.split()) for line in lines]

    def noting(self, docname, written):
        captured.append(docname)
        return capture(self, docname, written)

    monkeypatch.setattr(ruling_html, 'render', counting)
    monkeypatch.setattr(ruling_html.Rendered, 'capture', noting)
    index = app.srcdir / 'index.rst'
    index.write_text(index.read_text(encoding='utf-8').replace('第二节\n------', '第二节改\n--------')
                     .replace('`第二节`_', '`第二节改`_').replace('Rulings\n=======\n',
                                                                   'Rulings\n=======\n\n'),
                     encoding='utf-8')
    again = make_app('html', srcdir=app.srcdir)
    again.build()
    # index.rst, read again, is written again: its rulings come from its writing
    assert captured == ['index']
    assert '见<a class="reference internal" href="../index.html#标签">第二节改</a>' in \
        year_pages(again)
    # other.rst was not read again: of its rulings, only the one with a :ref: is rendered
    assert rendered() == [('other', 'ruling-2017-12-22')]
    assert '详见<a class="reference internal" href="../index.html#标签"><span class="std std-ref">' \
        '第二节改</span></a>' in entry(again, '../other.html#ruling-2017-12-22')

    captured.clear()
    other = app.srcdir / 'other.rst'
    other.write_text(other.read_text(encoding='utf-8').replace('| 另一页', '| 另一页，改'),
                     encoding='utf-8')
    third = make_app('html', srcdir=app.srcdir)
    third.build()
    assert captured == ['index', 'other']  # Sphinx writes again the page whose toctree lists it
    assert rendered() == [('other', 'ruling-2017-12-22')]
    assert '另一页，改' in entry(third, '../other.html#ruling-2017-12-22')
    assert [w for w in warnings(third) if '[app.' not in w] == []


@pytest.mark.sphinx('html', testroot='ruling-lines', srcdir='ruling-timeline-rendered')
def test_rulings_rendered_are_as_their_pages_wrote_them(app, make_app, tmp_path, monkeypatch):
    """A ruling whose HTML no page's writing left (render/ruling_html.py)
    is rendered as its page wrote it: a footnote, a same-page link, an inline
    target (its id is the page's), struck text."""
    from handbook.render import ruling_html

    (app.srcdir / 'notes.rst').write_text(
        'Notes\n=====\n\n'
        '| 「`旋风`_」有注。 [#]_ :ruling:`17/3/25`\n'
        '| 见 `Notes`_ 与 _`内联目标`。\\ :ruling:`17/3/26`\n'
        '| 「`神之宣告`_」\\ :strike:`不能发动。`\\ :ruling:`17/3/27`\n\n'
        '.. [#] 脚注。\n', encoding='utf-8')
    index = app.srcdir / 'index.rst'
    index.write_text(index.read_text(encoding='utf-8').replace('   other\n', '   other\n   notes\n'),
                     encoding='utf-8')
    app.build()
    assert_no_warnings(app)
    written = year_pages(app)
    assert re.search('有注。 <a class="footnote-reference brackets" href="../notes.html#id[0-9]+" '
                     'role="doc-noteref">', written)
    assert '见 <a class="reference internal" href="../notes.html#notes">Notes</a> 与 ' \
           '<span class="target">内联目标</span>' in written

    monkeypatch.setattr(ruling_html.Rendered, 'capture', lambda *args: None)
    rendered = make_app('html', srcdir=app.srcdir, builddir=tmp_path / 'rendered', freshenv=True)
    rendered.build()
    assert year_pages(rendered) == written


@pytest.mark.sphinx('html', testroot='ruling-lines', freshenv=True, confoverrides={
    'extensions': ['handbook.cards.links', 'handbook.listings.timeline', 'handbook.rulings.strike',
                   'handbook.search.rulings_index']})
def test_the_timeline_is_left_out_of_the_section_search(app):
    """A page that holds a generated list repeats the other pages' words: no
    section result leads to it (render/placeholders.py), and Sphinx's own
    index, which nothing reads, holds no words at all."""
    from helpers import search_manifest, search_parts

    app.build()
    index = search_manifest(app)
    searchable = {uri: flag for uri, _title, flag in index['pages']}
    assert 'timeline.html' not in searchable and searchable['other.html'] == 1
    page_of = {number: index['pages'][page][0] for number, (page, *_rest)
               in enumerate(index['sections'])}
    texts = [entry for name, part in search_parts(app).items() if name.startswith('b')
             for entry in part if entry]  # (the texts' spare ids: None)
    assert {page_of[section] for section, _text in texts} == {'index.html', 'other.html'}
    sphinx = (app.outdir / 'searchindex.js').read_text(encoding='utf-8')
    assert '"terms":{}' in sphinx and '"titleterms":{}' in sphinx


@pytest.mark.sphinx('html', testroot='ruling-lines')
@pytest.mark.test_params(shared_result='ruling_timeline-ruling-lines')
def test_only_doctrees_that_may_hold_the_timeline_are_walked_for_it(app, monkeypatch):
    # each list's post-transform walks a page for its placeholder only where
    # the store says the page, or a page its toctree includes (a doctree
    # assembled from pages), holds one (handbook/render/placeholders.py)
    from docutils import nodes
    from handbook.listings.timeline import TIMELINE, RulingTimelineDirective
    from handbook.render import placeholders

    app.build()
    holding = {docname for docname in app.env.found_docs
               if placeholders.may_hold(app.env, docname, TIMELINE)}
    assert holding == {'timeline', 'index'}  # index includes timeline in its toctree
    walked: list[tuple[type, ...]] = []
    document = nodes.document(None, None)
    monkeypatch.setattr(document, 'findall', lambda *args: walked.append(args) or iter(()))
    for docname in ('other', 'timeline'):
        app.env.current_document.docname = docname
        placeholders.fill(app.env, document, RulingTimelineDirective, list)
    assert walked == [(RulingTimelineDirective.node_class,)]


@pytest.mark.parametrize('builder', ['latex', 'texinfo'])
def test_a_timeline_in_an_appendix_is_filled(make_app, rootdir, tmp_path, builder):
    # LaTeX and Texinfo add their appendices to the document they assemble,
    # resolved under the name of its start page, which no toctree leads
    # from to the appendix (handbook/render/placeholders.py, may_hold)
    srcdir = tmp_path / 'ruling-lines'
    shutil.copytree(rootdir / 'test-ruling-lines', srcdir)
    index = srcdir / 'index.rst'
    index.write_text(index.read_text(encoding='utf-8').replace('   timeline\n', ''),
                     encoding='utf-8')
    timeline = srcdir / 'timeline.rst'
    timeline.write_text(':orphan:\n\n' + timeline.read_text(encoding='utf-8'), encoding='utf-8')
    app = make_app(builder, srcdir=srcdir, confoverrides={
        'latex_appendices': ['timeline'], 'texinfo_appendices': ['timeline']})
    app.build()
    assert_no_warnings(app)
    written = next(app.outdir.glob('*.tex' if builder == 'latex' else '*.texi'))
    assert '2020 年（1 条）' in written.read_text(encoding='utf-8')  # the timeline's first year


def links_resolve(outdir, page: str) -> list[str]:
    """The internal links of the HTML file *page* (relative to *outdir*) that
    lead to no file, or to no id of it: none where every one resolves."""
    import posixpath
    from urllib.parse import unquote

    text = (outdir / page).read_text(encoding='utf-8')
    broken = []
    for href in re.findall(r'<a class="reference internal" href="([^"]*)"', text):
        path, _sep, anchor = unquote(href).partition('#')
        target = posixpath.normpath(posixpath.join(posixpath.dirname(page), path)) if path else page
        if not (outdir / target).is_file() or (anchor and f'id="{anchor}"' not in
                                                (outdir / target).read_text(encoding='utf-8')):
            broken.append(href)
    return broken


@pytest.mark.sphinx('html', testroot='ruling-lines')
@pytest.mark.test_params(shared_result='ruling_timeline-ruling-lines')
def test_a_page_per_year_with_the_jump_bar(app):
    """The timeline's page lists the years and months, each year a page of
    its own (render/split_pages.py) with a title, the years' bar, prev/next
    and a preview's description; every link of the bar resolves."""
    app.build()
    assert_no_warnings(app)
    assert years(app) == ['2020', '2019', '2018', '2017', '2016', '2014']
    pages = ['timeline.html', *(f'timeline/{y}.html' for y in years(app))]
    assert sorted(p.relative_to(app.outdir).as_posix() for p in
                  (app.outdir / 'timeline').glob('*.html')) == sorted(pages[1:])
    for page in pages:
        assert links_resolve(app.outdir, page) == [], page
    page = html(app, 'timeline/2017')
    assert '<title>Timeline：2017 年' in page
    assert ('<p class="ruling-timeline-bar"><a class="reference internal" href="../timeline.html">'
            '全部</a> · <a class="reference internal" href="2020.html">2020</a>') in page
    assert '<strong aria-current="page">2017</strong>' in page
    assert ('<p class="ruling-timeline-months"><a class="reference internal" href="#y2017-12">12 月'
            '</a> · <a class="reference internal" href="#y2017-07">7 月</a>') in page
    assert re.search(r'class="prev-page" href="2018.html"|rel="prev" title="[^"]*" href="2018.html"',
                     page)
    assert re.search(r'rel="next"[^>]*href="2016.html"|class="next-page" href="2016.html"', page)
    assert '<meta name="description" content="2017 年的 7 条裁定，最新的在前。" />' in page


@pytest.mark.sphinx('html', testroot='ruling-lines')
@pytest.mark.test_params(shared_result='ruling_timeline-ruling-lines')
def test_old_anchors_of_the_timeline_lead_to_the_year_pages(app):
    """timeline.html#y2017 and #y2017-03 still lead somewhere: the page maps
    each to its year page, which a script follows (render/split_pages.py)."""
    app.build()
    page = html(app, 'timeline')
    moved = moved_anchors(app, 'timeline')
    assert moved['timeline/2017.html'] == ['y2017', 'y2017-12', 'y2017-07', 'y2017-03']
    for target, anchors in moved.items():
        for anchor in anchors:
            assert f'id="{anchor}"' in (app.outdir / target).read_text(encoding='utf-8')
    assert 'location.replace(page + location.hash)' in page
    assert '<li id="y2017">' in page  # without the script, the year's line


@pytest.mark.parametrize('builder', ['singlehtml', 'epub'])
def test_books_keep_the_whole_timeline(make_app, rootdir, tmp_path, builder):
    srcdir = tmp_path / 'ruling-lines'
    shutil.copytree(rootdir / 'test-ruling-lines', srcdir)
    app = make_app(builder, srcdir=srcdir)
    app.build()
    assert not (app.outdir / 'timeline').exists()
    written = (app.outdir / ('index.html' if builder == 'singlehtml' else 'timeline.xhtml'))
    text = written.read_text(encoding='utf-8')
    assert 'id="y2017-03"' in text and 'ruling-entry-permalink' in text


#: test-ruling-lines with a year of more entries than a page holds: 2017 (7
#: entries) is a page per month, its March (4 entries) two pages
MONTHS = {'handbook_timeline_page_rulings': 3}
#: the pages of 2017 then: (slug, label, [permalink of each entry])
MONTH_PAGES = [
    ('2017-12', '12 月', TIMELINE[3][1][0][1]),
    ('2017-07', '7 月', TIMELINE[3][1][1][1]),
    ('2017-03', '3 月，第 1 页', TIMELINE[3][1][2][1][:3]),
    ('2017-03-2', '3 月，第 2 页', TIMELINE[3][1][2][1][3:]),
]


@pytest.mark.sphinx('html', testroot='ruling-lines', confoverrides=MONTHS)
@pytest.mark.test_params(shared_result='ruling_timeline-ruling-lines-months')
def test_a_heavy_year_is_a_page_per_month(app):
    """A year of more entries than handbook_timeline_page_rulings is a page
    per month (timeline/2017-12.html), a month of more entries several
    pages (timeline/2017-03-2.html), each with the years' bar and the
    year's months; the year's page lists its months' pages and their
    counts; lighter years stay one page; every link resolves."""
    app.build()
    assert_no_warnings(app)
    assert TIMELINE[3][0] == '2017 年（7 条）'
    pages = ['timeline.html', *(f'timeline/{y}.html' for y in years(app)),
             *(f'timeline/{slug}.html' for slug, _l, _p in MONTH_PAGES)]
    assert sorted(p.relative_to(app.outdir).as_posix() for p in
                  (app.outdir / 'timeline').glob('*.html')) == sorted(pages[1:])
    for page in pages:
        assert links_resolve(app.outdir, page) == [], page
    for slug, label, permalinks in MONTH_PAGES:
        page = html(app, f'timeline/{slug}')
        assert re.findall(r'href="([^"]*)"><span class="ruling-entry-permalink">',
                          page) == permalinks
        assert (f'<section class="ruling-timeline-month" id="y{slug}">\n'
                f'<h1>2017 年 {label}（{len(permalinks)} 条）</h1>') in page
        assert f'<title>Timeline：2017 年 {label} ' in page
        assert (f'<meta name="description" content="2017 年 {label}的 {len(permalinks)} 条裁定，'
                '最新的在前。" />') in page
        assert f'<strong aria-current="page">{label}</strong>' in page
    page = html(app, 'timeline/2017-03')
    assert ('<p class="ruling-timeline-bar"><a class="reference internal" href="../timeline.html">'
            '全部</a> · <a class="reference internal" href="2020.html">2020</a>') in page
    assert '<a class="reference internal" href="2017.html">2017</a>' in page
    assert ('<p class="ruling-timeline-months"><a class="reference internal" href="2017-12.html">'
            '12 月</a> · <a class="reference internal" href="2017-07.html">7 月</a> · '
            '<strong aria-current="page">3 月，第 1 页</strong> · <a class="reference internal" '
            'href="2017-03-2.html">3 月，第 2 页</a></p>') in page
    assert re.search(r'rel="prev"[^>]*href="2017-07.html"|class="prev-page" href="2017-07.html"',
                     page)
    assert re.search(r'rel="next"[^>]*href="2017-03-2.html"|class="next-page" '
                     r'href="2017-03-2.html"', page)
    assert re.search(r'rel="next"[^>]*href="2016.html"|class="next-page" href="2016.html"',
                     html(app, 'timeline/2017-03-2'))
    year = html(app, 'timeline/2017')
    assert ('<p class="ruling-timeline-months"><a class="reference internal" href="2017-12.html">'
            '12 月（2 条）</a> · <a class="reference internal" href="2017-07.html">7 月（1 条）'
            '</a> · <a class="reference internal" href="2017-03.html">3 月，第 1 页（3 条）</a> · '
            '<a class="reference internal" href="2017-03-2.html">3 月，第 2 页（1 条）</a></p>'
            ) in year
    assert 'ruling-entry' not in year
    assert 'ruling-entry' in html(app, 'timeline/2019')  # a light year: one page
    assert ('<a class="reference internal" href="timeline/2017-03.html">3 月</a></li>'
            in html(app, 'timeline'))


@pytest.mark.sphinx('html', testroot='ruling-lines', confoverrides=MONTHS)
@pytest.mark.test_params(shared_result='ruling_timeline-ruling-lines-months')
def test_old_anchors_lead_to_the_month_pages(app):
    """timeline.html#y2017-03 and timeline/2017.html#y2017-03 both lead to
    timeline/2017-03.html, through the moved anchors' map of each page."""
    app.build()
    moved = functools.partial(moved_anchors, app)
    overview = moved('timeline')
    assert overview['timeline/2017.html'] == ['y2017']
    assert overview['timeline/2017-03.html'] == ['y2017-03']
    assert overview['timeline/2019.html'] == ['y2019', 'y2019-02']
    assert moved('timeline/2017') == {f'{slug}.html': [f'y{slug}'] for slug, _l, _p in MONTH_PAGES}
    for folder, found in (('', overview), ('timeline/', moved('timeline/2017'))):
        for target, anchors in found.items():
            text = (app.outdir / folder / target).read_text(encoding='utf-8')
            for anchor in anchors:
                assert f'id="{anchor}"' in text, (target, anchor)


@pytest.mark.parametrize('edit', [('| 另一页', '| 另一页，改'), ('| 另一页，', '| **另一页**\\ ，')],
                         ids=['text', 'markup'])
@pytest.mark.parametrize('split, page, count', [({}, '2017', 6), (MONTHS, '2017-12', 10)],
                         ids=['years', 'months'])
def test_an_edit_renders_and_rewrites_only_its_page(make_app, rootdir, tmp_path, split, page,
                                                     count, edit):
    """An edited ruling renders and rewrites its year's page (its month's,
    where the year is a page per month) and no other page of the timeline;
    the site is byte for byte a clean build's.  Its markup alone edited too
    (an editor's round trip: its words set in bold were not shown so)."""
    srcdir = tmp_path / 'ruling-lines'
    shutil.copytree(rootdir / 'test-ruling-lines', srcdir)
    app = make_app('html', srcdir=srcdir, confoverrides=split)
    app.build()

    def stamps() -> dict[str, int]:
        return {p.name: p.stat().st_mtime_ns for p in (app.outdir / 'timeline').glob('*.html')}

    before = stamps()
    other = srcdir / 'other.rst'
    assert edit[0] in other.read_text(encoding='utf-8')
    other.write_text(other.read_text(encoding='utf-8').replace(*edit), encoding='utf-8')
    os.utime(other)
    again = make_app('html', srcdir=srcdir, confoverrides=split)
    made = []  # the pages the theme renders: the other parts are not made again
    again.connect('html-page-context', lambda app, pagename, *args: made.append(pagename))
    again.build()
    after = stamps()
    assert sorted(n for n in after if after[n] != before.get(n)) == [f'{page}.html']
    assert sorted(n for n in made if n.startswith('timeline/')) == [f'timeline/{page}']
    clean = make_app('html', srcdir=srcdir, builddir=tmp_path / 'clean', freshenv=True,
                     confoverrides=split)
    clean.build()
    names = sorted(p.relative_to(clean.outdir).with_suffix('').as_posix()
                   for p in (clean.outdir / 'timeline').glob('*.html'))
    assert len(names) == count
    for name in ('timeline', *names):
        assert html(again, name) == html(clean, name), name


def test_a_year_gone_is_removed_beside_a_card_index(make_app, rootdir, tmp_path):
    """A year no ruling has any more loses its page also where the handbook
    has a card index too (the two lists' parts are noted one after the
    other: the second once forgot the first's)."""
    srcdir = tmp_path / 'years'
    shutil.copytree(rootdir / 'test-handbook', srcdir)
    make_app('html', srcdir=srcdir).build()
    app = make_app('html', srcdir=srcdir)
    year = app.outdir / 'timeline' / '2022.html'
    assert year.is_file()
    for page in srcdir.glob('p*.rst'):
        page.write_text(page.read_text(encoding='utf-8').replace(':ruling:`22/', ':ruling:`21/'),
                        encoding='utf-8')
    app.build()
    assert not year.exists()
    assert (app.outdir / 'timeline' / '2021.html').is_file()


def test_a_ruling_in_several_places_is_listed_once_with_its_other_places(handbook_build):
    """A ruling said in two sections (the same text and cards) is one entry
    of the timeline and of 最近更新, with 也见于 and a link to its other place,
    as on the card pages and in the search (a reader's round trip: both
    listed it twice, and counted it twice)."""
    site = handbook_build.html
    year = (site / 'timeline' / '2014.html').read_text(encoding='utf-8')
    permalinks = re.findall(r'href="([^"]*#ruling-2014-03-21-裁决之龙)"', year)
    # the entry's permalink, and its other place in its 也见于
    assert len(permalinks) == 2 and len(set(permalinks)) == 2
    also = re.findall(r'<p class="ruling-entry-also">也见于 (.*?)</p>', year)
    assert any('#ruling-2014-03-21-裁决之龙' in line for line in also)
    # counted once: the total is the number of entries
    overview = (site / 'timeline.html').read_text(encoding='utf-8')
    total = int(re.search(r'共 (\d+) 条注明日期的裁定', overview)[1])
    pages = sorted((site / 'timeline').glob('*.html'))
    assert total == sum(page.read_text(encoding='utf-8').count('<li class="ruling-entry')
                        for page in pages if re.fullmatch(r'\d{4}', page.stem))
    texts = [re.sub(r'<[^>]+>', '', text) for page in pages
             for text in re.findall(r'<p class="ruling-entry-text">(.*?)</p>',
                                    page.read_text(encoding='utf-8'), re.S)]
    assert len(texts) == total
    recent = (site / 'recent.html').read_text(encoding='utf-8')
    shown = [re.sub(r'<[^>]+>', '', text)
             for text in re.findall(r'<p class="ruling-entry-text">(.*?)</p>', recent, re.S)]
    assert shown and len(shown) == len(set(shown))
