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
    # Or a predicate of netlint.loader_names when suffixes and names do not say it (a Dockerfile):
    # the static registry (netlint/registry.py) asks the same function before importing the loader.
    wants_by: ClassVar[str] = ""
    # A loader named ``…-unread`` recognises a format only to say that netlint does not read it (one NL012):
    # the file counts as claimed, but not as read as ``kind`` (netlint.named_files, --show-files)
    UNREAD_SUFFIX: ClassVar[str] = "-unread"

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if cls.name:
            if cls.kind not in KINDS:
                raise RuntimeError(f"loader {cls.name}: unknown kind {cls.kind!r}")
            REGISTRY[cls.name] = cls()

    def wants(self, name: str, suffix: str) -> bool:
        if self.wants_by:
            from netlint import loader_names

            return getattr(loader_names, self.wants_by)(name, suffix)
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

        modules = [info.name for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")]
        for name in modules:
            importlib.import_module(name)
        # Module order, not import order: a loader imported early (a test, a one-file run) must not
        # change which loader reads a shared file first, nor the generated registry.
        rank = {name: i for i, name in enumerate(modules)}
        ordered = sorted(REGISTRY.items(), key=lambda kv: rank.get(type(kv[1]).__module__, len(rank)))
        REGISTRY.clear()
        REGISTRY.update(ordered)
        _loaded.append(True)
    return REGISTRY


_loaded: list[bool] = []


def is_finding(item: Any) -> bool:
    return isinstance(item, Finding)


def sniffed_yaml(src: SourceFile) -> list | None:
    """The YAML documents of a file whose text already looks like the caller's format, or None when
    they do not parse; the error is kept (``SourceFile.sniffed_error``) so that the file gets its
    NL003 instead of "not recognised"."""
    from netlint.located import ParseError

    try:
        return src.yaml_docs
    except ParseError as exc:
        src.sniffed_error = exc
        return None


def parsed_yaml(src: SourceFile) -> tuple[list, list[Finding]]:
    """The YAML documents of ``src`` plus NL findings (parse error NL003, duplicate keys NL009)."""
    from netlint.located import ParseError

    try:
        docs = src.yaml_docs
    except ParseError as exc:
        return [], [parse_finding("YAML", exc)]
    return [d.root for d in docs], _duplicates(docs)


def parsed_json(src: SourceFile) -> tuple[object | None, list[Finding]]:
    from netlint.located import ParseError

    try:
        doc = src.json_doc
    except ParseError as exc:
        return None, [parse_finding("JSON", exc)]
    return doc.root, _duplicates([doc])


def parse_finding(fmt: str, exc) -> Finding:
    """NL003 for a document that does not parse, or that a bound (limits.max-depth, max-alias-nodes)
    stopped: its message then says which."""
    return Finding(getattr(exc, "code", "NL003"), exc.message if exc.bound else f"{fmt} does not parse: "
                   f"{exc.message}", exc.span, key="parse")


def _duplicates(docs) -> list[Finding]:
    from netlint.findings import Severity

    return [Finding("NL009", f"duplicate key '{k}': only the last value is used", span,
                    Severity.WARNING, key=f"duplicate:{k}")
            for d in docs for k, span in d.duplicates] + out_of_range(docs)


def out_of_range(docs) -> list[Finding]:
    """NL005 for each number the parser kept as text: more digits than limits.max-int-digits, or a
    float literal past the largest double (1e999)."""
    from netlint.limits import current, setting

    out = []
    for d in docs:
        for raw, span in getattr(d, "out_of_range", ()):
            shown = raw if len(raw) <= 24 else f"{raw[:12]}…{raw[-6:]} ({len(raw):,} characters)"
            if any(c in raw for c in ".eE") and not raw.lstrip("+-").lower().startswith("0x"):
                why = "it overflows a 64-bit float"
            else:
                why = (f"netlint reads integers of at most {current().max_int_digits} digits "
                       f"({setting('max_int_digits')})")
            out.append(Finding("NL005", f"number {shown} is out of range: {why}; it is read as text", span,
                               key=f"out-of-range:{raw[:40]}"))
    return out


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


_SHEBANG = None


def is_shell_trace(text: str) -> bool:
    """Saved ``set -x`` output (bash(1): each traced command is printed after PS4, ``+ `` by default, one
    ``+`` per level of nesting), not a script: most of its non-blank lines start with ``+ ``. No script
    starts a line so (``+`` would be the name of the command)."""
    if not text.startswith("+") and "\n+" not in text:  # every shell file is asked: most have no such line
        return False
    lines = [ln for ln in text.splitlines()[:400] if ln.strip()]
    traced = sum(1 for ln in lines if ln.startswith(("+ ", "++ ", "+++ ")))
    return traced >= 3 and 2 * traced >= len(lines)


def shebang_shell(text: str) -> bool:
    """The text starts with a ``#!`` line that runs a POSIX-style shell (sh, bash, zsh, ksh, dash)."""
    global _SHEBANG
    if _SHEBANG is None:
        import re

        _SHEBANG = re.compile(r"\A#!\s*\S*(?:/|\s)(?:env\s+)?(?:ba|z|k|da)?sh\b")
    return _SHEBANG.match(text) is not None


def script_by_name_or_first_line(src: SourceFile) -> bool:
    """A shell script by its name (a shell suffix, no suffix, ``.envrc``) or, under another suffix a site
    gives its batch scripts (``launch.frontier``), by its ``#!…sh`` line."""
    from netlint.loader_names import SHELL_SUFFIXES

    if src.suffix in SHELL_SUFFIXES or src.suffix in ("", ".conf") or src.name == ".envrc":
        return True
    return shebang_shell(src.text)
