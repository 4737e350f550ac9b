"""Policies as first-class rules (issue 15 point 7): findings on the inventory located in it, load-time
checks of the names a policy writes, params, duplicates, one recommended NCCL_IB_TC."""

import pytest

from conftest import at, codes, lint_repo, only
from policy_repo import INVENTORY, POLICY, SWITCH, repo

FABRIC = """
rules:
  - id: ORG002
    summary: fabric MTU of at least 9200
    given: $.inventory.fabric
    assert: self.mtu >= 9200
"""


def test_inventory_finding_is_located_in_the_inventory(tmp_path):
    f = only(repo(tmp_path, FABRIC), "ORG002")
    # the first located value of `fabric: {transport: roce, mtu: 9100}`, not org.yaml:1:1
    assert f.file == "inventory.yaml" and at(f) == (3, 21)


def test_inventory_template_finding_points_at_the_field(tmp_path):
    policy = FABRIC.replace("assert: self.mtu >= 9200", "template: range\n    params: {field: mtu, min: 9200}")
    f = only(repo(tmp_path, policy), "ORG002")
    assert f.file == "inventory.yaml" and at(f) == (3, 32)  # the 9100


@pytest.mark.parametrize("expr, column, says", [
    ("has(sellf.mtu) && sellf.mtu >= 9000", 4, "'sellf' is not a variable of a policy expression"),
    ("self.mtu >= 9000 || slf.name == 'x'", 20, "did you mean 'self'?"),
    ("self.mtuu >= 9000", 5, "did you mean 'mtu'?"),
])
def test_misspelt_name_is_one_located_nl033_at_load(tmp_path, expr, column, says):
    policy = POLICY.replace("has(self.mtu) && self.mtu >= 9000", expr)
    report = repo(tmp_path, policy)
    f = only(report, "NL033")  # once, at the policy, not an NL032 per port
    assert f.file == "org.yaml" and at(f) == (5, 13 + column) and says in f.message
    assert "NL032" not in codes(report) and "ORG001" not in codes(report)


def test_macro_variables_and_in_are_not_misspelt(tmp_path):
    policy = POLICY.replace("has(self.mtu) && self.mtu >= 9000",
                            "\"[9000, 9216].exists(m, has(self.mtu) && self.mtu == m) && 'x' in ['x']\"")
    report = repo(tmp_path, policy)
    assert "NL033" not in codes(report) and only(report, "ORG001").message.startswith("port Ethernet4")


@pytest.mark.parametrize("message, column, says", [
    ("port {name} has MTU {self.mtu}", 5, "did you mean '{self.name}'?"),
    ("port {sefl.name}", 5, "did you mean 'self'?"),
    ("port {self.name}: {params.floor}", 26, "params has no 'floor'"),
])
def test_bad_placeholder_is_refused_at_load(tmp_path, message, column, says):
    policy = POLICY.replace('"port {self.name} has MTU {self.mtu}, below 9000"', f'"{message}"')
    f = only(repo(tmp_path, policy), "NL033")
    assert f.file == "org.yaml" and at(f) == (6, 15 + column) and says in f.message


PARAMS = """
rules:
  - id: ORG001
    summary: jumbo frames on every port
    given: $.switches[*].ports.*
    params: {min_mtu: 9000}
    assert: has(self.mtu) && self.mtu >= params.min_mtu
    message: "port {self.name} has MTU {self.mtu}, below {params.min_mtu}"
"""


def test_params_in_cel_with_default(tmp_path):
    f = only(repo(tmp_path, PARAMS), "ORG001")
    assert f.message == "port Ethernet4 has MTU 1500, below 9000" and f.file == "leaf02.yaml"


@pytest.mark.parametrize("key", ["org.yaml", "ORG001"])
def test_params_overridden_per_file_or_policy(tmp_path, key):
    extra = {"netlint.yaml": f"policies: [org.yaml]\npolicy-params:\n  {key}: {{min_mtu: 1000}}\n"}
    assert "ORG001" not in codes(repo(tmp_path, PARAMS, extra))
    extra = {"netlint.yaml": f"policies: [org.yaml]\npolicy-params:\n  {key}: {{min_mtu: 9300}}\n"}
    assert sorted(f.message for f in repo(tmp_path, PARAMS, extra).findings if f.code == "ORG001") == [
        "port Ethernet0 has MTU 9216, below 9300", "port Ethernet4 has MTU 1500, below 9300"]


@pytest.mark.parametrize("config, at_, says", [
    ("  ORG001: {min_mtuu: 1000}\n", (3, 12), "did you mean 'min_mtu'?"),
    ("  ORG00l: {min_mtu: 1000}\n", (3, 3), "did you mean 'ORG001'?"),
    ("  ORG001: {min_mtu: '1000'}\n", (3, 12), "'1000' is a string, not a number"),
])
def test_bad_override_is_located_in_the_config(tmp_path, config, at_, says):
    extra = {"netlint.yaml": "policies: [org.yaml]\npolicy-params:\n" + config}
    report = repo(tmp_path, PARAMS, extra)
    f = only(report, "NL030")
    assert f.file == "netlint.yaml" and at(f) == at_ and says in f.message
    assert len([x for x in report.findings if x.code == "ORG001"]) == 1  # the default still runs


def test_undeclared_param_is_refused_at_load(tmp_path):
    policy = PARAMS.replace(">= params.min_mtu", ">= params.min_mt")
    f = only(repo(tmp_path, policy), "NL033")
    assert at(f) == (6, 49) and "did you mean 'min_mtu'?" in f.message


def test_netlint_recommended_value_in_params(tmp_path):
    from netlint.recommended import ROCE_TOS

    policy = """
rules:
  - id: ORG003
    summary: NCCL_IB_TC is the recommended class
    given: "$.nccl_envs[*].variables[?@.name == 'NCCL_IB_TC']"
    template: one-of
    params: {field: value, values: ["${netlint.nccl_ib_tc}"], want: "${netlint.roce_tos}"}
    message: "NCCL_IB_TC={self.value}, want {params.want}"
"""
    f = only(repo(tmp_path, policy, {"nccl.env": "NCCL_IB_TC=105\n"}), "ORG003")
    assert f.message == f"NCCL_IB_TC=105, want {ROCE_TOS}" and f.file == "nccl.env" and at(f) == (1, 12)
    bad = policy.replace("${netlint.nccl_ib_tc}", "${netlint.nccl_ib_cs}")
    f = only(repo(tmp_path, bad, {"nccl.env": "NCCL_IB_TC=105\n"}), "NL033")
    assert f.file == "org.yaml" and f.span.line == 6 and "did you mean 'nccl_ib_tc'?" in f.message


# --- one fault, one finding ------------------------------------------------------------------------

WATCHDOG_OFF = SWITCH.replace("  watchdog: {enabled: true, detection_ms: 200, restoration_ms: 400, action: drop}\n", "")


def _packs(tmp_path, packs, **kw):
    files = {"inventory.yaml": INVENTORY, "leaf02.yaml": WATCHDOG_OFF, "netlint.yaml": f"policies: [{packs}]\n"}
    return lint_repo(tmp_path, files, **kw)


def test_watchdog_off_is_reported_once_by_the_builtin(tmp_path):
    found = codes(_packs(tmp_path, "nvidia-roce, production", select=["QOS106", "NVR005", "PRD003"]))
    assert found == ["QOS106"]  # before: QOS106, and NVR005 and PRD003 on each of the two ports


@pytest.mark.parametrize("packs, first", [("nvidia-roce, production", "NVR005"),
                                          ("production, nvidia-roce", "PRD003")])
def test_without_the_builtin_the_first_pack_reports(tmp_path, packs, first):
    report = _packs(tmp_path, packs, select=["NVR005", "PRD003"])
    assert codes(report) == [first, first] and [at(f) for f in report.findings] == [(6, 5), (7, 5)]


def test_duplicates_naming_no_builtin_rule_is_refused(tmp_path, capsys):
    from netlint.cli import main

    policy = POLICY + "    duplicates: QOS1O6\n"
    f = only(repo(tmp_path, policy), "NL033")
    assert f.file == "org.yaml" and at(f) == (7, 17) and "did you mean 'QOS106'?" in f.message
    assert main(["policy", "test", str(tmp_path / "org.yaml")]) == 1
    assert "org.yaml:7:17: NL033 ORG001: duplicates: netlint has no rule QOS1O6" in capsys.readouterr().out


NCCL_41 = {"nccl.env": "NCCL_IB_HCA=mlx5_0\nNCCL_IB_TC=41\n",
           "inventory.yaml": INVENTORY.replace("mtu: 9100}", "mtu: 9100, roce: {dscp: 26, priority: 3}}"),
           "leaf02.yaml": SWITCH, "netlint.yaml": "policies: [nvidia-roce]\n"}


def test_ib_tc_fix_and_pack_agree_and_report_once(tmp_path):
    from netlint.recommended import ROCE_TOS

    report = lint_repo(tmp_path, NCCL_41, select=["XC601", "NVR006"])
    f = only(report, "XC601")
    assert "NVR006" not in codes(report) and f.fix.edits[0].replacement == str(ROCE_TOS) == "106"
    (tmp_path / "nccl.env").write_text(f"NCCL_IB_HCA=mlx5_0\nNCCL_IB_TC={ROCE_TOS}\n")
    assert lint_repo(tmp_path, {}, select=["NVR006"]).findings == []  # the fixed value passes the pack
    f = only(lint_repo(tmp_path, {"nccl.env": "NCCL_IB_TC=41\n"}, select=["NVR006"]), "NVR006")
    assert f.message == "NCCL_IB_TC=41: NVIDIA fabrics expect 106 (DSCP 26, ECT(0))"  # XC601 not enabled


# --- policies described like built-in rules -----------------------------------------------------

DOCUMENTED = POLICY.replace('    message:', '    docs: "Jumbo frames: RoCE needs MTU 9000 (vendor guide)."\n'
                            '    tags: [mtu, roce]\n    message:')


def test_policy_metadata_in_sarif(tmp_path, capsys):
    import json

    from conftest import write_repo
    from netlint.cli import main

    write_repo(tmp_path, {"inventory.yaml": INVENTORY, "leaf02.yaml": SWITCH, "org.yaml": DOCUMENTED,
                          "netlint.yaml": "policies: [org.yaml]\n"})
    assert main(["check", str(tmp_path), "--select", "ORG", "--format", "sarif"]) == 1
    (rule,) = json.loads(capsys.readouterr().out)["runs"][0]["tool"]["driver"]["rules"]
    assert rule["id"] == "ORG001" and rule["shortDescription"]["text"] == "jumbo frames on every port"
    assert rule["fullDescription"]["text"] == "Jumbo frames: RoCE needs MTU 9000 (vendor guide)."
    assert "RoCE needs MTU 9000" in rule["help"]["markdown"] and "org.yaml" in rule["help"]["text"]
    assert {"mtu", "roce", "policy"} <= set(rule["properties"]["tags"])
    assert rule["defaultConfiguration"]["level"] == "error" and "see the finding" not in json.dumps(rule)


def test_rules_and_rule_know_enabled_policies(tmp_path, capsys, monkeypatch):
    from conftest import write_repo
    from netlint.cli import main

    write_repo(tmp_path, {"org.yaml": DOCUMENTED, "netlint.yaml": "policies: [org.yaml, production]\n"})
    monkeypatch.chdir(tmp_path)
    assert main(["rules"]) == 0
    listed = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert "jumbo frames on every port (policy: org.yaml)" in listed["ORG001"]
    assert "built-in pack production" in listed["PRD003"] and "NVR005" not in listed  # not enabled
    assert main(["rule", "org001"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# ORG001 jumbo-frames-on-every-port") and "RoCE needs MTU 9000" in out
    assert "Tags: mtu, roce" in out and "Policy: org.yaml" in out
    assert main(["rule", "PRD003"]) == 0
    assert "Not reported where QOS106 is enabled (duplicates)." in capsys.readouterr().out
    assert main(["rule", "NVR005"]) == 2  # a pack this config does not enable


# --- examples and expressions take the view's types ---------------------------------------------

TYPED = """rules:
  - id: ORG021
    summary: NCCL_IB_TC is 106
    given: "$.nccl_envs[*].variables[?@.name == 'NCCL_IB_TC']"
    assert: self.value == '106'
    examples:
      pass: [{name: NCCL_IB_TC, value: 106}]
  - id: ORG022
    summary: one node shape
    given: $.inventory
    assert: size(self.nodes) == 1
    examples:
      pass: [{nodes: {count: 2}}]
      fail: [{nodes: [{count: 2}, {count: 3}]}]
  - id: ORG023
    summary: MTU field
    given: $.switches[*].ports.*
    assert: self.mtu >= 9000
    examples:
      pass: [{mtuu: 9216}]
"""


def test_policy_test_checks_example_types_and_fields(tmp_path, capsys):
    from netlint.cli import main

    (tmp_path / "t.yaml").write_text(TYPED)
    assert main(["policy", "test", str(tmp_path / "t.yaml")]) == 1
    out = capsys.readouterr().out
    assert ":7:14: ORG021 pass example 1: value: the workspace view holds a string here, never a number " \
           "(106): write 106 as text, '106'" in out  # NCCL values are strings
    assert ":13:14: ORG022 pass example 1: nodes: the workspace view holds a list here, never a mapping" in out
    assert ":20:14: ORG023 pass example 1: mtuu: the workspace view has no field 'mtuu' here; " \
           "did you mean 'mtu'?" in out
    assert out.strip().endswith("1 passed, 3 failed")  # the list-shaped fail example still ran
    fixed = TYPED.replace("value: 106}", "value: '106'}").replace("pass: [{nodes: {count: 2}}]",
                                                                   "pass: [{nodes: [{count: 2}]}]")
    (tmp_path / "t.yaml").write_text(fixed.replace("{mtuu: 9216}", "{mtu: 9216}"))
    assert main(["policy", "test", str(tmp_path / "t.yaml")]) == 0
    assert capsys.readouterr().out.strip().endswith("4 passed, 0 failed")


@pytest.mark.parametrize("rule, where, says", [
    ("    assert: self.value == 3\n", (5, 13), "self.value is a string in the workspace view"),
    ("    assert: 3 < self.value\n", (5, 17), "compare with a string (self.value == '3')"),
    ("    template: one-of\n    params: {field: value, values: [106]}\n", (6, 36), "write '106'"),
])
def test_string_field_compared_with_a_number_is_refused_at_load(tmp_path, capsys, rule, where, says):
    from netlint.cli import main

    policy = ("rules:\n  - id: ORG024\n    summary: IB TC\n"
              "    given: \"$.nccl_envs[*].variables[?@.name == 'NCCL_IB_TC']\"\n" + rule)
    (tmp_path / "t.yaml").write_text(policy)
    assert main(["policy", "test", str(tmp_path / "t.yaml")]) == 1  # not "0 passed, 0 failed", exit 0
    out = capsys.readouterr().out
    assert f"t.yaml:{where[0]}:{where[1]}: NL031 ORG024" in out and says in out
    f = only(repo(tmp_path, policy, {"nccl.env": "NCCL_IB_TC=3\n"}), "NL031")  # and at load in a run
    assert f.file == "org.yaml" and at(f) == where


def test_misspelt_variable_fails_policy_test(tmp_path, capsys):
    from netlint.cli import main

    (tmp_path / "t.yaml").write_text(POLICY.replace("has(self.mtu) && self.mtu", "has(sellf.mtu) && sellf.mtu"))
    assert main(["policy", "test", str(tmp_path / "t.yaml")]) == 1
    out = capsys.readouterr().out
    assert "t.yaml:6:17: NL033 ORG001: assert: 'sellf' is not a variable" in out and "1 failed" in out


# --- netlint policy view ------------------------------------------------------------------------

def test_policy_view_prints_what_a_policy_sees(tmp_path, capsys, monkeypatch):
    import json

    from conftest import write_repo
    from netlint.cli import main

    write_repo(tmp_path, {"inventory.yaml": INVENTORY, "leaf02.yaml": SWITCH, "nccl.env": "NCCL_IB_TC=106\n"})
    monkeypatch.chdir(tmp_path)
    assert main(["policy", "view", "$.switches[*].ports.*", "--format", "json"]) == 0
    ports = json.loads(capsys.readouterr().out)
    assert [p["path"] for p in ports] == ["$['switches'][0]['ports']['Ethernet0']",
                                          "$['switches'][0]['ports']['Ethernet4']"]
    assert ports[1]["location"] == "leaf02.yaml:8:5" and ports[1]["value"]["mtu"] == 1500
    assert main(["policy", "view", "$.nccl_envs[*].variables[0].value"]) == 0
    assert capsys.readouterr().out == "# $['nccl_envs'][0]['variables'][0]['value']  (nccl.env:1:12)\n\"106\"\n"
    assert main(["policy", "view", "$.inventory.nodes"]) == 0  # a list, though the file wrote a mapping
    assert json.loads(capsys.readouterr().out.split("\n", 1)[1])[0]["count"] == 2
    assert main(["policy", "view", "$.switches[*].portz"]) == 2
    assert "did you mean 'ports'?" in capsys.readouterr().err
    assert main(["policy", "view", "$.jobs[*]"]) == 1 and "no node" in capsys.readouterr().err
    assert main(["policy", "view", "$.switches[", "."]) == 2
