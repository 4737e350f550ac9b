from __future__ import annotations

from netlint.findings import Related, Severity
from netlint.rules.base import Rule
from netlint.rules.fab.common import models
from netlint.rules.job.common import key, origin


class JobExceedsCluster(Rule):
    """The job asks for more GPUs or nodes than the cluster has, or a different number of GPUs per node.

    **What**: world size > the inventory's GPUs, nodes > its nodes (error); processes per node
    (``--nproc_per_node``, ``--ntasks-per-node``, ``trainer.devices``, ``--num_gpus``) more than the GPUs
    of a node (error) or fewer (warning: GPUs left idle; not for a one-process job on one node, such as the
    checkpoint-conversion configs NeMo ships with ``devices: 1``).

    **Why**: the scheduler never starts a job larger than the cluster; more processes than GPUs on a node
    share GPUs (CUDA errors or OOM); fewer leave paid GPUs idle and shift every rank's placement.

    **Bad**: ``--nproc_per_node 16`` on 8-GPU nodes **Good**: ``--nproc_per_node 8``

    **Source**: Slurm sbatch(1) (`--nodes`, `--ntasks-per-node`, `--gres`); pytorch/pytorch@010929fd
    `torch/distributed/run.py` (`--nproc-per-node`: worker processes per node);
    microsoft/DeepSpeed@38327e07 `deepspeed/launcher/runner.py` (`--num_nodes`, `--num_gpus`,
    hostfile `slots`); NeMo `trainer.devices` / `trainer.num_nodes` (PyTorch Lightning Trainer).
    """

    code = "FAB503"
    name = "job-exceeds-cluster"
    severity = Severity.ERROR
    summary = "World size, nodes and GPUs per node must fit the inventory"

    def check(self, ws):
        inv = ws.inventory
        if inv is not None and not inv.node_groups:
            return  # `nodes: []` states no cluster size to exceed
        gpus_node = {g.gpus.value for g in inv.node_groups} if inv is not None else set()
        rel = [Related(inv.node_groups[0].gpus.span, "GPUs per node in the inventory")] \
            if inv is not None and inv.node_groups else []
        for job, m in models(ws):
            world, nodes, per = job.int("world_size"), job.int("nodes"), job.int("gpus_per_node")
            total = inv.total_gpus
            n_nodes = sum(g.count.value for g in inv.node_groups)
            if world is not None and world > total:
                yield self.finding(f"world size {world} is larger than the cluster ({total} GPUs)",
                                   job.span_of("world_size"), key=key(job, "world-cluster"), related=rel)
            elif nodes is not None and nodes > n_nodes and "nodes" not in job.defaulted:
                yield self.finding(f"the job asks for {nodes} nodes; the cluster has {n_nodes}", job.span_of("nodes"),
                                   key=key(job, "nodes-cluster"), related=rel)
            if per is None or "gpus_per_node" in job.defaulted or len(gpus_node) != 1:
                continue
            g = next(iter(gpus_node))
            if per > g:
                yield self.finding(f"{per} processes per node but nodes have {g} GPUs", job.span_of("gpus_per_node"),
                                   key=key(job, "per-node"), related=rel + origin(job.gpus_per_node))
            elif per < g and not (per == 1 and (nodes is None or nodes == 1)):
                # One process on one node has no collective traffic to place: a conversion, eval or
                # debug config (NeMo's stock example configs carry devices: 1), not a mis-sized job.
                yield self.finding(f"{per} processes per node leave {g - per} of {g} GPUs idle",
                                   job.span_of("gpus_per_node"), key=key(job, "per-node"),
                                   related=rel + origin(job.gpus_per_node), severity=Severity.WARNING)
