"""One lint run: discover → load → join into a Workspace → rules → filters."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from netlint.config_file import Config, load_config, matches_code
from netlint.discovery import Candidate, discover, display_path
from netlint.findings import Finding, Severity
from netlint.located import Span
from netlint.loading import FileResult, _load_all, internal_error, load_file  # noqa: F401
from netlint.workspace import Workspace


@dataclass
class Options:
    paths: list[Path] = field(default_factory=lambda: [Path(".")])
    config_file: Path | None = None
    inventory: Path | None = None
    select: list[str] | None = None
    ignore: list[str] | None = None
    extend_select: list[str] | None = None  # added to select (the command line's or the config's)
    jobs: int | None = None
    # Suppressions (issue 5): `# netlint: disable=...` comments, a baseline file, and the pre-commit
    # mode where named files are treated like walked ones (config excludes apply, unknown formats
    # are skipped silently).
    inline_suppressions: bool = True
    baseline: Path | None = None
    force_exclude: bool = False
    show_files: bool = False  # keep what was read as what (``netlint check --show-files``)
    # Reads one file instead of :func:`load_file`: the language server's warm cache (netlint/server).
    load: Callable[[Candidate], FileResult] | None = None
    # The cache of unchanged files (netlint/cache.py); off for API callers, on for ``netlint check``.
    cache: bool = False
    cache_dir: Path | None = None  # default: the configuration's cache-dir, else .netlint_cache at the root


@dataclass
class Report:
    findings: list[Finding]
    workspace: Workspace
    config: Config
    config_errors: list[Finding]
    files: list[str]
    stale_baseline: int = 0  # baseline entries for the files checked that matched no finding
    shown: list[tuple[str, str]] | None = None  # --show-files: (file, format or "skipped: why")

    @property
    def internal_error(self) -> bool:
        return any(f.code == "NL000" for f in self.findings)


def lint(opts: Options) -> Report:
    # Loading builds many small objects that all stay alive until the run ends; the cyclic GC
    # would rescan them again and again (measured: 2.5x slower on 2,000 SONiC files). Nothing
    # here makes reference cycles worth collecting mid-run.
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        return _lint(opts)
    finally:
        if enabled:
            gc.enable()


def _guard(where: str, span: Span, findings: list[Finding], step, *args, default=None):
    """Run one join step; a netlint bug in it becomes NL000 and the run goes on without its result."""
    try:
        return step(*args)
    except Exception as exc:
        findings.append(internal_error(where, exc, span, f"internal:{where}"))
        return default


def _common_folder(paths) -> Path | None:
    import os

    try:
        folders = [(p if p.is_dir() else p.parent).resolve() for p in map(Path, paths) if p.exists()]
        return Path(os.path.commonpath(folders)) if folders else None
    except (OSError, ValueError):  # different drives, an unreadable path: keep the first path's folder
        return None


def _lint(opts: Options) -> Report:
    from netlint import limits

    first = opts.paths[0] if opts.paths else Path(".")
    start = first if first.is_dir() else first.parent
    if len(opts.paths) > 1:  # `netlint check scripts configs`: the project holds them all, not the first only
        start = _common_folder(opts.paths) or start
    config, config_errors = load_config(opts.config_file, start.resolve() if start.exists() else Path.cwd())
    if not config_errors:  # a mistyped code would select nothing and pass: NL008, nothing is linted
        from netlint.codes import check as check_codes

        config_errors = check_codes(config, opts)
        if config_errors:
            return Report([], Workspace(root=config.root, config=config), config, config_errors, [])
    # Only files named (pre-commit, an editor): report on them, load the rest as context (context.py).
    # No path at all (--changed-since found no change): a run on no file, which reports nothing.
    partial = not any(Path(p).is_dir() for p in opts.paths)
    if partial and config.file is None:
        from netlint.context import project_root

        config.root = project_root(start if start.exists() else Path.cwd())
    with limits.use(config.settings.limits, config.root):
        return _lint_in(opts, config, config_errors, partial)


def _lint_in(opts: Options, config: Config, config_errors: list[Finding], partial: bool) -> Report:
    from netlint.registry import wants_any as wanted  # by the static registry: no loader imported yet

    walked_out: list[tuple[str, str]] | None = [] if opts.show_files else None
    cands = discover(opts.paths, config, wanted, walked_out)
    if opts.force_exclude:
        from netlint.context import as_walked

        cands = as_walked(cands, config, wanted)
    given = {c.rel for c in cands}
    if partial and not cands:  # nothing netlint reads among the files given: skip loading context
        return Report([], Workspace(root=config.root, config=config, targets=set()), config, config_errors, [])
    inventory_cand = _inventory_candidate(opts, config, cands)
    if inventory_cand is not None and all(c.abspath != inventory_cand.abspath for c in cands):
        cands.append(inventory_cand)
    elif inventory_cand is not None and inventory_cand.explicit:  # named by --inventory or the config:
        # reported on even when a walk found it too (an inventory.yaml that is another tool's)
        cands = [inventory_cand if c.abspath == inventory_cand.abspath else c for c in cands]
    cache = _cache_for(opts, config, partial, walked_out)
    load_all = _loading(opts, cache)
    run = None
    if cache is not None and not partial and walked_out is None:
        from netlint.cached_run import RunCache

        run = RunCache(cache, cands, config, opts)
    warm = run.lookup() if run is not None else None
    checked: set[str]
    if warm is not None:  # every file unchanged, same options: the findings of the last such run
        results, ws, kept = warm
        checked = {r.rel for r in results if r.claimed}
    else:
        named = inventory_cand.rel if inventory_cand is not None else None
        split = None
        if named is None and not partial:  # one folder per cluster, each with its inventory.yaml
            from netlint.inventory_choice import by_inventory

            split = by_inventory(cands, lambda part, inv: _analyse(config, part, given & {c.rel for c in part},
                                                                   partial, wanted, load_all, inv))
        results, ws, findings = split or _analyse(config, cands, given, partial, wanted, load_all, named)
        checked = {r.rel for r in results if r.claimed}
        at = Span(_config_display(config), 1, 1, 1, 1, 0, 0)
        try:
            kept = filter_findings(findings, ws, config, opts, checked, results)
        except Exception as exc:  # report everything rather than nothing
            kept = sorted([*findings, internal_error("filtering findings", exc, at, "internal:filter")],
                          key=Finding.sort_key)
        if run is not None:
            run.store(results, ws, kept)  # before the baseline marks some suppressed
    files = [r.rel for r in results if r.claimed and (ws.targets is None or r.rel in ws.targets)]
    stale = 0
    if opts.baseline is not None:
        from netlint.baseline import Baseline, BaselineError

        try:
            base = Baseline.read(opts.baseline)
        except BaselineError as exc:
            config_errors = [*config_errors, Finding("NL008", str(exc), Span(str(opts.baseline), 1, 1, 1, 1),
                                                     key="baseline")]
        else:
            stale = base.stale(base.apply(kept), ws.targets if ws.targets is not None else checked)
    if walked_out is not None:
        from netlint.named_files import shown_files

        shown = _guard("--show-files", Span(_config_display(config), 1, 1, 1, 1, 0, 0), kept, shown_files,
                       ws, results, walked_out, default=[])
    else:
        shown = None
    if cache is not None:
        cache.finish()
    return Report(kept, ws, config, config_errors, files, stale, shown)


def _analyse(config: Config, cands: list[Candidate], given: set[str], partial: bool, wanted,
             load_all: Callable[[list[Candidate]], list[FileResult]],
             named_inventory: str | None = None) -> tuple[list[FileResult], Workspace, list[Finding]]:
    """Load, join and run the rules: every finding before filtering. ``named_inventory``: the path of
    the configured or root inventory."""
    results = load_all(cands)

    ws = Workspace(root=config.root, config=config)
    findings: list[Finding] = []
    # Past loading, each step joins what the files said; one that fails is NL000 and the run goes
    # on with what the others found (a complete report, exit code 2).
    at = Span(_config_display(config), 1, 1, 1, 1, 0, 0)
    _join(ws, results, findings)
    if len(ws.inventories) > 1 or ws.inventories and ws.inventory_file != named_inventory:
        from netlint.inventory_choice import choose

        findings.extend(_guard("inventory choice", at, findings, choose, ws, results, named_inventory, default=[]))
    # Files the inventory points at (switch configs, NIC configs) are context even when not walked.
    from netlint.named_files import inventory_references

    for cand in _guard("inventory references", at, findings, inventory_references, ws, findings, default=[]):
        if all(r.rel != cand.rel for r in results):
            extra = load_all([cand])[0]
            results.append(extra)
            _join(ws, [extra], findings)

    if partial:
        from netlint.context import expand

        ws.targets = _guard("context loading", at, findings, expand, ws, results, given, config, wanted,
                            load_all, lambda new: _join(ws, new, findings),
                            default=set(given))
    else:  # the files found under the paths given; the inventory and what it names are context
        ws.targets = set(given)
    if ws.jobs or ws.templates:  # nothing to pair otherwise: the job modules stay unimported
        from netlint.jobs.pairing import join as join_deepspeed

        findings.extend(_guard("DeepSpeed pairing", at, findings, join_deepspeed, ws, default=[]))
    if ws.inventory is not None or ws.switches:  # both steps start from one or the other
        _guard("inventory files", at, findings, _inventory_files, ws, results, findings)
    findings.extend(run_rules(ws))
    return results, ws, findings


def _loading(opts: Options, cache=None) -> Callable[[list[Candidate]], list[FileResult]]:
    if opts.load is not None:
        return lambda cands: [opts.load(c) for c in cands]
    return lambda cands: _load_all(cands, opts.jobs, cache)


def _cache_for(opts: Options, config: Config, partial: bool, walked_out):
    """The run's cache (netlint/cache.py): ``netlint check`` asks for it unless ``--no-cache``."""
    if not opts.cache or opts.load is not None:
        return None
    from netlint.cache import open_cache

    return open_cache(config, opts.cache_dir)


def _config_display(config: Config) -> str:
    """Where an NL000 that belongs to no file points: the netlint configuration, else the root."""
    if config.file is not None:
        return display_path(config.file, config.root)
    return "."


def _inventory_files(ws: Workspace, results: list[FileResult], findings: list[Finding]) -> None:
    """One switch from several files (inventory lists, a qos.json + buffers.json folder), then an
    NL007 at each inventory entry whose file no loader read as what the entry says."""
    from netlint.named_files import check_named
    from netlint.qos.sonic_merge import merge_switches

    merge_switches(ws, results, findings)
    check_named(ws, results, findings)


def _join(ws: Workspace, results: list[FileResult], findings: list[Finding]) -> None:
    for res in results:
        if res.source is not None:
            ws.sources[res.rel] = res.source
        findings.extend(res.findings)
        for kind, model in res.models:
            try:
                ws.add(kind, model, res.rel)
            except Exception as exc:
                findings.append(internal_error(f"adding {kind} of {res.rel}", exc,
                                               Span(res.rel, 1, 1, 1, 1, 0, 0), f"internal:add:{kind}"))


def _inventory_candidate(opts: Options, config: Config, cands: list[Candidate]) -> Candidate | None:
    named = opts.inventory or (config.root / config.settings.inventory if config.settings.inventory else None)
    if named is not None:
        from netlint.discovery import named as named_candidate

        return named_candidate(named, config.root)[0]
    from netlint.safe_read import walkable

    for name in ("inventory.yaml", "inventory.yml"):
        path = walkable(config.root / name, config.root)
        if path is not None:
            return Candidate(path, display_path(path, config.root), False)
    return None


def run_rules(ws: Workspace) -> list[Finding]:
    from netlint.registry import rules_for

    out: list[Finding] = []
    for code, rule_cls in rules_for(ws).items():  # only the rules that can find something in ws
        if rule_cls.engine_only:
            continue
        found: list[Finding] = []
        try:
            for f in rule_cls().check(ws):
                found.append(f)
        except Exception as exc:  # a rule bug must not hide every other finding
            # what the rule found before it failed stands; the NL000 says the rest is missing
            found.append(internal_error(f"rule {code}", exc, _rule_span(ws), f"internal:{code}"))
        out.extend(found)
    if ws.config.settings.policies:  # the CEL engine is imported only when policies are configured
        from netlint.policy.runner import run_policies

        out.extend(_guard("policies", _rule_span(ws), out, run_policies, ws, default=[]))
    return out


def _rule_span(ws: Workspace) -> Span:
    return Span(_config_display(ws.config) if ws.config.file is not None else ws.inventory_file or ".",
                1, 1, 1, 1, 0, 0)


def filter_findings(findings: list[Finding], ws: Workspace, config: Config, opts: Options,
                    checked: set[str] | None = None, results: list[FileResult] = ()) -> list[Finding]:
    """select/ignore, per-file-ignores, severity, the files asked about, then inline suppressions.

    ``checked`` are the files netlint recognised; only their ``# netlint:`` comments are read.
    ``results`` say what each file is, for the findings elsewhere that involve a file asked about
    (netlint.context.in_scope)."""
    from netlint.context import in_scope

    asked = in_scope(ws, list(results))
    s = config.settings
    select = opts.select if opts.select else (s.select or ["ALL"])
    extend = getattr(opts, "extend_select", None)
    if extend and "ALL" not in (c.upper() for c in select):
        select = [*select, *extend]
    ignore = (opts.ignore or []) + s.ignore

    def enabled(code: str, file: str) -> bool:
        if code != "NL000" and (not matches_code(code, select) or matches_code(code, ignore)):
            return False
        return not _per_file_ignored_code(code, file, config) and config.severity_for(code) != "off"

    def keep(batch: list[Finding]) -> list[Finding]:
        out = []
        for f in batch:
            if not enabled(f.code, f.file):
                continue
            duplicates = f.extra.get("policy", {}).get("duplicates") if f.extra else None
            if duplicates and any(enabled(c, f.file) for c in duplicates):
                continue  # a pack rule whose fault an enabled rule reports (docs/policy.md, duplicates)
            level = config.severity_for(f.code)
            if level:
                f.severity = Severity.parse(level)
            if not asked(f):
                continue
            ident = (f.code, f.span, f.message)
            if ident in seen:
                continue
            seen.add(ident)
            out.append(f)
        return out

    seen: set = set()
    out = keep(findings)
    if getattr(opts, "inline_suppressions", True):
        out.extend(keep(_inline_suppressions(out, ws, config, enabled, checked)))
    out.sort(key=Finding.sort_key)
    return out


def _inline_suppressions(findings: list[Finding], ws: Workspace, config: Config, enabled,
                         checked: set[str] | None) -> list[Finding]:
    from netlint import suppress
    from netlint.rules.base import load_rules

    files = set(ws.sources) if checked is None else set(checked)
    if ws.targets is not None:
        files &= ws.targets
    texts = {}
    for file in sorted(files):
        text = ws.text(file)
        if text is not None and "netlint" in text:
            texts[file] = text
    if not texts:
        return []
    # a script that writes an nccl.conf by here-document (env scope set) stays a shell file
    nccl_conf = {e.file for e in ws.nccl_envs
                 if getattr(e, "format", None) == "nccl.conf" and not getattr(e, "scope", None)}
    return suppress.apply(findings, texts, config, enabled, load_rules(), nccl_conf).findings


def _per_file_ignored(f: Finding, config: Config) -> bool:
    return _per_file_ignored_code(f.code, f.file, config)


def _per_file_ignored_code(code: str, file: str, config: Config) -> bool:
    from netlint.config_file import _glob_match

    for pattern, codes in config.settings.per_file_ignores.items():
        if _glob_match(file, pattern) and matches_code(code, codes):
            return True
    return False
