"""The inventory format: the issue's example is accepted, schema and model agree, errors are located."""

import json

import jsonschema
import pytest
import yaml

from conftest import ROOT, at, lint_repo, only
from netlint.schemas_gen import SCHEMAS, render

ISSUE_EXAMPLE = """
cluster: pod-a
nodes:
  count: 32            # nodes of this shape
  gpus: 8              # GPUs per node
  gpu: H100-SXM
  nvlink_domain: 8
  nics:
    - {hca: mlx5_0, netdev: ens1np0, speed: 400G, rail: 0}
    - {hca: mlx5_1, netdev: ens2np0, speed: 400G, rail: 1}
fabric:
  transport: roce
  topology: rail-optimized
  oversubscription: 1
  mtu: 9100
  roce:
    dscp: 26
    priority: 3
    cnp_dscp: 48
    cnp_priority: 6
switches:
  - name: leaf01
    config: switches/leaf01/config_db.json
"""


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_committed_schema_matches_model(name):
    committed = (ROOT / "schemas" / name).read_text(encoding="utf-8")
    assert committed == render(name), f"schemas/{name} drifted: run python -m netlint.schemas_gen"


def test_issue_example_is_accepted_with_meaning(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": ISSUE_EXAMPLE, "switches/leaf01/config_db.json": "{}"})
    assert not [f for f in report.findings if f.code in ("NL004", "NL005")]
    inv = report.workspace.inventory
    assert inv.cluster.value == "pod-a"
    group = inv.node_groups[0]
    assert (group.count.value, group.gpus.value, group.domain) == (32, 8, 8)
    assert inv.total_gpus == 256
    assert [n.hca.value for n in group.nics] == ["mlx5_0", "mlx5_1"]
    assert inv.fabric.roce.dscp.value == 26 and inv.fabric.roce.cnp_priority.value == 6
    assert inv.fabric.oversubscription.value == 1
    assert inv.switches[0].config.value == "switches/leaf01/config_db.json"
    # every scalar keeps its position
    assert (inv.fabric.roce.dscp.span.line, inv.fabric.roce.dscp.span.col) == (16, 11)


def test_issue_example_validates_against_json_schema():
    schema = json.loads((ROOT / "schemas" / "inventory.schema.json").read_text())
    jsonschema.validate(yaml.safe_load(ISSUE_EXAMPLE), schema)
    bad = yaml.safe_load(ISSUE_EXAMPLE.replace("transport: roce", "transport: carrier-pigeon"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def test_unknown_key_has_did_you_mean_and_position(tmp_path):
    text = ISSUE_EXAMPLE.replace("  transport: roce", "  transport: roce\n  topolgy: fat-tree")
    report = lint_repo(tmp_path, {"inventory.yaml": text, "switches/leaf01/config_db.json": "{}"})
    f = only(report, "NL004")
    assert "did you mean 'topology'" in f.message
    assert at(f) == (12, 3)


def test_wrong_type_and_range_are_located(tmp_path):
    text = ISSUE_EXAMPLE.replace("gpus: 8 ", "gpus: eight").replace("dscp: 26", "dscp: 99")
    report = lint_repo(tmp_path, {"inventory.yaml": text, "switches/leaf01/config_db.json": "{}"})
    found = {(f.span.line, f.span.col) for f in report.findings if f.code == "NL005"}
    assert (4, 9) in found      # gpus: eight
    assert (16, 11) in found    # dscp: 99 (0..63)


LISTED = """
cluster: mixed
nodes:
  - {name: hgx, count: 32, gpus: 8, gpu: H100-SXM}
  - {name: nvl72, count: 4, gpus: 4, gpu: GB200}
fabric: {transport: infiniband}
"""


def test_single_node_shape_or_list(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": LISTED})
    inv = report.workspace.inventory
    assert inv is not None, [f.message for f in report.findings]
    assert inv.total_gpus == 256 + 16
    assert [g.domain for g in inv.node_groups] == [8, 72]  # catalog defaults: HGX board, NVL72 rack


def test_missing_switch_file_is_reported_at_the_reference(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": ISSUE_EXAMPLE})
    f = only(report, "NL010")
    assert at(f) == (22, 13)
