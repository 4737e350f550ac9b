"""Calibration (issue 18 point 3) and the CLI (point 4): ``netlint model`` with nccl-tests results and
``--calibrate``; ``netlint check`` reports run logs like configs (text, JSON, SARIF locations are log lines)."""

from __future__ import annotations

import json

from netlint import hardware
from netlint.cli import main
from netlint.loaders.run_log import read_log
from netlint.run.calibrate import fit
from netlint.run.expect import Fractions, Node, expected_busbw
from tests.conftest import write_repo
from tests.run.shapes import nccl_tests_text
from tests.run.test_run_rules import fixture, inventory

H100 = Node(hardware.gpu("H100-SXM"), 8, (400.0,) * 8, None, 8)
SIZES = [1 << k for k in range(20, 34)]


def synthetic(true: Fractions, hosts: list[str]) -> str:
    """nccl-tests output whose busbw is the model's at ``true`` fractions (so a fit must give them back)."""
    n = 8 * len(hosts)
    return nccl_tests_text("all_reduce_perf", hosts, 8,
                           lambda s: expected_busbw("all-reduce", s, n, len(hosts), H100, true), size_list=SIZES)


def runs_in(*texts):
    return [t for text in texts for t in read_log("r.txt", text).tests]


def test_calibration_recovers_known_fractions():
    true = Fractions(nic=0.55, nvlink=0.70)
    f = fit(runs_in(synthetic(true, ["n1"]), synthetic(true, ["n1", "n2"])), H100)
    assert f.determined == {"nvlink": True, "nic": True}
    # busbw and time are printed with 2-3 significant decimals: the fit is as exact as the text
    assert abs(f.fitted.nic - 0.55) < 2e-3 and abs(f.fitted.nvlink - 0.70) < 2e-3
    assert f.error < 1e-3


def test_calibration_keeps_what_the_data_does_not_determine():
    true = Fractions(nic=0.55, nvlink=0.70)
    one_node = fit(runs_in(synthetic(true, ["n1"])), H100)
    assert one_node.determined["nic"] is False and one_node.fitted.nic == one_node.default.nic
    assert abs(one_node.fitted.nvlink - 0.70) < 2e-3


def _cli(tmp_path, capsys, files, *args):
    write_repo(tmp_path, files)
    capsys.readouterr()
    code = main(list(args))
    return code, capsys.readouterr().out


def test_model_prints_measured_and_expected_busbw(tmp_path, capsys):
    half = nccl_tests_text("all_reduce_perf", ["node01", "node02"], 8, lambda s: min(185.0, s / 2e5))
    code, out = _cli(tmp_path, capsys, {"inventory.yaml": inventory("infiniband"), "ar.txt": half},
                     "model", "--inventory", str(tmp_path / "inventory.yaml"), str(tmp_path / "ar.txt"))
    assert code == 0
    assert "measured peak 185 at 8 GiB; expected 369.68 from the inventory (50%)" in out
    assert "no training jobs found" not in out
    code, out = _cli(tmp_path, capsys, {}, "model", "--format", "json", "--inventory",
                     str(tmp_path / "inventory.yaml"), str(tmp_path / "ar.txt"))
    run = json.loads(out)["runs"][0]
    assert (run["peak_busbw_gbps"], run["expected_busbw_gbps"], run["ratio"]) == (185.0, 369.68, 0.5)


def test_model_calibrate(tmp_path, capsys):
    true = Fractions(nic=0.55, nvlink=0.70)
    files = {"inventory.yaml": inventory("infiniband"), "results/one.txt": synthetic(true, ["n1"]),
             "results/two.txt": synthetic(true, ["n1", "n2"])}
    code, out = _cli(tmp_path, capsys, files, "model", "--format", "json", "--inventory",
                     str(tmp_path / "inventory.yaml"), "--calibrate", str(tmp_path / "results/one.txt"),
                     "--calibrate", str(tmp_path / "results/two.txt"), str(tmp_path / "inventory.yaml"))
    cal = json.loads(out)["calibration"]
    assert cal["fractions"]["nic"]["fitted"] == 0.55 and cal["fractions"]["nvlink"]["fitted"] == 0.7
    big = [p for p in cal["points"] if p["size"] == 8 << 30 and p["nodes"] == 2][0]
    assert abs(big["calibrated_us"] - big["measured_us"]) / big["measured_us"] < 1e-3
    assert big["model_us"] < big["measured_us"]          # the model's own fractions are faster
    code, out = _cli(tmp_path, capsys, {}, "model", "--inventory", str(tmp_path / "inventory.yaml"),
                     "--calibrate", str(tmp_path / "results/two.txt"), str(tmp_path / "inventory.yaml"))
    assert "nic    model 0.940 -> fitted 0.550" in out
    assert "nvlink model 0.824 -> fitted 0.824 (not determined by these results: kept)" in out


def test_calibrate_without_inventory_says_why(tmp_path, capsys):
    code, out = _cli(tmp_path, capsys, {"r.txt": synthetic(Fractions(0.5, 0.7), ["n1"])},
                     "model", "--calibrate", str(tmp_path / "r.txt"), str(tmp_path / "r.txt"))
    assert code == 0 and "calibration needs an inventory" in out


def test_check_reports_log_lines_in_json_and_sarif(tmp_path, capsys):
    files = {"inventory.yaml": inventory(), "logs/run.log": fixture("socket_fallback.log")}
    code, out = _cli(tmp_path, capsys, files, "check", "--format", "json", "--select", "RUN701",
                     "--inventory", str(tmp_path / "inventory.yaml"), str(tmp_path))
    found = json.loads(out)
    items = found["findings"] if isinstance(found, dict) else found
    f = [x for x in items if x["code"] == "RUN701"][0]
    assert f["file"].endswith("logs/run.log") and (f["line"], f["column"]) == (8, 46)
    code, out = _cli(tmp_path, capsys, {}, "check", "--format", "sarif", "--select", "RUN701",
                     "--inventory", str(tmp_path / "inventory.yaml"), str(tmp_path))
    result = json.loads(out)["runs"][0]["results"][0]
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"].endswith("logs/run.log")
    assert (loc["region"]["startLine"], loc["region"]["startColumn"]) == (8, 46)


GPT = """\
torchrun --nproc_per_node 8 --nnodes 16 pretrain_gpt.py --tensor-model-parallel-size 8 \\
  --pipeline-model-parallel-size 4 --sequence-parallel --num-layers 96 --hidden-size 12288 \\
  --num-attention-heads 96 --seq-length 2048 --max-position-embeddings 2048 --vocab-size 51200 \\
  --micro-batch-size 1 --global-batch-size 256 --bf16 --use-distributed-optimizer --overlap-grad-reduce
"""


def test_calibration_moves_the_jobs_modelled_step(tmp_path, capsys):
    slow = synthetic(Fractions(nic=0.3, nvlink=0.824), ["n1", "n2"])
    inv = inventory("infiniband").replace("count: 2", "count: 16")
    code, out = _cli(tmp_path, capsys, {"inventory.yaml": inv, "gpt.sh": GPT, "r/two.txt": slow},
                     "model", "--format", "json", "--inventory", str(tmp_path / "inventory.yaml"),
                     "--calibrate", str(tmp_path / "r/two.txt"), str(tmp_path / "gpt.sh"))
    job = json.loads(out)["calibration"]["jobs"][0]
    assert job["name"] and job["calibrated_step_s"] > job["step_s"]   # slower NICs, longer modelled step


def _without_device_lines(text: str) -> str:
    return "\n".join(l for l in text.splitlines() if not l.startswith("#  Rank")) + "\n"


def test_a_run_without_device_lines_takes_its_shape_from_nccls_comm_line(tmp_path, capsys):
    # NVIDIA/nccl#1453: mpirun -prepend-rank output with NCCL_DEBUG=INFO, no `#  Rank` lines
    half = nccl_tests_text("all_reduce_perf", ["node01", "node02"], 8, lambda s: min(185.0, s / 2e5))
    comm = "node01:1:1 [0] NCCL INFO comm 0x5639e9f0e8c0 rank 0 nRanks 16 nNodes 2 localRanks 8 localRank 0 MNNVL 0\n"
    text = comm + _without_device_lines(half)
    (t,) = read_log("ar.txt", text).tests
    assert t.devices == [] and t.comm_shape == (16, 2)
    code, out = _cli(tmp_path, capsys, {"inventory.yaml": inventory("infiniband"), "ar.txt": text},
                     "model", "--inventory", str(tmp_path / "inventory.yaml"), str(tmp_path / "ar.txt"))
    assert ": 16 ranks on 2 node(s)" in out and "expected 369.68 from the inventory (50%)" in out


def test_model_says_why_a_run_is_not_modelled(tmp_path, capsys):
    half = nccl_tests_text("all_reduce_perf", ["node01", "node02"], 8, lambda s: min(185.0, s / 2e5))
    unnamed = half.replace("# Collective test starting: all_reduce_perf\n", "")
    code, out = _cli(tmp_path, capsys, {"inventory.yaml": inventory("infiniband"), "r.txt": unnamed},
                     "model", "--inventory", str(tmp_path / "inventory.yaml"), str(tmp_path / "r.txt"))
    assert "expected: not modelled — the log does not name the test" in out
    code, out = _cli(tmp_path / "b", capsys, {"inventory.yaml": inventory("infiniband"),
                                              "all_reduce_perf.txt": _without_device_lines(half)},
                     "model", "--inventory", str(tmp_path / "b" / "inventory.yaml"),
                     str(tmp_path / "b" / "all_reduce_perf.txt"))
    assert "expected: not modelled — the log shows neither device lines nor NCCL's comm line" in out
