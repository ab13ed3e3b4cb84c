"""Records: the frozen dataclasses the store keeps, pickled in one call each.

The environment pickle holds the store's records (a page's rulings, its
sections, the registry's cards: tens of thousands of them), written after
every build that read a page and read at the start of every build.  A
frozen dataclass with slots pickles through ``__getstate__`` and
``__setstate__`` functions that dataclasses writes in Python, one call per
record each way.  :func:`frozen_record` makes the same dataclass pickle as its
class and its fields' values (``__reduce__``): the pickle is smaller and is
written three times and read one and a half times as fast (the bench
corpus's environment: 8,800 rulings).  Unpickling calls the class, so a
field made in ``__post_init__`` (``init=False``) is made again.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Any, TypeVar

T = TypeVar('T')


def frozen_record(cls: type[T]) -> type[T]:
    """``@dataclasses.dataclass(frozen=True, slots=True)`` that pickles fast."""
    made = dataclasses.dataclass(frozen=True, slots=True)(cls)
    names = [f.name for f in dataclasses.fields(made) if f.init]
    values = operator.attrgetter(*names) if len(names) > 1 else None

    def __reduce__(self: Any) -> tuple[type, tuple]:
        if values is None:
            return type(self), tuple(getattr(self, name) for name in names)
        return type(self), values(self)

    made.__reduce__ = __reduce__
    return made
