"""Helpers shared by the XC6xx rules (not a rule: no ``code``)."""

from __future__ import annotations

from netlint.findings import Related
from netlint.nccl import lists, scope
from netlint.nearest import distance


def transport(ws) -> str | None:
    """The inventory's fabric transport (roce, infiniband, ethernet, efa), None without an inventory."""
    try:
        return ws.inventory.fabric.transport.value
    except AttributeError:
        return None


def inventory_nics(ws):
    """(group, nic) for every NIC of every node group of the inventory."""
    inv = ws.inventory
    if inv is None:
        return []
    return [(g, n) for g in inv.node_groups for n in g.nics]


def rail_nics(group):
    """The NICs that carry rails: those with ``rail`` set, else all of the group's NICs."""
    with_rail = [n for n in group.nics if n.rail is not None]
    nics = with_rail or list(group.nics)
    return sorted(nics, key=lambda n: (n.rail.value if n.rail is not None else 0, n.hca.value))


def list_settings(ws, name):
    """(env, var, parsed list) for a list variable with a clean value (syntax faults are NCCL305's)."""
    for env, var in scope.nccl_assignments(ws):
        if var.key != name or var.known is None or var.conditional or len(var.known) <= 1:
            continue
        if lists.problems(name, var.known) and any(p.severity != "info" for p in lists.problems(name, var.known)):
            continue
        yield env, var, lists.parse(var.known)


def summary(names: list[str], limit: int = 6) -> str:
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit - 1]) + f", … {names[-1]} ({len(names)} in all)"


def near(name: str, candidates: list[str]) -> str | None:
    """The closest device name (case kept), within 2 edits."""
    best = sorted((distance(name, c, 2), c) for c in candidates)
    return best[0][1] if best and best[0][0] <= 2 else None


def inventory_related(span, message: str) -> tuple[Related, ...]:
    return (Related(span, message),) if span is not None else ()
