"""Templates with parameters (kube-linter style): most policies need no CEL.

Each template becomes a CEL expression over ``self``; ``match-across`` compares values across all
selected nodes and is evaluated by the runner itself. A field is a dotted path below ``self``.
An absent field passes every template but ``required`` (other rules say what is missing).
"""

from __future__ import annotations

import json
import re

_FIELD = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")


class TemplateError(ValueError):
    """A template's parameters are wrong; ``param`` names the one to point at, when there is one."""

    def __init__(self, message: str, param: str = ""):
        super().__init__(message)
        self.param = param


def _field(params: dict) -> str:
    field = params.get("field")
    if not isinstance(field, str) or not _FIELD.match(field):
        raise TemplateError("params.field must be a dotted field name, e.g. watchdog.enabled", "field")
    return field


def present(field: str) -> str:
    """CEL: every step of ``self.a.b`` exists and is not null."""
    parts, out, path = field.split("."), [], "self"
    for p in parts:
        out.append(f"has({path}.{p})")
        path = f"{path}.{p}"
        out.append(f"{path} != null")
    return " && ".join(out)


def _literal(values) -> str:
    if not isinstance(values, list) or not values:
        raise TemplateError("params.values must be a non-empty list", "values")
    return json.dumps(values)


def expression(template: str, params: dict) -> str | None:
    """The CEL expression for ``template``, or None for templates the runner evaluates itself."""
    if template == "match-across":
        _field(params)
        return None
    field = _field(params)
    ref = f"self.{field}"
    if template == "required":
        if "equals" in params:
            return f"({present(field)}) && {ref} == {json.dumps(params['equals'])}"
        return present(field)
    if template == "forbidden":
        return f"!(({present(field)}) && {ref} in {_literal(params.get('values'))})"
    if template == "one-of":
        return f"!({present(field)}) || {ref} in {_literal(params.get('values'))}"
    if template == "range":
        lo, hi = params.get("min"), params.get("max")
        if lo is None and hi is None:
            raise TemplateError("params needs min, max or both")
        for bound in (lo, hi):
            if bound is not None and (isinstance(bound, bool) or not isinstance(bound, (int, float))):
                raise TemplateError("params.min and params.max must be numbers", "min" if lo is bound else "max")
        checks = ([f"double({ref}) >= {float(lo)}"] if lo is not None else []) + \
                 ([f"double({ref}) <= {float(hi)}"] if hi is not None else [])
        return f"!({present(field)}) || ({' && '.join(checks)})"
    if template == "pattern":
        pattern = params.get("pattern")
        if not isinstance(pattern, str) or not pattern:
            raise TemplateError("params.pattern must be a regular expression (RE2 syntax, as CEL matches())", "pattern")
        from netlint.policy.cel import CelError, compile_expression

        literal = json.dumps(pattern)
        try:  # the engine's own regex syntax decides, at load time rather than on every node
            compile_expression(f"''.matches({literal})").evaluate({})
        except CelError as exc:
            lines = [ln.strip() for ln in exc.message.splitlines()]
            why = next((ln[len("error:"):].strip() for ln in lines if ln.startswith("error:")), lines[0])
            why = why.split(". Check function")[0]
            raise TemplateError(f"params.pattern is not a valid regular expression: {why}", "pattern") from None
        return f"!({present(field)}) || string({ref}).matches({literal})"
    raise TemplateError(f"unknown template {template!r}")
