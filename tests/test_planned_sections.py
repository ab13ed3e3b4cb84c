"""Planned sections render as not-yet-written; other missing labels still warn."""

from __future__ import annotations

import pytest

from helpers import html, warnings


@pytest.mark.sphinx('html', testroot='planned', freshenv=True)
def test_planned_labels(app):
    app.build()
    page = html(app)
    assert ('<span class="planned"><span class="xref std std-ref">调整中</span>'
            '<span class="planned-label">（待编写）</span></span>') in page
    assert warnings(app) == [
        "index.rst: WARNING: section '已写' is written now (label defined here); remove it "
        'from handbook_planned_sections in conf.py [handbook.planned]',
        "index.rst:5: WARNING: undefined label: '不存在的标签' [ref.ref]",
    ]
