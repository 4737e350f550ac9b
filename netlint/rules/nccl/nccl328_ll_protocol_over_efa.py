from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.rules.base import Rule
from netlint.rules.nccl._common import settings

# GPUs of the EFA instances without RDMA write (p4d/p4de: A100): aws-ofi-nccl runs its SENDRECV
# protocol there, where LL/LL128 are not safe at all.
PRE_P5 = ("A100",)


def _enables_ll(value: str) -> list[str]:
    """The LL protocols a NCCL_PROTO value turns on explicitly (``^LL128`` excludes; ``allreduce:LL``
    counts)."""
    out = []
    for part in value.split(";"):
        body = part.split(":", 1)[1] if ":" in part else part
        if body.strip().startswith("^"):
            continue
        for token in body.split(","):
            t = token.strip().upper()
            if t in ("LL", "LL128") and t not in out:
                out.append(t)
    return out


class LlProtocolOverEfa(Rule):
    """`NCCL_PROTO` forces LL or LL128 on AWS EFA.

    What: `NCCL_PROTO` lists `LL` or `LL128` (not as an exclusion) in an env that runs over EFA: the
    inventory's fabric is `efa`, or the env sets `FI_PROVIDER=efa` or other `FI_EFA_*`/`OFI_NCCL_*`
    settings. An error where aws-ofi-nccl can only use its SENDRECV protocol (`OFI_NCCL_PROTOCOL=SENDRECV`,
    or A100 nodes: p4d has no RDMA write); a warning elsewhere, where it is safe only with the plugin's
    RDMA protocol on P5 and later (aws-ofi-nccl v1.8.0 and later).

    Why: LL and LL128 poll flags inside the data and need 8-byte (LL) or 128-byte (LL128) writes to land
    atomically and in order; EFA's send/recv path may segment and reorder, so forcing them corrupts
    results silently (NaN/Inf after an all-reduce). AWS's answer: "NCCL_PROTO=simple is a must to ensure
    data consistency when using EFA"; aws-ofi-nccl itself sets `NCCL_PROTO=simple` when GDR is
    unsupported (v1.15.0) and relaxed that only for P5's RDMA protocol.

    Bad:  `FI_PROVIDER=efa` with `NCCL_PROTO=LL128`
    Good: `NCCL_PROTO` unset (the plugin and its tuner choose), or `NCCL_PROTO=simple`

    Fix: remove the setting (no automatic fix: the platform may need `simple`).

    Source: aws/aws-ofi-nccl#76 (EFA does not support LL/LL128; simple is a must), NVIDIA/nccl#716
    (data corruption with GPUDirect RDMA on EFA), aws/aws-ofi-nccl PR#280 (v1.8.0-aws: not forcing
    simple only on P5 with the RDMA protocol; send/recv may segment at non-128-byte points) and PR#850
    (v1.15.0: `NCCL_PROTO=simple` when GDR is unsupported), aws/aws-ofi-nccl@2daf7d30
    `include/nccl_ofi.h` L910-913; ofiwg/libfabric#11499.
    """

    code = "NCCL328"
    name = "ll-protocol-over-efa"
    summary = "NCCL_PROTO forces LL/LL128 over AWS EFA (data corruption)"
    severity = Severity.WARNING
    tags = ("nccl", "efa")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.rules.nccl._stack_context import efa_reason, gpus, known

        for env, var in settings(ws, "NCCL_PROTO"):
            protos = _enables_ll(var.known)
            if not protos:
                continue
            why = efa_reason(ws, env)
            if why is None:
                continue
            related = [why]
            proto = known(env, "OFI_NCCL_PROTOCOL")
            sendrecv = proto is not None and proto.known.strip().upper() == "SENDRECV"
            old = [g for g in gpus(ws) if g.startswith(PRE_P5)]
            if sendrecv:
                related.append(Related(proto.span, "aws-ofi-nccl's SENDRECV protocol"))
            if sendrecv or old:
                sev = Severity.ERROR
                where = "aws-ofi-nccl's SENDRECV protocol" if sendrecv else f"{old[0]} (p4d) nodes"
                msg = (f"NCCL_PROTO={var.known} forces {'/'.join(protos)} over EFA with {where}: EFA does not "
                       f"deliver LL/LL128 flags atomically, so results can be silently corrupt; use simple")
            else:
                sev = Severity.WARNING
                msg = (f"NCCL_PROTO={var.known} forces {'/'.join(protos)} over EFA: safe only with aws-ofi-nccl's "
                       f"RDMA protocol on P5 or later (plugin v1.8.0+); elsewhere results can be silently "
                       f"corrupt. Leave NCCL_PROTO to the plugin")
            yield self.finding(msg, var.span, key=var.key, related=related, severity=sev)
