"""The structural editors on their own: YAML (ruamel round trip + line merge) and JSON (text)."""

from __future__ import annotations

import pytest

from netlint.fix import jsonfix, yamlfix
from netlint.fix.errors import FixError
from netlint.fix.merge import merge3


@pytest.mark.parametrize("text, want", [
    ("a:\n  b: 1\n", (2, 2, 0)),
    ("a:\n    b: 1\n    c:\n        d: 2\n", (4, 2, 0)),
    ("a:\n  l:\n  - x\n  - y\n", (2, 2, 0)),
    ("a:\n  l:\n    - x\n    - y\n", (2, 4, 2)),
    ("a:\n   b:\n      - x: 1\n        y: 2\n", (3, 5, 3)),
])
def test_detect_indent(text, want):
    assert yamlfix.detect_indent(text) == want


def test_yaml_new_key_goes_before_the_comment_that_introduces_the_next_block():
    text = "a:\n  b:\n    c: 1  # eol\n    # end of b\n\n  # about d\n  d: 2\n"
    out = yamlfix.apply(text, 0, [(("a", "b", "new"), 5)])
    assert out == "a:\n  b:\n    c: 1  # eol\n    new: 5\n    # end of b\n\n  # about d\n  d: 2\n"


def test_yaml_append_to_block_sequence_keeps_trailing_comment_after():
    text = "l:\n  - a\n  - b   # bee\n  # end of list\nz: 1\n"
    out = yamlfix.apply(text, 0, [(("l", 2), "c")])
    assert out == "l:\n  - a\n  - b   # bee\n  - c\n  # end of list\nz: 1\n"


def test_yaml_strings_yaml11_would_misread_are_quoted():
    out = yamlfix.apply("a: 1\n", 0, [(("state",), "on"), (("n",), "3"), (("name",), "leaf")])
    assert out == "a: 1\nstate: 'on'\nn: '3'\nname: leaf\n"


def test_yaml_quote_style_follows_the_file():
    out = yamlfix.apply('a: "x"\nb: "y"\n', 0, [(("c",), "yes")])
    assert out == 'a: "x"\nb: "y"\nc: "yes"\n'


def test_yaml_crlf_and_no_final_newline():
    out = yamlfix.apply("a:\r\n  b: 1", 0, [(("a", "c"), 2)])
    assert out == "a:\r\n  b: 1\r\n  c: 2"


def test_yaml_flow_mapping_gets_the_key_inline():
    out = yamlfix.apply("m: {26: 3, 48: 6}   # DSCP map\nx: 1\n", 0, [(("m", 46), 5)])
    assert out == "m: {26: 3, 48: 6, 46: 5}   # DSCP map\nx: 1\n"


def test_yaml_second_document():
    text = "---\na: 1\n---\n# two\nb:\n  c: 1\n...\n"
    out = yamlfix.apply(text, 1, [(("b", "d"), 2)])
    assert out == "---\na: 1\n---\n# two\nb:\n  c: 1\n  d: 2\n...\n"


def test_yaml_merge_key_child_override():
    text = "base: &b\n  mtu: 9216\nleaf:\n  <<: *b\n  name: x\n"
    out = yamlfix.apply(text, 0, [(("leaf", "mtu"), 9100)])
    assert out == "base: &b\n  mtu: 9216\nleaf:\n  <<: *b\n  name: x\n  mtu: 9100\n"


def test_yaml_alias_target_is_refused():
    with pytest.raises(FixError, match="change more"):
        yamlfix.apply("base: &b\n  mtu: 9216\nleaf: *b\n", 0, [(("base", "mtu"), 1)])


def test_yaml_scalar_in_the_way():
    with pytest.raises(FixError):
        yamlfix.apply("a: 1\n", 0, [(("a", "b"), 1)])


def test_yaml_nested_creation_and_mapping_merge():
    text = "qos:\n  pfc:\n    enable: true\n"
    out = yamlfix.apply(text, 0, [(("qos", "pfc"), {"watchdog": {"enabled": True}}),
                                  (("qos", "ecn", "3"), {"min": 1})])
    assert out == ("qos:\n  pfc:\n    enable: true\n    watchdog:\n      enabled: true\n"
                   "  ecn:\n    '3':\n      min: 1\n")


def test_json_replace_value_and_array_append():
    text = '{\n  "a": [1, 2],\n  "b": {"c": 1}\n}\n'
    assert jsonfix.apply(text, ("a", 2), 3) == '{\n  "a": [1, 2, 3],\n  "b": {"c": 1}\n}\n'
    assert jsonfix.apply(text, ("b", "c"), "x") == '{\n  "a": [1, 2],\n  "b": {"c": "x"}\n}\n'
    assert jsonfix.apply(text, ("b",), {"d": [1]}) == '{\n  "a": [1, 2],\n  "b": {"c": 1, "d": [1]}\n}\n'


def test_json_nested_insert_into_pretty_object():
    text = '{\n  "A": {\n    "x": "1"\n  }\n}'
    out = jsonfix.apply(text, ("B", "y", "z"), "2")
    assert out == '{\n  "A": {\n    "x": "1"\n  },\n  "B": {\n    "y": {\n      "z": "2"\n    }\n  }\n}'


def test_json_compact_separators_are_kept():
    assert jsonfix.apply('{"a":1,"b":2}', ("c",), 3) == '{"a":1,"b":2,"c":3}'


def test_json_unicode_and_escapes_kept():
    text = '{"name": "caf\\u00e9", "x": 1}'
    assert jsonfix.apply(text, ("y",), "é") == '{"name": "caf\\u00e9", "x": 1, "y": "é"}'


def test_merge3_keeps_untouched_lines_byte_for_byte():
    o = "a:   1\nl:\n    - x\n"
    r = "a: 1\nl:\n- x\n"
    m = "a: 1\nl:\n- x\n- y\n"
    assert merge3(o, r, m) == "a:   1\nl:\n    - x\n    - y\n"


def test_merge3_gives_up_when_a_change_cannot_be_placed():
    assert merge3("p\nq\n", "x\ny\n", "x\nz\n") is None
