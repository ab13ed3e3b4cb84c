"""The site's public address, and every URL derived from it.

The handbook is published at one address, ``html_baseurl`` (``make html
BASEURL=https://…/``; on Read the Docs its canonical URL).  From it come:

* ``<link rel="canonical">`` on every page (Sphinx itself);
* ``sitemap.xml``, listing every page (sphinx-sitemap), and ``robots.txt``,
  which this extension writes next to it, pointing search engines at it;
* the absolute ``og:url`` of the link previews (sphinxext-opengraph's
  ``ogp_site_url`` is set to ``html_baseurl``);
* the links of the 404 page (sphinx-notfound-page): the host serves that
  page for a missing URL at any depth, so its links are absolute paths,
  ``notfound_urls_prefix``, which is set to the path of ``html_baseurl``.
  The page itself is ``templates/handbook-404.html`` beside this module
  (``notfound_template = 'handbook-404.html'``): a search box, the card
  index and the contents; the folder is added to ``templates_path``.

``html_baseurl`` must be an absolute http(s) URL; a missing final ``/`` is
added (sphinx-sitemap would otherwise glue the page name to the last path
segment).  Anything else stops the build with a configuration error that says
what to set.

Two gaps of those packages are closed here:

* sphinx-sitemap lists only the pages written by the current build (its
  issue #13), so an incremental build would publish a sitemap of the pages
  that changed.  Before it writes the file, the pages of the project that
  this build did not rewrite are added to its list, and the list is sorted,
  so the file is complete and the same for the same pages.  Builders other
  than html and dirhtml (epub) get no sitemap.xml and no robots.txt.
* sphinx-reredirects writes a redirect page for each entry of the
  ``redirects`` table (``'old-name': 'new-name.html'``, the target relative
  to the old page) without looking at either side.  Each entry is checked
  after reading: an old name that is still a page would be overwritten by
  the redirect, and a target that is no page leads nowhere; both are
  warnings ``handbook.redirect`` at the entry's line of ``conf.py`` that
  say what to change.
  Entries with wildcards, and targets that are full URLs, are not checked.
"""

from __future__ import annotations

import posixpath
import queue
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sphinx.errors import ConfigError
from sphinx.util import logging

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment

logger = logging.getLogger(__name__)

#: builders whose output is the published site
SITE_BUILDERS = frozenset({'html', 'dirhtml'})
#: the handbook's templates (the 404 page)
TEMPLATES = Path(__file__).resolve().parents[1] / 'templates'


def derive_urls(app: Sphinx, config: Config) -> None:
    """Check ``html_baseurl`` and set the values that follow from it."""
    base = config.html_baseurl
    parts = urlsplit(base)
    if parts.scheme not in ('http', 'https') or not parts.netloc:
        raise ConfigError(
            f'html_baseurl {base!r} is not the address of the published site; set an '
            f'absolute http(s) URL: make html BASEURL=https://example.org/handbook/ '
            f'(or html_baseurl in conf.py)')
    if not base.endswith('/'):
        base = config.html_baseurl = base + '/'
    config.ogp_site_url = base
    config.notfound_urls_prefix = urlsplit(base).path
    if str(TEMPLATES) not in config.templates_path:
        config.templates_path = [*config.templates_path, str(TEMPLATES)]


def _entry_line(conf_py: Path, old: str) -> str | None:
    """``conf.py:<line>`` of the redirects entry for ``old``, if conf.py has it."""
    try:
        lines = conf_py.read_text(encoding='utf-8').splitlines()
    except OSError:
        return None
    key = re.compile(rf"""^\s*(['"]){re.escape(old)}\1\s*:""")
    for number, line in enumerate(lines, 1):
        if key.match(line):
            return f'{conf_py}:{number}'
    return None  # given with -D or confoverrides


def check_redirects(app: Sphinx, env: BuildEnvironment) -> None:
    """Warn about redirects that would overwrite a page or lead nowhere."""
    conf_py = Path(app.confdir, 'conf.py')
    suffix = app.config.html_file_suffix or '.html'
    for old, target in app.config.redirects.items():
        if any(c in old for c in '*?['):
            continue  # a wildcard: sphinx-reredirects checks that it matches
        location = _entry_line(conf_py, old)
        if old in env.found_docs:
            logger.warning('redirect %r: %r is a page; the redirect would overwrite it. '
                           'Remove the redirect from redirects in conf.py, or the page',
                           old, old, location=location, type='handbook', subtype='redirect')
        parts = urlsplit(target)
        if parts.scheme or parts.netloc:
            continue  # another site
        path = parts.path
        if path.startswith('/'):
            path = path.lstrip('/')
        else:
            path = posixpath.normpath(posixpath.join(posixpath.dirname(old), path))
        if path.endswith('/'):
            path += 'index' + suffix
        docname = path[:-len(suffix)] if path.endswith(suffix) else None
        if docname not in env.found_docs:
            logger.warning('redirect %r -> %r: the target is not a page of the handbook; '
                           "write the new page's name with %r, relative to the old page",
                           old, target, suffix,
                           location=location, type='handbook', subtype='redirect')


def complete_sitemap(app: Sphinx, exception: Exception | None) -> None:
    """Add the pages this build did not rewrite to sphinx-sitemap's list.

    For other builders (epub), empty the list: no sitemap.xml beside an EPUB.
    """
    links = getattr(app, 'sitemap_links', None)  # sphinx-sitemap's (link, lastmod) queue
    if exception or links is None:
        return
    import sphinx_sitemap

    collected: dict[str, str | None] = {}
    while True:
        try:
            link, lastmod = links.get_nowait()
        except queue.Empty:
            break
        collected[link] = lastmod
    if app.builder.name not in SITE_BUILDERS:
        return
    for docname in app.env.found_docs:
        link = app.builder.get_target_uri(docname)
        if link not in collected and not sphinx_sitemap.is_excluded(
                link, app.config.sitemap_excludes):
            collected[link] = None
    for link in sorted(collected):
        links.put((link, collected[link]))


def write_robots_txt(app: Sphinx, exception: Exception | None) -> None:
    if exception or app.builder.name not in SITE_BUILDERS:
        return
    sitemap = app.config.html_baseurl + app.config.sitemap_filename
    Path(app.outdir, 'robots.txt').write_text(
        f'User-agent: *\nAllow: /\n\nSitemap: {sitemap}\n', encoding='utf-8')


def setup(app: Sphinx) -> dict[str, Any]:
    for extension in ('sphinx_sitemap', 'sphinxext.opengraph', 'notfound.extension',
                      'sphinx_reredirects'):
        app.setup_extension(extension)
    app.connect('config-inited', derive_urls)
    app.connect('env-check-consistency', check_redirects)
    app.connect('build-finished', complete_sitemap, priority=400)  # before sphinx-sitemap's
    app.connect('build-finished', write_robots_txt)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
