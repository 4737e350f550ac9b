"""Policy files come from the project or the built-in packs (issue 13): a path outside is NL030 at
the config entry that names it and is never read; a file that is no policy is quoted in at most a
short escaped excerpt — in every output format."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import at, only, run_lint, write_repo
from policy_repo import INVENTORY, POLICY, SWITCH

SECRET = "top: s3cret-token-1234\n" + "more: [1, 2\n"  # also a YAML that does not parse
REFUSED = "netlint reads policy files only below the folder of its config and from its built-in packs; not read"


def _project(tmp_path, config: str, name: str = "netlint.yaml"):
    """tmp_path/proj is the project; tmp_path/secret.yaml is outside it."""
    (tmp_path / "secret.yaml").write_text(SECRET)
    proj = write_repo(tmp_path / "proj", {"inventory.yaml": INVENTORY, "leaf02.yaml": SWITCH, "org.yaml": POLICY,
                                          name: config})
    return proj


def _outputs(proj) -> str:
    """Every format's output, for checking nothing of a refused file leaks."""
    out = []
    for fmt in ("text", "json", "sarif", "github"):
        r = subprocess.run([sys.executable, "-m", "netlint", "check", ".", "--format", fmt], cwd=proj,
                           capture_output=True, text=True, timeout=120)
        assert "Traceback" not in r.stderr
        if fmt in ("json", "sarif"):
            json.loads(r.stdout)
        out.append(r.stdout + r.stderr)
    return "\n".join(out)


@pytest.mark.parametrize("entry, column, why", [
    ("/etc/passwd", 13, "is outside the project"),
    ("../secret.yaml", 13, "is outside the project"),
    ("sub/../../secret.yaml", 13, "is outside the project"),
    ("link.yaml", 13, "is a link to a file outside the project"),
])
def test_a_policy_outside_the_project_is_refused_at_its_entry(tmp_path, entry, column, why):
    proj = _project(tmp_path, f"policies: ['{entry}', org.yaml]\n")
    (proj / "sub").mkdir()
    os.symlink(tmp_path / "secret.yaml", proj / "link.yaml")
    report = run_lint(proj, select=["NL", "ORG"])
    f = only(report, "NL030")
    assert (f.file, *at(f)) == ("netlint.yaml", 1, column)
    assert f.message == f"policy '{entry}' {why}: {REFUSED}"
    assert "ORG001" in [x.code for x in report.findings]  # the policy inside still runs
    text = _outputs(proj)
    assert "s3cret" not in text and "root:x:0" not in text and "more: [1, 2" not in text


def test_in_pyproject_the_entry_is_located_too(tmp_path):
    proj = _project(tmp_path, '[tool.netlint]\npolicies = ["org.yaml", "../secret.yaml"]\n', "pyproject.toml")
    f = only(run_lint(proj, select=["NL"]), "NL030")
    assert (f.file, *at(f)) == ("pyproject.toml", 2, 26) and "is outside the project" in f.message


def test_a_policy_folder_keeps_its_files_inside(tmp_path):
    proj = _project(tmp_path, "policies: [rules/]\n")
    (proj / "rules").mkdir()
    (proj / "rules" / "org.yaml").write_text(POLICY)
    os.symlink(tmp_path / "secret.yaml", proj / "rules" / "leak.yaml")
    os.mkfifo(proj / "rules" / "pipe.yaml")  # reading it would block forever
    report = run_lint(proj, select=["NL", "ORG"])
    refused = sorted((f.message, *at(f)) for f in report.findings if f.code == "NL030")
    assert refused == [
        ("policy folder 'rules/': 'leak.yaml' is a link to a file outside the project; not read", 1, 12),
        ("policy folder 'rules/': 'pipe.yaml' is not a regular file (a FIFO, device or socket); not read", 1, 12)]
    assert "ORG001" in [x.code for x in report.findings]
    assert "s3cret" not in _outputs(proj)


def test_a_link_inside_the_project_is_followed(tmp_path):
    proj = _project(tmp_path, "policies: [alias.yaml]\n")
    os.symlink(proj / "org.yaml", proj / "alias.yaml")
    assert "ORG001" in [f.code for f in run_lint(proj, select=["NL", "ORG"]).findings]


def test_a_file_that_is_no_policy_is_quoted_short(tmp_path):
    """A text file named as a policy reads as one long YAML string: NL005 quotes its start only."""
    notes = "root:x:0:0:root:/root:/bin/bash\n" * 40
    proj = _project(tmp_path, "policies: [./notes.txt]\n")
    (proj / "notes.txt").write_text(notes)
    f = only(run_lint(proj, select=["NL"]), "NL005")
    assert (f.file, *at(f)) == ("notes.txt", 1, 1)
    assert f.message == ("a policy file must be a mapping, found str 'root:x:0:0:root:/root:/bin/bash "
                         "root:x:0:0:root:/root:/bin…")
    text = _outputs(proj)
    assert text.count("root:x:0:0") == 8 and notes[:70].replace("\n", " ") not in text  # 60 characters per format


def test_a_parse_error_of_a_file_that_is_no_policy_is_short(tmp_path):
    proj = _project(tmp_path, "policies: [./data.yaml]\n")
    (proj / "data.yaml").write_text("k: *" + "a" * 5000 + "\n")  # an alias name 5,000 characters long
    f = only(run_lint(proj, select=["NL"]), "NL003")
    assert (f.file, *at(f)) == ("data.yaml", 1, 4) and len(f.message) == len("YAML does not parse: ") + 120 and f.message.endswith("…")


def test_a_long_value_in_a_policy_file_is_quoted_short(tmp_path):
    proj = _project(tmp_path, "policies: [org.yaml]\n")
    (proj / "org.yaml").write_text('rules: "' + "x\\u202e" * 2000 + '"\n')
    f = only(run_lint(proj, select=["NL"]), "NL005")
    assert (f.file, *at(f)) == ("org.yaml", 1, 8)
    assert f.message == "rules: Input should be a valid list (got 'x\\u202ex\\u202ex\\u202ex\\u202ex\\u202ex\\u202ex\\u202ex\\u202ex\\…)"


@pytest.mark.parametrize("check, code", [("self.name", "NL034"), ("self.maps[self.name] == 'x'", "NL032")])
def test_values_from_the_files_are_quoted_short_in_runtime_findings(tmp_path, check, code):
    """The engine quotes a missing key whole, and an expression may give a whole port name back: a
    5,000-character port name appears cut to 60 characters."""
    long = "E" * 5000
    proj = _project(tmp_path, "policies: [org.yaml]\n")
    (proj / "leaf02.yaml").write_text(SWITCH.replace("Ethernet4", long))
    (proj / "org.yaml").write_text(POLICY.lstrip().replace("has(self.mtu) && self.mtu >= 9000", f'"{check}"'))
    report = run_lint(proj, select=["NL"])
    found = [f for f in report.findings if f.code == code]
    assert [(f.file, *at(f)) for f in found] == [("org.yaml", 5, 13)] * 2
    assert max(len(f.message) for f in found) < 400 and "E" * 61 not in "".join(f.message for f in found)
