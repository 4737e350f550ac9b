"""Shared test helpers: lint a temporary repo and look findings up by code and position."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The public sample files beside the checkout; NETLINT_SHARED points elsewhere (a path that does not
# exist checks that every test needing them skips, and says why, as on a fresh clone).
SHARED = Path(os.environ.get("NETLINT_SHARED") or ROOT.parent / "shared")
CORPUS = SHARED / "corpus"


def write_repo(tmp_path: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (relative path -> text, dedented) under ``tmp_path``."""
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n") if isinstance(text, str) else text,
                        encoding="utf-8") if isinstance(text, str) else path.write_bytes(text)
    return tmp_path


def run_lint(*paths: Path, inventory: Path | None = None, config: Path | None = None,
             select: list[str] | None = None):
    from netlint.engine import Options, lint

    return lint(Options(paths=list(paths), inventory=inventory, config_file=config, select=select, jobs=1))


def lint_repo(tmp_path: Path, files: dict[str, str], **kw):
    write_repo(tmp_path, files)
    return run_lint(tmp_path, **kw)


def mpijob(command: str, slots: int = 8, name: str = "nccl") -> str:
    """A Kubeflow MPIJob whose launcher container runs ``command`` (a YAML flow list, on line 14)."""
    return (f"apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata: {{name: {name}}}\nspec:\n"
            f"  slotsPerWorker: {slots}\n  mpiReplicaSpecs:\n    Launcher:\n      replicas: 1\n      template:\n"
            f"        spec:\n          containers:\n          - name: launcher\n            image: nccl-tests\n"
            f"            command: {command}\n")


def codes(report) -> list[str]:
    return [f.code for f in report.findings]


def only(report, code: str):
    """The single finding with ``code`` (fails the test when there are none or several)."""
    found = [f for f in report.findings if f.code == code]
    assert len(found) == 1, f"expected one {code}, got {[(f.code, f.message) for f in report.findings]}"
    return found[0]


def at(finding) -> tuple[int, int]:
    return finding.span.line, finding.span.col


@pytest.fixture
def shared() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} (the shared sample files) is absent")
    return SHARED
