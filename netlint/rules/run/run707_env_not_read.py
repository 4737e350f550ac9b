from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.rules.base import Rule
from netlint.rules.run._common import once, related_var


class EnvNotAsRead(Rule):
    """A variable of the env file that the run read with another value, or did not read at all.

    What: NCCL logs each variable it reads (``NCCL_IB_GID_INDEX set by environment to 3.``, ``NCCL_IB_HCA
    set to mlx5_0``, ``Invalid value X for NCCL_Y, using default D.``). Against the env that applies to
    the log (its directory's env files, or the repo's only launch):
    - error: NCCL read a value other than the env's — another layer won (an image's
      ``/etc/nccl.conf``, the launcher, a later export), or NCCL rejected the value and used its
      default;
    - warning: the env sets a variable that NCCL always reports when it reads it on a path the log
      shows was taken, the log reports other variables, and this one is not among them: the setting
      never reached the ranks (not exported, another container, a launcher that drops it).
      The variables judged so: `NCCL_SOCKET_IFNAME`, `NCCL_ALGO`, `NCCL_PROTO` (every run),
      `NCCL_IB_HCA` (IB transport initialised), `NCCL_IB_TC`, `NCCL_IB_TIMEOUT` (IB connections),
      `NCCL_IB_GID_INDEX` (RoCE connections), `NCCL_NET_GDR_LEVEL` (network connections),
      `NCCL_P2P_LEVEL` (P2P connections).

    Why: a linted env file is only worth as much as the environment the job really had.

    Bad:  env `NCCL_IB_GID_INDEX=3`, log ``NCCL_IB_GID_INDEX set by environment to 5.``
    Good: the log reads what the env sets

    Fix: none automatic — find the layer that overrides it, or export the variable where the ranks start.

    Source: NVIDIA/nccl@68b54236 (v2.23.4-1) ``src/misc/param.cc`` L25-66 (``/etc/nccl.conf`` applied with
    ``setenv(…, 0)``), L72-90 (``ncclLoadParam``: "%s set by environment to %lld.", "Invalid value …
    using default"), ``src/misc/socket.cc`` L330-334, ``src/graph/tuning.cc`` L292-300,
    ``src/transport/net_ib.cc`` L403-404, L523-524, L1085, L1119, ``src/graph/paths.cc`` L210-245, L286,
    L395.
    """

    code = "RUN707"
    name = "env-not-as-read"
    summary = "Env variable the run read with another value, or did not read"
    severity = Severity.ERROR
    tags = ("run", "nccl")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.run.intent import READ_WHEN, env_for, nccl_runs, same_value, shows

        for log, run in nccl_runs(ws):
            env = env_for(ws, log)
            if not env:
                continue
            for read in once(run.env, lambda e: (e.name, e.value, e.rejected)):
                var = env.get(read.name)
                if var is None:
                    continue
                if read.rejected is not None:
                    yield self.finding(f"NCCL rejected {read.name}={read.rejected} and used its default {read.value}",
                                       read.span, key=f"{log.file}:{read.name}:rejected", related=related_var(var))
                    continue
                if same_value(read.name, var.known.strip(), read.value.strip()) is False:
                    yield self.finding(f"the run read {read.name}={read.value}, but the env sets {var.known}: another "
                                       f"layer set it (an image's /etc/nccl.conf, the launcher, a later export)",
                                       read.span, key=f"{log.file}:{read.name}:value", related=related_var(var))
            if not run.reports_env:
                continue
            names = {e.name for e in run.env}
            for name, when in READ_WHEN.items():
                var = env.get(name)
                if var is None or name in names or len(var.known.strip()) <= 1 or not shows(run, when):
                    continue
                yield self.finding(
                    f"the env sets {name}={var.known}, but the run never reports reading it, though NCCL prints "
                    f"'{name} set …' when it does and the log shows that code path ran: the setting did not reach "
                    f"the ranks", _where(run, when), key=f"{log.file}:{name}:unread", related=related_var(var),
                    severity=Severity.WARNING)


def _where(run, when: str):
    """The log line that shows the reading code path ran."""
    if when == "ib":
        return (run.ib_ports[0].span if run.ib_ports else run.ib_no_device[0].span)
    if when in ("ib-net", "roce-net"):
        return next(c.span for c in run.channels if c.net == "IB")
    if when == "net":
        return run.channels[0].span
    if when == "p2p":
        return next(p.span for p in run.paths if p.value.startswith("P2P/"))
    return run.env[0].name_span
