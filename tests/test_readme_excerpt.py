"""README's excerpt of ``netlint check examples/`` is what netlint prints for the bundled examples:
every line of it (finding, related location, fix) appears in the output, in the same order."""

from __future__ import annotations

from netlint.cli import main
from tests.conftest import ROOT


def _excerpt() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("From `netlint check examples/`:", 1)[1].split("\n## ", 1)[0]
    return [line[4:] for line in block.splitlines() if line.startswith("    ")]


def test_readme_excerpt_is_the_output(capsys, monkeypatch):
    excerpt = _excerpt()
    assert len(excerpt) >= 5 and any("FAB501" in line for line in excerpt)
    monkeypatch.chdir(ROOT)
    capsys.readouterr()
    main(["check", "examples/"])
    out = capsys.readouterr().out.splitlines()
    positions = [out.index(line) if line in out else -1 for line in excerpt]
    assert -1 not in positions, [line for line, p in zip(excerpt, positions) if p < 0]
    assert positions == sorted(positions)
