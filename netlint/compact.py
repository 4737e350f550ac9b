"""Compact pickling for the slotted classes that make up located models (issue 14: the cache and the
``--jobs`` workers pickle every model a file gives).

The interpreter pickles a slotted object by ``NEWOBJ`` + ``BUILD`` with a ``{slot: value}`` dict of
state per object, and unpickles it by setting each slot from that dict. :func:`compact` gives a class
a reducer that pickles the slot values as one tuple and a constructor, generated once per class, that
sets them back without calling ``__init__`` (as the interpreter's own path does). Measured on the
32-port SONiC leaf of benchmarks/generate_mixed.py (3,170 objects): half the bytes, packing about
three times and unpacking about twice as fast. The constructor is a static method of the class, so
a pickle names it by its qualified name, once per pickle (pickle memoises globals).
"""

from __future__ import annotations

import operator
from typing import TypeVar

T = TypeVar("T", bound=type)


def slot_names(cls: type) -> tuple[str, ...]:
    """Every slot of ``cls`` and its bases, base first (``__weakref__``/``__dict__`` are no state)."""
    return tuple(n for n in _all_slots(cls) if n not in ("__weakref__", "__dict__"))


def _all_slots(cls: type) -> list[str]:
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in names:
                names.append(name)
    return names


def compact(cls: T) -> T:
    """Give slotted ``cls`` the compact reducer. A subclass it is not applied to pickles as before."""
    every = _all_slots(cls)
    names = tuple(n for n in every if n not in ("__weakref__", "__dict__"))
    if not names or "__dict__" in every:  # instances with a __dict__ keep state the tuple would lose
        return cls
    args = ", ".join(f"_{i}" for i in range(len(names)))
    body = "".join(f"    o.{name} = _{i}\n" for i, name in enumerate(names))
    scope = {"_new": object.__new__, "_cls": cls}
    exec(f"def _unpickle({args}):\n    o = _new(_cls)\n{body}    return o\n", scope)  # noqa: S102
    build = scope["_unpickle"]
    build.__module__, build.__qualname__ = cls.__module__, f"{cls.__qualname__}._unpickle"
    cls._unpickle = staticmethod(build)
    get = operator.attrgetter(*names)
    one = len(names) == 1
    fallback = cls.__reduce_ex__

    def __reduce_ex__(self, protocol):
        if type(self) is not cls:
            return fallback(self, protocol)
        try:
            values = get(self)
        except AttributeError:  # a slot never set: the interpreter's reduction leaves it out too
            return object.__reduce_ex__(self, protocol)
        return (build, (values,) if one else values)

    cls.__reduce_ex__ = __reduce_ex__
    return cls
