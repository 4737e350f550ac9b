"""Hostile launch scripts: deep nesting and exponential values end in a located NL012 (read in part)
and a complete report — never a traceback, a hang or gigabytes. netlint runs in a subprocess; the
timeout is only a guard, far above the expected time (no assertion on time)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

TORCHRUN = "torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size 2 --micro-batch-size 1\n"

CASES = {
    # name: (script text, line of the NL012, words in its message)
    "nested-if": ("if true; then\n" * 3000 + "echo x\n" + "fi\n" * 3000 + TORCHRUN, 65, "nested deeper than 64"),
    "nested-default": ("echo " + "${X:-" * 5000 + "a" + "}" * 5000 + "\n" + TORCHRUN, 1, "expansions nested deeper"),
    "doubled-string": ("X=ab\n" + 'X="$X$X"\n' * 40 + TORCHRUN, 15, "grew past netlint's bound"),
    "doubled-array": ("A=(a b)\n" + 'A=("${A[@]}" "${A[@]}")\n' * 40 + TORCHRUN, 13, "grew past netlint's bound"),
    # each record keeps its whole value: appends to one variable are quadratic (1 MB held 7.5 GB)
    "growing-appends": ("ARGS=\n" + 'ARGS="$ARGS --x"\n' * 3000 + TORCHRUN, 1415, "hold more than 1,000,000 pieces"),
    # every command keeps the exported environment: a big exported value and many commands
    "exported-everywhere": ('export A="' + " ".join(["$X"] * 900) + '"\n' + 'echo "$A"\n' * 3000 + TORCHRUN,
                            279, "hold more than 1,000,000 pieces"),
    "many-elifs": ("if [ $A = 0 ]; then echo 0\n" + "".join(f"elif [ $A = {i} ]; then echo {i}\n"
                                                             for i in range(1, 3000)) + "fi\n" + TORCHRUN,
                   1, "nests deeper than netlint evaluates"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_script_gives_a_located_finding_and_a_complete_report(tmp_path, name):
    text, line, words = CASES[name]
    (tmp_path / "train.sh").write_text(text, encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "netlint", "check", str(tmp_path), "--format", "json"],
                       capture_output=True, text=True, timeout=300)
    assert "Traceback" not in r.stderr, r.stderr[-2000:]
    assert r.returncode in (0, 1), r.stderr[-2000:]
    report = json.loads(r.stdout)
    hits = [f for f in report["findings"] if f["code"] == "NL012" and words in f["message"]]
    assert hits and hits[0]["line"] == line, [(f["code"], f["line"], f["message"]) for f in report["findings"]]
