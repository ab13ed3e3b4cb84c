"""Link targets: duplicate labels across pages, labels no page defines, and
anonymous-link mismatches, reported at the exact line of the fault.

error ``handbook.ref`` (the reader gets no link) -- a ``:ref:`` to a label
no page defines, at its line, with its fix: the label it misspells, the
label of the section whose title it is, else where a label goes
(:func:`missing_label`; Sphinx's own "undefined label" said no fix, as a
warning).

Two faults that Sphinx and docutils report without a usable line
(:mod:`handbook.core.reports`):

warning ``handbook.label`` (a house rule) -- a label (``.. _标签:``)
defined on two pages.  Sphinx warns about it only when it reads both pages
in one process, at the heading after the label, and not at all in a
parallel build (``-j auto``), where the last page read silently wins.  This
extension remembers every page's labels with their lines (in the handbook
store, :func:`page_labels`: {label: (source, line)}; planned.py reads it
too) and reports each definition after the first (in page order)
at its own line, naming the first.  A duplicate defined on a page read later
in the same process is dropped from that page so that Sphinx does not report
it a second time: references go to the first definition.  (Two definitions
on one page are docutils' "Duplicate explicit target name", already at the
right line.)

**Pages that refer to a label that moved.**  Sphinx writes again the pages
it read, not those whose ``:ref:`` points at a label that another page's
edit moved, retitled or removed: they kept the old address and title, and
a removed label's broken ``:ref:`` was reported only by a clean build.  The
store keeps the labels each page refers to (``:ref:``, ``:numref:``;
:data:`REFS`); the labels' places and titles are noted before a build reads
(``env-get-outdated``), and the pages that refer to one that changed are
written again (``env-get-updated``, :func:`pages_referring_to_changed_labels`),
so an incremental build gives the site a clean one gives.

error ``handbook.anonymous-link`` (the reader gets a wrong or no link) --
anonymous links (```文本`__``) and anonymous targets (``.. __: URL``) pair
up in order, so their numbers must match.  Docutils reports a mismatch once
per page with no line.  This extension reports it at each anonymous link
without an embedded URL (or, when the targets are too many, at each
anonymous target) and renders those links as problematic text, as docutils
would, so that the page-wide message does not repeat it.  The handbook
writes anonymous links with the URL inside, ```17/3/24 <https://…>`__``;
these are not counted.  An anonymous link written by mistake for a card,
「`卡名`__」, gets the hint 「`卡名`_」 (a card's name only); any other, the
place of its address, ``https://…``, which is an error again if written as
it is.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx.transforms import SphinxTransform
from sphinx.util.logging import is_suppressed_warning

from handbook.cards.registry import slips
from handbook.core import reports
from handbook.core.names import fold
from handbook.core.source_lines import locate
from handbook.store import PAGE_READ, Contribution, carry, store

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.environment import BuildEnvironment

#: what the store keeps of a page's labels: {label: (source, line)}
LABELS = 'labels'
#: what the store keeps of the labels a page refers to: frozenset of labels;
#: the note, for this build, of the labels moved in it
REFS = 'label-refs'
MOVED = 'moved-labels'
#: the cross-references that point at a label
_LABEL_ROLES = frozenset({'ref', 'numref'})
#: what the store keeps of the labels a page did not define because another
#: page did (:class:`DropDuplicateLabels`): frozenset of labels
DROPPED = 'dropped-labels'
#: what it keeps of the labels a page defines twice, which docutils drops:
#: {label: (source, lines)}
TWICE = 'labels-twice'


class AnonymousLinks(SphinxTransform):
    """Report anonymous link/target mismatches at their lines."""

    # just before docutils' AnonymousHyperlinks (440)
    default_priority = 439

    def apply(self, **kwargs: Any) -> None:
        links = [n for n in self.document.findall(nodes.reference) if n.get('anonymous')]
        targets = [n for n in self.document.findall(nodes.target) if n.get('anonymous')]
        if len(links) == len(targets):
            return
        counts = (f'the page has {len(links)} anonymous links `…`__ and {len(targets)} '
                  'anonymous targets .. __: URL, which pair up in order')
        if len(links) > len(targets):
            registry = store(self.env).registry  # (None without handbook.cards)
            for link in links:
                self.error(link, f'anonymous link {link.rawsource!r} has no target ({counts}): '
                                 f'{_anonymous_fix(link.astext(), registry)}')
        else:
            for target in targets:
                self.error(target, f'anonymous target {target.rawsource.strip()!r} has no link '
                                   f'({counts}): remove it, or write the URL inside the link, '
                                   '`文本 <URL>`__')
        for link in links:
            link.replace_self(nodes.problematic(link.rawsource, link.rawsource))
        for target in targets:
            del target['anonymous']

    def error(self, node: nodes.Node, message: str) -> None:
        source, line = locate(node)
        reports.error(message, location=f'{source or self.document.get("source")}:{line or 0}',
                      subtype='anonymous-link')


#: a link's text that is its text and a URL whose closing > is missing
_UNENDED_URL = re.compile(r'.*\S\s+<[^<>\s]+', re.S)
#: a link's text that ends with an address docutils read none in: one that
#: holds < or > (``<data:text/html,<b>x</b>>``)
_BRACKETED = re.compile(r'.*\S\s+<.*>', re.S)


def _anonymous_fix(text: str, registry: Any) -> str:
    """How to write an anonymous link (``text``, no target) to give it one.
    Its address is the editor's to give: the template says where
    (``https://…``, which is no address: written as it is, it is an error,
    not a link to nowhere); the card link, only for a card's name."""
    if _UNENDED_URL.fullmatch(text):
        return f'write `{text}>`__: the > that ends its URL is missing'
    if _BRACKETED.fullmatch(text):
        return ('its address holds < or >, so docutils reads none: write the https:// '
                'address of the page it links, with no < or > in it')
    fix = f'write its https:// address inside the link, `{text} <https://…>`__'
    if registry is not None and registry.lookup(text) is not None:
        return f'{fix}, or 「`{text}`_」 for the card'
    return fix


class RecordLabels(SphinxTransform):
    """Remember the page's labels and their lines (before docutils moves a
    label onto the section that follows it)."""

    # before docutils' PropagateTargets (260)
    default_priority = 259

    def apply(self, **kwargs: Any) -> None:
        labels: dict[str, tuple[str, int]] = {}
        twice: dict[str, tuple[str, list[int]]] = {}
        for target in self.document.findall(nodes.target):
            if target.get('refuri') or target.get('refname') or target.get('anonymous'):
                continue  # a link to elsewhere, not a label
            source, line = locate(target)
            source = source or self.document['source']
            for name in target['names']:
                labels.setdefault(name, (source, line or 0))
            for name in target.get('dupnames', ()):  # defined twice on the page: dropped
                twice.setdefault(name, (source, []))[1].append(line or 0)
        if labels:  # for DropDuplicateLabels, then the store (read_labels)
            self.document[LABELS] = labels
        if twice:  # for the store: missing_label says why the label is undefined
            self.document[TWICE] = twice


class DropDuplicateLabels(SphinxTransform):
    """A label another page already defines is not defined again (the first
    page read wins); the duplicate is reported, once, by
    :func:`report_duplicates`.  The labels dropped are kept
    (:data:`DROPPED`): the page is read again when the page that held them
    is (:func:`note_labels`)."""

    # before Sphinx's domains collect the labels (850)
    default_priority = 849

    def apply(self, **kwargs: Any) -> None:
        docname = self.env.current_document.docname
        known = self.env.domains.standard_domain.anonlabels
        dropped = [name for name in self.document.get(LABELS, {})
                   if name in known and known[name][0] != docname
                   and self.document.nametypes.get(name)]
        for name in dropped:
            self.document.nametypes[name] = False  # Sphinx skips it
        if dropped:
            self.document[DROPPED] = frozenset(dropped)


def clear_labels_to_read(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """The labels of the pages this build reads, cleared before it reads the
    first (``env-before-read-docs``), as a parallel build clears them: Sphinx
    reading one page at a time clears each just before reading it, so the
    domain held a page not read yet as its last build defined it, and a
    label an edit moved to a page read before it was dropped there, then
    defined nowhere (an editor's round trip; a clean build passed)."""
    std = env.domains.standard_domain
    for docname in docnames:
        std.clear_doc(docname)


def read_labels(app: Sphinx, page: Contribution) -> None:
    """The page's labels, and those it refers to, for the store
    (``handbook-page-read``)."""
    carry(page, LABELS)
    carry(page, DROPPED)
    carry(page, TWICE)
    refs = frozenset(xref['reftarget'] for xref in page.nodes.xrefs
                     if xref.get('refdomain') == 'std' and xref.get('reftype') in _LABEL_ROLES)
    if refs:
        page.extra[REFS] = refs


def note_labels(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str],
                removed: set[str]) -> list[str]:
    """Before the build reads: where each label is and its title
    (``env-get-outdated``; nothing is purged yet); and the pages to read
    again because a page read again or removed held a label they dropped
    (:class:`DropDuplicateLabels`): it may hold it no more (an editor's round
    trip: the duplicate deleted, the label was defined nowhere until a clean
    build)."""
    store(env).per_build(REFS, lambda: _places(env))
    going = changed | removed
    held = {name for docname in going for name in page_labels(env, docname)}
    if not held:
        return []
    return sorted(docname for docname, record in store(env).pages.items()
                  if docname not in going and not held.isdisjoint(record.extra.get(DROPPED, ())))


def _places(env: BuildEnvironment) -> dict[str, tuple[Any, Any]]:
    """Each label's place and title: ``(anonlabels' entry, labels' entry)``."""
    std = env.domains.standard_domain
    return {name: (std.anonlabels.get(name), std.labels.get(name))
            for name in std.anonlabels.keys() | std.labels.keys()}


def moved_labels(env: BuildEnvironment) -> set[str]:
    """The labels whose page, anchor or title changed in this build, or that
    are new or gone: asked for once the pages are read (the card pages ask
    too), compared once."""
    def compare() -> set[str]:
        before, now = store(env).per_build(REFS, dict), _places(env)
        return {label for label in before.keys() | now.keys()
                if before.get(label) != now.get(label)}
    return store(env).per_build(MOVED, compare)


def pages_referring_to_changed_labels(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """The pages not read in this build that refer to a label whose page,
    anchor or title changed, or that is gone (``env-get-updated``)."""
    moved = moved_labels(env)
    if not moved:
        return []
    read = store(env).changes().pages
    return sorted(docname for docname, record in store(env).pages.items()
                  if docname not in read and not moved.isdisjoint(record.extra.get(REFS, ())))


def page_labels(env: BuildEnvironment, docname: str) -> dict[str, tuple[str, int]]:
    """``{label: (source, line)}`` of the labels *docname* defines."""
    record = store(env).record(docname)
    return record.extra.get(LABELS, {}) if record is not None else {}


def report_duplicates(app: Sphinx, env: BuildEnvironment) -> None:
    """Each definition of a label after the first in page order, at its line,
    naming the first: the same reports whichever page a build read first
    (in a parallel build, the page that keeps the label is the one merged
    last)."""
    where: dict[str, list[tuple[str, str, int]]] = {}
    for docname in sorted(store(env).pages):
        for name, (source, line) in page_labels(env, docname).items():
            where.setdefault(name, []).append((docname, source, line))
    for name, places in sorted(where.items()):
        if len(places) < 2:
            continue
        _, first_source, first_line = places[0]
        first = f'{os.path.relpath(first_source, app.srcdir)}:{first_line}'
        for _, source, line in places[1:]:
            reports.warning(f'duplicate label {name!r}: {first} defines it already; labels are '
                            'unique across the handbook: rename one (and the :ref: that mean it)',
                            location=f'{source}:{line}', subtype='label')


def missing_label(app: Sphinx, env: BuildEnvironment, node: nodes.Element,
                  contnode: nodes.Element) -> nodes.Element | None:
    """``missing-reference``: a ``:ref:`` to no label is an error at its
    line, with its fix, in place of Sphinx's warning (a link that leads
    nowhere is broken for readers; Sphinx's says no fix), and its text is
    shown plain, as Sphinx shows it: the one label it misspells (the slips
    of a card's name: a character read alike, a particle;
    :func:`handbook.cards.registry.slips`), the label of the section whose
    title it is (an editor's round trip: the title renamed, the :ref:
    written as the title reads), else where a label is defined.  A planned
    section's label is :mod:`handbook.sections.planned`'s; a label that
    names no section, Sphinx's to say.  A handbook that silenced Sphinx's
    warning (``suppress_warnings = ['ref.ref']``, or ``nitpick_ignore`` in a
    nitpicky build) silenced this one: Sphinx is left to say it, as before."""
    if node.get('refdomain') != 'std' or node.get('reftype') not in ('ref', 'numref'):
        return None
    config = app.config
    if is_suppressed_warning('ref', node['reftype'], config.suppress_warnings) or (
            config.nitpicky and (f'std:{node["reftype"]}', node.get('reftarget', ''))
            in {tuple(entry) for entry in config.nitpick_ignore}):
        return None
    domain = env.domains.standard_domain
    target, role = node.get('reftarget', ''), node['reftype']
    if target in domain.anonlabels or target in getattr(
            env.config, 'handbook_planned_sections', ()):
        return None
    twice = _defined_twice(env, target)
    if twice is not None:
        source, lines = twice
        times = 'twice' if len(lines) == 2 else f'{len(lines)} times'
        if node.get('refwarn', True):
            reports.error(
                f'label {target!r} is defined {times} on {os.path.relpath(source, app.srcdir)} (lines '
                f'{", ".join(map(str, lines[:-1]))} and {lines[-1]}), so docutils drops it and '
                'the link leads nowhere (its text is shown plain): delete all but one of the '
                f'.. _{target}: lines, or rename one (and the :ref: that mean it)',
                location=node, subtype='ref')
        return contnode
    labels = sorted(domain.labels.keys() | domain.anonlabels.keys())
    close = slips(target, labels) if target else []
    best = min((distance for distance, _ in close), default=None)
    meant = [labels[i] for distance, i in close if distance == best]
    # (a page's labels: not Sphinx's own, genindex and search, whose titles are proxies)
    titled = sorted(label for label, (doc, _id, title) in domain.labels.items()
                    if doc in env.found_docs and title and fold(str(title)) == fold(target))
    if len(meant) == 1:
        fix = f'write :{role}:`{meant[0]}`, the label it misspells'
    elif target and len(titled) == 1:
        fix = (f'{target!r} is the title of the section labelled {titled[0]!r}, not a label: '
               f'write :{role}:`{titled[0]}`')
    else:
        fix = (f'define it on the line before the section it names, .. _{target}:, or write '
               'a label the handbook defines, or, for a section not written yet, list it in '
               "planned_sections of the handbook's handbook.toml")
    not_built = getattr(config, 'handbook_not_built', [])
    if not_built and len(meant) != 1:  # (a hostile-input round trip: the fix was wrong there)
        fix = (f'if {", ".join(not_built)} defines it, fix that page first: it is not built, as '
               f'it cannot be read; else {fix}')
    if node.get('refwarn', True):  # (a copy of a ruling elsewhere: its own page says it)
        reports.error(f'undefined label {target!r}, so the link leads nowhere (its text is '
                      f'shown plain): {fix}', location=node, subtype='ref')
    return contnode


def _defined_twice(env: BuildEnvironment, target: str) -> tuple[str, list[int]] | None:
    """Where a page defines the label *target* twice (docutils' "Duplicate
    explicit target name", which drops it): ``(source, lines)``, or None."""
    for record in store(env).pages.values():
        found = record.extra.get(TWICE, {}).get(target)
        if found is not None:
            return found
    return None


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_transform(AnonymousLinks)
    app.add_transform(RecordLabels)
    app.add_transform(DropDuplicateLabels)
    app.setup_extension('handbook.store')
    app.connect(PAGE_READ, read_labels)
    app.connect('env-before-read-docs', clear_labels_to_read)
    app.connect('env-get-outdated', note_labels)
    app.connect('env-get-updated', pages_referring_to_changed_labels)
    app.connect('env-check-consistency', report_duplicates)
    app.connect('missing-reference', missing_label, priority=900)  # after planned sections'
    # env_version 4: the labels a page dropped or defines twice
    return {'version': '1', 'env_version': 4,
            'parallel_read_safe': True, 'parallel_write_safe': True}
