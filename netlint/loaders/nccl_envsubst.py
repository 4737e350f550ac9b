"""Kubernetes manifests kept as envsubst templates (``job.yaml-template``, ``pod.yaml.tmpl``): read as the
manifest they render to where the placeholders do not decide.

``envsubst < job.yaml-template | kubectl apply -f -`` replaces every ``$VAR`` / ``${VAR}`` with the
environment's value (GNU gettext, envsubst(1)). Each placeholder is masked as a Helm action is
(:mod:`netlint.nccl.helm_template`): settings written literally are judged, those a placeholder writes are
Unknown, and one NL012 (info) says which. A template that reads as no manifest before rendering (a
placeholder that writes YAML structure) is said not read, NL012 too, never skipped in silence.
"""

from __future__ import annotations

from typing import Any, Iterator

from netlint.loaders.base import Loader
from netlint.source import SourceFile


class EnvsubstTemplateLoader(Loader):
    name = "nccl-envsubst-template"
    kind = "nccl_envs"
    suffixes = ()
    wants_by = "envsubst_template"

    def claims(self, src: SourceFile) -> bool:
        from netlint.nccl.build import mentions_nccl

        return mentions_nccl(src.text)

    def load(self, src: SourceFile) -> Iterator[Any]:
        from netlint.nccl.helm_template import ENVSUBST, read, results

        yield from results(
            src, read(src, ENVSUBST, "filled by envsubst when the template is rendered"), "envsubst-template",
            "envsubst template: {shown} not checked; before its $placeholders are filled it reads as no "
            "manifest (lint the rendered output)",
            "envsubst template: {shown} written by $placeholders, filled when the template is rendered: not "
            "checked")
