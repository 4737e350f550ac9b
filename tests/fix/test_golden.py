"""Golden tests: one folder per fixable rule under ``golden/<CODE>/`` (or ``golden/<CODE>/<case>/``)
with ``input.<ext>``, ``expected.<ext>`` and any context files the rule needs (an inventory, a
switch config, ``netlint.yaml``). The folder is copied to a temporary directory, fixed with
``--fix --unsafe-fixes`` restricted to that rule, and ``input.<ext>`` must then equal
``expected.<ext>`` byte for byte, context files must be unchanged, and re-linting must no longer
report the rule on the fixed file. A second fix run must change nothing.

A case may name more rules to run in ``select.txt`` (codes separated by blanks): NL020 (unused
suppression) judges only directives for rules that ran. Those rules must have nothing to fix there."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from netlint.engine import Options, lint
from netlint.fix import run_fixes

GOLDEN = Path(__file__).resolve().parent / "golden"


def cases() -> list[Path]:
    return sorted({p.parent for p in GOLDEN.rglob("input.*")})


def case_id(path: Path) -> str:
    return path.relative_to(GOLDEN).as_posix()


def code_of(case: Path) -> str:
    return case.relative_to(GOLDEN).parts[0]


def copy_case(case: Path, dest: Path) -> dict[str, bytes]:
    """Copy everything but ``expected.*``; return the context files' bytes."""
    context = {}
    for src in sorted(case.rglob("*")):
        rel = src.relative_to(case)
        if src.is_dir() or rel.name.startswith("expected.") or rel.parts[0] in ("__pycache__",):
            continue
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, out)
        if not rel.name.startswith("input."):
            context[rel.as_posix()] = src.read_bytes()
    if not (dest / "netlint.yaml").exists():
        (dest / "netlint.yaml").write_text("# golden test\nselect: []\n")
    return context


@pytest.mark.parametrize("case", cases(), ids=case_id)
def test_golden(case: Path, tmp_path: Path):
    from netlint.rules.base import get_rule

    code = code_of(case)
    if get_rule(code) is None:
        pytest.skip(f"rule {code} is not in this checkout")
    context = copy_case(case, tmp_path)
    inputs = sorted(p.name for p in case.glob("input.*"))
    expected = {p.name.replace("expected.", "input.", 1): p.read_bytes() for p in case.glob("expected.*")}
    assert inputs and set(expected) == set(inputs), f"{case}: every input.* needs an expected.*"
    extra = (case / "select.txt").read_text().split() if (case / "select.txt").exists() else []
    opts = Options(paths=[tmp_path], select=[code, *extra], jobs=1)

    before = lint(opts)
    assert not [f for f in before.findings if f.code in extra and f.fix is not None], "select.txt rules must not fix"
    fixable = [f for f in before.findings if f.code == code and f.file in inputs and f.fix is not None]
    assert fixable, f"{code} reports no fixable finding on {inputs}: {[(f.code, f.message) for f in before.findings]}"

    run = run_fixes(opts, unsafe=True, report=before)
    assert run.converged and not run.notes, run.notes
    assert not [s for s in run.skipped if s.finding.code == code], [s.render() for s in run.skipped]
    for name, want in expected.items():
        got = (tmp_path / name).read_bytes()
        assert got.decode() == want.decode(), f"{case_id(case)}/{name} differs from expected"
        assert got == want
    for rel, data in context.items():
        assert (tmp_path / rel).read_bytes() == data, f"context file {rel} was changed"

    after = lint(opts)
    left = [f for f in after.findings if f.code == code and f.file in inputs]
    assert not left, [f"{f.span}: {f.message}" for f in left]

    again = run_fixes(opts, unsafe=True)
    assert not again.changes and not again.applied


FIX_MARKERS = ("Fix(", "value_fix(", "add_line(", "_add_pfc_fix(", "pfc_edit(")


def test_every_fixable_rule_has_a_golden_case():
    """A rule module that builds fixes (``Fix(`` or the helpers of netlint/nccl/fixes.py and
    netlint/qos/edits.py) needs at least one case under ``golden/<CODE>/``."""
    import inspect

    from netlint.rules.base import REGISTRY, load_rules

    load_rules()
    missing = []
    for code, cls in sorted(REGISTRY.items()):
        module = inspect.getmodule(cls)
        if module is None or not module.__name__.startswith("netlint.rules."):
            continue
        source = inspect.getsource(module)
        if any(m in source for m in FIX_MARKERS) and not any((GOLDEN / code).rglob("input.*")):
            missing.append(code)
    assert not missing, f"fixable rules without a golden case: {missing}"
