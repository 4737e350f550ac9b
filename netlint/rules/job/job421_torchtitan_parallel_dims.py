from __future__ import annotations

from netlint.findings import Related, Severity
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key, related

_DEGREES = (("dp_replicate", "data_parallel_replicate_degree"), ("dp_shard", "data_parallel_shard_degree"),
            ("cp", "context_parallel_degree"), ("tp", "tensor_parallel_degree"),
            ("pp", "pipeline_parallel_degree"))


class TorchtitanParallelDims(Rule):
    """torchtitan's parallel degrees do not multiply to the world size of the launch.

    **What**: a torchtitan job config (``[parallelism]`` of the TOML, with the ``--parallelism.*``
    overrides of the launch; in a TOML written before ``[parallelism]`` existed, ``[training]`` and
    ``[experimental]``, read as that torchtitan read them) started by a launch script of the repository (``torchrun
    --nproc_per_node=8 … -m torchtitan.train --job.config_file X.toml``, a Slurm script's ``torchrun
    --nnodes 4 --nproc_per_node 8 …``) whose ``data_parallel_replicate_degree ×
    data_parallel_shard_degree × context_parallel_degree × tensor_parallel_degree ×
    pipeline_parallel_degree`` is not the world size torchrun starts; or a degree below 1.
    ``data_parallel_shard_degree = -1`` takes what the others leave, so it fails only when the world
    size is not a multiple of the others (or smaller).

    **Why**: ``ParallelDims._validate`` asserts "Parallelism degree should be >= 1, except for dp_shard"
    and "Invalid parallel dims: dp_replicate(…) * dp_shard(…) * cp(…) * tp(…) * pp(…) !=
    WORLD_SIZE(…)" when the trainer starts, before any step (a -1 shard becomes ``WORLD_SIZE //
    (dp_replicate·cp·tp·pp)`` first, and must be at least 1).

    **Bad**: ``tensor_parallel_degree = 8`` and ``data_parallel_shard_degree = 2`` launched by
    ``torchrun --nproc_per_node=8`` (16 ≠ 8). **Good**: ``data_parallel_shard_degree = -1`` (1 here),
    or the launch on 2 nodes.

    **Fix**: set the degrees for the GPUs the launch uses, or launch on as many GPUs as the degrees
    need. The config alone (no launch in the repository) gives no world size: nothing is checked.

    **Source**: pytorch/torchtitan@238fa99 torchtitan/distributed/parallel_dims.py L35-56
    (``ParallelDims._validate``); torchtitan/train.py L366-381 (WORLD_SIZE from torchrun);
    run_train.sh L28-46. The older layout: pytorch/torchtitan@a30d4cca (the parent of @785c34c9,
    which created ``[parallelism]``) torchtitan/config_manager.py L310-467 and torchtitan/train.py
    L81-89 (``[training]`` data_parallel_replicate/shard and tensor_parallel degrees,
    ``[experimental]`` pipeline and context parallel degrees, same defaults and check);
    pytorch/torchtitan@c22d1a8d config_manager.py L185-207 and train.py L116-122 (one
    ``[training] data_parallel_degree``, -1 = what is left, until @db6b39ac).
    """

    code = "JOB421"
    name = "torchtitan-parallel-dims"
    severity = Severity.ERROR
    summary = "torchtitan's parallel degrees must multiply to the world size"

    def check(self, ws):
        for job in jobs(ws, "torchtitan"):
            world = job.int("world_size")
            vals = {f: job.int(f) for f, _ in _DEGREES}
            if world is None or any(v is None for v in vals.values()):
                continue
            low = [(f, name) for f, name in _DEGREES if vals[f] < 1 and not (f == "dp_shard" and vals[f] == -1)]
            if low:
                f, name = low[0]
                yield self.finding(f"{name} = {vals[f]}: torchtitan needs every degree >= 1 (only "
                                   "data_parallel_shard_degree may be -1)", job.span_of(f),
                                   key=key(job, f"degree-{f}"), related=self._launch(job))
                continue
            rest = vals["dp_replicate"] * vals["cp"] * vals["tp"] * vals["pp"]
            shard = vals["dp_shard"] if vals["dp_shard"] != -1 else world // rest
            product = rest * shard
            if shard >= 1 and product == world:
                continue
            terms = " × ".join(f"{name.split('_degree')[0]}({shard if f == 'dp_shard' else vals[f]})"
                               for f, name in _DEGREES)
            if vals["dp_shard"] == -1:
                msg = (f"WORLD_SIZE {world} is not a multiple of data_parallel_replicate_degree × "
                       f"context × tensor × pipeline = {rest}: data_parallel_shard_degree = -1 becomes "
                       f"{shard}, and {terms} = {product} != {world}")
            else:
                msg = f"{terms} = {product} != WORLD_SIZE {world}"
            msg += f" ({self._shape(job)}): torchtitan stops with \"Invalid parallel dims\""
            yield self.finding(msg, job.span_of(self._at(job, vals)), key=key(job, "parallel-dims"),
                               related=self._launch(job))

    @staticmethod
    def _at(job, vals) -> str:
        """The degree to blame: an explicit shard degree, else the largest degree written."""
        if vals["dp_shard"] != -1 and "dp_shard" not in job.defaulted:
            return "dp_shard"
        written = [f for f, _ in _DEGREES if f not in job.defaulted and f != "dp_shard"]
        return max(written, key=lambda f: vals[f]) if written else "dp_shard"

    @staticmethod
    def _shape(job) -> str:
        n, g = job.int("nodes"), job.int("gpus_per_node")
        return f"{n} node(s) × {g} GPUs" if n is not None and g is not None else "the launch's world size"

    @staticmethod
    def _launch(job) -> list[Related]:
        out = related((job.world_size, "world size of the launch"))
        if job.launch is not None:
            out.append(Related(job.launch.span, "launched here"))
        return out
