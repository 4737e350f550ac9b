from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.rules.base import Rule
from netlint.rules.nccl._common import ivalue, settings

MAX_SOCKETS = 64   # static array in NCCL's socket transport (NVIDIA/nccl#438)


class SocketThreadLimit(Rule):
    """`NCCL_SOCKET_NTHREADS × NCCL_NSOCKS_PERTHREAD` above 64.

    What: both are set in one environment and their product exceeds 64 sockets per connection.

    Why: NCCL's socket transport keeps sockets in a static array of 64 (`MAX_SOCKETS`); the
    documentation caps the product at 64.

    Bad:  `NCCL_SOCKET_NTHREADS=16` with `NCCL_NSOCKS_PERTHREAD=8`
    Good: `NCCL_SOCKET_NTHREADS=8` with `NCCL_NSOCKS_PERTHREAD=8`

    Fix: lower one of them (no automatic fix).

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/transport/net_socket.cc` L192-193 (`MAX_SOCKETS 64`,
    `MAX_THREADS 16`); NCCL User Guide, Environment Variables: NCCL_SOCKET_NTHREADS,
    NCCL_NSOCKS_PERTHREAD; NVIDIA/nccl#438.
    """

    code = "NCCL318"
    name = "socket-thread-limit"
    summary = "NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD above 64"
    severity = Severity.WARNING
    tags = ("nccl",)

    def check(self, ws) -> Iterator[Finding]:
        for env, var in settings(ws, "NCCL_NSOCKS_PERTHREAD"):
            other = env.get("NCCL_SOCKET_NTHREADS")
            a, b = ivalue(var), ivalue(other) if other is not None and other.known is not None else None
            if a is None or b is None or other.conditional or a * b <= MAX_SOCKETS:
                continue
            yield self.finding(f"NCCL_SOCKET_NTHREADS={b} x NCCL_NSOCKS_PERTHREAD={a} = {a * b} sockets, above "
                               f"NCCL's limit of {MAX_SOCKETS}", var.span, key=var.key,
                               related=(Related(other.span, f"NCCL_SOCKET_NTHREADS={b}"),))
