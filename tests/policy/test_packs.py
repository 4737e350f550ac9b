"""The built-in packs (rules/*.yaml): each rule cites a public source and has examples; they ship in the
wheel; on the examples and the shared corpus they report true things, at the right place."""

from conftest import ROOT, write_repo
from policy_repo import INVENTORY, SWITCH


def test_builtin_pack_on_the_examples(tmp_path):
    import shutil

    shutil.copytree(ROOT / "examples", tmp_path / "ex", ignore=shutil.ignore_patterns(".netlint_cache"))
    (tmp_path / "ex" / "netlint.yaml").write_text("inventory: inventory.yaml\npolicies: [production, nvidia-roce]\n")
    from conftest import run_lint

    report = run_lint(tmp_path / "ex", select=["PRD", "NVR", "NL03"])
    got = {(f.code, f.file, f.span.line) for f in report.findings}
    assert ("NVR006", "nccl/train.env", 7) in got            # NCCL_IB_TC=41
    assert ("PRD003", "switches/leaf02.yaml", 18) in got     # watchdog off on a lossless port
    assert not [f for f in report.findings if f.code.startswith("NL")]


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
            assert p.policy.docs is not None and cites_public_source(p.policy.docs.value), p.code
            assert p.policy.examples is not None and p.policy.examples.pass_ and p.policy.examples.fail, p.code


def cites_public_source(docs: str) -> bool:
    """User docs cite a public source (repo@commit, a URL, an RFC/IEEE standard, a vendor guide, an
    issue thread, a paper), never the team's internal notes."""
    import re

    if re.search(r"research/|\.\./shared|§", docs):
        return False
    return bool(re.search(r"\b[\w.-]+/[\w.-]+@[0-9a-f]{7,40}\b|https?://|\bRFC \d+|IEEE 802\.1|User Guide"
                          r"|\b[\w.-]+/[\w.-]+#\d+|SIGCOMM", docs))


def test_cites_public_source_can_fail():
    assert not cites_public_source("SONiC renders pfc_enable 3,4 (research/switch-qos.md §1a).")
    assert not cites_public_source("SONiC renders pfc_enable 3,4 on every port.")
    assert not cites_public_source("see sonic-net/sonic-buildimage@086b03bd qos_config.j2 and research/switch-qos.md")
    assert cites_public_source("SONiC renders pfc_enable 3,4 (sonic-net/sonic-buildimage@086b03bd qos_config.j2 L470).")


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
