"""SARIF 2.1.0: valid against the OASIS schema, complete for GitHub code scanning, within its limits."""

from __future__ import annotations

import json
import subprocess

import pytest

from inttools import INVENTORY, _not_on_github, cli, copy_examples, sarif_validator, write  # noqa: F401

GITHUB_RULE_NAME, GITHUB_TEXT, GITHUB_TAGS, GITHUB_RESULTS = 255, 1024, 20, 25_000


def _sarif(capsys, *args) -> tuple[int, dict]:
    rc, out, _ = cli(capsys, "check", "--format", "sarif", *args)
    return rc, json.loads(out)


def _strings(node):
    if isinstance(node, dict):
        for v in node.values():
            yield from _strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v)
    elif isinstance(node, str):
        yield node


def check_github_rules(log: dict) -> None:
    """What GitHub code scanning requires or limits (research/linter-anchors.md §2a)."""
    assert log["version"] == "2.1.0" and log["$schema"]
    assert 1 <= len(log["runs"]) <= 20
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "netlint" and driver["version"]
    assert driver.get("informationUri", "https://").startswith("https://")  # only with docs-url
    rules = driver["rules"]
    ids = [r["id"] for r in rules]
    assert len(ids) == len(set(ids)) and len(rules) <= 25_000
    for r in rules:
        assert r["shortDescription"]["text"] and len(r["shortDescription"]["text"]) <= GITHUB_TEXT
        assert r["fullDescription"]["text"] and len(r["fullDescription"]["text"]) <= GITHUB_TEXT
        assert r["help"]["text"] and r["help"]["markdown"]
        assert 0 < len(r["name"]) <= GITHUB_RULE_NAME
        assert r.get("helpUri", "https://").startswith("https://")
        assert r["defaultConfiguration"]["level"] in ("note", "warning", "error")
        assert len(r["properties"]["tags"]) <= GITHUB_TAGS
        assert r["properties"]["problem.severity"] in ("error", "warning", "recommendation")
    results = run["results"]
    assert len(results) <= GITHUB_RESULTS
    assert run["columnKind"] == "utf16CodeUnits"
    base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert base.startswith("file:///") and base.endswith("/")
    for res in results:
        assert res["ruleId"] in ids, "every ruleId has rules metadata"
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["message"]["text"]
        assert res["level"] in ("note", "warning", "error")
        assert 1 <= len(res["locations"]) <= 1000
        phys = res["locations"][0]["physicalLocation"]
        uri = phys["artifactLocation"]["uri"]
        assert phys["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert not uri.startswith(("/", "file:")) and "\\" not in uri and ".." not in uri.split("/")
        reg = phys["region"]
        assert reg["startLine"] >= 1 and reg["startColumn"] >= 1 and reg["endLine"] >= reg["startLine"]
        if reg["endLine"] == reg["startLine"]:
            assert reg["endColumn"] > reg["startColumn"]
        fp = res["partialFingerprints"]
        assert "primaryLocationLineHash" not in fp, "left to upload-sarif"
        assert fp["netlintFingerprint/v1"]
        for rel in res.get("relatedLocations", []):
            assert f"]({rel['id']})" in res["message"]["text"]
    assert all(s != "" for s in _strings(log)), "GitHub rejects empty strings"


def test_examples_sarif_is_valid_and_complete(tmp_path, capsys):
    validator = sarif_validator()
    repo = copy_examples(tmp_path / "repo")
    rc, log = _sarif(capsys, repo)
    errors = sorted(validator.iter_errors(log), key=lambda e: e.path)
    assert not errors, errors[0].message
    check_github_rules(log)
    run = log["runs"][0]
    assert run["invocations"][0]["exitCode"] == rc
    assert run["invocations"][0]["executionSuccessful"] is True
    # rules[] is exactly the set of rules used
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} == {r["ruleId"] for r in run["results"]}


def test_suppressed_findings_are_left_out_unless_asked(tmp_path, capsys):
    validator = sarif_validator()
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: {}  # netlint: disable=NL004 -- legacy key\nfabrak: {}\n"})
    rc, log = _sarif(capsys, tmp_path)
    results = log["runs"][0]["results"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results] == [("NL004", 5)]
    assert "suppressions" not in results[0]
    rc, log = _sarif(capsys, tmp_path, "--sarif-include-suppressed")
    assert not list(validator.iter_errors(log))
    sup = [r for r in log["runs"][0]["results"] if "suppressions" in r]
    assert len(sup) == 1
    assert sup[0]["suppressions"] == [{"kind": "inSource", "status": "accepted", "justification": "legacy key"}]


def test_fixes_and_related_locations(tmp_path, capsys):
    validator = sarif_validator()
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: {}  # netlint: disable=NL004,NL009 -- x\n"})
    rc, log = _sarif(capsys, tmp_path)
    assert not list(validator.iter_errors(log))
    (res,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "NL020"]
    (fix,) = res["fixes"]
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"] == {"uri": "inventory.yaml", "uriBaseId": "%SRCROOT%"}
    (rep,) = change["replacements"]
    assert rep["deletedRegion"]["startLine"] == 4 and rep["insertedContent"]["text"].endswith("disable=NL004 -- x")


def test_related_locations_are_linked_from_the_message(tmp_path, capsys):
    repo = copy_examples(tmp_path / "repo")
    rc, log = _sarif(capsys, repo)
    with_related = [r for r in log["runs"][0]["results"] if r.get("relatedLocations")]
    if not with_related:
        pytest.skip("no finding with related locations in examples/ today")
    res = with_related[0]
    assert [loc["id"] for loc in res["relatedLocations"]] == list(range(1, len(res["relatedLocations"]) + 1))
    assert all(loc["message"]["text"] for loc in res["relatedLocations"])


def test_fingerprint_is_line_independent(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: {}\n"})
    _, before = _sarif(capsys, tmp_path)
    write(tmp_path, {"inventory.yaml": INVENTORY + "# moved\n" * 10 + "fabrik: {}\n"})
    _, after = _sarif(capsys, tmp_path)
    (b,), (a,) = before["runs"][0]["results"], after["runs"][0]["results"]
    assert b["locations"][0]["physicalLocation"]["region"]["startLine"] == 4
    assert a["locations"][0]["physicalLocation"]["region"]["startLine"] == 14
    assert a["partialFingerprints"] == b["partialFingerprints"]


def test_columns_are_utf16_code_units(tmp_path, capsys):
    # '🙂' is one code point but two UTF-16 code units: the second key starts 1 unit later in SARIF.
    write(tmp_path, {"inventory.yaml": INVENTORY.replace("{transport: roce}", '{"🙂": 1, transport: roce, trasport: x}')})
    rc, out, _ = cli(capsys, "check", "--format", "json", tmp_path)
    cols = {f["message"]: f["column"] for f in json.loads(out)["findings"] if f["code"] == "NL004"}
    (text_col,) = [c for m, c in cols.items() if "trasport" in m]
    _, log = _sarif(capsys, tmp_path)
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in log["runs"][0]["results"]
               if "trasport" in r["message"]["text"]]
    assert regions[0]["startColumn"] == text_col + 1


def test_paths_are_relative_to_the_repository_root(tmp_path, capsys):
    # The netlint config sits in a subfolder of the git repository: GitHub wants repo-relative URIs.
    repo = tmp_path / "repo"
    copy_examples(repo / "infra")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _, log = _sarif(capsys, repo / "infra")
    run = log["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]}
    assert uris and all(u.startswith("infra/") for u in uris)


def test_results_capped_most_severe_first(tmp_path, capsys, monkeypatch):
    from netlint.reporters import sarif

    monkeypatch.setattr(sarif, "MAX_RESULTS", 1)
    # one error (NL004) and one warning (NL009, duplicate key)
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: {}\ncluster: d\n"})
    _, log = _sarif(capsys, tmp_path)
    run = log["runs"][0]
    assert [r["ruleId"] for r in run["results"]] == ["NL004"]
    note = run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"]
    assert note.startswith("1 less severe results were left out")
    sarif_validator().validate(log)


def test_rule_unknown_to_the_registry_still_gets_a_descriptor(tmp_path):
    from netlint.engine import Options, lint
    from netlint.findings import Finding, Severity
    from netlint.located import Span
    from netlint.reporters import sarif

    write(tmp_path, {"inventory.yaml": INVENTORY})
    report = lint(Options(paths=[tmp_path], jobs=1))
    report.findings.append(Finding("ORG001", "PFC watchdog is off", Span("inventory.yaml", 1, 1, 1, 8),
                                   Severity.WARNING, key="org"))
    log = sarif.build(report, None)
    errors = [e.message for e in sarif_validator().iter_errors(log)]
    assert errors == [], "the log is valid SARIF 2.1.0"
    check_github_rules(log)  # asserts GitHub's requirements on every descriptor and result
    run = log["runs"][0]
    (result,) = [r for r in run["results"] if r["ruleId"] == "ORG001"]
    descriptor = run["tool"]["driver"]["rules"][result["ruleIndex"]]
    assert descriptor["id"] == "ORG001" and descriptor["name"] == "org001"
    assert descriptor["shortDescription"]["text"].startswith("ORG001")
    assert descriptor["defaultConfiguration"]["level"] == result["level"] == "warning"


def test_exit_code_recorded_in_invocation(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY + "fabrik: {}\n"})
    out = tmp_path / "out.sarif"
    rc, _, _ = cli(capsys, "check", "--format", "text", tmp_path, "--sarif-file", out)
    assert rc == 1
    assert json.loads(out.read_text())["runs"][0]["invocations"][0]["exitCode"] == 1
    rc, _, _ = cli(capsys, "check", "-q", tmp_path, "--exit-zero", "--sarif-file", out)
    assert rc == 0
    log = json.loads(out.read_text())
    assert log["runs"][0]["invocations"][0]["exitCode"] == 0 and len(log["runs"][0]["results"]) == 1


def test_examples_suppressed_finding_is_not_in_sarif(tmp_path, capsys):
    """Acceptance: suppress one finding of examples/ inline; it leaves the SARIF (by fingerprint)."""
    repo = copy_examples(tmp_path / "repo")
    _, log = _sarif(capsys, repo)
    results = log["runs"][0]["results"]

    def file_of(r):
        return r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]

    order = (".env", ".sh", ".yaml", ".yml")
    candidates = sorted((r for r in results if file_of(r).endswith(order)),
                        key=lambda r: [file_of(r).endswith(s) for s in order].index(True))
    if not candidates:
        pytest.skip("no finding in a file with comments in examples/ today")
    target = candidates[0]
    path = repo / file_of(target)
    line = target["locations"][0]["physicalLocation"]["region"]["startLine"]
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    indent = lines[line - 1][: len(lines[line - 1]) - len(lines[line - 1].lstrip())]
    lines.insert(line - 1, f"{indent}# netlint: disable={target['ruleId']} -- accepted in this test\n")
    path.write_text("".join(lines), encoding="utf-8")
    _, after = _sarif(capsys, repo)
    sarif_validator().validate(after)
    fps = [r["partialFingerprints"]["netlintFingerprint/v1"] for r in after["runs"][0]["results"]]
    assert target["partialFingerprints"]["netlintFingerprint/v1"] not in fps
    assert len(fps) == len(results) - sum(
        1 for r in results if r["ruleId"] == target["ruleId"] and file_of(r) == file_of(target)
        and r["locations"][0]["physicalLocation"]["region"]["startLine"] == line)
    _, included = _sarif(capsys, repo, "--sarif-include-suppressed")
    sup = [r for r in included["runs"][0]["results"] if r.get("suppressions")]
    assert target["partialFingerprints"]["netlintFingerprint/v1"] in \
        [r["partialFingerprints"]["netlintFingerprint/v1"] for r in sup]
