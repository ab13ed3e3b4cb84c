"""A file of the site is written only when its content changes.

Sphinx's html builder ends every build, even one with nothing out of date,
by writing again what does not come from one page: the static files
rendered from templates (``_static/basic.css``, ``documentation_options.js``,
``language_data.js``), ``pygments.css`` (twice: Sphinx's, then the
theme's), the pages of the index, of the search and of extensions
(``genindex.html``, ``search.html``, ``404.html``), the search index,
``objects.inv`` and ``.buildinfo``.  Their bytes are the same, but their
modification times are new, and whatever watches or uploads the folder by
date (a sync to the web host, a cache, ``make preview``'s browser reload)
sees a dozen changed files after a build that changed nothing.

The builder of this module is Sphinx's, with one difference: it compares
each of those files with the one already in the output folder and leaves it
alone when the bytes are equal.  ``make html`` twice in a row writes nothing
the second time, and an edit writes the files whose content changed, no
others:

* a page is rendered into a hidden temporary file beside its target
  (``.<name>.<pid>.tmp``) and moved over the target (one atomic rename: a
  reader never sees half a page) only when it differs; otherwise it is
  removed.  Pages of extensions rendered through the builder (the 404
  page, the card pages' frame) go the same way;
* the static files of the theme and of ``html_static_path`` are first
  copied and rendered into a temporary folder, exactly as Sphinx does
  (its log line "Writing evaluated template result to …" names that
  folder), then copied into ``_static`` with Sphinx's own ``copyfile``,
  which leaves an identical file alone;
* ``pygments.css`` is compared as text.  The theme, furo, writes its own
  over Sphinx's at the end of every build (a ``build-finished`` handler:
  Sphinx's "can't possibly respect the needs of this theme").  That
  handler is disconnected (``THEME_STYLESHEETS``), and the builder writes
  furo's stylesheet (furo's ``get_pygments_stylesheet()``) in place of
  Sphinx's.  So the pages' ``pygments.css?v=…`` is now the checksum of the
  file served, furo's: it used to be that of Sphinx's, overwritten after
  the pages were written, and a change of furo's styles did not change it;
* the search index, ``objects.inv`` and ``.buildinfo`` are written into a
  temporary file each and moved into place when they differ.  A page
  written again although neither it nor any other page was read again (a
  registry edit that moved card links) keeps its entries of the search
  index instead of being indexed again (:meth:`UnchangedFilesBuilder.load_indexer`).

Files that Sphinx copies from the sources (images, downloads,
``html_extra_path``) were already copied only when they differ.  Still
written at every build: the redirect pages of sphinx-reredirects
(``redirects`` in ``conf.py``; the handbook has none), which that extension
writes itself.

Sphinx decides that a page must be written again by dates: when its source
or the newest template is newer than the page.  A page whose source was
saved without a change to its HTML (a file touched, in a tree without page
dates) is therefore not rewritten but gets a new modification time (and so
does ``.buildinfo`` after a template changed without an effect), else
Sphinx would find it out of date, and render it again, at every later build.

:func:`handbook.core.files.write_if_changed` is the same rule for the files
extensions write themselves (``sitemap.xml`` and ``robots.txt``:
:mod:`handbook.publishing.site_urls`; ``rulings.json``).

The builder replaces Sphinx's ``html`` builder (``app.add_builder(…,
override=True)``); ``dirhtml``, ``singlehtml`` and ``epub`` are Sphinx's
own.  Four of its methods (the theme's static files, those of
``html_static_path``, ``pygments.css``, the search index) repeat Sphinx
9.0's with another destination; ``tests/test_unchanged_files.py`` fails if
an upgrade of Sphinx or furo brings back a write.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.builders.html import INVENTORY_FILENAME
from sphinx.locale import __
from sphinx.util import logging
from sphinx.util.display import progress_message
from sphinx.util.fileutil import copy_asset
from sphinx.util.inventory import InventoryFile
from sphinx.util.matching import DOTFILES, Matcher
from sphinx.util.osutil import copyfile

from handbook.core.files import write_if_changed
from handbook.core.writing_order import OrderedHTMLBuilder
from handbook.store import changes

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Set

    from docutils import nodes
    from sphinx.application import Sphinx

logger = logging.getLogger(__name__)

#: where the static files go, in the output folder
STATIC = '_static'
#: themes that overwrite ``_static/pygments.css`` at every ``build-finished``:
#: (module, name of that handler, function giving the theme's stylesheet)
THEME_STYLESHEETS = (('furo', '_overwrite_pygments_css', 'get_pygments_stylesheet'),)


def _same_bytes(a: Path, b: Path) -> bool:
    try:
        return a.stat().st_size == b.stat().st_size and a.read_bytes() == b.read_bytes()
    except OSError:
        return False


@contextlib.contextmanager
def staged(target: Path, *, fresh_after: Callable[[], int] | None = None) -> Iterator[Path]:
    """A temporary file beside *target* to write instead of it.  When the
    block ends, the file replaces *target* if their bytes differ and is
    removed otherwise (also when nothing was written to it, or on an error).

    *fresh_after* gives the time (ns) the unchanged *target* must not be
    older than, in Sphinx's view (its source's, its templates'); when it is,
    only its modification time is set to now."""
    temporary = target.with_name(f'.{target.name}.{os.getpid()}.tmp')
    try:
        yield temporary
        if not temporary.exists():
            return  # nothing was written: neither is the target
        if not _same_bytes(temporary, target):
            os.replace(temporary, target)
        elif fresh_after is not None and target.stat().st_mtime_ns < fresh_after():
            os.utime(target)
    finally:
        temporary.unlink(missing_ok=True)


def _mtime_ns(path: str | os.PathLike[str]) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


class UnchangedFilesBuilder(OrderedHTMLBuilder):
    """Sphinx's html builder, which writes a file only when its bytes change
    (and writes in the order of :mod:`handbook.core.writing_order`)."""

    #: pages written again whose search-index entries are the last build's
    index_kept: frozenset[str] = frozenset()
    #: the pages Sphinx found out of date in this build (None: it did not
    #: look, as with ``-a``, which writes every page)
    outdated: set[str] | None = None

    #: when the newest template was changed (ns), once per build
    newest_template_ns: int | None = None

    def init(self) -> None:
        super().init()  # loads the theme, which connects its handlers
        self.theme_stylesheet = self._take_over_theme_stylesheet()

    def _take_over_theme_stylesheet(self) -> Callable[[], str] | None:
        """The function giving the theme's ``pygments.css``, if the theme
        writes it at every build: its handler is disconnected, and
        :meth:`create_pygments_style_file` writes the theme's stylesheet."""
        for listener in list(self.events.listeners.get('build-finished', ())):
            handler = listener.handler
            found = (getattr(handler, '__module__', None), getattr(handler, '__name__', None))
            for module, name, function in THEME_STYLESHEETS:
                stylesheet = (getattr(importlib.import_module(module), function, None)
                              if found == (module, name) else None)
                if stylesheet is not None:
                    self.events.disconnect(listener.id)
                    return stylesheet
        return None

    def prepare_writing(self, docnames: Set[str]) -> None:
        super().prepare_writing(docnames)
        self.newest_template_ns = None  # found again when first needed

    def _templates_mtime_ns(self) -> int:
        """When the newest template was changed (Sphinx compares it with each page's date)."""
        if self.newest_template_ns is None:
            newest = self.templates.newest_template_mtime() if self.templates else 0
            self.newest_template_ns = int(newest * 10**9)
        return self.newest_template_ns

    def _page_fresh_after(self, pagename: str) -> int:
        return max(_mtime_ns(self.env.doc2path(pagename)), self._templates_mtime_ns())

    # -- pages ------------------------------------------------------------------------

    def handle_page(self, pagename: str, addctx: dict[str, Any],
                    templatename: str = 'page.html', *, outfilename: Path | None = None,
                    event_arg: Any = None) -> None:
        target = Path(outfilename) if outfilename else self.get_output_path(pagename)
        # a page of the sources must not be older than its source (get_outdated_docs)
        fresh_after = (None if outfilename or pagename not in self.env.all_docs
                       else lambda: self._page_fresh_after(pagename))
        with staged(target, fresh_after=fresh_after) as temporary:
            super().handle_page(pagename, addctx, templatename,
                                outfilename=temporary, event_arg=event_arg)

    # -- static files -----------------------------------------------------------------

    def create_pygments_style_file(self) -> None:
        static = Path(self.outdir, STATIC)
        stylesheet = self.theme_stylesheet or self.highlighter.get_stylesheet
        write_if_changed(static / 'pygments.css', stylesheet())
        if self.dark_highlighter:
            write_if_changed(static / 'pygments_dark.css',
                             self.dark_highlighter.get_stylesheet())

    def copy_theme_static_files(self, context: dict[str, Any]) -> None:
        def onerror(filename: str, error: Exception) -> None:
            logger.warning(__("Failed to copy a file in the theme's 'static' directory: "
                              '%s: %r'), filename, error)

        if self.theme:
            with self._staged_static() as staging:
                for entry in reversed(self.theme.get_theme_dirs()):  # the base theme first
                    copy_asset(Path(entry, 'static'), staging, excluded=DOTFILES,
                               context=context, renderer=self.templates, onerror=onerror,
                               force=True)

    def copy_html_static_files(self, context: dict[str, Any]) -> None:
        def onerror(filename: str, error: Exception) -> None:
            logger.warning(__('Failed to copy a file in html_static_file: %s: %r'),
                           filename, error)

        excluded = Matcher([*self.config.exclude_patterns, '**/.*'])
        with self._staged_static() as staging:
            for entry in self.config.html_static_path:
                copy_asset(self.confdir / entry, staging, excluded=excluded, context=context,
                           renderer=self.templates, onerror=onerror, force=True)

    @contextlib.contextmanager
    def _staged_static(self) -> Iterator[Path]:
        """A temporary folder to copy static files into; then each file is
        copied into ``_static`` unless the same file is there."""
        static = Path(self.outdir, STATIC)
        with tempfile.TemporaryDirectory(prefix='handbook-static-') as folder:
            staging = Path(folder)
            yield staging
            for path in sorted(staging.rglob('*')):
                if path.is_file():
                    target = static / path.relative_to(staging)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    copyfile(path, target, force=True)  # a no-op when the bytes are equal

    # -- search index, inventory, build info ------------------------------------------

    def get_outdated_docs(self) -> Iterator[str]:
        self.outdated = set()  # what Sphinx finds out of date, kept for load_indexer
        for docname in super().get_outdated_docs():
            self.outdated.add(docname)
            yield docname

    def load_indexer(self, docnames: Set[str]) -> None:
        """The last build's search index, without the pages to write again;
        but when this build read no page again, added none and removed none,
        the pages it writes although Sphinx found them up to date (a registry
        edit that moved card links, :func:`handbook.cards.links.pages_relinked`,
        and the pages whose toctree lists them) keep their entries rather than
        being indexed again: their doctrees, every title and every section
        are the last build's, and so are their words.  Pages Sphinx found out
        of date (a changed source, template or build setting, such as
        ``html_search_options``) are indexed again, and so is every page
        when Sphinx did not look (``-a``).  jieba cuts the index,
        half a second for its dictionary and a second for a yearly FAQ page:
        the most of a registry edit that moved a link."""
        index = Path(self.outdir, self.searchindex_filename)
        unread = 'handbook' in self.env.domains and not changes(self.env).pages
        if unread and self.outdated is not None and index.is_file():
            self.index_kept = frozenset(set(docnames) - self.outdated)
        else:
            self.index_kept = frozenset()
        self.outdated = None
        super().load_indexer(set(docnames) - self.index_kept)

    def index_page(self, pagename: str, doctree: nodes.document, title: str) -> None:
        if pagename not in self.index_kept:
            super().index_page(pagename, doctree, title)

    def dump_search_index(self) -> None:
        if self.indexer is None:
            return
        with progress_message(__('dumping search index in %s') % self.indexer.label()):
            self.indexer.prune(self.env.all_docs)
            with staged(Path(self.outdir, self.searchindex_filename)) as temporary:
                if self.indexer_dumps_unicode:
                    with open(temporary, 'w', encoding='utf-8') as text:
                        self.indexer.dump(text, self.indexer_format)
                else:
                    with open(temporary, 'wb') as binary:
                        self.indexer.dump(binary, self.indexer_format)

    @progress_message(__('dumping object inventory'))
    def dump_inventory(self) -> None:
        with staged(Path(self.outdir, INVENTORY_FILENAME)) as temporary:
            InventoryFile.dump(temporary, self.env, self)

    def write_buildinfo(self) -> None:
        # not older than the templates: Sphinx would say they changed since
        try:
            with staged(Path(self.outdir, '.buildinfo'),
                        fresh_after=self._templates_mtime_ns) as temporary:
                self.build_info.dump(temporary)
        except OSError as exc:
            logger.warning(__('Failed to write build info file: %r'), exc)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.core.writing_order')  # its events
    app.add_builder(UnchangedFilesBuilder, override=True)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
