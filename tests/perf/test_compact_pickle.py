"""netlint/compact.py: slotted model classes pickle as a constructor and a tuple of slot values."""

from __future__ import annotations

import pickle
from dataclasses import dataclass

from netlint.compact import compact, slot_names
from netlint.located import JsonSpan, Scalar, Span
from netlint.models.switch import Port, QueueCfg


class Base:
    __slots__ = ("a",)


@compact
class Child(Base):
    __slots__ = ("b", "c")

    def __init__(self, a, b, c):
        raise AssertionError("unpickling must not call __init__")


class Grandchild(Child):
    __slots__ = ("d",)


@compact
@dataclass(slots=True)
class Plain:
    x: int
    y: str


class Default:
    __slots__ = ("x", "y")


def _new(cls, **values):
    obj = cls.__new__(cls)
    for k, v in values.items():
        setattr(obj, k, v)
    return obj


def test_slots_of_the_class_and_its_bases_base_first():
    assert slot_names(Child) == ("a", "b", "c")
    assert slot_names(Grandchild) == ("a", "b", "c", "d")


def test_round_trip_keeps_every_slot_without_calling_init():
    obj = _new(Child, a=1, b=[2, 3], c=Span("f.json", 4, 5, 4, 9))
    back = pickle.loads(pickle.dumps(obj, pickle.HIGHEST_PROTOCOL))
    assert type(back) is Child
    assert (back.a, back.b, back.c) == (1, [2, 3], Span("f.json", 4, 5, 4, 9))


def test_the_pickle_names_the_constructor_and_is_smaller_than_the_slot_state():
    rows = [Plain(i, "Ethernet%d" % i) for i in range(200)]
    plain = [_new(Default, x=i, y="Ethernet%d" % i) for i in range(200)]
    data = pickle.dumps(rows, pickle.HIGHEST_PROTOCOL)
    assert b"Plain._unpickle" in data
    assert len(data) < len(pickle.dumps(plain, pickle.HIGHEST_PROTOCOL))
    assert [(r.x, r.y) for r in pickle.loads(data)] == [(i, "Ethernet%d" % i) for i in range(200)]


def test_a_subclass_it_was_not_applied_to_pickles_as_before():
    obj = _new(Grandchild, a=1, b=2, c=3, d=4)
    data = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
    assert b"_unpickle" not in data
    back = pickle.loads(data)
    assert type(back) is Grandchild and (back.a, back.b, back.c, back.d) == (1, 2, 3, 4)


def test_a_slot_never_set_falls_back_to_the_interpreters_reduction():
    obj = _new(Child, a=1, c=3)  # b unset
    back = pickle.loads(pickle.dumps(obj, pickle.HIGHEST_PROTOCOL))
    assert back.a == 1 and back.c == 3 and not hasattr(back, "b")


def test_model_objects_and_located_values_round_trip():
    span = Span("leaf.json", 10, 3, 10, 8)
    port = Port(name="Ethernet0", span=span, mtu=Scalar(9100, span, "9100"),
                queues={3: QueueCfg(index=3, span=span)})
    back = pickle.loads(pickle.dumps(port, pickle.HIGHEST_PROTOCOL))
    assert back.name == "Ethernet0" and back.mtu.value == 9100 and back.mtu.raw == "9100"
    assert back.mtu.span == span and back.queues[3].index == 3 and back.queues[3].span == span
    js = JsonSpan.__new__(JsonSpan)
    js._doc, js._line, js._col, js._end_line = None, span, None, None  # located: _line holds the Span
    assert pickle.loads(pickle.dumps(js)).astuple() == span.astuple()
