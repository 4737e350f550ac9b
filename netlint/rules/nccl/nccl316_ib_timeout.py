from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.nccl.fixes import value_fix
from netlint.rules.base import Rule
from netlint.rules.nccl._common import ivalue, settings

LOWEST_DEFAULT = 14   # NCCL's default up to v2.13.4-1 (18 in v2.14.3-1..v2.22.3-1, 20 from v2.23.4-1)


class IbTimeout(Rule):
    """`NCCL_IB_TIMEOUT` that never times out, or times out too early.

    What: the verbs timeout is 4.096 µs × 2^value, in 0..31. `0` means **infinite** (error); a value
    of 32 or more is outside the field (error): NCCL copies it into the 8-bit `ibv_qp_attr.timeout` and
    mlx5 writes that into a 5-bit field, so it acts as its low five bits — 300 as 12 (≈17 ms, far too
    short), 64 as 0 (infinite). Values below 14 — the lowest default NCCL ever shipped — are a warning.

    Why: with an infinite timeout a lost peer hangs the job forever instead of failing with an
    error; a very small one (2 ≈ 16 µs) gives spurious "completion with error 12" (retry exceeded)
    under normal congestion.

    Bad:  `NCCL_IB_TIMEOUT=2`, `NCCL_IB_TIMEOUT=60`
    Good: `NCCL_IB_TIMEOUT=22` (the default is 20, ≈4.3 s)

    Fix: 20, NCCL's default (unsafe).

    Source: NCCL User Guide, Environment Variables: NCCL_IB_TIMEOUT; `ibv_modify_qp(3)` (timeout =
    4.096 µs × 2^value, 0 waits forever); NVIDIA/nccl `NCCL_PARAM(IbTimeout, "IB_TIMEOUT", …)`: 14
    in v2.13.4-1, 18 in v2.14.3-1 … v2.22.3-1, 20 from v2.23.4-1 (`src/transport/net_ib/connect.cc`
    L15 at 5067397c; the value goes into `qpAttr.timeout`, a `uint8_t`, L462);
    Mellanox/mlnx-ofa_kernel@28502354 `drivers/infiniband/hw/mlx5/qp.c` L4443
    (`MLX5_SET(ads, pri_path, ack_timeout, attr->timeout)`) and `include/linux/mlx5/mlx5_ifc.h` L831
    (`ack_timeout[0x5]`: five bits); areal-project/AReaL#640 (2 → 22); open-thoughts/OpenThoughts-Agent#77 (60);
    NVIDIA/nccl#902.
    """

    code = "NCCL316"
    name = "ib-timeout"
    summary = "NCCL_IB_TIMEOUT infinite (0), outside 0-31 or very small"
    severity = Severity.WARNING
    tags = ("nccl",)

    def check(self, ws) -> Iterator[Finding]:
        for env, var in settings(ws, "NCCL_IB_TIMEOUT"):
            n = ivalue(var)
            if n is None:
                continue
            fix = value_fix(var, "20", ws, "write NCCL's default, 20", safe=False)
            if n == 0:
                yield self.finding(f"NCCL_IB_TIMEOUT={var.known} means an infinite verbs timeout: a lost peer "
                                   f"hangs the job instead of failing", var.span, key=var.key, fix=fix,
                                   severity=Severity.ERROR)
            elif n >= 32 or n < 0:
                acts = n & 31  # NCCL: uint8_t qpAttr.timeout; mlx5: a 5-bit ack_timeout field
                if acts == 0:
                    effect = "so it acts as 0, an infinite timeout: a lost peer hangs the job instead of failing"
                elif acts < LOWEST_DEFAULT:
                    effect = (f"so it acts as {acts}, a {_duration(acts)} timeout: expect spurious retry-exceeded "
                              f"errors under congestion")
                else:
                    effect = f"so it acts as {acts} ({_duration(acts)}), not what was written"
                yield self.finding(f"NCCL_IB_TIMEOUT={var.known} is outside the verbs range 0-31: mlx5 keeps its "
                                   f"low five bits, {effect}", var.span, key=var.key, fix=fix,
                                   severity=Severity.ERROR)
            elif n < LOWEST_DEFAULT:
                yield self.finding(f"NCCL_IB_TIMEOUT={var.known} is a {_duration(n)} verbs timeout, below any "
                                   f"default NCCL shipped (14-20): expect spurious retry-exceeded errors under "
                                   f"congestion", var.span, key=var.key, fix=fix)


def _duration(value: int) -> str:
    """4.096 µs × 2^value, written in the unit that fits."""
    us = 4.096 * 2 ** value
    if us < 1000:
        return f"{us:.0f} µs"
    if us < 1e6:
        return f"{us / 1000:.1f} ms"
    return f"{us / 1e6:.1f} s"
