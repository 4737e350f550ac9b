"""Expensive policies (issue 13): nested macros over 5,000 ports, `workspace` walked for every port, a
regex per node, match-across over 5,000 values. Each ends in a located finding (NL035, or the
policy's own findings) and a complete report — never a hang or gigabytes. The fabric is generated
here; netlint runs in a subprocess whose timeout only guards against a hang (no test asserts time)."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import at, lint_repo, write_repo

GUARD = 300  # seconds: a hang, not a measurement
PORTS = 5000
INVENTORY = """\
cluster: c
nodes: {count: 2, gpus: 8, gpu: H100-SXM}
fabric: {transport: roce, mtu: 9100}
switches:
  - {name: leaf01, config: leaf01.yaml}
"""


def _switch(ports: int, odd: str = "") -> str:
    """A native switch file; port i is on line 7 + i, its name at column 13. Every 7th port has MTU
    1500; ``odd`` names the last port."""
    lines = ["switch: leaf01", "dscp_to_tc: {26: 3, 48: 6}", "pfc:", "  priorities: [3]",
             "  watchdog: {enabled: true, detection_ms: 200, restoration_ms: 400, action: drop}", "ports:"]
    for i in range(ports):
        name = odd if odd and i == ports - 1 else f"Ethernet{i}"
        lines.append(f"  - {{name: {name}, speed: 400G, mtu: {1500 if i % 7 == 0 else 9216}, cable_length: 5}}")
    return "\n".join(lines) + "\n"


def _policy(given: str, check: str) -> str:
    """One policy; its `assert:`/`template:` is on line 5, the expression at column 13."""
    return f"rules:\n  - id: ORG001\n    summary: hostile\n    given: {given}\n    {check}\n"


def _fabric(tmp_path, policy: str, config: str = "policies: [org.yaml]\n", ports: int = PORTS, odd: str = ""):
    write_repo(tmp_path, {"inventory.yaml": INVENTORY, "leaf01.yaml": _switch(ports, odd), "org.yaml": policy,
                          "netlint.yaml": config})


def _report(tmp_path) -> tuple[dict, int]:
    r = subprocess.run([sys.executable, "-m", "netlint", "check", ".", "--select", "ORG,NL", "--format", "json"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=GUARD)
    assert "Traceback" not in r.stderr, r.stderr[-2000:]
    report = json.loads(r.stdout)  # complete: it parses
    return report, r.returncode


def _where(f: dict) -> tuple[str, int, int]:
    return f["file"], f["line"], f["column"]


def _stopped(tmp_path) -> dict:
    """The one finding of the run: NL035 at the policy's check (org.yaml 5:13), exit code 1."""
    report, code = _report(tmp_path)
    (f,) = report["findings"]
    assert f["code"] == "NL035" and _where(f) == ("org.yaml", 5, 13) and code == 1
    return f


def test_nested_macros_over_5000_ports_stop_at_the_budget(tmp_path):
    _fabric(tmp_path, _policy("$.switches[*]", "assert: self.ports.all(a, self.ports.all(b, "
                                               "self.ports[a].speed == self.ports[b].speed))"))
    f = _stopped(tmp_path)
    assert f["message"] == ("ORG001: stopped on node 1 of 1; that is more than limits.policy-budget "
                            "(10,000,000 cost units); macros nested in macros cost size^depth: select the "
                            "inner level with `given` instead")
    assert [(r["file"], r["line"]) for r in f["related"]] == [("leaf01.yaml", 1)]


def test_workspace_walked_for_every_port_is_refused_before_running(tmp_path):
    _fabric(tmp_path, _policy("$.switches[*].ports.*", "assert: workspace.switches.all(s, s.ports.all(k, "
                                                       "s.ports[k].mtu == self.mtu))"))
    f = _stopped(tmp_path)
    assert f["message"].startswith("ORG001: not run: it selects more than ")
    assert "`workspace` is walked again for every selected node: to compare nodes with each other use " \
           "`template: match-across`" in f["message"]


def test_a_workspace_only_part_is_evaluated_once_not_per_port(tmp_path):
    """Per port this walk would cost 5,000 × the workspace; once, it fits a budget of 300,000 units."""
    _fabric(tmp_path, _policy("$.switches[*].ports.*", "assert: workspace.switches.all(s, s.ports.all(k, "
                                                       "s.ports[k].mtu >= 9000))"),
            config="policies: [org.yaml]\nlimits: {policy-budget: 300000}\n")
    report, code = _report(tmp_path)
    assert {f["code"] for f in report["findings"]} == {"ORG001"} and code == 1
    assert len(report["findings"]) == PORTS   # false for the fabric, so for every port
    assert _where(report["findings"][0]) == ("leaf01.yaml", 7, 5)


def test_a_regex_per_node_is_compiled_once_per_policy(tmp_path):
    # \w is Unicode: compiling this takes ~10 ms, which the engine's own matches() paid on every port
    _fabric(tmp_path, _policy("$.switches[*].ports.*", r"template: pattern"
                                                       "\n    params: {field: name, pattern: '^\\w{1,50}\\d*$'}"),
            odd="Ethernet-1")
    report, code = _report(tmp_path)
    (f,) = report["findings"]
    assert f["code"] == "ORG001" and _where(f) == ("leaf01.yaml", 7 + PORTS - 1, 5) and code == 1


def test_regex_cache_in_process(tmp_path, monkeypatch):
    from netlint.policy import cost

    compiled = []
    real = cost.compile_regex
    monkeypatch.setattr(cost, "compile_regex", lambda p: compiled.append(p) or real(p))
    write_repo(tmp_path, {"inventory.yaml": INVENTORY, "leaf01.yaml": _switch(50, odd="eth_x"),
                          "org.yaml": _policy("$.switches[*].ports.*", "assert: self.name.matches('^Eth')"),
                          "netlint.yaml": "policies: [org.yaml]\n"})
    report = lint_repo(tmp_path, {}, select=["ORG"])
    assert [at(f) for f in report.findings] == [(7 + 49, 5)] and compiled == ["^Eth"]


def test_match_across_over_5000_values_names_a_few(tmp_path):
    """Every name differs: a tie, each port reported once, each message naming five values — not
    5,000 values in each of 5,000 messages (396 MB of JSON before)."""
    _fabric(tmp_path, _policy("$.switches[*].ports.*", "template: match-across\n    params: {field: name}"))
    report, code = _report(tmp_path)
    assert len(report["findings"]) == PORTS and code == 1
    first = report["findings"][0]
    assert _where(first) == ("leaf01.yaml", 7, 5)
    assert first["message"] == ("hostile (name is 'Ethernet0'; the selected nodes disagree with no majority: "
                                "'Ethernet0', 'Ethernet1', 'Ethernet10', 'Ethernet100', 'Ethernet1000' and "
                                "4,995 more)")
    assert max(len(f["message"]) for f in report["findings"]) < 200


def test_match_across_majority_points_at_a_holder(tmp_path):
    _fabric(tmp_path, _policy("$.switches[*].ports.*", "template: match-across\n    params: {field: mtu}"),
            ports=20)
    report, _ = _report(tmp_path)
    assert [_where(f) for f in report["findings"]] == [("leaf01.yaml", 7, 41), ("leaf01.yaml", 14, 41),
                                                      ("leaf01.yaml", 21, 42)]
    assert report["findings"][0]["message"] == "hostile (mtu is 1500, most have 9216)"
    assert [(r["line"], r["message"]) for r in report["findings"][0]["related"]] == [(8, "mtu is 9216 here")]


def test_the_budget_is_a_setting(tmp_path):
    policy = _policy("$.switches[*].ports.*", "assert: self.mtu >= 9000")
    _fabric(tmp_path, policy, ports=200, config="policies: [org.yaml]\nlimits: {policy-budget: 1000}\n")
    report, _ = _report(tmp_path)
    (f,) = report["findings"]
    assert f["code"] == "NL035" and _where(f) == ("org.yaml", 5, 13)
    assert f["message"].startswith("ORG001: not run: it selects more than 166 nodes at 6 cost units each; "
                                   "that is more than limits.policy-budget (1,000 cost units)")
    _fabric(tmp_path, policy, ports=200)
    report, _ = _report(tmp_path)
    assert {f["code"] for f in report["findings"]} == {"ORG001"} and len(report["findings"]) == 29


def test_a_budget_below_the_floor_is_a_config_error(tmp_path):
    _fabric(tmp_path, _policy("$.switches[*]", "assert: true"), ports=1,
            config="policies: [org.yaml]\nlimits: {policy-budget: 10}\n")
    r = subprocess.run([sys.executable, "-m", "netlint", "check", "."], cwd=tmp_path, capture_output=True,
                       text=True, timeout=GUARD)
    assert "NL008" in r.stdout + r.stderr and "policy-budget" in r.stdout + r.stderr
