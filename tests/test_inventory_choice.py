"""Which inventory applies when a run reads several, or one away from the project root
(netlint/inventory_choice.py). Round 9: a reproducer's clusterA/inventory.yaml, found first by the
walk, was applied to every sibling folder (26 false XC602/XC604/XC606)."""

from __future__ import annotations

from tests.conftest import at, lint_repo


def inventory(transport: str, netdev: str) -> str:
    return ("cluster: c\nnodes:\n  count: 2\n  gpus: 8\n  gpu: H100-SXM\n"
            f"  nics:\n    - {{hca: mlx5_0, netdev: {netdev}, speed: 400G}}\n"
            f"fabric:\n  transport: {transport}\n")


POD = "NCCL_SOCKET_IFNAME=eth0\nNCCL_IB_HCA=mlx5_0\n"


def not_applied(report):
    return sorted((f.file, *at(f)) for f in report.findings
                  if f.code == "NL012" and "inventory not applied" in f.message)


def test_sibling_clusters_are_each_judged_with_their_own_inventory(tmp_path):
    # bad (before): clusterA's inventory, first in walk order, judged clusterB's env; then (round 10,
    # ml-dev-env barcelona/ + nerc/) neither applied and true XC602/XC603 were lost at the root
    report = lint_repo(tmp_path, {"clusterA/inventory.yaml": inventory("roce", "ens1np0"),
                                  "clusterA/nccl.env": POD,
                                  "clusterB/inventory.yaml": inventory("roce", "eth0"),
                                  "clusterB/nccl.env": POD})
    xc604 = [(f.file, *at(f)) for f in report.findings if f.code == "XC604"]
    assert xc604 == [("clusterA/nccl.env", 1, 20)]  # eth0 is not clusterA's interface; it is clusterB's
    assert not_applied(report) == []
    assert {f for f, _ in report.workspace.inventories} == {"clusterA/inventory.yaml", "clusterB/inventory.yaml"}


def test_an_inventory_with_no_file_in_its_folder_says_it_applies_to_none(tmp_path):
    report = lint_repo(tmp_path, {"inv/inventory.yaml": inventory("roce", "ens1np0"), "nccl.env": POD})
    assert not [f for f in report.findings if f.code == "XC604"]
    assert not_applied(report) == [("inv/inventory.yaml", 1, 1)]
    msg = next(f.message for f in report.findings if f.code == "NL012")
    assert "no other file checked lies in its folder, inv/" in msg


def test_an_inventory_whose_folder_holds_every_file_applies(tmp_path):
    # good: one cluster's folder checked from above
    report = lint_repo(tmp_path, {"clusterB/inventory.yaml": inventory("roce", "ens1np0"),
                                  "clusterB/nccl.env": POD})
    assert report.workspace.inventory_file == "clusterB/inventory.yaml" and not not_applied(report)
    xc604 = [f for f in report.findings if f.code == "XC604"]
    assert [(f.file, *at(f)) for f in xc604] == [("clusterB/nccl.env", 1, 20)]


def test_the_deepest_inventory_holding_every_file_wins(tmp_path):
    report = lint_repo(tmp_path, {"site/inventory.yaml": inventory("roce", "ens1np0"),
                                  "site/podA/inventory.yaml": inventory("roce", "eth0"),
                                  "site/podA/nccl.env": POD})
    assert not [f for f in report.findings if f.code == "XC604"]
    assert not_applied(report) == [("site/inventory.yaml", 1, 1)]  # no file is judged with it


def test_the_project_root_inventory_wins_over_one_in_a_subfolder(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": inventory("roce", "eth0"),
                                  "old/inventory.yaml": inventory("roce", "ens1np0"),
                                  "old/nccl.env": POD})
    assert report.workspace.inventory_file == "inventory.yaml"
    assert not [f for f in report.findings if f.code == "XC604"]
    assert not_applied(report) == [("old/inventory.yaml", 1, 1)]


def test_a_split_run_reports_the_same_cold_warm_and_without_cache(tmp_path):
    from netlint.engine import Options, lint
    from tests.conftest import write_repo

    write_repo(tmp_path, {"clusterA/inventory.yaml": inventory("roce", "ens1np0"), "clusterA/nccl.env": POD,
                          "clusterB/inventory.yaml": inventory("roce", "eth0"), "clusterB/nccl.env": POD})

    def run(**kw):
        rep = lint(Options(paths=[tmp_path], **kw))
        return sorted((f.code, f.file, *at(f), f.message) for f in rep.findings)

    plain = run()
    assert [c for c, *_ in plain] == ["XC604"]
    assert run(cache=True) == plain and run(cache=True) == plain  # cold, then warm
