"""An ``inventory.yaml`` of another tool (Ansible's YAML inventory, kept in every AVD lab folder) is not
netlint's cluster inventory: not judged against its schema, unless the user names it as the inventory
(round 21: arista-netdevops-community/avd-cEOS-Lab gave four false NL004/NL005 errors)."""

from __future__ import annotations

from conftest import at, lint_repo

ANSIBLE = ("all:\n  children:\n    FABRIC:\n      hosts:\n        leaf1:\n          ansible_host: 172.100.100.4\n"
           "  vars:\n    ansible_user: admin\n")
GROUPS = "leafs:\n  hosts:\n    leaf1: {ansible_host: 10.0.0.1}\nspines:\n  children:\n    dc1: {}\n"


def test_an_ansible_inventory_is_not_read_as_the_cluster_inventory(tmp_path):
    for n, text in enumerate((ANSIBLE, GROUPS)):
        report = lint_repo(tmp_path / str(n), {"inventory.yaml": text, "lab/inventory.yml": text,
                                               "train.env": "NCCL_IB_DISABLE=true\n"})
        assert report.workspace.inventory is None
        assert [f.code for f in report.findings] == ["NCCL304"]


def test_named_as_the_inventory_it_is_reported_and_a_netlint_inventory_with_a_typo_still_is(tmp_path):
    report = lint_repo(tmp_path / "named", {"inventory.yaml": ANSIBLE, "netlint.yaml": "inventory: inventory.yaml\n"})
    (f,) = [f for f in report.findings if f.file == "inventory.yaml"]
    assert (f.code, at(f)) == ("NL007", (1, 1))
    typo = "cluster: c\nnodes: {count: 1, gpus: 8, gpu: H100-SXM}\nfabrik: {transport: roce}\n"
    report = lint_repo(tmp_path / "typo", {"inventory.yaml": typo})
    assert sorted(f.code for f in report.findings if f.file == "inventory.yaml") == ["NL004", "NL005"]
