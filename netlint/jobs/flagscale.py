"""FlagScale training configs → TrainingJob.

FlagScale (FlagOpen/FlagScale) composes a Hydra experiment config (``conf/train.yaml``: ``experiment.task``,
``experiment.runner`` with ``nnodes``/``nproc_per_node``, ``experiment.envs``) with a train config it
selects in ``defaults:`` (``conf/train/7b.yaml``: ``system:``, ``model:``, ``data:``). The runner flattens
``system``, ``model`` and ``data`` into Megatron-LM arguments, nested mappings included, each key with
``_`` → ``-`` (FlagOpen/FlagScale@da4935ec ``flagscale/runner/runner_train.py`` ``_get_args_megatron``,
``flagscale/runner/utils.py`` ``flatten_dict_to_args``), and exports ``experiment.envs`` in front of the
launch (``runner_train.py``: ``export_cmd += [f"{k}={v}"]``).

A train config is read for its sizes. Its world size comes from the experiment config's runner and the
hostfile, which netlint does not compose with it: unknown, said by NL012.
"""

from __future__ import annotations

from typing import Any

from netlint.jobs.build import _derive
from netlint.jobs.configs import _Resolver
from netlint.jobs.values import as_bool, as_int, typed
from netlint.located import MapNode
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


def flagscale_job(file: str, root: MapNode) -> TrainingJob:
    job = TrainingJob(file=file, span=root.span, framework="megatron", launcher="flagscale")
    r = _Resolver(root)

    def find(key: str) -> str | None:
        # flattened: a key counts wherever it sits under system/model/data (system.precision.bf16)
        for part in ("system", "model", "data"):
            got = _find(root.get(part), key, part)
            if got is not None:
                return got
        return None

    for field, key in _SIZES:
        path = find(key)
        s = r.scalar(path) if path is not None else None
        v = as_int(s) if s is not None else None
        if v is not None:
            setattr(job, field, v)
    for field, key in _FLAGS + (("bf16", "bf16"), ("fp16", "fp16")):
        path = find(key)
        s = r.scalar(path) if path is not None else None
        v = as_bool(s) if s is not None else None
        if v is not None and v.value:
            setattr(job, field, v)
    if job.bf16 is not None:
        job.dtype = typed(job.bf16, "bf16")
    elif job.fp16 is not None:
        job.dtype = typed(job.fp16, "fp16")
    _flags(job, root)
    job.unknown["world_size"] = Unknown(
        "the world size is set by the FlagScale experiment config that selects this file (experiment.runner "
        "nnodes × nproc_per_node, or its hostfile), which netlint does not compose with it", root.span, "other")
    _derive(job)
    return job


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


def _find(node: Any, key: str, path: str, depth: int = 0) -> str | None:
    """The dotted path of ``key`` in ``node`` (at ``path``) or in a mapping below it, nearest first."""
    if not isinstance(node, MapNode) or depth > 4:
        return None
    if key in node:
        return f"{path}.{key}"
    for k, v in node.items():
        got = _find(v, key, f"{path}.{k}", depth + 1) if isinstance(v, MapNode) else None
        if got is not None:
            return got
    return None
