"""The handbook's Sphinx extensions, one package per concern.

``conf.py`` loads each concern by one name:

=========================  ==================================================
``handbook.cards``         the card registry, card links (**where a card link
                           is resolved: cards/links.py**), card markup checks
``handbook.rulings``       dated ruling references, what one ruling is and its
                           permalink, struck (overturned) text
``handbook.sections``      section ids, labels, planned sections
``handbook.generated``     pages generated from what pages contribute: the
                           timeline, the card index, related sections,
                           card pages, rulings.json (each ruling rendered
                           once, lists written to HTML at once)
``handbook.search``        the search: card names as words
``handbook.publishing``    editions, the published address, link previews,
                           page dates, linkcheck's policy, files written
                           only when they change
``handbook.translations``  translated builds
=========================  ==================================================

``handbook.store`` is the one store of what each page contributes (cards,
rulings, sections, labels, …), filled from one walk of each page and read by
every concern; ``handbook.core`` holds what every concern shares: the folding
of names, the three severities of reports, the handbook's own settings, the
guard against hostile input, exact source lines, files written only when
they change, and how a build spends its time (the reading order of a
parallel read, the garbage collector's thresholds, a parser whose nested
parses make only the states they use).
Each module's docstring is its manual; each module is also an extension of
its own (the test roots load just the ones they need), but for the helpers
``handbook.generated.html_parts`` and ``handbook.core.files``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def setup_concern(app: Sphinx, *modules: str) -> dict[str, Any]:
    """Load the extension modules of one concern; what its ``setup`` returns."""
    for module in modules:
        app.setup_extension(module)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
