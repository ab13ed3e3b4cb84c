"""Link targets: duplicate labels across pages (serial and parallel builds) and
anonymous-link mismatches, at the line of the fault."""

from __future__ import annotations

import pytest

from helpers import warnings

DUPLICATES = [
    # p3.rst: a label before a section; p5.rst: a label inside a list item
    "p3.rst:6: WARNING: duplicate label '标签': index.rst:1 defines it already; labels are unique "
    'across the handbook: rename one (and the :ref: that mean it) [handbook.label]',
    "p5.rst:6: WARNING: duplicate label '标签': index.rst:1 defines it already; labels are unique "
    'across the handbook: rename one (and the :ref: that mean it) [handbook.label]',
]


@pytest.mark.sphinx('html', testroot='labels')
@pytest.mark.test_params(shared_result='link_targets-labels')
def test_duplicate_labels_across_pages(app):
    app.build()
    # exactly once each, at the label's own line; Sphinx's own warning (at the
    # heading after the label) does not repeat it
    assert warnings(app) == DUPLICATES


@pytest.mark.sphinx('html', testroot='labels', freshenv=True, parallel=2)
def test_duplicate_labels_in_a_parallel_build(app):
    app.build()
    assert app.parallel == 2 and len(app.env.found_docs) > 5  # Sphinx reads in parallel
    assert warnings(app) == DUPLICATES


@pytest.mark.sphinx('html', testroot='labels')
@pytest.mark.test_params(shared_result='link_targets-labels')
def test_first_definition_wins(app):
    app.build()
    assert app.env.domains.standard_domain.labels['标签'][0] == 'index'


@pytest.mark.sphinx('html', testroot='check-docutils', freshenv=True)
def test_anonymous_link_without_target_at_its_line(app):
    app.build()
    found = [w for w in warnings(app) if 'anonymous' in w.lower()]
    # in a nested line block; docutils' page-wide message without a line is gone
    assert found == [
        "index.rst:16: ERROR: anonymous link '`旋风`__' has no target (the page has 1 anonymous "
        'links `…`__ and 0 anonymous targets .. __: URL, which pair up in order): write its '
        'https:// address inside the link, `旋风 <https://…>`__, or 「`旋风`_」 for the card '
        '[handbook.anonymous-link]']
    assert '<span class="problematic">`旋风`__</span>' in (app.outdir / 'index.html').read_text(encoding='utf-8')
