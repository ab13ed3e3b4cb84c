"""The site's public address, and every URL derived from it.

The handbook is published at one address, ``html_baseurl``: ``make html
BASEURL=https://…/`` (the GitHub Pages workflow passes the Pages URL), on
Read the Docs its canonical URL (``READTHEDOCS_CANONICAL_URL``, which
``conf.py`` reads).  From it come:

* ``<link rel="canonical">`` on every page (Sphinx itself);
* ``sitemap.xml``, listing every page of the handbook (every document and
  every card page, in order of its URL, whether or not this build rewrote
  it), and
  ``robots.txt`` pointing search engines at it, both written by this
  extension for the html and dirhtml builders (not beside an EPUB), and
  only when their content changed (:func:`handbook.core.files.write_if_changed`);
* the absolute ``og:url`` of the link previews (sphinxext-opengraph's
  ``ogp_site_url`` is set to ``html_baseurl``; :mod:`handbook.publishing.link_previews`);
* the Atom feed's ids and links (:mod:`handbook.listings.recent`);
* the links of the 404 page (sphinx-notfound-page): the host serves that
  page for a missing URL at any depth, so its links are absolute paths,
  ``notfound_urls_prefix``, which is set to the path of ``html_baseurl``.
  The page itself is ``templates/handbook-404.html`` beside this module
  (``notfound_template = 'handbook-404.html'``): a search box, the card
  index and the contents; the folder is added to ``templates_path``.

``html_baseurl`` is an absolute http(s) URL; a missing final ``/`` is
added.  Anything else stops the build with a configuration error that says
what to set.  Without one (``conf.py``'s default outside Read the Docs: a
site built to be read where it is served, or previewed), nothing pretends to
know the address: no canonical link, no ``og:url``, no sitemap, no
``robots.txt``, no feed; the 404 page's links start at ``/``.  No page holds
an absolute URL of the handbook itself: the copy-link buttons copy the
address the reader is on (``publishing/reader_tools.js``).

The sitemap is written here rather than by sphinx-sitemap, which lists only
the pages written by the current build (its issue #13): an incremental build
would publish a sitemap of the pages that changed, and completing its list
meant refilling that package's private queue.

A gap of sphinx-reredirects is closed here: it writes a redirect page for each entry of the
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
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

from sphinx.errors import ConfigError
from sphinx.locale import get_translation
from sphinx.util import logging

from handbook.core import url_policy
from handbook.core.files import write_if_changed
from handbook.listings import card_index, card_pages
from handbook.render import split_pages

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.environment import BuildEnvironment

logger = logging.getLogger(__name__)
_ = get_translation('handbook')

#: builders whose output is the published site
SITE_BUILDERS = frozenset({'html', 'dirhtml'})
#: the sitemap's file name, beside the pages
SITEMAP = 'sitemap.xml'
#: the handbook's templates (the 404 page)
TEMPLATES = Path(__file__).resolve().parents[1] / 'templates'


def derive_urls(app: Sphinx, config: Config) -> None:
    """Check ``html_baseurl`` and set the values that follow from it."""
    base = config.html_baseurl
    # the feed's, the sitemap's and the canonical addresses start with it (none: left out)
    if base:
        if url_policy.absolute_problem(base) is not None:
            raise ConfigError(
                f'html_baseurl {base!r} is not the address of the published site; set an '
                f'absolute http(s) URL: make html BASEURL=https://example.org/handbook/ '
                f'(or html_baseurl in conf.py), or none')
        if not base.endswith('/'):
            base = config.html_baseurl = base + '/'
    config.ogp_site_url = base
    config.notfound_urls_prefix = urlsplit(base).path if base else '/'
    if str(TEMPLATES) not in config.templates_path:
        config.templates_path = [*config.templates_path, str(TEMPLATES)]


def root_of_the_404_page(app: Sphinx, pagename: str, templatename: str,
                         context: dict[str, Any], doctree: Any) -> None:
    """The 404 page is served at any depth of a missing URL: its links start
    at ``notfound_urls_prefix``, and so does the root its scripts load the
    search index and the readers' tools from (``data-content_root``; ``./``
    made the search box load ``/cards/_static/…`` at ``/cards/old.html``).
    It offers the card index where the handbook has one."""
    if pagename == app.config.notfound_pagename:
        context['content_root'] = app.config.notfound_urls_prefix
        # the card index it offers, where the handbook has one (a handbook without
        # one was offered a link to a page it does not have)
        context['handbook_card_index'] = index = (
            card_index.index_page(app.env) if 'handbook.listings.card_index' in app.extensions
            else None)
        # its texts, in the build's language (the template wrote them in Simplified)
        texts = {'title': _('找不到页面'), 'search': _('搜索'), 'placeholder': _('搜索卡名或规则'),
                 'card_index': _('卡片索引'), 'contents': _('目录'),
                 'body': _('这个地址没有页面，它也许改名或移动了。可以搜索本手册，或者从卡片索引、目录找起。')
                 if index else _('这个地址没有页面，它也许改名或移动了。可以搜索本手册，或者从目录找起。')}
        context['handbook_404'] = {key: str(text) for key, text in texts.items()}


def published(config: Config) -> str:
    """The site's address, ``html_baseurl`` (ends in ``/``), or '' where the
    build was given none."""
    return config.html_baseurl or ''


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


#: how the files this module writes begin: a build without the site's
#: address removes those an earlier build with one left (:func:`remove_stale`)
SITEMAP_START = '<?xml version="1.0" encoding="utf-8"?>\n<urlset '
ROBOTS_START = 'User-agent: *\nAllow: /\n\nSitemap: '


def remove_stale(path: Path, start: str) -> None:
    """Remove *path* if an earlier build of this module wrote it (it begins
    with *start*): it names an address this build was not given."""
    try:
        with path.open(encoding='utf-8') as file:
            ours = file.read(len(start)) == start
    except (OSError, UnicodeDecodeError):
        return
    if ours:
        path.unlink(missing_ok=True)


def write_sitemap(app: Sphinx, exception: Exception | None) -> None:
    """``sitemap.xml``: the URL of every page of the handbook."""
    if exception or app.builder.name not in SITE_BUILDERS:
        return
    base = published(app.config)
    if not base:
        remove_stale(Path(app.outdir, SITEMAP), SITEMAP_START)
        return
    pages = [*app.env.found_docs, *generated_pages(app.env)]
    urls = sorted(base + app.builder.get_target_uri(page) for page in pages)  # quoted
    lines = ['<?xml version="1.0" encoding="utf-8"?>',
             '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
             *(f'  <url><loc>{escape(url)}</loc></url>' for url in urls),
             '</urlset>', '']
    write_if_changed(Path(app.outdir, SITEMAP), '\n'.join(lines))


def generated_pages(env: BuildEnvironment) -> list[str]:
    """The pages written from the store rather than from a source: the card
    pages and their parts (:mod:`handbook.listings.card_pages`), the pages of
    the timeline's years and of the card index's initials
    (:mod:`handbook.render.split_pages`)."""
    if 'handbook' not in env.domains:
        return []
    return [*card_pages.names(env), *split_pages.names(env)]


def write_robots_txt(app: Sphinx, exception: Exception | None) -> None:
    """``robots.txt``: where the sitemap is (none without the site's address)."""
    if exception or app.builder.name not in SITE_BUILDERS:
        return
    base = published(app.config)
    if not base:
        remove_stale(Path(app.outdir, 'robots.txt'), ROBOTS_START)
        return
    write_if_changed(Path(app.outdir, 'robots.txt'), f'{ROBOTS_START}{base}{SITEMAP}\n')


def setup(app: Sphinx) -> dict[str, Any]:
    # sphinxext-opengraph through link_previews, which imports it without its notice
    for extension in ('handbook.publishing.link_previews', 'notfound.extension',
                      'sphinx_reredirects'):
        app.setup_extension(extension)
    app.connect('config-inited', derive_urls)
    app.connect('html-page-context', root_of_the_404_page)
    app.connect('env-check-consistency', check_redirects)
    app.connect('build-finished', write_sitemap)
    app.connect('build-finished', write_robots_txt)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
