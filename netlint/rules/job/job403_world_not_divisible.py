from __future__ import annotations

from netlint.findings import Related, Severity
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key, related


class WorldNotDivisible(Rule):
    """The world size is not a multiple of TP × PP × CP.

    **What**: ``WORLD_SIZE % (TP·PP·CP) != 0`` (Megatron-DeepSpeed: TP·PP·Ulysses-SP), with the world
    size from the launcher (``nnodes × nproc_per_node``, Slurm nodes × tasks, ``trainer.num_nodes ×
    trainer.devices``).

    **Why**: Megatron asserts "world size ({ws}) is not divisible by total_model_size ({…})"
    (arguments.py L432-433; parallel_state.py L823 "world_size (…) is not divisible by …"); NeMo
    "world_size: {ws} must be divisible by total world_size: (decoder_)tensor_model_parallel_size …";
    Megatron-DeepSpeed "world size (…) is not divisible by tensor parallel size (…) times pipeline
    parallel size (…) times seqence parallel size (…)". The job dies at initialisation. A world smaller than TP·PP·CP is the most common
    case: the script was written for more nodes than it is launched on. gpt-neox (no context
    parallelism) asserts "world_size=…, pp=…, mp=…" and "(global_num_gpus / pp_size) / mp_size […] must
    be a whole number"; its world size is known when a launch of the repository (``deepy.py train.py
    X.yml`` with a hostfile in the repository, ``global_num_gpus``, or Slurm with ``deepspeed_slurm``)
    or the config says it.

    **Bad**: 1 node × 8 GPUs with ``--tensor-model-parallel-size 8 --pipeline-model-parallel-size 16``
    **Good**: 16 nodes × 8 GPUs (DP = 1)

    **Source**: NVIDIA/Megatron-LM@d98e8a6 megatron/training/arguments.py L424-433,
    megatron/core/parallel_state.py L823; NVIDIA/NeMo@8cfedd7
    nemo/collections/nlp/modules/common/megatron/megatron_init.py L322-335; microsoft/Megatron-DeepSpeed
    @f4157be megatron/arguments.py L101-108 (and deepspeedai/Megatron-DeepSpeed@4efb479d L85-87: PP is first
    lowered to ``min(PP, world // TP)``, so a world that holds fewer pipeline stages runs with fewer,
    reported as info); EleutherAI/gpt-neox@ea7aefd megatron/initialize.py L159-164, megatron/neox_arguments/arguments.py
    L918-935 (``pipe_parallel_size`` 0 counts as 1). torchtitan's own rule is JOB421.
    """

    code = "JOB403"
    name = "world-not-divisible"
    severity = Severity.ERROR
    summary = "World size must be a multiple of TP x PP x CP"

    def check(self, ws):
        for job in jobs(ws):
            world = job.int("world_size")
            if world is None or job.framework == "torchtitan":
                continue
            third, label = ("ds_sp", "SP") if job.framework == "megatron-deepspeed" else ("cp", "CP")
            parts = [job.int("tp"), job.int("pp"), job.int(third) if job.framework != "gpt-neox" else 1]
            if any(p is None or p <= 0 for p in parts):
                continue
            if job.framework == "megatron-deepspeed" and 0 < world // parts[0] < parts[1]:
                # Megatron-DeepSpeed lowers PP to what the world holds before it asserts
                # (megatron/arguments.py: pipeline_model_parallel_size = min(PP, world // TP))
                lowered = world // parts[0]
                if world % (parts[0] * lowered * parts[2]) == 0:
                    yield self.finding(
                        f"world size {world} holds TP={parts[0]} only {lowered} time(s): Megatron-DeepSpeed lowers "
                        f"PP from {parts[1]} to {lowered} (min(PP, world // TP)) and runs without telling; "
                        f"checkpoints and sizes are then those of PP={lowered}", job.span_of("pp"),
                        key=key(job, "world"), severity=Severity.INFO, related=related((job.world_size, "world size")))
                    continue
            mp = parts[0] * parts[1] * parts[2]
            if world % mp == 0:
                continue
            shape = ""
            if job.int("nodes") is not None and job.int("gpus_per_node") is not None:
                shape = f" ({job.int('nodes')} node(s) × {job.int('gpus_per_node')} GPUs)"
            msg = (f"world size {world}{shape} is not divisible by TP×PP×{label} = "
                   f"{parts[0]}×{parts[1]}×{parts[2]} = {mp}") if job.framework != "gpt-neox" else (
                   f"world size {world}{shape} is not divisible by model_parallel_size × "
                   f"pipe_parallel_size = {parts[0]}×{parts[1]} = {mp}: gpt-neox stops with \"(global_num_gpus / "
                   f"pp_size) / mp_size [({world} / {parts[1]}) / {parts[0]}] must be a whole number\"")
            if world < mp:
                msg += f": the job needs at least {mp} GPUs"
            span = job.span_of("pp") if "pp" not in job.defaulted else job.span_of("tp")
            if job.framework == "gpt-neox" and parts[1] == 1:
                span = job.span_of("tp")
            rel = related((job.tp, "TP"), (job.world_size, "world size"))
            if job.framework == "gpt-neox":
                rel = [r for r in rel if r.span != span]
                if job.launch is not None:
                    rel.append(Related(job.launch.span, "launched here"))
            yield self.finding(msg, span, key=key(job, "world"), related=rel)
