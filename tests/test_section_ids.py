"""Section ids: readable, stable when sections are added above, old ids kept."""

from __future__ import annotations

import re

import pytest
from docutils import nodes

from helpers import assert_no_warnings, html, warnings

#: section title -> the id it gets (test-section-ids/index.rst)
IDS = {
    '章节标识': '章节标识',
    '有标签的章节': '标签',
    '无标签的章节': '无标签的章节',
    '『A，B』': 'a，b',
    'Label Target': 'label-target',
    '作为cost': '作为cost',
    'cost': 'cost',
}


def section_ids(app, docname: str = 'index') -> list[tuple[str, list[str]]]:
    """``(title, ids)`` of every section, in page order."""
    doctree = app.env.get_doctree(docname)
    return [(s[0].astext(), s['ids']) for s in doctree.findall(nodes.section)]


@pytest.mark.sphinx('html', testroot='section-ids')
@pytest.mark.test_params(shared_result='section_ids-section-ids')
def test_sections_get_readable_ids(app):
    app.build()
    assert_no_warnings(app)
    found = section_ids(app)
    first = {title: ids[0] for title, ids in found if title != '例'}
    assert first == IDS
    # two sections with the same title: each qualified by its parent
    assert [ids[0] for title, ids in found if title == '例'] == ['无标签的章节-例', 'label-target-例']
    # docutils' own ids stay, as secondary ids (links to them keep working)
    assert found[1][1][1:] and all(re.fullmatch(r'id\d+', i) for i in found[1][1][1:])
    assert '<span id="id1"></span>' in html(app) or '<span id="id2"></span>' in html(app)
    # ... except docutils' id of 作为cost, which is now the readable id of cost
    assert dict(found)['作为cost'] == ['作为cost']
    assert dict(found)['cost'][0] == 'cost'
    assert html(app).count('id="cost"') == 1


@pytest.mark.sphinx('html', testroot='section-ids')
@pytest.mark.test_params(shared_result='section_ids-section-ids')
def test_links_use_the_new_ids(app):
    app.build()
    page = html(app)
    # a same-page named reference and a :ref: to a label
    assert '<a class="reference internal" href="#无标签的章节">无标签的章节</a>' in page
    assert ('<a class="reference internal" href="#标签"><span class="std std-ref">'
            '有标签的章节</span></a>') in page
    # a :ref: from another page
    assert ('<a class="reference internal" href="index.html#标签"><span class="std std-ref">'
            '有标签的章节</span></a>') in html(app, 'other')
    # the heading's ¶ link and furo's table of contents on the page
    assert '<a class="headerlink" href="#无标签的章节"' in page
    toc = page[page.index('<div class="toc-tree">'):]
    assert re.findall(r'href="#([^"]*)"', toc)[:6] == [
        '', '标签', '无标签的章节', 'a，b', '无标签的章节-例', 'label-target']


@pytest.mark.sphinx('html', testroot='section-ids', srcdir='section-ids-insert')
def test_inserting_a_section_above_keeps_the_ids(app, make_app):
    app.build()
    before = section_ids(app)
    index = app.srcdir / 'index.rst'
    text = index.read_text(encoding='utf-8')
    # a new section with a footnote, above all the others: docutils' numbered
    # ids shift, the readable ones do not
    index.write_text(text.replace('.. _标签:', '新的章节\n--------\n\n注释\\ [#]_。\n\n'
                                              '.. [#] 脚注。\n\n.. _标签:'), encoding='utf-8')
    again = make_app('html', srcdir=app.srcdir)
    again.build()
    after = [(title, ids) for title, ids in section_ids(again) if title != '新的章节']
    assert [ids[0] for _, ids in after] == [ids[0] for _, ids in before]
    # the test means something: docutils' own ids did change
    assert [ids[1:] for _, ids in after] != [ids[1:] for _, ids in before]
    # (a second app in one process re-registers Sphinx's nodes: [app.*] warnings)
    assert [w for w in warnings(again) if '[app.' not in w] == []


@pytest.mark.sphinx('html', testroot='section-ids', srcdir='section-ids-zh_TW',
                    confoverrides={'language': 'zh_TW'})
def test_translated_titles_keep_the_original_ids(app):
    app.build()
    assert_no_warnings(app)
    found = dict(section_ids(app))
    # the translated titles are shown; the ids are the original's
    assert found['無標籤的章節'][0] == '无标签的章节'
    assert found['有標籤的章節'][0] == '标签'
    assert '<a class="reference internal" href="#无标签的章节">無標籤的章節</a>' in html(app)
