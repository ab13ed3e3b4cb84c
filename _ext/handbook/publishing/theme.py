"""The theme in the handbook's language, and its markup made accessible -- without editing furo.

**Its texts.**  furo's templates are English: their messages (``{% trans
%}Skip to content{% endtrans %}``, ``_("On this page")``) and a few texts
written without a message (the ``aria-label`` of its three toggles, the
titles of its icons).  Sphinx's own catalog translates some of its messages
(搜索, 索引), not furo's.  The handbook's catalog ``theme``
(``locale/<lang>/LC_MESSAGES/theme.po``: English msgids, one catalog per
language of the site, zh_CN and zh_TW, written by hand) translates all of
them:

* at ``builder-inited`` the builder's templates get the ``theme`` catalog,
  with Sphinx's as its fallback, as their gettext (Jinja's i18n extension:
  the same way Sphinx installs its own);
* the texts furo writes without a message are put through the same catalog
  by a filter, ``handbook_theme_texts``, that the handbook's ``page.html``
  (``templates/theme/page.html``: furo's page, extended) applies to the
  page's body: only where furo writes them, as an ``aria-label`` or an
  icon's ``<title>`` (:data:`THEME_TEXTS`; the toggle of a chapter in the
  navigation, "Toggle navigation of 第1章", :data:`TOGGLE`), each escaped.

The catalog is compiled with the others (:mod:`handbook.translations.catalogs`);
a change to it writes every page again.

**Its markup.**  Sphinx writes the caption of a toctree (the sidebar's
navigation, the contents of the root page) as ``<p class="caption"
role="heading">``, a heading without a level, which assistive technology
cannot place (axe-core: ``aria-required-attr``, critical).  The HTML
translators write it with ``aria-level="2"``: it heads a list of pages, under
the page's title (:func:`visit_title`).
"""

from __future__ import annotations

import functools
import gettext
import html
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from docutils import nodes
from sphinx import addnodes

from handbook.translations.catalogs import compiled_dir

if TYPE_CHECKING:
    from sphinx.application import Sphinx
    from sphinx.config import Config
    from sphinx.writers.html5 import HTML5Translator

#: the catalog of the theme's texts, and the folder of the page template that applies it
DOMAIN = 'theme'
TEMPLATES = Path(__file__).resolve().parents[1] / 'templates' / 'theme'
#: what furo (the pinned version) writes without a message, and where: the
#: ``aria-label`` of its toggles, the ``<title>`` of its icons
THEME_TEXTS = {
    'aria-label': ('Toggle site navigation sidebar', 'Toggle table of contents sidebar',
                   'Toggle Light / Dark / Auto color theme'),
    'title': ('Contents', 'Menu', 'Expand', 'Light mode', 'Dark mode',
              'Auto light/dark, in light mode', 'Auto light/dark, in dark mode'),
}
#: the ``aria-label`` furo writes on the toggle of each entry of the
#: navigation that has pages under it (a chapter's), and its message
TOGGLE = re.compile(r'aria-label="Toggle navigation of ([^"]*)"')
TOGGLE_MESSAGE = 'Toggle navigation of %(title)s'
#: the possessive after furo's author, written in its footer
AUTHOR = ('@pradyunsg</a>\'s', "'s")
#: the icon of a handbook that has none of its own: a page with lines
ICON = Path(__file__).with_name('handbook-icon.svg')
#: the level of a toctree's caption (it heads a list of pages, under the page's title)
CAPTION_LEVEL = '2'


def add_templates(app: Sphinx, config: Config) -> None:
    """The handbook's ``page.html``, after the project's own templates (a
    project's ``page.html`` extends furo's, ``!page.html``, itself); an icon
    where the handbook has none of its own (``html_favicon``): a browser
    asked every page's server for ``/favicon.ico``, a 404 (a reader's round
    trip; an empty ``data:`` icon is a URL the URL policy refuses)."""
    if str(TEMPLATES) not in config.templates_path:
        config.templates_path = [*config.templates_path, str(TEMPLATES)]
    if not config.html_favicon:
        config.html_favicon = str(ICON)


def theme_texts(translations: gettext.NullTranslations, body: str) -> str:
    """*body* with the texts furo writes without a message in the build's language."""
    for text in THEME_TEXTS['aria-label']:
        body = body.replace(f'aria-label="{text}"',
                            f'aria-label="{html.escape(translations.gettext(text))}"')
    body = TOGGLE.sub(lambda m: 'aria-label="{}"'.format(html.escape(
        translations.gettext(TOGGLE_MESSAGE) % {'title': html.unescape(m[1])})), body)
    for text in THEME_TEXTS['title']:
        body = body.replace(f'<title>{text}</title>',
                            f'<title>{html.escape(translations.gettext(text))}</title>')
    written, message = AUTHOR
    return body.replace(written, written.removesuffix(message)
                        + html.escape(translations.gettext(message)))


def install(app: Sphinx) -> None:
    """The builder's templates speak the build's language (``builder-inited``)."""
    templates = getattr(app.builder, 'templates', None)
    environment = getattr(templates, 'environment', None)
    if environment is None:
        return
    translations = gettext.translation(DOMAIN, localedir=str(compiled_dir(app)),
                                       languages=[app.config.language or 'en'], fallback=True)
    translations.add_fallback(app.translator)
    environment.install_gettext_translations(translations)
    environment.filters['handbook_theme_texts'] = functools.partial(theme_texts, translations)


def visit_title(self: HTML5Translator, node: nodes.title) -> None:
    """A toctree's caption is a heading with a level; any other title is
    written as the translator writes it."""
    if isinstance(node.parent, addnodes.compact_paragraph) and node.parent.get('toctree'):
        self.body.append(self.starttag(node, 'p', '', CLASS='caption', ROLE='heading',
                                       **{'aria-level': CAPTION_LEVEL}))
        self.body.append('<span class="caption-text">')
        self.context.append('</span></p>\n')
    else:
        type(self).visit_title(self, node)


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.translations.catalogs')  # compiles the theme's catalog
    app.add_node(nodes.title, override=True, html=(visit_title, None))
    app.connect('config-inited', add_templates)
    app.connect('builder-inited', install)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
