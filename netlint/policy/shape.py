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


def check_value(value: Any, nodes: list[dict], path: tuple = ()) -> str | None:
    """The first field of ``value`` (a policy example) the schema nodes do not have, as a message: an
    example with a misspelt field tests nothing the workspace can hold."""
    if not nodes or {} in nodes:
        return None
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
