"""NCCL settings a Kubernetes ``ConfigMap`` carries in its ``data``: one NcclEnv per entry that holds any.

An entry is read by what it is, from its key and content:

- a script (key ``*.sh``/``*.bash``, or a ``#!…sh`` first line): evaluated as bash (format ``shell``), so
  its ``export``s and ``mpirun -x`` options count, located in the YAML block scalar (GKE's GPUDirect-TCPX
  ``nccl-configmap`` holds ``run-nccl.sh`` this way);
- ``nccl.conf`` (by the nccl.conf loader's names): NCCL's own format (format ``nccl.conf``), mounted as
  ``/etc/nccl.conf`` or ``NCCL_CONF_FILE``;
- ``*.env`` keys and values made only of ``KEY=VALUE`` lines: an env file (format ``dotenv``);
- a key that is itself an NCCL-looking variable (``NCCL_DEBUG: INFO``): such entries become variables of
  the containers that use the ConfigMap through ``envFrom`` (Kubernetes "Configure all key-value pairs in
  a ConfigMap as container environment variables"), read as one ``k8s`` env with ``how`` = ``configmap``.

Scope: ``ConfigMap/<name>/<key>``. Which pod mounts the ConfigMap is not followed.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

_ENV_LINE = re.compile(r"\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*=")
_SHEBANG = re.compile(r"\A#!\s*\S*(?:/|\s)(?:env\s+)?(?:ba|z|k|da)?sh\b")


def entry_kind(key: str, text: str) -> str | None:
    """``shell`` | ``nccl.conf`` | ``dotenv`` for a data entry, or None when it is none of them."""
    from netlint.loaders.nccl_conf import is_conf_name
    from netlint.loaders.nccl_dotenv import is_env_name

    low = key.lower()
    if low.endswith((".sh", ".bash")) or _SHEBANG.match(text):
        return "shell"
    if is_conf_name(key):
        return "nccl.conf"
    if is_env_name(key):
        return "dotenv"
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if lines and all(_ENV_LINE.match(ln) for ln in lines):
        return "dotenv"
    return None


def _entries(root: Any) -> Iterator[tuple[Any, Any]]:
    from netlint.located import MapNode, Scalar

    data = root.get("data")
    if isinstance(data, MapNode):
        for k, v in data.items():
            if isinstance(v, Scalar):
                yield data.keys_at.get(k), v


def _is_var_key(key: str) -> bool:
    from netlint.nccl.build import NCCLISH

    return NCCLISH.fullmatch(key) is not None


def configmap_has_nccl(root: Any) -> bool:
    from netlint.nccl.build import mentions_nccl

    for key, node in _entries(root):
        k = str(key.value) if key is not None else ""
        if _is_var_key(k) or (isinstance(node.value, str) and mentions_nccl(node.value)
                              and entry_kind(k, node.value)):
            return True
    return False


def configmap_envs(file: str, text: str, index: Any, root: Any) -> Iterator[Any]:
    from netlint.located import MapNode, Scalar, Span
    from netlint.models.nccl import NcclEnv, NcclVar
    from netlint.nccl.build import mentions_nccl
    from netlint.nccl.embedded import read_embedded

    meta = root.get("metadata")
    name = meta.get("name") if isinstance(meta, MapNode) else None
    label = "ConfigMap/" + (str(name.value) if isinstance(name, Scalar) else "?")
    keyed: list[NcclVar] = []
    first: Span | None = None
    for key, node in _entries(root):
        if key is None:
            continue
        k = str(key.value)
        if _is_var_key(k):
            raw = text[node.span.start:node.span.end] if node.span.start >= 0 else node.raw
            value = Scalar(node.value if isinstance(node.value, str) else str(node.raw), node.span, raw,
                           node.quoted)
            keyed.append(NcclVar(name=Scalar(k, key.span, key.raw, key.quoted), value=value, how="configmap",
                                 statement=Span(file, key.span.line, key.span.col, node.span.end_line,
                                                node.span.end_col, key.span.start, node.span.end)))
            first = first or key.span
            continue
        if not isinstance(node.value, str) or not mentions_nccl(node.value):
            continue
        kind = entry_kind(k, node.value)
        if kind is None:
            continue
        env, findings = read_embedded(kind, file, text, node, index, f"{label}/{k}")
        yield from findings
        if env is not None:
            yield env
    if keyed:
        yield NcclEnv(file=file, format="k8s", scope=label, span=first, variables=keyed)
