"""Pinned releases (NGC image tags, pip ``==`` pins of NCCL wheels and torch, aws-ofi-nccl builds) in
Dockerfiles, requirements files, Kubernetes/Compose YAML and launch scripts: one
:class:`~netlint.advisories.pins.PinSet` per file that pins something netlint's advisory data knows."""

from __future__ import annotations

from typing import Any, Iterator

from netlint.loaders.base import Loader
from netlint.loader_names import PIN_SCRIPTS as SCRIPTS, is_dockerfile, is_requirements  # noqa: F401
from netlint.source import SourceFile


class VersionPinsLoader(Loader):
    name = "version-pins"
    kind = "pins"
    wants_by = "version_pins"

    def claims(self, src: SourceFile) -> bool:
        from netlint.advisories.pins import find, mentions_pin

        return mentions_pin(src.text) and bool(find(src.path, src.text))

    def load(self, src: SourceFile) -> Iterator[Any]:
        from netlint.advisories.pins import PinSet, find

        yield PinSet(src.path, tuple(find(src.path, src.text)))
