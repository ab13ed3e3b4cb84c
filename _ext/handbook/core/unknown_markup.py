"""The role or directive a misspelt one means: docutils' "Unknown
interpreted text role" and "Unknown directive type" say no fix.

note ``handbook.unknown-markup`` (information with a mechanical fix) -- at
the line of docutils' error (which stays: the text is shown as markup, or
the directive's content is lost, broken for readers), the one role or
directive the name misspells, where one is close enough to accept blindly
(``:stirke:`` is ``:strike:``, ``.. attension::`` is ``.. attention::``):
at most two edits, and no other candidate as close.  Only names that exist
where the page is read are offered (docutils', Sphinx's, the toolchain's,
the page's own declarations), so the fix, applied, is a role or directive
that works.  An editor's round trip found both slips without a fix.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from docutils import nodes
from docutils.parsers.rst import directives, languages, roles
from sphinx.transforms import SphinxTransform

from handbook.core import reports

if TYPE_CHECKING:
    from sphinx.application import Sphinx

#: the names editors write, each offered only where it exists
ROLES = ('strike', 'ruling', 'ref', 'doc', 'numref', 'term', 'abbr', 'sup', 'sub',
         'superscript', 'subscript', 'emphasis', 'strong', 'literal', 'code', 'math', 'kbd',
         'download', 'any', 'guilabel', 'menuselection', 'file', 'samp', 'title-reference')
DIRECTIVES = ('attention', 'caution', 'danger', 'error', 'hint', 'important', 'note', 'tip',
              'warning', 'admonition', 'seealso', 'toctree', 'image', 'figure', 'code-block',
              'include', 'role', 'contents', 'topic', 'sidebar', 'rubric', 'only',
              'versionadded', 'versionchanged', 'deprecated', 'list-table', 'csv-table',
              'table', 'literalinclude', 'glossary', 'highlight', 'epigraph', 'container',
              'line-block', 'parsed-literal', 'math', 'default-role')
#: docutils' errors for an unknown role and an unknown directive
_UNKNOWN = re.compile(r'Unknown (?P<kind>interpreted text role|directive type) "(?P<name>[^"]+)"\.')
#: at most this many edits from the name written
_EDITS = 2


class UnknownMarkup(SphinxTransform):
    """The note with the role or directive a misspelt name means."""

    # after the page is read, before Sphinx filters its system messages (docutils'
    # errors stay)
    default_priority = 840

    def apply(self, **kwargs: Any) -> None:
        language = languages.get_language(self.document.settings.language_code,
                                          self.document.reporter)
        told: set[tuple[str, int]] = set()
        for message in self.document.findall(nodes.system_message):
            if message.get('level', 0) < 3 or not message.children:
                continue
            found = _UNKNOWN.match(message[0].astext())
            if found is None:
                continue
            role = found['kind'].startswith('interpreted')
            name, line = found['name'], message.get('line') or 0
            if (name, line) in told:
                continue
            told.add((name, line))
            meant = self.meant(name.lower(), role, language)
            if meant is None:
                continue
            fix = f':{meant}:`…`' if role else f'.. {meant}::'
            what = f':{name}:' if role else f'.. {name}::'
            kind = 'role' if role else 'directive'
            reports.note(f"{what} is no {kind} (docutils' error at this line): write {fix}, "
                         f'the {kind} it misspells',
                         location=f'{message.get("source") or self.document.get("source")}:'
                                  f'{line}', subtype='unknown-markup', config=self.config)

    def meant(self, name: str, role: bool, language: Any) -> str | None:
        """The one existing name of *role*'s kind within :data:`_EDITS` edits of
        *name*, closer than any other; None where there is none, or two."""
        from rapidfuzz.distance import Levenshtein

        scored = sorted((Levenshtein.distance(name, candidate), candidate)
                        for candidate in (ROLES if role else DIRECTIVES)
                        if candidate != name)
        close = [(d, c) for d, c in scored if d <= _EDITS]
        if not close or (len(close) > 1 and close[1][0] == close[0][0]):
            return None
        candidate = close[0][1]
        if role:
            found, _messages = roles.role(candidate, language, 0, self.document.reporter)
        else:
            found, _messages = directives.directive(candidate, language, self.document)
        return candidate if found is not None else None


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_transform(UnknownMarkup)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
