"""Helpers shared by FAB5xx rules (no rules here)."""

from __future__ import annotations

from netlint.fabric.model import JobModel, job_models
from netlint.models.job import training_jobs


def models(ws):
    """(job, model) for every training job, when the workspace has an inventory."""
    if ws.inventory is None:
        return
    table = job_models(ws)
    for job in training_jobs(ws):
        m = table.get(id(job))
        if m is not None:
            yield job, m


def gb(nbytes: float) -> str:
    return f"{nbytes / 1e9:.1f} GB"


def transport_name(t: str | None) -> str:
    return {"roce": "RoCE", "infiniband": "InfiniBand", "ethernet": "Ethernet", "efa": "EFA"}.get(t or "", "the fabric")


def dimension_words(m, dim: str) -> str:
    """A dimension as the user wrote it: TP=16, DP=64, EP=8 (EDP: the expert data-parallel size)."""
    p = m.parallel
    if dim == "EDP" and m.split is not None:
        size = max(1, m.split.world // (m.split.expert_tp * m.split.ep * m.split.pp))
    else:
        size = p.get(dim.lower())
    return f"{dim}={size}" if size else dim
