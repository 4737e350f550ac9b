"""Declarative job configs → TrainingJob: NeMo (launcher) YAML, gpt-neox YAML, torchtitan TOML.

Key names: NeMo's model config keys are megatron-core TransformerConfig fields (NVIDIA/NeMo@8cfedd7
nemo/collections/nlp/models/language_modeling/megatron_base_model.py L500-530); gpt-neox's are
``NeoXArgs`` fields (EleutherAI/gpt-neox@ea7aefd megatron/neox_arguments/neox_args.py); torchtitan's
``JobConfig`` (pytorch/torchtitan@238fa99 torchtitan/config/job_config.py). World sizes: NeMo
``trainer.num_nodes × trainer.devices``; gpt-neox and torchtitan take it from the launcher, so it
stays unknown unless a launch script of the repository names the config (netlint/jobs/linked.py) or
gpt-neox's ``global_num_gpus`` states it.
"""

from __future__ import annotations

import re
from typing import Any

from netlint.jobs.build import _derive
from netlint.jobs.values import as_bool, as_int, typed
from netlint.located import MapNode, Scalar
from netlint.models.job import TrainingJob
from netlint.shell.model import FileText, Unknown

_INTERP = re.compile(r"\$\{([^${}]+)\}")


def _get(root: Any, path: str) -> Any:
    node = root
    for part in path.split("."):
        if not isinstance(node, MapNode):
            return None
        node = node.get(part)
    return node


class _Resolver:
    """OmegaConf-style ``${a.b}`` / ``${.sibling}`` interpolations, only when they resolve to a
    literal (the launcher's ``training.`` namespace is the document root)."""

    def __init__(self, root: MapNode):
        self.root = root

    def scalar(self, path: str, depth: int = 0) -> Scalar | None:
        node = _get(self.root, path)
        if not isinstance(node, Scalar):
            return None
        v = node.value
        if isinstance(v, str) and "${" in v:
            if depth > 5:
                return None
            m = _INTERP.fullmatch(v.strip())
            if not m:
                return None
            ref = m.group(1).strip()
            if ref.startswith("training."):
                ref = ref[len("training."):]
            elif ref.startswith("."):
                ref = path.rsplit(".", 1)[0] + ref if "." in path else ref[1:]
            target = self.scalar(ref, depth + 1)
            return typed(node, target.value) if target is not None else None
        if v == "???":
            return None
        return node

    def run_time(self, path: str) -> Scalar | None:
        """The node at ``path`` when it is an interpolation only the run resolves (``${oc.env:TP,1}``,
        ``${oc.decode:…}``, a reference that leads to one): its value is not NeMo's default."""
        node = _get(self.root, path)
        if isinstance(node, Scalar) and isinstance(node.value, str) and "${" in node.value \
                and self.scalar(path) is None:
            return node
        return None


def nemo_job(file: str, root: MapNode) -> TrainingJob:
    r = _Resolver(root)
    job = TrainingJob(file=file, span=root.span, framework="nemo", launcher="nemo-launcher")

    run_time: list[tuple[str, Scalar]] = []

    def i(field: str, path: str) -> None:
        s = r.scalar(path)
        if s is not None and s.value is not None:
            v = as_int(s)
            if v is not None:
                setattr(job, field, v)
        elif (late := r.run_time(path)) is not None:
            run_time.append((field, late))

    def b(field: str, path: str) -> None:
        s = r.scalar(path)
        v = as_bool(s) if s is not None else None
        if v is not None and v.value:
            setattr(job, field, v)

    i("nodes", "trainer.num_nodes")
    i("gpus_per_node", "trainer.devices")
    for f, p in (("tp", "tensor_model_parallel_size"), ("pp", "pipeline_model_parallel_size"),
                 ("vpp", "virtual_pipeline_model_parallel_size"), ("cp", "context_parallel_size"),
                 ("ep", "expert_model_parallel_size"), ("etp", "expert_tensor_parallel_size"),
                 ("micro_batch", "micro_batch_size"), ("global_batch", "global_batch_size"),
                 ("layers", "num_layers"), ("hidden", "hidden_size"), ("ffn", "ffn_hidden_size"),
                 ("heads", "num_attention_heads"), ("query_groups", "num_query_groups"),
                 ("kv_channels", "kv_channels"), ("seq_len", "encoder_seq_length"),
                 ("max_position", "max_position_embeddings"), ("experts", "num_moe_experts"),
                 ("topk", "moe_router_topk"), ("moe_ffn", "moe_ffn_hidden_size"),
                 ("moe_shared_ffn", "moe_shared_expert_intermediate_size"), ("moe_layer_freq", "moe_layer_freq"),
                 ("vocab", "override_vocab_size"), ("moe_router_groups", "moe_router_num_groups"),
                 ("moe_router_group_topk", "moe_router_group_topk")):
        i(f, "model." + p)
    for f, p in (("position_embedding", "position_embedding_type"), ("moe_dispatcher", "moe_token_dispatcher_type"),
                 ("cp_comm_type", "cp_comm_type")):
        word = r.scalar("model." + p)
        if word is not None and isinstance(word.value, str):
            setattr(job, f, word)
    tied = r.scalar("model.share_embeddings_and_output_weights")
    if tied is not None and as_bool(tied) is not None and not as_bool(tied).value:
        job.untie_embeddings = typed(tied, True)
    if job.vocab is None:
        _nemo_vocab(job, r)
    if job.seq_len is None:
        i("seq_len", "model.data.seq_length")
    b("sequence_parallel", "model.sequence_parallel")
    b("tp_comm_overlap", "model.ub_tp_comm_overlap")
    b("overlap_grad_reduce", "model.optim.overlap_grad_sync")
    b("overlap_param_gather", "model.optim.overlap_param_sync")
    b("overlap_moe_comm", "model.overlap_moe_expert_parallel_comm")
    opt = r.scalar("model.optim.name")
    if opt is not None and opt.value in ("mcore_distributed_optim", "distributed_fused_adam"):
        job.distributed_optimizer = typed(opt, True)
    prec = r.scalar("trainer.precision")
    if prec is not None:
        p = str(prec.value).lower()
        job.dtype = typed(prec, "bf16" if "bf16" in p else "fp16" if p.startswith("16") or "fp16" in p
                          else "fp32")
        if job.dtype.value == "bf16":
            job.bf16 = typed(prec, True)
        elif job.dtype.value == "fp16":
            job.fp16 = typed(prec, True)
    fp8 = r.scalar("model.fp8")
    if fp8 is not None and as_bool(fp8) is not None and as_bool(fp8).value:
        job.dtype = typed(fp8, "fp8")
    act = r.scalar("model.activation")
    if act is not None and isinstance(act.value, str) and act.value.endswith("glu"):
        # NeMo megatron_base_model.py L513-514: gated_linear_unit = activation.endswith('glu')
        # (swiglu, geglu, reglu and their fast- variants): a gated FFN, three weight matrices
        job.swiglu = typed(act, True)
    if job.query_groups is not None:
        job.group_query_attention = typed(job.query_groups, True)
    if job.nodes is not None and job.gpus_per_node is not None:
        job.world_size = Scalar(job.nodes.value * job.gpus_per_node.value, job.nodes.span, "")
    _sizes_at_run_time(job, run_time)
    _sizes_from_checkpoint(job, root)
    if job.vpp is not None and job.vpp.value in (None, 1):
        job.vpp = None
    _derive(job)
    return job


_OC_ENV = re.compile(r"oc\.env:\s*([A-Za-z_][A-Za-z0-9_]*)")


def _sizes_at_run_time(job: TrainingJob, run_time: list[tuple[str, Scalar]]) -> None:
    """Sizes written as interpolations the run resolves (MLPerf's NeMo configs:
    ``tensor_model_parallel_size: ${oc.decode:${oc.env:TENSOR_MODEL_PARALLEL}}``, set by a config_*.sh
    the launcher sources) are unknown — not NeMo's default of 1 — with one reason for all of them
    (OmegaConf resolves ``oc.env`` when the value is read: omegaconf docs, "Built-in resolvers")."""
    if not run_time:
        return
    names = list(dict.fromkeys(n for _, node in run_time for n in _OC_ENV.findall(node.value)))
    what = (f"environment variable{'s' if len(names) > 1 else ''} {', '.join(names[:4])}"
            + (" and more" if len(names) > 4 else "")) if names else "interpolations"
    why = Unknown(f"read from {what} when the run resolves the config (`{run_time[0][1].value}`)",
                  run_time[0][1].span, "other")
    for field, _ in run_time:
        if getattr(job, field) is None:
            job.unknown[field] = why


def _sizes_from_checkpoint(job: TrainingJob, root: MapNode) -> None:
    """A config that restores a checkpoint and does not say TP or PP takes them from the checkpoint:
    NeMo-Aligner merges the YAML's ``model`` over the ``.nemo`` file's own config
    (NVIDIA/NeMo-Aligner@af2b3bd9 examples/nlp/gpt/train_gpt_ppo_actor.py L58,
    ``load_and_override_model_config``; nemo_aligner/utils/utils.py L134-152, ``OmegaConf.merge``), so
    they are unknown here, not NeMo's default of 1."""
    model = root.get("model")
    holder = root.get("pretrained_checkpoint")
    where = holder.get("restore_from_path") if isinstance(holder, MapNode) else None
    if where is None and isinstance(model, MapNode):
        where = model.get("restore_from_path")
    if where is None or not isinstance(model, MapNode):
        return
    why = Unknown("not in this config's model section: the checkpoint it restores (restore_from_path) "
                  "decides", getattr(where, "span", root.span), "other")
    for field, key in (("tp", "tensor_model_parallel_size"), ("pp", "pipeline_model_parallel_size")):
        if getattr(job, field) is None and key not in model:
            job.unknown[field] = why


# The GPT-2 byte-pair vocabulary NeMo's `library: megatron, type: GPT2BPETokenizer` loads (Radford et
# al. 2019, "Language Models are Unsupervised Multitask Learners" §2.2: "expanded to 50,257").
_GPT2_VOCAB = 50257


def _nemo_vocab(job: TrainingJob, r: "_Resolver") -> None:
    """The vocabulary when the tokenizer section states it: NeMo builds the tokenizer from
    ``model.tokenizer`` (megatron_base_model.py L442-464); a Hugging Face tokenizer's size is in its
    files, not the config, so it stays unknown."""
    lib, kind = r.scalar("model.tokenizer.library"), r.scalar("model.tokenizer.type")
    if lib is not None and kind is not None and lib.value == "megatron" and kind.value == "GPT2BPETokenizer":
        job.vocab = typed(kind, _GPT2_VOCAB)
        job.defaulted.add("vocab")


def _neox(root: MapNode, *keys: str) -> Scalar | None:
    for k in keys:
        for variant in (k, k.replace("_", "-")):
            node = root.get(variant)
            if isinstance(node, Scalar):
                return node
    return None


# gpt-neox ``precision`` (neox_args.py L102: Literal["fp16", "fp32", "bfloat16"]) → dtype
_NEOX_PRECISION = {"fp16": "fp16", "fp32": "fp32", "bfloat16": "bf16"}


def neox_job(file: str, root: MapNode, world: Scalar | None = None) -> TrainingJob:
    """A gpt-neox config (several files merged into ``root`` when a launch names them); ``world`` is
    the GPU count a launch in the repository gives (:mod:`netlint.jobs.linked`)."""
    job = TrainingJob(file=file, span=root.span, framework="gpt-neox", launcher="deepy")
    for f, keys in (("tp", ("model_parallel_size",)), ("pp", ("pipe_parallel_size",)),
                    ("micro_batch", ("train_micro_batch_size_per_gpu",)),
                    ("grad_accum", ("gradient_accumulation_steps",)),
                    ("global_batch", ("train_batch_size",)), ("layers", ("num_layers",)),
                    ("hidden", ("hidden_size",)), ("heads", ("num_attention_heads",)),
                    ("seq_len", ("seq_length",)), ("max_position", ("max_position_embeddings",)),
                    ("query_groups", ("num_kv_heads",)), ("experts", ("moe_num_experts",)),
                    ("topk", ("moe_top_k",)), ("world_size", ("global_num_gpus",))):
        s = _neox(root, *keys)
        v = as_int(s) if s is not None else None
        if v is not None:
            setattr(job, f, v)
    if job.pp is not None and job.pp.value < 1:
        # arguments.py L919-920 (and initialize.py L159): pipe_parallel_size 0 runs without a pipeline
        job.pp = typed(job.pp, 1)
    zero = root.get("zero_optimization")
    if isinstance(zero, MapNode) and isinstance(zero.get("stage"), Scalar):
        job.zero_stage = as_int(zero.get("stage"))
    for key, field in (("fp16", "fp16"), ("bf16", "bf16")):
        sec = root.get(key)
        if isinstance(sec, MapNode) and isinstance(sec.get("enabled"), Scalar):
            e = as_bool(sec.get("enabled"))
            if e is not None and e.value:
                setattr(job, field, e)
    job.dtype = typed(job.bf16, "bf16") if job.bf16 else typed(job.fp16, "fp16") if job.fp16 else None
    prec = _neox(root, "precision")
    if prec is not None and prec.value in _NEOX_PRECISION:
        # arguments.py L965-980: the fp16/bf16 sections must agree with an explicit precision
        job.dtype = typed(prec, _NEOX_PRECISION[prec.value])
        if job.dtype.value in ("bf16", "fp16") and getattr(job, job.dtype.value) is None:
            setattr(job, job.dtype.value, typed(prec, True))
    if job.world_size is None and world is not None:
        job.world_size = world
    if job.world_size is None:
        job.unknown["world_size"] = Unknown("gpt-neox takes the GPU count from its launcher / hostfile",
                                            root.span, "other")
    _derive(job)
    return job


# --- torchtitan TOML -----------------------------------------------------------------------------
_SECTION = re.compile(r"^\s*\[([^\]]+)\]\s*(#.*)?$")
_KV = re.compile(r"^\s*([A-Za-z0-9_\-]+)\s*=\s*(\"[^\"]*\"|'[^']*'|[^#\s][^#]*?)\s*(#.*)?$")


def toml_scalars(file: str, text: str) -> dict[str, Scalar]:
    """``section.key`` → Scalar (value from tomllib, span from a line scan of simple ``k = v`` lines)."""
    return _toml(file, text)[1]


def _toml(file: str, text: str) -> tuple[dict, dict[str, Scalar]]:
    from netlint.parsing_toml import parse_toml

    data = parse_toml(file, text)  # ParseError past netlint's limits or TOML's 64-bit integers
    ft = FileText(file, text)
    out: dict[str, Scalar] = {}
    section = ""
    pos = 0
    for line in text.splitlines(keepends=True):
        m = _SECTION.match(line)
        if m:
            section = m.group(1).strip()
        else:
            kv = _KV.match(line)
            if kv:
                key = f"{section}.{kv.group(1)}" if section else kv.group(1)
                node: Any = data
                for part in key.split("."):
                    node = node.get(part) if isinstance(node, dict) else None
                if node is not None and not isinstance(node, (dict, list)):
                    a = pos + kv.start(2)
                    out[key] = Scalar(node, ft.span(a, pos + kv.end(2)), kv.group(2))
        pos += len(line)
    return data, out


def torchtitan_job(file: str, text: str, world: Scalar | None = None,
                   overrides: dict[str, Scalar] | None = None,
                   unread: list | None = None) -> TrainingJob:
    """A torchtitan TOML job config; ``world`` and the command-line ``overrides`` (``--section.key``
    words, which torchtitan's CLI applies over the file) come from a launch in the repository
    (:mod:`netlint.jobs.linked`). The sizes are read from the layout of the torchtitan the file was
    written for (:mod:`netlint.jobs.torchtitan_layout`); what cannot be read stays unknown and is
    added to ``unread`` as (field, message, span, key) for NL012."""
    from netlint.jobs import torchtitan_layout as tl

    data, vals = _toml(file, text)
    overrides = overrides or {}
    vals.update(overrides)
    ft = FileText(file, text)
    job = TrainingJob(file=file, span=ft.span(0, 1), framework="torchtitan", launcher="torchrun")
    chosen = tl.layout(data, overrides)
    problems = unread if unread is not None else []
    used: dict[str, str] = {}
    for f, keys, default in (tl.NEW if chosen == "new" else tl.OLD):
        key = next((k for k in keys if k in vals or tl.lookup(data, k) is not None), None)
        s = vals.get(key) if key else None
        v = as_int(s) if s is not None else None
        if key is None:
            setattr(job, f, Scalar(default, job.span, ""))
            job.defaulted.add(f)
        elif v is not None:
            setattr(job, f, v)
            used[f] = key
        elif s is None:  # in the TOML but not as a plain `key = value` line netlint locates
            _unread(job, problems, f, key, f"`{key}` is written as a dotted key or inline table, which "
                    "netlint does not locate", _where(ft, text, key) or job.span)
        elif not isinstance(s.value, Unknown):
            _unread(job, problems, f, key, f"`{key} = {s.raw or s.value}` is not an integer, which "
                    "torchtitan needs here", s.span)
    for key in tl.stale_keys(data, chosen):
        s = vals.get(key)
        problems.append((None, f"`{key}` is not read: this file has a [parallelism] section, and "
                         "torchtitan reads its parallel sizes only from there since pytorch/torchtitan@785c34c9 "
                         "(and stops with \"Invalid field names\" on this key since @eadca483)",
                         s.span if s is not None else job.span, key))
    _old_ddp(job, vals, used, problems)
    if job.global_batch is not None and job.global_batch.value < 0:
        job.global_batch = None  # -1: local batch × DP (train.py L196-200)
    if world is not None:
        job.world_size = world
    shard, rep = job.int("dp_shard"), job.int("dp_replicate")
    if shard is not None and rep is not None and shard >= 1:
        job.dp = Scalar(shard * rep, job.dp_shard.span, "")
    elif shard == -1 and world is not None and rep:
        rest = rep * (job.int("cp") or 1) * (job.int("tp") or 1) * (job.int("pp") or 1)
        if rest and world.value % rest == 0 and world.value >= rest:
            job.dp = Scalar(world.value // rest * rep, job.dp_shard.span, "")
    elif shard == -1:
        job.unknown["dp"] = Unknown("data_parallel_shard_degree = -1 fills the world size at launch",
                                    job.dp_shard.span, "other")
    if job.world_size is None:
        job.unknown["world_size"] = Unknown("torchtitan takes WORLD_SIZE from torchrun", job.span)
    _derive(job)
    return job


def _where(ft: FileText, text: str, key: str):
    """The span of the first mention of ``key``'s name in the text (a dotted key, an inline table)."""
    m = re.search(r"\b%s\b" % re.escape(key.rsplit(".", 1)[-1]), text)
    return ft.span(m.start(), m.end()) if m else None


def _old_ddp(job: TrainingJob, vals: dict[str, Scalar], used: dict[str, str], problems: list) -> None:
    """``data_parallel_degree`` with ``data_parallel_type = "ddp"`` (pytorch/torchtitan@2f989b9f until
    @db6b39ac): the degree replicates instead of sharding."""
    kind = vals.get("training.data_parallel_type")
    if used.get("dp_shard") != "training.data_parallel_degree" or kind is None \
            or str(kind.value).lower() != "ddp":
        return
    degree = job.dp_shard
    if degree.value >= 1:
        job.dp_replicate, job.dp_shard = degree, Scalar(1, degree.span, "")
        job.defaulted.discard("dp_replicate")
        job.defaulted.add("dp_shard")
        return
    job.dp_shard = None
    _unread(job, problems, "dp_shard", "training.data_parallel_degree", "`training.data_parallel_degree = "
            "-1` with data_parallel_type = \"ddp\" replicates over the leftover ranks, which netlint models "
            "only for sharded data parallelism", degree.span)


def _unread(job: TrainingJob, problems: list, field: str, key: str, reason: str, span) -> None:
    """A size torchtitan reads that netlint cannot: unknown on the job (rules that need it stay
    silent), and said once as NL012 (by netlint.jobs.unread for the sizes it reports, else by the
    loader)."""
    job.unknown[field] = Unknown(reason, span, "other")
    problems.append((field, f"{reason}; checks that need it are skipped", span, key))
