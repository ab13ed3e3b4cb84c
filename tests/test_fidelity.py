"""The restored pages are faithful to their seeds (../shared/seeds).

For each seed: the card names, dates, :ref: labels and headings of the
restored page equal the seed's, as sets and as counts, and every sentence of
the seed appears in the page's built text; every date is on the ruling timeline
and in rulings.json.  The whole handbook builds without a single warning.
"""

from __future__ import annotations

import json
import pickle
import re
from collections import Counter

import pytest
import seeds
from helpers import whole_list
from docutils import nodes
from handbook.nodes import is_card_link
from sphinx import addnodes

pytestmark = pytest.mark.skipif(seeds.ABSENT is not None, reason=seeds.ABSENT or '')


@pytest.fixture
def handbook(handbook_build):
    """The real handbook, as the suite builds it once (conftest.py)."""
    return handbook_build


def test_handbook_builds_without_warnings(handbook):
    assert handbook.stderr == ''
    assert handbook.returncode == 0


SEEDS = sorted(seeds.PAGES)


def doctree(handbook, seed) -> nodes.document:
    """The page's doctree as read (:ref: references not yet resolved)."""
    path = handbook.doctrees / f'{seeds.load(seed).docname}.doctree'
    return pickle.loads(path.read_bytes())


@pytest.mark.parametrize('seed', SEEDS)
def test_card_names(handbook, seed):
    page = Counter(n['cardname'] for n in doctree(handbook, seed).findall(is_card_link))
    assert page == seeds.load(seed).cards


@pytest.mark.parametrize('seed', SEEDS)
def test_dates(handbook, seed):
    page = Counter(n['ruling_text'] for n in doctree(handbook, seed).findall(nodes.Element)
                   if 'ruling_text' in n.attributes)
    assert page == seeds.load(seed).dates


@pytest.mark.parametrize('seed', SEEDS)
def test_ref_labels(handbook, seed):
    page = Counter(n['reftarget'] for n in doctree(handbook, seed).findall(addnodes.pending_xref)
                   if n['refdomain'] == 'std' and n['reftype'] == 'ref')
    source = seeds.load(seed)
    if source.format == 'rst':
        assert page == source.refs
    else:
        # rendered text lost the markup: a reference stands where the text
        # sends the reader to a topic (详见X, →X)
        for label in page:
            assert re.search(rf'(详见|→){re.escape(label)}', source.text), label


@pytest.mark.parametrize('seed', SEEDS)
def test_headings(handbook, seed):
    titles = [s[0].astext() for s in doctree(handbook, seed).findall(nodes.section)]
    assert titles == seeds.load(seed).headings


@pytest.mark.parametrize('seed', SEEDS)
def test_admonitions(handbook, seed):
    source = seeds.load(seed)
    page = Counter(type(n).__name__ for n in doctree(handbook, seed).findall(nodes.Admonition))
    if source.format == 'rst':
        want = Counter(re.findall(r'\.\. (attention|note|tip)::', source.text))
    else:
        want = Counter(seeds.ADMONITION_TITLES[ln.strip()] for ln in source.text.splitlines()
                       if ln.strip() in seeds.ADMONITION_TITLES)
    assert page == want


@pytest.mark.parametrize('seed', SEEDS)
def test_every_sentence_is_in_the_page(handbook, seed):
    source = seeds.load(seed)
    text = seeds.squash(doctree(handbook, seed).astext())
    missing = [s for s in source.sentences() if s not in text]
    assert missing == []
    assert len(source.sentences()) > 100


@pytest.mark.parametrize('seed', SEEDS)
def test_timeline_and_export_have_every_date(handbook, seed):
    """Every dated reference of the page is on the timeline (in the entries
    that link back to the page: where the ruling is, or, for a ruling said in
    several places at one date, listed once, one of its other places, 也见于)
    and in rulings.json, counted as written."""
    source = seeds.load(seed)
    timeline = whole_list(handbook.html, 'timeline')
    on_timeline = Counter()
    for item in re.findall(r'<li class="ruling-entry[^"]*">(.*?)</li>', timeline, re.S):
        text, _source, places = item.partition('<p class="ruling-entry-source">')
        dates = re.findall(r'class="ruling(?: [^"]*)?"[^>]*>([^<]+)<', text)
        # its own place and each other place on this page: its dates once each
        where, _also, elsewhere = places.partition('<p class="ruling-entry-also">')
        page = re.escape(source.docname)
        times = bool(re.search(rf'href="{page}\.html"', where)) + len(
            re.findall(rf'href="{page}\.html#', elsewhere))
        for _ in range(times):
            on_timeline.update(dates)
    assert on_timeline == source.dates
    export = json.loads((handbook.html / 'rulings.json').read_text(encoding='utf-8'))
    exported = Counter(ref['written'] for ruling in export['rulings']
                       if ruling['page'] == source.docname for ref in ruling['references'])
    assert exported == source.dates


def test_every_id_is_unique(handbook):
    """Section ids, ruling permalinks and docutils' ids never clash on a page."""
    for page in handbook.html.glob('*.html'):
        ids = Counter(re.findall(r'\sid="([^"]*)"', page.read_text(encoding='utf-8')))
        assert [i for i, n in ids.items() if n > 1] == [], page.name
