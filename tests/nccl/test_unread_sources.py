"""A ``source FILE`` netlint cannot read that sets the NCCL environment is said (NL012, info) at its
line, once per file, in a shell script and in a ``bash -c`` script of a manifest."""

from __future__ import annotations

from conftest import at, lint_repo, only


def _nl012(report):
    return sorted(at(f) for f in report.findings if f.code == "NL012")


def test_unread_nccl_env_script_is_said_once_at_the_first_source(tmp_path):
    report = lint_repo(tmp_path, {"run.sh": """\
        #!/bin/bash
        export NCCL_NET=gIB
        source /usr/local/gib/scripts/set_nccl_env.sh
        . /opt/site/nccl-env-profile.sh
        mpirun -x NCCL_NET ./all_gather_perf
        """})
    f = only(report, "NL012")
    assert at(f) == (3, 8)
    assert "/usr/local/gib/scripts/set_nccl_env.sh" in f.message and "1 more" in f.message
    assert f.severity.name == "INFO"


def test_sources_that_are_read_or_not_about_nccl_are_not_said(tmp_path):
    report = lint_repo(tmp_path, {
        "run.sh": """\
            #!/bin/bash
            source ./nccl_env.sh
            source /etc/profile.d/modules.sh
            . ~/.bashrc
            mpirun ./app
            """,
        "nccl_env.sh": "export NCCL_DEBUG=WARN\n"})
    assert _nl012(report) == []


def test_prefix_form_keeps_its_own_word_and_is_not_said_twice(tmp_path):
    report = lint_repo(tmp_path, {"run.sh": """\
        #!/bin/bash
        NCCL_LIB_DIR=/var/lib/tcpxo/lib64 source /var/lib/tcpxo/lib64/nccl-env-profile.sh
        mpirun ./app
        """})
    f = only(report, "NL012")
    assert at(f) == (2, 42) and f.message.startswith("NCCL_LIB_DIR is passed to")


def test_source_in_a_jobset_bash_script_is_said_in_the_manifest(tmp_path):
    report = lint_repo(tmp_path, {"jobset.yaml": """\
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata:
          name: nccl
        spec:
          replicatedJobs:
          - name: w
            template:
              spec:
                template:
                  spec:
                    containers:
                    - name: nccl-test
                      command: ["/bin/bash", "-c"]
                      args:
                      - |
                        export NCCL_NET=gIB
                        source /usr/local/gib/scripts/set_nccl_env.sh
                        mpirun -x NCCL_NET /third_party/nccl-tests/build/all_gather_perf
        """})
    f = only(report, "NL012")
    assert at(f) == (18, 24) and "set_nccl_env.sh" in f.message


def test_several_containers_sourcing_it_are_said_once_per_file(tmp_path):
    container = """\
          - name: {name}
            command: ["bash", "-c", "source /usr/local/gib/scripts/set_nccl_env.sh && mpirun ./all_gather_perf"]
"""
    report = lint_repo(tmp_path, {"pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n"
                                              "  containers:\n" + container.format(name="a")
                                              + container.format(name="b")})
    assert at(only(report, "NL012")) == (8, 45)
