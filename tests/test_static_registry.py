"""The static registry (netlint/registry.py) says what the loader and rule classes say, and a run that
imports only the rules whose needs the workspace meets finds exactly what the full rule set finds."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from netlint import registry
from netlint.loaders.base import load_loaders
from netlint.rules.base import load_rules

REPO = Path(__file__).resolve().parent.parent
NAMES = ["train.env", ".env", ".env.prod", "environment", "nccl.environment", "Dockerfile", "app.Dockerfile",
         "Containerfile.gpu", "requirements.txt", "constraints.in", "run.sh", "job.sbatch", "x.slurm", "hopper.conf",
         "nccl.conf", "traffic.conf", ".envrc", "launch", "mlxconfig", "ecn.out", "qos.log", "config_db.json",
         "ds_config.json", "a.hjson", "values.yaml", "inventory.yaml", "inventory.yml", "x.yml", "x.tpl",
         "llama.toml", "hostfile", "hosts", "x.hostfile", "sku.ini", "README.md", "notes.txt", "Makefile", "x.py"]


def test_regenerating_the_registry_gives_the_committed_data():
    assert registry.generate() == registry.DATA.read_text(encoding="utf-8"), \
        "netlint/registry_data.py is stale: run python -m netlint.registry"


@pytest.mark.parametrize("name", NAMES)
def test_registry_asks_the_same_question_as_the_loaders(name):
    suffix = Path(name).suffix.lower()
    expected = [l.name for l in load_loaders().values() if l.wants(name, suffix)]
    assert registry.wanting(name, suffix) == expected
    assert registry.wants_any(name, suffix) is bool(expected)
    assert [l.name for l in registry.loaders_for(name, suffix)] == expected
    assert registry.owns_name(name) is any(name in l.filenames for l in load_loaders().values())


def test_needs_of_every_rule_name_known_kinds():
    known = {"inventory", "switches", "nics", "nccl_envs", "jobs", "templates", "pins", "runs", "nccl-version"}
    for code, _module, needs in registry._data().RULES:
        assert all(group and set(group) <= known for group in needs), code


def _fixture_dirs() -> list[Path]:
    dirs = [REPO / "examples", REPO / "tests" / "run" / "fixtures", REPO / "tests" / "nic" / "fixtures"]
    dirs += sorted(p for p in (REPO / "tests" / "rules").glob("*/*/*") if p.is_dir())
    return [d for d in dirs if d.is_dir()]


@pytest.mark.parametrize("folder", _fixture_dirs(), ids=lambda p: str(p.relative_to(REPO)))
def test_a_rule_left_out_for_its_needs_finds_nothing(folder):
    """Every rule whose needs the workspace does not meet, run anyway, finds nothing in it."""
    from netlint.engine import Options, lint

    ws = lint(Options(paths=[folder])).workspace
    kinds = registry.present(ws)
    chosen = registry.rules_for(ws)
    for code, rule_cls in load_rules().items():
        if code in chosen or rule_cls.engine_only:
            continue
        assert not registry.meets(registry._needs_of(rule_cls), kinds)
        view = copy.copy(ws)
        view.cache = {}
        assert list(rule_cls().check(view)) == [], f"{code} has findings without its needs {kinds}"


def test_a_rule_registered_outside_the_package_still_runs(tmp_path):
    from netlint.rules.base import REGISTRY, Rule

    class Outside(Rule):
        """Test-only rule (tests/test_registry.py)."""

        code, name, summary, needs = "ZZ801", "outside-rule", "registered by a test", ()

    try:
        from netlint.workspace import Workspace
        from netlint.config import Config

        ws = Workspace(root=tmp_path, config=Config(root=tmp_path))
        assert "ZZ801" in registry.rules_for(ws)
    finally:
        REGISTRY.pop("ZZ801", None)
