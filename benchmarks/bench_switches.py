"""netlint vs plain ``yaml.compose`` on the same generated switch files; prints the ratio.

``python benchmarks/bench_switches.py [N]`` (default 2000). The baseline reads every file and
composes it with PyYAML's libyaml loader — the least any YAML/JSON linter must do. netlint's figure
is a whole ``netlint check`` of the folder (discovery, parsing, normalization, rules), in-process,
best of three runs each. Not a test: wall time depends on the machine.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate_switches import generate  # noqa: E402


def best_of(n: int, fn) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paths = generate(root / "switches", n)

        def compose_all() -> None:
            for p in paths:
                yaml.compose(p.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)

        from netlint.engine import Options, lint

        results = {}

        def netlint_run() -> None:
            results["report"] = lint(Options(paths=[root / "switches"]))

        base = best_of(3, compose_all)
        ours = best_of(3, netlint_run)
        report = results["report"]
        print(f"files: {n}  switches loaded: {len(report.workspace.switches)}  findings: {len(report.findings)}")
        print(f"yaml.compose (libyaml): {base:.3f} s")
        print(f"netlint check:          {ours:.3f} s")
        print(f"ratio netlint / yaml.compose: {ours / base:.2f}")


if __name__ == "__main__":
    main()
