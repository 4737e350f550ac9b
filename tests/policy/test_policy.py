"""Policy-as-code: YAML policies (JSONPath + CEL or templates) give located findings like built-in rules."""

import json
import subprocess
import sys

import jsonschema
import pytest

from conftest import ROOT, SHARED, at, lint_repo, only, write_repo
from netlint.cli import main

INVENTORY = """
cluster: c
nodes: {count: 2, gpus: 8, gpu: H100-SXM}
fabric: {transport: roce, mtu: 9100}
switches:
  - {name: leaf02, config: leaf02.yaml}
"""
SWITCH = """
switch: leaf02
dscp_to_tc: {26: 3, 48: 6}
pfc:
  priorities: [3]
  watchdog: {enabled: true, detection_ms: 200, restoration_ms: 400, action: drop}
ports:
  - {name: Ethernet0, speed: 400G, mtu: 9216, cable_length: 5}
  - {name: Ethernet4, speed: 400G, mtu: 1500, cable_length: 5}
"""
POLICY = """
rules:
  - id: ORG001
    summary: jumbo frames on every port
    given: $.switches[*].ports.*
    assert: has(self.mtu) && self.mtu >= 9000
    message: "port {self.name} has MTU {self.mtu}, below 9000"
"""


def repo(tmp_path, policy=POLICY, extra=None):
    files = {"inventory.yaml": INVENTORY, "leaf02.yaml": SWITCH, "org.yaml": policy,
             "netlint.yaml": "policies: [org.yaml]\n"}
    files.update(extra or {})
    return lint_repo(tmp_path, files, select=["ORG", "NL0"])


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
    schema = json.loads((SHARED / "reference" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(sarif)
    (result,) = sarif["runs"][0]["results"]
    assert result["ruleId"] == "ORG001"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (8, 5)


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


def test_loops_cannot_be_written(tmp_path):
    policy = POLICY.replace("assert: has(self.mtu) && self.mtu >= 9000", 'assert: "while (true) { 1 }"')
    f = only(repo(tmp_path, policy), "NL031")
    assert f.span.line == 5


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
    f = only(repo(tmp_path, POLICY.replace("ORG001", "QOS901")), "NL030")
    assert at(f) == (2, 9)


@pytest.mark.parametrize("template, params, codes", [
    ("range", "{field: mtu, min: 9000, max: 9216}", ["Ethernet4"]),
    ("required", "{field: cable_length}", []),
    ("one-of", "{field: mtu, values: [9216]}", ["Ethernet4"]),
    ("forbidden", "{field: mtu, values: [1500]}", ["Ethernet4"]),
    ("match-across", "{field: mtu}", ["Ethernet0", "Ethernet4"]),
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


def test_policy_test_passes_on_the_packs(capsys):
    assert main(["policy", "test", str(ROOT / "rules")]) == 0
    assert " 0 failed" in capsys.readouterr().out


def test_policy_test_fails_on_a_broken_example(tmp_path, capsys):
    broken = POLICY + "    examples:\n      pass: [{name: x, mtu: 1500}]\n      fail: [{name: y, mtu: 1500}]\n"
    write_repo(tmp_path, {"org.yaml": broken})
    assert main(["policy", "test", str(tmp_path / "org.yaml")]) == 1
    out = capsys.readouterr().out
    assert "ORG001 pass example 1 fails" in out and "1 passed, 1 failed" in out


def test_builtin_pack_on_the_examples(tmp_path):
    import shutil

    shutil.copytree(ROOT / "examples", tmp_path / "ex")
    (tmp_path / "ex" / "netlint.yaml").write_text("inventory: inventory.yaml\npolicies: [production, nvidia-roce]\n")
    from conftest import run_lint

    report = run_lint(tmp_path / "ex", select=["PRD", "NVR", "NL03"])
    got = {(f.code, f.file, f.span.line) for f in report.findings}
    assert ("NVR006", "nccl/train.env", 7) in got            # NCCL_IB_TC=41
    assert ("PRD003", "switches/leaf02.yaml", 18) in got     # watchdog off on a lossless port
    assert not [f for f in report.findings if f.code.startswith("NL")]


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


def test_policy_test_points_at_the_broken_example_and_fails_on_a_bad_policy(tmp_path, capsys):
    broken = POLICY + "    examples:\n      fail: [{name: y, mtu: 9216}]\n"
    bad_cel = POLICY.replace("ORG001", "ORG002").replace("self.mtu >= 9000", "self.mtu >=")
    write_repo(tmp_path, {"p/a.yaml": broken, "p/b.yaml": bad_cel})
    assert main(["policy", "test", str(tmp_path / "p")]) == 1
    out = capsys.readouterr().out
    assert f"{tmp_path / 'p' / 'a.yaml'}:8:14: ORG001 fail example 1 passes" in out
    assert "b.yaml:5:" in out and "NL031" in out and "0 passed, 2 failed" in out


def test_packs_ship_in_the_wheel_and_are_found():
    from netlint.policy.files import PACKS_DIR

    assert PACKS_DIR == ROOT / "rules"
    assert '"share/netlint/rules" = ["rules/*.yaml"]' in (ROOT / "pyproject.toml").read_text()
    assert {p.stem for p in PACKS_DIR.glob("*.yaml")} == {"nvidia-roce", "sonic-default", "production"}


def test_every_pack_rule_cites_a_source_and_has_examples():
    from netlint.policy.files import PACKS_DIR, load

    for path in PACKS_DIR.glob("*.yaml"):
        policies, problems = load(path, path.name)
        assert problems == []
        for p in policies:
            assert p.policy.docs is not None and "research/" in p.policy.docs.value, p.code
            assert p.policy.examples is not None and p.policy.examples.pass_ and p.policy.examples.fail, p.code


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


def test_examples_take_the_views_shape_and_a_workspace(tmp_path, capsys):
    policy = """
rules:
  - id: ORG030
    summary: DSCP 26 to TC 3, on a fabric the inventory says is RoCE
    given: $.switches[*].maps.dscp_to_tc.*
    assert: workspace.inventory.fabric.transport != 'roce' || self.entries['26'] == 3
    examples:
      workspace: {inventory: {fabric: {transport: roce}}}
      pass: [{entries: {26: 3}}]
      fail: [{entries: {26: 1}}]
"""
    write_repo(tmp_path, {"org.yaml": policy})
    assert main(["policy", "test", str(tmp_path / "org.yaml")]) == 0, capsys.readouterr().out
    assert "2 passed, 0 failed" in capsys.readouterr().out


def test_match_across_examples_are_lists_of_selected_values(tmp_path, capsys):
    policy = POLICY.replace("assert: has(self.mtu) && self.mtu >= 9000", "template: match-across\n    params: {field: mtu}")
    good = policy + "    examples:\n      pass: [[{mtu: 9216}, {mtu: 9216}, {name: no-mtu}]]\n" \
                    "      fail: [[{mtu: 9216}, {mtu: 1500}]]\n"
    write_repo(tmp_path, {"good.yaml": good, "bad.yaml": good.replace("{mtu: 1500}", "{mtu: 9216}"),
                          "shape.yaml": policy + "    examples:\n      pass: [{mtu: 9216}]\n"})
    assert main(["policy", "test", str(tmp_path / "good.yaml")]) == 0
    assert "2 passed, 0 failed" in capsys.readouterr().out
    assert main(["policy", "test", str(tmp_path / "bad.yaml")]) == 1
    assert "ORG001 fail example 1 passes" in capsys.readouterr().out
    assert main(["policy", "test", str(tmp_path / "shape.yaml")]) == 1
    assert "a match-across example is a list" in capsys.readouterr().out


def test_a_null_node_is_skipped_like_a_missing_one(tmp_path):
    """The view writes absent optional sections as null: the inventory below has no `roce` section,
    so NVIDIA's NVR001 (given $.inventory.fabric.roce) has nothing to judge — no NL032 either."""
    write_repo(tmp_path, {"inventory.yaml": INVENTORY, "leaf02.yaml": SWITCH,
                          "netlint.yaml": "policies: [nvidia-roce]\n"})
    from conftest import run_lint

    report = run_lint(tmp_path, select=["NVR001", "NL03"])
    assert report.findings == []


def test_installed_packs_are_found_through_the_wheels_record(tmp_path):
    """A wheel installs rules/*.yaml as data files (<scheme data>/share/netlint/rules): with --user or
    --prefix that is not sys.prefix, so the installed distribution's RECORD says where they went."""
    from importlib.metadata import PathDistribution

    from netlint.policy.files import installed_packs

    site = tmp_path / "lib" / "python3.11" / "site-packages"
    (site / "netlint" / "policy").mkdir(parents=True)
    module = site / "netlint" / "policy" / "files.py"
    module.write_text("")
    (tmp_path / "share" / "netlint" / "rules").mkdir(parents=True)
    (tmp_path / "share" / "netlint" / "rules" / "production.yaml").write_text("rules: []\n")
    info = site / "netlint-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Name: netlint\nVersion: 0.1.0\n")
    (info / "RECORD").write_text("netlint/policy/files.py,,\n../../../share/netlint/rules/production.yaml,,\n")
    dist = PathDistribution(info)
    assert installed_packs(dist, module) == (tmp_path / "share" / "netlint" / "rules").resolve()
    assert installed_packs(dist, tmp_path / "elsewhere" / "files.py") is None  # another copy's metadata


def test_packs_on_the_corpus_are_located_and_agree_with_qos106(shared, tmp_path):
    """All three packs over the shared corpus: every policy loads and runs (no NL03x), and the pack
    watchdog rules report only ports QOS106 also reports off — a rendered SONiC qos.json (the
    watchdog starts from default_pfcwd_status at boot) or a legacy traffic.conf says nothing."""
    import shutil

    from conftest import CORPUS, run_lint

    shutil.copytree(CORPUS, tmp_path / "c")
    (tmp_path / "c" / "netlint.yaml").write_text("policies: [production, nvidia-roce, sonic-default]\n")
    report = run_lint(tmp_path / "c", select=["PRD", "NVR", "SND", "NL03", "QOS106"])
    assert [f for f in report.findings if f.code.startswith("NL")] == []
    off = {f.file for f in report.findings if f.code == "QOS106" and " is off on " in f.message}
    for code in ("PRD003", "NVR005"):
        assert {f.file for f in report.findings if f.code == code} <= off, code
    partial = {f.file for f in report.findings if f.code == "QOS106" and " is off for " in f.message}
    assert {f.file for f in report.findings if f.code == "SND003"} <= partial  # dual-ToR 2,3,4,6 watch 3,4
    assert all(f.span.line >= 1 and f.span.col >= 1 for f in report.findings)
    assert {f.code for f in report.findings} >= {"PRD001", "NVR002", "NVR006", "SND001"}


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


def test_an_example_with_a_field_the_view_does_not_have_fails(tmp_path, capsys):
    """`!has(self.mtu) || …` passes on {mtuu: 1500}: the example would test nothing real."""
    policy = POLICY.replace("has(self.mtu) && self.mtu >= 9000", "'!has(self.mtu) || self.mtu >= 9000'")
    bad = policy + "    examples:\n      pass: [{name: x, mtuu: 1500}]\n      fail: [{name: y, mtu: 1500}]\n"
    nested = policy.replace("ORG001", "ORG002") + \
        "    examples:\n      switch: {nmae: leaf1}\n      pass: [{name: x, watchdog: {enabeld: true}, mtu: 9216}]\n"
    write_repo(tmp_path, {"a.yaml": bad, "b.yaml": nested})
    assert main(["policy", "test", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")]) == 1
    out = capsys.readouterr().out
    assert "ORG001 pass example 1: mtuu: the workspace view has no field 'mtuu' here; did you mean 'mtu'?" in out
    assert "ORG002 examples.switch: nmae: the workspace view has no field 'nmae' here; did you mean 'name'?" in out
    assert "ORG002 pass example 1: watchdog.enabeld:" in out and "1 passed, 3 failed" in out
