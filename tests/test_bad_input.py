"""Bad input gets a located NL0xx finding and a documented exit code, never a traceback."""

import subprocess
import sys

import pytest

from conftest import at, lint_repo, only, run_lint, write_repo
from netlint.cli import main

INVENTORY = "cluster: c\nnodes: {count: 1, gpus: 8, gpu: H100-SXM}\nfabric: {transport: roce}\n"


def _cli(*args: str) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-m", "netlint", *args], capture_output=True, text=True)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout, proc.stderr


def test_malformed_yaml_is_located(tmp_path):
    write_repo(tmp_path, {"inventory.yaml": "cluster: c\nnodes: [1, 2\nfabric: {}\n"})
    rc, out, _ = _cli("check", str(tmp_path))
    assert rc == 1
    f = only(run_lint(tmp_path), "NL003")
    assert at(f) == (3, 7)  # libyaml's own mark: where it expected ',' or ']'
    assert "NL003" in out


def test_malformed_json_uses_json_position(tmp_path):
    write_repo(tmp_path, {"bad.json": '{\n  "PORT_QOS_MAP": {\n    "Ethernet0": {"pfc_enable": "3,4",}\n  }\n}\n'})
    report = run_lint(tmp_path / "bad.json")
    f = only(report, "NL003")
    assert at(f) == (3, 39)
    assert "JSON does not parse" in f.message


def test_binary_file_named_explicitly(tmp_path):
    path = tmp_path / "blob.json"
    path.write_bytes(b"\x00\x01\x02PORT_QOS_MAP\x00")
    f = only(run_lint(path), "NL002")
    assert at(f) == (1, 1)


def test_binary_file_in_a_walk_is_skipped_silently(tmp_path):
    (tmp_path / "blob.yaml").write_bytes(b"\x00\x01\x02")
    assert run_lint(tmp_path).findings == []


def test_text_in_another_encoding_that_netlint_would_read_is_said_in_a_walk(tmp_path):
    # round 21 (a UTF-16 launch_docker.sh passed a walk as "binary"): a file a loader would read in its own
    # encoding gets an info; one no loader would read (notes in Latin-1) stays silent, as binaries do
    script = "#!/bin/bash\nexport NCCL_IB_DISABLE=true\n# caf\u00e9\ntorchrun train.py\n"
    (tmp_path / "utf16.sh").write_bytes(script.encode("utf-16"))
    (tmp_path / "latin1.sh").write_bytes(script.encode("latin-1"))
    (tmp_path / "notes.txt").write_bytes("caf\u00e9 au lait\n".encode("latin-1"))
    (tmp_path / "blob.sh").write_bytes(b"\x7fELF\x00\x01")
    found = sorted((f.file, f.code, f.severity.name, at(f)) for f in run_lint(tmp_path).findings)
    assert found == [("latin1.sh", "NL002", "INFO", (3, 6)), ("utf16.sh", "NL002", "INFO", (1, 1))]


def test_non_utf8_points_at_the_byte(tmp_path):
    path = tmp_path / "inventory.yaml"
    path.write_bytes(b"cluster: caf\xe9\n")
    f = only(run_lint(tmp_path), "NL002")
    assert at(f) == (1, 13)


def test_empty_named_file(tmp_path):
    write_repo(tmp_path, {"inventory.yaml": ""})
    rc, out, _ = _cli("check", str(tmp_path / "inventory.yaml"))
    assert "NL006" in out and rc == 1


def test_unknown_top_level_key(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": INVENTORY + "swiches: []\n"})
    f = only(report, "NL004")
    assert at(f) == (4, 1)
    assert "did you mean 'switches'" in f.message


def test_unrecognised_explicit_file_is_a_warning(tmp_path):
    write_repo(tmp_path, {"notes.yaml": "hello: world\n"})
    report = run_lint(tmp_path / "notes.yaml")
    assert only(report, "NL007").severity.name == "WARNING"


def test_unreadable_path_is_usage_error(tmp_path):
    rc, _, err = _cli("check", str(tmp_path / "missing.yaml"))
    assert rc == 2 and "no such file" in err


def test_duplicate_key_warns_at_second_occurrence(tmp_path):
    report = lint_repo(tmp_path, {"inventory.yaml": INVENTORY + "cluster: d\n"})
    f = only(report, "NL009")
    assert at(f) == (4, 1)


@pytest.mark.parametrize("config_name, text, line", [
    ("netlint.yaml", "inventroy: inv.yaml\n", 1),
    ("pyproject.toml", "[project]\nname='x'\n\n[tool.netlint]\nselect = ['QOS']\nignroe = ['NL']\n", 6),
])
def test_config_unknown_key_exits_2(tmp_path, config_name, text, line):
    write_repo(tmp_path, {config_name: text, "inventory.yaml": INVENTORY})
    rc, _, err = _cli("check", str(tmp_path))
    assert rc == 2
    assert f"{config_name}:{line}:1: NL008 unknown config key" in err
    assert "did you mean" in err


def test_exit_codes_clean_findings_and_exit_zero(tmp_path):
    write_repo(tmp_path, {"inventory.yaml": INVENTORY})
    assert main(["check", str(tmp_path), "-q"]) == 0
    (tmp_path / "inventory.yaml").write_text(INVENTORY + "swiches: []\n")
    assert main(["check", str(tmp_path), "-q"]) == 1
    assert main(["check", str(tmp_path), "-q", "--exit-zero"]) == 0
    assert main(["check", str(tmp_path), "-q", "--ignore", "NL004"]) == 0


@pytest.mark.parametrize("command", [["model"], ["path"], ["policy", "view", "$.switches"]])
def test_model_commands_name_a_missing_path(tmp_path, command):
    rc, out, err = _cli(*command, str(tmp_path / "missing"))
    assert rc == 2 and out == "" and err == f"netlint: error: no such file or directory: {tmp_path / 'missing'}\n"


def test_python_m_netlint_in_a_repo_holding_a_file_named_like_a_standard_module(tmp_path):
    # sweep of round 19's folders: a repository with its own `dataclasses.py` (a vendored copy) was imported
    # in place of the standard module by `python -m netlint`, which puts the working folder first on sys.path
    (tmp_path / "dataclasses.py").write_text("raise ImportError('the repository file was imported')\n")
    (tmp_path / "run.sh").write_text("#!/bin/bash\nexport NCCL_IB_DISABLE=true\ntorchrun train.py\n")
    proc = subprocess.run([sys.executable, "-m", "netlint", "check", "--no-cache", "."], capture_output=True,
                          text=True, cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "run.sh:2:24: NCCL304" in proc.stdout
