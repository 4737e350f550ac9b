"""Kubernetes manifests: the ``env:`` lists of containers (Pod, Job, CronJob, Deployment, StatefulSet,
DaemonSet, PyTorchJob, MPIJob, JobSet, …), multi-document YAML through ``netlint.located.parse_yaml``.

Rather than a table of every workload kind's pod-template path, the loader walks each document for
``env:`` lists (a sequence of mappings with ``name``), which is where every kind keeps them
(``spec.containers``, ``spec.template.spec.containers``, ``spec.pytorchReplicaSpecs.Worker.template…``,
``spec.mpiReplicaSpecs.Launcher…``). One :class:`NcclEnv` per container; its ``scope`` names the
kind, the object and the container. A bare ``env:`` block (a fragment cut from a manifest) works too.

Kubernetes semantics kept: the **last** entry of a duplicated name wins; ``$(VAR)`` is expanded by the
kubelet from entries *earlier in the same list* (resolved here when that entry is known, else Unknown);
``${VAR}`` is not expanded by Kubernetes but usually by an envsubst/Helm step before ``kubectl apply``,
so it is Unknown; ``valueFrom`` is Unknown. A non-string ``value`` (``value: 1``) is rejected by the API
server ("cannot unmarshal number into ... of type string"), reported as NL005.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from netlint.loaders.base import Loader
from netlint.source import SourceFile

_K8S_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


class K8sEnvLoader(Loader):
    name = "nccl-k8s"
    kind = "nccl_envs"
    suffixes = (".yaml", ".yml")

    def claims(self, src: SourceFile) -> bool:
        from netlint.nccl.build import mentions_nccl

        text = src.text
        if "env:" not in text or "name:" not in text or not mentions_nccl(text):
            return False
        try:
            docs = src.yaml_docs
        except Exception:
            return False
        return any(True for d in docs for _ in _env_lists(d.root, ()))

    def load(self, src: SourceFile) -> Iterator[Any]:
        from netlint.loaders.base import parsed_yaml

        roots, problems = parsed_yaml(src)
        yield from problems
        for root in roots:
            yield from _envs_of(src.path, root)


def _env_lists(node: Any, path: tuple) -> Iterator[tuple[tuple, Any, Any]]:
    """(path, owner mapping, env sequence) for every ``env:`` list of ``{name: ...}`` mappings."""
    from netlint.located import MapNode, SeqNode

    if isinstance(node, MapNode):
        env = node.get("env")
        if isinstance(env, SeqNode) and env and all(isinstance(e, MapNode) and "name" in e for e in env):
            yield path, node, env
        for k, v in node.items():
            if k != "env":
                yield from _env_lists(v, path + (k,))
    elif isinstance(node, SeqNode):
        for i, v in enumerate(node):
            yield from _env_lists(v, path + (i,))


def _envs_of(file: str, root: Any) -> Iterator[Any]:
    from netlint.findings import Finding
    from netlint.located import MapNode, Scalar
    from netlint.models.nccl import NcclEnv, NcclVar, Unknown

    kind = root.get("kind") if isinstance(root, MapNode) else None
    meta = root.get("metadata") if isinstance(root, MapNode) else None
    obj = meta.get("name") if isinstance(meta, MapNode) else None
    for path, owner, env in _env_lists(root, ()):
        label = [str(kind.value) if isinstance(kind, Scalar) else None,
                 str(obj.value) if isinstance(obj, Scalar) else None]
        label += [str(p) for p in path if isinstance(p, str) and p not in
                  ("spec", "template", "containers", "initContainers", "jobTemplate", "replicatedJobs")]
        cname = owner.get("name")
        if isinstance(cname, Scalar) and path:
            label.append(str(cname.value))
        scope = "/".join(x for x in label if x) or None
        variables = []
        seen: dict[str, Any] = {}
        for item in env:
            name = item.get("name")
            if not isinstance(name, Scalar) or not isinstance(name.value, str):
                continue
            stmt = item.span
            if "valueFrom" in item:
                value: Any = Unknown("valueFrom", item.key_span("valueFrom"), "a valueFrom reference")
            elif "value" not in item or item.get("value") is None or \
                    (isinstance(item.get("value"), Scalar) and item["value"].value is None):
                node = item.get("value")
                span = node.span if isinstance(node, Scalar) else name.span
                value = Scalar("", span, "", False)
            else:
                node = item["value"]
                if not isinstance(node, Scalar):
                    continue
                if not isinstance(node.value, str):
                    yield Finding("NL005", f"env value of {name.value} must be a string; Kubernetes rejects "
                                  f"{node.raw!r} unquoted (write \"{node.raw}\")", node.span, key=f"env:{name.value}")
                    value = Scalar(node.raw, node.span, node.raw, False)
                else:
                    value = _resolve(node, seen)
            variables.append(NcclVar(name=Scalar(name.value, name.span, name.raw, name.quoted), value=value,
                                     how="k8s", statement=stmt))
            seen[name.value] = value
        yield NcclEnv(file=file, format="k8s", scope=scope, span=owner.key_span("env"), variables=variables)


def _resolve(node, seen: dict[str, Any]):
    from netlint.located import Scalar
    from netlint.models.nccl import Unknown
    from netlint.nccl.build import TEMPLATE

    text = node.value
    if TEMPLATE.search(text):
        return Unknown(node.raw, node.span, "a template placeholder ({{ ... }})")
    if "${" in text:
        return Unknown(node.raw, node.span, "a ${VAR} placeholder (substituted before kubectl apply)")
    if "$(" in text:
        text = text.replace("$$", "\0")
        unresolved = []

        def sub(m):
            ref = seen.get(m.group(1))
            if isinstance(ref, Scalar):
                return str(ref.value)
            unresolved.append(m.group(1))
            return m.group(0)

        text = _K8S_REF.sub(sub, text).replace("\0", "$")
        if unresolved:
            return Unknown(node.raw, node.span, f"$({unresolved[0]}) is set outside this env list")
        return Scalar(text, node.span, node.raw, node.quoted)
    return Scalar(text, node.span, node.raw, node.quoted)
