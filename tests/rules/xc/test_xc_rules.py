"""XC6xx: cross-file findings name both ends (the env line and the switch / inventory entry)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_lint

HERE = Path(__file__).resolve().parent

# code -> {example: [(file, line, col, [(related file, line, col), ...]), ...]}
EXPECTED = {
    "XC601": {
        "bad": [("nccl.env", 2, 12, [("switches/leaf01.yaml", 4, 36)])],
        "unset": [("train.sh", 1, 1, [("switches/leaf01.yaml", 4, 17)])],
        "intent": [("nccl.env", 1, 12, [("inventory.yaml", 13, 16)])],
    },
    "XC602": {
        "bad": [("nccl.conf", 1, 28, [("inventory.yaml", 7, 13)])],
        "prefix": [("nccl.env", 1, 20, [("inventory.yaml", 7, 13)])],
    },
    "XC603": {"bad": [("env.sh", 1, 20, [("inventory.yaml", 9, 13)])]},
    "XC604": {"bad": [("env.sh", 1, 27, [("inventory.yaml", 7, 29)])]},
    "XC605": {
        "bad": [("nccl.env", 1, 19, [("inventory.yaml", 6, 19)])],
        "old": [("train.sbatch", 1, 1, [("inventory.yaml", 6, 19)])],
    },
    "XC606": {"bad": [("nccl.env", 1, 1, [("inventory.yaml", 12, 14)]),
                      ("nccl.env", 2, 1, [("inventory.yaml", 12, 14)])],
              # other stacks against the transport (issue 17): EFA, InfiniBand, GPUDirect-TCPX
              "efa": [("nccl.env", n, 1, [("inventory.yaml", 7, 14)]) for n in (1, 3)],
              "ib": [("nccl.env", n, 1, [("inventory.yaml", 9, 14)]) for n in (1, 2)],
              "tcpx": [("nccl.env", n, 1, [("inventory.yaml", 7, 14)]) for n in (1, 2)],
              "sharp": [("nccl.env", 2, 1, [("inventory.yaml", 10, 10)])]},
    # issue 12: the NIC's priority for the RoCE DSCP / the ToS the NIC forces (NCCL_IB_TC=41 then never
    # reaches the wire: no XC601)
    "XC610": {"bad": [("nic.yaml", 5, 24, [("inventory.yaml", 10, 30), ("switches/leaf01.yaml", 3, 24),
                                           ("nic.yaml", 4, 6)])],
              "forced": [("nic.yaml", 5, 16, [("inventory.yaml", 10, 16)])]},
}


def _found(report, code):
    return sorted((f.span.file, f.span.line, f.span.col,
                   [(r.span.file, r.span.line, r.span.col) for r in f.related])
                  for f in report.findings if f.code == code)


@pytest.mark.parametrize("code,case", [(c, d) for c, cases in EXPECTED.items() for d in cases])
def test_bad_example_names_both_locations(code, case):
    report = run_lint(HERE / code / case)
    assert not [f for f in report.findings if f.code == "NL000"]
    assert _found(report, code) == sorted(EXPECTED[code][case])


@pytest.mark.parametrize("code", sorted(EXPECTED))
def test_good_example_is_silent(code):
    report = run_lint(HERE / code / "good")
    assert _found(report, code) == []
    assert not [f for f in report.findings if f.code.startswith(("NL", "NCCL", "XC"))], report.findings


def test_every_xc_rule_has_examples_and_docs():
    from netlint.rules.base import load_rules

    rules = {c: r for c, r in load_rules().items() if c.startswith("XC")}
    assert set(rules) == set(EXPECTED)
    for code, rule in rules.items():
        for part in ("What", "Why", "Bad", "Good", "Fix", "Source"):
            assert part in rule.docs(), f"{code} docs lack {part}"


def _only(report, code):
    hits = [f for f in report.findings if f.code == code]
    assert len(hits) == 1, hits
    return hits[0]


def test_ib_tc_message_names_both_ends_and_fixes_to_lossless_class():
    f = _only(run_lint(HERE / "XC601" / "bad"), "XC601")
    assert f.message.startswith("NCCL_IB_TC=106 marks DSCP 26, which leaf01 maps to TC 1, a lossy class (PFC on 3,4)")
    edit = f.fix.edits[0]
    assert (edit.replacement, edit.expected, f.fix.safe) == ("14", "106", False)


def test_ib_tc_unset_fix_goes_before_the_launch():
    f = _only(run_lint(HERE / "XC601" / "unset"), "XC601")
    assert "not set" in f.message and "DSCP 0" in f.message
    edit = f.fix.edits[0]
    assert edit.replacement == "export NCCL_IB_TC=14\n" and (edit.span.line, edit.span.col) == (4, 1)


def test_ib_tc_inventory_intent_wins():
    f = _only(run_lint(HERE / "XC601" / "intent"), "XC601")
    assert "inventory's RoCE class is DSCP 3" in f.message
    assert f.fix.edits[0].replacement == "14"   # DSCP 3 with ECT(0), not ECN bits 01 (L4S) of 41


def test_hca_typo_and_prefix_collision():
    f = _only(run_lint(HERE / "XC602" / "bad"), "XC602")
    assert "did you mean mlx5_2" in f.message
    assert f.fix.edits[0].replacement == "=mlx5_0,mlx5_1,mlx5_2,mlx5_3"
    f = _only(run_lint(HERE / "XC602" / "prefix"), "XC602")
    assert "mlx5_10, mlx5_11" in f.message and f.fix.edits[0].replacement == "=mlx5_0,mlx5_1"


def test_missing_rails_fix_lists_inventory_hcas():
    f = _only(run_lint(HERE / "XC603" / "bad"), "XC603")
    assert "2 of the 4" in f.message
    assert f.fix.edits[0].replacement == "mlx5_0,mlx5_1,mlx5_2,mlx5_3"


def test_a_list_that_excludes_every_rail_hca_is_an_error(tmp_path):
    # MLPerf run.sub copied from a GB200 folder: `export NCCL_IB_HCA="^mlx5"` on ConnectX-7 nodes
    from netlint.findings import Severity
    from tests.conftest import lint_repo

    inv = (HERE / "XC603" / "bad" / "inventory.yaml").read_text()
    report = lint_repo(tmp_path, {"inventory.yaml": inv, "env.sh": 'export NCCL_IB_HCA="^mlx5"\n'})
    f = _only(report, "XC603")
    assert (f.span.line, f.span.col) == (1, 20) and f.severity is Severity.ERROR
    assert "selects none of the 4 rail HCAs" in f.message and "falls back to TCP sockets" in f.message


def test_efa_settings_on_an_efa_fabric_are_silent():
    report = run_lint(HERE / "XC606" / "good_efa")
    assert [f for f in report.findings if f.code == "XC606"] == []
