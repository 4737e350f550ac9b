"""Structural edits on JSON by minimal text changes: the rest of the file stays byte-identical.

Setting a path whose key exists replaces just that value's token; a missing key is inserted as a
new last member of the deepest existing object, copying the separators and indentation the object
already uses (``,\\n        "key": value`` in a pretty-printed file, ``, "key": value`` in a one-line
object). Nested values are rendered with the file's indentation unit.
"""

from __future__ import annotations

import json
import re
from typing import Any

from netlint.fix.errors import FixError
from netlint.fix.paths import MISSING, format_path, match_key, set_path
from netlint.located import MapNode, ParseError, Scalar, SeqNode, parse_json

_INDENT = re.compile(r"^([ \t]+)\S", re.M)


def apply(text: str, path: tuple, value: Any) -> str:
    """``text`` with ``value`` set at ``path``; verified against the same edit on the loaded data."""
    try:
        before = json.loads(text)
    except ValueError as exc:
        raise FixError(f"the file is not valid JSON ({exc})") from None
    out = _set(text, tuple(path), value)
    expected = set_path(before, tuple(path), value)
    try:
        after = json.loads(out)
    except ValueError as exc:  # pragma: no cover - the editor's own bug; never write it
        raise FixError(f"the edit would break the JSON ({exc})") from None
    if after != expected:
        raise FixError(f"setting {format_path(path)} would change more than that key")
    return out


def _root(text: str) -> Any:
    try:
        root = parse_json("<fix>", text).root
    except ParseError as exc:
        raise FixError(f"the file is not valid JSON ({exc.message})") from None
    span = getattr(root, "span", None)
    if span is None or span.end <= span.start or span.start < 0:
        raise FixError("netlint cannot locate values in this JSON file")
    return root


def _set(text: str, path: tuple, value: Any) -> str:
    node = _root(text)
    for i, part in enumerate(path):
        if isinstance(node, MapNode):
            k = match_key(node, part)
            if k is MISSING:
                nested = value
                for p in reversed(path[i + 1:]):
                    nested = {str(p): nested}
                return _insert_member(text, node, str(part), nested)
            node = node[k]
        elif isinstance(node, SeqNode) and isinstance(part, int) and 0 <= part <= len(node):
            if part == len(node):
                if i != len(path) - 1:
                    raise FixError(f"cannot create {format_path(path)}: index past the end of a list")
                return _append_item(text, node, value)
            node = node[part]
        else:
            raise FixError(f"cannot set {format_path(path)}: a {type(node).__name__} is in the way")
    if isinstance(node, MapNode) and isinstance(value, dict):
        for k, v in value.items():
            text = _set(text, path + (k,), v)
        return text
    span = node.span
    indent = _line_indent(text, span.start)
    return text[: span.start] + _render(value, indent, _unit(text), text) + text[span.end:]


def _insert_member(text: str, node: MapNode, key: str, value: Any) -> str:
    unit = _unit(text)
    colon = _colon(text, node)
    s, e = node.span.start, node.span.end
    if not node:
        if text[s] != "{" or text[e - 1] != "}":
            raise FixError("cannot locate the braces of the object to extend")
        line_indent = _line_indent(text, s)
        if unit is None:
            member = json.dumps(key, ensure_ascii=False) + colon + _render(value, "", None, text)
            return text[:s] + "{" + member + "}" + text[e:]
        child = line_indent + unit
        member = json.dumps(key, ensure_ascii=False) + colon + _render(value, child, unit, text)
        return text[:s] + "{\n" + child + member + "\n" + line_indent + "}" + text[e:]
    keys = list(node.keys_at.values())
    last_value = node[keys[-1].value]
    if len(keys) >= 2:
        sep = text[_value_end(node[keys[-2].value]): keys[-1].span.start]
    else:
        lead = text[s + 1: keys[0].span.start]
        sep = "," + lead if lead else ", "
    if sep.strip() != ",":
        raise FixError("cannot infer how members of this object are separated")
    child = sep[sep.rfind("\n") + 1:] if "\n" in sep else ""
    member = json.dumps(key, ensure_ascii=False) + colon + \
        _render(value, child, unit if "\n" in sep else None, text)
    at = _value_end(last_value)
    return text[:at] + sep + member + text[at:]


def _append_item(text: str, node: SeqNode, value: Any) -> str:
    s, e = node.span.start, node.span.end
    unit = _unit(text)
    if not node:
        line_indent = _line_indent(text, s)
        if unit is None:
            return text[:s] + "[" + _render(value, "", None, text) + "]" + text[e:]
        child = line_indent + unit
        return text[:s] + "[\n" + child + _render(value, child, unit, text) + "\n" + line_indent + "]" + text[e:]
    if len(node) >= 2:
        sep = text[_value_end(node[-2]): node[-1].span.start]
    else:
        lead = text[s + 1: node[0].span.start]
        sep = "," + lead if lead else ", "
    if sep.strip() != ",":
        raise FixError("cannot infer how items of this list are separated")
    child = sep[sep.rfind("\n") + 1:] if "\n" in sep else ""
    at = _value_end(node[-1])
    return text[:at] + sep + _render(value, child, unit if "\n" in sep else None, text) + text[at:]


def _value_end(node: Any) -> int:
    return node.span.end


def _colon(text: str, node: MapNode) -> str:
    """The text between a key and its value, as this object (or the file) writes it."""
    for k, key in node.keys_at.items():
        v = node.get(k)
        if isinstance(key, Scalar) and v is not None:
            between = text[key.span.end: v.span.start]
            if between.strip() == ":":
                return between
    m = re.search(r'"\s*(:\s*)[\[{"\-0-9tfn]', text)
    return m.group(1) if m else ": "


def _unit(text: str) -> str | None:
    """The indentation unit of a pretty-printed file ("  ", "    ", "\\t"), None for one-line JSON."""
    widths = sorted({len(m.group(1)) for m in _INDENT.finditer(text) if "\t" not in m.group(1)})
    if any("\t" in m.group(1) for m in _INDENT.finditer(text)):
        return "\t"
    if not widths:
        return None
    return " " * widths[0]


def _line_indent(text: str, offset: int) -> str:
    start = text.rfind("\n", 0, offset) + 1
    line = text[start:offset]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _render(value: Any, indent: str, unit: str | None, text: str) -> str:
    if unit is None or not isinstance(value, (dict, list)) or not value:
        compact = (",", ":") if re.search(r'",\S|":\S', text) and not re.search(r'": ', text) else (", ", ": ")
        return json.dumps(value, ensure_ascii=False, separators=compact)
    return json.dumps(value, ensure_ascii=False, indent=unit).replace("\n", "\n" + indent)
