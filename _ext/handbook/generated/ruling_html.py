"""Rulings as HTML, rendered once for the pages that show the rulings of other pages.

The timeline (:mod:`handbook.generated.timeline`) and the card pages
(:mod:`handbook.generated.card_pages`) show rulings of every page, a ruling
often on several of them.  Copying each ruling's nodes into every doctree
that shows it would have Sphinx resolve, walk and translate the same nodes
again for each page: on a handbook of 9,000 rulings that was most of the
build.  Instead each ruling is rendered here once:

* its nodes as the store keeps them (:meth:`handbook.store.HandbookStore.ruling_nodes`)
  are copied into one document (ids dropped: they belong to the ruling's
  page; a same-page link of the ruling's page made a link to that page; a
  broken reference is reported on its own page only);
* the document's references are resolved as links of a page at the site's
  root (the post-transforms: card links, dates, ``:ref:``; each card link
  is followed by its §, :mod:`handbook.generated.card_index`);
* the builder's translator writes each ruling's HTML
  (:class:`handbook.generated.html_parts.Writer`).

A page elsewhere than the root gets the HTML with its relative links rebased
(:func:`rebase`); the timeline, at the root, gets it as it is.  What was
rendered is kept from build to build (:class:`Rendered`, in the doctree
folder), so that an edit renders again only the rulings it changed: never
stale, since a ruling whose nodes changed, another configuration, or a card
whose row or § changed renders them anew.  HTML builders
only (EPUB included); other builders copy the nodes (:class:`Copies`).

In a parallel build the rulings to render are rendered in a process of
their own, started once the first page is resolved (:func:`render_aside`):
Sphinx's main process resolves every page of a parallel write itself, one
after the other, and rendering a whole handbook's rulings there (9,000 of
them: 3 s), for the timeline, was the longest part of it.  The first page
that needs the HTML waits for that process (:meth:`Rendered.wait`), which
renders what this one would have (the same environment, forked).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import pickle
import posixpath
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from docutils import nodes
from sphinx import addnodes
from sphinx.util.docutils import new_document
from sphinx.util.osutil import relative_uri
from sphinx.util.parallel import ParallelTasks

from handbook.generated import card_index
from handbook.generated.html_parts import Writer
from handbook.generated.anchors import anchor_link
from handbook.rulings import lines as ruling_lines
from handbook.store import store

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment

    from handbook.rulings.lines import Ruling

#: the page, at the site's root, the rulings are rendered for
ROOT = 'handbook-ruling-html'
#: the folder, in the doctree folder, that keeps the rulings' HTML (:class:`Rendered`)
CACHE = 'handbook-ruling-html'
#: changes whenever what :func:`render` writes does
VERSION = 3
#: the cross-references whose links depend on nothing but the registry and
#: the ruling's own page: a ruling with other ones is rendered at every build
LASTING = ('card', 'anchor')
#: a relative link or image of the rendered HTML
LINK = re.compile(r' (href|src)="([^"]*)"')


class Copies:
    """The rulings' nodes from their pages, made to work on page
    *fromdocname* (:meth:`of`; unpickled from the store a ruling at a time)."""

    def __init__(self, env: BuildEnvironment, fromdocname: str) -> None:
        self.env = env
        self.fromdocname = fromdocname

    def of(self, ruling: Ruling) -> list[nodes.Node]:
        stored = ruling_lines.ruling_nodes(self.env, ruling.docname, ruling.anchor)
        if stored is None:  # cannot happen while the record and the nodes agree
            return [nodes.Text(ruling.text)]
        holder = nodes.inline('', '', *stored)
        for node in list(holder.findall(nodes.Element)):
            node['ids'] = []  # the ids belong to the ruling's page
            if isinstance(node, addnodes.pending_xref):
                node['refdoc'] = self.fromdocname
                node['refwarn'] = False  # its own page reports a broken reference
            elif 'refid' in node:  # a same-page link of the ruling's page
                node.replace_self(anchor_link(self.fromdocname, ruling.docname, node['refid'],
                                              nodes.inline('', '', *node.children)))
        children = list(holder.children)
        if children and isinstance(children[0], nodes.Text):  # the space after a date
            children[0] = nodes.Text(str(children[0]).lstrip(' \t\n\x00'))
        return children


def ruling_html(env: BuildEnvironment, rulings: Iterable[Ruling],
                docname: str) -> dict[tuple[str, str], str]:
    """The HTML of each of *rulings* for page *docname*: ``{(docname, anchor): html}``."""
    kept = Rendered.of(env)
    kept.wait()
    found = {ruling: kept.get(ruling) for ruling in rulings}
    missing = [ruling for ruling, text in found.items() if text is None]
    if missing:
        for ruling, (text, lasting) in render(env, missing).items():
            kept.add(ruling, text, lasting)
            found[ruling] = text
    move = rebase(store(env).builder, ROOT, docname)
    return {(r.docname, r.anchor): move(text) for r, text in found.items()}


class Rendered:
    """The rulings' HTML, kept from build to build in the doctree folder
    (:data:`CACHE`, a file per page).  A ruling's HTML is kept while its
    nodes are the same (a digest of them: an edit elsewhere on its page, or
    a line inserted above it, keeps it), the configuration is the same
    (:meth:`digest`), and so is every card it links: the card's registry row
    (its link) and where its § leads (:meth:`cards_of`).  A ruling that holds
    another cross-reference (a ``:ref:``, whose text is another page's
    title) is rendered again at every build."""

    def __init__(self, env: BuildEnvironment) -> None:
        self.env = env
        self.folder = Path(env.doctreedir) / CACHE
        self.base = self.digest()
        registry = store(env).registry  # none without handbook.cards
        self.registry = registry if registry is not None else {}
        # docname -> {anchor: (digest of the nodes, cards_of, html)}
        self.pages: dict[str, dict[str, tuple[str, tuple, str]]] = {}
        self.files: dict[str, Path] = {}  # docname -> its file, as found
        self.digests: dict[str, dict[str, str]] = {}  # docname -> this build's digests
        self.once: dict[tuple[str, str], str] = {}  # rendered for this build only
        self.dirty: set[str] = set()
        self.aside = False  # rendering in another process started (once per build)
        self.pending: ParallelTasks | None = None  # that process, until it is waited for
        for path in sorted(self.folder.glob('*.pickle')):
            try:
                base, docname, kept = pickle.loads(path.read_bytes())
            except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError):
                continue  # unreadable: rendered anew
            self.files[docname] = path
            if base == self.base:
                self.pages[docname] = kept

    @classmethod
    def of(cls, env: BuildEnvironment) -> Rendered:
        """This build's (made once per build)."""
        return store(env).derived('ruling_html', lambda: cls(env))

    def digest(self) -> str:
        """What every ruling's HTML depends on besides its nodes and its cards."""
        info = getattr(store(self.env).builder, 'build_info', None)
        parts = (VERSION, store(self.env).builder.name, getattr(info, 'config_hash', ''),
                 getattr(info, 'tags_hash', ''), self.env.config.language)
        return hashlib.sha256(repr(parts).encode()).hexdigest()

    def cards_of(self, ruling: Ruling) -> tuple:
        """What the ruling's HTML shows of its cards: each one's row, and
        where its § leads."""
        out = []
        for key, _written in ruling.cards:
            card = self.registry.get(key)
            row = None if card is None else (card.name, card.kind, card.id, card.url,
                                             card.aliases)
            out.append((key, row, card_index.marker_target(self.env, key) if card else None))
        return tuple(out)

    def nodes_digest(self, ruling: Ruling) -> str | None:
        if ruling.docname not in self.digests:
            self.digests[ruling.docname] = store(self.env).ruling_digests(ruling.docname)
        return self.digests[ruling.docname].get(ruling.anchor)

    def get(self, ruling: Ruling) -> str | None:
        found = self.pages.get(ruling.docname, {}).get(ruling.anchor)
        if found is not None and found[0] == self.nodes_digest(ruling) \
                and found[1] == self.cards_of(ruling):
            return found[2]
        return self.once.get((ruling.docname, ruling.anchor))

    def render_aside(self, rulings: Iterable[Ruling]) -> None:
        """Start rendering those of *rulings* not kept in a process of their
        own; :meth:`wait` adds what it rendered."""
        self.aside = True  # also in that process, whose own pages are resolved
        missing = {(r.docname, r.anchor): r for r in rulings if self.get(r) is None}
        if not missing:
            return

        def work() -> dict[tuple[str, str], tuple[str, bool]]:
            return {(r.docname, r.anchor): out
                    for r, out in render(self.env, list(missing.values())).items()}

        def done(_arg: None, rendered: dict[tuple[str, str], tuple[str, bool]]) -> None:
            for where, (text, lasting) in rendered.items():
                self.add(missing[where], text, lasting)

        self.pending = ParallelTasks(1)
        self.pending.add_task(work, None, done)

    def wait(self) -> None:
        """Add what :meth:`render_aside` rendered, once it has (its
        process's messages are logged here, as Sphinx does for its own)."""
        if self.pending is not None:
            pending, self.pending = self.pending, None
            pending.join()

    def add(self, ruling: Ruling, text: str, lasting: bool) -> None:
        if not lasting:
            self.once[ruling.docname, ruling.anchor] = text
            return
        self.pages.setdefault(ruling.docname, {})[ruling.anchor] = (
            self.nodes_digest(ruling), self.cards_of(ruling), text)
        self.dirty.add(ruling.docname)

    def save(self) -> None:
        """Write the files of the pages whose rulings were rendered (only
        their rulings of this build kept); remove those of removed pages."""
        with contextlib.suppress(OSError):
            self.folder.mkdir(parents=True, exist_ok=True)
            for docname in sorted(self.dirty):
                anchors = self.digests[docname]  # add() found them: the page's rulings now
                kept = {a: v for a, v in self.pages[docname].items() if a in anchors}
                path = self.files.get(docname) or self.folder / (
                    hashlib.sha256(docname.encode()).hexdigest()[:24] + '.pickle')
                path.write_bytes(pickle.dumps((self.base, docname, kept),
                                              pickle.HIGHEST_PROTOCOL))
                self.files[docname] = path
            for docname, path in list(self.files.items()):
                if docname not in self.env.all_docs:
                    path.unlink(missing_ok=True)
                    del self.files[docname]
        self.dirty.clear()


def render_aside(app: Sphinx, _doctree: nodes.document, _docname: str) -> None:
    """In a parallel HTML build, start rendering every ruling not kept in a
    process of its own once the first page is resolved (``doctree-resolved``:
    the builder is ready to write; see the module docstring)."""
    builder = app.builder
    if builder.format == 'html' and builder.parallel_ok:  # -j above 1, where it can fork
        kept = Rendered.of(app.env)
        if not kept.aside:
            kept.render_aside(ruling for rulings in ruling_lines.rulings(app.env).values()
                              for ruling in rulings)


def save(app: Sphinx, exception: BaseException | None) -> None:
    """Keep what this build rendered (``build-finished``)."""
    rendered = store(app.env).made('ruling_html')
    if rendered is not None:
        if exception is None:
            rendered.wait()
            rendered.save()
        elif rendered.pending is not None:
            rendered.pending.terminate()


def render(env: BuildEnvironment, rulings: list[Ruling]) -> dict[Ruling, tuple[str, bool]]:
    """Render *rulings* for the page :data:`ROOT` (see the module docstring):
    each one's HTML, and whether it may be kept from build to build."""
    document = new_document(f'<{ROOT}>', copy.copy(store(env).builder.docsettings))
    document.settings.env = env
    holders = []
    copies = Copies(env, ROOT)
    for ruling in rulings:
        holder = nodes.paragraph()
        holder.extend(copies.of(ruling))
        document += holder
        lasting = all(xref.get('refdomain') in LASTING for xref in
                      holder.findall(addnodes.pending_xref))
        holders.append((ruling, holder, lasting))
    env.apply_post_transforms(document, ROOT)
    with Writer(env, ROOT, document) as write:
        return {ruling: (write(*holder.children).strip(), lasting)
                for ruling, holder, lasting in holders}


def rebase(builder: Builder, fromdocname: str, docname: str) -> Callable[[str], str]:
    """A function that moves the relative links and images of HTML written
    for page *fromdocname* to page *docname* (the same HTML when both are in
    one folder)."""
    source, target = builder.get_target_uri(fromdocname), builder.get_target_uri(docname)
    folder = posixpath.dirname(source)
    if folder == posixpath.dirname(target):
        return lambda text: text

    def move(match: re.Match) -> str:
        parts = urlsplit(match[2])
        if parts.scheme or parts.netloc or not parts.path or parts.path.startswith('/'):
            return match[0]  # absolute, or an anchor of the page itself
        path = relative_uri(target, posixpath.normpath(posixpath.join(folder, parts.path)))
        path = path or posixpath.basename(target)
        return f' {match[1]}="{path}{"#" + parts.fragment if parts.fragment else ""}"'

    return lambda text: LINK.sub(move, text)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.store')
    app.connect('doctree-resolved', render_aside)
    app.connect('build-finished', save)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
