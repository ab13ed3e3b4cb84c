"""Rulings as HTML, rendered once for the pages that show the rulings of other pages.

The timeline (:mod:`handbook.listings.timeline`) and the card pages
(:mod:`handbook.listings.card_pages`) show rulings of every page, a ruling
often on several of them.  Copying each ruling's nodes into every doctree
that shows it would have Sphinx resolve, walk and translate the same nodes
again for each page: on a handbook of 9,000 rulings that was most of the
build.  Instead each ruling is rendered here once:

* its nodes as read (:class:`handbook.rulings.lines.RulingNodes`: kept by
  the store for a ruling with a ``:ref:``, else taken from its page's
  doctree) are copied into one document (ids dropped: they belong to the
  ruling's page; a broken reference is reported on its own page only);
* the document's references are resolved as links of a page at the site's
  root (the post-transforms: card links, dates, ``:ref:``; each card link
  is followed by its §, :mod:`handbook.listings.card_index`);
* the builder's translator writes each ruling's HTML
  (:class:`handbook.render.html_parts.Writer`); a same-page link of the
  ruling's page is made a link to that page (:func:`own_anchors`).

A page elsewhere than the root gets the HTML with its relative links rebased
(:func:`rebase`); the timeline, at the root, gets it as it is.  What was
rendered is kept from build to build (:class:`Rendered`, in the doctree
folder), so that an edit renders again only the rulings it changed: never
stale, since a page read again, another configuration, or a card whose row
or § changed renders them anew.  HTML builders only (EPUB included); other
builders copy the nodes (:class:`Copies`).

**Most rulings are not rendered at all:** writing a page writes its
rulings, and the HTML translator leaves each one's HTML on the page's
document (:func:`handbook.rulings.lines.written_html`).  That HTML is kept
as if rendered here (:meth:`Rendered.capture`: its links made links of a
page at the root, a link to an anchor of its page made a link to that page,
its ids dropped); card pages are written at the end of the build, and the
speed package writes the timeline after the other pages
(:mod:`handbook.speed.writing`).  Rendering a whole handbook's rulings was
most of what the timeline cost; taking what the pages' writing gives costs
little.  A parallel
build's writing processes keep what they took in the doctree folder, and
the main process reads what is there when it first needs a page's.  What
is rendered here: the rulings whose HTML no page's writing left (a page
written by an earlier build whose kept HTML is gone, other builders), and
those with a cross-reference other than a card link (a ``:ref:``, whose
text is another page's title: never kept, rendered at each build).
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

from handbook.listings import card_index
from handbook.render.anchors import anchor_link
from handbook.render.html_parts import Writer
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
#: changes whenever what :func:`render` writes does, or how it is kept (5: as
#: the pages write it; 6: the cards shown kept per page; 7: kept as UTF-8;
#: 8: kept while the store says the page was not read again)
VERSION = 8
#: a relative link or image of the rendered HTML
LINK = re.compile(r' (href|src)="([^"]*)"')
#: a link to an anchor of the page the HTML was written for
SAME_PAGE = re.compile(r' href="(#[^"]*)"')
#: an id of an element (text and attribute values have their quotes escaped)
ID = re.compile(r' id="[^"]*"')


class Copies:
    """The rulings' nodes from their pages, made to work on page
    *fromdocname* (:meth:`of`; :class:`handbook.rulings.lines.RulingNodes`).
    A same-page link of the ruling's page is made a link to that page,
    unless *own_anchors* is false: :func:`render` makes its HTML a link to
    the page, as it does for the HTML a page's writing gave."""

    def __init__(self, env: BuildEnvironment, fromdocname: str, own_anchors: bool = True) -> None:
        self.env = env
        self.fromdocname = fromdocname
        self.own_anchors = own_anchors
        self.nodes = ruling_lines.RulingNodes(env)

    def of(self, ruling: Ruling) -> list[nodes.Node]:
        stored = self.nodes.of(ruling.docname, ruling.anchor)
        if stored is None:  # cannot happen while the record and the nodes agree
            return [nodes.Text(ruling.text)]
        holder = nodes.inline('', '', *stored)
        for node in list(holder.findall(nodes.Element)):
            node['ids'] = []  # the ids belong to the ruling's page
            if isinstance(node, addnodes.pending_xref):
                node['refdoc'] = self.fromdocname
                node['refwarn'] = False  # its own page reports a broken reference
            elif 'refid' in node and self.own_anchors:  # a same-page link of the ruling's page
                node.replace_self(anchor_link(self.fromdocname, ruling.docname, node['refid'],
                                              nodes.inline('', '', *node.children)))
        children = list(holder.children)
        if children and isinstance(children[0], nodes.Text):  # the space after a date
            children[0] = nodes.Text(str(children[0]).lstrip(' \t\n\x00'))
        return children


def ruling_html(env: BuildEnvironment, rulings: Iterable[Ruling],
                docname: str) -> dict[tuple[str, str], str]:
    """The HTML of each of *rulings* for page *docname*: ``{(docname, anchor): html}``."""
    move = rebase(store(env).builder, ROOT, docname)
    return {(r.docname, r.anchor): move(text) for r, text in at_root(env, rulings).items()}


def at_root(env: BuildEnvironment, rulings: Iterable[Ruling]) -> dict[Ruling, str]:
    """The HTML of each of *rulings* for a page at the site's root
    (:func:`rebase` moves it to another page): what a list that shows them
    may digest to know whether it changed, before it writes any of it."""
    kept = Rendered.of(env)
    found = {ruling: kept.get(ruling) for ruling in rulings}
    missing = [ruling for ruling, text in found.items() if text is None]
    if missing:
        for ruling, (text, lasting) in render(env, missing).items():
            kept.add(ruling, text, lasting)
            found[ruling] = text
    return found


class Rendered:
    """The rulings' HTML, kept from build to build in the doctree folder
    (:data:`CACHE`, a file per page).  A ruling's HTML is kept while its
    page was not read again since it was written or rendered (the store
    says when a page was last read: :meth:`stamp`; a page read again is
    written again, and gives its rulings' HTML anew), the configuration is
    the same (:meth:`digest`), and
    so is every card it links: the card's registry row (its link) and where
    its § leads (:meth:`card`; kept per page, for the cards its kept rulings
    show).  A ruling that holds another
    cross-reference (a ``:ref:``, whose text is another page's title: the
    store keeps its nodes) is rendered again at every build."""

    def __init__(self, env: BuildEnvironment) -> None:
        self.env = env
        self.folder = Path(env.doctreedir) / CACHE
        self.base = self.digest()
        registry = store(env).registry  # none without handbook.cards
        self.registry = registry if registry is not None else {}
        # docname -> {anchor: html, UTF-8}: most of it is markup, and a text
        # with a Chinese character takes two bytes a character, not four
        self.pages: dict[str, dict[str, bytes]] = {}
        # docname -> {key: card(key)} as the page's kept HTML shows them
        self.shown: dict[str, dict[str, tuple]] = {}
        # docname -> {key: whether its kept HTML shows the card otherwise now},
        # for the keys asked (a yearly FAQ page shows 2,000 cards; an edit's
        # card pages ask for a few of them)
        self.stale: dict[str, dict[str, bool]] = {}
        self.fresh: set[tuple[str, str]] = set()  # (docname, anchor) made in this build
        self.files: dict[str, Path] = {}  # docname -> its file, as found
        self.aside: set[str] = set()  # pages whose kept HTML is in their file only
        self.once: dict[tuple[str, str], str] = {}  # rendered for this build only
        self.cards: dict[str, tuple] = {}  # key -> card(key)
        self.dirty: set[str] = set()
        self.aside.update(env.all_docs)  # each page's file read when first needed (_kept)

    def load(self, path: Path) -> None:
        """Take the kept HTML of one page from its file."""
        try:
            base, docname, stamp, shown, kept = pickle.loads(path.read_bytes())
        except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError):
            return  # unreadable: rendered anew
        self.files[docname] = path
        if base == self.base and stamp is not None and stamp == self.stamp(docname):
            self.pages[docname], self.shown[docname] = kept, shown
            self.stale.pop(docname, None)

    def stamp(self, docname: str) -> tuple[str, int] | None:
        """The build that last read page *docname* (the store's
        :meth:`~handbook.store.HandbookStore.read_in`): read again since its
        rulings' HTML was kept, other rulings."""
        return store(self.env).read_in(docname)

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

    def card(self, key: str) -> tuple:
        """What a ruling's HTML shows of the card *key* (once per card and build)."""
        if key not in self.cards:
            card = self.registry.get(key)
            row = None if card is None else (card.name, card.kind, card.id, card.url,
                                             card.aliases)
            self.cards[key] = (key, row, card_index.marker_target(self.env, key) if card else None)
        return self.cards[key]

    def get(self, ruling: Ruling) -> str | None:
        found = self._kept(ruling)
        return found.decode() if found is not None else self.once.get((ruling.docname,
                                                                      ruling.anchor))

    def holds(self, ruling: Ruling) -> bool:
        """Whether :meth:`get` has the ruling's HTML."""
        return self._kept(ruling) is not None or (ruling.docname, ruling.anchor) in self.once

    def _kept(self, ruling: Ruling) -> bytes | None:
        if ruling.docname in self.aside:
            self.aside.discard(ruling.docname)
            self.load(self.path(ruling.docname))
        found = self.pages.get(ruling.docname, {}).get(ruling.anchor)
        return found if found is not None and self.valid(ruling) else None

    def valid(self, ruling: Ruling) -> bool:
        """Whether the kept HTML of *ruling* shows its cards as they are now."""
        docname = ruling.docname
        if (docname, ruling.anchor) in self.fresh:
            return True
        return not any(self._stale(docname, key) for key, _written in ruling.cards)

    def _stale(self, docname: str, key: str) -> bool:
        """Whether the kept HTML of page *docname* shows the card *key*
        otherwise than it is now (once per page, card and build)."""
        stale = self.stale.setdefault(docname, {})
        if key not in stale:
            was = self.shown.get(docname, {}).get(key)
            stale[key] = was is not None and self.card(key) != was
        return stale[key]

    def capture(self, docname: str, written: dict[str, str]) -> None:
        """Keep the HTML of the rulings of page *docname* as its writing gave
        them (:func:`handbook.rulings.lines.written_html`), made HTML of the
        page :data:`ROOT` (:func:`from_page`); not that of the rulings
        rendered at each build.  It is kept in the page's file at once, and
        read again when it is first needed: by the main process, after a
        process that writes pages for it; in a serial build, once the pages
        are written (a yearly FAQ page's rulings would be held to the end of
        the writing otherwise)."""
        record = store(self.env).record(docname)
        if record is None or not record.rulings:
            return
        transient = store(self.env).nodes_kept(docname)
        move = from_page(store(self.env).builder, docname)
        for ruling in record.rulings:
            text = written.get(ruling.anchor)
            # a ruling kept from an earlier build is written as it was
            if text is not None and ruling.anchor not in transient and not self.holds(ruling):
                self.add(ruling, move(text).strip(), lasting=True)
        if docname in self.dirty and self.save_page(docname):  # set aside until needed
            self.pages.pop(docname, None)
            self.shown.pop(docname, None)
            self.aside.add(docname)

    def reload(self, docnames: Iterable[str]) -> None:
        """Take what other processes kept of pages *docnames*, once they
        have written them (``handbook-written``): read when first needed."""
        for docname in docnames:
            if docname not in self.dirty and self.path(docname).is_file():
                self.aside.add(docname)

    def add(self, ruling: Ruling, text: str, lasting: bool) -> None:
        if not lasting:
            self.once[ruling.docname, ruling.anchor] = text
            return
        self.pages.setdefault(ruling.docname, {})[ruling.anchor] = text.encode()
        self.fresh.add((ruling.docname, ruling.anchor))
        self.dirty.add(ruling.docname)

    def path(self, docname: str) -> Path:
        """The file that keeps the HTML of page *docname*."""
        return self.files.get(docname) or self.folder / (
            hashlib.sha256(docname.encode()).hexdigest()[:24] + '.pickle')

    def save_page(self, docname: str) -> bool:
        """Write the file of page *docname*: the HTML of its rulings of this
        build that is still valid, and how it shows their cards; whether it
        could."""
        record = store(self.env).record(docname)
        rulings = [r for r in (record.rulings if record is not None else ())
                   if r.anchor in self.pages[docname] and self.valid(r)]
        kept = {r.anchor: self.pages[docname][r.anchor] for r in rulings}
        shown = {key: self.card(key) for r in rulings for key, _written in r.cards}
        path = self.path(docname)
        written = False
        with contextlib.suppress(OSError):
            self.folder.mkdir(parents=True, exist_ok=True)
            path.write_bytes(pickle.dumps((self.base, docname, self.stamp(docname), shown, kept),
                                          pickle.HIGHEST_PROTOCOL))
            self.files[docname] = path
            written = True
        self.dirty.discard(docname)
        return written

    def save(self) -> None:
        """Write the files of the pages whose rulings were rendered or
        taken; remove those of removed pages."""
        for docname in sorted(self.dirty):
            self.save_page(docname)
        with contextlib.suppress(OSError):
            pages = {self.path(docname).name for docname in self.env.all_docs}
            for path in self.folder.glob('*.pickle'):
                if path.name not in pages:
                    path.unlink(missing_ok=True)


def start_writing(app: Sphinx, _builder: Builder) -> None:
    """What was kept, in the main process before any page is written
    (``write-started``): each page's file is read when first needed, by the
    process that needs it (an edit's main process reads only those of the
    rulings its card pages show; the timeline, all of them)."""
    if app.builder.format == 'html':
        Rendered.of(app.env)


def capture(app: Sphinx, pagename: str, _templatename: str, _context: dict[str, Any],
            doctree: nodes.document | None) -> None:
    """Keep the HTML of the page's rulings as its writing gave it
    (``html-page-context``)."""
    if doctree is not None:
        written = ruling_lines.written_html(doctree)
        if written:
            Rendered.of(app.env).capture(pagename, written)


def reload(app: Sphinx, docnames: list[str]) -> None:
    """Take what other processes kept of pages *docnames*, once they wrote
    them (the speed package's writing processes, :mod:`handbook.speed.writing`)."""
    rendered = store(app.env).made('ruling_html')
    if rendered is not None and app.builder.parallel_ok:
        rendered.reload(docnames)


def save(app: Sphinx, exception: BaseException | None) -> None:
    """Keep what this build rendered (``build-finished``)."""
    rendered = store(app.env).made('ruling_html')
    if rendered is not None and exception is None:
        rendered.save()


def render(env: BuildEnvironment, rulings: list[Ruling]) -> dict[Ruling, tuple[str, bool]]:
    """Render *rulings* for the page :data:`ROOT` (see the module docstring):
    each one's HTML, and whether it may be kept from build to build."""
    document = new_document(f'<{ROOT}>', copy.copy(store(env).builder.docsettings))
    document.settings.env = env
    holders = []
    copies = Copies(env, ROOT, own_anchors=False)
    for ruling in rulings:
        holder = nodes.paragraph()
        holder.extend(copies.of(ruling))
        document += holder
        lasting = all(xref.get('refdomain') in ruling_lines.LASTING_XREFS for xref in
                      holder.findall(addnodes.pending_xref))
        holders.append((ruling, holder, lasting))
    env.apply_post_transforms(document, ROOT)
    builder = store(env).builder
    pages: dict[str, Callable[[str], str]] = {}
    with Writer(env, ROOT, document) as write:
        out = {}
        for ruling, holder, lasting in holders:
            if ruling.docname not in pages:
                pages[ruling.docname] = own_anchors(builder, ROOT, ruling.docname)
            out[ruling] = (pages[ruling.docname](write(*holder.children).strip()), lasting)
        return out


def from_page(builder: Builder, docname: str) -> Callable[[str], str]:
    """A function that makes the HTML of a ruling as page *docname* shows
    it the HTML :func:`render` would write: its relative links and images
    moved to :data:`ROOT`, a link to an anchor of the page made a link to
    that anchor of the page, and no ids (they are the page's)."""
    move, own = rebase(builder, docname, ROOT), own_anchors(builder, ROOT, docname)
    return lambda text: own(move(ID.sub('', text)))


def own_anchors(builder: Builder, fromdocname: str, docname: str) -> Callable[[str], str]:
    """A function that makes each link to an anchor of the page of some
    HTML (``href="#…"``), HTML of page *fromdocname* now, a link to that
    anchor of page *docname*, where the HTML was written."""
    uri = relative_uri(builder.get_target_uri(fromdocname), builder.get_target_uri(docname))
    return lambda text: SAME_PAGE.sub(lambda m: f' href="{uri}{m[1]}"', text)


def rebase(builder: Builder, fromdocname: str, docname: str) -> Callable[[str], str]:
    """A function that moves the relative links and images of HTML written
    for page *fromdocname* to page *docname* (the same HTML when both are in
    one folder)."""
    source, target = builder.get_target_uri(fromdocname), builder.get_target_uri(docname)
    folder = posixpath.dirname(source)
    if folder == posixpath.dirname(target):
        return lambda text: text

    moved: dict[str, str] = {}  # href -> where it leads from *docname* (a card's § recurs)

    def move(match: re.Match) -> str:
        href = match[2]
        if href not in moved:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or not parts.path or parts.path.startswith('/'):
                moved[href] = href  # absolute, or an anchor of the page itself
            else:
                path = relative_uri(target, posixpath.normpath(posixpath.join(folder, parts.path)))
                path = path or posixpath.basename(target)
                moved[href] = f'{path}{"#" + parts.fragment if parts.fragment else ""}'
        return f' {match[1]}="{moved[href]}"'

    return lambda text: LINK.sub(move, text)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.store')
    app.connect('write-started', start_writing)
    app.connect('html-page-context', capture)
    app.connect('build-finished', save)
    return {'version': '2', 'env_version': 2,
            'parallel_read_safe': True, 'parallel_write_safe': True}
