"""Rule docs travel with the tool: `netlint rule`, SARIF help and the committed docs/rules pages carry
the full docs with public sources; helpUri links only to those pages, under the configured docs-url."""

from __future__ import annotations

import json
import re

import pytest

from inttools import ROOT, _not_on_github, cli, copy_examples  # noqa: F401
from netlint import rule_pages
from netlint.reporters.sarif import rule_descriptor
from netlint.rules.base import load_rules

INTERNAL = re.compile(r"research/|\.\./shared|(?<![\w-])shared/|\b(jobs|switch-qos|nccl|modeling|linter-anchors)\.md\b")
RULES = load_rules()
DOCS_URL = "https://github.com/acme/netlint/blob/0123abc/docs/rules"


def test_committed_pages_are_the_generated_ones():
    stale = rule_pages.drift()
    assert stale == [], f"run `python -m netlint.rule_pages`: {stale}"


def test_a_rule_registered_outside_netlint_gets_no_page():
    from netlint.rules.base import REGISTRY, Rule

    class Outside(Rule):
        """Test-only rule."""

        code, name, summary = "ZZ802", "outside-rule", "registered by a test"

    try:
        assert "ZZ802.md" not in rule_pages.expected_pages()
        assert rule_pages.drift() == [] or "ZZ802.md" not in rule_pages.drift()
    finally:
        REGISTRY.pop("ZZ802", None)


def test_drift_sees_a_stale_a_missing_and_a_left_over_page(tmp_path):
    assert rule_pages.main([str(tmp_path)]) == 0
    assert rule_pages.drift(tmp_path) == []
    (tmp_path / "QOS101.md").write_text("old\n", encoding="utf-8")
    (tmp_path / "NL001.md").unlink()
    (tmp_path / "QOS999.md").write_text("gone\n", encoding="utf-8")
    assert set(rule_pages.drift(tmp_path)) == {"QOS101.md", "NL001.md", "QOS999.md"}
    assert rule_pages.main(["--check", str(tmp_path)]) == 1
    rule_pages.write(tmp_path)
    assert rule_pages.drift(tmp_path) == [] and not (tmp_path / "QOS999.md").exists()


@pytest.mark.parametrize("code", list(RULES))
def test_every_channel_carries_the_full_docs_without_internal_notes(code):
    cls = RULES[code]
    page = (ROOT / "docs" / "rules" / f"{code}.md").read_text(encoding="utf-8")
    help_ = rule_descriptor(cls)["help"]
    for where, text in (("docs", cls.docs()), ("page", page), ("sarif help.markdown", help_["markdown"]),
                        ("sarif help.text", help_["text"])):
        hit = INTERNAL.search(text)
        assert hit is None, f"{code} {where} cites {hit.group(0)!r}"
    last = cls.docs().strip().splitlines()[-1].strip()  # the end of the docs (usually the sources)
    assert last in page and last in help_["markdown"] and last in help_["text"]


def test_internal_pattern_can_fail():
    assert INTERNAL.search("Source: research/nccl.md §2") and INTERNAL.search("see ../shared/corpus")
    assert INTERNAL.search("copy of shared/reference/nccl-env.tsv")
    assert not INTERNAL.search("NCCL_NET_SHARED_BUFFERS; a shared-memory carveout")


def test_nothing_installed_cites_internal_notes():
    """Module docs and data ship in the package too: they name the public source, not the notes."""
    package = ROOT / "netlint"
    hits = [f"{path.relative_to(ROOT)}:{n}"
            for path in sorted(package.rglob("*")) if path.suffix in (".py", ".tsv", ".yaml", ".json", ".md")
            for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
            if INTERNAL.search(line)]
    assert hits == []


def test_packs_do_not_cite_internal_notes():
    for pack in sorted((ROOT / "rules").glob("*.yaml")):
        hit = INTERNAL.search(pack.read_text(encoding="utf-8"))
        assert hit is None, f"{pack.name} cites {hit.group(0)!r}"


def test_indented_examples_become_fenced_code():
    md = rule_pages.to_markdown("Bad (x):\n    a: 1\n    b: 2\nGood:\n    a: 3\n\nWhy: because.")
    assert md == "Bad (x):\n```\na: 1\nb: 2\n```\nGood:\n```\na: 3\n```\n\nWhy: because."
    # a list item's continuation is not code
    assert "```" not in rule_pages.to_markdown("- one thing,\n      carried on\n")


def test_no_help_uri_without_docs_url(tmp_path, capsys):
    repo = copy_examples(tmp_path / "repo")
    rc, out, _ = cli(capsys, "check", "--format", "sarif", repo)
    assert rc == 1
    driver = json.loads(out)["runs"][0]["tool"]["driver"]
    assert driver["rules"] and "informationUri" not in driver
    for rule in driver["rules"]:
        assert "helpUri" not in rule and "netlint.dev" not in json.dumps(rule)
        assert "[Rule documentation]" not in rule["help"]["markdown"]


def test_help_uri_points_at_a_committed_page_under_docs_url(tmp_path, capsys):
    repo = copy_examples(tmp_path / "repo")
    with (repo / "netlint.yaml").open("a", encoding="utf-8") as fh:
        fh.write(f"docs-url: {DOCS_URL}/\n")
    rc, out, _ = cli(capsys, "check", "--format", "sarif", repo)
    assert rc == 1
    driver = json.loads(out)["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == f"{DOCS_URL}/"
    assert driver["rules"]
    for rule in driver["rules"]:
        assert rule["helpUri"] == f"{DOCS_URL}/{rule['id']}.md"
        assert (ROOT / "docs" / "rules" / f"{rule['id']}.md").is_file()
        assert rule["help"]["markdown"].endswith(f"[Rule documentation]({DOCS_URL}/{rule['id']}.md)")


def test_netlint_rule_prints_full_docs_and_links_only_when_configured(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rc, out, _ = cli(capsys, "rule", "qos101")
    assert rc == 0
    assert out.startswith("# QOS101 ") and "Source:" in out and "IEEE 802.1Qbb" in out
    assert "Docs:" not in out and "netlint.dev" not in out
    (tmp_path / "netlint.yaml").write_text(f"docs-url: {DOCS_URL}\n", encoding="utf-8")
    rc, out, _ = cli(capsys, "rule", "QOS101")
    assert rc == 0 and out.rstrip().endswith(f"Docs: {DOCS_URL}/QOS101.md")


def test_docs_url_must_be_a_web_address(tmp_path, capsys):
    (tmp_path / "netlint.yaml").write_text("docs-url: docs/rules\n", encoding="utf-8")
    (tmp_path / "inventory.yaml").write_text("cluster: c\n", encoding="utf-8")
    rc, _, err = cli(capsys, "check", tmp_path)
    assert rc == 2
    assert re.search(r"netlint\.yaml:1:1: NL008 config docs-url: .*https\?://", err), err
