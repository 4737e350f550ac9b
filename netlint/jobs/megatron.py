"""Megatron-LM command-line arguments: the known-flag table and a table-driven argv reader.

The table is ``netlint/data/megatron-args.tsv`` (research/jobs.md §1: every flag Megatron-LM's
parser defines at NVIDIA/Megatron-LM@d98e8a64, statically extracted). Megatron's parser uses
``allow_abbrev=False`` (arguments.py L117-133), so an unknown or abbreviated flag aborts the launch
with "unrecognized arguments". The table carries no arity, so values are read the way argparse
would for well-formed input: every word up to the next ``-``-word belongs to the flag before it
(store_true flags are followed directly by another flag; ``nargs='+'`` flags take several words).
"""

from __future__ import annotations

import difflib
import re
from functools import lru_cache
from importlib import resources

from netlint.located import Scalar
from netlint.models.job import Arg

# research/jobs.md §1b "Legacy / alias spellings": parsed, then rejected or redirected by validate_args.
LEGACY = {
    "--model-parallel-size": ("--tensor-model-parallel-size",
                              "--model-parallel-size is no longer valid, use --tensor-model-parallel-size instead"),
    "--batch-size": ("--micro-batch-size",
                     "--batch-size argument is no longer valid, use --micro-batch-size instead"),
    "--warmup": ("--lr-warmup-fraction", "--warmup argument is no longer valid, use --lr-warmup-fraction instead"),
    "--checkpoint-activations": ("--recompute-activations",
                                 "--checkpoint-activations is no longer valid, use --recompute-activations, "
                                 "or, for more control, --recompute-granularity and --recompute-method"),
}
# Flags present in core_v0.15.0 and removed at HEAD (research/jobs.md §1b, comparison of both trees).
REMOVED = {
    "--no-async-tensor-model-parallel-allreduce": "removed after core_v0.15.0 (async TP all-reduce is always on)",
    "--use-legacy-models": "removed after core_v0.15.0 (legacy models were dropped; mcore models are the only ones)",
    "--moe-extended-tp": "removed after core_v0.15.0 (use --expert-tensor-parallel-size)",
}
REMOVED_PREFIXES = {"--retro-": "the RETRO flags were removed after core_v0.15.0"}
# Megatron-DeepSpeed / DeepSpeed integration flags: not Megatron-LM's, but their presence identifies
# a Megatron-DeepSpeed launch (MDS megatron/arguments.py).
MDS_MARKERS = ("--deepspeed", "--deepspeed_config", "--deepspeed-config", "--zero-stage",
               "--ds-sequence-parallel-size", "--no-pipeline-parallel", "--pp-partition-method",
               "--deepspeed-activation-checkpointing", "--moe-expert-parallel-size")

_FLAG = re.compile(r"--?[A-Za-z]")


@lru_cache(maxsize=1)
def table() -> dict[str, str]:
    """Known flag spelling → dest."""
    out: dict[str, str] = {}
    text = resources.files("netlint").joinpath("data/megatron-args.tsv").read_text(encoding="utf-8")
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        parts = line.split("\t")
        for flag in re.split(r"[,\s]+", parts[0]):
            flag = flag.strip()
            if flag:
                out[flag] = parts[1] if len(parts) > 1 else flag.lstrip("-").replace("-", "_")
    return out


def is_known(flag: str) -> bool:
    return flag in table()


def suggest(flag: str) -> str | None:
    hits = difflib.get_close_matches(flag, list(table()), n=1, cutoff=0.75)
    return hits[0] if hits else None


def is_flag_word(v) -> bool:
    return isinstance(v, str) and bool(_FLAG.match(v)) and not _is_number(v)


def _is_number(v: str) -> bool:
    try:
        float(v.replace("_", ""))
        return True
    except ValueError:
        return False


def parse_argv(words: list[Scalar]) -> tuple[list[Arg], list[Scalar], bool]:
    """Split script arguments into flag occurrences. Returns (args in order, words attached to no
    flag, whether some word was unknown)."""
    args: list[Arg] = []
    loose: list[Scalar] = []
    unknown = False
    cur: Arg | None = None
    for i, w in enumerate(words):
        v = w.value
        if not isinstance(v, str):
            unknown = True
            prefix = getattr(v, "prefix", "")
            if prefix.startswith("--") and "=" in prefix:
                name = prefix.split("=", 1)[0]
                cut = len(name)
                flag = _slice(w, 0, cut)
                val = _slice(w, cut + 1, None)
                cur = Arg(flag, [val], i)
                args.append(cur)
                cur = None
                continue
            if cur is not None:
                cur.values.append(w)
            else:
                loose.append(w)
            continue
        if is_flag_word(v):
            if v.startswith("--") and "=" in v:
                name, _, rest = v.partition("=")
                args.append(Arg(_slice(w, 0, len(name)), [_slice(w, len(name) + 1, None)], i))
                cur = None
                continue
            cur = Arg(w, [], i)
            args.append(cur)
            continue
        if cur is not None:
            cur.values.append(w)
        else:
            loose.append(w)
    return args, loose, unknown


def _slice(w: Scalar, i: int, j: int | None) -> Scalar:
    if hasattr(w, "slice"):
        return w.slice(i, j)
    text = str(w.value)
    return Scalar(text[i:j], w.span, text[i:j])


def last_by_name(args: list[Arg]) -> dict[str, Arg]:
    out: dict[str, Arg] = {}
    for a in args:
        out[a.name] = a
    return out
