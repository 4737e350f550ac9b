from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.nccl.fixes import piece_span, value_fix
from netlint.rules.base import Rule
from netlint.rules.nccl.nccl303_invalid_value import value_problems


class MisreadValue(Rule):
    """A value NCCL accepts but reads as something other than what is written.

    What: integer and boolean knobs go through `strtoll(value, NULL, 0)`, so:
    `true`/`yes`/`on` read as **0** (`NCCL_IB_DISABLE=true` leaves IB on); a leading zero means
    octal (`NCCL_IB_TC=0106` is 70, DSCP 17, not DSCP 26); the number stops at the first non-digit
    (`NCCL_BUFFSIZE=8M` is 8 bytes). `NCCL_SHM_DISABLE`/`NCCL_P2P_DISABLE` disable only with the
    value 1. Legacy integers for `NCCL_P2P_LEVEL`/`NCCL_NET_GDR_LEVEL` (`5` = `SYS`) are reported as
    info with the level name. `NCCL_DEBUG_FILE` expands only `%h` (host), `%p` (pid) and `%%`; any
    other `%x` (`%r` for a rank) stays in the name as written, so without `%p` the processes of a host
    write one file, each opening it with "w".

    Why: none of these produce an error or a warning in NCCL's log; the job runs with a setting
    nobody wrote.

    A list value in `srun --export=` / `#SBATCH --export=` (`NCCL_IB_HCA=mlx5_0,mlx5_1`) is cut at its
    first comma: Slurm splits the option at every comma outside quotes and takes `mlx5_1` as the name of
    a variable to pass on (SchedMD/slurm@284c3b95 `src/common/env.c` `find_quote_token`, `src/srun/launch.c`
    `_build_user_env`).

    Bad:  `NCCL_IB_DISABLE=true`, `NCCL_IB_TC=0106`, `NCCL_BUFFSIZE=8M`
    Good: `NCCL_IB_DISABLE=1`, `NCCL_IB_TC=106`, `NCCL_BUFFSIZE=8388608`

    Fix: the written intent (`1`, the decimal number, bytes); unsafe since NCCL then behaves as
    written rather than as it does today. `false` → `0` and `5` → `SYS` keep the behaviour (safe).

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/misc/param.cc` L95 (`strtoll(str, nullptr, 0)`: `0x`
    hex, octal after a leading 0, stops at the first non-digit, `true` → 0), `src/transport/shm.cc`
    L66 and `src/graph/paths.cc` L247-251 (only the value 1 disables SHM / P2P),
    `src/graph/paths.cc` L243, L268-273 (legacy level integers 0..5 → LOC, PIX, PXB, PHB, SYS, SYS);
    `src/debug.cc` L197-236 (the NCCL_DEBUG_FILE name: `%%`, `%h`, `%p`, "Echo everything we don't
    understand", then `fopen(…, "w")`);
    C `strtoll(3)`.
    """

    code = "NCCL304"
    name = "misread-value"
    summary = "Value NCCL reads differently than written (true→0, octal, unit suffix)"
    severity = Severity.WARNING
    tags = ("nccl",)

    def check(self, ws) -> Iterator[Finding]:
        yield from _cut_by_srun(self, ws)
        for var, p in value_problems(ws, "misread"):
            fix = value_fix(var, p.fix, ws, f"write {var.key}={p.fix}", p.safe) if p.fix else None
            yield self.finding(p.message, piece_span(var, p.start, p.end), key=var.key, fix=fix,
                               severity=Severity.parse(p.severity))


def _cut_by_srun(rule, ws) -> Iterator[Finding]:
    """``srun --export=ALL,NCCL_IB_HCA=mlx5_0,mlx5_1``: Slurm splits the list at every comma outside
    quotes, so the value ends at the first one (netlint.nccl.slurm_export)."""
    from netlint.nccl import scope
    from netlint.nccl.slurm_export import CUT

    for _, var in scope.nccl_assignments(ws):
        rest = next((f[len(CUT):] for f in var.flags if f.startswith(CUT)), None)
        if rest is None or var.known is None:
            continue
        where = "srun" if var.how.startswith("srun") else "sbatch"
        yield rule.finding(f"{var.key} gets `{var.known}` only: {where} --export splits its list at every comma, "
                           f"so `{rest}` is taken as the name of a variable to pass on; export "
                           f"{var.key}={var.known},{rest} in the script before {where} (with ALL) instead",
                           var.span, key=f"{var.key}:srun-cut", severity=Severity.WARNING)
