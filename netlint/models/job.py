"""The normalized training job: what every job loader (Megatron launch scripts, DeepSpeed configs,
NeMo YAML, gpt-neox YAML, torchtitan TOML) produces, and what JOB4xx/FAB5xx rules read.

Every field is a located :class:`~netlint.located.Scalar` (often a :class:`netlint.shell.Word`, whose
``origin`` is where a value that came through a shell variable was written) or ``None`` when the job
does not say. A value netlint cannot know statically is ``None`` here and listed in
``TrainingJob.unknown`` with the reason, so rules that need it stay silent. Framework defaults
(Megatron's TP=1, PP=1, …) are filled in by the loader, located at the launch command, and named in
``defaulted``.

``ws.jobs`` holds :class:`TrainingJob`, :class:`DsConfig` (a DeepSpeed config file on its own) and
:class:`Hostfile` objects; use :func:`training_jobs`, :func:`ds_configs`, :func:`hostfiles`.
A plain dataclass rather than a pydantic model: the fields are already-validated Scalars whose
subclass (Word, with ``origin``) must survive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

from netlint.located import MapNode, Scalar, Span

if TYPE_CHECKING:
    from netlint.shell import Command, Script, Unknown

# The fields every loader fills (value types after normalization).
INT_FIELDS = ("nodes", "gpus_per_node", "world_size", "tp", "pp", "vpp", "cp", "ep", "etp", "dp",
              "micro_batch", "global_batch", "grad_accum", "layers", "hidden", "ffn", "heads",
              "query_groups", "kv_channels", "seq_len", "max_position", "vocab", "experts", "topk",
              "zero_stage", "ddp_bucket_size", "ds_sp", "layers_per_vstage", "ntasks_per_node",
              "decoder_seq_len", "moe_ffn", "moe_shared_ffn", "q_lora_rank", "kv_lora_rank", "qk_head_dim",
              "qk_pos_emb_head_dim", "v_head_dim", "dp_replicate", "dp_shard", "moe_router_groups",
              "moe_router_group_topk")
BOOL_FIELDS = ("distributed_optimizer", "sequence_parallel", "overlap_grad_reduce",
               "overlap_param_gather", "tp_comm_overlap", "fp16", "bf16", "swiglu",
               "group_query_attention", "grad_reduce_in_bf16", "mla", "untie_embeddings", "overlap_moe_comm")
STR_FIELDS = ("dtype", "recompute", "launcher", "framework", "position_embedding", "moe_dispatcher",
              "moe_dispatch_dtype", "cp_comm_type")


@dataclass
class Arg:
    """One Megatron-style flag occurrence: the flag word and the value words after it."""

    flag: Scalar                          # the flag as written (--tensor-model-parallel-size)
    values: list[Scalar]                  # the words that follow it
    index: int = 0  # position in argv

    @property
    def name(self) -> str:
        return str(self.flag.value).split("=", 1)[0]

    @property
    def value(self) -> Scalar | None:
        return self.values[0] if self.values else None


@dataclass
class TrainingJob:
    file: str                             # display path of the launch script or config
    span: Span                       # the launch command / document
    framework: str = "megatron"      # megatron | megatron-deepspeed | deepspeed | nemo | gpt-neox | torchtitan
    launcher: str | None = None      # torchrun | deepspeed | srun | python | …
    # which extra_args_provider adds flags to Megatron's parser depends on the script
    entry: Scalar | None = None      # the training script launched, as written (pretrain_gpt.py, …)
    # cluster shape asked for
    nodes: Scalar | None = None           # nodes asked for
    gpus_per_node: Scalar | None = None   # processes per node (nproc_per_node, ntasks-per-node, devices)
    world_size: Scalar | None = None      # processes in all
    ntasks_per_node: Scalar | None = None  # Slurm tasks per node when a per-node launcher runs inside
    # parallelism
    tp: Scalar | None = None              # tensor parallel size
    pp: Scalar | None = None              # pipeline parallel size
    vpp: Scalar | None = None             # virtual pipeline stages per pipeline rank (interleaved schedule)
    layers_per_vstage: Scalar | None = None  # layers per virtual pipeline stage
    cp: Scalar | None = None              # context parallel size
    ep: Scalar | None = None              # expert parallel size
    etp: Scalar | None = None             # expert tensor parallel size
    dp: Scalar | None = None              # data parallel size
    ds_sp: Scalar | None = None           # DeepSpeed-Ulysses sequence parallel size (Megatron-DeepSpeed)
    dp_replicate: Scalar | None = None    # torchtitan data_parallel_replicate_degree (DP = replicate × shard)
    dp_shard: Scalar | None = None        # torchtitan data_parallel_shard_degree as written; -1 = what is left
    # batch
    micro_batch: Scalar | None = None     # micro batch size per data-parallel rank
    global_batch: Scalar | None = None    # global batch size
    grad_accum: Scalar | None = None      # gradient accumulation steps
    rampup_batch: list[Scalar] = field(default_factory=list)  # --rampup-batch-size START INCREMENT SAMPLES
    # model
    layers: Scalar | None = None          # transformer layers
    hidden: Scalar | None = None          # hidden size
    ffn: Scalar | None = None             # FFN hidden size
    heads: Scalar | None = None           # attention heads
    query_groups: Scalar | None = None    # query groups (GQA)
    kv_channels: Scalar | None = None     # key/value channels per head
    seq_len: Scalar | None = None         # sequence length
    decoder_seq_len: Scalar | None = None   # --decoder-seq-length (encoder-decoder and multimodal models)
    max_position: Scalar | None = None    # maximum position embeddings
    vocab: Scalar | None = None           # vocabulary size (padded as the framework pads it)
    experts: Scalar | None = None            # experts per MoE layer (the largest when counts differ per layer)
    experts_per_layer: list[Scalar] = field(default_factory=list)  # Megatron-DeepSpeed: one count per MoE layer
    topk: Scalar | None = None               # experts per token (framework default when MoE and not given)
    moe_ffn: Scalar | None = None            # one expert's FFN hidden size (default: ffn)
    moe_shared_ffn: Scalar | None = None     # shared experts' total FFN hidden size (None: no shared expert)
    moe_layer_freq: Scalar | None = None     # N: every N-th layer is MoE; or a pattern as written "([0]+[1]*23)"
    swiglu: Scalar | None = None             # a gated FFN (SwiGLU, GeGLU, ReGLU: three weight matrices)
    group_query_attention: Scalar | None = None  # grouped-query attention on
    mla: Scalar | None = None                # multi-latent attention (DeepSeek-V2/V3); its sizes follow
    q_lora_rank: Scalar | None = None        # None: queries not compressed
    kv_lora_rank: Scalar | None = None    # MLA key/value compression rank
    qk_head_dim: Scalar | None = None     # MLA query/key head dimension
    qk_pos_emb_head_dim: Scalar | None = None  # MLA rotary part of the query/key head
    v_head_dim: Scalar | None = None      # MLA value head dimension
    untie_embeddings: Scalar | None = None   # separate output-layer weights (default: shared with the embedding)
    position_embedding: Scalar | None = None  # learned_absolute | rope | none | … (learned: max_position × hidden)
    moe_router_groups: Scalar | None = None   # group-limited routing: expert groups (nodes or EP ranks)
    moe_router_group_topk: Scalar | None = None  # groups each token may be routed to
    moe_dispatcher: Scalar | None = None      # allgather | alltoall | flex (DeepEP-style, one copy per node)
    moe_dispatch_dtype: Scalar | None = None  # wire dtype of the forward dispatch (bf16 | mxfp8)
    overlap_moe_comm: Scalar | None = None    # EP all-to-alls overlapped with another micro-batch's compute
    cp_comm_type: Scalar | None = None        # p2p (ring) | all_gather | a2a | a2a+p2p
    # precision, optimizer, communication
    dtype: Scalar | None = None            # bf16 | fp16 | fp32 | fp8
    fp16: Scalar | None = None            # fp16 training
    bf16: Scalar | None = None            # bf16 training
    grad_reduce_in_bf16: Scalar | None = None  # gradients reduced in bf16
    distributed_optimizer: Scalar | None = None  # Megatron distributed optimizer (ZeRO-1-like)
    zero_stage: Scalar | None = None      # DeepSpeed ZeRO stage
    sequence_parallel: Scalar | None = None  # Megatron sequence parallelism
    overlap_grad_reduce: Scalar | None = None  # gradient reduce-scatter overlapped with backward
    overlap_param_gather: Scalar | None = None  # parameter all-gather overlapped with forward
    tp_comm_overlap: Scalar | None = None  # tensor-parallel communication overlapped with GEMMs (Transformer Engine)
    ddp_bucket_size: Scalar | None = None  # DDP gradient bucket size, elements
    recompute: Scalar | None = None        # full | selective
    # provenance and raw material for rules
    args: dict[str, Arg] = field(default_factory=dict)        # Megatron flags, last occurrence wins
    arg_list: list[Arg] = field(default_factory=list)         # every occurrence, in order
    extra_words: list[Scalar] = field(default_factory=list)   # argv words not attached to a flag
    unknown: dict[str, "Unknown"] = field(default_factory=dict)  # values netlint cannot know, by field
    defaulted: set[str] = field(default_factory=set)  # fields set from the framework's default, not written
    env: dict[str, Scalar] = field(default_factory=dict)       # environment at launch (exported)
    ds_config: "DsConfig | None" = None   # the DeepSpeed config the job uses
    ds_config_ref: Scalar | None = None    # --deepspeed_config PATH as written
    hostfile: "Hostfile | None" = None    # the DeepSpeed hostfile the job uses
    launch: "Command | None" = None       # the launch command
    script: "Script | None" = None        # the shell script it is launched from
    notes: list[tuple[str, Span]] = field(default_factory=list)
    vendored: Any = None                   # the Megatron-LM fork kept in the repository beside the entry script
    has_unknown_args: bool = False         # argv had words netlint could not resolve
    name: str = ""                        # a name for findings

    def value(self, name: str, default: Any = None) -> Any:
        s = getattr(self, name, None)
        return default if s is None else s.value

    def int(self, name: str) -> int | None:
        v = self.value(name)
        return v if isinstance(v, int) and not isinstance(v, bool) else None

    def span_of(self, name: str) -> Span:
        s = getattr(self, name, None)
        return s.span if isinstance(s, Scalar) and s.span.line > 0 else self.span

    def known(self, *names: str) -> bool:
        return all(getattr(self, n, None) is not None for n in names)

    def flag(self, name: str) -> bool:
        return bool(self.value(name, False))

    @property
    def model_parallel(self) -> int | None:
        vals = [self.int(n) for n in ("tp", "pp", "cp")]
        if any(v is None for v in vals):
            return None
        return vals[0] * vals[1] * vals[2]

    @property
    def label(self) -> str:
        return self.name or self.file

    @property
    def evaluates(self) -> bool:
        """The entry point evaluates a checkpoint rather than trains (Megatron-DeepSpeed's
        tasks/eval_harness/evaluate.py, an ``eval*.py``): its batch sizes feed forward passes only."""
        e = self.entry.value if self.entry is not None else None
        return isinstance(e, str) and any(part.startswith("eval") or part.startswith("run_eval")
                                          for part in e.lower().split("/"))

    @property
    def steps(self) -> bool:
        """The entry point runs training steps: not an evaluation, a checkpoint converter
        (``tools/hf2megads_weight_converter.py``, ``convert_*.py``) or a text generator
        (``tools/generate_samples_gpt.py``), which build the model and never step an optimizer."""
        e = self.entry.value if self.entry is not None else None
        if not isinstance(e, str):
            return True
        name = e.lower().rsplit("/", 1)[-1]
        return not (self.evaluates or "convert" in name or name.startswith("hf2") or "2hf" in name
                    or name.startswith(("generate", "text_generation")))


@dataclass
class DsConfig:
    """A DeepSpeed config (``ds_config.json``), from a file or a shell here-doc."""

    file: str                             # display path of the JSON
    root: MapNode                         # the JSON as written
    span: Span
    strict_json: bool = True              # the file is JSON (not the YAML-ish superset DeepSpeed also accepts)
    from_heredoc: bool = False            # written by a shell here-document, not a file of its own

    def get(self, *path: str) -> Any:
        node: Any = self.root
        for p in path:
            if not isinstance(node, MapNode):
                return None
            node = node.get(p)
        return node

    def value(self, *path: str) -> Any:
        n = self.get(*path)
        return n.value if isinstance(n, Scalar) else None


@dataclass
class Hostfile:
    """A DeepSpeed/gpt-neox hostfile: ``host slots=N`` per line."""

    file: str                             # display path of the hostfile
    hosts: list[tuple[Scalar, Scalar]]    # [host, slots] pairs
    bad_lines: list[tuple[str, Span]] = field(default_factory=list)
    duplicates: list[Scalar] = field(default_factory=list)  # hosts listed more than once
    span: Span | None = None

    @property
    def total_slots(self) -> int:
        return sum(int(s.value) for _, s in self.hosts)


def training_jobs(ws) -> Iterator[TrainingJob]:
    """Every training job; a config a launch of the repository joined is seen through that launch
    (netlint/jobs/linked.py), not also on its own."""
    from netlint.jobs.linked import visible

    return iter(ws.derived("training-jobs", visible))


def ds_configs(ws) -> Iterator[DsConfig]:
    """Every DeepSpeed config: files on their own and those attached to a launch."""
    seen: set[int] = set()
    for j in ws.jobs:
        cfg = j if isinstance(j, DsConfig) else getattr(j, "ds_config", None)
        if isinstance(cfg, DsConfig) and id(cfg) not in seen:
            seen.add(id(cfg))
            yield cfg


def hostfiles(ws) -> Iterator[Hostfile]:
    return (j for j in ws.jobs if isinstance(j, Hostfile))
