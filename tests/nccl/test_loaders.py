"""Every NCCL loader yields the same located model; positions are exact; formats keep their meaning."""

from __future__ import annotations

from conftest import lint_repo
from netlint.models.nccl import NcclEnv, Unknown


def envs(report, file=None) -> list[NcclEnv]:
    return [e for e in report.workspace.nccl_envs if file is None or e.file == file]


def table(env: NcclEnv):
    return [(v.key, v.known, v.name.span.line, v.name.span.col, v.span.line, v.span.col) for v in env.variables]


# --- .env (python-dotenv's grammar, positions mapped back) ---------------------------------------

DOTENV = """\
# comment line

export NCCL_DEBUG=INFO   # inline comment
  NCCL_IB_HCA = "=mlx5_0,mlx5_1"
NCCL_SOCKET_IFNAME='${LITERAL}'
NCCL_TOPO_FILE=${HOME}/topo.xml
NCCL_MULTI="a
b"
NCCL_ALGO=Ring
"""


def test_dotenv_values_and_positions(tmp_path):
    report = lint_repo(tmp_path, {"cluster.env": DOTENV})
    (env,) = envs(report)
    assert env.format == "dotenv"
    assert table(env) == [
        ("NCCL_DEBUG", "INFO", 3, 8, 3, 19),
        ("NCCL_IB_HCA", "=mlx5_0,mlx5_1", 4, 3, 4, 17),
        ("NCCL_SOCKET_IFNAME", "${LITERAL}", 5, 1, 5, 20),     # single quotes: no expansion
        ("NCCL_TOPO_FILE", None, 6, 1, 6, 16),                 # ${HOME}: Unknown
        ("NCCL_MULTI", "a\nb", 7, 1, 7, 12),
        ("NCCL_ALGO", "Ring", 9, 1, 9, 11),
    ]
    assert isinstance(env.get("NCCL_TOPO_FILE").value, Unknown)
    hca = env.get("NCCL_IB_HCA")
    assert hca.value.raw == '"=mlx5_0,mlx5_1"' and hca.value.quoted


def test_dotenv_unparsable_line_is_located(tmp_path):
    report = lint_repo(tmp_path, {"a.env": "NCCL_DEBUG=WARN\nthis is not an assignment\n"})
    f = [f for f in report.findings if f.code == "NL003"]
    assert [(x.span.line, x.span.col) for x in f] == [(2, 1)]


def test_deepspeed_env_file_is_read_as_key_value_lines(tmp_path):
    # the DeepSpeed launcher exports each KEY=VALUE line of ./.deepspeed_env to every node
    report = lint_repo(tmp_path, {".deepspeed_env": "NCCL_IB_GID_INDEX=3\nNCCL_SOCKET_IFNAME=lo\n"})
    (env,) = envs(report, ".deepspeed_env")
    assert table(env) == [("NCCL_IB_GID_INDEX", "3", 1, 1, 1, 19), ("NCCL_SOCKET_IFNAME", "lo", 2, 1, 2, 20)]
    (f,) = [f for f in report.findings if f.code == "NCCL317"]
    assert (f.span.file, f.span.line, f.span.col) == (".deepspeed_env", 2, 20)


def test_a_name_set_again_in_an_env_file_is_judged_once(tmp_path):
    # CarperAI/trlx .deepspeed_env: a dumped environment holding the same lines four times; the last is
    # what the launcher exports
    text = "NCCL_PROTO=simple\nFOO=1\nNCCL_PROTO=simple\n"
    report = lint_repo(tmp_path, {".deepspeed_env": text})
    assert [(f.span.line, f.span.col) for f in report.findings if f.code == "NCCL315"] == [(3, 12)]


def test_etc_environment_corpus_file(shared):
    from conftest import run_lint

    path = shared / "corpus" / "nccl" / "gcp-cluster-toolkit" / "a4high.etc-environment.env"
    report = run_lint(path)
    (env,) = envs(report, path.name)
    assert env.get("NCCL_IB_TC").known == "52" and env.get("NCCL_IB_TC").span.line == 11
    assert env.get("PATH").value.quoted


# --- nccl.conf (NCCL's own reader, not shell) --------------------------------------------------

def test_nccl_conf_keeps_nccls_meaning(tmp_path):
    text = ("# comment\n NCCL_A=1\nNCCL_IB_HCA==mlx5_0\nexport NCCL_DEBUG=WARN\nNCCL_SOCKET_IFNAME=\"eth0\"\n"
            "NCCL_IB_TIMEOUT=22 # c\nNCCL_NET_PLUGIN={{hpcx_path}}\nNCCL_IB_SL=0\nNCCL_IB_SL=1\r\n")
    report = lint_repo(tmp_path, {"nccl.conf": text})
    (env,) = envs(report)
    assert env.format == "nccl.conf"
    by = {v.key: v for v in env.variables}
    assert by[" NCCL_A"].flags == ["name-space"]
    assert by["NCCL_IB_HCA"].known == "=mlx5_0" and by["NCCL_IB_HCA"].span.col == 13
    assert "export NCCL_DEBUG" in by and env.get("NCCL_DEBUG") is None
    assert by["NCCL_SOCKET_IFNAME"].known == '"eth0"'
    assert by["NCCL_IB_TIMEOUT"].known == "22 # c"
    assert isinstance(by["NCCL_NET_PLUGIN"].value, Unknown)
    assert env.get("NCCL_IB_SL").known == "0"          # setenv(..., 0): the first line wins
    assert [v.known for v in env.assignments("NCCL_IB_SL")] == ["0", "1"]   # \r stripped


def test_conf_with_exports_is_shell_not_nccl_conf(tmp_path):
    report = lint_repo(tmp_path, {"hopper.conf": "GPUS=8\nexport NCCL_DEBUG=WARN\n",
                                  "plain.conf": "NCCL_DEBUG=WARN\n"})
    assert {e.file: e.format for e in envs(report)} == {"hopper.conf": "shell", "plain.conf": "nccl.conf"}


# --- Kubernetes manifests ----------------------------------------------------------------------

K8S = """\
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: main
      env:
        - {name: NCCL_DEBUG, value: WARN}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  template:
    spec:
      initContainers:
        - name: init
          env: [{name: NCCL_IB_TC, value: "106"}]
      containers:
        - name: srv
          env:
            - name: NCCL_IB_GID_INDEX
              valueFrom: {configMapKeyRef: {name: nccl, key: gid}}
            - name: NCCL_SOCKET_IFNAME
              value: $(IFACE)
            - name: IFACE
              value: eth0
---
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: llama}
spec:
  pytorchReplicaSpecs:
    Worker:
      template:
        spec:
          containers:
            - name: pytorch
              env:
                - name: IFACE
                  value: ens
                - name: NCCL_SOCKET_IFNAME
                  value: "$(IFACE)"
                - name: NCCL_IB_TC
                  value: 106
---
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: mpi}
spec:
  mpiReplicaSpecs:
    Launcher:
      template:
        spec:
          containers:
            - name: launcher
              env: [{name: NCCL_ALGO, value: Ring}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: s}
spec:
  template:
    spec:
      containers:
        - name: c
          env: [{name: NCCL_PROTO, value: Simple}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      containers:
        - name: c
          env: [{name: NCCL_NET, value: IB}]
"""


def test_k8s_every_kind_and_container(tmp_path):
    report = lint_repo(tmp_path, {"k8s.yaml": K8S})
    got = {e.scope: [(v.key, v.known) for v in e.variables] for e in envs(report)}
    assert got == {
        "Pod/p/main": [("NCCL_DEBUG", "WARN")],
        "Deployment/d/init": [("NCCL_IB_TC", "106")],
        "Deployment/d/srv": [("NCCL_IB_GID_INDEX", None), ("NCCL_SOCKET_IFNAME", None), ("IFACE", "eth0")],
        "PyTorchJob/llama/pytorchReplicaSpecs/Worker/pytorch": [("IFACE", "ens"), ("NCCL_SOCKET_IFNAME", "ens"),
                                                                 ("NCCL_IB_TC", "106")],
        "MPIJob/mpi/mpiReplicaSpecs/Launcher/launcher": [("NCCL_ALGO", "Ring")],
        "StatefulSet/s/c": [("NCCL_PROTO", "Simple")],
        "Job/j/c": [("NCCL_NET", "IB")],
    }
    nl = [f for f in report.findings if f.code == "NL005"]
    assert [(f.span.line, f.span.col) for f in nl] == [(45, 26)]      # value: 106 unquoted
    pod = [e for e in envs(report) if e.scope == "Pod/p/main"][0]
    assert (pod.variables[0].name.span.line, pod.variables[0].name.span.col) == (8, 18)


def test_k8s_fragment_and_comments(shared):
    from conftest import run_lint

    path = shared / "corpus" / "nccl" / "aws-samples-awsome-distributed-training" / "llama3_1_8b-fsdp.env-block.yaml"
    (env,) = envs(run_lint(path), path.name)
    names = [v.key for v in env.variables]
    assert "NCCL_IGNORE_DISABLED_P2P" not in names and "NCCL_NVLS_ENABLE" not in names  # commented out
    assert env.get("NCCL_DEBUG").span.line == 28 and isinstance(env.get("HF_TOKEN").value, Unknown)


def test_yaml_without_env_blocks_is_not_claimed(tmp_path):
    # an NCCL name in a comment, a non-env map and a plain string are no env block (an `env:` map is a
    # Helm values env block: tests/nccl/test_yaml_sources.py)
    report = lint_repo(tmp_path, {"values.yaml": "# NCCL_DEBUG: INFO\nimage: {repository: nccl}\n"
                                                 "args: \"NCCL_DEBUG=INFO\"\n"})
    assert envs(report) == []


# --- shell / Slurm -----------------------------------------------------------------------------

SCRIPT = """\
#!/bin/bash
#SBATCH --nodes=2
source ./nccl.env
. ./missing.sh
export NCCL_DEBUG=WARN \\
  NCCL_IB_HCA=mlx5
TC=106
export NCCL_IB_TC=$TC
NCCL_ALGO=Ring torchrun a.py
env NCCL_PROTO=Simple python b.py
export NCCL_TUNER_PLUGIN=/opt/$(uname -m)/lib.so
NCCL_PLAIN=1
if [ -n "$X" ]; then export NCCL_P2P_DISABLE=1; fi
srun python train.py
"""


def test_shell_forms(tmp_path):
    report = lint_repo(tmp_path, {"train.sbatch": SCRIPT, "nccl.env": "NCCL_SOCKET_IFNAME=ens\n"})
    (env,) = envs(report, "train.sbatch")
    assert env.format == "shell"
    rows = {v.key: v for v in env.variables}
    sock = rows["NCCL_SOCKET_IFNAME"]
    assert sock.file == "nccl.env" and [(s.file, s.line, s.col) for s in sock.via] == [("train.sbatch", 3, 8)]
    assert not sock.exported      # a plain assignment in a sourced file stays a shell variable
    assert (rows["NCCL_IB_HCA"].name.span.line, rows["NCCL_IB_HCA"].name.span.col) == (6, 3)
    assert rows["NCCL_IB_TC"].known == "106" and "via-variable" in rows["NCCL_IB_TC"].flags
    assert (rows["NCCL_ALGO"].how, rows["NCCL_ALGO"].command) == ("prefix", "torchrun")
    assert (rows["NCCL_PROTO"].how, rows["NCCL_PROTO"].command) == ("env", "python")
    assert rows["NCCL_TUNER_PLUGIN"].unknown
    assert not rows["NCCL_PLAIN"].exported
    assert rows["NCCL_P2P_DISABLE"].conditional
    assert [(s.resolved) for s in env.sources] == ["nccl.env", None]
    assert env.has_unresolved_sources and "srun" in env.launches
    # one-command prefixes are not the file's environment
    assert env.get("NCCL_ALGO") is None and env.get("NCCL_DEBUG").known == "WARN"


def test_continued_export_block_locates_each_variable(shared):
    from conftest import run_lint

    path = shared / "corpus" / "nccl" / "azure-ai-infrastructure-on-azure" / "04-gpt175B.env.sh"
    (env,) = envs(run_lint(path), path.name)
    assert [(v.key, v.name.span.line, v.name.span.col) for v in env.nccl()][:3] == [
        ("NCCL_SOCKET_IFNAME", 3, 2), ("NCCL_DEBUG", 6, 2), ("NCCL_IB_PCI_RELAXED_ORDERING", 7, 2)]
