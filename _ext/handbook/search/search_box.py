"""Search box: every page's sidebar box answers as the reader types.

The theme's search box (furo's ``input.sidebar-search``) sends the query to
the search page on Enter, as before.  As the reader types, a list opens
under it: a link to the page of each card the query names
(``cards/<id>.html``), the first rulings that match (their text, the
matches highlighted, ``页面 › 小节`` and the dates), and last the number of
rulings found, which opens the search page.  The same search as the search
page's (:mod:`handbook.search.rulings_index`): the same folding, spellings
and dates, the same shards.

**Keyboard and screen readers.**  The box is a combobox (WAI-ARIA's
pattern, list autocomplete): ``role="combobox"``, ``aria-expanded``,
``aria-controls`` naming the ``role="listbox"`` list, whose items are
``role="option"``; the option moved to is the box's
``aria-activedescendant`` (``aria-selected="true"``), so the focus stays in
the box.  Arrow down and up move through the options (and back to the
box), Enter opens the option moved to, or, with none, the search page with
the query (the box's form, as without the list); Escape closes the list.  A
status (``role="status"``) says how many rulings were found.  Without
JavaScript the box is the theme's, unchanged.

**What a page loads.**  Only a small script (``_static/handbook-search-box.js``,
deferred).  When the box first gets the focus, it loads the search script
and the index's manifest; what a query needs then (a few shards and
chunks) is loaded as the reader types.  A page that no reader searches from
loads no index at all.

Configuration: none.
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from handbook.search import rulings_index

if TYPE_CHECKING:
    from sphinx.application import Sphinx

SCRIPT = Path(__file__).with_suffix('.js')
#: its name in the HTML folder's _static/
STATIC_NAME = 'handbook-search-box.js'


def add_script(app: Sphinx) -> None:
    """Every page loads the box's script, with the version of the search script
    to load (``builder-inited``)."""
    if rulings_index.searchable(app.builder):
        engine = rulings_index.script_text().encode('utf-8')
        app.add_js_file(STATIC_NAME, priority=700, defer='defer',
                        **{'data-version': f'{zlib.crc32(engine):08x}'})


def write_script(app: Sphinx, env: Any) -> list[str]:
    """The box's script, into ``_static/`` when it differs (``env-updated``:
    in the build, before the pages that name it with its checksum)."""
    if rulings_index.searchable(app.builder):
        rulings_index.write_text(Path(app.builder.outdir) / '_static' / STATIC_NAME,
                                 SCRIPT.read_text(encoding='utf-8'))
    return []


def setup(app: Sphinx) -> dict[str, Any]:
    app.setup_extension('handbook.search.rulings_index')
    app.connect('builder-inited', add_script)
    app.connect('env-updated', write_script)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
