"""Export of every ruling as JSON, next to the HTML (``_build/html/rulings.json``).

Written at the end of every successful HTML build (``html``, ``dirhtml``,
``singlehtml``; not epub) from the record of :mod:`handbook.rulings.lines`, so it is
never stale.  The file is UTF-8 (Chinese as is, not ``\\u`` escapes), its
order is deterministic (pages in table-of-contents order, rulings in page
order), and it is rewritten only when its content changes.  Each page's
rulings are encoded once, after the page is read (in a parallel read, as
the page's chunk is merged, while the main process waits for the others),
and kept in the store (:func:`export_lines`)::

    {
      "format": 3,
      "rulings": [
        {
          "page": "effect-processing",
          "page_title": "特定效果的处理方法",
          "section": {"id": "同时处理", "title": "同时处理"},
          "anchor": "ruling-2018-12-24-倍倍伤害",
          "url": "effect-processing.html#ruling-2018-12-24-倍倍伤害",
          "date": "2018-12-24",
          "dates": ["2018-12-24"],
          "references": [{"written": "18/12/24", "date": "2018-12-24",
                          "faq": null, "url": null, "section": false}],
          "cards": ["倍倍伤害"],
          "text": "「倍倍伤害」发动后，受到战斗伤害和……结果平局。",
          "changed": false,
          "struck": false,
          "struck_spans": [],
          "status": [],
          "replaces": [],
          "replaced_by": null,
          "superseded_by": null,
          "sources": []
        }
      ]
    }

``url`` is relative to the HTML folder (the page's file and the anchor as
URL fragment, not percent-encoded); ``date`` is the ruling's date (ISO, or
null): on a yearly FAQ page the date of the day section it sits in
(:mod:`handbook.rulings.days`), else its newest; ``dates`` are ISO dates, one
per reference as written (an invalid date, which the build reports, is left
out), the day's first on a yearly FAQ page, whose reference has ``section``
true; ``faq`` is the official FAQ id, ``url`` the reference's link, either
may be null; ``cards`` are the names the ruling links, as written, in
order; ``text`` is the ruling's plain text without its dates; ``changed``
and ``struck`` are the flags of :mod:`handbook.rulings.lines`;
``struck_spans`` the ``[start, end)`` of each struck part of ``text`` where
some of its words are struck and others not (in characters, as Python
counts them: ``text[start:end]``; ``[]`` where none is, or every word is);
``status``
lists the ruling's status codes (``changed``, ``open``, ``confirmed``,
``overturned``, in that order, see :mod:`handbook.rulings.statuses`),
``replaces`` the anchors of the overturned rulings of its line it replaced,
``replaced_by`` the anchor of the ruling that replaced it (or null),
``superseded_by`` the section an outdated day points to, ``{"label": "同时处理",
"url": "effect-processing.html#同时处理"}`` (or null; the url is null where no
page defines the label), and ``sources`` each of its sources: the source
header it sits under on a yearly FAQ page, then each source its references
link, ``{"kind": "faq", "faq": "19691", "label": null}`` (kinds ``faq``,
``wiki``, ``mail``, ``other``; ``faq`` is null where there is no id, ``label``
is a header's own word for an ``other`` source, else null).

Format history: 1, the first; 2 added ``status``, ``replaces``,
``replaced_by`` and ``sources``; 3 added ``date``, ``superseded_by``, each
reference's ``section``, each source's ``label``, the status ``superseded``
and the source kind ``mail`` (nothing else changed: a reader of format 2 can
read 3); 4 added ``struck_spans`` (a reader of 3 can read 4).

Configuration (``conf.py``)::

    handbook_rulings_export = 'rulings.json'   # '' for no export
"""

from __future__ import annotations

import json
import zlib
from typing import TYPE_CHECKING, Any

from handbook.core.files import write_pieces_if_changed
from handbook.rulings import lines as ruling_lines
from handbook.store import State, state, store

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from sphinx.application import Sphinx
    from sphinx.builders import Builder
    from sphinx.environment import BuildEnvironment

    from handbook.rulings.lines import Ruling

#: bump when the shape of the file changes
FORMAT = 4
#: zlib's level for the kept lines: the fastest, nearly as small as the default
LEVEL = 1


class ExportState(State):
    """Each page's lines of the export, kept from build to build
    (:func:`handbook.store.state`): ``{docname: (title, address, the addresses
    of the sections its outdated days point to, its lines)}``,
    the lines (JSON, one per ruling) UTF-8 and compressed (the environment is
    read at every build and held by every process to its end).  A page read
    again loses its lines (:meth:`clear_doc`): they are made again."""

    def __init__(self) -> None:
        self.lines: dict[str, tuple[str, str, tuple[str | None, ...], bytes]] = {}

    def clear_doc(self, docname: str) -> None:
        self.lines.pop(docname, None)


def export_lines(env: BuildEnvironment, builder: Builder) -> list[bytes]:
    """Every ruling as one line of JSON, in the export's order: a page's
    lines in one piece, compressed (:class:`ExportState`).  A page's lines
    are made again only when the page was read again, or its title or
    address changed: editing one ruling re-encodes one page."""
    kept = state(env, ExportState).lines
    lines: list[bytes] = []
    for docname in ruling_lines.page_order(env):
        page = page_lines(env, builder, docname)
        if page is not None:
            lines.append(page)
    for docname in kept.keys() - env.all_docs:
        del kept[docname]
    return lines


def page_lines(env: BuildEnvironment, builder: Builder, docname: str) -> bytes | None:
    """The lines of one page's rulings, compressed (None: it has none),
    encoded again only when they changed (see :func:`export_lines`)."""
    kept = state(env, ExportState).lines
    record = store(env).record(docname)
    if record is None or not record.rulings:
        kept.pop(docname, None)
        return None
    title = env.titles[docname].astext() if docname in env.titles else docname
    uri = builder.get_target_uri(docname)
    page = kept.get(docname)
    section = section_uri(env, builder)
    # the sections its outdated days point to: where one moves, the lines change
    links = tuple(section(label) for label in dict.fromkeys(
        r.superseded_by for r in record.rulings if r.superseded_by))
    if page is None or page[:3] != (title, uri, links):
        page = kept[docname] = (title, uri, links, zlib.compress(b',\n'.join([
            json.dumps(ruling_json(docname, title, uri, r, section), ensure_ascii=False).encode()
            for r in record.rulings]), LEVEL))
    return page[3]


def section_uri(env: BuildEnvironment, builder: Builder) -> Callable[[str], str | None]:
    """The address of the section a label names, relative to the HTML folder."""
    labels = env.domains.standard_domain.labels

    def uri(label: str) -> str | None:
        found = labels.get(label)
        if found is None:
            return None
        docname, labelid, _title = found
        return f'{builder.get_target_uri(docname)}#{labelid}'
    return uri


def ruling_json(docname: str, title: str, uri: str, ruling: Ruling,
                section: Callable[[str], str | None] = lambda label: None) -> dict[str, Any]:
    """One ruling of the export (*section*: the address of a labelled section)."""
    return {
        'page': docname,
        'page_title': title,
        'section': {'id': ruling.section_id, 'title': ruling.section_title},
        'anchor': ruling.anchor,
        'url': f'{uri}#{ruling.anchor}',
        'date': ruling.date,
        'dates': list(ruling.dates),
        'references': [{'written': r.text, 'date': r.date, 'faq': r.faq, 'url': r.url,
                        'section': r.section} for r in ruling.references],
        'cards': [name for _key, name in ruling.cards],
        'text': ruling.text,
        'changed': ruling.changed,
        'struck': ruling.struck,
        'struck_spans': [list(span) for span in ruling.struck_spans],
        'status': list(ruling.status),
        'replaces': list(ruling.replaces),
        'replaced_by': ruling.replaced_by,
        'superseded_by': None if not ruling.superseded_by else {
            'label': ruling.superseded_by, 'url': section(ruling.superseded_by)},
        'sources': [{'kind': kind, 'faq': (detail or None) if kind == 'faq' else None,
                     'label': (detail or None) if kind == 'other' else None}
                    for kind, detail in ruling.sources],
    }


def exported(app: Sphinx) -> bool:
    """Whether this build writes the export: an HTML build with a file name
    (epub, htmlhelp: no side files)."""
    builder = app.builder
    return bool(app.config.handbook_rulings_export) and builder.format == 'html' \
        and not getattr(builder, 'embedded', False)


def keep_lines(app: Sphinx, env: BuildEnvironment) -> list[str]:
    """Encode the lines of the pages read again once they are read
    (``env-get-updated``), before Sphinx saves the environment: what is kept
    in the store later in the build is not saved."""
    if exported(app):
        export_lines(env, app.builder)
    return []


def keep_merged_lines(app: Sphinx, env: BuildEnvironment, docnames: Any,
                      other: BuildEnvironment) -> None:
    """A parallel read's pages, encoded as each chunk of them is merged
    (``env-merge-info``): the main process waits for the other chunks then,
    while once they are all read it computes alone."""
    if exported(app):
        for docname in docnames:
            page_lines(env, app.builder, docname)


def write_export(app: Sphinx, exception: Exception | None) -> None:
    if exception is None and exported(app):
        pages = export_lines(app.env, app.builder)
        write_pieces_if_changed(app.builder.outdir / app.config.handbook_rulings_export,
                                lambda: dumps(map(zlib.decompress, pages)))


def dumps(pages: Iterable[bytes]) -> Iterator[bytes]:
    """The export, piece by piece (7 MB for 9,000 rulings, never held whole):
    the rulings' lines in one JSON document, one ruling per line (json's fast
    encoder: an indented dump of 9,000 rulings takes it a second), UTF-8.
    *pages* are the pages' lines, each page's joined by ``,\\n``."""
    yield f'{{"format": {json.dumps(FORMAT)}, "rulings": [\n'.encode()
    for i, page in enumerate(pages):
        if i:
            yield b',\n'
        yield page
    yield b'\n]}\n'


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.rulings.lines')
    app.add_config_value('handbook_rulings_export', 'rulings.json', 'html',
                         types=frozenset({str}),
                         description='file name of the JSON export of every ruling')
    app.connect('env-merge-info', keep_merged_lines, priority=900)  # after the titles' merge
    app.connect('env-get-updated', keep_lines)
    app.connect('build-finished', write_export)
    return {'version': '2', 'env_version': 3,
            'parallel_read_safe': True, 'parallel_write_safe': True}
