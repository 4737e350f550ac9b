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


def test_sibling_clusters_inventories_apply_to_neither(tmp_path):
    # bad (before): clusterA's inventory judged clusterB's env: XC604 "eth0 matches none of ... (ens1np0)"
    report = lint_repo(tmp_path, {"clusterA/inventory.yaml": inventory("roce", "ens1np0"),
                                  "clusterA/nccl.env": POD.replace("eth0", "ens1np0"),
                                  "clusterB/inventory.yaml": inventory("roce", "eth0"),
                                  "clusterB/nccl.env": POD})
    assert report.workspace.inventory is None
    assert not [f for f in report.findings if f.code.startswith("XC")]
    assert not_applied(report) == [("clusterA/inventory.yaml", 1, 1), ("clusterB/inventory.yaml", 1, 1)]
    msg = next(f.message for f in report.findings if f.file == "clusterA/inventory.yaml" and f.code == "NL012")
    assert "clusterA/" in msg and "clusterB/nccl.env" in msg and "--inventory" in msg


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
    assert report.workspace.inventory_file == "site/podA/inventory.yaml"
    assert not [f for f in report.findings if f.code == "XC604"]
    assert not_applied(report) == [("site/inventory.yaml", 1, 1)]


def test_the_project_root_inventory_wins_over_one_in_a_subfolder(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": inventory("roce", "eth0"),
                                  "old/inventory.yaml": inventory("roce", "ens1np0"),
                                  "old/nccl.env": POD})
    assert report.workspace.inventory_file == "inventory.yaml"
    assert not [f for f in report.findings if f.code == "XC604"]
    assert not_applied(report) == [("old/inventory.yaml", 1, 1)]
