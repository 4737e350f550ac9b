"""JSONPath conformance: the RFC 9535 behaviour netlint relies on, pinned against the engine
(jsonpath-rfc9535, pyproject pins >=1.0,<2). Findings are located through each node's normalized
location; NL033 walks the compiled query's segments and selectors (netlint/policy/shape.py)."""

import pytest

DATA = {
    "switches": [
        {"name": "leaf1", "format": "sonic", "complete": False, "default_pfcwd_status": None,
         "ports": {"Ethernet0": {"name": "Ethernet0", "mtu": 9100, "watchdog": None},
                   "Ethernet4": {"name": "Ethernet4", "mtu": 1500, "watchdog": {"enabled": True}}}},
        {"name": "leaf2", "format": "native", "complete": True, "ports": {}},
    ],
    "nccl_envs": [{"variables": [{"name": "NCCL_DEBUG", "value": "INFO"}, {"name": "NCCL_IB_TC", "value": "106"}]}],
}


def locations(path):
    from jsonpath_rfc9535 import JSONPathEnvironment

    out = []
    for node in JSONPathEnvironment().compile(path).finditer(DATA):
        loc = node.location
        out.append(tuple(loc() if callable(loc) else loc))
    return out


@pytest.mark.parametrize("path, expected", [
    ("$.switches[*].ports.*", [("switches", 0, "ports", "Ethernet0"), ("switches", 0, "ports", "Ethernet4")]),
    ("$.switches[1]", [("switches", 1)]),
    ("$.nccl_envs[*].variables[?@.name == 'NCCL_DEBUG']", [("nccl_envs", 0, "variables", 0)]),
    ("$.nccl_envs[*].variables[?@.name == 'A' || @.name == 'NCCL_IB_TC']", [("nccl_envs", 0, "variables", 1)]),
    ("$.switches[?@.format == 'native' || @.format == 'nvue'].name", [("switches", 1, "name")]),
    # a null member compares equal to null only; a missing one compares unequal to everything
    ("$.switches[*].ports[?@.watchdog != null].name", [("switches", 0, "ports", "Ethernet4", "name")]),
    ("$.switches[?@.default_pfcwd_status != 'enable'].name", [("switches", 0, "name"), ("switches", 1, "name")]),
    ("$.switches[?@.complete == true].name", [("switches", 1, "name")]),
    # a filter query inside a filter is an existence test
    ("$.switches[?@.ports[?@.watchdog.enabled == true]].name", [("switches", 0, "name")]),
    ("$..mtu", [("switches", 0, "ports", "Ethernet0", "mtu"), ("switches", 0, "ports", "Ethernet4", "mtu")]),
    ("$.switches[?@.mtu > 1].name", []),
    ("$.nope[*]", []),
])
def test_selection_and_locations(path, expected):
    assert locations(path) == expected


def test_bad_paths_do_not_compile():
    from jsonpath_rfc9535 import JSONPathEnvironment

    for bad in ("$.switches[", "switches[*]", "$.switches[?@.a = 1]"):
        with pytest.raises(Exception):
            JSONPathEnvironment().compile(bad)


def test_the_query_structure_shape_py_walks():
    """NL033 walks segments by class name; a rename would make every path 'unknown' (never NL033)."""
    from jsonpath_rfc9535 import JSONPathEnvironment

    query = JSONPathEnvironment().compile("$.switches[*].ports['Ethernet0'][?@.x]..mtu")
    kinds = [(type(seg).__name__, [type(s).__name__ for s in seg.selectors]) for seg in query.segments]
    assert kinds == [("JSONPathChildSegment", ["NameSelector"]), ("JSONPathChildSegment", ["WildcardSelector"]),
                     ("JSONPathChildSegment", ["NameSelector"]), ("JSONPathChildSegment", ["NameSelector"]),
                     ("JSONPathChildSegment", ["FilterSelector"]), ("JSONPathRecursiveDescentSegment", ["NameSelector"])]
    assert query.segments[0].selectors[0].name == "switches"
