"""The loader contract: one format in, normalized located models (and NL findings) out.

A loader says whether it understands a file (:meth:`Loader.claims`, by name and content) and turns
it into models for one workspace collection (``kind``). Several loaders may claim one file: a Slurm
script can hold both an NCCL environment and a training job. Loaders register by defining ``name``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Iterator

from netlint.findings import Finding
from netlint.source import SourceFile

REGISTRY: dict[str, "Loader"] = {}

# The workspace collections a loader can feed.
KINDS = ("inventory", "switches", "nics", "nccl_envs", "jobs", "pins")  # pins: netlint.advisories
KINDS += ("runs",)  # runs: netlint.models.run (NCCL debug logs, nccl-tests results)


class Loader:
    name: ClassVar[str] = ""
    kind: ClassVar[str] = ""
    # File suffixes (lower case, with dot) or exact names worth reading at all; content decides.
    suffixes: ClassVar[tuple[str, ...]] = ()
    filenames: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if cls.name:
            if cls.kind not in KINDS:
                raise RuntimeError(f"loader {cls.name}: unknown kind {cls.kind!r}")
            REGISTRY[cls.name] = cls()

    def wants(self, name: str, suffix: str) -> bool:
        return suffix in self.suffixes or name in self.filenames

    def claims(self, src: SourceFile) -> bool:
        raise NotImplementedError

    def load(self, src: SourceFile) -> Iterator[Any]:
        """Yield models for ``kind`` and :class:`Finding` objects (NL0xx) for bad input."""
        raise NotImplementedError


def load_loaders() -> dict[str, Loader]:
    if not _loaded:
        import importlib
        import pkgutil

        import netlint.loaders as pkg

        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            importlib.import_module(info.name)
        _loaded.append(True)
    return REGISTRY


_loaded: list[bool] = []


def is_finding(item: Any) -> bool:
    return isinstance(item, Finding)


def parsed_yaml(src: SourceFile) -> tuple[list, list[Finding]]:
    """The YAML documents of ``src`` plus NL findings (parse error NL003, duplicate keys NL009)."""
    from netlint.located import ParseError

    try:
        docs = src.yaml_docs
    except ParseError as exc:
        return [], [Finding("NL003", f"YAML does not parse: {exc.message}", exc.span, key="parse")]
    return [d.root for d in docs], _duplicates(docs)


def parsed_json(src: SourceFile) -> tuple[object | None, list[Finding]]:
    from netlint.located import ParseError

    try:
        doc = src.json_doc
    except ParseError as exc:
        return None, [Finding("NL003", f"JSON does not parse: {exc.message}", exc.span, key="parse")]
    return doc.root, _duplicates([doc])


def _duplicates(docs) -> list[Finding]:
    from netlint.findings import Severity

    return [Finding("NL009", f"duplicate key '{k}': only the last value is used", span,
                    Severity.WARNING, key=f"duplicate:{k}")
            for d in docs for k, span in d.duplicates]


def top_keys_in(text: str, keys: tuple[str, ...], quote: str = '"') -> bool:
    """Cheap content sniff: does any ``keys`` appear as a quoted key in ``text``?"""
    return any(f"{quote}{k}{quote}" in text for k in keys)


def shell_read_findings(script) -> list[Finding]:
    """What a shell loader could not read of an evaluated script: NL003 where bash itself rejects a
    line, NL012 (info) where only netlint's reader failed or a bound was hit."""
    from netlint.findings import Severity

    out = []
    for e in script.errors:
        if e.kind == "syntax":
            out.append(Finding("NL003", e.message, e.span, Severity.ERROR, key=f"shell-syntax:{e.span.line}"))
        else:
            out.append(Finding("NL012", e.message, e.span, Severity.INFO, key=f"shell-unread:{e.span.line}"))
    return out
