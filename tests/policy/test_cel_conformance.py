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
    assert compile_expression(expr).evaluate({"self": SELF}) is expected


@pytest.mark.parametrize("expr", [
    "self.missing == 1",          # a missing field is an error, never false: NL032, not a silent pass
    "self.nested.nope.enabled",
    "self.s > 3",                 # no overload
    "self.x.enabled",             # field of null
])
def test_runtime_errors_are_errors(expr):
    with pytest.raises(CelError):
        compile_expression(expr).evaluate({"self": SELF})


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
    assert compile_expression(samples[name]).evaluate({}) is True


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
    assert compile_expression(expr).evaluate({}) is True


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
