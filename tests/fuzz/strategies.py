"""Structure-aware Hypothesis strategies, one per input family netlint reads.

Each strategy draws a small repository ``{path: text}``: a realistic document of the family (the keys,
tables, variables and flags netlint's loaders look for) whose values, keys and shape are then mutated —
values replaced by hostile scalars (huge, Unicode or non-finite numbers, zeros, templates, quotes),
keys dropped or added, scalars turned into containers, containers nested or emptied — and, now and
then, the serialized text itself cut or spliced. The raw literals are written unquoted, so the
parsers meet them as numbers the way a real file would hand them over.
"""

from __future__ import annotations

import json
from importlib import resources

from hypothesis import strategies as st


class Raw(str):
    """A scalar written as is (unquoted): a number, a word, a placeholder."""


# Values a careless colleague or an attacker writes where a number, a name or a list is expected.
HOSTILE = [
    "0", "-1", "1", "2", "3", "8", "-0", "00", "007", "0x10", "0o17", "0b101", "1_000", "+5",
    "1e999", "-1e999", "1e308", "4.5", ".5", "1.", "nan", ".nan", "inf", ".inf", "-.inf", "Infinity", "NaN",
    "9" * 25, "9" * 120, "9" * 400, "9" * 4400, "1" + "0" * 30,
    "9²", "①", "٣", "１", "²", "Ⅻ", "1e", "e9", "0e0",
    "", " ", "~", "null", "None", "true", "false", "yes", "off", "on",
    "${X}", "$X", "$(echo 8)", "`echo 8`", "{{ .Values.x }}", "{{x}}", "$((8/0))", "${X:-8}", "%(x)s",
    "'", '"', "\\", "\\n", "a b", "a,b", ",", "3,,4", "3,4", "3-4", "0-7", "7-0", "1-99999999999999999999",
    "400G", "400", "1e999G", "-400G", "0G", "25Gbps", "400000", "5m", "0m", "99999999999999999999m",
    "mlx5_0", "mlx5_0:1", "^mlx5", "=ens1np0", "lo", "*", "ens+", "[", "]", "{", "}", "#", "&a", "*a", "!!python/name:x",
    "é", "\u202e", "\t", "Ethernet0", "RDMA", "AZURE", "lossless", "dynamic", "ecn_all", "dscp",
]
hostile_raw = st.sampled_from(HOSTILE).map(Raw)


def _names(path: str, column: int = 0) -> list[str]:
    text = resources.files("netlint").joinpath(f"data/{path}").read_text(encoding="utf-8")
    return [line.split("\t")[column] for line in text.splitlines()[1:] if line and not line.startswith("#")]


NCCL_NAMES = _names("nccl-env.tsv")
MEGATRON_FLAGS = [n for n in _names("megatron-args.tsv") if n.startswith("--")]
HOT_FLAGS = ["--tensor-model-parallel-size", "--pipeline-model-parallel-size", "--context-parallel-size",
             "--expert-model-parallel-size", "--expert-tensor-parallel-size", "--num-experts",
             "--micro-batch-size", "--global-batch-size", "--num-layers", "--hidden-size",
             "--num-attention-heads", "--seq-length", "--ffn-hidden-size", "--num-query-groups",
             "--virtual-pipeline-model-parallel-size", "--num-layers-per-virtual-pipeline-stage",
             "--rampup-batch-size", "--sequence-parallel", "--use-distributed-optimizer", "--bf16", "--fp16",
             "--deepspeed", "--deepspeed_config", "--zero-stage", "--recompute-granularity", "--moe-grouped-gemm"]
HOT_NCCL = ["NCCL_IB_HCA", "NCCL_IB_TC", "NCCL_IB_TIMEOUT", "NCCL_IB_GID_INDEX", "NCCL_SOCKET_IFNAME",
            "NCCL_DEBUG", "NCCL_ALGO", "NCCL_PROTO", "NCCL_NET_GDR_LEVEL", "NCCL_P2P_LEVEL", "NCCL_BUFFSIZE",
            "NCCL_IB_QPS_PER_CONNECTION", "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS", "NCCL_NVLS_ENABLE",
            "NCCL_IB_SL", "NCCL_CROSS_NIC", "NCCL_IB_DISABLE", "NCCL_NET", "NCCL_TOPO_FILE",
            "CUDA_DEVICE_MAX_CONNECTIONS", "FI_PROVIDER", "FI_EFA_USE_DEVICE_RDMA", "TORCH_NCCL_ASYNC_ERROR_HANDLING"]
nccl_names = st.one_of(st.sampled_from(HOT_NCCL), st.sampled_from(HOT_NCCL), st.sampled_from(NCCL_NAMES),
                       st.from_regex(r"\ANCCL_[A-Z_]{1,12}\Z"))


# --- mutation of a document tree ------------------------------------------------------------------
# Rates come from a random.Random that Hypothesis seeds (deterministic with derandomize): its own draws
# lean to their bounds, which would disturb nearly every node. Each document draws a rate, so some
# stay almost valid (their values reach the rules) and some are torn apart (the parsers, the loaders).
def random_scalar(rng):
    roll = rng.random()
    if roll < 0.6:
        return Raw(rng.choice(HOSTILE))
    if roll < 0.7:
        return rng.choice(HOSTILE)  # the same values, quoted
    if roll < 0.8:
        return rng.choice([rng.randint(-(2 ** 70), 2 ** 70), rng.randint(-3, 70), 2 ** 63, -(2 ** 63) - 1])
    if roll < 0.86:
        return rng.choice([float("inf"), float("-inf"), float("nan"), rng.uniform(-1e6, 1e6), 1e308, 5e-324])
    if roll < 0.95:
        return "".join(chr(rng.choice([rng.randint(32, 126), rng.randint(160, 0x2FFF)])) for _ in range(rng.randint(0, 10)))
    return rng.choice([True, False, None])


def mutate(rng, value, rate: float, depth: int = 0):
    """``value`` with about ``rate`` of its nodes disturbed: leaves replaced, keys dropped, renamed or
    added, containers emptied, repeated or nested deep."""
    if rng.random() < rate:
        kind = rng.random()
        if kind < 0.5 and depth > 0:
            return random_scalar(rng)
        if kind < 0.8:
            return rng.choice([{}, [], [random_scalar(rng)], {"k": random_scalar(rng)}, [value, value]])
        return _nest(value, rng.choice([2, 20, 150]))
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if rng.random() < rate / 2:
                continue  # a key dropped
            key = k if rng.random() >= rate / 3 else rng.choice([rng.choice(HOSTILE), str(random_scalar(rng))])
            out[key] = mutate(rng, v, rate, depth + 1)
        if rng.random() < rate:
            out[rng.choice(list(value) or ["x"]) if rng.random() < 0.5 else str(random_scalar(rng))] = \
                random_scalar(rng)
        return out
    if isinstance(value, list):
        items = [mutate(rng, v, rate, depth + 1) for v in value]
        if rng.random() < rate / 2:
            return items * rng.randint(2, 40) if items else []
        return items
    return value


def mutated(seed):
    return st.randoms(use_true_random=False).map(
        lambda rng: mutate(rng, seed, rng.choice([0.0, 0.01, 0.02, 0.05, 0.1, 0.3])))


def _nest(value, n: int):
    for _ in range(n):
        value = [value]
    return value


# --- serializers that keep Raw literals unquoted --------------------------------------------------
def to_json(value) -> str:
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {to_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(to_json(v) for v in value) + "]"
    if isinstance(value, float) and value != value:
        return "NaN"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return json.dumps(value)


def _yaml_scalar(value) -> str:
    if isinstance(value, Raw):
        return str(value) if "\n" not in value else json.dumps(str(value))
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return ".nan" if value != value else ".inf" if value == float("inf") else "-.inf" \
            if value == float("-inf") else repr(value)
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value))


def to_yaml(value, indent: int = 0, flow: bool = False) -> str:
    """Block YAML (flow style below a few levels, as configs often mix both)."""
    pad = " " * indent
    if not isinstance(value, (dict, list)):
        return pad + _yaml_scalar(value) + "\n"
    if flow or indent > 16:
        return pad + _flow(value) + "\n"
    if not value:
        return pad + ("{}" if isinstance(value, dict) else "[]") + "\n"
    out = []
    items = value.items() if isinstance(value, dict) else ((None, v) for v in value)
    for k, v in items:
        head = f"{pad}{_yaml_key(k)}:" if isinstance(value, dict) else f"{pad}-"
        if isinstance(v, (dict, list)) and v:
            out.append(head + "\n" + to_yaml(v, indent + 2))
        else:
            out.append(f"{head} {_yaml_scalar(v) if not isinstance(v, (dict, list)) else _flow(v)}\n")
    return "".join(out)


def _yaml_key(k) -> str:
    return str(k) if isinstance(k, str) and k.replace("_", "").replace("-", "").isalnum() and k.isascii() \
        else json.dumps(str(k))


def _flow(value) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_yaml_key(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return _yaml_scalar(value)


def splice(rng, text: str) -> str:
    """Now and then the text itself is damaged: cut short, a line doubled, a character inserted."""
    roll = rng.random()
    if roll < 0.04 and text:
        return text[: rng.randint(0, len(text))]
    if roll < 0.08:
        lines = text.splitlines(keepends=True)
        if lines:
            i = rng.randrange(len(lines))
            return "".join(lines[: i + 1] + [lines[i]] * rng.randint(1, 30) + lines[i + 1:])
    if roll < 0.14:
        i = rng.randint(0, len(text))
        return text[:i] + rng.choice(["\n", "'", '"', "{", "[", "&a ", "*a", "\\", "\t", ":", "#", "$(", "<<"]) + text[i:]
    return text


def spliced(text: str):
    return st.randoms(use_true_random=False).map(lambda rng: splice(rng, text))


def document(seed, name: str, fmt: str = "yaml"):
    """A repository of one file: ``seed`` mutated, serialized as ``fmt``, maybe damaged."""
    dump = to_json if fmt == "json" else to_yaml
    return mutated(seed).map(dump).flatmap(spliced).map(lambda text: {name: text})

