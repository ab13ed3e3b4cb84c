"""The handbook store: what each page contributes, one record per page, for the whole build.

Every feature that shows something of other pages (the timeline, the card
index, related sections, ``rulings.json``, the search) reads it here instead
of walking doctrees again.  It is the ``handbook`` domain's data
(``env.domains['handbook']``, :func:`store`), so Sphinx pickles it with the
environment, purges a page's record when the page is read again or removed
(:meth:`HandbookStore.clear_doc`) and merges the records read by parallel
processes (:meth:`HandbookStore.merge_domaindata`); a record is pickled
alone, once while it is the same (:class:`Pages`).  ``data_version``
changes whenever the record's shape does, so an old environment is read
again rather than misread.

**One walk per page.**  When a page has been read (``doctree-read``), the
store walks its doctree once, sorting the nodes the concerns need into a
:class:`PageNodes` (card references, ruling lines, sections, generated-page
placeholders, the title), then emits ``handbook-page-read`` with a
:class:`Contribution` for the concerns to fill from those nodes: the
rulings (:mod:`handbook.rulings.lines`), the sections that link cards
(:mod:`handbook.listings.card_index`).  The store keeps the result as one
frozen :class:`PageRecord`.

**A card's identity** is resolved once, when its reference is read
(:mod:`handbook.cards.links` sets the node's ``reftarget`` to the card's
registry key, and once the concerns have read the page, makes the link
itself); the record keeps ``(key, name as written)`` for each card the
page links, and every consumer reads that.

**Besides the records** the store keeps the nodes of the rulings whose
text is partly other pages' (a ``:ref:``: rendered again at each build, see
:mod:`handbook.render.ruling_html`), pickled one ruling at a time
(:meth:`HandbookStore.ruling_nodes`: far less memory than live nodes, and
nothing for the garbage collector to walk), the registry of the build
(parsed again only when its file changed), and each concern's state from
build to build in its typed home (:class:`State`, :func:`state`: the pinyin
order of names, the card pages written, …), purged and merged with the
records.  ``derived`` values are computed once per build from the records;
what the store knows of the build in progress is never pickled (:class:`Build`).

**What changed** is computed once per build, after reading (:func:`changes`):
the pages read again or removed, those whose rulings changed (their record,
the page title, or a card link of theirs that a registry edit changed),
those whose card sections changed, those whose title changed, and the
registry keys of the cards those pages link, before and after.  The generated pages rewrite themselves from
it: the timeline when rulings changed, the card index when what it shows
changed, a related-sections block when its own content changed.
"""

from __future__ import annotations

import dataclasses
import pickle
import secrets
from typing import TYPE_CHECKING, Any, TypeVar

from docutils import nodes
from sphinx import addnodes
from sphinx.domains import Domain
from sphinx.util.nodes import clean_astext

from handbook.core.records import frozen_record
from handbook.nodes import card_of

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment

#: the event the concerns fill a page's contribution in: (app, Contribution)
PAGE_READ = 'handbook-page-read'
#: the event that asks each concern which nodes the walk sorts for it (:func:`collect`)
NODE_KINDS = 'handbook-node-kinds'
#: the kinds of nodes whose content the record keeps: the card links (the cards'
#: concern asks for them), the generated-list placeholders (:mod:`handbook.render`)
CARDS, PLACEHOLDERS = 'cards', 'placeholders'


@frozen_record
class PageRecord:
    """What one page contributes (read-only)."""

    title: str
    cards: tuple[tuple[str, str], ...]  # (registry key, name as written), first use first
    rulings: tuple[Any, ...]  # handbook.rulings.lines.Ruling, page order
    sections: tuple[Any, ...]  # handbook.listings.card_index.Section, page order
    holds: frozenset[str]  # the generated-page directives on the page: 'card-index', …
    extra: dict[str, Any] = dataclasses.field(default_factory=dict, compare=False)
    """What other concerns keep of the page, by concern: ``{name: value}``
    (filled in :attr:`Contribution.extra`; read with ``record.extra.get(name)``)."""

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(key for key, _name in self.cards)

    @property
    def ruling_keys(self) -> frozenset[str]:
        """The registry keys of the cards the page's rulings name."""
        return frozenset(key for ruling in self.rulings for key, _name in ruling.cards)


@dataclasses.dataclass
class PageNodes:
    """The nodes of one doctree that the concerns read, found in one walk:
    the store's own (the first title, the sections, the cross-references
    that are no concern's) and, by kind, those the concerns asked the walk
    for (:func:`collect`): ``nodes['rulings']``, ``nodes['cards']``, …"""

    title: nodes.title | None = None
    sections: list[nodes.section] = dataclasses.field(default_factory=list)
    xrefs: list[addnodes.pending_xref] = dataclasses.field(default_factory=list)
    kinds: dict[str, list[nodes.Element]] = dataclasses.field(default_factory=dict)
    #: the blocks of text (paragraphs, lines, titles, …; not inline, not invisible)
    texts: list[nodes.TextElement] = dataclasses.field(default_factory=list)

    def __getitem__(self, kind: str) -> list[nodes.Element]:
        """The nodes of *kind* (a kind no node of the page is of: none)."""
        return self.kinds.get(kind, [])


def collect(app: Sphinx, kind: str, node_class: type[nodes.Element],
            where: Callable[[nodes.Element], bool] | None = None) -> None:
    """Have the store's walk of every page sort the nodes of *node_class*
    (that class exactly, not its subclasses) that meet *where* into
    ``PageNodes[kind]`` (a concern's ``setup``; the first kind a node meets
    takes it)."""
    app.connect(NODE_KINDS, lambda app: (kind, node_class, where))


@dataclasses.dataclass(repr=False)
class Contribution:
    """A page's record while the concerns fill it in (``handbook-page-read``)."""

    docname: str
    nodes: PageNodes
    doctree: nodes.document | None = None
    rulings: tuple[Any, ...] = ()
    ruling_nodes: dict[str, list[nodes.Node]] = dataclasses.field(default_factory=dict)
    sections: tuple[Any, ...] = ()
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __repr__(self) -> str:
        # Sphinx's emit makes repr() of each event's arguments for its debug
        # log: that of every node found, thousands on a yearly FAQ page
        return f'<Contribution of {self.docname!r}>'


class Pages(dict[str, PageRecord]):
    """The records, by page: a dict that pickles each record alone and keeps
    the bytes.  The environment is pickled after every build that read a
    page, and the records are most of it: a record unchanged since the
    environment was loaded, or merged from a reading process, is written as
    the bytes it was read from, not pickled again.  Each record is read back
    when the environment is (every build reads most of them); a record
    replaced or removed loses its bytes."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.packed: dict[str, bytes] = {}  # docname -> its record pickled, while it is the same

    def __reduce__(self) -> tuple[Any, tuple[dict[str, bytes]]]:
        for docname, record in self.items():
            if docname not in self.packed:
                self.packed[docname] = pickle.dumps(record, pickle.HIGHEST_PROTOCOL)
        return _unpack_pages, ({docname: self.packed[docname] for docname in self},)

    def take(self, docname: str, other: dict[str, PageRecord]) -> None:
        """The record of *docname* from *other* (a reading process's), with its bytes."""
        self[docname] = other[docname]
        packed = getattr(other, 'packed', {}).get(docname)
        if packed is not None:
            self.packed[docname] = packed

    def __setitem__(self, docname: str, record: PageRecord) -> None:
        self.packed.pop(docname, None)
        super().__setitem__(docname, record)

    def __delitem__(self, docname: str) -> None:
        self.packed.pop(docname, None)
        super().__delitem__(docname)

    def pop(self, docname: str, *default: Any) -> Any:
        self.packed.pop(docname, None)
        return super().pop(docname, *default)

    def clear(self) -> None:
        self.packed.clear()
        super().clear()

    def popitem(self) -> tuple[str, PageRecord]:
        docname, record = super().popitem()
        self.packed.pop(docname, None)
        return docname, record

    def setdefault(self, docname: str, record: Any = None) -> Any:
        if docname not in self:
            self[docname] = record
        return self[docname]

    def update(self, *args: Any, **kwargs: Any) -> None:
        for docname, record in dict(*args, **kwargs).items():
            self[docname] = record


def _unpack_pages(packed: dict[str, bytes]) -> Pages:
    pages = Pages({docname: pickle.loads(data) for docname, data in packed.items()})
    pages.packed = packed
    return pages


class State:
    """A concern's persisted state: its typed home in the store (a subclass
    per concern, :func:`state`), pickled with the environment.  The store
    purges it when a page is read again or removed (:meth:`clear_doc`) and
    merges what the processes of a parallel read kept (:meth:`merge`); what a
    concern keeps of the whole build (an order, the pages it wrote) has
    nothing per page, and the defaults do nothing."""

    def clear_doc(self, docname: str) -> None:
        """Forget what this state keeps of page *docname*."""

    def merge(self, docnames: Iterable[str], other: State) -> None:
        """Take what *other*, a reading process's, keeps of *docnames*."""


S = TypeVar('S', bound=State)


@dataclasses.dataclass
class Build:
    """What the store knows of the build in progress, in this process, and
    never pickles: what changed, the values computed from the records, the
    builder, the node kinds the concerns asked the walk for."""

    builder: Builder | None = None
    changes: Changes | None = None  # computed once per build
    derived: dict[str, Any] | None = None  # what HandbookStore.derived computed since a change
    per_build: dict[str, Any] = dataclasses.field(default_factory=dict)
    kinds: dict[type, list] | None = None
    #: the records, before this build, of the pages it read again or removed
    #: (HandbookStore.before): what the build compares, never pickled with the
    #: environment (a yearly FAQ page's records, a megabyte, loaded and dropped
    #: at each build)
    before: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: this build's own token, never another's: a build that saves no
    #: environment leaves the next one its number (HandbookStore.this_build)
    token: str = dataclasses.field(default_factory=lambda: secrets.token_hex(8))


@dataclasses.dataclass(frozen=True)
class Changes:
    """What this build changed, compared with the previous one (see the docstring)."""

    pages: frozenset[str]  # read again or removed
    rulings: frozenset[str]
    sections: frozenset[str]
    titles: frozenset[str]  # whose title changed (or that were added or removed)
    keys: frozenset[str]  # registry keys linked by those pages, before and after


class HandbookStore(Domain):
    """The store (see the module docstring).  It resolves no references."""

    name = 'handbook'
    label = 'Handbook'
    # 5: ruling nodes kept pickled, a ruling at a time; 6: registry_relinked;
    # 7: only the nodes of the rulings rendered at each build; 8: pinyin sort
    # keys as strings (handbook.listings.card_index); 9: records pickled alone (Pages);
    # 10: the shared node classes moved to handbook.nodes; 11: each concern's state
    # in a typed home (State), purged and merged; 12: rulings dated by their day
    # sections (Ruling.superseded_by, Reference.section), the export's lines keyed by
    # the sections they point to; 13: each card of a ruling dated by the date after
    # its name (Ruling.card_dates); 14: the struck parts of a ruling's text
    # (Ruling.struck_spans); 15: a digest of a ruling's markup (Ruling.markup);
    # 16: a digest of what makes two rulings the same (Ruling.same)
    data_version = 16
    initial_data: dict[str, Any] = {
        'pages': {},         # docname -> PageRecord (made a Pages when first used)
        'ruling_nodes': {},  # docname -> {anchor: pickled [node, …]}: as read (some rulings)
        'registry_changed': frozenset(),  # registry keys whose row changed in this build
        'registry_relinked': frozenset(),  # those of them whose link alone changed
        'registry': None,  # the card registry of the build (handbook.cards.links)
        'states': {},  # the concerns' states, by class: 'module.Class' -> State
        'builds': 0,  # the builds of this environment, counted at each build's start
        'read_in': {},  # docname -> the build (builds) that last read the page
    }

    @property
    def build(self) -> Build:
        """This build, in this process (:class:`Build`; never pickled)."""
        found = self.__dict__.get('_build')
        if found is None:
            found = self.__dict__['_build'] = Build()
        return found

    @property
    def builder(self) -> Builder | None:
        """The builder of this build (set at ``builder-inited``): for the
        post-transforms that make links at once (:mod:`handbook.render.anchors`)."""
        return self.build.builder

    @property
    def states(self) -> dict[str, State]:
        return self.data.setdefault('states', {})

    @property
    def pages(self) -> Pages:
        pages = self.data['pages']
        if not isinstance(pages, Pages):  # a new environment's
            pages = self.data['pages'] = Pages(pages)
        return pages

    def record(self, docname: str) -> PageRecord | None:
        return self.pages.get(docname)

    @property
    def before(self) -> dict[str, PageRecord | None]:
        """The records, before this build, of the pages it read again or removed."""
        return self.build.before

    def this_build(self) -> tuple[str, int, str]:
        """This build, as :meth:`read_in` names the build that read a page:
        the environment's token, the build's number and its own token (a
        build that read no page saves no environment, and the next one gets
        its number again: a review)."""
        return self.data.get('lineage'), self.data.get('builds', 0), self.build.token

    def read_in(self, docname: str) -> tuple[str, int, str] | None:
        """The build that last read page *docname*: the environment's own
        token and the number of the build, which grows with each build.
        What was made of the page since then is still the page's
        (:mod:`handbook.render.ruling_html`)."""
        return self.data.setdefault('read_in', {}).get(docname)

    def ruling_nodes(self, docname: str, anchor: str) -> list[nodes.Node] | None:
        """The nodes of the ruling *anchor* of *docname*, as read, a new copy
        at each call (the caller may change it), where the store keeps them
        (:meth:`nodes_kept`).  Kept pickled, a ruling at a time: bytes take a
        tenth of the memory of the nodes, and the garbage collector does not
        walk them at every collection."""
        packed = self.data['ruling_nodes'].get(docname, {}).get(anchor)
        return pickle.loads(packed) if packed is not None else None

    def nodes_kept(self, docname: str) -> frozenset[str]:
        """The anchors of the rulings of *docname* whose nodes the store keeps."""
        return frozenset(self.data['ruling_nodes'].get(docname, ()))

    def clear_doc(self, docname: str) -> None:
        old = self.pages.pop(docname, None)
        self.data['ruling_nodes'].pop(docname, None)
        self.data.setdefault('read_in', {}).pop(docname, None)
        self.before.setdefault(docname, old)
        for kept in self.states.values():
            kept.clear_doc(docname)
        self.build.changes = None

    def merge_domaindata(self, docnames: Iterable[str], otherdata: dict[str, Any]) -> None:
        docnames = list(docnames)
        for docname in docnames:
            if docname in otherdata['pages']:
                self.pages.take(docname, otherdata['pages'])
                self.data['ruling_nodes'][docname] = otherdata['ruling_nodes'][docname]
                self.data.setdefault('read_in', {})[docname] = otherdata['read_in'][docname]
        for key, theirs in otherdata.get('states', {}).items():
            ours = self.states.get(key)
            if ours is None:
                self.states[key] = theirs
            else:
                ours.merge(docnames, theirs)
        self.build.changes = None

    def resolve_xref(self, *args: Any) -> None:
        return None

    def resolve_any_xref(self, *args: Any) -> list:
        return []

    # -- a build ---------------------------------------------------------------------

    def start_build(self, builder: Builder | None) -> None:
        self.__dict__['_build'] = Build(builder=builder)
        self.data['builds'] = self.data.get('builds', 0) + 1
        self.data.setdefault('lineage', secrets.token_hex(8))  # this environment's, from its first build
        self.data.pop('before', None)  # (kept by an environment of an earlier version)
        self.data['registry_changed'] = frozenset()
        self.data['registry_relinked'] = frozenset()

    # -- what a build reads besides the pages: the card registry ---------------------

    @property
    def registry(self) -> Any:
        """The card registry of this build (:mod:`handbook.cards.registry`)."""
        return self.data.get('registry')

    @property
    def registry_changed(self) -> frozenset[str]:
        """The lookup keys whose registry row changed since the last build."""
        return self.data['registry_changed']

    @property
    def registry_relinked(self) -> frozenset[str]:
        """The lookup keys of :attr:`registry_changed` whose row changed in
        where its link leads alone (its id or URL), not in what pages show."""
        return self.data['registry_relinked']

    def set_registry(self, registry: Any) -> None:
        """Keep this build's registry; note which keys changed since the last
        (``Registry.fingerprint``)."""
        old = self.data.get('registry')
        if old is not None and old is not registry:
            before, after = old.fingerprint(), registry.fingerprint()
            changed = frozenset(
                k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
            self.data['registry_changed'] = changed
            self.data['registry_relinked'] = frozenset(
                k for k in changed if k in before and k in after and before[k][0] == after[k][0])
        self.data['registry'] = registry
        self.build.changes = None

    def add(self, contribution: Contribution, record: PageRecord) -> None:
        self.pages[contribution.docname] = record
        self.data['ruling_nodes'][contribution.docname] = {
            anchor: pickle.dumps(children, pickle.HIGHEST_PROTOCOL)
            for anchor, children in contribution.ruling_nodes.items()}
        self.data.setdefault('read_in', {})[contribution.docname] = self.this_build()
        self.build.changes = None

    def derived(self, name: str, compute: Callable[[], Any]) -> Any:
        """A value computed from the records (a generated page's entries, …),
        computed once and kept until a record changes."""
        build = self.build
        if build.changes is None or build.derived is None:
            build.derived = {}
            self.changes()
        if name not in build.derived:
            build.derived[name] = compute()
        return build.derived[name]

    def per_build(self, name: str, compute: Callable[[], Any]) -> Any:
        """A value made from this build's registry and settings alone, not
        from the records (a card's link): computed once per build and process
        (:meth:`derived` computes its values again once a page is read)."""
        per_build = self.build.per_build
        if name not in per_build:
            per_build[name] = compute()
        return per_build[name]

    def unchanged(self) -> bool:
        """Nothing that pages contribute changed in this build: no page read
        again or removed, no registry row changed."""
        return not self.changes().pages and not self.registry_changed

    def made(self, name: str) -> Any:
        """The value :meth:`derived` computed under *name* in this build, if it did."""
        return (self.build.derived or {}).get(name)

    def changes(self) -> Changes:
        if self.build.changes is None:
            self.build.changes = self._compare()
        return self.build.changes

    def _compare(self) -> Changes:
        registry_changed = self.data['registry_changed']
        rulings, sections, titles, keys = set(), set(), set(), set()
        for docname, old in self.before.items():
            new = self.pages.get(docname)
            for record in (old, new):
                if record is not None:
                    keys |= record.keys
            if (old and old.title) != (new and new.title):
                titles.add(docname)
            if _rulings_shown(old) != _rulings_shown(new):
                rulings.add(docname)
            if _sections_shown(old) != _sections_shown(new):
                sections.add(docname)
        if registry_changed:  # pages read again or not: their rulings' links changed
            rulings.update(docname for docname, record in self.pages.items()
                           if record.ruling_keys & registry_changed)
        return Changes(frozenset(self.before), frozenset(rulings),
                       frozenset(sections), frozenset(titles), frozenset(keys))


def _rulings_shown(record: PageRecord | None) -> tuple | None:
    """What other pages show of a page's rulings: the rulings and the page title."""
    return (record.title, record.rulings) if record is not None and record.rulings else None


def _sections_shown(record: PageRecord | None) -> tuple:
    return record.sections if record is not None else ()


def store(env: BuildEnvironment) -> HandbookStore:
    """The build's store."""
    return env.domains['handbook']


def state(env: BuildEnvironment, kind: type[S]) -> S:
    """The concern's state of class *kind* (a :class:`State`), made when
    first asked for: its typed home in the store."""
    homes = store(env).states
    key = f'{kind.__module__}.{kind.__qualname__}'
    found = homes.get(key)
    if not isinstance(found, kind):
        found = homes[key] = kind()
    return found


def writes_pages(env: BuildEnvironment) -> bool:
    """Whether this build writes pages: not the ``dummy`` builder of ``make
    check``, which needs no generated list, nor what only they show."""
    builder = store(env).builder
    return builder is None or builder.name != 'dummy'


def changes(env: BuildEnvironment) -> Changes:
    """What this build changed (computed once, after the pages are read)."""
    return store(env).changes()


def carry(page: Contribution, name: str) -> None:
    """Move what a read-time transform left on the page's document, as the
    attribute *name*, into the page's record (``extra[name]``): a transform
    runs before the record exists (``handbook-page-read``)."""
    value = page.doctree.attributes.pop(name, None) if page.doctree is not None else None
    if value:
        page.extra[name] = value


#: text elements that are no block of the page's text
_NOT_TEXT = (nodes.Inline, nodes.Invisible, nodes.system_message, nodes.raw)


def walk(doctree: nodes.document,
         kinds: dict[type, list[tuple[str, Callable[[nodes.Element], bool] | None]]]
         ) -> PageNodes:
    """The nodes the concerns read, in one walk of *doctree*; *kinds*: what
    the concerns asked for, by node class (:func:`node_kinds`)."""
    found = PageNodes()
    by_kind = found.kinds
    for node in doctree.findall(nodes.Element):
        if isinstance(node, nodes.TextElement) and not isinstance(node, _NOT_TEXT):
            found.texts.append(node)  # a title too: the search reads every block
        wanted = kinds.get(type(node))
        if wanted is not None:
            kind = next((kind for kind, where in wanted if where is None or where(node)), None)
            if kind is not None:
                by_kind.setdefault(kind, []).append(node)
                continue
        if isinstance(node, addnodes.pending_xref):
            found.xrefs.append(node)
        elif isinstance(node, nodes.section):
            found.sections.append(node)
        elif isinstance(node, nodes.title):
            if found.title is None:
                found.title = node
    return found


def node_kinds(app: Sphinx) -> dict[type, list[tuple[str, Callable[[nodes.Element], bool] | None]]]:
    """What the concerns asked the walk for (:func:`collect`), by node class,
    asked once per build and process."""
    build = store(app.env).build
    if build.kinds is None:
        kinds: dict[type, list] = {}
        for kind, node_class, where in app.events.emit(NODE_KINDS):
            kinds.setdefault(node_class, []).append((kind, where))
        build.kinds = kinds
    return build.kinds


def read_page(app: Sphinx, doctree: nodes.document) -> None:
    """Walk the page once; let the concerns fill its contribution; keep the record."""
    env = app.env
    found = walk(doctree, node_kinds(app))
    contribution = Contribution(env.docname, found, doctree)
    app.events.emit(PAGE_READ, contribution)
    cards: dict[str, str] = {}
    for link in found[CARDS]:
        key, name = card_of(link)  # type: ignore[misc]  (every one is a card link)
        cards.setdefault(key, name)
    record = PageRecord(
        title=clean_astext(found.title) if found.title is not None else '',
        cards=tuple(cards.items()),
        rulings=tuple(contribution.rulings),
        sections=tuple(contribution.sections),
        holds=frozenset(n['handbook_generated'] for n in found[PLACEHOLDERS]),
        extra=dict(contribution.extra))
    store(env).add(contribution, record)


def start_build(app: Sphinx) -> None:
    store(app.env).start_build(app.builder)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_domain(HandbookStore)
    app.add_event(PAGE_READ)
    app.add_event(NODE_KINDS)
    app.connect('doctree-read', read_page, priority=400)
    app.connect('builder-inited', start_build, priority=100)  # before the registry is read
    app.setup_extension('handbook.core.removed_pages')
    app.setup_extension('handbook.core.warned_pages')
    return {'version': '1', 'env_version': 2,
            'parallel_read_safe': True, 'parallel_write_safe': True}
