"""FlagScale training configs → TrainingJob.

FlagScale (FlagOpen/FlagScale) composes a Hydra experiment config (``conf/train.yaml``: ``experiment.task``,
``experiment.runner`` with ``nnodes``/``nproc_per_node``, ``experiment.envs``) with a train config it
selects in ``defaults:`` (``conf/train/7b.yaml``: ``system:``, ``model:``, ``data:``). The runner flattens
``system``, ``model`` and ``data`` into Megatron-LM arguments, nested mappings included, each key with
``_`` → ``-`` (FlagOpen/FlagScale@da4935ec ``flagscale/runner/runner_train.py`` ``_get_args_megatron``,
``flagscale/runner/utils.py`` ``flatten_dict_to_args``), and exports ``experiment.envs`` in front of the
launch (``runner_train.py``: ``export_cmd += [f"{k}={v}"]``).

A train config is read for its sizes, and its world size from the experiment configs in the folder above
that select it in their ``defaults`` (``nnodes × nproc_per_node`` of ``experiment.runner``); where none
does, they disagree, or a hostfile decides, it is unknown and NL012 says why.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any

from netlint.jobs.build import _derive
from netlint.jobs.configs import _Resolver
from netlint.jobs.values import as_bool, as_int, typed
from netlint.located import MapNode, Scalar
from netlint.models.job import TrainingJob
from netlint.shell.model import Unknown

# the keys FlagScale passes on as Megatron-LM arguments of the same name (flatten_dict_to_args)
_SIZES = (("tp", "tensor_model_parallel_size"), ("pp", "pipeline_model_parallel_size"),
          ("vpp", "num_layers_per_virtual_pipeline_stage"), ("cp", "context_parallel_size"),
          ("ep", "expert_model_parallel_size"), ("etp", "expert_tensor_parallel_size"),
          ("micro_batch", "micro_batch_size"), ("global_batch", "global_batch_size"),
          ("layers", "num_layers"), ("hidden", "hidden_size"), ("ffn", "ffn_hidden_size"),
          ("heads", "num_attention_heads"), ("query_groups", "num_query_groups"), ("kv_channels", "kv_channels"),
          ("seq_len", "seq_length"), ("max_position", "max_position_embeddings"), ("experts", "num_experts"),
          ("topk", "moe_router_topk"))
_FLAGS = (("sequence_parallel", "sequence_parallel"), ("distributed_optimizer", "use_distributed_optimizer"),
          ("swiglu", "swiglu"), ("group_query_attention", "group_query_attention"))


def is_train_config(root: Any) -> bool:
    """``system:`` and ``model:`` mappings (no NeMo ``trainer:``) where ``model`` gives a transformer's shape:
    FlagScale's other backends (pi0, compression, serving) use the same sections for their own keys."""
    if not isinstance(root, MapNode) or "trainer" in root:
        return False
    system, model = root.get("system"), root.get("model")
    return isinstance(system, MapNode) and isinstance(model, MapNode) and (
        "num_layers" in model or "hidden_size" in model and "num_attention_heads" in model)


def flagscale_job(file: str, root: MapNode, abspath: Path | None = None) -> TrainingJob:
    job = TrainingJob(file=file, span=root.span, framework="megatron", launcher="flagscale")
    r = _Resolver(root)
    paths = _key_paths(root)  # flattened: a key counts wherever it sits under system/model/data
    for field, key, read in [(f, k, as_int) for f, k in _SIZES] + \
            [(f, k, as_bool) for f, k in _FLAGS + (("bf16", "bf16"), ("fp16", "fp16"))]:
        s = r.scalar(paths[key]) if key in paths else None
        v = read(s) if s is not None else None
        if v is not None and (read is as_int or v.value):
            setattr(job, field, v)
    if job.bf16 is not None:
        job.dtype = typed(job.bf16, "bf16")
    elif job.fp16 is not None:
        job.dtype = typed(job.fp16, "fp16")
    _flags(job, root)
    _world(job, root, abspath)
    _derive(job)
    return job


def _world(job: TrainingJob, root: MapNode, abspath: Path | None) -> None:
    """nnodes × nproc_per_node of the experiment configs that select this file (``defaults: - train: 7b``
    in ``conf/*.yaml``), when they agree and no hostfile decides instead (runner_train.py ``get_nnodes``:
    the smaller of the hostfile's nodes and ``nnodes``)."""
    found = _experiments(abspath, job.file) if abspath is not None else []
    sizes = {}
    for display, runner in found:
        nodes, procs = (runner.get(k) if isinstance(runner, MapNode) else None for k in ("nnodes", "nproc_per_node"))
        hostfile = runner.get("hostfile") if isinstance(runner, MapNode) else None
        n, g = (as_int(x) if isinstance(x, Scalar) else None for x in (nodes, procs))
        sizes[display] = (n, g) if n is not None and g is not None and not (
            isinstance(hostfile, Scalar) and hostfile.value not in (None, "")) else None
    known = {(n.value, g.value) for v in sizes.values() if v is not None for n, g in [v]}
    if len(sizes) >= 1 and None not in sizes.values() and len(known) == 1:
        display, (n, g) = next(iter(sizes.items()))
        job.nodes, job.gpus_per_node = n, g
        job.world_size = Scalar(n.value * g.value, n.span, "")
        job.notes.append((f"world size {n.value * g.value}: nnodes × nproc_per_node of {display}, the FlagScale "
                          f"experiment config that selects this file", n.span))
        return
    if not sizes:
        why = ("the world size is set by the FlagScale experiment config that selects this file (experiment.runner "
               "nnodes × nproc_per_node), and none in the folder above names it in its defaults")
    elif len(known) > 1:
        why = f"the experiment configs that select this file give different sizes ({', '.join(sorted(sizes))})"
    else:
        why = (f"the world size of {', '.join(sorted(sizes))} comes from its hostfile or a value netlint cannot "
               f"read (FlagScale takes the smaller of the hostfile's nodes and nnodes)")
    job.unknown["world_size"] = Unknown(why, root.span, "other")


def _experiments(abspath: Path, file: str) -> list[tuple[str, Any]]:
    """(display path, experiment.runner) of each config in the folder above the train config's group folder
    whose ``defaults`` select it (Hydra: ``- <group>: <option>``)."""
    from netlint.located import ParseError, SeqNode
    from netlint.parsing import parse_yaml
    from netlint.safe_read import is_file, read_text

    group, option = abspath.parent.name, abspath.stem
    try:
        candidates = sorted(p for p in abspath.parent.parent.iterdir() if p.suffix in (".yaml", ".yml"))
    except OSError:
        return []
    out = []
    for p in candidates:
        text = read_text(p, 1_000_000) if is_file(p) else None
        if text is None or "experiment" not in text or option not in text:
            continue
        display = posixpath.normpath(posixpath.join(posixpath.dirname(file), "..", p.name))
        try:
            docs = parse_yaml(display, text)
        except (ParseError, RecursionError):
            continue
        top = docs[0].root if docs else None
        defaults = top.get("defaults") if isinstance(top, MapNode) else None
        if not isinstance(defaults, SeqNode) or not any(
                isinstance(d, MapNode) and isinstance(d.get(group), Scalar) and str(d.get(group).value) == option
                for d in defaults):
            continue
        experiment = top.get("experiment")
        out.append((display, experiment.get("runner") if isinstance(experiment, MapNode) else None))
    return out


# keys flatten_dict_to_args leaves out (runner_train.py _get_args_megatron: ignore_keys)
_IGNORED = ("log_dir", "details_dir", "scripts_dir", "pids_dir")


def _flags(job: TrainingJob, root: MapNode) -> None:
    """``job.args`` as FlagScale flattens the three sections: every key at any depth is a flag
    (``_`` → ``-``); ``true`` gives the bare flag, ``false`` none, a list its items as values."""
    from netlint.located import Scalar, SeqNode
    from netlint.models.job import Arg

    def walk(node: MapNode, depth: int) -> None:
        for k, v in node.items():
            if k in _IGNORED or depth > 6:
                continue
            if isinstance(v, MapNode):
                walk(v, depth + 1)
                continue
            ks = node.keys_at[k]
            flag = Scalar("--" + str(k).replace("_", "-"), ks.span, ks.raw, False)
            if isinstance(v, SeqNode):
                values = [x for x in v if isinstance(x, Scalar)]
            elif isinstance(v, Scalar) and isinstance(v.value, bool):
                if not v.value:
                    continue
                values = []
            else:
                values = [v] if isinstance(v, Scalar) else []
            job.args[flag.value] = Arg(flag, values)

    for part in ("system", "model", "data"):
        section = root.get(part)
        if isinstance(section, MapNode):
            walk(section, 0)


def _key_paths(root: MapNode) -> dict[str, str]:
    """Each key of the three sections → its dotted path, the nearest first: ``system`` before ``model``
    before ``data``, a shallower key before a deeper one (``system.precision.bf16``)."""
    paths: dict[str, str] = {}
    for part in ("system", "model", "data"):
        level = [(root.get(part), part)]
        for _ in range(5):
            below = []
            for node, path in level:
                if isinstance(node, MapNode):
                    for k, v in node.items():
                        paths.setdefault(k, f"{path}.{k}")
                        below.append((v, f"{path}.{k}"))
            level = below
    return paths
