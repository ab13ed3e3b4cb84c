"""Card links: every 「`卡名`_」 reference resolved against the card registry.

Pages name a card as a plain reStructuredText reference, 「`旋风`_」, with no
link target in the page.  This extension turns each such reference into a
link to the card's page in the card database:

* At read time, the :class:`CardReferences` transform runs after docutils
  has resolved the page's own targets and before it reports unknown ones.
  A reference whose name is a target of the same page (a section title, a
  label such as ``.. _多步效果的适用:``) stays an internal link; every other
  named reference becomes a card link, keeping its exact source line.
  Nothing is added to the page's source text.  The card's identity is
  resolved here, once: the name is looked up in the registry (folded:
  width, case, spacing and middle-dot variants match, see
  :mod:`handbook.core.names`).  A registry name becomes the link itself, a
  :class:`card_reference` (:func:`card_link`, made once per card and
  build): ``<a class="card-link card-card">`` (or ``card-series``) to the
  card database, carrying the card's registry key, ``card_key``, which the
  store, the rulings and the card index read (:func:`card_of`).  An unknown
  name, and a name in a section title (Sphinx copies titles into tables of
  contents, which take xrefs only), becomes a ``pending_xref`` of the
  ``card`` domain whose ``reftarget`` is the key.
* Once the page is read (``handbook-page-read``, after every concern has
  read the links), each xref whose key the registry knows (a role's, such as
  ``:strike:``'s) becomes its link too.  Nothing is left to resolve at write
  time but the unknown names, the names in titles, and the copies of
  rulings other pages show (:class:`CardLinks`).  An unknown name is an error
  ``handbook.card`` at its file and line (readers lose the link)::

      unknown card name 「王宫铁壁」: did you mean 「王宫的铁壁」? If it is a new card, add a row to links.rst.
      unknown card name 「黑洞」: check the spelling; if it is a new card, add a row to links.rst.

  The did-you-mean is offered only when it can be accepted blindly
  (:meth:`Registry.did_you_mean <handbook.cards.registry.Registry.did_you_mean>`).
  A name whose registry row was rejected is not reported at its uses: the
  row's own error (``handbook.registry``, at ``registry:line``) says it once.

The registry's problems are reported when it is read, at ``registry:line``:
bad rows are errors ``handbook.registry``, a name with two different links
a warning ``handbook.registry``, a repeated row a note ``handbook.registry``
and a second spelling of a card a note ``handbook.registry-alias``.  A
build that keeps the registry as the last one read it repeats its errors
and warnings, and its notes in one line (``handbook.registry-notes``).  A
registry that cannot be read (missing, binary) is a configuration error that
names the file.

Configuration (``conf.py``)::

    handbook_cards = 'cards.tsv'          # the registry, relative to conf.py
    handbook_card_url = 'https://ygocdb.com/card/name/{name}'
    handbook_card_id_url = 'https://ygocdb.com/card/{id}'
    handbook_series_url = 'https://ygocdb.com/?search={name}'

A registry inside the source folder is excluded from the pages.  Editing the
registry re-reads, on the next build, exactly the pages that use a name
whose row changed (or that used a name which was unknown and now is known).
A row whose id or URL alone changed re-reads no page: the HTML and LaTeX
translators draw each link with this build's URL (:func:`relink`), so the
pages that link the card are only written again (on a 3,000-ruling FAQ
page, reading is most of the cost);
the handbook store (:mod:`handbook.store`) keeps, per page, the cards the page
links: their registry keys, resolved once when the page is read, and their
names as written.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx import addnodes
from sphinx.domains import Domain
from sphinx.locale import get_translation
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform

from handbook.cards import registry as card_registry
from handbook.cards.registry import (
    DEFAULT_URLS,
    Problem,
    Registry,
    RegistryError,
    UrlTemplates,
    fold,
)
from handbook.core import reports
from handbook.core.files import write_if_changed
from handbook.core.source_lines import BlockLines, set_location
from handbook.nodes import card_reference, in_title
from handbook.store import CARDS, PAGE_READ, State, collect, state, store

if TYPE_CHECKING:
    from collections.abc import Iterable

    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment
    from sphinx.writers.html5 import HTML5Translator
    from sphinx.writers.latex import LaTeXTranslator

    from handbook.store import Contribution

_ = get_translation('handbook')  # texts shown in pages (translations.py)


class CardLinkState(State):
    """What the card links keep from build to build (:func:`handbook.store.state`)."""

    def __init__(self) -> None:
        #: the registry file the store holds: (path, mtime, size, URL templates)
        self.registry_stamp: tuple | None = None
        #: the pages whose doctree links a card at a URL the registry changed since
        self.stale: set[str] = set()
        #: those of them this build writes again without reading them
        self.relinked: list[str] = []
        #: the registry could not be read (its error says so, once)
        self.unreadable = False

    def clear_doc(self, docname: str) -> None:
        self.stale.discard(docname)  # read again: its links are this build's


class CardReferences(SphinxTransform):
    """Turn named references without a target in the page into card links:
    a registry name's link itself (:func:`card_link`), made here once; an
    unknown name, or a name in a section title, a card xref
    (:func:`card_xref`).  The link is made at once, not from an xref that
    ``handbook-page-read`` replaced: two nodes fewer a link, and no cycle
    between them for the garbage collector."""

    # after docutils' InternalTargets (660), before DanglingReferences (850)
    default_priority = 845

    def apply(self, **kwargs: Any) -> None:
        env = self.env
        cards = registry(env)
        nameids = self.document.nameids
        lines = BlockLines()  # each block's references located as the block was read
        for ref in list(self.document.findall(nodes.reference)):
            if ref.resolved or 'refname' not in ref or ref['refname'] in nameids:
                continue  # resolved, anonymous/external, or a target of this page
            name = ref.get('name') or ref.astext()
            card = cards.lookup(name)
            link: nodes.Element | None = None
            if card is not None and not in_title(ref):
                link = card_link(env, card.key, ref.children, name)
            if link is None:
                link = card_xref(env, name, ref.rawsource, ref.children)
            link.source, link.line = lines(ref)
            ref.replace_self(link)


#: the stamp of the registry whose notes a build printed last, in the doctree folder
SAID = 'handbook-registry-said'
#: the store's derived value: the HTML of each card link's <a>, by its URL, classes and
#: the attributes the card index adds (:mod:`handbook.listings.card_index`)
LINK_TAGS = 'card_link_tags'


def visit_card_reference_html(self: HTML5Translator, node: card_reference,
                              attributes: str = '') -> None:
    """The card link's ``<a>``: the name's nodes go straight into it (no
    wrapper: one node a link fewer on the page, which holds thousands), no
    title; *attributes* (`` data-card="…"``) are added to the tag."""
    env = self.builder.env
    relink(env, node)
    # the <a> of visit_reference, made once per link and build: a yearly FAQ
    # page has 6,000 card links, docutils' starttag a fifth of its writing
    if node['ids'] or node.get('internal') or not isinstance(node.parent, nodes.TextElement) \
            or any(name in node for name in ('target', 'rel', 'secnumber')):
        self.visit_reference(node)  # not a link card_link makes: Sphinx's own way
        if attributes:
            self.body[-1] = self.body[-1][:-1] + attributes + '>'
        return
    tags = store(env).derived(LINK_TAGS, dict)
    made = (node['refuri'], tuple(node['classes']), attributes)
    if made not in tags:
        self.visit_reference(node)
        tags[made] = self.body[-1][:-1] + attributes + '>'
        self.body[-1] = tags[made]
    else:
        self.body.append(tags[made])


def depart_card_reference_html(self: HTML5Translator, node: card_reference) -> None:
    self.depart_reference(node)


def visit_card_reference_latex(self: LaTeXTranslator, node: card_reference) -> None:
    relink(self.builder.env, node)
    self.visit_reference(node)
    # as LaTeXTranslator.visit_inline writes an inline of class card-name
    self.body.append('' if self.in_title else r'\DUrole{card-name}{')


def depart_card_reference_latex(self: LaTeXTranslator, node: card_reference) -> None:
    self.body.append('' if self.in_title else '}')
    self.depart_reference(node)


#: the builder formats whose translators draw card links (their URL from this build's registry)
DRAWN = frozenset({'html', 'latex'})


def relink(env: BuildEnvironment, node: card_reference) -> None:
    """Point *node* where this build's registry says its card is: a registry
    edit that changed where a link leads, and nothing else, rewrites the
    pages that link the card without reading them again
    (:func:`pages_using_changed_cards`)."""
    target = link_target(env, node['card_key'])
    if target is not None:
        node['refuri'] = target[0]


def name_nodes(content: nodes.Node) -> list[nodes.Node]:
    """The nodes of a card name: those of *content*, an xref's ``card-name``
    inline (:func:`card_xref`), or *content* itself."""
    if isinstance(content, nodes.inline) and content['classes'] == ['card-name']:
        return list(content.children)
    return [content]


def resolve_page_cards(app: Sphinx, page: Contribution) -> None:
    """Once every concern has read the page's card links
    (``handbook-page-read``, last), each xref that names a registry card
    (a role's, :mod:`handbook.rulings.strike`) becomes its link, in the
    doctree: nothing is left to resolve at write time.  An unknown name
    stays an xref, reported when the page is written
    (:func:`warn_unknown_card`)."""
    env = app.env
    for xref in page.nodes[CARDS]:
        if not isinstance(xref, addnodes.pending_xref) or in_title(xref):
            continue  # a link already; Sphinx copies titles into tables of contents,
            # which take xrefs only
        link = card_link(env, xref['reftarget'], name_nodes(xref[0]), xref['cardname'])
        if link is not None:
            set_location(link, xref)
            replace_xref(xref, link)


def replace_xref(xref: addnodes.pending_xref, link: card_reference) -> None:
    """Put *link* in the place of *xref*, and empty *xref*: its name's inline,
    whose nodes *link* took, points back to it, a cycle that only the
    garbage collector would free (a yearly FAQ page's thousands of them
    were most of what a collection found after reading); emptied, reference
    counting frees both once nothing holds *xref*."""
    xref.replace_self(link)
    xref.clear()


def is_card_xref(node: nodes.Element) -> bool:
    return node.get('refdomain') == 'card'


class CardLinks(SphinxPostTransform):
    """Resolve the card xrefs left at write time (in titles, and in the
    rulings copied from the store, which keep their xrefs as read) in one
    walk, before Sphinx's ReferencesResolver (10), which then only sees the
    unknown names."""

    default_priority = 9

    def run(self, **kwargs: Any) -> None:
        env = self.env
        for xref in list(self.document.findall(addnodes.pending_xref)):
            if xref.get('refdomain') == 'card':
                link = card_link(env, xref['reftarget'], name_nodes(xref[0]), xref['cardname'])
                if link is not None:
                    replace_xref(xref, link)


def link_target(env: BuildEnvironment, key: str) -> tuple[str, str, tuple[str, ...], str] | None:
    """What the link of the card *key* is made of: ``(URL, title, classes,
    registry key)``, made once per card and build; None for a key the
    registry does not know."""
    made = store(env).per_build('card_links', dict)
    if key not in made:
        card = registry(env).get(key)
        made[key] = None if card is None else (
            url_templates(env).url(card),
            _('在卡片数据库中查看「{name}」').format(name=card.name_in(env.config.language)),
            ('card-link', f'card-{card.kind}'), card.key)
    return made[key]


def card_link(env: BuildEnvironment, key: str, children: Iterable[nodes.Node],
              name: str) -> card_reference | None:
    """The link of the card *key* to the card database, around *children*,
    the nodes of the name (*name* as written); None for a key the registry
    does not know."""
    target = link_target(env, key)
    if target is None:
        return None
    uri, _title, classes, card_key = target
    return card_reference('', '', *children, internal=False, refuri=uri,
                          classes=list(classes), card_key=card_key, cardname=name)


class CardDomain(Domain):
    """Resolves card xrefs (what each page links is in :mod:`handbook.store`)."""

    name = 'card'
    label = 'Card'
    initial_data: dict[str, Any] = {}
    data_version = 2

    def clear_doc(self, docname: str) -> None:
        pass  # no data: the store keeps each page's cards

    def merge_domaindata(self, docnames: Any, otherdata: dict[str, Any]) -> None:
        pass

    def resolve_xref(self, env: BuildEnvironment, fromdocname: str, builder: Builder,
                     typ: str, target: str, node: addnodes.pending_xref,
                     contnode: nodes.Element) -> nodes.reference | None:
        return card_link(env, target, name_nodes(contnode), node['cardname'])

    def resolve_any_xref(self, *args: Any) -> list:
        return []  # card names take part in :any: lookups only as card xrefs


def registry(env: BuildEnvironment) -> Registry:
    """The registry of the current build (kept in the store)."""
    return store(env).registry


def changed_keys(env: BuildEnvironment) -> frozenset[str]:
    """The lookup keys whose registry row changed since the last build."""
    return store(env).registry_changed


def url_templates(env: BuildEnvironment | Sphinx) -> UrlTemplates:
    config = env.config
    return UrlTemplates(config.handbook_card_url, config.handbook_card_id_url,
                        config.handbook_series_url)


def registry_path(app: Sphinx) -> Path:
    return (Path(app.confdir) / app.config.handbook_cards).resolve()


def exclude_registry(app: Sphinx, config: Any) -> None:
    """A registry inside the source folder is data, never a page."""
    path = registry_path(app)
    try:
        relative = path.relative_to(Path(app.srcdir).resolve())
    except ValueError:
        return
    if relative.as_posix() not in config.exclude_patterns:
        # a new list: never mutate the (shared) default value
        config.exclude_patterns = [*config.exclude_patterns, relative.as_posix()]


def _said(path: Path) -> str | None:
    """The stamp of the registry whose notes a build printed last (:data:`SAID`)."""
    try:
        return path.read_text(encoding='utf-8')
    except (OSError, ValueError):
        return None


def load_registry(app: Sphinx) -> None:
    """Read the registry; report bad rows; note which names changed.  A
    registry file as it was at the last build (the same path, size and
    modification time, the same URL templates) is not parsed again: the
    store keeps it, and its errors and warnings are reported again (a ``-W``
    build fails as the last one did).  Its notes were printed by the build
    that read it: as Sphinx does for the pages it does not read again, they
    are not repeated, one line says how many there are (a legacy link file
    writes hundreds of names two ways, which would bury each build's own
    reports); ``make check``, which reads everything afresh, lists them."""
    path = registry_path(app)
    kept = store(app.env)
    links = state(app.env, CardLinkState)
    try:
        stat = path.stat()
        stamp = (str(path), stat.st_mtime_ns, stat.st_size, url_templates(app))
        if kept.registry is not None and links.registry_stamp == stamp:
            new = kept.registry
        else:
            new = card_registry.load(path, url_templates(app))
    except (OSError, RegistryError) as err:
        # one located error, not Sphinx's crash report; the pages are built
        # with their card names as plain text, each not reported again
        if isinstance(err, RegistryError):  # its message says the fix
            what = str(err).replace(f'{path} ', 'it ')
        else:
            what = (f'{err.strerror or err}; give the registry file (a TSV, or a link file of '
                    '.. _`卡名`: URL rows) with handbook_cards in conf.py, cards in '
                    'handbook.toml, or make … CARDS=PATH')
        reports.error(f'cannot read the card registry {path}: {what}; until then the card '
                      'names are shown without links', location=f'{path}:1', subtype='registry')
        links.registry_stamp = None
        links.unreadable = True
        kept.set_registry(Registry(path, {}, []))
        return
    links.unreadable = False
    links.registry_stamp = stamp
    # its notes printed already: by the build that kept it, or by one that read
    # it and changed no page (Sphinx then keeps the environment as it was, the
    # registry's stamp with it: an editor's round trip saw an alias's note at
    # every build); not for a fresh environment (-E, a new configuration), whose
    # build prints every page's reports again (the suite: a fresh build of a root
    # another test had built summed its notes up)
    said = Path(app.doctreedir) / SAID
    read_before = new is kept.registry or (kept.registry is not None
                                           and _said(said) == repr(stamp))
    report = {'error': reports.error, 'warning': reports.warning}
    notes: list[Problem] = []  # of a registry read before: said in one line
    more: list[Problem] = []  # past the first few of a kind: said in one line
    shown: Counter[str] = Counter()
    for problem in new.problems:
        location = f'{path}:{problem.line}'
        if problem.severity != 'note':
            report[problem.severity](problem.message, location=location, subtype=problem.subtype)
        elif reports.suppressed(app.config, problem.subtype):
            continue
        elif read_before:
            notes.append(problem)
        elif shown[problem.subtype] < NOTES_SHOWN:
            shown[problem.subtype] += 1
            reports.note(problem.message, location=location, subtype=problem.subtype)
        else:
            more.append(problem)
    if more:
        kinds = Counter(f'handbook.{problem.subtype}' for problem in more)
        counts = ', '.join(f'{kind} ×{n}' for kind, n in sorted(kinds.items()))
        reports.note(f'the card registry has {len(more)} more notes of these kinds ({counts}), '
                     'not printed here: make check lists them',
                     location=f'{path}:{more[0].line}', subtype='registry-notes')
    if not read_before:
        with contextlib.suppress(OSError):  # not kept: the next build prints them again
            write_if_changed(said, repr(stamp))
    if notes:
        kinds = Counter(f'handbook.{problem.subtype}' for problem in notes)
        counts = ', '.join(f'{kind} ×{n}' for kind, n in sorted(kinds.items()))
        said = (f'its note ({counts}) was printed then and is not repeated' if len(notes) == 1
                else f'its {len(notes)} notes ({counts}) were printed then and are not repeated')
        reports.note(f'the card registry is as the last build read it: {said}; '
                     'make check lists them', location=f'{path}:{notes[0].line}',
                     subtype='registry-notes')
    store(app.env).set_registry(new)


def pages_using_changed_cards(app: Sphinx, env: BuildEnvironment, added: Any,
                              changed: Any, removed: Any) -> list[str]:
    """Re-read the pages whose card links the registry edit changed: a link
    whose card's row changed, or whose name as written now names another card
    (or a card, or none).  Where a row changed in where its link leads alone
    (its id or URL) and the builder draws card links (:data:`DRAWN`), the
    pages that link it are not read again but written again
    (:func:`pages_relinked`): their doctrees keep the old URL, which the
    translators replace (:func:`relink`), and a builder that does not draw
    the links reads them again when it next runs."""
    kept = store(env)
    links = state(env, CardLinkState)
    stale = links.stale
    stale -= {*added, *changed, *removed}  # read again anyway
    links.relinked = []
    keys = changed_keys(env)
    drawn = app.builder.format in DRAWN
    reread: set[str] = set()
    if keys:  # else nothing to fold: every build passes here
        relinked = kept.registry_relinked if drawn else frozenset()
        used = {doc: written_keys(page.cards) for doc, page in kept.pages.items()}
        reread = {doc for doc, names in used.items() if (keys - relinked) & names}
        links.relinked = sorted(doc for doc, names in used.items()
                                if relinked & names and doc not in reread)
        stale.update(links.relinked)
    if not drawn:
        reread |= stale
        stale.clear()
    return sorted(reread)


def pages_relinked(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """The pages to write again for a registry edit that moved links only
    (``env-get-updated``; see :func:`pages_using_changed_cards`)."""
    return state(env, CardLinkState).relinked


def written_keys(cards: Iterable[tuple[str, str]]) -> set[str]:
    """The registry keys of a page's cards, and their names as written, folded."""
    return {key for key, _name in cards} | {fold(name) for _key, name in cards}


def used_keys(env: BuildEnvironment) -> set[str]:
    """Every registry key and folded name as written that some page links."""
    return set().union(*(written_keys(page.cards) for page in store(env).pages.values()))


#: the registry's notes a build prints of each kind (a legacy link file's
#: hundreds of aliases were a wall of text: make check groups them all)
NOTES_SHOWN = 10
#: the longest unknown name a report shows whole (a card's is a few dozen characters)
NAME_SHOWN = 100


def warn_unknown_card(app: Sphinx, domain: Domain | None, node: addnodes.pending_xref) -> bool | None:
    if domain is None or domain.name != 'card':
        return None
    if state(app.env, CardLinkState).unreadable:
        return True  # the registry's own error says it, once
    reg = registry(app.env)
    name = node['cardname']
    if fold(name) in reg.rejected:
        return True  # the rejected row's error says it, once
    if len(name) > NAME_SHOWN:  # a hostile-input round trip: 10,000 characters echoed
        shown = f'{name[:NAME_SHOWN]}…'
        message = (f'unknown card name 「{shown}」 ({len(name):,} characters): no card has a name '
                   'this long: check that the link ends where the name does')
        reports.error(message, location=node, subtype='card')
        return True
    close = reg.did_you_mean(name, language=app.config.language)
    if close:
        message = (f'unknown card name 「{name}」: did you mean 「{close}」? '
                   f'If it is a new card, add a row to {reg.path.name}.')
    else:
        message = (f'unknown card name 「{name}」: check the spelling; '
                   f'if it is a new card, add a row to {reg.path.name}.')
    reports.error(message, location=node, subtype='card')
    return True


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value('handbook_cards', 'cards.tsv', 'env', types=frozenset({str}),
                         description='card registry file, relative to conf.py')
    app.add_config_value('handbook_card_url', DEFAULT_URLS.card, 'env', types=frozenset({str}))
    app.add_config_value('handbook_card_id_url', DEFAULT_URLS.card_id, 'env',
                         types=frozenset({str}))
    app.add_config_value('handbook_series_url', DEFAULT_URLS.series, 'env',
                         types=frozenset({str}))
    app.setup_extension('handbook.core.settings')  # the handbook's registry (cards)
    app.setup_extension('handbook.core.hostile_input')
    app.setup_extension('handbook.store')
    app.add_domain(CardDomain)
    collect(app, CARDS, card_reference)
    collect(app, CARDS, addnodes.pending_xref, is_card_xref)
    app.add_transform(CardReferences)
    app.add_node(card_reference,  # other builders: as a reference (its base class)
                 html=(visit_card_reference_html, depart_card_reference_html),
                 latex=(visit_card_reference_latex, depart_card_reference_latex))
    app.add_post_transform(CardLinks)
    app.connect(PAGE_READ, resolve_page_cards, priority=900)  # after the concerns read them
    app.connect('config-inited', exclude_registry)
    app.connect('builder-inited', load_registry)
    app.connect('env-get-outdated', pages_using_changed_cards)
    app.connect('env-get-updated', pages_relinked)
    app.connect('warn-missing-reference', warn_unknown_card)
    return {'version': '1', 'env_version': 2,
            'parallel_read_safe': True, 'parallel_write_safe': True}


def card_xref(env: BuildEnvironment, name: str, rawsource: str,
              children: list[nodes.Node]) -> addnodes.pending_xref:
    """A card link for *name* (as written): a ``card`` xref whose content is
    *children* in an inline ``card-name``.  The card's identity is resolved
    here, once, at read time: ``reftarget`` is the card's registry key (the
    folded name as written where the registry does not know it), which every
    later consumer reads.  Used by :class:`CardReferences` (an unknown name, a
    name in a title) and by roles whose text cannot hold references
    (:mod:`handbook.rulings.strike`); the caller sets its location."""
    card = registry(env).lookup(name)
    xref = addnodes.pending_xref(
        rawsource, refdomain='card', reftype='card',
        reftarget=card.key if card is not None else fold(name),
        refexplicit=True, refwarn=True, cardname=name)
    xref += nodes.inline(rawsource, '', *children, classes=['card-name'])
    return xref
