"""Assertions shared by the tests."""

from __future__ import annotations

import re

from sphinx.util.console import strip_escape_sequences


def warnings(app) -> list[str]:
    """The build's warnings, one string per warning, paths relative to srcdir
    (``index.rst:12: WARNING: … [handbook.card]``)."""
    text = strip_escape_sequences(app.warning.getvalue())
    text = text.replace(str(app.srcdir) + '/', '')
    return [w for w in text.splitlines() if w.strip()]


def assert_no_warnings(app) -> None:
    found = warnings(app)
    assert found == [], '\n'.join(found)


def html(app, docname: str = 'index') -> str:
    return (app.outdir / f'{docname}.html').read_text(encoding='utf-8')


def links(app, docname: str = 'index') -> list[tuple[str, str, str]]:
    """``(kind, href, text)`` of every card link (class ``card-link``), where
    kind is ``card`` or ``series``."""
    found = re.findall(r'<a class="card-link card-(\w+) [^"]*" href="([^"]*)"[^>]*>(.*?)</a>',
                       html(app, docname), re.S)
    return [(kind, href, re.sub(r'<[^>]+>', '', text)) for kind, href, text in found]
