"""A recognised launch (:mod:`netlint.jobs.launch`) → :class:`~netlint.models.job.TrainingJob`: Megatron
arguments into fields, the job's shape from the launcher and Slurm options, and the derived sizes
(world size, data parallelism, gradient accumulation).

World size: torchrun ``nnodes × nproc_per_node`` (PT run.py); deepspeed ``--num_nodes ×
--num_gpus`` or the hostfile's slots (DS launcher/runner.py L86-109, L502-514); one process per
Slurm task ``nodes × ntasks-per-node`` (sbatch(1); NFL stages.py L343-366).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from netlint.jobs import megatron
from netlint.jobs.values import as_int, const, typed
from netlint.located import Scalar
from netlint.models.job import Arg, TrainingJob
from netlint.shell import Script, Unknown

if TYPE_CHECKING:
    from netlint.jobs.launch import Launch


def _int_of(s: Scalar | None) -> Scalar | None:
    return as_int(s) if s is not None else None


def _first_int(*cands: Scalar | None) -> Scalar | None:
    for c in cands:
        v = _int_of(c)
        if v is not None:
            return v
    return None


def _range_max(s: Scalar | None) -> Scalar | None:
    """torchrun --nnodes MIN:MAX → MAX (elastic: the job may run at its maximum)."""
    if s is None:
        return None
    v = s.value
    if isinstance(v, str) and ":" in v:
        return as_int(typed(s, v.rsplit(":", 1)[1]))
    return as_int(s)


def build_job(file: str, script: Script, launch: Launch, sbatch: dict[str, Scalar]) -> TrainingJob:
    args, loose, has_unknown = megatron.parse_argv(launch.script_args)
    last = megatron.last_by_name(args)
    job = TrainingJob(file=file, span=launch.command.span, launcher=launch.launcher,
                      arg_list=args, args=last, extra_words=loose, has_unknown_args=has_unknown,
                      launch=launch.command, script=script)
    job.entry = launch.script
    names = set(last)
    if launch.launcher == "deepspeed" or any(m in names for m in megatron.MDS_MARKERS):
        job.framework = "megatron-deepspeed"
    job.env = dict(launch.command.environment)
    for k, a in launch.command.env.items():
        job.env[k] = a.value
    job.env.update(_mpirun_env(launch))
    _fill_model(job, last)
    _maybe_set_elsewhere(job, launch.script_args, last)
    _fill_shape(job, launch, sbatch)
    _derive(job)
    return job


def _mpirun_env(launch: Launch) -> dict:
    """What ``mpirun -x NAME=value`` (or ``-genv``) sets for the ranks: it reaches the program whatever
    the script exported (Open MPI mpirun(1) "-x <env>"). A forwarded name (``-x NAME``) has mpirun's own
    value, or an Unknown one."""
    if not any(name == "mpirun" for name, _ in launch.wrappers):
        return {}
    from netlint.nccl import mpirun

    argv = list(launch.command.argv)
    at = next((i for i, w in enumerate(argv) if mpirun.is_launcher(w)), None)
    if at is None:
        return {}
    return {s.name.value: s.value for s in mpirun.settings(argv[at:], launch.command.environment)}


def _maybe_set_elsewhere(job: TrainingJob, words, last: dict[str, Arg]) -> None:
    """A size flag that only some paths pass (``if [ $SIZE = A37B ]; then moe="… --expert-model-parallel-size
    8"``) is unknown, not its default: the argv word carries each path's text."""
    for w in words:
        u = w.value
        if not isinstance(u, Unknown) or not u.candidates:
            continue
        said = {t.split("=", 1)[0] for c in u.candidates for t in c.split() if t.startswith("--")}
        for field_name, *flags in (*_MODEL_VALUES, *_MODEL_FLAGS, ("experts", "--num-experts")):
            flag = next((f for f in flags if f in said), None)
            if flag is None or getattr(job, field_name) is not None or field_name in job.unknown:
                continue
            if any(f in last for f in flags):
                continue  # written outright too: argparse keeps the last, which netlint cannot order
            job.unknown[field_name] = Unknown(f"{flag} is passed only on some paths ({u.reason})", w.span,
                                              u.kind, name=u.name)


def _val(job: TrainingJob, last: dict[str, Arg], field_name: str, *flags: str, conv=as_int) -> None:
    for flag in flags:
        a = last.get(flag)
        if a is None:
            continue
        v = a.value
        if v is None:
            return
        if isinstance(v.value, Unknown):
            job.unknown[field_name] = v.value
            return
        c = conv(v)
        if c is not None:
            setattr(job, field_name, c)
        return


def _flag(job: TrainingJob, last: dict[str, Arg], field_name: str, *flags: str) -> None:
    for flag in flags:
        a = last.get(flag)
        if a is not None:
            setattr(job, field_name, typed(a.flag, True))
            return


# Megatron arguments read into TrainingJob fields: (field, its flags by preference). Flags set no
# job.unknown entries, so reading every value before any flag keeps the order of job.unknown.
_MODEL_VALUES = (
    ("tp", "--tensor-model-parallel-size"),
    ("pp", "--pipeline-model-parallel-size"),
    ("vpp", "--num-virtual-stages-per-pipeline-rank"),
    ("layers_per_vstage", "--num-layers-per-virtual-pipeline-stage"),
    ("cp", "--context-parallel-size"),
    ("ep", "--expert-model-parallel-size", "--moe-expert-parallel-size"),
    ("etp", "--expert-tensor-parallel-size"),
    ("ds_sp", "--ds-sequence-parallel-size"),
    ("micro_batch", "--micro-batch-size"),
    ("global_batch", "--global-batch-size"),
    ("layers", "--num-layers", "--encoder-num-layers"),
    ("hidden", "--hidden-size"),
    ("ffn", "--ffn-hidden-size"),
    ("heads", "--num-attention-heads"),
    ("kv_channels", "--kv-channels"),
    ("seq_len", "--seq-length", "--encoder-seq-length"),
    ("decoder_seq_len", "--decoder-seq-length"),
    ("max_position", "--max-position-embeddings"),
    ("vocab", "--vocab-size", "--pad-vocab-size-to"),
    ("topk", "--moe-router-topk", "--topk"),
    ("moe_ffn", "--moe-ffn-hidden-size"),
    ("moe_shared_ffn", "--moe-shared-expert-intermediate-size"),
    ("q_lora_rank", "--q-lora-rank"),
    ("kv_lora_rank", "--kv-lora-rank"),
    ("qk_head_dim", "--qk-head-dim"),
    ("qk_pos_emb_head_dim", "--qk-pos-emb-head-dim"),
    ("v_head_dim", "--v-head-dim"),
    ("zero_stage", "--zero-stage"),
    ("ddp_bucket_size", "--ddp-bucket-size"),
    ("moe_router_groups", "--moe-router-num-groups"),
    ("moe_router_group_topk", "--moe-router-group-topk"),
)
_MODEL_FLAGS = (
    ("swiglu", "--swiglu"),
    ("group_query_attention", "--group-query-attention"),
    ("fp16", "--fp16"),
    ("bf16", "--bf16"),
    ("grad_reduce_in_bf16", "--grad-reduce-in-bf16"),
    ("distributed_optimizer", "--use-distributed-optimizer"),
    ("sequence_parallel", "--sequence-parallel"),
    ("overlap_grad_reduce", "--overlap-grad-reduce"),
    ("overlap_param_gather", "--overlap-param-gather"),
    ("tp_comm_overlap", "--tp-comm-overlap"),
    ("mla", "--multi-latent-attention"),
    ("untie_embeddings", "--untie-embeddings-and-output-weights"),
    ("overlap_moe_comm", "--overlap-moe-expert-parallel-comm"),
)


def _fill_model(job: TrainingJob, last: dict[str, Arg]) -> None:
    for field_name, *flags in _MODEL_VALUES:
        _val(job, last, field_name, *flags)
    for field_name, *flags in _MODEL_FLAGS:
        _flag(job, last, field_name, *flags)
    from netlint.jobs.fields import fill_extra

    fill_extra(job, last)
    if job.group_query_attention is not None:
        _val(job, last, "query_groups", "--num-query-groups")
    if "--fp8-format" in last and last["--fp8-format"].value is not None:
        job.dtype = typed(last["--fp8-format"].flag, "fp8")
    elif job.bf16 is not None:
        job.dtype = typed(job.bf16, "bf16")
    elif job.fp16 is not None:
        job.dtype = typed(job.fp16, "fp16")
    if "--recompute-granularity" in last and last["--recompute-granularity"].value is not None:
        g = last["--recompute-granularity"].value
        if isinstance(g.value, str):
            job.recompute = g
    elif "--recompute-activations" in last:
        job.recompute = typed(last["--recompute-activations"].flag, "selective")
    elif "--checkpoint-activations" in last:
        job.recompute = typed(last["--checkpoint-activations"].flag, "full")
    cfg = last.get("--deepspeed_config") or last.get("--deepspeed-config")
    if cfg is not None and cfg.value is not None:
        job.ds_config_ref = cfg.value
    _own_sizes(job, last)


# A script's own parallel-size flags, spelled with underscores as its argparse defines them (eth-easl/
# fmengine cli/train.py `--model_parallel_size`, `--pipe_parallel_size`): not Megatron's, and what the
# script does with them is not known — so TP / PP are unknown here, not Megatron's default of 1.
_OWN_SIZE = (("tp", re.compile(r"--(?:model|tensor|tp|mp)(?:_model)?_parallel_(?:size|degree)\Z")),
             ("pp", re.compile(r"--(?:pipe|pipeline|pp)(?:_model)?_parallel_(?:size|degree)\Z")))


def _own_sizes(job: TrainingJob, last: dict[str, Arg]) -> None:
    for field_name, pattern in _OWN_SIZE:
        if getattr(job, field_name) is not None or field_name in job.unknown:
            continue
        a = next((a for flag, a in last.items() if pattern.match(flag)), None)
        if a is not None:
            job.unknown[field_name] = Unknown(f"{a.name} is the script's own flag; how it sets the "
                                              f"{field_name.upper()} size is not known", a.flag.span, "other")


def _fill_shape(job: TrainingJob, launch: Launch, sbatch: dict[str, Scalar]) -> None:
    at = launch.command.span
    srun = {}
    for name, o in launch.wrappers:
        if name == "srun":
            srun.update(o)
    sb_nodes = _first_int(srun.get("nodes"), sbatch.get("nodes"))
    sb_tasks = _first_int(srun.get("ntasks-per-node"), sbatch.get("ntasks-per-node"))
    if launch.launcher == "torchrun":
        o = launch.opts
        nn = o.get("nnodes")
        nodes = _range_max(nn)
        if nn is not None and nodes is None and isinstance(nn.value, Unknown):
            job.unknown["nodes"] = nn.value
        if nn is None:
            nodes = const(1, at)
            job.defaulted.add("nodes")
        nproc_w = o.get("nproc-per-node")
        nproc = as_int(nproc_w) if nproc_w is not None else None
        if nproc_w is None:
            nproc = const(1, at)
            job.defaulted.add("gpus_per_node")
        elif nproc is None:
            job.unknown["gpus_per_node"] = nproc_w.value if isinstance(nproc_w.value, Unknown) else \
                Unknown(f"--nproc_per_node {nproc_w.value} (decided on the node)", nproc_w.span, "other")
        job.nodes, job.gpus_per_node = nodes, nproc
        if sb_tasks is not None and srun is not None and launch.wrappers:
            job.ntasks_per_node = sb_tasks
        _opaque_shape(job, launch, (("nodes", "--nnodes"), ("gpus_per_node", "--nproc_per_node")))
    elif launch.launcher == "deepspeed":
        o = launch.opts
        job.nodes = as_int(o.get("num-nodes")) if o.get("num-nodes") is not None else None
        g = o.get("num-gpus") or o.get("num-accelerators")
        job.gpus_per_node = as_int(g) if g is not None else None
        for key, fld in (("num-nodes", "nodes"), ("num-gpus", "gpus_per_node")):
            w = o.get(key)
            if w is not None and isinstance(w.value, Unknown):
                job.unknown[fld] = w.value
        _opaque_shape(job, launch, (("nodes", "--num_nodes"), ("gpus_per_node", "--num_gpus")))
    elif launch.launcher == "srun-python":
        total = _first_int(srun.get("ntasks"), sbatch.get("ntasks"))
        job.nodes = sb_nodes
        job.gpus_per_node = sb_tasks
        if total is not None and sb_tasks is None:
            job.world_size = total
        for key in ("ntasks", "nodes", "ntasks-per-node"):  # given, but only the run knows the value
            w = srun.get(key) or sbatch.get(key)
            if w is not None and isinstance(w.value, Unknown):
                job.unknown.setdefault("world_size", w.value)
                break
    elif any(name == "mpirun" for name, _ in launch.wrappers):
        _mpirun_shape(job, launch, at)
    elif (outer := _outer_launch(launch.command)) is not None:
        # `deepspeed --num_gpus 8 --no_python bash -c "python pretrain_gpt.py …"`: every process the
        # outer launcher starts runs this command, so the job has the outer launcher's shape
        _fill_shape(job, outer, sbatch)
        return
    elif (other := next((o["prefix"] for name, o in launch.wrappers if name == "other-launcher"), None)):
        job.unknown["world_size"] = Unknown(
            f"`{other.text}` starts it, a launcher whose process count netlint does not read", other.span, "other")
    elif (prefix := next((o["prefix"] for name, o in launch.wrappers if name == "unknown-prefix"), None)):
        # `${MPICMD} python pretrain_gpt.py`: the prefix may be mpirun or srun, which decides the world
        from netlint.jobs.unread import _written

        job.unknown["world_size"] = Unknown(
            f"the command starts with `{_written(prefix, launch.command)}`, set outside the script; "
            f"if it is a launcher "
            f"(mpirun, srun) it decides how many processes run", prefix.span, "other")
    else:
        # a bare `python pretrain_gpt.py`: one process when the script is run by hand, as many as a launcher
        # that runs the script starts (`mpirun -np 16 bash train.sh` from another file: llm-jp's sbatch.sh);
        # Megatron takes WORLD_SIZE from the environment, which netlint does not see
        job.unknown["world_size"] = Unknown(
            "the script starts a bare python, so whatever runs the script (mpirun, srun, or a person: 1 process) "
            "decides it", at, "other")
    if job.world_size is None and job.nodes is not None and job.gpus_per_node is not None:
        span = job.nodes.span if job.nodes.span.line > 0 and "nodes" not in job.defaulted \
            else job.gpus_per_node.span
        job.world_size = Scalar(job.nodes.value * job.gpus_per_node.value, span, "")
    if sb_nodes is not None and job.nodes is None:
        job.nodes = sb_nodes


def _opaque_shape(job: TrainingJob, launch: Launch, fields: tuple[tuple[str, str], ...]) -> None:
    """Options the script leaves to an unknown word (`torchrun $DISTRIBUTED_ARGS …`): a count it does
    not write itself is unknown, not the launcher's default (argparse takes the last one given, so
    one written after the word is known only if no such word follows it)."""
    if not launch.opaque:
        return
    from netlint.jobs.unread import _written

    last = launch.opaque[-1]
    words = ", ".join(f"`{_written(w, launch.command)}`" for w in launch.opaque)
    for fld, flag in fields:
        value = getattr(job, fld)
        if fld in job.unknown:
            continue
        if value is not None and fld not in job.defaulted and _after(value.span, last.span):
            continue
        setattr(job, fld, None)
        job.defaulted.discard(fld)
        job.unknown[fld] = Unknown(f"the launcher's options include {words}, set outside the script; "
                                   f"it may give {flag}", last.span, "other")


def _after(a, b) -> bool:
    return a.file == b.file and (a.line, a.col) > (b.line, b.col)


def _outer_launch(cmd) -> Launch | None:
    """The deepspeed / torchrun launch whose ``bash -c`` string holds ``cmd``, if any."""
    from netlint.jobs.launch import find_launch

    parent = cmd.parent
    while parent is not None:
        outer = find_launch(parent)
        if outer is not None and outer.launcher in ("deepspeed", "torchrun"):
            return outer
        parent = parent.parent
    return None


def _mpirun_shape(job: TrainingJob, launch: Launch, at) -> None:
    """`mpirun -np 8 python pretrain_gpt.py`: one process per rank, ``-np``/``-n``/``-c`` of them in all
    (Open MPI mpirun(1); MPICH and Intel MPI take ``-n``/``-np``), ``-N``/``-npernode``/``-ppn`` per
    node. Without a count the hostfile or the scheduler's allocation decides: unknown, not one."""
    o: dict[str, Scalar] = {}
    for name, opts in launch.wrappers:
        if name == "mpirun":
            o.update(opts)
    count = o.get("np") or o.get("n") or o.get("c")
    per_node = o.get("N") or o.get("npernode") or o.get("ppn")
    if per_node is not None:
        job.gpus_per_node = as_int(per_node)
    if count is None:
        job.unknown["world_size"] = Unknown("mpirun without -np: the hostfile or the allocation decides how "
                                            "many ranks start", at, "other")
        return
    job.world_size = as_int(count)
    if job.world_size is None:
        job.unknown["world_size"] = count.value if isinstance(count.value, Unknown) else \
            Unknown(f"mpirun -np {count.value}", count.span, "other")
    elif job.gpus_per_node is not None and job.gpus_per_node.value > 0 \
            and job.world_size.value % job.gpus_per_node.value == 0:
        job.nodes = Scalar(job.world_size.value // job.gpus_per_node.value, count.span, "")


def _derive(job: TrainingJob) -> None:
    """Megatron's defaults and derived sizes (NVIDIA/Megatron-LM@d98e8a64 megatron/training/arguments.py
    L424-448 DP, L587-588 ETP, L702-704 global batch, L1320-1333 ffn/kv sizes)."""
    at = job.span
    for name in ("tp", "pp", "cp", "ep", "ds_sp"):
        if getattr(job, name) is None and name not in job.unknown:
            setattr(job, name, const(1, at))
            job.defaulted.add(name)
    if job.etp is None and job.tp is not None and "etp" not in job.unknown:
        job.etp = typed(job.tp, job.tp.value)
        job.defaulted.add("etp")
    if job.heads is not None and job.query_groups is None and "query_groups" not in job.unknown:
        job.query_groups = typed(job.heads, job.heads.value)
        job.defaulted.add("query_groups")
    if job.hidden is not None and job.ffn is None and "ffn" not in job.unknown:
        h = job.hidden.value
        ffn = int(4 * h * 2 / 3 / 64) * 64 if job.swiglu is not None else 4 * h   # A L1320-1328
        job.ffn = typed(job.hidden, ffn)
        job.defaulted.add("ffn")
    if job.vpp is None and job.layers_per_vstage is not None and job.layers is not None and job.pp is not None:
        per_stage, rem = divmod(job.layers.value, job.pp.value)
        if rem == 0 and job.layers_per_vstage.value and per_stage % job.layers_per_vstage.value == 0:
            job.vpp = typed(job.layers_per_vstage, per_stage // job.layers_per_vstage.value)
    if job.vpp is not None and job.vpp.value == 1:
        job.vpp = None  # A L941-979: VPP == 1 means no interleaving
    if job.dtype is None:
        job.dtype = const("fp32", at)
        job.defaulted.add("dtype")
    from netlint.jobs.fields import derive_extra

    derive_extra(job)
    derive_dp(job)


def derive_dp(job: TrainingJob) -> None:
    ws = job.int("world_size")
    if ws is None or job.dp is not None:
        return
    if job.framework == "megatron-deepspeed":
        parts = [job.int(n) for n in ("tp", "pp", "ds_sp")]
    else:
        parts = [job.int(n) for n in ("tp", "pp", "cp")]
    if any(p is None or p <= 0 for p in parts):
        return
    mp = parts[0] * parts[1] * parts[2]
    if ws % mp == 0 and ws >= mp:
        job.dp = Scalar(ws // mp, job.world_size.span, "")
        if job.global_batch is None and job.micro_batch is not None and "global_batch" not in job.unknown:
            job.global_batch = Scalar(job.micro_batch.value * job.dp.value, job.micro_batch.span, "")
            job.defaulted.add("global_batch")
        if job.global_batch is not None and job.micro_batch is not None and job.grad_accum is None:
            den = job.micro_batch.value * job.dp.value
            if den and job.global_batch.value % den == 0:
                job.grad_accum = Scalar(job.global_batch.value // den, job.global_batch.span, "")
