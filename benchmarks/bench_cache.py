"""The cache (netlint/cache.py) and ``--jobs`` on a generated mixed repo (generate_mixed.py), side by side.

``python benchmarks/bench_cache.py [--size 10000] [--jobs 1,2] [--skip-jobs]``

Each line is one ``netlint check . --format json`` in a subprocess of its own; CPU is user + system of
that process and its workers (``os.wait4`` / RUSAGE_CHILDREN), wall is printed too (on a shared machine
it carries other processes' load; with workers it is what --jobs can save). In order:

* ``no cache``: ``--no-cache``;
* ``cold``: an empty cache (the cost of writing it);
* ``warm``: the same files again (acceptance, issue 14: at most 10% of a run without cache);
* ``edit one``: one env file edited (one file loaded, join and rules over every file);
* ``--jobs N``: without cache, for each N (the break-even of docs/runs.md).

Exits 1 when warm is above 10% of the no-cache run. Not a test: times depend on the machine.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate_mixed import generate  # noqa: E402

WARM_LIMIT = 0.10


def run(repo: Path, *args: str) -> tuple[float, float, int]:
    """(CPU seconds with children, wall seconds, peak RSS KB) of one netlint check."""
    before = os.times()
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "netlint", "check", ".", "--format", "json", *args],
                            cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    after = os.times()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"netlint failed (exit {code}): {proc.stderr.read().decode()[-2000:]}")
    # the workers of --jobs are the child's children: counted once they are reaped, in children_*
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return cpu, wall, usage.ru_maxrss


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--jobs", default="1,2", help="--jobs values to time without cache")
    ap.add_argument("--skip-jobs", action="store_true")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="netlint-bench-cache-"))
    try:
        repo = tmp / "repo"
        n = len(generate(repo, args.size))
        print(f"{n} files; CPU is user+sys of netlint and its workers")
        rows = []

        def line(name: str, got: tuple[float, float, int], base: float | None = None) -> None:
            cpu, wall, rss = got
            ratio = f"{cpu / base:6.1%} of no cache" if base else ""
            print(f"{name:<14} CPU {cpu:7.2f} s  wall {wall:7.2f} s  peak {rss / 1024:7.0f} MB  {ratio}",
                  flush=True)
            rows.append((name, cpu))

        plain = run(repo, "--no-cache")
        line("no cache", plain)
        line("cold", run(repo), plain[0])
        warm = run(repo)
        line("warm", warm, plain[0])
        env = sorted(repo.glob("jobs/g*/env.sh"))[0]
        env.write_text(env.read_text() + "export NCCL_IB_TIMEOUT=22\n")
        line("edit one", run(repo), plain[0])
        if not args.skip_jobs:
            for j in args.jobs.split(","):
                line(f"--jobs {j}", run(repo, "--no-cache", "--jobs", j), plain[0])
        print(f"cache size: {sum(p.stat().st_size for p in (repo / '.netlint_cache').rglob('*') if p.is_file()) / 1e6:.0f} MB")
        if warm[0] > WARM_LIMIT * plain[0]:
            print(f"FAIL: warm is {warm[0] / plain[0]:.1%} of a run without cache (limit {WARM_LIMIT:.0%})")
            return 1
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
