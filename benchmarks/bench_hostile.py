"""Time and memory of netlint on hostile inputs: 50 MB files of each big family, read at the default
size limit (refused with NL013) and with the limit raised past them, and the YAML alias bomb.

``python benchmarks/bench_hostile.py [MB]`` (default 50). Each case is one ``netlint check`` in a
subprocess; the figures are that process's own CPU time and peak RSS (``os.wait4``), beside the same
for ``netlint --version`` (the start-up floor) measured in the same run. Not a test: it prints figures.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

MB = 1 << 20
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "hostile"))


def sonic(size: int) -> str:
    entry = {"admin_status": "up", "alias": "etp", "lanes": "0,1,2,3", "mtu": "9100", "speed": "400000"}
    qos = {"dscp_to_tc_map": "AZURE", "pfc_enable": "3,4"}

    def doc(n: int) -> str:
        names = [f"Ethernet{i * 8}" for i in range(n)]
        return json.dumps({"PORT": {p: entry for p in names}, "PORT_QOS_MAP": {p: qos for p in names}}, indent=4)

    per_port = len(doc(101)) - len(doc(100))  # the bytes one more port adds, indentation included
    return doc(max(1, size // per_port))


def env(size: int) -> str:
    line = "NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3\nNCCL_DEBUG=WARN\n"
    return line * (size // len(line))


def script(size: int) -> str:
    block = ('export NCCL_IB_TC=106\nARGS="$ARGS --tensor-model-parallel-size 8"\n'
             'if [ -n "$X" ]; then echo "$X"; fi\n')
    return "#!/bin/bash\n" + block * (size // len(block)) + "torchrun --nproc_per_node 8 pretrain_gpt.py $ARGS\n"


def k8s(size: int) -> str:
    item = "    - name: NCCL_IB_HCA\n      value: mlx5_0\n"
    head = "apiVersion: v1\nkind: Pod\nmetadata: {name: big}\nspec:\n  containers:\n  - name: c\n    image: i\n    env:\n"
    return head + item * (size // len(item))


def run(argv: list[str], cwd: Path) -> tuple[float, float, float, str, int]:
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # child: exec netlint with its output in a file, so the parent can wait4 it
        with open(cwd / ".out.json", "wb") as out, open(os.devnull, "wb") as err:
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            os.chdir(cwd)
            os.execv(argv[0], argv)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    try:
        codes = ",".join(sorted({f["code"] for f in json.loads((cwd / ".out.json").read_text())["findings"]}))
    except (ValueError, KeyError, TypeError):
        codes = "(no JSON)"
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, codes, os.waitstatus_to_exitcode(status)


def main() -> None:
    size = int(float(sys.argv[1]) * MB) if len(sys.argv) > 1 else 50 * MB
    exe = [sys.executable, "-m", "netlint"]
    cases = {"config_db.json": sonic, "train.env": env, "launch.sh": script, "pod.yaml": k8s}
    with tempfile.TemporaryDirectory(prefix="netlint-hostile-") as tmp:
        root = Path(tmp)
        floor = run(exe + ["--version"], root)
        print(f"{'case':34} {'wall s':>7} {'CPU s':>7} {'RSS MB':>7}  exit  codes")
        print(f"{'netlint --version (floor)':34} {floor[0]:7.2f} {floor[1]:7.2f} {floor[2]:7.0f}  {floor[4]:4d}")
        for name, make in cases.items():
            case = root / name.replace(".", "_")
            case.mkdir()
            text = make(size)
            (case / name).write_text(text)
            real = len(text.encode()) / MB
            for label, config in (("default limits", None), ("max-file-mb: 64", "limits:\n  max-file-mb: 64\n")):
                if config:
                    (case / "netlint.yaml").write_text(config)
                wall, cpu, rss, codes, code = run(exe + ["check", ".", "--format", "json", "--no-cache"], case)
                print(f"{name + f' {real:.0f} MB, ' + label:34} {wall:7.2f} {cpu:7.2f} {rss:7.0f}  {code:4d}  {codes}")
        case = root / "bomb"
        case.mkdir()
        from hostile_tools import alias_bomb  # the manifest tests/hostile checks

        (case / "pod.yaml").write_text(alias_bomb())
        wall, cpu, rss, codes, code = run(exe + ["check", ".", "--format", "json", "--no-cache"], case)
        print(f"{'alias bomb pod.yaml (600 B)':34} {wall:7.2f} {cpu:7.2f} {rss:7.0f}  {code:4d}  {codes}")


if __name__ == "__main__":
    main()
