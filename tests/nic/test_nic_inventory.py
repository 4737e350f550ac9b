"""NIC files named by the inventory: read into ws.nics, joined to their node group, never silent when
netlint cannot read them; the policy view shows them."""

from __future__ import annotations

from conftest import at, lint_repo, only
from nic_helpers import FIXTURES

TWO_GROUPS = """\
cluster: t
nodes:
  - {name: gpu-a, count: 4, gpus: 8, gpu: H100-SXM}
  - {name: gpu-b, count: 4, gpus: 8, gpu: H100-SXM}
fabric:
  transport: roce
  roce: {dscp: 26, priority: 3, cnp_dscp: 48, cnp_priority: 6}
"""


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_unreadable_nic_config_is_nl007_at_the_inventory_entry(tmp_path):
    report = lint_repo(tmp_path, {
        "inventory.yaml": TWO_GROUPS + "nic_configs:\n  - nic/ok.yaml\n  - {config: [nic/notes.txt], node_group: gpu-b}\n",
        "nic/ok.yaml": fixture("nic-gpu-a.yaml"),
        "nic/notes.txt": "PFC on priority 3, trust dscp (see the runbook)\n"})
    f = only(report, "NL007")
    assert (f.file, at(f)) == ("inventory.yaml", (10, 15))
    assert "nic_configs[1] names 'nic/notes.txt' as a NIC config" in f.message
    assert "nic-mlxconfig" in f.message and "nic-sysfs" in f.message and f.message.endswith("it is not checked")
    assert [n.file for n in report.workspace.nics] == ["nic/ok.yaml"]


def test_nic_config_that_does_not_parse_is_reported(tmp_path):
    report = lint_repo(tmp_path, {
        "inventory.yaml": TWO_GROUPS + "nic_configs: [nic/bad.yaml]\n",
        "nic/bad.yaml": "nic: x\ntrust: [dscp\n"})
    f = only(report, "NL003")
    assert f.file == "nic/bad.yaml" and f.span.line == 3 and not report.workspace.nics
    assert not [x for x in report.findings if x.code == "NL007"]


def test_missing_nic_config_is_nl010(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": TWO_GROUPS + "nic_configs: [nic/gone.txt]\n"})
    f = only(report, "NL010")
    assert (f.file, at(f)) == ("inventory.yaml", (8, 15))


def test_nic_configs_are_read_and_joined_to_their_node_group(tmp_path):
    from netlint.nic.join import bindings, nic_groups

    report = lint_repo(tmp_path, {
        "inventory.yaml": TWO_GROUPS + "nic_configs:\n  - nic/gpu-a.yaml\n"
                                       "  - {config: [hosts/b17/mlxconfig.txt, hosts/b17/ecn.txt], node_group: gpu-b,"
                                       " host: b17}\n  - nic/cluster-qos.log\n",
        "nic/gpu-a.yaml": fixture("nic-gpu-a.yaml"),
        "hosts/b17/mlxconfig.txt": fixture("mlxconfig-cx7.txt"),
        "hosts/b17/ecn.txt": fixture("sysfs-ecn.txt"),
        "nic/cluster-qos.log": fixture("mlnx_qos-ens1np0.txt")})
    ws = report.workspace
    assert sorted({n.format for n in ws.nics}) == ["mlnx_qos", "mlxconfig", "native", "sysfs"]
    how = {(b.nic.file, b.nic.port): (b.how, [g.name.value for g in b.groups], b.host and b.host.value)
           for b in bindings(ws)}
    assert how[("nic/gpu-a.yaml", None)] == ("file", ["gpu-a"], None)
    assert how[("hosts/b17/mlxconfig.txt", 1)] == ("inventory", ["gpu-b"], "b17")
    assert how[("hosts/b17/ecn.txt", None)] == ("inventory", ["gpu-b"], "b17")
    assert how[("nic/cluster-qos.log", None)] == ("all-groups", ["gpu-a", "gpu-b"], None)
    groups = {g.name.value: sorted(n.format for n in nics) for g, nics in nic_groups(ws)}
    assert groups == {"gpu-a": ["mlnx_qos", "native"], "gpu-b": ["mlnx_qos", "mlxconfig", "mlxconfig", "sysfs"]}


def test_one_node_group_and_a_group_the_inventory_does_not_have(tmp_path):
    from netlint.nic.join import bindings

    one = "cluster: t\nnodes: {name: hgx, count: 2, gpus: 8, gpu: H100-SXM}\nfabric: {transport: roce}\n"
    report = lint_repo(tmp_path, {
        "inventory.yaml": one + "nic_configs: [qos.log, {config: other.yaml, node_group: gpu-z}]\n",
        "qos.log": fixture("mlnx_qos-ens1np0.txt"),
        "other.yaml": "nic: other\ntrust: dscp\n"})
    how = {b.nic.file: (b.how, len(b.groups), b.ref and (b.ref.value, at(b.ref))) for b in bindings(report.workspace)}
    assert how == {"qos.log": ("only-group", 1, None), "other.yaml": ("unknown-group", 0, ("gpu-z", (4, 57)))}


def test_firmware_and_runtime_of_one_group_disagree_across_files(tmp_path):
    from netlint.nic.join import layer_conflicts, nic_groups

    report = lint_repo(tmp_path, {
        "inventory.yaml": TWO_GROUPS + "nic_configs:\n  - {config: [fw.txt, ecn.txt], node_group: gpu-a}\n",
        "fw.txt": fixture("mlxconfig-cx7.txt"), "ecn.txt": fixture("sysfs-ecn.txt")})
    (group_a, nics), _ = nic_groups(report.workspace)
    got = {(name, fw.value, fw.span.file, rt.value, rt.span.file) for name, fw, rt in layer_conflicts(nics)}
    # port 1: CNP_DSCP_P1 26 in firmware, 48 at runtime; RP on priority 3 in firmware, off at runtime
    assert ("cnp_dscp", 26, "fw.txt", 48, "ecn.txt") in got
    assert ("rp_enable.3", True, "fw.txt", False, "ecn.txt") in got
    assert ("dcqcn.rpg_min_dec_fac", 0, "fw.txt", 50, "ecn.txt") in got
    assert ("cnp_dscp", 48, "fw.txt", 48, "ecn.txt") not in got  # port 2 agrees


def test_policy_view_shows_nics(tmp_path):
    from netlint.policy.view import View

    report = lint_repo(tmp_path, {"qos.log": fixture("mlnx_qos-ens1np0.txt"), "nic.yaml": fixture("nic-gpu-a.yaml")})
    view = View()
    data = view.build(report.workspace)
    items = {i["format"]: i for i in data["nics"]}
    assert {i["kind"] for i in data["nics"]} == {"nic_qos"}
    assert items["mlnx_qos"]["trust"] == {"firmware": None, "runtime": "dscp"}
    assert items["mlnx_qos"]["pfc"]["runtime"] == [3] and items["mlnx_qos"]["dscp_to_prio"]["26"] == 4
    assert items["native"]["dcqcn"]["rpg_min_dec_fac"] == {"firmware": None, "runtime": 0}
    i = [n.format for n in report.workspace.nics].index("mlnx_qos")
    span = view.spans[("nics", i, "trust", "runtime")]
    assert (span.file, span.line, span.col) == ("qos.log", 3, 23)


# XC601 treats a NIC file that sets the mlx5 global traffic class as overriding an unset NCCL_IB_TC;
# a NIC file that says nothing about the class must not silence it.
XC_INVENTORY = """
cluster: pod-a
nodes: {count: 4, gpus: 8, gpu: H100-SXM, nics: [{hca: mlx5_0, netdev: ens1np0, speed: 400G}]}
fabric: {transport: roce}
switches: [{name: leaf01, config: leaf01.yaml}]
nic_configs: [nic.txt]
"""
XC_SWITCH = "switch: leaf01\ntrust: dscp\ndscp_to_tc: {0: 0, 3: 3, 26: 1}\npfc: {priorities: [3]}\n" \
            "ports: [{name: Ethernet0, speed: 400G, mtu: 9100}]\n"
XC_TRAIN = "#!/bin/bash\nexport NCCL_IB_HCA==mlx5_0\ntorchrun train.py\n"


def test_unset_nccl_ib_tc_is_still_reported_beside_a_nic_file_without_a_class(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": XC_INVENTORY, "leaf01.yaml": XC_SWITCH, "train.sh": XC_TRAIN,
                                  "nic.txt": fixture("sysfs-ecn.txt")})
    assert report.workspace.nics and report.workspace.nics[0].traffic_class.value is None
    f = only(report, "XC601")
    assert (f.file, at(f)) == ("train.sh", (1, 1))


def test_a_nic_traffic_class_silences_unset_nccl_ib_tc(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": XC_INVENTORY, "leaf01.yaml": XC_SWITCH, "train.sh": XC_TRAIN,
                                  "nic.txt": "/sys/class/infiniband/mlx5_0/tc/1/traffic_class Global tclass=14\n"})
    assert report.workspace.nics[0].traffic_class.value.value == 14
    assert not [f for f in report.findings if f.code == "XC601"]
