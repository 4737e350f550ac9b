"""Validate a located document against a pydantic model; turn errors into located NL findings."""

from __future__ import annotations

import difflib
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from netlint.findings import Finding, Severity
from netlint.located import MapNode, SeqNode, Span, locate

M = TypeVar("M", bound=BaseModel)
EXCERPT = 60  # characters of a value a message quotes: a file is never echoed whole (a policy path
              # naming /etc/passwd, a scalar that is the whole file)


def excerpt(value: Any, limit: int = EXCERPT) -> str:
    """``value`` as a short literal for a message: its ``repr`` (newlines, control and invisible
    characters escaped), cut to ``limit`` characters with "…"."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def validate(model: type[M], root: Any, context: str = "") -> tuple[M | None, list[Finding]]:
    """``model`` validated from ``root`` (a located node tree); schema errors become findings."""
    if not isinstance(root, MapNode):
        span = getattr(root, "span", None) or Span("", 1, 1, 1, 1)
        what = context or model.__name__
        return None, [Finding("NL005", f"{what} must be a mapping, found {_kind(root)}", span)]
    try:
        return model.model_validate(root), []
    except ValidationError as exc:
        return None, errors_to_findings(exc, root, model)


def errors_to_findings(exc: ValidationError, root: MapNode, model: type[BaseModel]) -> list[Finding]:
    out: list[Finding] = []
    seen: set[tuple] = set()
    for err in exc.errors(include_url=False):
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-")))
        dotted = ".".join(str(p) for p in loc) or "(top level)"
        if err["type"] == "extra_forbidden":
            parent, _ = _deepest(root, loc[:-1])
            key = loc[-1]
            span = parent.key_span(key) if isinstance(parent, MapNode) else root.span
            allowed = _allowed_keys(model, loc[:-1])
            hint = difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6)
            msg = f"unknown key '{key}'" + (f" at {'.'.join(map(str, loc[:-1]))}" if loc[:-1] else "")
            if hint:
                msg += f"; did you mean '{hint[0]}'?"
            finding = Finding("NL004", msg, span, Severity.ERROR, key=dotted)
        else:
            node, path = _deepest(root, loc)
            span = node.span if hasattr(node, "span") else root.span
            if err["type"] == "missing":
                msg = f"missing required key '{loc[-1]}'" + (
                    f" in {'.'.join(map(str, path))}" if path else "")
            else:
                got = err.get("input")
                got_text = getattr(got, "value", got)
                msg = f"{dotted}: {err['msg']}"
                if not isinstance(got_text, (dict, list)):
                    msg += f" (got {excerpt(got_text)})"
            finding = Finding("NL005", msg, span, Severity.ERROR, key=dotted)
        ident = (finding.code, span.line, span.col, finding.message)
        if ident not in seen:
            seen.add(ident)
            out.append(finding)
    return out


def _deepest(root: Any, loc: tuple) -> tuple[Any, tuple]:
    node, path = root, ()
    for part in loc:
        if isinstance(part, int) and isinstance(node, MapNode):
            continue  # a single mapping accepted where a list is allowed
        nxt = locate(node, (part,))
        if nxt is None:
            break
        node, path = nxt, path + (part,)
    return node, path


def _allowed_keys(model: type[BaseModel], loc: tuple) -> list[str]:
    """Field names (and aliases) of the sub-model at ``loc``, for did-you-mean."""
    current: Any = model
    for part in loc:
        if isinstance(part, int) or current is None:
            continue
        field = getattr(current, "model_fields", {}).get(part) or next(
            (f for f in getattr(current, "model_fields", {}).values() if f.alias == part), None)
        current = _submodel(field.annotation) if field else None
    if current is None or not hasattr(current, "model_fields"):
        return []
    names = []
    for name, f in current.model_fields.items():
        names.append(f.alias or name)
    return names


def _submodel(annotation: Any) -> Any:
    import typing

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _submodel(arg)
        if found is not None:
            return found
    return None


def _kind(node: Any) -> str:
    if isinstance(node, MapNode):
        return "a mapping"
    if isinstance(node, SeqNode):
        return "a list"
    return f"{type(getattr(node, 'value', node)).__name__} {excerpt(getattr(node, 'value', node))}"
