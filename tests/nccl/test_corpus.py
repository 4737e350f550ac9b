"""The NCCL corpus: every file loads without a traceback, and netlint's findings are the reviewed ones."""

from __future__ import annotations

import re

from conftest import ROOT, run_lint

LIST = ROOT / "tests" / "corpus_findings_nccl.md"


def _reviewed() -> set[tuple[str, int, int, str]]:
    rows = set()
    for line in LIST.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\|\s*([^|]+?)\s*\|\s*(\d+):(\d+)\s*\|\s*((?:NCCL|XC|ADV|NL)\d+)\s*\|", line)
        if m:
            rows.add((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)))
    return rows


def test_every_corpus_file_loads_alone(shared):
    files = sorted(p for p in (shared / "corpus" / "nccl").rglob("*")
                   if p.is_file() and p.name != "PROVENANCE.md")
    assert len(files) == 16
    for path in files:
        report = run_lint(path)
        assert not [f for f in report.findings if f.code == "NL000"], path
        assert any(e.file.endswith(path.name) for e in report.workspace.nccl_envs), \
            f"{path.name} was not recognised as an NCCL env"


def test_corpus_findings_are_the_reviewed_ones(shared):
    report = run_lint(shared / "corpus" / "nccl")
    # NL findings only where the table lists them (an unread `source` that sets the NCCL env)
    got = {(f.span.file, f.span.line, f.span.col, f.code) for f in report.findings
           if f.code.startswith(("NCCL", "XC", "ADV", "NL"))}
    assert got == _reviewed()


def test_example_env_shows_its_fault():
    report = run_lint(ROOT / "examples")
    hits = [f for f in report.findings if f.file == "nccl/train.env"]
    assert [(f.code, f.span.line, f.span.col) for f in hits] == [("XC601", 7, 12)]
    f = hits[0]
    assert "NCCL_IB_TC=41 marks DSCP 10, but the inventory's RoCE class is DSCP 26" in f.message
    assert {r.span.file for r in f.related} == {"inventory.yaml", "switches/leaf01/config_db.json"}
    assert f.fix.edits[0].replacement == "106" and not f.fix.safe
