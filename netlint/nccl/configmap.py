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
  a ConfigMap as container environment variables"), read as one ``k8s`` env with ``how`` = ``configmap``;
- a Kubernetes manifest kept as text (key ``*.yaml``/``*.yml``, or text whose lines start with
  ``apiVersion:`` and ``kind:``; OCI's health checks keep MPIJobs that a CronJob applies this way): read
  by the manifest loader's own reader (``env:``, ``command:``/``args:``, ``bash -c`` scripts) as if it
  were a file, every span moved into the block scalar (:mod:`netlint.nccl.embedded`), scope
  ``ConfigMap/<name>/<key>/<object>``. Only objects (``apiVersion`` + ``kind``) are read, and a
  ConfigMap held in one is not opened again.

Scope: ``ConfigMap/<name>/<key>``. Which pod mounts the ConfigMap is not followed.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

_ENV_LINE = re.compile(r"\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*=")
_MANIFEST = re.compile(r"^apiVersion:\s*\S", re.M)
_KIND = re.compile(r"^kind:\s*\S", re.M)
_SHEBANG = re.compile(r"\A#!\s*\S*(?:/|\s)(?:env\s+)?(?:ba|z|k|da)?sh\b")


def entry_kind(key: str, text: str) -> str | None:
    """``shell`` | ``nccl.conf`` | ``dotenv`` for a data entry, or None when it is none of them."""
    from netlint.loaders.nccl_conf import is_conf_name
    from netlint.loaders.nccl_dotenv import is_env_name

    low = key.lower()
    if low.endswith((".sh", ".bash")) or _SHEBANG.match(text):
        return "shell"
    if (low.endswith((".yaml", ".yml")) or _KIND.search(text)) and _MANIFEST.search(text):
        return "manifest"
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
        if kind == "manifest":
            yield from manifest_envs(file, text, node, index, f"{label}/{k}")
            continue
        env, findings = read_embedded(kind, file, text, node, index, f"{label}/{k}")
        yield from findings
        if env is not None:
            yield env
    if keyed:
        yield NcclEnv(file=file, format="k8s", scope=label, span=first, variables=keyed)


def manifest_envs(file: str, text: str, node: Any, index: Any, scope: str) -> Iterator[Any]:
    """The NcclEnvs (and findings) of the manifest text in ConfigMap entry ``node``, located in ``file``."""
    from netlint.findings import Finding, Severity
    from netlint.located import ParseError, Span
    from netlint.loaders.nccl_k8s import _envs_of, doc_kind
    from netlint.nccl.build import LineIndex
    from netlint.nccl.embedded import INNER, ScalarText, relocate
    from netlint.parsing import parse_yaml

    st = ScalarText(text, node, index)
    if not st.located:
        yield Finding("NL012", "manifest text in this ConfigMap entry not checked: netlint could not locate its "
                      "characters in the file (an unusual YAML style)", node.span, Severity.INFO,
                      key=f"embedded:{scope}")
        return
    try:
        docs = parse_yaml(INNER, st.value)
    except ParseError as exc:
        yield Finding("NL012", f"manifest text in this ConfigMap entry not checked: it does not parse as YAML "
                      f"({exc.message})", _move(st, node, exc.span), Severity.INFO, key=f"embedded:{scope}")
        return

    def move(s: Span) -> Span:
        return _move(st, node, s)

    inner = LineIndex(INNER, st.value)
    for doc in docs:
        if doc_kind(doc.root) != "object":
            continue
        for item in _envs_of(INNER, st.value, inner, doc.root):
            if isinstance(item, Finding):
                yield Finding(item.code, item.message, move(item.span) if item.span.file == INNER else item.span,
                              item.severity, key=item.key)
                continue
            env = relocate(item, move, file, text, f"{scope}/{item.scope}" if item.scope else scope)
            env.span = move(item.span) if item.span is not None and item.span.file == INNER else node.span
            yield env


def _move(st: Any, node: Any, s: Any) -> Any:
    """A span of the entry's text (file ``INNER``) → the same characters in the YAML file."""
    return st.span(s.start, s.end) if s.start >= 0 else node.span
