"""The inventory's host network (issue 11): host NICs, the NICs' RoCE class, EFA; old files unchanged."""

import json

import jsonschema
import pytest
import yaml

from conftest import ROOT, at, lint_repo

# An inventory in the format as it was before host NICs, roce_tos and efa existed.
OLD = """
cluster: pod-a
nodes:
  - name: hgx
    count: 32
    gpus: 8
    gpu: H100-SXM
    nvlink_domain: 8
    roce_gid_index: 3
    mtu: 9000
    nics:
      - {hca: mlx5_0, netdev: ens1np0, speed: 400G, rail: 0, port: 1}
      - {hca: mlx5_1, speed: 400G, rail: 1}
fabric:
  transport: roce
  topology: rail-optimized
  oversubscription: 1
  mtu: 9100
  roce: {dscp: 26, priority: 3, cnp_dscp: 48, cnp_priority: 6}
switches:
  - {name: leaf01, config: leaf01.yaml, role: leaf}
nic_configs: []
"""

NEW = """
cluster: cloud-a
nodes:
  count: 2
  gpus: 8
  gpu: H100-SXM
  roce_tos: 106
  nics:
    - {hca: rdmap16s27, speed: 100G}
  host_nics:
    - {role: frontend, netdev: eth0, speed: 100G}
    - {role: storage, netdev: [ens9, ens10]}
    - {role: management, netdev: "enp*"}
fabric:
  transport: efa
"""


def _schema():
    return json.loads((ROOT / "schemas" / "inventory.schema.json").read_text())


def test_old_inventory_loads_unchanged(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": OLD, "leaf01.yaml": "switch: leaf01\n"})
    assert not [f for f in report.findings if f.code in ("NL004", "NL005")], report.findings
    inv = report.workspace.inventory
    g = inv.node_groups[0]
    assert g.host_nics == [] and g.roce_tos is None
    assert [n.hca.value for n in g.nics] == ["mlx5_0", "mlx5_1"]
    assert (g.roce_gid_index.value, inv.transport, inv.fabric.roce.dscp.value) == (3, "roce", 26)
    jsonschema.validate(yaml.safe_load(OLD), _schema())


def test_shipped_example_inventory_still_loads(tmp_path):
    text = (ROOT / "examples" / "inventory.yaml").read_text()
    report = lint_repo(tmp_path, {"inventory.yaml": text})
    assert not [f for f in report.findings if f.code in ("NL004", "NL005")], report.findings
    assert report.workspace.inventory.node_groups[0].host_nics == []


def test_host_nics_roce_tos_and_efa_are_read_with_positions(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": NEW})
    assert not [f for f in report.findings if f.code in ("NL004", "NL005")], report.findings
    inv = report.workspace.inventory
    g = inv.node_groups[0]
    assert inv.transport == "efa" and g.roce_tos.value == 106 and at(g.roce_tos) == (6, 13)
    assert [(h.role.value, [d.value for d in h.netdevs]) for h in g.host_nics] == [
        ("frontend", ["eth0"]), ("storage", ["ens9", "ens10"]), ("management", ["enp*"])]
    assert at(g.host_nics[1].netdevs[1]) == (11, 38)
    jsonschema.validate(yaml.safe_load(NEW), _schema())


@pytest.mark.parametrize("old,new,pos", [
    ("role: frontend", "role: front", (10, 14)),       # not a role
    ("roce_tos: 106", "roce_tos: 256", (6, 13)),        # a ToS byte is 0..255
    ("speed: 100G}\n    - {role: storage", "speed: fast}\n    - {role: storage", (10, 45)),
])
def test_bad_host_network_values_are_located(tmp_path, old, new, pos):
    text = NEW.replace(old, new)
    report = lint_repo(tmp_path, {"inventory.yaml": text})
    assert pos in [at(f) for f in report.findings if f.code == "NL005"], report.findings
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(yaml.safe_load(text), _schema())


def test_the_readme_inventory_example_is_valid(tmp_path):
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Cluster inventory", 1)[1].split("```yaml", 1)[1].split("```", 1)[0]
    report = lint_repo(tmp_path, {"inventory.yaml": block, "switches/leaf01/config_db.json": "{}"})
    assert not [f for f in report.findings if f.code in ("NL004", "NL005")], report.findings
    g = report.workspace.inventory.node_groups[0]
    assert [h.role.value for h in g.host_nics] == ["frontend", "storage"] and g.roce_tos.value == 106
    jsonschema.validate(yaml.safe_load(block), _schema())
