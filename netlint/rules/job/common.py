"""Helpers shared by JOB4xx rules (no rules here)."""

from __future__ import annotations

from typing import Iterator

from netlint.findings import Related
from netlint.located import Scalar
from netlint.models.job import TrainingJob, training_jobs

MEGATRON_FAMILY = ("megatron", "megatron-deepspeed", "nemo")


def jobs(ws, *frameworks: str) -> Iterator[TrainingJob]:
    for j in training_jobs(ws):
        if not frameworks or j.framework in frameworks:
            yield j


def origin(s: Scalar | None, what: str = "value set here") -> list[Related]:
    """A related location when the value came through a shell variable (its literal is elsewhere)."""
    o = getattr(s, "origin", None)
    if s is None or o is None or o.line <= 0:
        return []
    if (o.file, o.line, o.col) == (s.span.file, s.span.line, s.span.col):
        return []
    return [Related(o, what)]


def related(*pairs) -> list[Related]:
    out: list[Related] = []
    for s, msg in pairs:
        if isinstance(s, Scalar) and s.span.line > 0:
            out.append(Related(s.span, msg))
            out.extend(origin(s))
    return out


def key(job: TrainingJob, what: str) -> str:
    return f"{job.label}:{what}"
