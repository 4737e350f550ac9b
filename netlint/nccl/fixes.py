"""Edits and spans for NCCL findings: the value token, a piece of it, the name, a new line.

Values keep their quotes in the file (``"eth0, eth1"``); a replacement is written with the same quote
so the file keeps its style. Pieces of a value (one token of ``NCCL_ALGO``, one HCA of
``NCCL_IB_HCA``) get their own span when the value is written verbatim (no escapes), else the whole
value's span.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from netlint.findings import Edit, Fix, replace_span
from netlint.located import Scalar, Span

if TYPE_CHECKING:
    from netlint.models.nccl import NcclEnv, NcclVar
    from netlint.workspace import Workspace


def _inner(var: "NcclVar") -> tuple[Span, int] | None:
    """(span of the value token, offset of the value's first character in it), when verbatim."""
    v = var.value
    if not isinstance(v, Scalar):
        return None
    text = var.known or ""
    raw = v.raw if v.raw is not None else ""
    if raw == text:
        return v.span, 0
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'" and raw[1:-1] == text:
        return v.span, 1
    return None


def piece_span(var: "NcclVar", start: int, end: int | None) -> Span:
    """The span of characters ``[start, end)`` of the value (the whole value when not exact)."""
    if end is None or (start == 0 and end >= len(var.known or "")):
        return var.span
    hit = _inner(var)
    if hit is None:
        return var.span
    span, lead = hit
    text = var.known or ""
    end = max(end, start + 1) if start < len(text) else end
    before = text[:start]
    if "\n" in before or "\n" in text[start:end]:
        return span
    a = span.start + lead + start
    b = span.start + lead + end
    return Span(span.file, span.line, span.col + lead + start, span.line, span.col + lead + end, a, b)


def value_edit(var: "NcclVar", new: str, ws: "Workspace") -> Edit | None:
    """Replace the whole value token with ``new`` (re-quoted like the original)."""
    v = var.value
    if not isinstance(v, Scalar) or v.span.start < 0 or "via-variable" in var.flags:
        return None
    raw = v.raw or ""
    quote = raw[0] if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'" else ""
    if var.how == "k8s" and not quote:
        quote = '"' if not new.isidentifier() else ""
    text = ws.text(v.span.file)
    return replace_span(v.span, f"{quote}{new}{quote}", text)


def rename_edit(var: "NcclVar", new: str, ws: "Workspace") -> Edit:
    text = ws.text(var.name.span.file)
    quote = ""
    if var.name.quoted and text is not None and var.name.span.start >= 0:
        quote = text[var.name.span.start]
    return replace_span(var.name.span, f"{quote}{new}{quote}", text)


def value_fix(var: "NcclVar", new: str, ws: "Workspace", description: str, safe: bool = False) -> Fix | None:
    edit = value_edit(var, new, ws)
    return Fix(description, (edit,), safe) if edit is not None else None


def add_line(env: "NcclEnv", name: str, value: str, ws: "Workspace", description: str,
             safe: bool = False) -> Fix | None:
    """Add ``name=value`` to a text env file (shell gets ``export``); None for manifests.

    ``.env`` and nccl.conf files get the line at the end. A shell script gets it right after its last
    ``export`` (else after the ``#!`` line), so it comes before the commands that launch the job.
    None too for an env that is part of a file (``scope`` set: a container, a ConfigMap entry, a Helm
    values block, a Dockerfile stage): a line added at the file's end would land outside it.
    """
    if env.format not in ("shell", "dotenv", "nccl.conf") or env.scope is not None:
        return None
    text = ws.text(env.file)
    if text is None:
        return None
    if env.format == "shell":
        stmt = f"export {name}={value}"
        own = [v.statement for v in env.variables
               if v.statement is not None and v.statement.file == env.file and v.exported and not v.scoped]
        if own:
            last = max(own, key=lambda s: s.end)
            nl = text.find("\n", last.end)
            at = len(text) if nl < 0 else nl + 1
        else:
            at = text.find("\n") + 1 if text.startswith("#!") else 0
        new = (stmt + "\n") if at == 0 or text[at - 1:at] == "\n" else ("\n" + stmt + "\n")
    else:
        stmt = f"{name}={value}"
        at = len(text)
        new = (stmt + "\n") if text.endswith("\n") or not text else ("\n" + stmt + "\n")
    line = text.count("\n", 0, at) + 1
    col = at - (text.rfind("\n", 0, at) + 1) + 1
    span = Span(env.file, line, col, line, col, at, at)
    return Fix(description, (Edit(span, new, ""),), safe)
