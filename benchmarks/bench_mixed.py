"""netlint on a generated mixed repo at growing sizes: time per file, peak memory, and whether the time
per file stays flat (issue 14: "linear in files").

``python benchmarks/bench_mixed.py [--sizes 1000,2000,5000,10000] [--baseline DIR] [--no-cache] [--timeout S]``

Each size is a fresh repo from ``generate_mixed.py`` (switch files, NCCL env files, Megatron and
DeepSpeed launch scripts, ds_configs, hostfiles, NeMo YAML; findings on many files) in a temporary
folder, linted by ``python -m netlint check --format json`` in a subprocess of its own, so its CPU time
and peak RSS (``os.wait4``) are that run's alone. Times are CPU (user + system): on a shared machine the
wall time (printed too) carries other processes' load. The time per file leaves out the start-up,
measured in the same run on a repo of the two root files only. The floor is what any linter must do,
in the same run: read every file and compose the YAML/JSON ones with libyaml; ``ratio`` is netlint
over it.

Every run is cold: the repo's ``.netlint_cache`` is removed first, so netlint writes its cache and
reads none. ``--no-cache`` also runs the tree under test with ``--no-cache`` (the same work without
writing the cache), printed beside it.

``--baseline DIR`` also runs the netlint package found in DIR (a copy of the tree before a change, e.g.
``cp -r netlint /tmp/before/ && git show HEAD:netlint/x.py > /tmp/before/netlint/x.py``) on the same
repos, side by side. A run that passes ``--timeout`` (wall) is cut off.

Exits 1 when, for the tree under test (not the baseline), the time per file of the largest size is more
than 25% above that of the smallest, or a run was cut off. Not a test: times depend on the machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate_mixed import CONFIG, INVENTORY, generate  # noqa: E402

GROWTH_LIMIT = 1.25


def floor(paths: list[Path]) -> float:
    """CPU seconds to read every file and compose the YAML/JSON ones with libyaml."""
    t0 = time.process_time()
    for p in paths:
        text = p.read_text(encoding="utf-8")
        if p.suffix in (".yaml", ".yml", ".json"):
            yaml.compose(text, Loader=yaml.CSafeLoader)
    return time.process_time() - t0


def run_netlint(repo: Path, package_dir: Path | None, timeout: float,
                extra: tuple[str, ...] = ()) -> tuple[float | None, float, int]:
    """(CPU seconds or None past the timeout, wall seconds, peak RSS in KB) of one ``netlint check`` of
    ``repo``. CPU time (user + system, ``os.wait4``) is what is judged: on a shared machine the wall
    time carries the other processes' load."""
    env = dict(os.environ)
    if package_dir is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(package_dir), env.get("PYTHONPATH")]))
    t0 = time.perf_counter()
    shutil.rmtree(repo / ".netlint_cache", ignore_errors=True)  # cold: nothing an earlier run wrote
    proc = subprocess.Popen([sys.executable, "-m", "netlint", "check", ".", "--format", "json", *extra],
                            cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = t0 + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            _, status, usage = os.wait4(proc.pid, 0)
            return None, timeout, usage.ru_maxrss
        time.sleep(0.02)
    took = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        sys.exit(f"netlint failed on {repo} (exit {proc.returncode}):\n{proc.stderr.read().decode()[-2000:]}")
    return usage.ru_utime + usage.ru_stime, took, usage.ru_maxrss


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,2000,5000,10000")
    ap.add_argument("--baseline", type=Path, help="folder holding the netlint package to compare with")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per run before it is cut off")
    ap.add_argument("--no-cache", action="store_true",
                    help="also run the tree under test with --no-cache (printed as 'no-cache', not judged)")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    trees = [("now", None, ())] + ([("no-cache", None, ("--no-cache",))] if args.no_cache else []) + \
        ([("baseline", args.baseline.resolve(), ())] if args.baseline else [])

    rows: dict[str, list[tuple[int, float | None, int, float]]] = {name: [] for name, _, _ in trees}
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty"
        empty.mkdir()
        (empty / "netlint.yaml").write_text(CONFIG, encoding="utf-8")
        (empty / "inventory.yaml").write_text(INVENTORY, encoding="utf-8")
        start = {name: min(run_netlint(empty, pkg, args.timeout, extra)[0] or 0.0 for _ in range(3))
                 for name, pkg, extra in trees}
        for name, _, _ in trees:
            print(f"start-up ({name}): {start[name]:.3f} s CPU")
        for n in sizes:
            repo = Path(tmp) / f"r{n}"
            paths = generate(repo, n)
            base = min(floor(paths) for _ in range(3))
            for name, pkg, extra in trees:
                cpu, wall, rss = run_netlint(repo, pkg, args.timeout, extra)
                rows[name].append((len(paths), cpu, rss, base))
                if cpu is None:
                    print(f"{name:8} files {len(paths):6}: over {args.timeout:.0f} s (cut off), "
                          f"peak RSS {rss / 1024:.0f} MB", flush=True)
                    continue
                per = (cpu - start[name]) / len(paths)
                print(f"{name:8} files {len(paths):6}: CPU {cpu:8.2f} s (wall {wall:7.2f})  "
                      f"{per * 1000:7.3f} ms/file  peak RSS {rss / 1024:6.0f} MB ({rss / len(paths):5.1f} KB/file)  "
                      f"floor {base / len(paths) * 1000:.3f} ms/file  ratio {(cpu - start[name]) / base:6.1f}",
                      flush=True)
            shutil.rmtree(repo)

    if any(t is None for _, t, _, _ in rows["now"]):
        print("FAIL: a run was cut off")
        return 1
    judged = [(n, t, r) for n, t, r, _ in rows["now"]]
    if len(judged) < 2:
        return 0
    (n0, t0, _), (n1, t1, _) = judged[0], judged[-1]
    growth = ((t1 - start["now"]) / n1) / ((t0 - start["now"]) / n0)
    print(f"time per file at {n1} files / at {n0} files: {growth:.2f} (limit {GROWTH_LIMIT})")
    if growth > GROWTH_LIMIT:
        print("FAIL: time per file grows with the repo: some step is not linear in files")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
