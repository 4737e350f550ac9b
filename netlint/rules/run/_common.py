"""Helpers shared by the RUN7xx rules (not a rule: no ``code``)."""

from __future__ import annotations

from netlint.findings import Related


def related_var(var, what: str = "") -> tuple[Related, ...]:
    """A Related pointing at an env assignment (``var``: NcclVar)."""
    if var is None:
        return ()
    return (Related(var.span, what or f"{var.key}={var.known} is set here"),)


def inventory_related(ws, span, message: str) -> tuple[Related, ...]:
    return (Related(span, message),) if span is not None else ()


def fmt_bytes(n: float) -> str:
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div:g} {unit}"
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div:
            return f"{n / div:.1f} {unit}"
    return f"{n:g} B"


def once(items, key):
    """The first item per ``key(item)`` (logs repeat a line once per rank)."""
    seen, out = set(), []
    for item in items:
        k = key(item)
        if k not in seen:
            seen.add(k)
            out.append(item)
    return out
