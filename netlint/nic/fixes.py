"""Fix edits for NIC findings: replace one written token of a NIC file, in the token's own form.

Only files people edit get fixes (netlint's NIC YAML, NIC Configuration Operator templates, the
Spectrum-X profile): a saved ``mlxconfig`` / ``mlnx_qos`` / sysfs dump records what a host ran, so
its finding names the command instead. Values a file implies (``roceOptimized`` → ``CNP_DSCP_Pn=4``)
have no token to replace.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from netlint.findings import Fix, replace_span
from netlint.nic.roce import EDITABLE

if TYPE_CHECKING:
    from netlint.models.nic import NicQos
    from netlint.workspace import Workspace


def editable(nic: "NicQos", value: Any) -> bool:
    return (nic.format in EDITABLE and value is not None and not getattr(value, "implied", False)
            and value.span.start >= 0 and value.span.file == nic.file)


def token_fix(ws: "Workspace", nic: "NicQos", value: Any, new: str, description: str,
              safe: bool = False) -> Fix | None:
    """Replace the token of ``value`` with ``new``, keeping the quotes the file has around it."""
    if not editable(nic, value):
        return None
    text = ws.text(value.span.file)
    if text is None:
        return None
    old = text[value.span.start:value.span.end]
    if old[:1] in "\"'" and old[-1:] == old[:1] and len(old) >= 2:
        new = old[0] + new + old[0]
    return Fix(description, (replace_span(value.span, new, text),), safe=safe)


def pfc_text(old: str, prios: set[int]) -> str | None:
    """A PFC vector with ``prios`` on, written like ``old``: ``0,0,0,1,0,0,0,0``, ``00010000`` or ``[3]``."""
    body = old.strip().strip("\"'")
    if body.startswith("["):
        return "[" + ", ".join(str(p) for p in sorted(prios)) + "]"
    bits = ["1" if i in prios else "0" for i in range(8)]
    if "," in body:
        return ",".join(bits)
    if len(body) == 8:
        return "".join(bits)
    return None


def pfc_fix(ws: "Workspace", nic: "NicQos", prios: set[int], description: str) -> Fix | None:
    value = nic.pfc.value
    if not editable(nic, value):
        return None
    text = ws.text(value.span.file)
    if text is None:
        return None
    new = pfc_text(text[value.span.start:value.span.end], prios)
    return token_fix(ws, nic, value, new, description) if new is not None else None


def mask_text(old: str, mask: int) -> str:
    """``mask`` in the base ``old`` is written in (``0x18`` for ``0x10``, ``24`` for ``16``)."""
    body = old.strip().strip("\"'")
    return hex(mask) if body.lower().startswith("0x") else str(mask)
