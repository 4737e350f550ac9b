from __future__ import annotations

from netlint.findings import Severity
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key, related


class ExpertGridNotDivisible(Rule):
    """The world size is not a multiple of ETP × EP × PP (the MoE expert grid).

    **What**: with expert parallelism, ``WORLD_SIZE % (ETP·EP·PP) != 0`` (ETP defaults to TP).

    **Why**: megatron-core builds the expert process groups at initialisation and asserts "world_size
    (…) is not divisible by expert_tensor_model_pipeline_parallel size (…)" (parallel_state.py
    L874-884). ``validate_args`` does not check it, so the error appears only after the launch.

    **Bad**: 8 GPUs with ``--pipeline-model-parallel-size 4 --expert-model-parallel-size 8`` (needs 32)
    **Good**: 4 nodes × 8 GPUs

    **Source**: NVIDIA/Megatron-LM@d98e8a64 megatron/core/parallel_state.py L871-884 (ETP defaults to TP,
    the expert grid size and the RuntimeError); megatron/core/model_parallel_config.py L506-507.
    Megatron-LM's own examples/mixtral/train_mixtral_8x7b_distributed.sh (same commit) L7-13, L83-85
    gives 8 GPUs (``NNODES=${SLURM_NNODES:-"1"}``) to PP 4 × EP 8.
    """

    code = "JOB404"
    name = "expert-grid-not-divisible"
    severity = Severity.ERROR
    summary = "World size must be a multiple of ETP x EP x PP"

    def check(self, ws):
        for job in jobs(ws, "megatron", "nemo"):
            world, ep = job.int("world_size"), job.int("ep")
            etp, pp = job.int("etp"), job.int("pp")
            if None in (world, ep, etp, pp) or ep <= 1 or etp < 1 or pp < 1:
                continue  # a size of 0 stops Megatron's argument checks before any group is built
            grid = etp * ep * pp
            if world % grid == 0:
                continue
            yield self.finding(
                f"world size {world} is not divisible by ETP×EP×PP = {etp}×{ep}×{pp} = {grid}: the expert "
                f"process groups cannot be built" + (f" (needs at least {grid} GPUs)" if world < grid else ""),
                job.span_of("ep"), key=key(job, "expert-grid"),
                related=related((job.pp, "PP"), (job.world_size, "world size")))
