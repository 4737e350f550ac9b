"""The layout advisor (netlint.fabric.advisor) and ``netlint model --advise``: every ranked layout is one
the frameworks build (JOB403-408, JOB415-417 rules), inside the NVLink domain and GPU memory; FAB501's
and FAB504's fixes apply the advised split and keep the world and the global batch."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from netlint.cli import main
from netlint.engine import Options, lint
from netlint.fabric import advisor as A
from netlint.fabric import shape as S
from netlint.fabric.collectives import Links
from netlint.fabric.step import Hardware
from netlint.fabric.traffic import Framework, Split
from netlint.fix import run_fixes
from netlint.models.job import training_jobs
from tests.conftest import ROOT, lint_repo, only, write_repo
from tests.rules.fab.test_fab_rules import NIC100x8, inv

# GPT-3 175B (Brown et al. 2020 Table 2.1: 96 layers, d_model 12288, 96 heads, context 2048, batch 1536)
# as NVIDIA/Megatron-LM@d98e8a64 examples/gpt3/train_gpt3_175b_distributed.sh L28-58 writes it (TP 8,
# PP 16, micro batch 1), in bf16 with the distributed optimizer, on {nodes} nodes of 8 H100.
GPT3_175B = """#!/bin/bash
export CUDA_DEVICE_MAX_CONNECTIONS=1
NODES={nodes}
TP={tp}
PP={pp}
torchrun --nproc_per_node 8 --nnodes $NODES pretrain_gpt.py \\
    --tensor-model-parallel-size $TP --pipeline-model-parallel-size $PP --sequence-parallel \\
    --num-layers 96 --hidden-size 12288 --num-attention-heads 96 \\
    --seq-length 2048 --max-position-embeddings 2048 --vocab-size 51200 \\
    --micro-batch-size 1 --global-batch-size 1536 --bf16 \\
    --use-distributed-optimizer --overlap-grad-reduce --overlap-param-gather
"""
# Mixtral 8x7B (Jiang et al. 2024, arXiv:2401.04088 Table 1: 32 layers, dim 4096, 32 heads, 8 KV heads,
# FFN 14336, 8 experts, top-2, vocabulary 32000) as Megatron-LM@d98e8a64
# examples/mixtral/train_mixtral_8x7b_distributed.sh L27-88 writes it (TP 1, PP 4, EP 8), on 8 nodes.
MIXTRAL = """#!/bin/bash
export CUDA_DEVICE_MAX_CONNECTIONS=1
torchrun --nproc_per_node 8 --nnodes 8 pretrain_gpt.py \\
    --tensor-model-parallel-size 1 --pipeline-model-parallel-size 4 --expert-model-parallel-size 8 \\
    --use-distributed-optimizer --sequence-parallel \\
    --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336 --num-attention-heads 32 \\
    --group-query-attention --num-query-groups 8 --swiglu --untie-embeddings-and-output-weights \\
    --position-embedding-type rope --normalization RMSNorm --disable-bias-linear --vocab-size 32000 \\
    --seq-length 4096 --max-position-embeddings 32768 \\
    --num-experts 8 --moe-router-topk 2 --moe-token-dispatcher-type alltoall --moe-grouped-gemm \\
    --overlap-grad-reduce --overlap-param-gather \\
    --micro-batch-size 1 --global-batch-size 256 --bf16
"""


def _advise_json(tmp_path, capsys, files: dict, *extra) -> list[dict]:
    write_repo(tmp_path, files)
    capsys.readouterr()
    assert main(["model", "--advise", "--format", "json", *extra, str(tmp_path)]) == 0
    return json.loads(capsys.readouterr().out)["jobs"]


def _valid(layout: dict, heads: int, groups: int, layers: int, seq: int, world: int, domain: int,
           experts: int = 0) -> bool:
    """The divisibility rules of JOB403-408, JOB415, JOB417 and FAB501's NVLink domain."""
    tp, pp, vpp, cp, ep, dp = (layout[k] for k in ("tp", "pp", "vpp", "cp", "ep", "dp"))
    b, g = layout["micro_batch"], layout["global_batch"]
    return (heads % tp == 0 and (groups % tp == 0 or tp % groups == 0) and layers % (pp * vpp) == 0
            and tp * pp * cp * dp == world and world % (layout["etp"] * ep * pp) == 0
            and (experts % ep == 0 if experts else ep == 1) and (cp == 1 or seq % (2 * cp) == 0)
            and g % (b * dp) == 0 and (vpp == 1 or (pp > 1 and g // (b * dp) >= pp))
            and tp <= domain and domain % tp == 0)


def test_examples_first_choice_fits_memory_and_nvlink(capsys):
    """``netlint model --advise examples/``: the bundled 13B job (TP=16 on 8-GPU nodes) gets a ranked
    list whose first choice keeps TP inside the node and fits in 72 of 80 GB."""
    capsys.readouterr()
    assert main(["model", "--advise", "--format", "json", str(ROOT / "examples")]) == 0
    job = next(j for j in json.loads(capsys.readouterr().out)["jobs"] if j["file"].endswith("pretrain_gpt.sh"))
    adv = job["advice"]
    assert adv["current"]["layout"]["tp"] == 16 and adv["fitting"] >= len(adv["ranked"]) >= 2
    first = adv["ranked"][0]
    assert first["memory"]["fits"] and first["memory"]["total_gb"] <= first["memory"]["usable_gb"] == 72.0
    assert _valid(first["layout"], 40, 40, 40, 4096, 32, job["nvlink_domain"])
    assert all(d["link"] == "nvlink" for d in first["time"]["dimensions"] if d["dimension"] == "TP")
    assert first["time"]["step_s"] < adv["current"]["time"]["step_s"]
    assert adv["fix"]["edits"] and "global batch 100 unchanged" in adv["fix"]["description"]


@pytest.mark.parametrize("nodes", [16, 128])
def test_gpt3_175b_on_128_to_1024_h100(tmp_path, capsys, nodes):
    """Every ranked layout is valid, fits and keeps TP in the node; the memory breakdown sums; the first
    is within 2% (netlint.fabric.advisor.TIE) of the fastest; TP 8 alone cannot hold 175B."""
    jobs = _advise_json(tmp_path, capsys, {"inventory.yaml": inv(nodes=nodes),
                                           "gpt3.sh": GPT3_175B.format(nodes=nodes, tp=8, pp=16)}, "--top", "0")
    adv = jobs[0]["advice"]
    assert adv["kept"] == {"world_size": nodes * 8, "micro_batch": 1, "global_batch": 1536}
    assert adv["rejected"]["memory"] > 0 and adv["rejected"]["NVLink domain"] > 0
    ranked = adv["ranked"]
    assert len(ranked) == adv["fitting"] > 10
    for c in ranked:
        assert _valid(c["layout"], 96, 96, 96, 2048, nodes * 8, 8)
        m = c["memory"]
        assert m["fits"] and m["total_gb"] == pytest.approx(
            m["weights_gb"] + m["gradients_gb"] + m["optimizer_gb"] + m["activations_gb"], abs=0.03)
        t = c["time"]
        assert t["step_s"] == pytest.approx(t["compute_s"] + t["bubble_s"] + t["exposed_comm_s"], abs=3e-4)
        assert c["layout"]["tp"] * c["layout"]["pp"] >= 16      # 175B needs ≥ 16-way model parallelism
    fastest = min(c["time"]["step_s"] for c in ranked)
    assert ranked[0]["time"]["step_s"] <= fastest * (1 + A.TIE)
    assert ranked[0]["why"] and any("stays in NVLink" in w or w.startswith("PP=") for w in ranked[0]["why"])


def test_mixtral_moe_ranks_expert_layouts(tmp_path, capsys):
    """The MoE job: EP divides the 8 experts and the expert grid (JOB404/JOB415), EP with TP only with
    sequence parallelism (JOB416), expert parameters sharded over EP in the memory breakdown."""
    jobs = _advise_json(tmp_path, capsys, {"inventory.yaml": inv(nodes=8), "mixtral.sh": MIXTRAL}, "--top", "0")
    adv = jobs[0]["advice"]
    ranked = adv["ranked"]
    assert ranked and all(_valid(c["layout"], 32, 8, 32, 4096, 64, 8, experts=8) for c in ranked)
    assert {c["layout"]["ep"] for c in ranked} >= {1, 8}
    same = {}
    for c in ranked:
        lay = c["layout"]
        same.setdefault((lay["tp"], lay["pp"], lay["vpp"], lay["cp"]), {})[lay["ep"]] = c["memory"]["weights_gb"]
    pair = next(v for v in same.values() if 1 in v and 8 in v)
    assert pair[8] < pair[1] / 2                                   # experts split 8 ways
    assert any("EP=" in w for w in ranked[0]["why"])


def _toy(heads=24, layers=12, experts=0, world=48):
    shape = S.ModelShape(layers=layers, hidden=1536, heads=heads, seq=1024, vocab=50257, experts=experts,
                         moe_layers=layers if experts else 0, topk=2 if experts else 1)
    split = Split(tp=1, pp=1, dp=world, micro_batch=1, global_batch=192)
    hw = Hardware(peak_tflops=989.4, domain=8, gpus_per_node=8, links=Links(nvlink=370.8, nic=47.0))
    return shape, split, Framework(grad_bytes=4, param_bytes=2, sequence_parallel=True), hw


def test_advise_is_pure_and_respects_heads_and_domain():
    """24 heads on 48 GPUs: TP 3 and 6 do not divide the 8-GPU domain, 12 and 24 exceed it (FAB501);
    TP 16 and 48 do not divide the heads (JOB406); every layout splits the 12 layers (JOB405) and the
    batch (JOB408). The same inputs give the same ranking."""
    shape, split, fw, hw = _toy()
    lim = A.Limits(world=48, domain=8, gpu_gb=80, sequence_parallel=True)
    adv = A.advise(shape, split, fw, hw, lim)
    tps = {c.split.tp for c in adv.ranked}
    assert tps <= {1, 2, 4, 8} and adv.rejected["NVLink domain"] > 0
    assert all(shape.layers % (c.split.pp * c.split.vpp) == 0 and 192 % c.split.dp == 0 for c in adv.ranked)
    assert [c.split for c in A.advise(shape, split, fw, hw, lim).ranked] == [c.split for c in adv.ranked]


def test_advise_memory_limit_and_cap(monkeypatch):
    """A GPU too small for any layout gives an empty ranking; a cap on timed layouts leaves a note."""
    shape, split, fw, hw = _toy()
    none = A.advise(shape, split, fw, hw, A.Limits(world=48, domain=8, gpu_gb=0.1))
    assert none.ranked == [] and none.rejected["memory"] > 0 and "no step model" not in none.rejected
    monkeypatch.setattr(A, "MAX_EVALUATED", 3)
    capped = A.advise(shape, split, fw, hw, A.Limits(world=48, domain=8, gpu_gb=80))
    assert len(capped.ranked) == 3 and "the 3 with the least model parallelism were timed" in capped.note
    assert max(c.split.tp * c.split.pp * c.split.cp for c in capped.ranked) <= 2


def test_deepspeed_zero2_keeps_pp_1_and_ep_divides_dp():
    """deepspeedai/DeepSpeed@38327e07 runtime/pipe/engine.py L77-78: ZeRO-2/3 and pipelines exclude each
    other; deepspeed/moe/layer.py L59 and the DeepSpeed expert groups: EP divides DP."""
    shape, split, fw, hw = _toy(experts=16)
    lim = A.Limits(world=48, domain=8, gpu_gb=80, framework="megatron-deepspeed", max_pp=1,
                   vary=frozenset({"tp", "pp", "ep"}))
    adv = A.advise(shape, split, fw, hw, lim)
    assert adv.ranked and all(c.split.pp == 1 and c.split.dp % c.split.ep == 0 for c in adv.ranked)
    assert {c.split.ep for c in adv.ranked} > {1}


def test_batch_schedule_constrains_dp(tmp_path):
    """Every batch of --step-batch-size-schedule must split into micro batch × DP when it applies
    (Megatron-LM@d98e8a64 core/num_microbatches_calculator.py L551-554): "0:16 …" keeps DP ≤ 16."""
    script = GPT3_175B.format(nodes=128, tp=8, pp=16).replace(
        "--global-batch-size 1536", "--global-batch-size 1536 --step-batch-size-schedule \"0:16 2.4B:320 12B:1536\"")
    report = lint_repo(tmp_path, {"inventory.yaml": inv(nodes=128), "gpt3.sh": script})
    job = next(iter(training_jobs(report.workspace)))
    assert A._batches(job) == ((16, 320, 1536), True)
    adv, _ = A.advise_job(job, report.workspace.inventory, 0.4)
    assert adv.ranked and all(16 % c.split.dp == 0 for c in adv.ranked)


def _fixed(tmp_path, files: dict, codes: list[str]):
    write_repo(tmp_path, files)
    opts = Options(paths=[tmp_path], select=codes, jobs=1)
    before = lint(opts)
    run = run_fixes(opts, unsafe=True, report=before)
    assert run.converged and not run.notes, run.notes
    return before, lint(Options(paths=[tmp_path], jobs=1))


def test_fab501_fix_applies_the_advised_split_and_keeps_the_global_batch(tmp_path):
    """GPT-3 175B at TP=16 on 16 nodes: the fix writes the advisor's best layout the script's TP/PP
    assignments can express; after it the job keeps 128 GPUs and the global batch 1536, TP stays in the
    node and FAB501 is gone."""
    files = {"inventory.yaml": inv(nodes=16), "gpt3.sh": GPT3_175B.format(nodes=16, tp=16, pp=8)}
    before, after = _fixed(tmp_path, files, ["FAB501"])
    job = next(iter(training_jobs(before.workspace)))
    adv, _ = A.advise_job(job, before.workspace.inventory, None)
    want = next(c.split for c in adv.ranked if (c.split.vpp, c.split.cp) == (1, 1))
    fixed = next(iter(training_jobs(after.workspace)))
    got = (fixed.int("tp"), fixed.int("pp"), fixed.int("dp"), fixed.int("world_size"), fixed.int("global_batch"))
    assert got == (want.tp, want.pp, want.dp, 128, 1536)
    assert fixed.int("tp") <= 8 and not [f for f in after.findings if f.code == "FAB501"]
    text = (tmp_path / "gpt3.sh").read_text()
    assert f"TP={want.tp}\n" in text and f"PP={want.pp}\n" in text      # the assignments, not the flags


def test_fab501_fix_rewrites_layers_per_virtual_stage(tmp_path):
    """With --num-layers-per-virtual-pipeline-stage the virtual stage count follows PP; the fix rewrites
    it so that the layers per stage still split (JOB405: arguments.py L953-975)."""
    script = GPT3_175B.format(nodes=16, tp=16, pp=8).replace(
        "--sequence-parallel", "--sequence-parallel --num-layers-per-virtual-pipeline-stage 3")
    before, after = _fixed(tmp_path, {"inventory.yaml": inv(nodes=16), "gpt3.sh": script}, ["FAB501"])
    fixed = next(iter(training_jobs(after.workspace)))
    lpv, pp = fixed.int("layers_per_vstage"), fixed.int("pp")
    assert fixed.int("tp") <= 8 and (96 // pp) % lpv == 0
    assert not [f for f in after.findings if f.code in ("FAB501", "JOB405", "JOB417")]


def test_fab504_fix_is_a_layout_it_would_not_report(tmp_path):
    """GPT-3 175B at TP=16 over 8×100GbE (FAB504 fires): the fix is the advisor's best writable layout
    that needs no more NIC bandwidth than the link gives — TP 8 inside the node — and FAB504 is silent
    after it."""
    script = GPT3_175B.format(nodes=16, tp=16, pp=8).replace("1536", "64")
    files = {"inventory.yaml": inv(nodes=16, nics=NIC100x8), "gpt3.sh": script}
    report = lint_repo(tmp_path, files)
    f = only(report, "FAB504")
    assert f.fix is not None and not f.fix.safe and "global batch 64 unchanged" in f.fix.description
    _, after = _fixed(tmp_path, {}, ["FAB504"])
    fixed = next(iter(training_jobs(after.workspace)))
    assert fixed.int("tp") == 8 and fixed.int("world_size") == 128
    assert not [x for x in after.findings if x.code == "FAB504"]


def test_text_output_shows_the_ranking_and_why(tmp_path, capsys):
    write_repo(tmp_path, {"inventory.yaml": inv(nodes=8), "mixtral.sh": MIXTRAL})
    capsys.readouterr()
    assert main(["model", "--advise", "--top", "3", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    head = next(i for i, line in enumerate(out) if line.strip().startswith("#  "))
    assert out[head].split() == ["#", "layout", "step", "compute", "bubble", "exposed", "MFU", "memory/GPU"]
    assert out[head + 1].strip().startswith("as written  TP 1 PP 4 EP 8 DP 16")
    ranks = [line.split()[0] for line in out[head + 1:] if line.startswith("  ") and not line.startswith("      ")]
    assert ranks[:4] == ["as", "1", "2", "3"]
    assert out[head + 2].startswith("      ") and out[head + 2].rstrip().endswith("GB")   # as written: why
    assert out[head + 4].startswith("      ") and "the speed of the layout as written" in out[head + 4]
    assert any(line.startswith("  layouts of 64 GPUs: ") and "micro batch 1 and global batch 256 kept" in line
               for line in out)


def test_a_split_the_framework_refuses_is_marked(tmp_path, capsys):
    """Megatron-LM's own Mixtral example on one 8-GPU node: PP 4 × EP 8 needs 32 GPUs (JOB404,
    parallel_state.py L871-884), so the layout as written is marked, and no valid layout of 8 GPUs holds
    46.7B parameters in 72 GB."""
    script = MIXTRAL.replace("--nnodes 8", "--nnodes 1")
    jobs = _advise_json(tmp_path, capsys, {"inventory.yaml": inv(nodes=1), "mixtral.sh": script})
    adv = jobs[0]["advice"]
    assert adv["current"]["why"][0] == "a split the framework refuses (see the JOB4xx findings)"
    assert adv["ranked"] == [] and adv["rejected"] == {"memory": adv["considered"]}


def test_no_inventory_no_advice(tmp_path, capsys):
    jobs = _advise_json(tmp_path, capsys, {"mixtral.sh": MIXTRAL})
    assert jobs[0]["advice"] == {"unavailable": "no inventory"}


def test_log_ties_bucket():
    """Layouts within 2% of the fastest share the first bucket (the fewest parallel dimensions lead)."""
    assert int(math.log(1.019) / math.log(1 + A.TIE)) == 0 and int(math.log(1.021) / math.log(1 + A.TIE)) == 1
    assert Path(A.__file__).name == "advisor.py"


def test_identical_launches_are_advised_once_and_fixed_alike(tmp_path, monkeypatch):
    """advise() is pure: three copies of one launch (and one other) cost two advisings, and each copy
    still gets its own FAB501 with the same advised fix at its own TP assignment."""
    calls = []
    real = A.advise
    monkeypatch.setattr(A, "advise", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    files = {"inventory.yaml": inv(nodes=16), **{f"j{i}/gpt3.sh": GPT3_175B.format(nodes=16, tp=16, pp=8)
                                                 for i in range(3)},
             "other/gpt3.sh": GPT3_175B.format(nodes=16, tp=32, pp=4)}
    report = lint_repo(tmp_path, files)
    found = sorted((f for f in report.findings if f.code == "FAB501"), key=lambda f: f.file)
    assert [f.file for f in found] == ["j0/gpt3.sh", "j1/gpt3.sh", "j2/gpt3.sh", "other/gpt3.sh"]
    assert len(calls) == 2 and {c.tp for c in calls} == {16, 32}
    fixes = [f.fix for f in found[:3]]
    assert all(x is not None for x in fixes)
    assert len({x.description for x in fixes}) == 1
    assert [x.edits[0].span.file for x in fixes] == ["j0/gpt3.sh", "j1/gpt3.sh", "j2/gpt3.sh"]
    assert [(x.edits[0].span.line, x.edits[0].span.col) for x in fixes] == [(4, 4)] * 3
