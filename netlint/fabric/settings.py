"""What a job and the inventory say, as the inputs of :func:`netlint.fabric.step.evaluate`:
:func:`split_of`, :func:`framework_of` and :func:`hardware_of`.

Defaults are the frameworks' own, each from source (see :mod:`netlint.fabric.traffic` for the
traffic they decide): Megatron-LM@d98e8a64 reduces gradients in fp32 under ``--bf16`` unless
``--grad-reduce-in-bf16`` (``training/arguments.py`` L1204-1217) and in fp16 under ``--fp16``;
DeepSpeed@38327e07 communicates in ``communication_data_type``, else fp16 / bf16 / fp32 after the
model (``runtime/engine.py`` L939-951), ``reduce_scatter`` and ``use_multi_rank_bucket_allreduce``
default true and both bucket sizes 5e8 (``runtime/zero/config.py`` L104-128), ``overlap_comm`` true
only for ZeRO-3 (L351-354); torchtitan@238fa99 gathers parameters in bf16 and reduces in fp32
(``config/job_config.py`` L282-293), reshards after forward unless PP (``models/llama3/infra/
parallelize.py`` L319-327), rotates CP K/V with all-gather (L446) and shards over DP×CP.
"""

from __future__ import annotations

from netlint import hardware
from netlint.fabric.collectives import Links
from netlint.fabric.step import Hardware
from netlint.fabric.traffic import MXFP8, Framework, Split
from netlint.models.job import TrainingJob

DEEPSPEED_FAMILY = ("deepspeed", "megatron-deepspeed", "gpt-neox")


def split_of(job: TrainingJob) -> Split | None:
    dp = job.int("dp")
    if not dp:
        return None
    return Split(tp=job.int("tp") or 1, pp=job.int("pp") or 1, dp=dp, cp=job.int("cp") or 1,
                 ep=job.int("ep") or 1, etp=job.int("etp"), vpp=job.int("vpp") or 1,
                 micro_batch=job.int("micro_batch") or 1, global_batch=_global_batch(job, dp))


def _global_batch(job: TrainingJob, dp: int) -> int | None:
    gbs = job.int("global_batch")
    if gbs:
        return gbs
    b, ga = job.int("micro_batch"), job.int("grad_accum")
    return b * dp * ga if b and ga else None


def _ds(job: TrainingJob, *path: str):
    cfg = job.ds_config
    return None if cfg is None else cfg.value(*path)


def _bool(v, default: bool) -> bool:
    return v if isinstance(v, bool) else default


def _int(v, default: int) -> int:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else default


def framework_of(job: TrainingJob) -> Framework:
    dtype = job.value("dtype")
    act = 4 if dtype == "fp32" else 2
    common = dict(act_bytes=act, sequence_parallel=job.flag("sequence_parallel") and (job.int("tp") or 1) > 1,
                  recompute=job.value("recompute") if job.value("recompute") in ("full", "selective") else None,
                  router_groups=job.int("moe_router_groups"), router_group_topk=job.int("moe_router_group_topk"),
                  overlap_moe=job.flag("overlap_moe_comm"), tp_comm_overlap=job.flag("tp_comm_overlap"))
    cp = str(job.value("cp_comm_type") or "p2p").lower()
    cp = {"allgather": "all_gather", "a2a+p2p": "p2p"}.get(cp, cp)
    if job.framework == "torchtitan":
        w = 4 if dtype == "fp32" and "dtype" not in job.defaulted else 2
        return Framework(name="torchtitan", grad_bytes=4, param_bytes=w, fsdp_reshard=(job.int("pp") or 1) <= 1,
                         fsdp_replicate=job.int("dp_replicate") or 1, moe_dispatcher="alltoall", cp_comm="all_gather",
                         **common)
    if job.framework in DEEPSPEED_FAMILY:
        stage = job.int("zero_stage")
        if stage is None:
            stage = _int(_ds(job, "zero_optimization", "stage"), 0)
        comm = _ds(job, "communication_data_type")
        g = {"fp32": 4, "fp16": 2, "bf16": 2}.get(str(comm).lower() if comm else "", act)
        rs = _bool(_ds(job, "zero_optimization", "reduce_scatter"), True)
        multi = _bool(_ds(job, "zero_optimization", "use_multi_rank_bucket_allreduce"), True)
        return Framework(name=job.framework, grad_bytes=g, param_bytes=act, zero_stage=stage,
                         ds_reduce="reduce" if rs and not multi else "all-reduce",
                         reduce_bucket=_int(_ds(job, "zero_optimization", "reduce_bucket_size"), 500_000_000),
                         allgather_bucket=_int(_ds(job, "zero_optimization", "allgather_bucket_size"), 500_000_000),
                         overlap_comm=_bool(_ds(job, "zero_optimization", "overlap_comm"), stage == 3),
                         moe_dispatcher="deepspeed", cp_comm=cp, **common)
    g = 4 if dtype in ("bf16", "fp8", "fp32") and not job.flag("grad_reduce_in_bf16") else 2
    dispatcher = str(job.value("moe_dispatcher") or "allgather").lower()
    return Framework(name="megatron", grad_bytes=g, param_bytes=act,
                     distributed_optimizer=job.flag("distributed_optimizer"),
                     overlap_grad_reduce=job.flag("overlap_grad_reduce"),
                     overlap_param_gather=job.flag("overlap_param_gather"), ddp_bucket=job.int("ddp_bucket_size"),
                     moe_dispatcher=dispatcher if dispatcher in ("allgather", "alltoall", "flex") else "allgather",
                     dispatch_bytes=MXFP8 if job.value("moe_dispatch_dtype") == "mxfp8" else act, cp_comm=cp, **common)


def node_shape(inventory) -> dict | None:
    """GPUs per node, NVLink domain, GPU and NIC figures of the inventory's (first) node group."""
    if inventory is None or not inventory.node_groups:
        return None
    g = inventory.node_groups[0]
    speeds = [s for s in (hardware.link_gbit(n.speed.value) for n in g.nics) if s]
    nvls = getattr(g, "nvls", None)
    return {"gpus": g.gpus.value, "domain": g.domain, "gpu": g.hardware, "nic_gbit": speeds,
            "nvls": nvls.value if nvls is not None else None,
            "nodes": sum(x.count.value for x in inventory.node_groups), "transport": inventory.transport,
            "oversubscription": inventory.fabric.oversubscription.value if inventory.fabric.oversubscription else None}


def hardware_of(job: TrainingJob, shape: dict, efficiency: float) -> Hardware:
    gpu = shape["gpu"]
    nic = None
    if shape["nic_gbit"]:
        nic = sum(g / 8 for g in shape["nic_gbit"]) * hardware.NIC_ACHIEVABLE_FRACTION / max(1, shape["gpus"])
    # NVLS only where the inventory says the nodes have it (nodes[].nvls: NVSwitch gen 3+ with Fabric
    # Manager); its busbw from the catalog
    nvls = gpu.nvls_busbw if shape.get("nvls") is True else None
    env = job.env.get("NCCL_NVLS_ENABLE")
    if env is not None and str(getattr(env, "value", env)).strip() == "0":
        nvls = None      # NCCL_NVLS_ENABLE=0 turns NVLink SHARP off
    return Hardware(peak_tflops=gpu.bf16_dense_tflops, efficiency=efficiency, domain=shape["domain"],
                    gpus_per_node=job.int("gpus_per_node") or shape["gpus"],
                    links=Links(nvlink=gpu.nvlink_effective, nvls=nvls, nic=nic))
