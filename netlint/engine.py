"""One lint run: discover → load → join into a Workspace → rules → filters."""

from __future__ import annotations

import os
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from netlint.config import Config, load_config, matches_code
from netlint.discovery import Candidate, discover, display_path
from netlint.findings import Finding, Severity
from netlint.located import Span
from netlint.loaders.base import Loader, load_loaders
from netlint.source import SourceFile, UnreadableFile
from netlint.workspace import Workspace

POOL_THRESHOLD = 200  # below this many files a process pool costs more than it saves


@dataclass
class Options:
    paths: list[Path] = field(default_factory=lambda: [Path(".")])
    config_file: Path | None = None
    inventory: Path | None = None
    select: list[str] | None = None
    ignore: list[str] | None = None
    jobs: int | None = None


@dataclass
class FileResult:
    rel: str
    source: SourceFile | None
    models: list[tuple[str, Any]]
    findings: list[Finding]
    claimed: bool


@dataclass
class Report:
    findings: list[Finding]
    workspace: Workspace
    config: Config
    config_errors: list[Finding]
    files: list[str]

    @property
    def internal_error(self) -> bool:
        return any(f.code == "NL000" for f in self.findings)


def load_file(cand: Candidate) -> FileResult:
    loaders = load_loaders()
    # A file named explicitly, or by a name a format owns (inventory.yaml), must be reported on.
    owned = cand.explicit or any(cand.abspath.name in l.filenames for l in loaders.values())
    try:
        src = SourceFile.read(cand.rel, cand.abspath)
        text = src.text
    except UnreadableFile as exc:
        if not owned and exc.code == "NL002":
            return FileResult(cand.rel, None, [], [], False)  # a binary file in a walk: not ours
        return FileResult(cand.rel, None, [], [Finding(exc.code, exc.message, exc.span, key=exc.code)], True)
    if not text.strip():
        if owned:
            span = Span(cand.rel, 1, 1, 1, 1, 0, 0)
            return FileResult(cand.rel, src, [], [Finding("NL006", "empty file: nothing to check", span,
                                                          Severity.WARNING, key="empty")], True)
        return FileResult(cand.rel, src, [], [], False)
    models: list[tuple[str, Any]] = []
    findings: list[Finding] = []
    claimed = False
    for loader in loaders.values():
        if not _claims(loader, src):
            continue
        claimed = True
        for item in loader.load(src):
            if isinstance(item, Finding):
                findings.append(item)
            else:
                models.append((loader.kind, item))
    if not claimed and cand.explicit:
        findings.extend(_unrecognised(src))
    return FileResult(cand.rel, src, models, findings, claimed)


def _claims(loader: Loader, src: SourceFile) -> bool:
    try:
        return loader.wants(src.name, src.suffix) and loader.claims(src)
    except Exception:  # a sniff that trips over odd input must not hide the file from others
        return False


def _unrecognised(src: SourceFile) -> list[Finding]:
    from netlint.loaders.base import parsed_json, parsed_yaml

    if src.suffix == ".json":
        _, problems = parsed_json(src)
    elif src.suffix in (".yaml", ".yml"):
        _, problems = parsed_yaml(src)
    else:
        problems = []
    parse_errors = [p for p in problems if p.code == "NL003"]
    if parse_errors:
        return parse_errors
    return [Finding("NL007", "netlint does not recognise this file's format; it was not checked",
                    Span(src.path, 1, 1, 1, 1, 0, 0), Severity.WARNING, key="unrecognised")]


def _load_all(cands: list[Candidate], jobs: int | None) -> list[FileResult]:
    workers = jobs if jobs is not None else (os.cpu_count() or 1)
    if workers > 1 and len(cands) >= POOL_THRESHOLD:
        from concurrent.futures import ProcessPoolExecutor

        load_loaders()  # import before forking so workers inherit the registry
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(load_file, cands, chunksize=max(1, len(cands) // (workers * 8))))
    return [load_file(c) for c in cands]


def lint(opts: Options) -> Report:
    first = opts.paths[0] if opts.paths else Path(".")
    start = first if first.is_dir() else first.parent
    config, config_errors = load_config(opts.config_file, start.resolve() if start.exists() else Path.cwd())
    loaders = load_loaders()

    def wanted(name: str, suffix: str) -> bool:
        return any(l.wants(name, suffix) for l in loaders.values())

    cands = discover(opts.paths, config, wanted)
    explicit_files = {c.rel for c in cands if c.explicit}
    inventory_cand = _inventory_candidate(opts, config, cands)
    if inventory_cand is not None and all(c.abspath != inventory_cand.abspath for c in cands):
        cands.append(inventory_cand)
    results = _load_all(cands, opts.jobs)

    ws = Workspace(root=config.root, config=config)
    findings: list[Finding] = []
    _join(ws, results, findings)
    # Files the inventory points at (switch configs, NIC configs) are context even when not walked.
    for cand in _inventory_references(ws, findings):
        if all(r.rel != cand.rel for r in results):
            extra = load_file(cand)
            results.append(extra)
            _join(ws, [extra], findings)

    if explicit_files and not any(Path(p).is_dir() for p in opts.paths):
        ws.targets = explicit_files
    findings.extend(run_rules(ws))
    kept = filter_findings(findings, ws, config, opts)
    return Report(kept, ws, config, config_errors, [r.rel for r in results if r.claimed])


def _join(ws: Workspace, results: list[FileResult], findings: list[Finding]) -> None:
    for res in results:
        if res.source is not None:
            ws.sources[res.rel] = res.source
        findings.extend(res.findings)
        for kind, model in res.models:
            ws.add(kind, model, res.rel)


def _inventory_candidate(opts: Options, config: Config, cands: list[Candidate]) -> Candidate | None:
    named = opts.inventory or (config.root / config.settings.inventory if config.settings.inventory else None)
    if named is not None:
        return Candidate(named.resolve() if named.exists() else named.absolute(),
                         display_path(named, config.root), True)
    for name in ("inventory.yaml", "inventory.yml"):
        path = config.root / name
        if path.is_file():
            return Candidate(path.resolve(), display_path(path, config.root), False)
    return None


def _inventory_references(ws: Workspace, findings: list[Finding]) -> list[Candidate]:
    inv = ws.inventory
    if inv is None or ws.inventory_file is None:
        return []
    base = (ws.root / ws.inventory_file).parent
    refs = [s.config for s in inv.switches] + list(inv.nic_configs)
    out = []
    for ref in refs:
        path = (base / ref.value)
        if not path.is_file():
            findings.append(Finding("NL010", f"file '{ref.value}' named by the inventory does not exist",
                                    ref.span, key=f"missing:{ref.value}"))
            continue
        out.append(Candidate(path.resolve(), display_path(path, ws.root), True))
    return out


def run_rules(ws: Workspace) -> list[Finding]:
    from netlint.rules.base import load_rules

    out: list[Finding] = []
    for code, rule_cls in load_rules().items():
        if rule_cls.engine_only:
            continue
        try:
            out.extend(rule_cls().check(ws))
        except Exception as exc:  # a rule bug must not hide every other finding
            tb = traceback.format_exc(limit=-3)
            sys.stderr.write(f"netlint: internal error in rule {code}:\n{tb}")
            out.append(Finding("NL000", f"internal error in rule {code}: {type(exc).__name__}: {exc}",
                               Span(ws.inventory_file or ".", 1, 1, 1, 1), key=f"internal:{code}"))
    return out


def filter_findings(findings: list[Finding], ws: Workspace, config: Config, opts: Options) -> list[Finding]:
    s = config.settings
    select = opts.select if opts.select else (s.select or ["ALL"])
    ignore = (opts.ignore or []) + s.ignore
    out, seen = [], set()
    for f in findings:
        if f.code != "NL000" and (not matches_code(f.code, select) or matches_code(f.code, ignore)):
            continue
        if _per_file_ignored(f, config):
            continue
        level = config.severity_for(f.code)
        if level == "off":
            continue
        if level:
            f.severity = Severity.parse(level)
        if ws.targets is not None and f.file not in ws.targets and \
                not any(r.span.file in ws.targets for r in f.related):
            continue
        ident = (f.code, f.span, f.message)
        if ident in seen:
            continue
        seen.add(ident)
        out.append(f)
    out.sort(key=Finding.sort_key)
    return out


def _per_file_ignored(f: Finding, config: Config) -> bool:
    from netlint.config import _glob_match

    for pattern, codes in config.settings.per_file_ignores.items():
        if _glob_match(f.file, pattern) and matches_code(f.code, codes):
            return True
    return False
