"""An existing handbook as it is (tests/roots/test-legacy-handbook): every
shape of issue 11 that is fine -- rows with spaces in the URL, one card spelled
two ways, whole struck rulings naming cards, placeholders, http ruling URLs, a
legacy link file -- builds with -W: no warning and no error, only the notes
that say what ``make fix`` would tidy.  The shapes one by one, and the faults
of test-legacy-faults, are in test_legacy_registry.py, test_legacy_markup.py
and test_legacy_rulings.py."""

from __future__ import annotations

import re
import shutil

import pytest
from sphinx.util.console import strip_escape_sequences

from helpers import warnings

NOTE = re.compile(r'^(?P<path>[^:\s]+):(?P<line>\d+): note: .* \[(?P<kind>handbook\.[\w-]+)\]$')


def notes(app) -> list[tuple[str, int, str]]:
    """``(path, line, kind)`` of every note of the build, paths relative to srcdir."""
    text = strip_escape_sequences(app.status.getvalue()).replace(str(app.srcdir) + '/', '')
    return [(m['path'], int(m['line']), m['kind'])
            for m in map(NOTE.match, text.splitlines()) if m]


def test_a_fresh_environment_prints_the_registrys_notes_again(make_app, rootdir, tmp_path):
    """A build with a fresh environment (``-E``, a new configuration) prints
    every page's notes again, and so the registry's: they were summed up in
    one line as printed by an earlier build (the suite: a fresh build of a
    root another test had built); an unchanged registry's second build sums
    them up."""
    srcdir = tmp_path / 'handbook'
    shutil.copytree(rootdir / 'test-legacy-handbook', srcdir)
    registry = [('links.rst', 5, 'handbook.registry'),  # spaces in URLs (5, 6, 8, 10)
                ('links.rst', 6, 'handbook.registry'),
                ('links.rst', 8, 'handbook.registry'),
                ('links.rst', 9, 'handbook.registry-alias'),
                ('links.rst', 10, 'handbook.registry'),
                ('links.rst', 11, 'handbook.registry-alias'),
                ('links.rst', 13, 'handbook.registry-alias'),
                ('links.rst', 16, 'handbook.registry')]
    for fresh, expected in [(True, registry), (False, [('links.rst', 5, 'handbook.registry-notes')]),
                            (True, registry)]:
        app = make_app('html', srcdir=srcdir, freshenv=fresh)
        app.build()
        assert [note for note in notes(app) if note[0] == 'links.rst'] == expected


@pytest.mark.sphinx('html', testroot='legacy-handbook', freshenv=True,
                    confoverrides={'suppress_warnings': []})
def test_the_whole_handbook_builds_with_only_notes(app):
    app.build()
    assert warnings(app) == []  # make html (-W) would pass: no warning, no error
    assert notes(app) == [
        ('links.rst', 5, 'handbook.registry'),         # spaces in URLs, which docutils drops
        ('links.rst', 6, 'handbook.registry'),
        ('links.rst', 8, 'handbook.registry'),
        ('links.rst', 9, 'handbook.registry-alias'),   # D.D.乌鸦 / D.D. 乌鸦
        ('links.rst', 10, 'handbook.registry'),
        ('links.rst', 11, 'handbook.registry-alias'),  # PSY骨架装备·α
        ('links.rst', 13, 'handbook.registry-alias'),  # 幻变骚灵协议 / 幻变骚灵·协议
        ('links.rst', 16, 'handbook.registry'),        # the same row twice
        ('rulings.rst', 14, 'handbook.ruling-https'),
        ('rulings.rst', 15, 'handbook.ruling-https'),
        ('rulings.rst', 24, 'handbook.ruling-https'),
    ]
    # every page is written, every 「`卡名`_」 a card link (no text left with backquotes)
    for page in ('registry', 'struck', 'quotes', 'rulings'):
        html = (app.outdir / f'{page}.html').read_text(encoding='utf-8')
        body = html.split('<article', 1)[-1]
        assert '`' not in re.sub(r'<[^>]+>', '', body), page
