"""Issue 11: the inventory states the host's whole network (front-end NICs, EFA, the NIC's RoCE class),
so XC604 and XC601 judge a job against it instead of flagging correct configs."""

from __future__ import annotations

import pytest

from conftest import at, lint_repo, only
from netlint.findings import Severity

# Front-end NIC on a cloud VM beside four RDMA rails (GCP A3 / Azure ND style).
HOSTS = """
cluster: cloud-a
nodes:
  count: 2
  gpus: 8
  gpu: H100-SXM
  nics:
    - {hca: mlx5_0, netdev: ens1np0, speed: 400G, rail: 0}
    - {hca: mlx5_1, netdev: ens2np0, speed: 400G, rail: 1}
  host_nics:
    - {role: frontend, netdev: eth0}
    - {role: management, netdev: "enp0s*"}
fabric:
  transport: roce
"""

RDMA_ONLY = HOSTS.replace('''  host_nics:
    - {role: frontend, netdev: eth0}
    - {role: management, netdev: "enp0s*"}
''', "")   # the same nodes as the inventory could describe them before host NICs


def _xc604(tmp_path, inventory, value):
    report = lint_repo(tmp_path, {"inventory.yaml": inventory,
                                  "env.sh": f"export NCCL_DEBUG=WARN\nexport NCCL_SOCKET_IFNAME={value}\n"})
    assert not [f for f in report.findings if f.code in ("NL000", "NL004", "NL005")], report.findings
    return [f for f in report.findings if f.code == "XC604"]


@pytest.mark.parametrize("value", ["eth0", "=eth0", "=enp0s12", "enp0", "^docker,lo", "eth0,ens"])
def test_front_end_nic_declared_socket_ifname_is_silent(tmp_path, value):
    assert _xc604(tmp_path, HOSTS, value) == []


@pytest.mark.parametrize("value", ["eth0", "=enp0s12"])
def test_without_host_nics_the_same_value_is_flagged(tmp_path, value):
    # the control: only the declared front-end/management NIC makes these values right
    hits = _xc604(tmp_path, RDMA_ONLY, value)
    assert [(h.span.file, *at(h)) for h in hits] == [("env.sh", 2, 27)]
    assert "list it under host_nics" in hits[0].message


@pytest.mark.parametrize("value,why", [
    ("bond0", "matches none"),
    ("=enp1s0", "matches none"),          # the pattern enp0s* cannot produce enp1s0
    ("^eth,enp,ens", "excludes every interface"),
])
def test_name_matching_no_interface_is_located_at_the_value(tmp_path, value, why):
    hits = _xc604(tmp_path, HOSTS, value)
    assert [(h.span.file, *at(h)) for h in hits] == [("env.sh", 2, 27)]
    assert why in hits[0].message and "eth0" in hits[0].message and "enp0s*" in hits[0].message
    assert hits[0].severity == Severity.WARNING
    # the related location is the inventory's first interface (ens1np0 at line 7)
    assert [(r.span.file, r.span.line) for r in hits[0].related] == [("inventory.yaml", 7)]


def test_loopback_is_not_xc604s(tmp_path):
    # every host has lo; choosing it is NCCL317's finding, not "no such interface"
    assert _xc604(tmp_path, HOSTS, "lo") == []


def test_interface_patterns():
    from netlint.nccl.lists import parse
    from netlint.rules.xc._ifaces import can_start_with, selectable

    assert can_start_with("enp*", "en") and can_start_with("enp*", "enp0s12")
    assert not can_start_with("enp*", "eth")
    assert can_start_with("eth[0-3]", "eth2") and not can_start_with("eth[0-3]", "eth7")
    assert can_start_with("e?h0", "ezh") and not can_start_with("e?h0", "ezz")
    assert selectable(parse("=enp0s12"), "enp0s*") and not selectable(parse("=enp1s0"), "enp0s*")
    assert not selectable(parse("^en"), "enp*")       # every enp* name starts with en
    assert selectable(parse("^enp0"), "enp*")          # enp1… survives
    assert selectable(parse("^=enp0"), "enp*")


# -- XC601: the NIC's class, EFA, what the job really runs ---------------------------------------

SWITCH = """
switch: leaf01
trust: dscp
dscp_to_tc: {0: 0, 3: 3, 4: 4, 26: 1}
pfc:
  priorities: [3, 4]
ports:
  - {name: Ethernet0, speed: 400G, mtu: 9100}
"""


def _inventory(transport="roce", extra_node="", roce=""):
    return f"""
cluster: pod-a
nodes:
  count: 4
  gpus: 8
  gpu: H100-SXM
  nics:
    - {{hca: mlx5_0, netdev: ens1np0, speed: 400G, rail: 0}}
    - {{hca: mlx5_1, netdev: ens2np0, speed: 400G, rail: 1}}
{extra_node}fabric:
  transport: {transport}
{roce}switches:
  - name: leaf01
    config: switches/leaf01.yaml
"""


TRAIN = """#!/bin/bash
export NCCL_IB_HCA==mlx5_0,mlx5_1
torchrun train.py
"""


def _lint(tmp_path, inventory, files=None):
    report = lint_repo(tmp_path, {"inventory.yaml": inventory, "switches/leaf01.yaml": SWITCH,
                                  **(files or {"train.sh": TRAIN})})
    assert not [f for f in report.findings if f.code in ("NL000", "NL004", "NL005")], report.findings
    return report


def test_unset_tc_is_a_warning_without_the_inventorys_roce_class(tmp_path):
    f = only(_lint(tmp_path, _inventory()), "XC601")
    assert (f.span.file, *at(f)) == ("train.sh", 1, 1)
    assert f.severity == Severity.WARNING and "DSCP 0" in f.message
    assert f.fix.edits[0].replacement == "export NCCL_IB_TC=14\n"


def test_unset_tc_is_an_error_when_the_inventory_states_the_roce_class(tmp_path):
    f = only(_lint(tmp_path, _inventory(roce="  roce: {dscp: 3, priority: 3}\n")), "XC601")
    assert (f.span.file, *at(f)) == ("train.sh", 1, 1)
    assert f.severity == Severity.ERROR and "inventory's RoCE class is DSCP 3" in f.message
    assert [(r.span.file, r.span.line) for r in f.related] == [("inventory.yaml", 11), ("switches/leaf01.yaml", 3)]


def test_nic_default_class_in_the_lossless_class_silences_unset_tc(tmp_path):
    report = _lint(tmp_path, _inventory(extra_node="  roce_tos: 14\n"))   # DSCP 3 -> TC 3, PFC on
    assert [f for f in report.findings if f.code == "XC601"] == []


def test_nic_class_overrides_a_set_nccl_ib_tc(tmp_path):
    # the mlx5 global traffic class replaces NCCL's 106 (DSCP 26, lossy) on the wire
    files = {"train.sh": TRAIN.replace("torchrun", "export NCCL_IB_TC=106\ntorchrun")}
    report = _lint(tmp_path, _inventory(extra_node="  roce_tos: 14\n"), files)
    assert [f for f in report.findings if f.code == "XC601"] == []


def test_nic_class_in_a_lossy_class_is_reported_without_an_nccl_fix(tmp_path):
    f = only(_lint(tmp_path, _inventory(extra_node="  roce_tos: 106\n")), "XC601")
    assert (f.span.file, *at(f)) == ("train.sh", 1, 1)
    assert "NICs force ToS 106" in f.message and "DSCP 26" in f.message and "cannot override" in f.message
    assert f.fix is None
    assert ("inventory.yaml", 9, 13) in [(r.span.file, r.span.line, r.span.col) for r in f.related]


def test_mixed_node_groups_report_only_when_every_group_is_wrong(tmp_path):
    inv = _inventory().replace("nodes:\n  count: 4", "nodes:\n- name: a\n  count: 4").replace(
        "\nfabric:", "\n  roce_tos: 14\n- {name: b, count: 2, gpus: 8, gpu: H100-SXM}\nfabric:")
    inv = inv.replace("\n  gpus: 8\n  gpu: H100-SXM\n  nics:", "\n  gpus: 8\n  gpu: H100-SXM\n  nics:")
    report = _lint(tmp_path, inv)
    assert report.workspace.inventory is not None and len(report.workspace.inventory.node_groups) == 2
    assert [f for f in report.findings if f.code == "XC601"] == []   # group a's NICs mark DSCP 3


@pytest.mark.parametrize("files", [
    {"train.sh": TRAIN.replace("torchrun train.py", "mpirun -x NCCL_IB_TC=14 python train.py")},
    {"train.sh": TRAIN, "nccl.conf": "NCCL_IB_TC=14\n"},
    {"train.sh": TRAIN, ".env": "NCCL_IB_TC=14\n"},
    {"train.sh": TRAIN.replace("torchrun", "export NCCL_NET_PLUGIN=gib\ntorchrun")},
    {"train.sh": TRAIN.replace("torchrun", "export NCCL_NET=Socket\ntorchrun")},
    {"train.sh": TRAIN.replace("torchrun", "export NCCL_CONF_FILE=/opt/site/nccl.conf\ntorchrun")},
], ids=["mpirun-x", "nccl.conf", "dotenv", "net-plugin", "sockets", "conf-file"])
def test_unset_tc_only_where_nothing_else_sets_the_class(tmp_path, files):
    report = _lint(tmp_path, _inventory(), files)
    assert [f for f in report.findings if f.code == "XC601"] == []


EFA_FILES = {
    "train.sh": TRAIN,
    "nccl.env": "NCCL_IB_TC=106\nNCCL_IB_HCA=mlx5_0,mlx5_1,mlxl5_2\nNCCL_IB_GID_INDEX=0\n",
    "other/off.env": "NCCL_IB_DISABLE=1\n",
}


def test_efa_inventory_has_no_roce_class_findings(tmp_path):
    inv = _inventory(transport="efa").replace("mlx5_0, netdev: ens1np0", "rdmap16s27, netdev: ens32") \
        .replace("mlx5_1, netdev: ens2np0", "rdmap32s27, netdev: ens64")
    report = _lint(tmp_path, inv, EFA_FILES)
    roce = [f for f in report.findings
            if f.code in ("XC601", "XC602", "XC603", "XC605", "XC606", "NCCL310")]
    assert roce == [], [(f.code, f.message) for f in roce]


def test_the_same_files_on_roce_are_flagged(tmp_path):
    # the control for the test above: on RoCE these settings are judged
    report = _lint(tmp_path, _inventory(), EFA_FILES)
    found = {f.code for f in report.findings}
    assert {"XC601", "XC602", "XC605", "NCCL310"} <= found
