"""Rule codes are checked (issue 15 point 1): a typo in --select/--ignore/--extend-select or in the
config's select/ignore/per-file-ignores/severity is NL008, exit 2, with the nearest code, instead of
selecting nothing and passing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from inttools import INVENTORY, _not_on_github, cli, write  # noqa: F401

ERROR = INVENTORY + "fabrik: {}\n"  # NL004 at 4:1


def test_typo_in_select_exits_2_naming_the_code_as_a_user_runs_it(tmp_path):
    write(tmp_path, {"inventory.yaml": INVENTORY})
    run = subprocess.run([sys.executable, "-m", "netlint", "check", ".", "--select", "QOS1O1"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert lines == ["netlint: error: --select: unknown rule code 'QOS1O1'; did you mean 'QOS101'? (NL008)"]


@pytest.mark.parametrize("flag, value, hint", [
    ("--ignore", "NCCL3O1", "NCCL301"),       # letter O for zero
    ("--extend-select", "JBO4", "JOB4"),     # a prefix: the nearest prefix, not a full code
    ("--select", "Q0S", "QOS"),              # zero for letter O in the family
    ("--select", "QOS101,QSO", "QOS"),       # one bad code among good ones
])
def test_typo_in_any_code_flag(tmp_path, capsys, flag, value, hint):
    write(tmp_path, {"inventory.yaml": ERROR})
    rc, out, err = cli(capsys, "check", tmp_path, flag, value)
    assert rc == 2 and out == ""
    assert len(err.splitlines()) == 1
    assert f"{flag}: unknown rule code" in err and f"did you mean '{hint}'?" in err


@pytest.mark.parametrize("value", ["QOS101", "qos1", "NL", "ALL", "NCCL3", "nl004"])
def test_codes_prefixes_all_and_lower_case_are_accepted(tmp_path, capsys, value):
    write(tmp_path, {"inventory.yaml": ERROR})
    rc, _, err = cli(capsys, "check", "-q", tmp_path, "--select", value)
    assert rc in (0, 1) and "NL008" not in err


def test_extend_select_adds_to_the_selection(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": ERROR, "netlint.yaml": "select: [QOS]\n"})
    assert cli(capsys, "check", "-q", tmp_path)[0] == 0             # NL004 not selected
    rc, out, _ = cli(capsys, "check", tmp_path, "--extend-select", "NL004")
    assert rc == 1 and "inventory.yaml:4:1: NL004" in out


def test_config_codes_are_located(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY, "netlint.yaml": (
        "select: [QOS, NCCL3O1]\n"
        "ignore: [JOB4]\n"
        "per-file-ignores:\n"
        "  \"x/*\": [JOB4, JBO4]\n"
        "severity:\n"
        "  QOS1O1: info\n")})
    rc, out, err = cli(capsys, "check", tmp_path)
    assert rc == 2 and out == ""
    cfg = str(tmp_path / "netlint.yaml")
    assert err.splitlines() == [
        f"{cfg}:1:15: NL008 unknown rule code 'NCCL3O1' in select; did you mean 'NCCL301'?",
        f"{cfg}:4:17: NL008 unknown rule code 'JBO4' in per-file-ignores 'x/*'; did you mean 'JOB4'?",
        f"{cfg}:6:3: NL008 unknown rule code 'QOS1O1' in severity; did you mean 'QOS101'?",
    ]


def test_pyproject_codes_are_checked(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY, "pyproject.toml": "[tool.netlint]\nselect = [\"QOS1O1\"]\n"})
    rc, _, err = cli(capsys, "check", tmp_path)
    assert rc == 2
    assert f"{tmp_path / 'pyproject.toml'}:2:1: NL008 unknown rule code 'QOS1O1' in select; " \
           f"did you mean 'QOS101'?" in err


def test_pack_codes_are_known_only_when_the_pack_is_enabled(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY, "netlint.yaml": "ignore: [NVR001]\n"})
    rc, _, err = cli(capsys, "check", tmp_path)
    assert rc == 2
    assert "unknown rule code 'NVR001' in ignore: it is a rule of the built-in pack 'nvidia-roce', " \
           "which is not enabled" in err
    write(tmp_path, {"netlint.yaml": "policies: [nvidia-roce]\nignore: [NVR001]\n"})
    rc, _, err = cli(capsys, "check", tmp_path, "--select", "NVR,NL")
    assert rc == 0 and "NL008" not in err


def test_policy_file_codes_are_known(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY,
                     "netlint.yaml": "policies: [org.yaml]\nseverity: {ORG001: warning}\n",
                     "org.yaml": """\
                        rules:
                          - id: ORG001
                            summary: cluster is named
                            given: $.inventory
                            assert: has(self.cluster)
                            message: "no cluster name"
                        """})
    rc, _, err = cli(capsys, "check", tmp_path, "--select", "ORG")
    assert rc == 0 and "NL008" not in err
    rc, _, err = cli(capsys, "check", tmp_path, "--select", "ORG01O")
    assert rc == 2 and "did you mean 'ORG010'?" not in err and "did you mean 'ORG001'?" in err


def test_a_missing_policy_file_is_said_beside_its_unknown_codes(tmp_path, capsys):
    write(tmp_path, {"inventory.yaml": INVENTORY, "netlint.yaml": "policies: [org.yaml]\nignore: [ORG001]\n"})
    rc, _, err = cli(capsys, "check", tmp_path)
    lines = err.splitlines()
    assert rc == 2 and len(lines) == 2
    assert "NL030 policy 'org.yaml' not found" in lines[0]
    assert lines[1].endswith("NL008 unknown rule code 'ORG001' in ignore (see `netlint rules`)")


@pytest.mark.parametrize("code, says", [
    ("QOS1O1", "unknown rule code 'QOS1O1'; did you mean 'QOS101'?"),
    ("nccl3o5", "unknown rule code 'nccl3o5'; did you mean 'NCCL305'?"),
    ("QSO", "unknown rule code 'QSO' (see `netlint rules`)"),  # `rule` explains a code, not a family
])
def test_rule_command_names_the_nearest_code(tmp_path, capsys, monkeypatch, code, says):
    from netlint.cli import main

    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["rule", code]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"netlint: {says}\n"
