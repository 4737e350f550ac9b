from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Severity
from netlint.rules.base import Rule
from netlint.rules.run._common import related_var


class PluginNotLoaded(Rule):
    """The network plugin the environment names did not load, or NCCL chose another network.

    What:
    - `NCCL_NET_PLUGIN` is set (in the env that applies to the log, or as NCCL reports reading it) and
      the log has NCCL's plugin-loading failure (``NET/Plugin: Could not find: libnccl-net-ofi.so.``,
      ``NET/Plugin : dlerror=…``, a dlopen error) and no line saying a plugin loaded;
    - `NCCL_NET` names a network and the log's ``Using network`` names another.

    Why: when the plugin does not load NCCL carries on with its internal transports — IB verbs, or TCP
    sockets — without an error; on EFA or GPUDirect-TCPX that means sockets.

    Bad:  `NCCL_NET_PLUGIN=ofi` and ``NET/Plugin: Could not find: libnccl-net-ofi.so.``
    Good: ``NET/Plugin: Loaded net plugin AWS Libfabric (v6)`` … ``Using network AWS Libfabric``

    Fix: none automatic — install the plugin where the ranks run and put it on ``LD_LIBRARY_PATH``,
    or correct the name (NCCL tries ``NAME`` and ``libnccl-net-NAME.so``).

    Source: NVIDIA/nccl@68b54236 (v2.23.4-1) ``src/net.cc`` L374-441 (``openNetPluginLib``: the names
    tried, "Could not find", "Using internal network plugin"), L600-627 (``NCCL_NET`` matched against
    each net's name); v2.19.3-1 ``src/net.cc`` L231-234; v2.27.3-1 ``src/plugin/plugin_open.cc`` L60-106;
    aws/aws-ofi-nccl PR#280, PR#850.
    """

    code = "RUN703"
    name = "plugin-not-loaded"
    summary = "The net plugin the environment names did not load"
    severity = Severity.ERROR
    tags = ("run", "nccl")

    def check(self, ws) -> Iterator[Finding]:
        from netlint.run.intent import env_for, nccl_runs, plugin_failures

        for log, run in nccl_runs(ws):
            env = env_for(ws, log) or {}
            plugin = env.get("NCCL_NET_PLUGIN")
            wanted = plugin.known.strip() if plugin is not None else None
            if wanted is None:
                reads = run.env_reads("NCCL_NET_PLUGIN")
                wanted = reads[0].value.strip() if reads else None
            failed = plugin_failures(run)
            if wanted and wanted.lower() != "none" and failed and not run.plugin_loaded:
                yield self.finding(
                    f"NCCL_NET_PLUGIN={wanted}, but the plugin did not load ('NET/Plugin: {failed[0].value[:160]}'); "
                    f"NCCL went on with its internal transports"
                    + (f" (Using network {run.network.value})" if run.network is not None else ""),
                    failed[0].span, key=f"{log.file}:plugin", related=related_var(plugin))
            net = env.get("NCCL_NET")
            if net is not None and run.network is not None:
                want = net.known.strip()
                if want and want.lower() != run.network.value.strip().lower():
                    yield self.finding(
                        f"NCCL_NET={want}, but NCCL used network {run.network.value}", run.network.span,
                        key=f"{log.file}:net", related=related_var(net))
