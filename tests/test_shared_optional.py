"""The suite passes without ../shared (issue 15 point 9): tests that read the shared sample files skip
and say why. NETLINT_SHARED (tests/conftest.py) points the suite at a folder that does not exist."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT

# one test that reads the shared SARIF schema, one beside it that must not, and a parametrised
# test whose parameters are the shared corpus's files
SELECTED = ["tests/policy/test_policy.py::test_user_policy_in_text_and_sarif",
            "tests/policy/test_policy.py::test_user_policy_sarif_is_valid",
            "tests/jobs/test_shell.py::test_corpus_shell_files_evaluate"]


def test_tests_that_need_shared_skip_with_a_reason(tmp_path):
    env = {**os.environ, "NETLINT_SHARED": str(tmp_path / "no-shared")}
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", *SELECTED],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:]
    skipped = [ln for ln in run.stdout.splitlines() if ln.startswith("SKIPPED")]
    assert len(skipped) == 2, run.stdout[-3000:]
    assert all("no-shared" in ln and "is absent" in ln for ln in skipped)
