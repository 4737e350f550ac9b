"""Lint a drawn repository in-process and check the properties every input must keep: no NL000
(no exception reached the engine's guards), and every output format renders; JSON and SARIF parse."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from types import SimpleNamespace

from hypothesis import HealthCheck, settings

# CI: a few hundred deterministic examples per family; NETLINT_FUZZ_EXAMPLES=100000 for a long run.
EXAMPLES = int(os.environ.get("NETLINT_FUZZ_EXAMPLES", "200"))
LONG = "NETLINT_FUZZ_EXAMPLES" in os.environ
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=not LONG, database=None, print_blob=True,
                suppress_health_check=list(HealthCheck))  # CI judges crashes, not generator speed


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", errors="surrogatepass")


def lint_repo(files: dict[str, str]):
    """The report of ``netlint check`` on ``files``, after checking the properties."""
    from netlint.engine import Options, lint
    from netlint.reporters import render

    with tempfile.TemporaryDirectory(prefix="netlint-fuzz-") as tmp:
        root = Path(tmp)
        write(root, files)
        report = lint(Options(paths=[root], jobs=1))
        internal = [f for f in report.findings if f.code == "NL000"]
        assert not internal, f"{internal[0].message}\n{internal[0].extra.get('traceback', '')}"
        options = SimpleNamespace(statistics=True, exit_code=1, sarif_include_suppressed=False)
        json.loads(render("json", report, options))
        sarif = json.loads(render("sarif", report, options))
        assert sarif["runs"][0]["invocations"][0]["executionSuccessful"] is True
        render("text", report, options)
        render("github", report, options)
        return report
