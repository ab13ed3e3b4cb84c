"""The reStructuredText parser, with each state of a nested parse made when used.

docutils parses the lines of a line block after its first, the items of a
bullet list and a run of explicit markup in a *nested* state machine, a new
one for each block.  A new machine makes one object of each of docutils' 15
states, and each of those objects makes its transitions (its patterns and
their bound methods), while the block itself needs one or two of those
states.  A handbook is mostly line blocks, one ruling a line: thousands of
such machines, which plain Sphinx makes too.

Here a nested machine makes a state when the parse first asks for it
(:class:`States`).  What is parsed does not change: the same states, made
the same way, run in the same order; a state made after the machine
started is initialised as the machine would have done at its start.  The
states are docutils' own, subclassed only so that their nested parses use
such a machine too (:data:`STATE_CLASSES`), and :class:`Parser` is Sphinx's
reStructuredText parser with those states, registered for ``.rst`` with
Sphinx's :meth:`~sphinx.application.Sphinx.add_source_parser`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docutils.parsers.rst import states
from docutils.statemachine import DuplicateStateError
from sphinx.parsers import RSTParser

from handbook.speed.session import enabled

if TYPE_CHECKING:
    from docutils.statemachine import State
    from sphinx.application import Sphinx


class States(dict):
    """A nested machine's states by name, each made when first asked for.

    Holds only the states made so far: the machine initialises, and at its
    end unlinks, just those.
    """

    def __init__(self, machine: NestedStateMachine, state_classes: Any) -> None:
        super().__init__()
        self.machine = machine
        self.classes: dict[str, type[State]] = {}
        for state_class in state_classes:
            name = state_class.__name__
            if name in self.classes:
                raise DuplicateStateError(name)
            self.classes[name] = state_class

    def __missing__(self, name: str) -> State:
        state = self[name] = self.classes[name](self.machine, self.machine.debug)
        if self.machine.running:
            state.runtime_init()  # what the machine's start did to the states it had
        return state


class NestedStateMachine(states.NestedStateMachine):
    """docutils' nested state machine, making its states as the parse asks for them."""

    running = False

    def __init__(self, state_classes: Any, initial_state: str, debug: bool = False,
                 parent_state_machine: Any = None) -> None:
        super().__init__((), initial_state, debug, parent_state_machine)
        self.states = States(self, state_classes)

    def runtime_init(self) -> None:
        super().runtime_init()
        self.running = True


class Nesting:
    """Mixed into each of docutils' states: nested parses in :class:`NestedStateMachine`."""

    nested_sm = NestedStateMachine

    def __init__(self, state_machine: Any, debug: bool = False) -> None:
        super().__init__(state_machine, debug)  # type: ignore[call-arg]
        self.nested_sm_kwargs = {'state_classes': STATE_CLASSES, 'initial_state': 'Body'}


#: docutils' states (``docutils.parsers.rst.states.state_classes``), each
#: under its own name, nesting in :class:`NestedStateMachine`.
STATE_CLASSES = tuple(type(state_class.__name__, (Nesting, state_class), {'__module__': __name__})
                      for state_class in states.state_classes)


class Parser(RSTParser):
    """Sphinx's reStructuredText parser, with :data:`STATE_CLASSES`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.state_classes = STATE_CLASSES


def use_parser(app: Sphinx, config: Any) -> None:
    """The parser for ``.rst``, where the part ``parser`` is on."""
    if enabled(app, 'parser'):
        app.add_source_parser(Parser, override=True)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect('config-inited', use_parser)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}
