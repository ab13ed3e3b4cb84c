"""The handbook's Sphinx extensions, one package per concern.

``conf.py`` loads each concern by one name:

=========================  ==================================================
``handbook.cards``         the card registry, card links (**where a card link
                           is resolved: cards/links.py**), card markup checks
``handbook.rulings``       dated ruling references, what one ruling is and its
                           permalink, struck (overturned) text, statuses
``handbook.sections``      section ids, labels, planned sections
``handbook.listings``      the pages made from what every page contributes:
                           the timeline, the card index, related sections,
                           card pages, recent rulings and the feed, open
                           questions, rulings.json
``handbook.search``        the search: card names as words; rulings first
``handbook.publishing``    editions, the published address, link previews,
                           page dates, linkcheck's policy
``handbook.translations``  translated builds
=========================  ==================================================

What they share, none of it an extension of its own but the store:

* ``handbook.nodes``: the node types every concern reads (a card link, a
  ruling line, struck text) and their predicates -- a leaf, imported by all;
* ``handbook.store``: the one store of what each page contributes (cards,
  rulings, sections, labels, …), filled from one walk of each page, whose
  node kinds the concerns register (:func:`handbook.store.collect`), and read
  by every concern;
* ``handbook.core``: the folding of names, the three severities of reports,
  the handbook's own settings, the guard against hostile input, exact source
  lines, records, files written only when they change;
* ``handbook.render``: the HTML plumbing of the listings.

And one package apart, ``handbook.speed``: faster HTML builds, opt-in (one
line of ``conf.py``), the only code that tunes or leans on the libraries'
machinery; no other module imports it, and the site is the same without it.

Each module's docstring is its manual; each module with a ``setup`` is also
an extension of its own (the test roots load just the ones they need).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def setup_concern(app: Sphinx, *modules: str) -> dict[str, Any]:
    """Load the extension modules of one concern; what its ``setup`` returns."""
    for module in modules:
        app.setup_extension(module)
    # what every concern's incremental build needs: a page saved while it was read
    app.setup_extension('handbook.core.saved_while_read')
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
