"""Generated lists split into pages: the timeline by year, the card index by initial.

A handbook of 15,000 rulings makes a timeline and a card index of several
megabytes each, too heavy for a phone.  Where the build writes a site of
pages (the ``html`` builder), each of them is split: the page that holds the
directive keeps a short overview with the jump bar, and each part (a year, an
initial) is a page of its own, ``<page>/<part>.html`` beside it
(``timeline/2021.html``, ``card-index/x.html``); a part too heavy for one page
is split again, each piece a part of its own beside it (a month,
``timeline/2024-06.html``; a second letter, ``card-index/x-u.html``), the
heavy part keeping a bar of its pieces and the map of their anchors.  Other builders (EPUB,
single HTML, LaTeX) keep the whole list on its page: a book is read whole.

**The parts** are written at the end of the build (``html-collect-pages``,
as the card pages are), by the builder's ``handle_page`` with the theme's
``page.html``: every ``html-page-context`` listener adds what it adds to any
page.  Each part has a title, ``prev``/``next`` (the overview before the first
part, the parts in order), a description and the tags of a link's preview
(:func:`handbook.publishing.link_previews.preview_tags`); the sitemap lists
them (:func:`names`).  A part is made whenever its list's page is written
again (its post-transform says so: :func:`due`), or the build's settings,
templates or this code changed, or a part's file is missing; a part whose
content, neighbours, settings, assets and navigation are those it was last
written with is not rendered again (their digest is kept in the doctree
folder; a part costly to write, a page of the timeline, gives instead of
its content the digest of what it is written from: :attr:`Part.key`), and a
part is written only where its bytes differ from the file's, so that an
edit renders and rewrites the parts it changed and no other.  The parts of
a folder share one navigation, made once per build
(:mod:`handbook.render.navigation`).  A part whose list no longer has it (a year
without rulings) is removed.  A source page that has a part's name (a
``timeline/2021.rst``) is an error ``handbook.split-page`` at that page: the
part is not written over it.

**Old links** into the whole list (``timeline.html#y2021-06``,
``card-index.html#card-旋风``) still work: the overview holds a map of each
part's anchors and a few lines of script that, when the address names one of
them, go to it on its part (:func:`moved_anchors`).  The § of a card link
that leads to the card index (a build without card pages) goes through it
too.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from handbook.core import reports
from handbook.core.files import write_if_changed
from handbook.core.records import frozen_record
from handbook.publishing.link_previews import cut, preview_tags
from handbook.render.anchors import page_title
from handbook.render import navigation
from handbook.render.html_parts import escape
from handbook.store import State, state, store

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment

#: the builders whose lists are split (the others keep them whole)
SPLIT_BUILDERS = frozenset({'html'})
#: the per-build set of lists whose page was written again (:func:`due`)
DUE = 'split_pages_due'
#: raised when what a part shows, or how, changes shape
VERSION = '1'
#: in the doctree folder: what each part showed when it was last written (:func:`write_parts`)
DIGESTS = 'handbook-split-parts.json'
#: the script of the overview: an old anchor goes to its part
MOVED_SCRIPT = (
    "(() => {\n"
    "  const moved = JSON.parse(document.getElementById('handbook-moved-anchors').textContent);\n"
    "  const go = () => {\n"
    "    const id = decodeURIComponent(location.hash.slice(1));\n"
    "    const page = id && Object.keys(moved).find((p) => moved[p].includes(id));\n"
    "    if (page) location.replace(page + location.hash);\n"
    "  };\n"
    "  go();\n"
    "  window.addEventListener('hashchange', go);\n"
    "})();\n")


@frozen_record
class Part:
    """One page of a split list."""

    name: str  # the page name, '<holder>/<slug>'
    title: str  # text
    nav_title: str  # text: how prev/next name it
    description: str  # text
    # HTML; or a function that writes it, when writing it costs: then *key*
    # is the digest of everything the HTML is written from (equal keys,
    # equal HTML), and the part is written only where it changed
    body: str | Callable[[], str]
    key: str = ''


class SplitState(State):
    """What the split lists keep from build to build (set once the pages are
    read): ``parts``, ``{holder page: (list kind, (part names, …))}``, for
    the sitemap; ``base``, the digest of the settings each list's parts were
    last made with (:func:`build_base`); ``fresh``, the lists whose settings
    changed in this build; ``gone``, by list, the parts it no longer has (by
    list: the timeline's and the card index's are noted one after the other)."""

    def __init__(self) -> None:
        self.parts: dict[str, tuple[str, tuple[str, ...]]] = {}
        self.base: dict[str, str] = {}
        self.fresh: frozenset[str] = frozenset()
        self.gone: dict[str, tuple[str, ...]] = {}


def splits(builder: Builder | None) -> bool:
    """Whether *builder* writes the lists split into pages."""
    return builder is not None and builder.name in SPLIT_BUILDERS


def part_name(holder: str, slug: str) -> str:
    return f'{holder}/{slug}'


def due(env: BuildEnvironment, kind: str) -> None:
    """The page that holds the list *kind* is written again in this build:
    its parts are made (the list's post-transform)."""
    store(env).per_build(DUE, set).add(kind)


def kept(env: BuildEnvironment) -> SplitState:
    return state(env, SplitState)


def names(env: BuildEnvironment) -> list[str]:
    """Every part of every split list (the sitemap's)."""
    return [name for _kind, parts in kept(env).parts.values() for name in parts]


def note_parts(app: Sphinx, kind: str, holders: dict[str, Iterable[str] | None]) -> None:
    """The parts of the list *kind* in this build: ``{holder page: slugs}``,
    the slugs None where they are as in the last build (its
    ``env-get-updated``: kept with the environment)."""
    found = kept(app.env)
    before = {holder: names for holder, (k, names) in found.parts.items() if k == kind}
    if not splits(app.builder):
        holders = {}
    for holder in before.keys() - holders.keys():
        del found.parts[holder]
    for holder, slugs in holders.items():
        found.parts[holder] = (kind, before.get(holder, ()) if slugs is None else
                               tuple(part_name(holder, slug) for slug in slugs))
    now = set(names(app.env))
    found.gone[kind] = tuple(sorted({n for ns in before.values() for n in ns} - now))
    base = build_base(app)
    found.fresh = found.fresh - {kind} if found.base.get(kind) == base else found.fresh | {kind}
    found.base[kind] = base


def moved_anchors(builder: Builder, holder: str, anchors: dict[str, list[str]]) -> str:
    """The overview's map of the anchors that moved, ``{part name: [id, …]}``,
    and its script (see the module docstring), as HTML."""
    moved = {builder.get_relative_uri(holder, name): ids for name, ids in anchors.items()}
    data = json.dumps(moved, ensure_ascii=False, separators=(',', ':')).replace('</', '<\\/')
    return (f'<script type="application/json" id="handbook-moved-anchors">{data}</script>\n'
            f'<script>\n{MOVED_SCRIPT}</script>\n')


def bar(builder: Builder, fromdocname: str, items: list[tuple[str, str]], current: str,
        classes: str, separator: str = ' · ') -> str:
    """A jump bar: a link to each page of *items* (``(page name, text)``),
    the current page's text marked, not linked."""
    out = []
    for name, text in items:
        if name == current:
            out.append(f'<strong aria-current="page">{escape(text)}</strong>')
        else:
            href = escape(builder.get_relative_uri(fromdocname, name))
            out.append(f'<a class="reference internal" href="{href}">{escape(text)}</a>')
    return f'<p class="{classes}">{separator.join(out)}</p>\n'


def build_base(app: Sphinx) -> str:
    """What every part depends on besides its content: the configuration,
    tags, templates, this module."""
    builder = app.builder
    info = getattr(builder, 'build_info', None)
    templates = getattr(builder, 'templates', None)
    parts = [VERSION, app.config.language or '', getattr(info, 'config_hash', ''),
             getattr(info, 'tags_hash', ''),
             str(templates.newest_template_mtime()) if templates is not None else '',
             Path(__file__).read_text(encoding='utf-8')]
    return hashlib.sha256('\0'.join(parts).encode()).hexdigest()


def needed(app: Sphinx, kind: str, holder: str) -> bool:
    """Whether the parts of the list *kind* on page *holder* are made in this
    build (see the module docstring)."""
    env = app.env
    found = kept(env)
    if not splits(app.builder) or found.parts.get(holder, ('', ()))[0] != kind:
        return False
    _kind, parts = found.parts[holder]
    return (kind in found.fresh or kind in store(env).per_build(DUE, set)
            or not all(Path(app.builder.get_outfilename(name)).is_file() for name in parts))


def _assets(builder: Builder) -> str:
    """The style sheets and scripts every page links, with their content:
    a page names each with its checksum."""
    digest = hashlib.sha256()
    for asset in [*getattr(builder, 'css_files', ()), *getattr(builder, 'script_files', ())]:
        name = str(getattr(asset, 'filename', asset) or '')
        digest.update(f'{name}\0'.encode())
        path = Path(builder.outdir) / name.partition('?')[0]
        if name and '://' not in name and path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _digests(app: Sphinx) -> Path:
    """The file that keeps, from build to build, the digest of what each
    part showed when it was last written: ``{part name: digest}``."""
    return Path(app.doctreedir) / DIGESTS


def write_parts(app: Sphinx, holder: str, parts: list[Part]) -> None:
    """Write each part of the list on page *holder* whose bytes changed
    (:func:`needed` says when they are made).  A part whose content,
    neighbours, settings and navigation are those it was last written with,
    and whose file is there, is not made again: rendering it through the
    theme costs as much as its entries."""
    env, builder = app.env, app.builder
    width = app.config.handbook_description_width
    overview = (holder, page_title(env, holder))
    try:
        written = json.loads(_digests(app).read_text(encoding='utf-8'))
    except (OSError, ValueError):
        written = {}
    if not isinstance(written, dict):
        written = {}
    common = f'{build_base(app)}\0{navigation.digest(env)}\0{_assets(builder)}'
    for i, part in enumerate(parts):
        if part.name in env.found_docs:
            reports.error(f'the page {part.name} has the name of a page the generated list of '
                          f'{holder} writes, which is not written; rename the page',
                          location=(env.doc2path(part.name), 0), subtype='split-page')
            continue
        before = overview if i == 0 else (parts[i - 1].name, parts[i - 1].nav_title)
        after = (parts[i + 1].name, parts[i + 1].nav_title) if i + 1 < len(parts) else None
        description = cut(part.description, width)
        shows = part.key if callable(part.body) else part.body
        digest = hashlib.sha256('\0'.join(
            [common, part.name, part.title, part.nav_title, description, shows,
             repr(before), repr(after)]).encode()).hexdigest()
        target = Path(builder.get_outfilename(part.name))
        if written.get(part.name) == digest and target.is_file():
            continue
        written.pop(part.name, None)  # until it is written
        context = {
            'title': escape(part.title), 'toc': '', 'display_toc': False,
            'body': part.body() if callable(part.body) else part.body,
            'prev': _related(builder, part.name, before),
            'next': _related(builder, part.name, after),
            'metatags': preview_tags(app, part.name, part.title, description),
        }
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f'.{target.name}.{os.getpid()}.tmp')
        try:
            builder.handle_page(part.name, context, 'page.html', outfilename=temporary)
            if not target.is_file() or target.read_bytes() != temporary.read_bytes():
                os.replace(temporary, target)
        finally:
            temporary.unlink(missing_ok=True)
        written[part.name] = digest
    write_if_changed(_digests(app), json.dumps(written, ensure_ascii=False, sort_keys=True))


def _related(builder: Builder, fromdocname: str,
             page: tuple[str, str] | None) -> dict[str, str] | None:
    """``prev``/``next`` of the theme's context: a link and a title (HTML)."""
    if page is None:
        return None
    name, title = page
    return {'link': builder.get_relative_uri(fromdocname, name), 'title': escape(title)}


def remove_gone(app: Sphinx) -> list:
    """Remove the parts no list has any more (``html-collect-pages``)."""
    if splits(app.builder):
        for name in (name for gone in kept(app.env).gone.values() for name in gone):
            if name not in app.env.found_docs:
                Path(app.builder.get_outfilename(name)).unlink(missing_ok=True)
    return []


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.store')
    app.connect('html-collect-pages', remove_gone)
    app.setup_extension('handbook.render.navigation')  # the parts' navigation, once
    app.setup_extension('handbook.publishing.link_previews')  # a part's preview tags
    # env_version 2: the parts gone, by list
    return {'version': '1', 'env_version': 2,
            'parallel_read_safe': True, 'parallel_write_safe': True}
