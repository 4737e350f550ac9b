"""A YAML file that names NCCL variables beside a loader's keys (a manifest's `env:`, a compose file's
`services:`/`environment:`, Helm values) but does not parse gets its NL003, located: it was passed over
as "not recognised" before, so a typo in a manifest hid its NCCL settings and the run still passed."""

from __future__ import annotations

import pytest

from conftest import at, codes, lint_repo, only

POD = """\
apiVersion: v1
kind: Pod
spec:
  containers:
  - name: c
    env:
    - name: NCCL_DEBUG
      value: [WARN
"""
COMPOSE = """\
services:
  trainer:
    image: x
    environment:
      NCCL_IB_HCA: "mlx5_0
"""
VALUES = """\
nccl:
  env:
    NCCL_SOCKET_IFNAME: eth0
  bad: {x
"""


@pytest.mark.parametrize("name, text, where", [
    ("pod.yaml", POD, (9, 1)),
    ("docker-compose.yaml", COMPOSE, (6, 1)),
    ("values.yaml", VALUES, (5, 1)),
])
def test_broken_yaml_that_names_nccl_is_a_located_parse_error(tmp_path, name, text, where):
    f = only(lint_repo(tmp_path, {name: text}), "NL003")
    assert f.file == name and at(f) == where and "does not parse" in f.message


def test_broken_yaml_about_something_else_stays_silent(tmp_path):
    # no NCCL variable: not netlint's file, whatever its syntax (a CI workflow, an Ansible play)
    report = lint_repo(tmp_path, {"deploy.yaml": POD.replace("NCCL_DEBUG", "LOG_LEVEL")})
    assert codes(report) == []


def test_a_repaired_manifest_is_read(tmp_path):
    report = lint_repo(tmp_path, {"pod.yaml": POD.replace("[WARN", "WARN")})
    assert "NL003" not in codes(report) and "pod.yaml" in report.files
