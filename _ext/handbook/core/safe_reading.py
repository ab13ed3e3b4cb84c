"""A safe reading of pages: what a page may publish, and which files it may read.

The handbook is built by CI from strangers' pull requests, into a site
every reader opens.  reStructuredText can do more than a handbook needs,
and three of its features let a page publish what no check can vouch for
or read files of the machine that builds it.  They are off by default;
each is a located error, ``handbook.unsafe-markup``, that names the
setting of ``handbook.toml`` (:mod:`handbook.core.settings`) which turns it
back on, for a handbook whose every writer is trusted.  This handbook's
own settings turn none of them on.

**Raw HTML** (``raw_html = true``): the ``raw`` directive, and the ``raw``
role with the roles made from it (``.. role:: h(raw)``), copy their text
into the page as it is: ``<img src=x onerror=…>`` in a ruling line runs a
script on the page, the timeline, the card pages and 最近更新.  A refused
``raw`` publishes nothing.  docutils' own switch, ``raw_enabled``, follows
the setting too, for any raw content that does not come through these.

**Files from outside the source folder** (``outside_files = true``):
``include``, ``literalinclude`` (and its ``:diff:``), ``raw`` and
``csv-table`` with ``:file:``, ``:download:``, ``image`` and ``figure`` read
or copy a file named by the page.  A path that leads out of the source
folder (``../../../../etc/passwd``, an absolute path, a symbolic link
inside the folder whose target is outside) would publish a file of the
machine, in a pull request's preview the CI runner's.  Files inside the
source folder are read as usual, and so are docutils' standard include
files (``.. include:: <isonum.txt>``).  ``raw`` and ``csv-table`` with
``:url:`` fetch an address while the page is read (the build machine's
network, its cloud metadata service): refused under the same setting.

**meta http-equiv** (``meta_http_equiv = true``): ``.. meta::`` with
``:http-equiv=refresh: 0;url=…`` sends every reader of the page elsewhere
(and other ``http-equiv`` values set cookies or policies).  The ``meta``
element is left out.  Other ``meta`` fields (``description``, ``keywords``)
stay.

The checks are the directives and roles themselves (each a subclass of
Sphinx's or docutils' own, registered in its place), so the file is never
opened; ``:download:``, images and ``meta`` are checked on the doctree
before Sphinx's collectors copy anything.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes
from docutils.parsers.rst import directives, roles
from docutils.parsers.rst.directives.misc import Meta, Raw
from docutils.parsers.rst.directives.tables import CSVTable
from sphinx import addnodes
from sphinx.directives.code import LiteralInclude
from sphinx.directives.other import Include
from sphinx.transforms import SphinxTransform

from handbook.core import reports

if TYPE_CHECKING:
    from sphinx.application import Sphinx

SUBTYPE = 'unsafe-markup'

#: config value -> (key of handbook.toml, why it is off)
SETTINGS = {
    'handbook_raw_html': ('raw_html', 'its HTML would be published as it is, scripts included'),
    'handbook_outside_files': ('outside_files', 'it would publish a file of the machine that '
                                                'builds the site'),
    'handbook_meta_http_equiv': ('meta_http_equiv', 'it would send every reader of the page '
                                                    'to another address'),
}


def _refused(config_name: str, what: str, fix: str, location: Any, why: str = '') -> None:
    key, default_why = SETTINGS[config_name]
    why = why or default_why
    reports.error(f'{what}: {why}, so it is off; {fix}, or set {key} = true in handbook.toml '
                  'if every writer of this handbook is trusted', location=location,
                  subtype=SUBTYPE)


def outside(path: str | os.PathLike[str], srcdir: str | os.PathLike[str]) -> bool:
    """Whether *path*, symbolic links followed, is outside the folder *srcdir*."""
    real, root = os.path.realpath(path), os.path.realpath(srcdir)
    return os.path.commonpath([real, root]) != root


def _location(directive: Any) -> str:
    source, line = directive.state_machine.get_source_and_line(directive.lineno)
    return f'{source}:{line}'


def _srcdir(directive: Any) -> str:
    return str(directive.state.document.settings.env.srcdir)


def _file_option(directive: Any, trusted: bool) -> bool:
    """Whether the ``:file:`` or ``:url:`` option of a docutils directive
    (``raw``, ``csv-table``) may be read; reports it if not."""
    if trusted:
        return True
    location = _location(directive)
    if 'url' in directive.options:
        _refused('handbook_outside_files',
                 f'{directive.name} :url: fetches {directive.options["url"]!r} while the page '
                 'is read', 'put the content in the page', location,
                 why="it would reach the build machine's network (a cloud metadata service, "
                     'a private address)')
        return False
    if 'file' in directive.options:
        name = directive.options['file']
        document = directive.state.document
        base = (Path(_srcdir(directive)) if name.startswith('/')
                else Path(document.current_source or '').parent)
        if outside(base / name.lstrip('/'), _srcdir(directive)):
            _refused('handbook_outside_files',
                     f'{directive.name} :file: {name!r} reads a file outside the source folder',
                     'copy the file into the source folder', location)
            return False
    return True


class SafeRaw(Raw):
    """docutils' ``raw``, refused unless ``raw_html``; its ``:file:`` checked."""

    def run(self) -> list[nodes.Node]:
        config = self.state.document.settings.env.config
        if not config.handbook_raw_html:
            _refused('handbook_raw_html', f'the raw directive ({", ".join(self.arguments)})',
                     'write the content in reStructuredText', _location(self))
            return []
        if not _file_option(self, config.handbook_outside_files):
            return []
        return super().run()


class SafeCSVTable(CSVTable):
    """docutils' ``csv-table``, its ``:file:`` and ``:url:`` checked."""

    def run(self) -> list[nodes.Node]:
        config = self.state.document.settings.env.config
        if not _file_option(self, config.handbook_outside_files):
            return []
        return super().run()


class SafeInclude(Include):
    """Sphinx's ``include``: a file outside the source folder refused."""

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        if not (name.startswith('<') and name.endswith('>')) \
                and not self.config.handbook_outside_files:
            _rel, path = self.env.relfn2path(name)
            if outside(path, self.env.srcdir):
                _refused('handbook_outside_files',
                         f'include {name!r} reads a file outside the source folder',
                         'copy the file into the source folder', self.get_location())
                return []
        return super().run()


class SafeLiteralInclude(LiteralInclude):
    """Sphinx's ``literalinclude`` (and its ``:diff:``): a file outside the
    source folder refused."""

    def run(self) -> list[nodes.Node]:
        if not self.config.handbook_outside_files:
            for name in (self.arguments[0], self.options.get('diff')):
                if name is None:
                    continue
                _rel, path = self.env.relfn2path(name)
                if outside(path, self.env.srcdir):
                    _refused('handbook_outside_files',
                             f'literalinclude {name!r} reads a file outside the source folder',
                             'copy the file into the source folder', self.get_location())
                    return []
        return super().run()


class SafeMeta(Meta):
    """docutils' ``meta``: an ``http-equiv`` field refused unless ``meta_http_equiv``."""

    def run(self) -> list[nodes.Node]:
        document = self.state.document
        before = set(map(id, document.findall(nodes.meta)))
        result = super().run()  # puts the meta elements at the start of the document
        if not document.settings.env.config.handbook_meta_http_equiv:
            for node in list(document.findall(nodes.meta)):
                if id(node) not in before and node.get('http-equiv'):
                    _refused('handbook_meta_http_equiv',
                             f'meta http-equiv={node["http-equiv"]!r}', 'remove the field',
                             _location(self))
                    node.parent.remove(node)
        return result


def safe_raw_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                  options: dict | None = None, content: list[str] | None = None
                  ) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    """docutils' ``raw`` role (and every role made from it), refused unless ``raw_html``."""
    config = inliner.document.settings.env.config
    if not config.handbook_raw_html:
        source, line = inliner.reporter.get_source_and_line(lineno)
        _refused('handbook_raw_html', f'the raw role :{name}:',
                 'write the text in reStructuredText', f'{source}:{line}')
        return [], []
    return roles.raw_role(name, rawtext, text, lineno, inliner, options, content)


safe_raw_role.options = {'format': directives.unchanged}  # type: ignore[attr-defined]


class SafeFilesAndMeta(SphinxTransform):
    """Downloads and images outside the source folder: reported and left
    out, before Sphinx's collectors copy anything (``doctree-read``)."""

    # after the parse, before DoctreeReadEvent (880), whose collectors copy the files
    default_priority = 700

    def apply(self, **kwargs: Any) -> None:
        config = self.config
        if not config.handbook_outside_files:
            for node in list(self.document.findall(addnodes.download_reference)):
                target = node.get('reftarget', '')
                if '://' in target:
                    continue  # a link, not a file: the URL policy's
                _rel, path = self.env.relfn2path(target, self.env.docname)
                if outside(path, self.env.srcdir):
                    _refused('handbook_outside_files',
                             f':download: {target!r} copies a file outside the source folder',
                             'copy the file into the source folder', node)
                    node.replace_self(nodes.inline(node.rawsource, node.astext()))
            for node in list(self.document.findall(nodes.image)):
                uri = node.get('uri', '')
                if '://' in uri or uri.startswith('data:'):
                    continue  # an address: the URL policy's
                _rel, path = self.env.relfn2path(uri.replace('*', 'x'), self.env.docname)
                if outside(path, self.env.srcdir):
                    _refused('handbook_outside_files',
                             f'image {uri!r} copies a file outside the source folder',
                             'copy the image into the source folder', node)
                    node.parent.remove(node)


def builder_inited(app: Sphinx) -> None:
    """docutils' own ``raw_enabled`` follows ``raw_html``."""
    app.env.settings['raw_enabled'] = bool(app.config.handbook_raw_html)


def setup(app: Sphinx) -> dict[str, Any]:
    for name, (key, _why) in SETTINGS.items():
        app.add_config_value(name, False, 'env', types=frozenset({bool}),
                             description=f'{key} in handbook.toml: trust the pages with it')
    app.add_directive('raw', SafeRaw, override=True)
    app.add_directive('csv-table', SafeCSVTable, override=True)
    app.add_directive('include', SafeInclude, override=True)
    app.add_directive('literalinclude', SafeLiteralInclude, override=True)
    app.add_directive('meta', SafeMeta, override=True)
    app.add_role('raw', safe_raw_role, override=True)
    app.add_transform(SafeFilesAndMeta)
    app.connect('builder-inited', builder_inited)
    return {'version': '1', 'env_version': 1,
            'parallel_read_safe': True, 'parallel_write_safe': True}
