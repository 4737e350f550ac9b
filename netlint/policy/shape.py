"""Static check of the field names a policy uses against the workspace view's schema.

A JSONPath that names a field the view does not have selects nothing, and a template or a guarded
CEL expression over a misspelt field passes on every node: both would pass silently. The schema is
the generated ``schemas/workspace.schema.json`` (built from the models, so it cannot drift); where it
says nothing about a value (``{}``: a free-form value) every name is accepted.
"""

from __future__ import annotations

import difflib
import re
from functools import lru_cache
from typing import Any

_SELF = re.compile(r"(?<![\w.])(self|workspace|switch|nccl_env|job|nic)((?:\s*\.\s*[A-Za-z_]\w*)+)(\s*\()?")


class UnknownField(ValueError):
    def __init__(self, name: str, known: list[str], offset: int = 0, message: str = ""):
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else (f" (known: {', '.join(sorted(known)[:12])})"
                                                              if known else "")
        super().__init__(message or f"the workspace view has no field '{name}' here{hint}")
        self.name, self.offset = name, offset


@lru_cache(maxsize=1)
def _schema() -> dict:
    from netlint.policy.schema import workspace_schema

    return workspace_schema()


def _deref(node: dict) -> list[dict]:
    """The alternatives a schema node stands for (``$ref`` resolved, ``anyOf`` flattened, null dropped).
    The parts of an ``allOf`` count as alternatives too: a name any part has is a field."""
    if "$ref" in node:
        return _deref(_schema()["$defs"][node["$ref"].rsplit("/", 1)[1]])
    if "anyOf" in node or "allOf" in node:
        return [alt for option in node.get("anyOf", node.get("allOf")) for alt in _deref(option)]
    if node.get("type") == "null":
        return []
    return [node]


def _children(node: dict) -> list[dict]:
    out: list[dict] = []
    for alt in _deref(node):
        if not alt:
            return [{}]
        if alt.get("type") == "array" or "items" in alt:
            out.append(alt.get("items", {}))
        if "properties" in alt:
            out.extend(alt["properties"].values())
        extra = alt.get("additionalProperties")
        if isinstance(extra, dict):
            out.append(extra)
    return out


def _member(nodes: list[dict], name: str, offset: int = 0) -> list[dict]:
    out: list[dict] = []
    known: list[str] = []
    for node in nodes:
        for alt in _deref(node):
            if not alt:
                return [{}]
            props = alt.get("properties", {})
            if name in props:
                out.append(props[name])
            extra = alt.get("additionalProperties")
            if isinstance(extra, dict):
                out.append(extra)
            if alt.get("type") == "array" and not props:
                continue
            known.extend(props)
    if not out and known:
        raise UnknownField(name, known, offset)
    return out


def check_path(query) -> list[dict]:
    """Walk a compiled RFC 9535 query over the schema; the schema nodes it selects ([{}] = unknown)."""
    nodes = [_schema()]
    for segment in query.segments:
        if type(segment).__name__ != "JSONPathChildSegment":
            return [{}]  # descendant segment: anything below
        nxt: list[dict] = []
        for sel in segment.selectors:
            kind = type(sel).__name__
            if kind == "NameSelector":
                nxt.extend(_member(nodes, sel.name))
            else:  # wildcard, index, slice, filter: the children
                nxt.extend(child for n in nodes for child in _children(n))
        nodes = nxt
        if not nodes:
            return []
    return nodes


def check_field(nodes: list[dict], dotted: str) -> None:
    for part in dotted.split("."):
        nodes = _member(nodes, part)
        if not nodes or {} in nodes:
            return


def collection_of(query) -> str | None:
    """The workspace collection a compiled query starts in (``$.switches…`` → switches), if plain."""
    segments = list(query.segments)
    if not segments or type(segments[0]).__name__ != "JSONPathChildSegment":
        return None
    selectors = list(segments[0].selectors)
    if len(selectors) != 1 or type(selectors[0]).__name__ != "NameSelector":
        return None
    return selectors[0].name


def check_expression(source: str, selected: list[dict], collections: set | None = None) -> None:
    """Field chains after ``self`` (over the selected nodes), ``workspace`` (over the root) and the
    item variables (``switch``: over a switch). An item variable is bound only for nodes inside its
    collection: naming ``switch`` in a policy that selects jobs is refused (``collections`` are the
    collections the policy's paths start in, None when a path does not start with one)."""
    from netlint.policy.cel import ITEM_VARIABLES, blank_strings

    collection = {v: k for k, v in ITEM_VARIABLES.items()}
    blanked = blank_strings(source)
    for m in _SELF.finditer(blanked):
        head = m.group(1)
        parts = [p.strip() for p in m.group(2).split(".")[1:]]
        if m.group(3):  # a method call: the last name is the function
            parts = parts[:-1]
        if head == "self":
            nodes = selected
        elif head == "workspace":
            nodes = [_schema()]
        else:
            coll = collection[head]
            if collections is not None and coll not in collections:
                picked = ", ".join(f"$.{c}" for c in sorted(collections)) or "nothing"
                raise UnknownField(head, [], m.start(1), message=(
                    f"'{head}' is the {head} a selected node is in, bound only for nodes under $.{coll}; "
                    f"this policy selects under {picked}"))
            nodes = [_schema()["properties"][coll]["items"]]
        offset = m.start(2)
        for part in parts:
            offset = blanked.index(part, offset)
            nodes = _member(nodes, part, offset)
            if not nodes or {} in nodes:
                break
            offset += len(part)
        else:
            if parts and not m.group(3):
                _compare(blanked, m, head, parts, nodes)


def template_clash(selected: list[dict], params: dict) -> str | None:
    """A template that compares a field the view holds as text with numbers (``values: [106]`` for an
    NCCL value): it would never match."""
    field = params.get("field")
    values = params.get("values") if isinstance(params.get("values"), list) else \
        [params["equals"]] if "equals" in params else []
    if not isinstance(field, str) or not values:
        return None
    nodes = selected
    for part in field.split("."):
        nodes = _member(nodes, part)
        if not nodes or {} in nodes:
            return None
    wrong = [v for v in values if isinstance(v, (int, float))]
    if kinds(nodes) == {"string"} and wrong:
        return (f"{field} is a string in the workspace view (NCCL reads its environment as text), so the "
                f"number {wrong[0]!r} never matches: write '{wrong[0]}'")
    return None


_NUMBER_AFTER = re.compile(r"\s*(==|!=|<=|>=|<|>|in\s*\[)\s*-?\d")
_NUMBER_BEFORE = re.compile(r"-?\d[\w.]*\s*(==|!=|<=|>=|<|>)\s*$")


def _compare(blanked: str, m: re.Match, head: str, parts: list[str], nodes: list[dict]) -> None:
    """A field the view holds as text (NCCL values) compared with a number literal: ``==`` is never
    true and ``<`` fails on every node (CEL does not convert between string and int)."""
    if kinds(nodes) != {"string"}:
        return
    after = _NUMBER_AFTER.match(blanked, m.end(2))
    before = _NUMBER_BEFORE.search(blanked, 0, m.start(1))
    if after or before:
        ref = f"{head}.{'.'.join(parts)}"
        raise TypeClash(f"{ref} is a string in the workspace view (NCCL reads its environment as text), so "
                        f"comparing it with a number is never true or fails: compare with a string "
                        f"({ref} == '3') or convert it (int({ref}) == 3)", m.start(1))


class TypeClash(ValueError):
    """A comparison that can never hold: a field the view holds as text against a number literal."""

    def __init__(self, message: str, offset: int):
        super().__init__(message)
        self.offset = offset


def kinds(nodes: list[dict]) -> set[str] | None:
    """The kinds of value (string, number, boolean, list, mapping) the schema nodes allow besides
    null; None when any value may be there."""
    from netlint.policy.schema import SCALAR

    out: set[str] = set()
    for node in nodes:
        for alt in _deref(node):
            if alt.get("$comment") == SCALAR:
                out |= {"string", "number", "boolean"}
                continue
            kind = alt.get("type")
            if "const" in alt or "enum" in alt:
                out |= {_kind(v) for v in (alt.get("enum") or [alt.get("const")]) if v is not None}
            elif kind in ("integer", "number"):
                out.add("number")
            elif kind in ("string", "boolean"):
                out.add(kind)
            elif kind == "array" or "items" in alt:
                out.add("list")
            elif kind == "object" or "properties" in alt or "additionalProperties" in alt:
                out.add("mapping")
            else:
                return None  # a free-form value
    return out or None


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "list"
    return "mapping" if isinstance(value, dict) else "null"


def _a(kind: str) -> str:
    return {"list": "a list", "mapping": "a mapping", "number": "a number", "string": "a string",
            "boolean": "a boolean"}[kind]


def _type_problem(value: Any, nodes: list[dict]) -> str | None:
    allowed = kinds(nodes)
    got = _kind(value)
    if allowed is None or got == "null" or got in allowed:
        return None
    want = " or ".join(_a(k) for k in sorted(allowed))
    hint = ""
    if allowed == {"string"} and got in ("number", "boolean"):
        hint = f": write {str(value).lower() if got == 'boolean' else value!s:}" + \
            f" as text, '{str(value).lower() if got == 'boolean' else value}'"
    elif allowed == {"list"} and got == "mapping":
        hint = ": write a list of them, [{…}]"
    return f"the workspace view holds {want} here, never {_a(got)} ({value!r}){hint}"


def check_value(value: Any, nodes: list[dict], path: tuple = ()) -> str | None:
    """The first field of ``value`` (a policy example) the schema nodes do not have, or whose value
    is of a kind the view never holds there (a number where NCCL values are text, one mapping where
    ``nodes`` is always a list), as a message: such an example tests nothing the workspace can hold."""
    if not nodes or {} in nodes:
        return None
    wrong = _type_problem(value, nodes)
    if wrong:
        return f"{'.'.join(map(str, path)) or 'the example'}: {wrong}"
    if isinstance(value, dict):
        for key, item in value.items():
            try:
                sub = _member(nodes, str(key))
            except UnknownField as exc:
                return f"{'.'.join(map(str, path + (key,)))}: {exc}"
            found = check_value(item, sub, path + (key,))
            if found:
                return found
    elif isinstance(value, list):
        items = [alt.get("items", {}) for n in nodes for alt in _deref(n)
                 if alt.get("type") == "array" or "items" in alt]
        for i, item in enumerate(value):
            found = check_value(item, items, path + (i,))
            if found:
                return found
    return None


def item_schema(collection: str) -> list[dict]:
    return [_schema()["properties"][collection]["items"]]


def root_schema() -> list[dict]:
    return [_schema()]
