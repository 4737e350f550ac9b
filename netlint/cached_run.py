"""A run over unchanged files: its findings, before filtering, from the cache (netlint/cache.py).

The run key digests every candidate's file key in order (the inventory is a candidate), the policy
files and the configuration. The entry also names what the key cannot see, checked before it is
used: the files read past the candidates (those the inventory names) and the paths loaders looked
at (a sourced script outside the walk). Filtering, the baseline and the reporters run as usual on
what it gives back: file metadata, the findings, and for the report the NCCL variables the env files
set (:class:`EnvView`, what ``nccl_settings`` in the JSON report and inline suppressions read).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from netlint.discovery import Candidate
from netlint.findings import Finding
from netlint.located import Span
from netlint.source import SourceFile

if TYPE_CHECKING:
    from netlint.cache import Cache
    from netlint.loading import FileResult
    from netlint.workspace import Workspace


@dataclass
class Named:
    span: Span


@dataclass
class VarView:
    key: str
    known: Any
    how: str
    name: Named
    span: Span


@dataclass
class EnvView:
    """What the report reads of an NCCL environment (reporters/json.py ``nccl_settings``,
    engine ``_inline_suppressions``)."""
    file: str
    format: Any
    scope: Any
    variables: list[VarView] = field(default_factory=list)


@dataclass
class FileMeta:
    rel: str
    abspath: str
    has_source: bool
    claimed: bool
    kinds: frozenset[str]  # the loaders' and the models' (netlint.context.kinds_by_file)
    formats: tuple[str, ...]
    skipped: str


@dataclass
class RunEntry:
    files: list[FileMeta]
    extra: list[tuple[str, str, bool, str]]  # (rel, abspath, explicit, file key) past the candidates
    deps: list[tuple[str, str]]  # (path, fingerprint) loaders looked at
    findings: list[Finding]
    envs: list[EnvView]
    inventory_file: str | None
    targets: set[str] | None


class RunCache:
    def __init__(self, cache: "Cache", cands: list[Candidate], config: Any, opts: Any):
        self.cache = cache
        self.cands = list(cands)
        parts = []
        for c in cands:
            sig = cache.stat_of(c) if not c.refused else None
            key = cache.unchanged_key(c, sig)  # by its stat, as git's index does: not read
            if key is None:
                data = cache.remember(c)
                if data is None:
                    from netlint.load_many import fingerprint

                    key = f"{c.rel}\0{int(c.explicit)}\0unread\0{c.refused}\0{fingerprint(str(c.abspath))}"
                else:
                    key = cache.file_key(c.rel, c.explicit, data)
                    cache.index_put(c, sig, key)
            parts.append(key)
        parts.append(policy_digest(config))
        # what filtering reads besides the configuration (in the salt): the report is kept filtered
        parts.append(repr([getattr(opts, name, None) for name in
                           ("select", "ignore", "extend_select", "inline_suppressions")]))
        self.key = cache.run_key(parts)

    def lookup(self) -> tuple[list["FileResult"], "Workspace", list[Finding]] | None:
        entry = self.cache.get_run(self.key)
        if not isinstance(entry, RunEntry):
            return None
        from netlint.load_many import deps_unchanged, read

        datas = {}
        for rel, abspath, explicit, key in entry.extra:
            data = read(Candidate(Path(abspath), rel, explicit))
            if data is None or self.cache.file_key(rel, explicit, data) != key:
                return None
            datas[rel] = data
        if not deps_unchanged(entry.deps):
            return None
        known = {c.rel: c.abspath for c in self.cands}
        return _rebuild(entry, datas, self.cache, known)

    def store(self, results: list["FileResult"], ws: "Workspace", findings: list[Finding]) -> None:
        """``findings`` as filtered, before a baseline marks some suppressed."""
        if any(f.code == "NL000" for f in findings):
            return  # an internal error is not a result to keep
        deps: set[tuple[str, str]] = set()
        for r in results:
            got = self.cache.deps.get(r.rel, None)
            if got is None:
                return  # a file loaded past the cache: what it looked at is unknown
            deps.update(got)
        first = {c.rel for c in self.cands}
        extra = []
        for r in results:
            if r.rel in first:
                continue
            key = self.cache.keys.get(r.rel)
            if key is None:
                return
            extra.append((r.rel, self.cache.paths[r.rel], self.cache.explicit.get(r.rel, False), key))
        from netlint.context import kinds_by_file

        kinds = kinds_by_file(results)
        files = [FileMeta(r.rel, self.cache.paths.get(r.rel, ""), r.source is not None, r.claimed,
                          frozenset(kinds.get(r.rel, ())), r.formats, r.skipped) for r in results]
        try:
            envs = env_views(ws)
        except Exception:  # a model the views do not know: no run entry
            return
        targets = set(ws.targets) if ws.targets is not None else None
        self.cache.put_run(self.key, RunEntry(files, extra, sorted(deps), list(findings), envs,
                                              ws.inventory_file, targets))


def _rebuild(entry: RunEntry, datas: dict[str, bytes | None], cache: "Cache", known: dict[str, Path]):
    from netlint.loading import FileResult
    from netlint.workspace import Workspace

    results = []
    for m in entry.files:
        src = OnDisk(m.rel, known.get(m.rel) or Path(m.abspath), datas.get(m.rel)) if m.has_source else None
        results.append(FileResult(m.rel, src, [], [], m.claimed, m.kinds, m.formats, m.skipped))
    ws = Workspace(root=cache.config_root, config=cache.config)
    for r in results:
        if r.source is not None:
            ws.sources[r.rel] = r.source
    ws.inventory_file = entry.inventory_file
    ws.nccl_envs = list(entry.envs)
    ws.targets = set(entry.targets) if entry.targets is not None else None
    return results, ws, list(entry.findings)


class OnDisk(SourceFile):
    """A file of an unchanged run, read only if its text is asked for (SARIF's column units)."""

    @property
    def data(self) -> bytes:
        if self._data is None and "text" not in self.__dict__:
            from netlint.load_many import read

            self._data = read(Candidate(self.abspath, self.path, True)) or b""
        return SourceFile.data.fget(self)


def env_views(ws: "Workspace") -> list[EnvView]:
    out = []
    for env in ws.nccl_envs:
        variables = []
        for var in getattr(env, "variables", ()):
            if "NCCL" not in var.key.upper():
                continue
            variables.append(VarView(var.key, var.known, var.how, Named(_span(var.name.span)), _span(var.span)))
        out.append(EnvView(env.file, getattr(env, "format", None), getattr(env, "scope", None), variables))
    return out


def _span(span: Span) -> Span:
    return Span(*span.astuple())


def policy_digest(config: Any) -> str:
    """The policy files the configuration names (built-in packs change with netlint's version)."""
    h = hashlib.blake2b(digest_size=16)
    for entry in getattr(config.settings, "policies", ()) or ():
        path = config.root / entry
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for f in files:
            h.update(str(f).encode("utf-8", "surrogateescape") + b"\0")
            try:
                if f.is_file():
                    h.update(f.read_bytes())
            except OSError:
                h.update(b"unreadable")
    return h.hexdigest()
