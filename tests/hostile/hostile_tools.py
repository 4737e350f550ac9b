"""Run netlint in a subprocess on a hostile repository and read every output format back.

The timeout is a guard against a hang, far above the expected time; no test asserts wall-clock time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

GUARD = 300  # seconds


def alias_bomb() -> str:
    """A 'billion laughs' Kubernetes manifest: eight levels of nine aliases each, about 600 bytes."""
    lines = ["apiVersion: v1", "kind: Pod", "metadata: {name: bomb}", "x:",
             "  a: &a [{name: NCCL_DEBUG, value: WARN}, {name: NCCL_IB_HCA, value: mlx5}]"]
    prev = "a"
    for name in "bcdefghi":
        lines.append(f"  {name}: &{name} [{', '.join(['*' + prev] * 9)}]")
        prev = name
    lines += ["spec:", "  containers:", "  - name: c", "    image: i", "    env: *i"]
    return "\n".join(lines) + "\n"


def reader_limits_nesting() -> bool:
    """Whether the installed libyaml stops at its own nesting limit (1,000 levels, in the PyYAML 6.0.4
    wheels): its scanner reads flow brackets ahead, so it stops before netlint's max-depth counts them
    and the finding is at the reader's position, further on the line."""
    import yaml

    from netlint.parsing import READER_DEPTH_ERROR, READER_MAX_DEPTH

    deep = READER_MAX_DEPTH + 100
    try:
        yaml.compose("[" * deep + "]" * deep, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:
        return READER_DEPTH_ERROR in str(exc)
    except RecursionError:
        return False
    return False


def run(cwd: Path, *args: str, driver: str | None = None) -> subprocess.CompletedProcess:
    """``netlint check ARGS`` (or ``python -c DRIVER ARGS`` when a test patches netlint first)."""
    cmd = [sys.executable, "-c", driver, *args] if driver else [sys.executable, "-m", "netlint", "check", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=GUARD)


def report(cwd: Path, *args: str, driver: str | None = None) -> tuple[dict, subprocess.CompletedProcess]:
    """The JSON report (which must be complete and parse), after checking stderr has no traceback."""
    r = run(cwd, *args, "--format", "json", driver=driver)
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    assert r.returncode in (0, 1, 2), r.stderr[-3000:]
    return json.loads(r.stdout), r


def sarif(cwd: Path, *args: str, driver: str | None = None) -> dict:
    r = run(cwd, *args, "--format", "sarif", driver=driver)
    doc = json.loads(r.stdout)
    assert doc["version"] == "2.1.0" and len(doc["runs"]) == 1
    return doc


def hits(rep: dict, code: str, words: str = "") -> list[dict]:
    return [f for f in rep["findings"] if f["code"] == code and words in f["message"]]


def at(f: dict) -> tuple[str, int, int]:
    return f["file"], f["line"], f["column"]


def shown(rep: dict) -> list[tuple]:
    return [(f["code"], f["file"], f["line"], f["message"][:120]) for f in rep["findings"]]
