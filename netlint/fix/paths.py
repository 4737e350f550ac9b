"""Structural edits on plain data: the semantics every format's structural editor must match.

``set_path(data, path, value)`` sets ``value`` at ``path`` (mapping keys and sequence indexes),
creating missing mappings on the way. When both the existing value and ``value`` are mappings the
keys are merged one by one (so a fix that adds ``{"watchdog": "on"}`` to an existing mapping keeps
its other keys); otherwise the value is replaced. An index equal to a sequence's length appends.

The YAML and JSON editors change the file text; the fixer then loads the result and compares it
with ``set_path`` applied to the data loaded before, so an editor can never change more than asked.
"""

from __future__ import annotations

from typing import Any

from netlint.fix.errors import FixError

MISSING = object()


def match_key(mapping: dict, part: Any) -> Any:
    """The key of ``mapping`` that ``part`` names, or MISSING. Exact match first; then by text,
    because the same key can load as ``26`` (YAML int) in one parser and ``"26"`` in another."""
    for k in mapping:
        if k == part and type(k) is type(part):
            return k
    for k in mapping:
        if k == part and not isinstance(k, bool) and not isinstance(part, bool):
            return k
    text = str(part)
    for k in mapping:
        if str(k) == text:
            return k
    return MISSING


def unshare(data: Any) -> Any:
    """A deep copy in which no two places share an object (YAML aliases become copies), so setting
    a value through one path never changes another."""
    if isinstance(data, dict):
        return {k: unshare(v) for k, v in data.items()}
    if isinstance(data, list):
        return [unshare(v) for v in data]
    return data


def set_path(data: Any, path: tuple, value: Any) -> Any:
    """``data`` with ``value`` set at ``path`` (mutates and returns ``data``)."""
    if not path:
        if isinstance(data, dict) and isinstance(value, dict):
            for k, v in value.items():
                set_path(data, (k,), v)
            return data
        return unshare(value)
    node = data
    for part in path[:-1]:
        node = _child(node, part, create=True)
    last = path[-1]
    if isinstance(node, dict):
        k = match_key(node, last)
        if k is not MISSING and isinstance(node[k], dict) and isinstance(value, dict):
            for kk, vv in value.items():
                set_path(node[k], (kk,), vv)
        else:
            node[last if k is MISSING else k] = unshare(value)
    elif isinstance(node, list) and isinstance(last, int) and 0 <= last <= len(node):
        if last == len(node):
            node.append(unshare(value))
        elif isinstance(node[last], dict) and isinstance(value, dict):
            for kk, vv in value.items():
                set_path(node[last], (kk,), vv)
        else:
            node[last] = unshare(value)
    else:
        raise FixError(f"cannot set {format_path(path)}: {type(node).__name__} in the way")
    return data


def _child(node: Any, part: Any, create: bool) -> Any:
    if isinstance(node, dict):
        k = match_key(node, part)
        if k is MISSING:
            if not create:
                raise FixError(f"no key {part!r}")
            node[part] = {}
            return node[part]
        return node[k]
    if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
        return node[part]
    raise FixError(f"cannot descend into {type(node).__name__} with {part!r}")


def format_path(path: tuple) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "(document root)"
