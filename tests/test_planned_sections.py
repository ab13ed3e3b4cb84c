"""Planned sections render as not-yet-written; other missing labels still warn."""

from __future__ import annotations

import re

import pytest
from sphinx.util.console import strip_escape_sequences

from helpers import html, warnings


@pytest.mark.sphinx('html', testroot='planned', freshenv=True)
def test_planned_labels(app):
    app.build()
    page = html(app)
    assert ('<span class="planned"><span class="xref std std-ref">调整中</span>'
            '<span class="planned-label">（待编写）</span></span>') in page
    assert warnings(app) == [
        "index.rst:5: ERROR: undefined label '不存在的标签', so the link leads nowhere (its text is "
        'shown plain): define it on the line before the section it names, .. _不存在的标签:, or '
        'write a label the handbook defines, or, for a section not written yet, list it in '
        "planned_sections of the handbook's handbook.toml [handbook.ref]"]
    # written now: a note at the label's line, naming the file the list is in
    status = strip_escape_sequences(app.status.getvalue()).replace(str(app.srcdir) + '/', '')
    assert re.findall(r'\S+: note: .*', status) == [
        "index.rst:8: note: section '已写' is written now (its label is defined here); remove "
        "'已写' from handbook_planned_sections in conf.py [handbook.planned]"]
    # and a reference to it is an ordinary link
    assert '<a class="reference internal" href="#id1"><span class="std std-ref">已写的章节</span></a>' in page
