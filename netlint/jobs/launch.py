"""Recognise launch commands in an evaluated shell script and turn one into a TrainingJob.

Launchers (research/jobs.md §2a-2b): ``torchrun``, ``python -m torch.distributed.run|launch``,
``deepspeed``, and ``python pretrain_*.py`` started once per GPU by ``srun``; wrappers ``srun`` and
``mpirun`` in front of them; ``bash -c`` strings are already expanded by :mod:`netlint.shell`.
World size: torchrun ``nnodes × nproc_per_node`` (PT run.py); deepspeed ``--num_nodes ×
--num_gpus`` or the hostfile's slots (DS launcher/runner.py L86-109, L502-514); one process per
Slurm task ``nodes × ntasks-per-node`` (sbatch(1); NFL stages.py L343-366).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from netlint.jobs import megatron
from netlint.jobs.values import as_int, const, typed
from netlint.located import Scalar
from netlint.models.job import Arg, TrainingJob
from netlint.shell import Command, Script, Unknown

PYTHONS = ("python", "python3")
TORCH_MODULES = ("torch.distributed.run", "torch.distributed.launch")
# name (normalized: '_' → '-') → takes a value
TORCHRUN_OPTS = {
    "nnodes": True, "nproc-per-node": True, "node-rank": True, "master-addr": True, "master-port": True,
    "rdzv-backend": True, "rdzv-endpoint": True, "rdzv-id": True, "rdzv-conf": True, "max-restarts": True,
    "monitor-interval": True, "start-method": True, "role": True, "local-addr": True, "log-dir": True,
    "redirects": True, "r": True, "tee": True, "t": True, "local-ranks-filter": True, "logs-specs": True,
    "standalone": False, "module": False, "m": False, "no-python": False, "run-path": False,
    "use-env": False,
}
DEEPSPEED_OPTS = {
    "hostfile": True, "H": True, "include": True, "i": True, "exclude": True, "e": True,
    "num-nodes": True, "num-gpus": True, "num-accelerators": True, "min-elastic-nodes": True,
    "max-elastic-nodes": True, "master-port": True, "master-addr": True, "node-rank": True,
    "launcher": True, "launcher-args": True, "ssh-port": True, "bind-core-list": True, "autotuning": True,
    "module": False, "no-python": False, "no-local-rank": False, "no-ssh": False, "no-ssh-check": False,
    "force-multi": False, "save-pid": False, "enable-each-rank-log": False, "elastic-training": False,
    "bind-cores-to-rank": False,
}
SRUN_FLAGS = {"l", "label", "exclusive", "overcommit", "O", "u", "unbuffered", "pty", "K",
              "kill-on-bad-exit", "no-container-mount-home", "container-remap-root", "container-writable",
              "v", "verbose", "Q", "quiet", "X", "disable-status", "multi-prog", "overlap", "exact",
              "no-kill", "k", "s", "oversubscribe"}
SRUN_SHORT = {"N": "nodes", "n": "ntasks", "c": "cpus-per-task", "G": "gpus", "t": "time",
              "p": "partition", "w": "nodelist"}
MPIRUN_VALUE = {"np", "n", "N", "npernode", "x", "hostfile", "H", "bind-to", "map-by", "mca", "host",
                "rankfile", "report-bindings"}


@dataclass
class Launch:
    command: Command
    launcher: str                                  # torchrun | deepspeed | python | srun-python
    opts: dict[str, Scalar] = field(default_factory=dict)
    script: Scalar | None = None
    script_args: list[Scalar] = field(default_factory=list)
    wrappers: list[tuple[str, dict[str, Scalar]]] = field(default_factory=list)


def _name(w: Scalar) -> str | None:
    v = w.value
    return posixpath.basename(v) if isinstance(v, str) else None


def _tail(w: Scalar, start: int) -> Scalar:
    """``w``'s text from ``start`` on (an option's value in ``--opt=value`` or ``-Nvalue``), located in
    the word when it is a shell Word (which can slice itself), else at the whole token."""
    return w.slice(start, None) if hasattr(w, "slice") else Scalar(w.value[start:], w.span)


def _opts(argv: list[Scalar], i: int, spec: dict[str, bool]) -> tuple[dict[str, Scalar], int]:
    """Parse launcher options from argv[i:]; return (options, index of the first positional)."""
    out: dict[str, Scalar] = {}
    while i < len(argv):
        w = argv[i]
        v = w.value
        if not isinstance(v, str) or not v.startswith("-") or v in ("-", "--"):
            if v == "--":
                i += 1
            break
        body = v.lstrip("-")
        name, eq, val = body.partition("=")
        norm = name.replace("_", "-")
        takes = spec.get(norm, spec.get(name))
        if takes is None:
            # unknown option: assume it takes a value when written --opt value (argparse would error)
            takes = bool(not eq and i + 1 < len(argv) and isinstance(argv[i + 1].value, str)
                         and not argv[i + 1].value.startswith("-") and False)
        if eq:
            out[norm] = _tail(w, len(v) - len(val))
            i += 1
        elif takes and i + 1 < len(argv):
            out[norm] = argv[i + 1]
            i += 2
        else:
            out[norm] = typed(w, True)
            i += 1
    return out, i


def _srun_opts(argv: list[Scalar], i: int) -> tuple[dict[str, Scalar], int]:
    out: dict[str, Scalar] = {}
    while i < len(argv):
        w = argv[i]
        v = w.value
        if not isinstance(v, str) or not v.startswith("-"):
            break
        body = v.lstrip("-")
        name, eq, val = body.partition("=")
        if not v.startswith("--") and len(body) > 1 and not eq and body[0] in SRUN_SHORT:
            out[SRUN_SHORT[body[0]]] = _tail(w, 2)
            i += 1
            continue
        name = SRUN_SHORT.get(name, name) if not v.startswith("--") else name
        if eq:
            out[name] = _tail(w, len(v) - len(val))
            i += 1
        elif body in SRUN_FLAGS or i + 1 >= len(argv):
            out[name] = typed(w, True)
            i += 1
        else:
            out[name] = argv[i + 1]
            i += 2
    return out, i


def find_launch(cmd: Command) -> Launch | None:
    """The launch described by ``cmd`` (through srun/mpirun wrappers), or None."""
    argv = list(cmd.argv)
    wrappers: list[tuple[str, dict[str, Scalar]]] = []
    parent = cmd.parent
    while parent is not None:  # a `srun … bash -c "torchrun …"` parent wraps this command
        pname = _name(parent.argv[0]) if parent.argv else None
        if pname == "srun":
            o, _ = _srun_opts(parent.argv, 1)
            wrappers.append(("srun", o))
        parent = parent.parent
    i = 0
    for _ in range(4):
        if i >= len(argv):
            return None
        name = _name(argv[i])
        if name == "srun":
            o, i = _srun_opts(argv, i + 1)
            wrappers.append(("srun", o))
            continue
        if name in ("mpirun", "mpiexec"):
            o, i = _opts(argv, i + 1, {k: True for k in MPIRUN_VALUE})
            wrappers.append(("mpirun", o))
            continue
        if name in ("numactl", "nsys", "time", "stdbuf"):
            return None
        break
    if i >= len(argv):
        return None
    name = _name(argv[i])
    if name is None:
        return None
    if name == "torchrun":
        opts, j = _opts(argv, i + 1, TORCHRUN_OPTS)
        return _with_script(Launch(cmd, "torchrun", opts, wrappers=wrappers), argv, j)
    if name == "deepspeed":
        opts, j = _opts(argv, i + 1, DEEPSPEED_OPTS)
        return _with_script(Launch(cmd, "deepspeed", opts, wrappers=wrappers), argv, j)
    if name.startswith(PYTHONS):
        j = i + 1
        while j < len(argv) and isinstance(argv[j].value, str) and argv[j].value.startswith("-") \
                and argv[j].value != "-m":
            j += 2 if argv[j].value in ("-X", "-W") else 1
        if j < len(argv) and argv[j].value == "-m":
            if j + 1 < len(argv) and argv[j + 1].value in TORCH_MODULES:
                opts, k = _opts(argv, j + 2, TORCHRUN_OPTS)
                return _with_script(Launch(cmd, "torchrun", opts, wrappers=wrappers), argv, k)
            return None
        kind = "srun-python" if any(w == "srun" for w, _ in wrappers) else "python"
        return _with_script(Launch(cmd, kind, {}, wrappers=wrappers), argv, j)
    return None


def _with_script(launch: Launch, argv: list[Scalar], j: int) -> Launch | None:
    if j >= len(argv):
        return None
    launch.script = argv[j]
    launch.script_args = list(argv[j + 1:])
    return launch


CORE_FLAGS = ("--tensor-model-parallel-size", "--pipeline-model-parallel-size", "--num-layers",
              "--micro-batch-size", "--global-batch-size", "--hidden-size", "--deepspeed_config",
              "--deepspeed-config", "--deepspeed", "--context-parallel-size", "--expert-model-parallel-size")


def is_training(launch: Launch, args: list[Arg]) -> bool:
    names = {a.name for a in args}
    return any(f in names for f in CORE_FLAGS)


# -------------------------------------------------------------------------------- job building
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
    names = set(last)
    if launch.launcher == "deepspeed" or any(m in names for m in megatron.MDS_MARKERS):
        job.framework = "megatron-deepspeed"
    job.env = dict(launch.command.environment)
    for k, a in launch.command.env.items():
        job.env[k] = a.value
    _fill_model(job, last)
    _fill_shape(job, launch, sbatch)
    _derive(job)
    return job


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
    ("max_position", "--max-position-embeddings"),
    ("vocab", "--vocab-size", "--pad-vocab-size-to"),
    ("experts", "--num-experts"),
    ("topk", "--moe-router-topk", "--topk"),
    ("zero_stage", "--zero-stage"),
    ("ddp_bucket_size", "--ddp-bucket-size"),
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
)


def _fill_model(job: TrainingJob, last: dict[str, Arg]) -> None:
    for field_name, *flags in _MODEL_VALUES:
        _val(job, last, field_name, *flags)
    for field_name, *flags in _MODEL_FLAGS:
        _flag(job, last, field_name, *flags)
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
    elif launch.launcher == "deepspeed":
        o = launch.opts
        job.nodes = as_int(o.get("num-nodes")) if o.get("num-nodes") is not None else None
        g = o.get("num-gpus") or o.get("num-accelerators")
        job.gpus_per_node = as_int(g) if g is not None else None
        for key, fld in (("num-nodes", "nodes"), ("num-gpus", "gpus_per_node")):
            w = o.get(key)
            if w is not None and isinstance(w.value, Unknown):
                job.unknown[fld] = w.value
    elif launch.launcher == "srun-python":
        total = _first_int(srun.get("ntasks"), sbatch.get("ntasks"))
        job.nodes = sb_nodes
        job.gpus_per_node = sb_tasks
        if total is not None and sb_tasks is None:
            job.world_size = total
    else:  # a bare `python pretrain_gpt.py`: one process unless the environment says otherwise
        job.nodes = const(1, at)
        job.gpus_per_node = const(1, at)
        job.defaulted.update({"nodes", "gpus_per_node"})
    if job.world_size is None and job.nodes is not None and job.gpus_per_node is not None:
        span = job.nodes.span if job.nodes.span.line > 0 and "nodes" not in job.defaulted \
            else job.gpus_per_node.span
        job.world_size = Scalar(job.nodes.value * job.gpus_per_node.value, span, "")
    if sb_nodes is not None and job.nodes is None:
        job.nodes = sb_nodes


def _derive(job: TrainingJob) -> None:
    """Megatron's defaults and derived sizes (research/jobs.md §1c)."""
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
