"""CEL conformance: the expressions netlint, its templates and its packs rely on, pinned against the
engine behind netlint/policy/cel.py (common-expression-language). A failure here after an upgrade of
the engine means a policy could change meaning: read the engine's changelog before relaxing a case."""

import pytest

from netlint.policy.cel import ALLOWED_CALLS, CelError, check, compile_expression

SELF = {"a": 3, "n": 3, "mtu": 9000, "f": 2.5, "s": "mlx5_0", "l": [1, 3], "m": {"26": 3},
        "x": None, "p": [], "nested": {"watchdog": {"enabled": True}}}


@pytest.mark.parametrize("expr, expected", [
    # field access, has(), null
    ("self.a == 3", True),
    ("self.nested.watchdog.enabled", True),
    ("has(self.a) && self.a > 2", True),
    ("has(self.missing)", False),
    ("has(self.nested.watchdog) && !has(self.nested.watchdog.action)", True),
    ("self.x == null", True),
    ("self.m['26'] == 3", True),
    # comparisons, numbers (YAML mixes 9000 and 9000.0: int == double holds)
    ("self.mtu >= 9000 && self.mtu < 9216", True),
    ("self.mtu == 9000.0", True),
    ("double(self.n) >= 2.5", True),
    ("self.f > 2", True),
    # arithmetic (integer division truncates)
    ("self.n * 2 + 1 == 7 && self.n - 1 == 2", True),
    ("self.n / 2 == 1 && self.n % 2 == 1", True),
    ("self.f / 2.0 == 1.25", True),
    # in, size
    ("3 in self.l", True),
    ("'26' in self.m", True),
    ("'48' in self.m", False),
    ("size(self.l) == 2 && self.l.size() == 2", True),
    ("size(self.s) == 6", True),
    ("size(self.p) == 0", True),
    ("!has(self.q) || self.q == null || size(self.q) == 0 || 3 in self.q", True),
    # list macros
    ("self.l.exists(v, v == 3)", True),
    ("self.l.all(v, v < 2)", False),
    ("self.l.exists_one(v, v > 2)", True),
    ("self.l.map(v, v * 2) == [2, 6]", True),
    ("self.l.filter(v, v > 1) == [3]", True),
    ("size(self.p.filter(v, v > 1)) == 0", True),
    ("self.m.all(k, k.startsWith('2'))", True),   # macros over a map range over its keys
    # strings
    ("self.s.startsWith('mlx5') && self.s.endsWith('_0')", True),
    ("self.s.contains('x5')", True),
    ("self.s.matches('^mlx[0-9]_[0-9]+$')", True),
    ("self.s + '/1' == 'mlx5_0/1'", True),
    ("string(self.n) == '3' && int('104') == 104", True),
    ("self.s in ['104', '106']", False),
    # logic
    ("self.a > 5 ? false : true", True),
    ("!(self.a == 3) || false", False),
    ("type(self.a) == int && type(self.s) == string", True),
    ("duration('1s') < duration('2s')", True),
])
def test_expression(expr, expected):
    assert values(expr, {"self": SELF}) == [expected, expected]


def values(expr, variables):
    """The value as written and as netlint runs it (metered: netlint/policy/cost.py rewrites the
    expression), which must agree."""
    prog = compile_expression(expr)
    return [prog.evaluate(variables), prog.bind({})(variables)]


@pytest.mark.parametrize("expr", [
    "self.missing == 1",          # a missing field is an error, never false: NL032, not a silent pass
    "self.nested.nope.enabled",
    "self.s > 3",                 # no overload
    "self.x.enabled",             # field of null
    "matches(self.s, '^mlx')",    # the engine has only the method form
])
def test_runtime_errors_are_errors(expr):
    with pytest.raises(CelError):
        compile_expression(expr).evaluate({"self": SELF})
    with pytest.raises(CelError):
        compile_expression(expr).bind({})({"self": SELF})


def test_workspace_is_a_second_variable():
    prog = compile_expression("workspace.switches.exists(s, s.name == self.name)")
    assert prog.uses_workspace
    assert prog.evaluate({"self": {"name": "leaf1"}, "workspace": {"switches": [{"name": "leaf1"}]}}) is True


@pytest.mark.parametrize("name", sorted(ALLOWED_CALLS - {"has", "all", "exists", "exists_one", "map", "filter"}))
def test_every_allowed_function_is_implemented(name):
    """Nothing the allow-list lets through may fail at run time as 'undefined function'."""
    samples = {"size": "size('ab') == 2", "contains": "'ab'.contains('a')", "startsWith": "'ab'.startsWith('a')",
               "endsWith": "'ab'.endsWith('b')", "matches": "'ab'.matches('a.')", "int": "int(2.0) == 2",
               "uint": "uint(2) == 2u", "double": "double(2) == 2.0", "string": "string(2) == '2'",
               "bytes": "bytes('a') == b'a'", "type": "type(1) == int", "dyn": "dyn(1) == 1",
               "duration": "duration('1s') == duration('1000ms')",
               "timestamp": "timestamp('2020-01-01T00:00:00Z') < timestamp('2021-01-01T00:00:00Z')"}
    assert values(samples[name], {}) == [True, True]


@pytest.mark.parametrize("expr, column", [
    ("open('/etc/passwd') != ''", 1),
    ("self.s.open('x')", 8),
    ("self.name.lowerAscii() == 'a'", 11),          # a string extension this engine lacks
    ("[1].all(a, [1].all(b, [1].all(c, [1].all(d, true))))", 41),
    (r"r'\' + open('x') + r'\' == ''", 8),                    # a raw string ends at its quote
    ("'''it's''' + system('x') == ''", 14),                   # so does a triple-quoted one
    (r"b'\'' + exec('x') == b''", 9),                         # an escaped quote does not end one
])
def test_refused_before_running(expr, column):
    with pytest.raises(CelError) as err:
        check(expr)
    assert err.value.column == column


def test_function_names_inside_strings_are_fine():
    # check() raises CelError on refusal; the same names outside strings are refused (below)
    assert check("self.s.startsWith('open(') && self.t == \"system(1)\"") is None
    assert check("self.s == '''open(x)''' // and system(1) in a comment\n && true") is None
    with pytest.raises(CelError):
        check("open('x') && system(1)")


@pytest.mark.parametrize("expr", [r"r'\' + 'a' == r'\a'", "'''it's''' == \"it's\"", r"b'\'' == b" + '"\'"',
                                  "1 == 1 // a comment\n && true", "R'x' == \"x\" && BR'x' == b'x'"])
def test_the_literals_the_check_skips_are_the_engines(expr):
    """blank_strings follows the engine's lexer: these compile and hold."""
    assert values(expr, {}) == [True, True]


def test_too_long():
    with pytest.raises(CelError, match="limit"):
        check("true && " * 600 + "true")


def test_compile_error_has_a_column():
    with pytest.raises(CelError) as err:
        compile_expression("self.a >")
    assert err.value.column == 9


def test_bound_variables_are_shared_across_nodes():
    run = compile_expression("workspace.names.exists(n, n == self.name)").bind({"workspace": {"names": ["a", "b"]}})
    assert [run({"self": {"name": x}}) for x in ("a", "c", "b")] == [True, False, True]
    with pytest.raises(CelError):
        run({"self": {}})


@pytest.mark.parametrize("expr", [
    # netlint/policy/cost.py rewrites selections, macros and matches(); the value stays the engine's
    "has(self.nested.watchdog.enabled) && self.nested.watchdog.enabled",
    "self . nested . watchdog . enabled",
    "(self).a == 3 && (self.nested).watchdog.enabled",
    "self.l.map(v, v * 2).filter(x, x > 2) == [6]",
    "self.m.map(k, self.m[k]) == [3]",
    "[self].exists(s, s.nested.watchdog.enabled)",
    "self.s.matches('^mlx') && self.s . matches('_0$')",
    "self.l.all(v, // a comment, with ( and 'quotes\n v > 0)",
    "{'a': {'b': 1}}.a.b == 1",
    "self.l.exists_one(v, v == 1) && [[1], [2]].all(l, l.all(v, v > 0))",
    "'self.l.all(v, v)' != '' && 'a.b'.size() == 3 && 1.5 > 1.0",
    "self.l.map(v, [v, v]).map(p, p[0] + p[1]) == [2, 6]",
    "self.l.all(v, self.l.exists(w, w == v))",
])
def test_metering_keeps_the_meaning(expr):
    assert values(expr, {"self": SELF}) == [True, True]


def test_a_bad_pattern_fails_in_the_words_of_the_expression():
    with pytest.raises(CelError) as err:
        compile_expression("self.s.matches(self.s + '[')").bind({})({"self": SELF})
    assert "'mlx5_0[' is not a valid regular expression: error: unclosed character class" in err.value.message
    assert "_nl_" not in err.value.message


def test_workspace_only_macros_are_hoisted():
    from netlint.policy.cost import plan

    got = plan("self.name in workspace.switches.map(s, s.name) && self.x.all(v, v > workspace.inventory.y)")
    assert [name for name, _ in got.hoisted] == ["_nl_w0"]
    assert got.source.startswith("self['name'] in _nl_w0 && ") and not got.per_node_workspace
    assert plan("workspace.switches.all(s, s.name == self.name)").per_node_workspace
    assert plan("self.x.all(v, workspace.names.exists(n, n == v))").per_node_workspace


def test_a_hoisted_part_is_evaluated_once(monkeypatch):
    from netlint.policy import cost

    ticks = []
    monkeypatch.setattr(cost.Meter, "tick", lambda self, ident: ticks.append(ident) or 0)
    run = compile_expression("self.name in workspace.names.map(n, n)").bind({"workspace": {"names": ["a", "b"]}})
    assert [run({"self": {"name": x}}) for x in ("a", "c", "b")] == [True, False, True]
    assert ticks == [1, 1]  # the two names, mapped once, not once per node


def test_a_hoisted_part_that_fails_runs_per_node():
    """Per node `||` absorbs the error of its right side; evaluated once it would fail every node."""
    run = compile_expression("self.a == 3 || workspace.x.all(v, v.missing)").bind({"workspace": {"x": [{}]}})
    assert run({"self": {"a": 3}}) is True
    with pytest.raises(CelError):
        run({"self": {"a": 1}})


def test_the_budget_stops_one_evaluation_inside_its_macros():
    from netlint.policy.cost import Budget, BudgetSpent

    budget = Budget(1000)
    run = compile_expression("self.l.all(a, self.l.all(b, a == b || true))").bind({}, budget)
    with pytest.raises(BudgetSpent):
        run({"self": {"l": list(range(100))}})   # 10,000 iterations
    assert 1000 < budget.spent < 1100


def test_a_built_list_costs_what_the_engine_copies():
    """map/filter copy the list they build on every iteration: n elements cost about n²/2 units."""
    from netlint.policy.cost import Budget

    budget = Budget(10**9)
    compile_expression("size(self.l.map(v, v)) > 0").bind({}, budget)({"self": {"l": list(range(1000))}})
    assert 1000 * 1001 // 2 < budget.spent < 1000 * 1001 // 2 + 10_000
