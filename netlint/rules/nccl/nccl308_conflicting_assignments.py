from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.nccl import scope
from netlint.rules.base import Rule


class ConflictingAssignments(Rule):
    """The same NCCL variable set twice in one environment with different values.

    What: within one env (a script with the files it sources, a `.env`, one container's `env:` list,
    one nccl.conf) a variable gets two different values. Assignments inside an `if` netlint cannot
    decide, one-command prefixes (`NCCL_X=1 cmd`) and values netlint cannot know are not compared,
    nor two assignments with a program run between them (a sweep: each value serves its own run).
    The finding sits on the assignment that does **not** take effect, with the winning one as a
    related location (possibly in another file, for a sourced file).

    Why: one of the two lines is dead, and a reader cannot tell which one the job runs with: in
    shell, `.env` and Kubernetes the last one wins (Kubernetes keeps the last duplicate), but in
    nccl.conf the **first** one wins, because NCCL applies each line with `setenv(name, value, 0)`.

    Bad:  `export NCCL_DEBUG=WARN` … later `export NCCL_DEBUG=INFO`
    Good: one `export NCCL_DEBUG=…`

    Fix: delete the line that has no effect (no automatic fix: which value is intended is a choice).

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/misc/param.cc` L27-50 (`setEnvFile` applies each
    nccl.conf line with `ncclOsSetEnv`) and `src/os/linux.cc` L107 (`setenv(name, value, 0)`: a
    variable already set is never overwritten); POSIX `setenv(3)`.
    """

    code = "NCCL308"
    name = "conflicting-assignments"
    summary = "NCCL variable set twice with different values"
    severity = Severity.WARNING
    tags = ("nccl",)

    def check(self, ws) -> Iterator[Finding]:
        for env in scope.envs(ws):
            by_name: dict[str, list] = {}
            for var in env.variables:
                if not var.key.startswith("NCCL_") or var.scoped or var.conditional or not var.exported \
                        or var.known is None or "append" in var.flags:
                    continue
                by_name.setdefault(var.key, []).append(var)
            for name, vars_ in by_name.items():
                if len({v.known for v in vars_}) < 2:
                    continue
                winner = vars_[0] if env.format == "nccl.conf" else vars_[-1]
                rule = "the first one wins (setenv never overwrites)" if env.format == "nccl.conf" \
                    else "the last one wins"
                for var in vars_:
                    if var is winner or var.known == winner.known or env.launch_between(var, winner):
                        continue
                    where = winner.name.span
                    at = f"line {where.line}" if where.file == var.file else f"{where.file}:{where.line}"
                    yield self.finding(
                        f"{name}={var.known} has no effect: {name} is set again to {winner.known} at {at}, "
                        f"and {rule}", var.span, key=name,
                        related=(Related(winner.span, f"{name}={winner.known} takes effect here"),))
