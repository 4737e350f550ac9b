"""`netlint policy test [PATH]`: every policy's examples are run, like `conftest verify`."""

from conftest import ROOT, write_repo
from netlint.cli import main
from policy_repo import POLICY


def test_policy_test_passes_on_the_packs(capsys):
    assert main(["policy", "test", str(ROOT / "rules")]) == 0
    assert " 0 failed" in capsys.readouterr().out


def test_policy_test_fails_on_a_broken_example(tmp_path, capsys):
    broken = POLICY + "    examples:\n      pass: [{name: x, mtu: 1500}]\n      fail: [{name: y, mtu: 1500}]\n"
    write_repo(tmp_path, {"org.yaml": broken})
    assert main(["policy", "test", str(tmp_path / "org.yaml")]) == 1
    out = capsys.readouterr().out
    assert "ORG001 pass example 1 fails" in out and "1 passed, 1 failed" in out


def test_policy_test_points_at_the_broken_example_and_fails_on_a_bad_policy(tmp_path, capsys):
    broken = POLICY + "    examples:\n      fail: [{name: y, mtu: 9216}]\n"
    bad_cel = POLICY.replace("ORG001", "ORG002").replace("self.mtu >= 9000", "self.mtu >=")
    write_repo(tmp_path, {"p/a.yaml": broken, "p/b.yaml": bad_cel})
    assert main(["policy", "test", str(tmp_path / "p")]) == 1
    out = capsys.readouterr().out
    assert f"{tmp_path / 'p' / 'a.yaml'}:8:14: ORG001 fail example 1 passes" in out
    assert "b.yaml:5:" in out and "NL031" in out and "0 passed, 2 failed" in out


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


def test_without_paths_it_tests_the_configured_policies(tmp_path, monkeypatch, capsys):
    broken = POLICY + "    examples:\n      pass: [{name: x, mtu: 1500}]\n"
    write_repo(tmp_path, {"org.yaml": broken, "netlint.yaml": "policies: [org.yaml, production]\n"})
    monkeypatch.chdir(tmp_path)
    assert main(["policy", "test"]) == 1
    out = capsys.readouterr().out
    assert "org.yaml:8:14: ORG001 pass example 1 fails" in out and "PRD" not in out.split("\n")[0]
    assert ", 1 failed" in out and "no examples" not in out  # the production pack's examples ran too
    (tmp_path / "netlint.yaml").write_text("policies: [org.yaml, nosuch]\n")
    assert main(["policy", "test"]) == 1
    assert "netlint.yaml:1:22: NL030 policy 'nosuch' not found" in capsys.readouterr().out
