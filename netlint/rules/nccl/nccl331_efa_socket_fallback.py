from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.rules.base import Rule


class EfaSocketFallback(Rule):
    """An env configured for AWS EFA that makes NCCL use TCP sockets instead.

    What: the env runs over EFA (the inventory's fabric is `efa`, or it sets `FI_PROVIDER=efa` or other
    `FI_EFA_*`/`OFI_NCCL_*` settings) and also sets `NCCL_NET=Socket` (NCCL's own TCP transport) or
    `NCCL_NET_PLUGIN=none` (no external net plugin is loaded, so aws-ofi-nccl never runs).

    Why: NCCL reaches EFA only through the aws-ofi-nccl net plugin. Without it NCCL's internal
    transports remain, and on EFA that is the Socket transport over the instance's TCP network: the
    job runs, at a fraction of the bandwidth, and only `NCCL_DEBUG=INFO` shows `NET/Socket`.

    Bad:  `FI_PROVIDER=efa` with `NCCL_NET_PLUGIN=none`
    Good: `FI_PROVIDER=efa`, `NCCL_NET_PLUGIN` unset (or naming the aws-ofi-nccl library)

    Fix: none automatic (remove the setting that disables the plugin).

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/plugin/net.cc` L256-300 (`NCCL_NET_PLUGIN=none` loads no
    external plugin; the internal IB and Socket transports are added after the external ones) and
    `src/plugin/plugin_open.cc` L79-125 (a plugin that cannot be opened is only an INFO line); NCCL User
    Guide, Environment Variables: NCCL_NET, NCCL_NET_PLUGIN; aws/aws-ofi-nccl PR#850 and #280.
    """

    code = "NCCL331"
    name = "efa-socket-fallback"
    summary = "EFA env that makes NCCL fall back to TCP sockets"
    severity = Severity.ERROR
    tags = ("nccl", "efa")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.rules.nccl._common import settings
        from netlint.rules.nccl._stack_context import efa_reason

        for name, bad in (("NCCL_NET", "socket"), ("NCCL_NET_PLUGIN", "none")):
            for env, var in settings(ws, name):
                if var.known.strip().lower() != bad:
                    continue
                why = efa_reason(ws, env)
                if why is None:
                    continue
                what = ("selects NCCL's TCP Socket transport" if name == "NCCL_NET"
                        else "loads no net plugin, so aws-ofi-nccl never runs and NCCL falls back to TCP sockets")
                yield self.finding(f"{name}={var.known} {what} on an EFA setup: inter-node traffic goes over TCP, "
                                   f"not EFA", var.span, key=name, related=(why,))
