"""A Kubernetes manifest kept as text in a ConfigMap (``data: {job.yaml: |- …}``) is read like a manifest
file, each setting and finding located in the ConfigMap's block scalar."""

from __future__ import annotations

from conftest import at, lint_repo, only

from netlint.models.nccl import NcclEnv

CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: health-checks
data:
  job.yaml: |-
    apiVersion: kueue.x-k8s.io/v1beta1
    kind: LocalQueue
    metadata:
      name: q
    ---
    apiVersion: kubeflow.org/v2beta1
    kind: MPIJob
    metadata:
      name: nccl-tests
    spec:
      mpiReplicaSpecs:
        Launcher:
          template:
            spec:
              containers:
              - name: launcher
                env:
                - name: NCCL_IB_TIMEOUT
                  value: 22
                command: ["/bin/bash", "-c"]
                args:
                - |
                  mpirun -np 16 \\
                    -x NCCL_DEBUG=INFO \\
                    -x NCCL_IB_TC=41 \\
                    /workspace/nccl-tests/build/all_reduce_perf -b 1G
  README: "runs nccl-tests with NCCL_DEBUG=INFO"
"""


def _envs(report):
    return [e for e in report.workspace.nccl_envs if isinstance(e, NcclEnv)]


def test_manifest_text_in_a_configmap_is_read_and_located(tmp_path):
    report = lint_repo(tmp_path, {"checks.yaml": CONFIGMAP})
    (env,) = _envs(report)
    assert env.file == "checks.yaml"
    assert env.scope == "ConfigMap/health-checks/job.yaml/MPIJob/nccl-tests/mpiReplicaSpecs/Launcher/launcher"
    got = [(v.key, v.known, v.how, v.name.span.line, v.name.span.col, v.span.line, v.span.col)
           for v in env.variables]
    assert got == [("NCCL_IB_TIMEOUT", "22", "k8s", 24, 25, 25, 26),
                   ("NCCL_DEBUG", "INFO", "mpirun-x", 30, 24, 30, 35),
                   ("NCCL_IB_TC", "41", "mpirun-x", 31, 24, 31, 35)]
    assert at(only(report, "NCCL314")) == (30, 35)    # NCCL_DEBUG=INFO, at INFO in the ConfigMap
    # the manifest's own problems keep their place too: an unquoted number as env value (NL005)
    assert at(only(report, "NL005")) == (25, 26)
    assert "mpirun" in env.launches


def test_entry_that_is_not_a_manifest_stays_unread(tmp_path):
    report = lint_repo(tmp_path, {"cm.yaml": """\
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: c
        data:
          values.yaml: |
            nccl:
              NCCL_DEBUG: INFO
        """})
    assert _envs(report) == []
    assert not [f for f in report.findings if f.code.startswith("NCCL")]
