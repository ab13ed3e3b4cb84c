"""Roles a page declares itself: the toolchain's stay the toolchain's.

Existing handbooks declare on each page the roles their plain Sphinx build
needs, most often::

    .. role:: strike
        :class: strike

docutils' ``role`` directive would register the page's role in place of the
toolchain's ``strike`` (:mod:`handbook.rulings.strike`) -- for that page and
for every page read after it in the same process -- and with it go the card
names linked inside struck text, the overturned rulings and the struck
rulings' statuses.  This extension's ``role`` directive keeps a role that a
handbook extension provides (``strike``, ``ruling``, …) as it is, so a page
that redeclares it behaves as one that does not: nothing to change in the
handbook, and nothing to report (the declaration is what plain Sphinx
needs).

A role declared under another name with the class ``strike`` and no base
role (``.. role:: del`` / ``:class: strike``: struck text as the theme
shows it) is the toolchain's ``strike`` under that name: its text is struck
rulings, its 「卡名」 linked, as under ``:strike:``.  Every other
declaration is docutils' own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docutils.parsers.rst import roles
from docutils.parsers.rst.directives.misc import Role

if TYPE_CHECKING:
    from docutils import nodes
    from sphinx.application import Sphinx

#: the modules whose roles a page's declaration does not replace
OURS = 'handbook.'
#: the role (and class) of struck text (handbook.rulings.strike)
STRUCK = 'strike'


class PageRole(Role):
    """``.. role:: name[(base)]``: docutils' directive, except for a role the
    toolchain provides, which is kept."""

    def run(self) -> list[nodes.Node]:
        m = None
        if self.content and self.content_offset <= self.lineno:
            m = self.argument_pattern.match(self.content[0])
            if m and self.provided(m.group(1)):
                return []
        messages = super().run()
        if m and not m.group(3):  # no base role: maybe struck text under another name
            declared, struck = self.looked_up(m.group(1)), self.looked_up(STRUCK)
            if ours(struck) and isinstance(declared, roles.CustomRole) \
                    and declared.supplied_options.get('class') == [STRUCK]:
                roles.register_local_role(m.group(1), struck)
        return messages

    def looked_up(self, name: str) -> Any:
        role, _messages = roles.role(name, self.state_machine.language, self.lineno,
                                     self.state.reporter)
        return role

    def provided(self, name: str) -> bool:
        """Whether the role *name* is one a handbook extension registered."""
        return ours(self.looked_up(name))


def ours(role: Any) -> bool:
    """Whether *role* is one a handbook extension registered."""
    return role is not None and type(role).__module__.startswith(OURS)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive('role', PageRole, override=True)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
