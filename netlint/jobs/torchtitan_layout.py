"""Where a torchtitan TOML keeps its parallel sizes, by torchtitan version, and what of it netlint
cannot read (said as NL012 by the loader, never guessed).

Sources (``pytorch/torchtitan@commit path``):

* @785c34c9 (2025-03-18, #980) moved every parallel size into a new ``[parallelism]`` section;
  from then on ``torchtitan/train.py`` L81-89 builds ``ParallelDims`` from
  ``job_config.parallelism`` only. Old keys left in ``[training]`` / ``[experimental]`` are
  ignored (``config_manager.py`` ``parse_args`` merges any TOML table; from @c1c2f55d
  ``_dict_to_dataclass`` skips unknown fields) until @eadca483 (2025-08-28, #1644), whose
  ``_dict_to_dataclass`` stops with "Invalid field names".
* Before it (its parent @a30d4cca, ``torchtitan/config_manager.py`` L310-467; ``train.py`` L81-89):
  ``[training]`` ``batch_size`` (8, per rank), ``seq_len`` (2048), ``data_parallel_replicate_degree``
  (1), ``data_parallel_shard_degree`` (-1: the ranks the other degrees leave),
  ``tensor_parallel_degree`` (1); ``[experimental]`` ``pipeline_parallel_degree`` (1, there since
  @aafe0e87, 2024-05-21) and ``context_parallel_degree`` (1, since @b19456a9, 2024-10-22).
* Earlier (@c22d1a8d, 2024-04-11, until @db6b39ac, 2024-09-10, "Enable HSDP"): one
  ``[training] data_parallel_degree`` (-1 = what is left; ``ParallelDims(dp, tp, pp)``), FSDP unless
  ``data_parallel_type = "ddp"`` (from @2f989b9f, 2024-07-18); before @aafe0e87 the pipeline degree
  was ``[training] pipeline_parallel_degree``.
* ``[training] batch_size`` became ``local_batch_size`` (with ``global_batch_size``) at @8570415c
  (2025-06-05); netlint's newer keys are those of @238fa99 ``torchtitan/config/job_config.py``.

Where a key moved, the newer spelling wins (the torchtitan that reads it ignores the older one).
"""

from __future__ import annotations

from typing import Any

# field, the keys torchtitan reads it from (newest first), torchtitan's default.
# NEW: @238fa99 torchtitan/config/job_config.py L253-261, L313-464 (``training.batch_size``: @a30d4cca)
NEW = (
    ("tp", ("parallelism.tensor_parallel_degree",), 1),
    ("pp", ("parallelism.pipeline_parallel_degree",), 1),
    ("cp", ("parallelism.context_parallel_degree",), 1),
    ("ep", ("parallelism.expert_parallel_degree",), 1),
    ("etp", ("parallelism.expert_tensor_parallel_degree",), 1),
    ("dp_replicate", ("parallelism.data_parallel_replicate_degree",), 1),
    ("dp_shard", ("parallelism.data_parallel_shard_degree",), -1),
    ("micro_batch", ("training.local_batch_size", "training.batch_size"), 8),
    ("global_batch", ("training.global_batch_size",), -1),
    ("seq_len", ("training.seq_len",), 2048),
)
OLD = (
    ("tp", ("training.tensor_parallel_degree",), 1),
    ("pp", ("experimental.pipeline_parallel_degree", "training.pipeline_parallel_degree"), 1),
    ("cp", ("experimental.context_parallel_degree",), 1),
    ("ep", (), 1),             # no expert parallelism before [parallelism]
    ("etp", (), 1),
    ("dp_replicate", ("training.data_parallel_replicate_degree",), 1),
    ("dp_shard", ("training.data_parallel_shard_degree", "training.data_parallel_degree"), -1),
    ("micro_batch", ("training.batch_size",), 8),
    ("global_batch", (), -1),  # none: the global batch was batch_size × DP
    ("seq_len", ("training.seq_len",), 2048),
)
OLD_DEGREES = tuple(k for f, keys, _ in OLD if f not in ("micro_batch", "seq_len") for k in keys)


def lookup(data: dict, key: str) -> Any:
    node: Any = data
    for part in key.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def layout(data: dict, overrides: dict) -> str:
    """``"new"`` (``[parallelism]``, @785c34c9 on) or ``"old"`` (sizes in ``[training]`` /
    ``[experimental]``); a file that writes neither reads the same defaults either way."""
    if isinstance(data.get("parallelism"), dict) or any(k.startswith("parallelism.") for k in overrides):
        return "new"
    if any(lookup(data, k) is not None or k in overrides for k in OLD_DEGREES):
        return "old"
    return "new"


def stale_keys(data: dict, chosen: str) -> list[str]:
    """The old-layout size keys a ``[parallelism]`` file also writes: torchtitan ignores them."""
    return [k for k in OLD_DEGREES if lookup(data, k) is not None] if chosen == "new" else []
