"""Policy-as-code: YAML policies (JSONPath + CEL or templates) give located findings like built-in rules;
every problem with a policy is a located NL03x finding, never a traceback or a silent pass."""

import json
import subprocess
import sys

import jsonschema
import pytest

from conftest import ROOT, at, only, write_repo
from netlint.cli import main
from policy_repo import INVENTORY, POLICY, SWITCH, repo


def test_user_policy_finding_is_located(tmp_path):
    f = only(repo(tmp_path), "ORG001")
    assert f.message == "port Ethernet4 has MTU 1500, below 9000"
    assert f.file == "leaf02.yaml" and at(f) == (8, 5)


def test_user_policy_in_text_and_sarif(tmp_path, capsys):
    write_repo(tmp_path, {"inventory.yaml": INVENTORY, "leaf02.yaml": SWITCH, "org.yaml": POLICY,
                          "netlint.yaml": "policies: [org.yaml]\n"})
    assert main(["check", str(tmp_path), "--select", "ORG"]) == 1
    assert "leaf02.yaml:8:5: ORG001 [error] port Ethernet4 has MTU 1500" in capsys.readouterr().out
    assert main(["check", str(tmp_path), "--select", "ORG", "--format", "sarif"]) == 1
    sarif = json.loads(capsys.readouterr().out)
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == "ORG001"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (8, 5)


def test_user_policy_sarif_is_valid(tmp_path, capsys, shared):
    write_repo(tmp_path, {"inventory.yaml": INVENTORY, "leaf02.yaml": SWITCH, "org.yaml": POLICY,
                          "netlint.yaml": "policies: [org.yaml]\n"})
    assert main(["check", str(tmp_path), "--select", "ORG", "--format", "sarif"]) == 1
    schema = json.loads((shared / "reference" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(json.loads(capsys.readouterr().out))


@pytest.mark.parametrize("expr, column", [
    ("open('/etc/passwd') != ''", 1),
    ("self.mtu > 0 && system('reboot')", 17),
])
def test_reaching_outside_cannot_be_written(tmp_path, expr, column):
    policy = POLICY.replace("assert: has(self.mtu) && self.mtu >= 9000", f'assert: "{expr}"')
    f = only(repo(tmp_path, policy), "NL031")
    assert f.file == "org.yaml" and "not part of the CEL standard library" in f.message
    assert at(f) == (5, 13 + column)  # the opening quote is column 13
    assert "ORG001" not in [x.code for x in repo(tmp_path, policy).findings]


@pytest.mark.parametrize("expr, column, says", [
    ("while (true) { 1 }", 14, "'while' is a reserved word"),        # CEL has no loop statement
    ("for (x in self) { x }", 14, "'for' is a reserved word"),
    ("[1].all(a, [1].all(b, [1].all(c, [1].all(d, true))))", 54, "nested more than 3 deep"),
    ("self.recurse(self)", 19, "'recurse' is not part of"),           # nor functions of one's own
    ("[1, 2].map(x, x * 2", 0, "Syntax error"),                       # an unclosed macro
])
def test_loops_cannot_be_written(tmp_path, expr, column, says):
    """The expression starts at column 14 (after `assert: "`): each finding points into it."""
    policy = POLICY.replace("assert: has(self.mtu) && self.mtu >= 9000", f'assert: "{expr}"')
    report = repo(tmp_path, policy)
    f = only(report, "NL031")
    assert f.file == "org.yaml" and f.span.line == 5 and f.span.col >= 13 and says in f.message
    assert f.span.col == column or not column
    assert "ORG001" not in [x.code for x in report.findings]


def test_runtime_error_on_missing_field_is_reported_not_passed(tmp_path):
    # `maps` is a free-form map (port-level overrides): the key is legal but absent on these ports
    policy = POLICY.replace("has(self.mtu) && self.mtu >= 9000", "self.maps.dscp_to_tc == 'RDMA'")
    report = repo(tmp_path, policy)
    errors = [f for f in report.findings if f.code == "NL032"]
    assert len(errors) == 2 and errors[0].file == "org.yaml" and errors[0].span.line == 5
    assert sorted(e.related[0].span.line for e in errors) == [7, 8]  # and the ports it failed on


def test_schema_violation_is_located(tmp_path):
    policy = POLICY.replace("    summary:", "    sumary:")
    f = only(repo(tmp_path, policy), "NL004")
    assert f.file == "org.yaml" and at(f) == (3, 5) and "did you mean 'summary'" in f.message


def test_builtin_family_id_is_refused(tmp_path):
    # `--select ORG` would be NL008 here (no ORG rule is left once QOS901 is refused)
    f = only(repo(tmp_path, POLICY.replace("ORG001", "QOS901"), select=("QOS901", "NL0")), "NL030")
    assert at(f) == (2, 9)


@pytest.mark.parametrize("template, params, codes", [
    ("range", "{field: mtu, min: 9000, max: 9216}", ["Ethernet4"]),
    ("required", "{field: cable_length}", []),
    ("one-of", "{field: mtu, values: [9216]}", ["Ethernet4"]),
    ("forbidden", "{field: mtu, values: [1500]}", ["Ethernet4"]),
    ("match-across", "{field: mtu}", ["Ethernet0", "Ethernet4"]),
    ("pattern", "{field: name, pattern: '^Ethernet[0-3]$'}", ["Ethernet4"]),
    ("pattern", "{field: mtu, pattern: '^9[0-9]{3}$'}", ["Ethernet4"]),
])
def test_templates(tmp_path, template, params, codes):
    policy = POLICY.replace("assert: has(self.mtu) && self.mtu >= 9000",
                            f"template: {template}\n    params: {params}").replace(
        "port {self.name} has MTU {self.mtu}, below 9000", "{self.name}")
    found = [f for f in repo(tmp_path, policy).findings if f.code == "ORG001"]
    if template == "match-across":  # a 1:1 split: no majority, both are reported
        assert sorted(f.message for f in found) == ["Ethernet0 (mtu is 9216; the selected nodes disagree with no "
                                                    "majority: 1500, 9216)", "Ethernet4 (mtu is 1500; the selected "
                                                    "nodes disagree with no majority: 1500, 9216)"]
    else:
        assert sorted(f.message for f in found) == codes
    for f in found:
        assert f.file == "leaf02.yaml" and f.span.line in (7, 8)


def test_plain_check_does_not_import_cel(tmp_path):
    write_repo(tmp_path, {"inventory.yaml": INVENTORY, "leaf02.yaml": SWITCH})
    code = ("import sys; from netlint.cli import main; main(['check', '-q', sys.argv[1]]); "
            "print('cel' in sys.modules, 'jsonpath_rfc9535' in sys.modules, 'netlint.policy.runner' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True).stdout
    assert out.strip() == "False False False"
    (tmp_path / "netlint.yaml").write_text("policies: [production]\n")  # the control: now it is loaded
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True).stdout
    assert out.strip() == "True True True"


@pytest.mark.parametrize("change, where, name", [
    (("$.switches[*].ports.*", "$.switches[*].port.*"), (4, 12), "'port'"),
    (("has(self.mtu) && self.mtu >= 9000", "has(self.mut) && self.mut >= 9000"), (5, 22), "'mut' here; did you mean 'mtu'"),
    (("has(self.mtu) && self.mtu >= 9000", "template: range\n    params: {field: watchdog.detection, min: 1}"),
     (6, 21), "'detection' here; did you mean 'detection_ms'"),
])
def test_a_field_the_view_does_not_have_is_not_a_silent_pass(tmp_path, change, where, name):
    policy = POLICY.replace(*change).replace("    assert: template:", "    template:")
    report = repo(tmp_path, policy)
    f = only(report, "NL033")
    assert f.file == "org.yaml" and at(f) == where and name in f.message
    assert not [x for x in report.findings if x.code in ("ORG001", "NL032")]


def test_free_form_fields_are_not_checked(tmp_path):
    policy = POLICY.replace("has(self.mtu) && self.mtu >= 9000", "'!has(self.maps.anything) || self.mtu > 1'")
    assert not [f for f in repo(tmp_path, policy).findings if f.code.startswith("NL")]


def test_the_example_in_the_docs_loads_cleanly(tmp_path):
    import re

    from netlint.policy.files import load

    text = (ROOT / "docs" / "policy.md").read_text()
    block = re.search(r"```yaml\n(.*?)```", text, re.S).group(1)
    (tmp_path / "org.yaml").write_text(block)
    policies, problems = load(tmp_path / "org.yaml", "org.yaml")
    assert [p.code for p in policies] == ["ORG001", "ORG002"] and problems == []


def test_a_non_boolean_result_is_neither_pass_nor_violation(tmp_path):
    report = repo(tmp_path, POLICY.replace("has(self.mtu) && self.mtu >= 9000", "self.mtu"))
    found = [f for f in report.findings if f.code == "NL034"]
    assert len(found) == 2 and found[0].file == "org.yaml" and any("int 9216" in f.message for f in found)
    assert not [f for f in report.findings if f.code == "ORG001"]


def test_a_misspelt_placeholder_is_located(tmp_path):
    policy = POLICY.replace("port {self.name} has", "port {self.nmae} has")
    f = only(repo(tmp_path, policy), "NL033")
    assert at(f) == (6, 26) and "did you mean 'name'" in f.message


def test_workspace_variable_and_placeholders(tmp_path):
    policy = """
rules:
  - id: ORG010
    summary: every switch is in the inventory with MTU above the fabric's
    given: $.switches[*].ports.*
    assert: workspace.inventory.switches.exists(s, s.name == 'leaf02') && self.mtu > workspace.inventory.fabric.mtu
    message: "{self.name}: MTU {self.mtu} not above the fabric's {workspace.inventory.fabric.mtu} in {workspace.inventory.cluster}"
"""
    f = only(repo(tmp_path, policy), "ORG010")
    assert f.message == "Ethernet4: MTU 1500 not above the fabric's 9100 in c" and at(f) == (8, 5)


def test_jobs_mix_kinds_and_policies_select_one(tmp_path):
    """ws.jobs holds training jobs, DeepSpeed configs and hostfiles: each has its own fields (no false
    NL033 on a DeepSpeed field) and a `kind` to select on (no NL032 on the other kinds)."""
    import shutil

    shutil.copytree(ROOT / "examples" / "jobs", tmp_path / "jobs")
    policy = """
rules:
  - id: ORG020
    summary: ZeRO stage 1 at most
    given: $.jobs[*].root.zero_optimization
    template: range
    params: {field: stage, max: 1}
  - id: ORG021
    summary: TP within the NVLink domain
    given: "$.jobs[?@.kind == 'training_job']"
    assert: self.tp <= 8
    message: "{self.kind} with TP {self.tp}"
"""
    write_repo(tmp_path, {"org.yaml": policy, "netlint.yaml": "policies: [org.yaml]\n"})
    from conftest import run_lint

    report = run_lint(tmp_path, select=["ORG", "NL03"])
    got = sorted((f.code, f.file, f.message) for f in report.findings)
    assert got == [("ORG020", "jobs/ds_config.json", "ZeRO stage 1 at most"),
                   ("ORG021", "jobs/pretrain_gpt.sh", "training_job with TP 16")]
    assert at(only(report, "ORG020")) == (8, 14)


def test_a_duplicate_id_is_located_and_runs_once(tmp_path):
    dup = POLICY + POLICY.split("rules:\n", 1)[1].replace("jumbo frames", "again")
    report = repo(tmp_path, dup)
    f = only(report, "NL030")
    assert f.file == "org.yaml" and at(f) == (7, 9) and "already used at org.yaml:2:9" in f.message
    assert [x.message for x in report.findings if x.code == "ORG001"] == ["port Ethernet4 has MTU 1500, below 9000"]


def test_a_policy_entry_that_names_nothing_points_at_the_config(tmp_path):
    report = repo(tmp_path, extra={"netlint.yaml": "policies:\n  - org.yaml\n  - nvidia\n"})
    f = only(report, "NL030")
    assert f.file == "netlint.yaml" and at(f) == (3, 5) and "nvidia-roce" in f.message
    (tmp_path / "netlint.yaml").unlink()
    (tmp_path / "pyproject.toml").write_text('[tool.netlint]\npolicies = ["org.yaml", "prod"]\n')
    from conftest import run_lint

    f = only(run_lint(tmp_path, select=["ORG", "NL0"]), "NL030")
    assert f.file == "pyproject.toml" and at(f) == (2, 26)


def test_match_across_points_at_the_majority(tmp_path):
    switch = SWITCH + "  - {name: Ethernet8, speed: 400G, mtu: 9216, cable_length: 5}\n"
    policy = POLICY.replace("assert: has(self.mtu) && self.mtu >= 9000", "template: match-across\n    params: {field: mtu}")
    f = only(repo(tmp_path, policy, extra={"leaf02.yaml": switch}), "ORG001")
    assert f.message == "port Ethernet4 has MTU 1500, below 9000 (mtu is 1500, most have 9216)"
    assert at(f) == (8, 41) and f.related[0].message == "mtu is 9216 here" and f.related[0].span.line == 7


def test_the_item_a_node_is_in_is_bound(tmp_path):
    """`switch` is the switch a selected port is in (`nccl_env`, `job`, `nic` likewise): a port's
    finding can follow its queue to the switch's WRED profiles and still point at the port."""
    switch = SWITCH + """ecn:
  3: {enabled: false, min_bytes: 150000, max_bytes: 1500000}
"""
    policy = """
rules:
  - id: ORG040
    summary: jumbo ports mark ECN on queue 3
    given: $.switches[*].ports.*
    assert: "self.mtu < 9000 || !has(switch.wred_profiles.queue3) || switch.wred_profiles.queue3.ecn != 'ecn_none'"
    message: "{self.name} on {switch.name}: queue 3 has ECN {switch.wred_profiles.queue3.ecn}"
"""
    report = repo(tmp_path, policy, extra={"leaf02.yaml": switch})
    f = only(report, "ORG040")
    assert f.message == "Ethernet0 on leaf02: queue 3 has ECN ecn_none" and at(f) == (7, 5)


def test_an_item_variable_outside_its_collection_is_refused(tmp_path):
    policy = """
rules:
  - id: ORG041
    summary: jobs on a switch?
    given: "$.jobs[*]"
    assert: switch.name == 'leaf02'
  - id: ORG042
    summary: a misspelt switch field
    given: $.switches[*].ports.*
    assert: switch.nmae == 'leaf02'
"""
    report = repo(tmp_path, policy)
    found = sorted((f.message, at(f)) for f in report.findings if f.code == "NL033")
    assert found[0][0].startswith("ORG041: assert: 'switch' is the switch a selected node is in, bound only "
                                  "for nodes under $.switches; this policy selects under $.jobs")
    assert found[0][1] == (5, 13)
    assert "ORG042" in found[1][0] and "did you mean 'name'" in found[1][0] and found[1][1] == (9, 20)


def test_pruning_keeps_what_the_expression_reads():
    """The engine converts every value it gets; netlint drops the fields an expression never reads.
    What it reads — has() included — stays, and whole-value uses get the whole value."""
    from netlint.policy.cel import compile_expression

    port = {"name": "p", "mtu": 9000, "queues": {"3": {}}, "pgs": {}}
    prog = compile_expression("has(self.watchdog) || self.mtu == 9000")
    assert prog.prune("self", port) == {"mtu": 9000}
    assert prog.evaluate({"self": port}) is True
    assert compile_expression("size(self) == 4").prune("self", port) == port
    assert compile_expression("self.mtu == 1 || self.all(k, k != '')").prune("self", port) == port
    assert compile_expression("self.name.startsWith('p')").prune("self", port) == {"name": "p"}
    assert compile_expression("'self.pgs' == 'x' || self.mtu > 0").prune("self", port) == {"mtu": 9000}


def test_the_policy_schema_agrees_with_the_loader(tmp_path):
    """schemas/policy.schema.json is for editors; it accepts the packs and refuses what the loader refuses."""
    import yaml

    from netlint.policy.files import load

    schema = json.loads((ROOT / "schemas" / "policy.schema.json").read_text())
    validator = jsonschema.Draft202012Validator(schema)
    for path in (ROOT / "rules").glob("*.yaml"):
        assert list(validator.iter_errors(yaml.safe_load(path.read_text()))) == [], path.name
    both = POLICY + "    template: range\n    params: {field: mtu, min: 1}\n"
    for text in (both, POLICY.replace("    assert: has(self.mtu) && self.mtu >= 9000\n", ""),
                 POLICY.replace("severity", "x").replace("summary: jumbo", "severity: fatal\n    summary: jumbo")):
        assert list(validator.iter_errors(yaml.safe_load(text))), text
        (tmp_path / "p.yaml").write_text(text)
        policies, problems = load(tmp_path / "p.yaml", "p.yaml")
        assert policies == [] and [p.code for p in problems] == ["NL005"], text


def test_a_netlint_bug_in_policies_is_nl000_not_a_crash(tmp_path, monkeypatch, capsys):
    from netlint.policy.view import View

    def broken(self, ws):
        raise RuntimeError("boom")

    monkeypatch.setattr(View, "build", broken)
    write_repo(tmp_path, {"inventory.yaml": INVENTORY, "leaf02.yaml": SWITCH, "org.yaml": POLICY,
                          "netlint.yaml": "policies: [org.yaml]\n"})
    assert main(["check", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert "NL000" in captured.out and "internal error running policies: RuntimeError: boom" in captured.out
    assert "QOS108" in captured.out  # the built-in rules still ran


def test_a_bad_pattern_is_refused_at_load(tmp_path):
    policy = POLICY.replace("assert: has(self.mtu) && self.mtu >= 9000",
                            "template: pattern\n    params: {field: name, pattern: 'Ethernet(0'}")
    f = only(repo(tmp_path, policy), "NL031")
    assert at(f) == (6, 36) and f.message.endswith("not a valid regular expression: unclosed group")
