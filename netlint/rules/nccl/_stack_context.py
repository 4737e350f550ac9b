"""Which stack an env runs on, for the NCCL3xx rules on other stacks' combinations (not a rule)."""

from __future__ import annotations

from netlint.findings import Related
from netlint.rules.nccl._common import transport


def known(env, name: str):
    """The assignment of ``name`` in ``env`` when its value is known and it surely happens, else None."""
    var = env.get(name)
    if var is None or var.known is None or var.conditional or not var.exported:
        return None
    return var


def efa_reason(ws, env) -> Related | None:
    """Why ``env`` runs over EFA: the inventory says so, or the env selects libfabric's EFA provider or
    configures aws-ofi-nccl. None when nothing says so (stay silent)."""
    inv = ws.inventory
    if transport(ws) == "efa":
        return Related(inv.fabric.transport.span, "the inventory's fabric is efa")
    fi = known(env, "FI_PROVIDER")
    if fi is not None and fi.known.strip().split(",")[0].strip().lower() == "efa":
        return Related(fi.span, f"FI_PROVIDER={fi.known}")
    for var in env.variables:
        if var.key.startswith(("FI_EFA_", "OFI_NCCL_")) and var.known is not None and not var.conditional:
            return Related(var.name.span, f"{var.key} configures EFA / aws-ofi-nccl")
    return None


def gpus(ws) -> set[str]:
    """The GPU models of the inventory's node groups (empty without an inventory)."""
    inv = ws.inventory
    if inv is None:
        return set()
    try:
        return {g.gpu.value for g in inv.node_groups}
    except AttributeError:
        return set()


def stack_settings(ws, name: str):
    """(env, var) for assignments of ``name`` (any stack's name) that surely happen with a known value:
    NCCL3xx's ``settings`` for names outside ``NCCL_*``."""
    from netlint.nccl import scope
    from netlint.nccl.layers import is_overridden

    for env, var in scope.assignments(ws):
        if var.key == name and var.known is not None and not var.conditional and var.exported \
                and not is_overridden(ws, var):
            yield env, var


class Effective:
    """``env.get`` over one launch's effective assignments (the value that wins for each name)."""

    def __init__(self, eff: dict):
        self._eff = eff

    def get(self, name: str):
        return self._eff.get(name)


def launches(ws):
    """One :class:`Effective` view per launch (scope.launch_groups): what each launch runs with."""
    from netlint.nccl import scope

    for anchor, group in scope.launch_groups(ws):
        yield Effective(scope.effective(group))


def once(findings):
    """Each finding once: an env file shared by several launches is judged in each of them."""
    seen: set[tuple] = set()
    for f in findings:
        where = (f.span.file, f.span.line, f.span.col, f.message)
        if where not in seen:
            seen.add(where)
            yield f
