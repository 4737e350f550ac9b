"""Runs on some files (pre-commit, ``--changed-since``, an editor, ``netlint check a.yaml b.env``).

pre-commit passes the staged files, possibly split over several calls, so no call sees the whole
repository. netlint therefore loads the context itself and reports what the given files change:

* **context** (loaded, not reported on): the inventory (named in the config, or ``inventory.yaml`` at
  the project root) and the switch and NIC configs it names; for a job, the env files in its folder
  and every folder above it up to the root (netlint/nccl/scope.py: an env file applies to jobs in
  its folder and below);
* **dependents** (loaded so that cross-file rules see them, not reported on as such): when a given
  file is itself context for others, the files that read it —

  ===================================  ====================================================
  given file is                        also loaded
  ===================================  ====================================================
  the inventory, a switch or NIC       every file of the repository
  config
  an env file (.env, nccl.conf,        NCCL envs and jobs in its folder and below
  a shell file that only sets vars)
  ===================================  ====================================================

What is reported (:func:`in_scope`): every finding located in a given file, and a finding located in
another file when it involves a given file (a related location in it) and its rule reads that file's
kind (netlint.rule_inputs) — a switch edit reports the XC601 of an env file whose DSCP that switch
maps, never the JOB430 of an untouched DeepSpeed config. A run on folders reports the files found in
them the same way: context loaded from outside (the inventory, the switches it names) shows only as
related locations. The project root is the folder of the netlint configuration; without one, the
enclosing git work tree (pre-commit runs there), else the current directory when it contains the
files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable

from netlint.discovery import Candidate, discover, display_path

CONTEXT_KINDS = ("inventory", "switches", "nics")


def project_root(start: Path) -> Path:
    """The root for a run without a netlint configuration: the git work tree around ``start``,
    else the current directory when it contains ``start``, else ``start``."""
    start = start.resolve()
    for d in (start, *start.parents):
        if (d / ".git").exists():
            return d
    cwd = Path.cwd().resolve()
    if start == cwd or cwd in start.parents:
        return cwd
    return start


def as_walked(cands: list[Candidate], config, wanted: Callable[[str, str], bool]) -> list[Candidate]:
    """``--force-exclude``: treat files named on the command line like files found by walking.

    The config's ``include``/``exclude`` apply to them, names no loader reads are dropped, and a file
    whose format netlint does not recognise is skipped silently (no NL007). pre-commit passes every
    staged text file; most are not netlint's business."""
    out = []
    for c in cands:
        if not c.explicit:
            out.append(c)
            continue
        if config.is_excluded(c.rel) or not config.is_included(c.rel):
            continue
        if not c.abspath.is_file() or not wanted(c.abspath.name, c.abspath.suffix.lower()):
            continue
        out.append(Candidate(c.abspath, c.rel, False))
    return out


def context_candidates(given: list[Candidate], config, wanted: Callable[[str, str], bool]) -> list[Candidate]:
    """Files (not walked into subfolders) in each given file's folder and the folders above it, up to
    the project root."""
    root = config.root
    seen = {c.abspath for c in given}
    dirs: list[Path] = []
    for c in given:
        d = c.abspath.parent
        if d != root and root not in d.parents:
            continue
        while True:
            if d not in dirs:
                dirs.append(d)
            if d == root:
                break
            d = d.parent
    from netlint.safe_read import walkable

    out = []
    for d in dirs:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for name in names:
            path = walkable(d / name, root)  # regular files; links only inside the project
            if path is None:
                continue
            rel = display_path(path, root)
            if path in seen or config.is_excluded(rel) or not config.is_included(rel):
                continue
            if wanted(path.name, path.suffix.lower()):
                seen.add(path)
                out.append(Candidate(path, rel, False))
    return out


def kinds_by_file(results: Iterable) -> dict[str, set[str]]:
    """What each file is, by the loaders that claimed it (a switch that fails validation is still a
    switch) and by the models it produced."""
    out: dict[str, set[str]] = {}
    for res in results:
        ks = set(getattr(res, "kinds", ())) | {kind for kind, _ in res.models}
        if ks:
            out.setdefault(res.rel, set()).update(ks)
    return out


def expand(ws, results: list, given: set[str], config, wanted: Callable[[str, str], bool],
           load: Callable[[list[Candidate]], list], join: Callable[[list], None]) -> set[str]:
    """Load the context and the dependents of the given files; return the files to report on (the
    given ones: :func:`in_scope` decides which findings elsewhere involve them).

    ``results`` are the files joined so far (given files, the inventory and what it names); files
    joined here are appended. ``load(candidates)`` reads files, ``join(results)`` adds them to ``ws``.
    Only what a rule may need is joined: the workspace of a run on one env file holds that env."""
    from netlint.nccl import scope

    pool: dict[str, object] = {r.rel: r for r in results}  # every file read so far
    joined = {r.rel for r in results}
    targets = set(given)

    def read(cands: list[Candidate]) -> list:
        fresh = [c for c in cands if c.rel not in pool]
        for r in (load(fresh) if fresh else []):
            pool[r.rel] = r
        return [pool[c.rel] for c in cands]

    def add(batch: list) -> None:
        new = [r for r in batch if r.rel not in joined]
        if new:
            joined.update(r.rel for r in new)
            join(new)
            results.extend(new)

    kinds = kinds_by_file(results)
    if ws.inventory_file in given:
        kinds.setdefault(ws.inventory_file, set()).add("inventory")
    given_kinds = {k for f in given for k in kinds.get(f, ())}
    if given_kinds & set(CONTEXT_KINDS):
        walked = read(discover([config.root], config, wanted))
        add(walked)
        return targets

    # An env file among the given ones: the jobs in its folder and below depend on it. A run log needs
    # the env files of its folder and above like a job (netlint/run/intent.py).
    jobs = {f for f in given if kinds.get(f, set()) & {"jobs", "runs"}}
    for env in scope.envs(ws):
        if env.file in given and scope.is_env_file(ws, env):
            top = (config.root / env.file).parent
            for r in read(discover([top], config, wanted)):
                if "jobs" in kinds_by_file([r]).get(r.rel, ()):
                    jobs.add(r.rel)
                    add([r])
    if not jobs:
        return targets
    # Jobs need the env files of their folder and the folders above (nccl/scope.py).
    job_cands = [Candidate((config.root / f).resolve(), f, False) for f in sorted(jobs)]
    for r in read(context_candidates(job_cands, config, wanted)):
        ks = {k for k, _ in r.models}
        if ks and ks <= {"nccl_envs"}:
            add([r])
    return targets


def in_scope(ws, results: list) -> Callable[[object], bool]:
    """Whether a finding is reported when only ``ws.targets`` were asked for: located in one of them,
    or involving one (a related location in it) whose kind its rule reads (netlint.rule_inputs).
    Findings about the run rather than an input (NL000, the configuration, a policy file) stay."""
    from netlint.rule_inputs import inputs_of

    targets = ws.targets
    inputs = set(ws.sources) | {r.rel for r in results}
    kinds = kinds_by_file(results)
    if ws.inventory_file is not None:
        kinds.setdefault(ws.inventory_file, set()).add("inventory")
    reads: dict[str, frozenset[str]] = {}

    def keep(f) -> bool:
        if targets is None or f.file in targets or f.file not in inputs or f.code == "NL000":
            return True
        involved = {r.span.file for r in f.related if r.span.file in targets}
        if not involved:
            return False
        if f.code not in reads:
            reads[f.code] = inputs_of(f.code)
        return any(kinds.get(t, set()) & reads[f.code] for t in involved)

    return keep


def _under(file: str, top: Path, root: Path) -> bool:
    path = (root / file).resolve()
    return path == top or top in path.parents
