"""Readers' tools: a ruling's permalink and copy button, a card's page -- made when a reader needs them.

A page of the handbook is mostly rulings and card names: a yearly FAQ page
holds thousands of each.  What a reader does with one of them -- link to a
ruling, copy its address, open a card's page -- is not written into the page
once per ruling and per card name (a second link after every card name, a
¶ and a button after every ruling: twice the markup of the page's text, and
two Tab stops per card name).  The page holds the rulings' ids and the card
links only; ``reader_tools.js`` (served as ``_static/reader_tools.js``)
makes one small toolbar when a reader points at, taps or tabs into a ruling,
and puts it at the end of that ruling:

* ¶, a link to the ruling (``#ruling-…``: its permalink, see
  :mod:`handbook.rulings.lines`);
* a copy button (``aria-label`` 复制此裁定的链接): it copies the address
  the reader is on, with ``#`` and the ruling's id percent-encoded, so that a
  chat app keeps the link whole (``navigator.clipboard``, else a selected
  text copied with ``execCommand``, else a prompt showing the address), and
  a polite live region says 已复制此裁定的链接;
* a § link to the card page of each card the ruling names, labelled with the
  card's name as written (``aria-label`` 卡片页面：卡名; 卡片索引：卡名 where
  it leads to the card index).

Outside rulings, a block of text that names cards (a paragraph, a list item,
a line, a heading, an entry of the card index) gets the § links of its
cards the same way.  A card name costs one Tab stop, its link to the card
database; the toolbar follows the focus into a ruling and comes after its
links in the Tab order; Escape closes it.  Every item of the toolbar is a
target of at least 24 × 24 px (``_static/handbook.css``).

Where a card's page is: ``cards/<id>.html`` where the build writes card
pages (:mod:`handbook.listings.card_pages`), else the card's entry of the
card index; none without either: each says so when asked (the event
``handbook-card-page``).  The script's
tag says which (``data-card-page``, relative to the site's root); a card
link says its id where the browser cannot find it from the name as written
(``data-card``, :func:`handbook.listings.card_index.card_attributes`).
This module imports no listing: the listings load it.

Every HTML page loads the script (deferred; the EPUB gets none); its texts
are messages of the ``handbook`` catalog.  The extensions that show rulings
and card names to readers load this extension: the card concern
(``handbook.cards``), the editions, the card index, the card pages and
``handbook.publishing``.  The rulings' own modules do not (they import
nothing of publishing): ``handbook.rulings`` alone, or
``handbook.rulings.lines`` without any of those, builds pages without it.

**The styles.**  What the extensions write -- the toolbar, the badges and
sources of rulings, struck text, card links, the listings -- is styled by
the project's ``_static/handbook.css``.  This extension copies it into
``_static/`` and links it from every page (where ``conf.py`` puts its
``html_css_files``), for the project and for a handbook built with a
``conf.py`` of its own, whatever its theme; a ``conf.py`` that links a
``handbook.css`` itself keeps its own.  Without it a ruling's badges run
into its text (``调整中。已推翻``) and the toolbar's targets are no larger
than their characters.  The script builds its elements
with ``textContent`` and ``setAttribute``: no text becomes HTML.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sphinx.locale import get_translation

from handbook.core.files import copy_script_to_static, write_if_changed
from handbook.core.names import SEPARATOR_CLASS
from handbook.store import store

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx

_ = get_translation('handbook')
#: the script, copied into the HTML's _static/ under its own name
SCRIPT = Path(__file__).with_suffix('.js')
#: the styles of what the extensions write (see the module docstring)
STYLES = Path(__file__).resolve().parents[3] / '_static' / 'handbook.css'
#: the event that asks where this build leads a card's §: ``(app)`` -> ``(page,
#: label)``, the page relative to the site's root with ``{}`` for the card's id,
#: the link's label with ``{name}`` for its name; or None.  The card pages
#: answer first (:mod:`handbook.listings.card_pages`), then the card index
#: (:mod:`handbook.listings.card_index`, priority 600)
CARD_PAGE = 'handbook-card-page'


def card_page_template(app: Sphinx) -> tuple[str, str]:
    """Where a card's page is, relative to the site's root, ``{}`` standing
    for the card's id, and the § link's label, ``{name}`` standing for the
    name: its card page (卡片页面：卡名), else its entry of the card index
    (卡片索引：卡名), else nowhere ('', '': no §), as the listings loaded
    say (:data:`CARD_PAGE`).  Computed once per build."""
    return store(app.env).derived('reader_tools_card_page',
                                  lambda: app.emit_firstresult(CARD_PAGE) or ('', ''))


def add_script(app: Sphinx, pagename: str, templatename: str, context: dict[str, Any],
               doctree: nodes.document | None) -> None:
    """Every HTML page loads the script, with its texts (``html-page-context``)."""
    if app.builder.format != 'html' or getattr(app.builder, 'embedded', False):
        return
    card_page, card_label = card_page_template(app)
    app.add_js_file(SCRIPT.name, priority=500, defer='defer', **{
        'data-card-page': card_page,
        'data-card-label': card_label.replace('{name}', '{}'),
        'data-separators': SEPARATOR_CLASS,
        'data-permalink': str(_('链接到此裁定')),
        'data-copy': str(_('复制此裁定的链接')),
        'data-copied': str(_('已复制此裁定的链接')),
        'data-failed': str(_('无法自动复制，请复制这个链接：')),
    })


def copy_script(app: Sphinx) -> None:
    """Copy the script into ``_static/`` (``builder-inited``)."""
    copy_script_to_static(app.builder, SCRIPT)


def add_styles(app: Sphinx) -> None:
    """The styles, unless ``conf.py`` links a ``handbook.css`` itself
    (``builder-inited``; see the module docstring)."""
    if app.builder.format != 'html' or not STYLES.is_file():
        return
    linked = {(css[0] if isinstance(css, (tuple, list)) else str(css)).partition('?')[0]
              for css in app.config.html_css_files}
    if STYLES.name in linked:
        return
    write_if_changed(Path(app.builder.outdir) / '_static' / STYLES.name, STYLES.read_bytes())
    app.add_css_file(STYLES.name, priority=800)  # where conf.py's html_css_files go


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_event(CARD_PAGE)
    app.connect('builder-inited', copy_script)
    app.connect('builder-inited', add_styles)
    app.connect('html-page-context', add_script)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
