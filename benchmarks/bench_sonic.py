"""netlint on many SONiC ``config_db.json`` files against the parse floor, in the same run (issue 14:
"near the parse floor on many files").

``python benchmarks/bench_sonic.py [N] [--runs R] [--keep DIR]`` (default 2,000 files, best of 3 runs).

The files are generated from ``examples/switches/leaf01/config_db.json`` (a real-shaped leaf: PORT,
PORT_QOS_MAP, QUEUE, BUFFER_PG, PFC_WD, maps, profiles), widened to 13 ports (about 8.5 KB each) and
made different per file (hostname, port speeds, thresholds). Nine files in ten keep the example's
mistakes — a port MTU below the fabric's, a WRED min above max, an undefined scheduler, too little
headroom, a short watchdog — so the rules report on most files, not only on clean ones; every tenth
is clean. An inventory at the root gives the fabric MTU and RoCE classes.

Printed side by side, CPU seconds (user + system) in this run:

- ``yaml.compose``: read every file and compose it with libyaml (``CSafeLoader``) in this process —
  the least any YAML/JSON linter that locates values must do;
- ``json.load``: the same files read with the C ``json`` module (no positions), for scale;
- ``netlint check . --format json`` in a subprocess of its own (``os.wait4``), whole: start-up,
  discovery, parsing, rules, the JSON report, cold (the cache folder removed before each run, so the
  cache is written and never read); its start-up alone (the inventory only); and the same check with
  ``--no-cache``;

then netlint / yaml.compose. Exits 1 when that ratio is above 1.5 (issue 14's bound). Not a test:
times depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

BOUND = 1.5
TEMPLATE = Path(__file__).resolve().parent.parent / "examples" / "switches" / "leaf01" / "config_db.json"
PORTS = 13

INVENTORY = """cluster: pod-a
nodes:
  count: 64
  gpus: 8
  gpu: H100-SXM
  nvlink_domain: 8
  nics:
""" + "".join(f"    - {{hca: mlx5_{r}, netdev: ens{r + 1}np0, speed: 400G, rail: {r}}}\n" for r in range(8)) + """fabric:
  transport: roce
  topology: rail-optimized
  oversubscription: 1
  mtu: 9100
  roce: {dscp: 26, priority: 3, cnp_dscp: 48, cnp_priority: 6}
"""


def config_db(template: dict, index: int) -> str:
    """One leaf: the template's tables with PORTS ports; the template's mistakes unless index % 10 == 0."""
    bad = index % 10 != 0
    ports = [f"Ethernet{p * 8}" for p in range(PORTS)]
    t = template
    port_entry = t["PORT"]["Ethernet0"]
    qos_entry = t["PORT_QOS_MAP"]["Ethernet0"]
    wd = t["PFC_WD"]["Ethernet0"]
    db = {
        "DEVICE_METADATA": {"localhost": {**t["DEVICE_METADATA"]["localhost"], "hostname": f"leaf{index:05d}"}},
        "PORT": {p: {**port_entry, "speed": "400000" if i % 4 else "200000",
                     "mtu": "1500" if bad and i == 2 else port_entry["mtu"]} for i, p in enumerate(ports)},
        "CABLE_LENGTH": {"AZURE": {p: f"{5 + index % 7}m" for i, p in enumerate(ports) if not (bad and i == 3)}},
        **{name: t[name] for name in ("DSCP_TO_TC_MAP", "TC_TO_PRIORITY_GROUP_MAP", "TC_TO_QUEUE_MAP",
                                      "MAP_PFC_PRIORITY_TO_QUEUE")},
        "PORT_QOS_MAP": {"global": t["PORT_QOS_MAP"]["global"], **{p: dict(qos_entry) for p in ports}},
        "WRED_PROFILE": {"ROCE_LOSSLESS": {**t["WRED_PROFILE"]["ROCE_LOSSLESS"],
                                           "green_min_threshold": str(1500000 + index) if bad else "150000",
                                           "green_max_threshold": "150000" if bad else "1500000"}},
        "SCHEDULER": t["SCHEDULER"],
        "QUEUE": {k: v for p in ports for k, v in (
            (f"{p}|3", {"scheduler": "DATA", "wred_profile": "ROCE_LOSSLESS"}),
            (f"{p}|6", {"scheduler": "STRICT_CNP" if bad and p == ports[-1] else "CNP"}))},
        "BUFFER_POOL": t["BUFFER_POOL"],
        "BUFFER_PROFILE": {"pg_lossless_400000_5m_profile": {
            **t["BUFFER_PROFILE"]["pg_lossless_400000_100m_profile"], "xoff": "20480" if bad else "80000"}},
        "BUFFER_PG": {f"{p}|3": {"profile": "pg_lossless_400000_5m_profile"} for p in ports},
        "PFC_WD": {"GLOBAL": t["PFC_WD"]["GLOBAL"],
                   **{p: {**wd, "detection_time": "50" if bad and i == 1 else wd["detection_time"]}
                      for i, p in enumerate(ports)}},
    }
    return layout(db)


def layout(db: dict) -> str:
    """The example's layout: one line per table entry (``"Ethernet0": {"speed": …}``)."""
    tables = []
    for name, entries in db.items():
        rows = ",\n".join(f"        {json.dumps(k)}: {json.dumps(v)}" for k, v in entries.items())
        tables.append(f"    {json.dumps(name)}: {{\n{rows}\n    }}")
    return "{\n" + ",\n".join(tables) + "\n}\n"


def generate(root: Path, n: int) -> list[Path]:
    template = json.loads(TEMPLATE.read_text(encoding="utf-8"))
    root.mkdir(parents=True, exist_ok=True)
    (root / "inventory.yaml").write_text(INVENTORY, encoding="utf-8")
    paths = []
    for i in range(n):
        path = root / "switches" / f"g{i // 100:03d}" / f"leaf{i:05d}" / "config_db.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(config_db(template, i), encoding="utf-8")
        paths.append(path)
    return paths


def cpu_of(fn) -> float:
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def run_netlint(repo: Path, *extra: str) -> tuple[float, int, dict]:
    """(CPU seconds, peak RSS in KB, the report) of ``netlint check . --format json`` in ``repo``, in a
    subprocess reaped with ``os.wait4`` so its usage is its own. Cold: the cache folder is removed
    first, so no run reads what an earlier one wrote."""
    shutil.rmtree(repo / ".netlint_cache", ignore_errors=True)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-m", "netlint", "check", ".", "--format", "json", *extra],
                                cwd=repo, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode not in (0, 1):
            sys.exit(f"netlint failed (exit {proc.returncode}):\n{err.read().decode()[-2000:]}")
        report = json.loads(out.read())
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss, report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", nargs="?", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3, help="best of this many runs of each")
    ap.add_argument("--keep", type=Path, help="generate into DIR and keep it (default: a temporary folder)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp) / "sonic"
        paths = generate(root, args.n)
        size = sum(p.stat().st_size for p in paths) / len(paths)

        def compose_all() -> None:
            for p in paths:
                yaml.compose(p.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)

        def json_all() -> None:
            for p in paths:
                json.loads(p.read_text(encoding="utf-8"))

        empty = Path(tmp) / "empty"
        empty.mkdir()
        (empty / "inventory.yaml").write_text(INVENTORY, encoding="utf-8")
        compose = min(cpu_of(compose_all) for _ in range(args.runs))
        loads = min(cpu_of(json_all) for _ in range(args.runs))
        start = min(run_netlint(empty)[0] for _ in range(args.runs))
        runs = [run_netlint(root) for _ in range(args.runs)]
        ours, rss, report = min(runs, key=lambda r: r[0])
        # the same without writing the cache
        bare_cpu, bare_rss, _ = min((run_netlint(root, "--no-cache") for _ in range(args.runs)),
                                    key=lambda r: r[0])
    findings = report["findings"]
    flagged = len({f["file"] for f in findings})
    print(f"files: {args.n} SONiC config_db.json, {size / 1024:.1f} KB each; "
          f"findings: {len(findings)} on {flagged} files")
    print(f"yaml.compose (libyaml) loop: {compose:7.3f} s CPU")
    print(f"json.load loop:              {loads:7.3f} s CPU")
    print(f"netlint check --format json: {ours:7.3f} s CPU (start-up alone {start:.3f} s), peak RSS {rss / 1024:.0f} MB"
          f" (cold: the cache written, none read)")
    print(f"  with --no-cache:           {bare_cpu:7.3f} s CPU, peak RSS {bare_rss / 1024:.0f} MB")
    ratio = ours / compose
    print(f"ratio netlint / yaml.compose: {ratio:.2f} (without start-up {(ours - start) / compose:.2f}; "
          f"with --no-cache {bare_cpu / compose:.2f}; bound {BOUND})")
    if ratio > BOUND:
        print(f"FAIL: netlint is more than {BOUND}x the yaml.compose loop")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
