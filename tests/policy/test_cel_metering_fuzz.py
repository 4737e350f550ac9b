"""The metering rewrite (netlint/policy/cost.py) never changes what an expression means: random CEL
expressions over selections, indexes, every list macro, has(), matches(), comments and odd spacing
give the same value — or both fail — as written and as netlint runs them. Deterministic in CI."""

from __future__ import annotations

import pytest

pytest.importorskip("hypothesis")  # the dev extra installs it

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from netlint.policy.cel import CelError, compile_expression  # noqa: E402

SELF = {"a": 3, "s": "mlx5_0", "l": [1, 3, 5], "m": {"26": 3, "48": 6},
        "ports": {"p1": {"mtu": 9000, "q": [3, 4]}, "p2": {"mtu": 1500, "q": []}},
        "nested": {"watchdog": {"enabled": True}}, "x": None}
WORKSPACE = {"switches": [{"name": "s1", "ports": SELF["ports"]}], "names": ["s1", "s2"]}
SPACE = st.sampled_from(["", " ", "  ", "\n", " // c, ( ' \n"])


@st.composite
def _int(draw, depth: int, loops: tuple) -> str:
    leaves = ["self.a", "size(self.l)", "self.m['26']", "self . ports . p1 . mtu", "self.ports['p2'].mtu",
              "size(workspace.names)", "1", "-2", *loops]
    if depth <= 0 or draw(st.booleans()):
        return draw(st.sampled_from(leaves))
    op = draw(st.sampled_from(["+", "-", "*", "%"]))
    return f"({draw(_int(depth - 1, loops))} {op} {draw(_int(depth - 1, loops))})"


@st.composite
def _bool(draw, depth: int, loops: tuple = ()) -> str:
    sp = draw(SPACE)
    leaves = [f"has(self.nested{sp}.watchdog.enabled)", "has(self.x)", "self.nested.watchdog.enabled",
              "self.s.matches('^mlx[0-9]')", f"self.s{sp}.startsWith('mlx')", "'26' in self.m",
              "self.x == null", "self.missing == 1", "self.s.matches('[')", "{'k': {'v': true}}.k.v"]
    if depth <= 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(leaves))
    kind = draw(st.sampled_from(["cmp", "and", "not", "macro", "ternary", "size"]))
    if kind == "cmp":
        op = draw(st.sampled_from(["==", "!=", "<", ">="]))
        return f"{draw(_int(depth - 1, loops))} {op} {draw(_int(depth - 1, loops))}"
    if kind == "and":
        return f"({draw(_bool(depth - 1, loops))}{sp}{draw(st.sampled_from(['&&', '||']))} {draw(_bool(depth - 1, loops))})"
    if kind == "not":
        return f"!({draw(_bool(depth - 1, loops))})"
    if kind == "ternary":
        return f"({draw(_bool(depth - 1, loops))} ? {draw(_bool(depth - 1, loops))} : {draw(_bool(depth - 1, loops))})"
    var = f"v{len(loops)}"
    rng = draw(st.sampled_from(["self.l", "[1, 2]", "self.ports.p1.q", "workspace.switches.map(s, s.ports.p1.mtu)",
                                "self.m.map(k, self.m[k])", "self.l.filter(e, e > 1)", "workspace.names"]))
    body = draw(_bool(depth - 1, loops + (var,))) if rng != "workspace.names" else f"{var} != self.s"
    if kind == "size":
        return f"size({rng}.map({var},{sp}{draw(_int(depth - 1, loops + (var,)))})) >= 0"
    macro = draw(st.sampled_from(["all", "exists", "exists_one"]))
    return f"{rng}.{macro}({var},{sp}{body})"


def _value(run, variables):
    try:
        return ("ok", run(variables))
    except CelError:
        return ("error",)


@settings(max_examples=300, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(expr=_bool(4))
def test_metered_and_as_written_agree(expr):
    try:
        prog = compile_expression(expr)
    except CelError:
        return  # refused (nesting, length) before anything runs: nothing to compare
    variables = {"self": SELF, "workspace": WORKSPACE}
    written = _value(prog.evaluate, variables)
    metered = _value(lambda v: prog.bind({"workspace": WORKSPACE})({"self": v["self"]}), variables)
    assert metered == written, (expr, prog.plan.source, prog.plan.hoisted)
