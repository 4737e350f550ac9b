"""NCCL settings on an MPI launch line (``mpirun -x``, ``-genv``) and in an nccl.conf written by a
here-document, read from shell scripts and located in the script."""

from __future__ import annotations

import pytest

from conftest import at, lint_repo, only
from netlint.models.nccl import Unknown


def _envs(report, fmt=None):
    return [e for e in report.workspace.nccl_envs if fmt is None or e.format == fmt]


def _found(report, code):
    return sorted((f.span.line, f.span.col) for f in report.findings if f.code == code)


# --- mpirun -x / -genv -----------------------------------------------------------------------

MPIRUN = """\
#!/bin/bash
export NCCL_IB_HCA=mlx5_0
NCCL_SOCKET_IFNAME=eth0 mpirun -np 16 --bind-to none -x NCCL_IB_HCA -x NCCL_SOCKET_IFNAME \\
    -x NCCL_ALGO=Ringg -x NCCL_DEBUG_SUBSYS /opt/nccl-tests/build/all_reduce_perf -b 8 -x 3
"""


def test_mpirun_x_values_are_located_and_scoped_to_the_program(tmp_path):
    report = lint_repo(tmp_path, {"run.sh": MPIRUN})
    (env,) = _envs(report, "shell")
    x = [v for v in env.variables if v.how.startswith("mpirun")]
    # -x NCCL_IB_HCA / -x NCCL_SOCKET_IFNAME forward values the script gives (export, prefix): those
    # assignments are the settings; the program's own `-x 3` is not mpirun's
    assert [(v.key, v.how, v.known, v.name.span.line, v.name.span.col, v.span.line, v.span.col) for v in x] == [
        ("NCCL_ALGO", "mpirun-x", "Ringg", 4, 8, 4, 18),
        ("NCCL_DEBUG_SUBSYS", "mpirun-x-forward", None, 4, 27, 4, 27),
    ]
    assert {v.command for v in x} == {"/opt/nccl-tests/build/all_reduce_perf"}
    assert all(v.scoped for v in x)
    assert isinstance(x[1].value, Unknown)          # forwarded from outside the script
    assert _found(report, "NCCL303") == [(4, 18)]   # judged like any setting, at the value
    assert not _found(report, "NCCL322")


def test_mpirun_inside_bash_c_string(tmp_path):
    report = lint_repo(tmp_path, {"run.sh": """\
        #!/bin/bash
        srun -N 2 bash -c "mpirun -x NCCL_ALGO=Ringg python train.py"
        """})
    (var,) = [v for e in _envs(report) for v in e.variables if v.key == "NCCL_ALGO"]
    assert var.how == "mpirun-x" and var.command == "python" and "nested" in var.flags
    assert at(only(report, "NCCL303")) == (2, 40)


def test_mpiexec_genv_pair(tmp_path):
    report = lint_repo(tmp_path, {"run.sh": """\
        #!/bin/bash
        mpiexec -n 8 -ppn 4 -genv NCCL_PROTO LL129 -env NCCL_ALGO Ring ./app
        """})
    (env,) = _envs(report, "shell")
    assert [(v.key, v.how, v.known, v.command, v.span.col) for v in env.variables] == [
        ("NCCL_PROTO", "mpirun-genv", "LL129", "./app", 38),
        ("NCCL_ALGO", "mpirun-env", "Ring", "./app", 59),
    ]
    assert at(only(report, "NCCL303")) == (2, 38)


# --- nccl.conf written by a here-document ----------------------------------------------------

BODY = "NCCL_IB_TIMEOUT=20\nNCCL_ALGO=Ringg\n"
FORMS = {
    "cat-to": "cat > /etc/nccl.conf <<EOF\n{body}EOF\n",
    "cat-from": "cat <<EOF > $HOME/.nccl.conf\n{body}EOF\n",
    "tee-a": "sudo tee -a /etc/nccl.conf <<'EOF' > /dev/null\n{body}EOF\n",
    "bash-c": "bash -c \"cat > /etc/nccl.conf\" <<'EOF'\n{body}EOF\n",
    "conf-file": "export NCCL_CONF_FILE=/opt/site/nccl.cfg\ncat >> \"$NCCL_CONF_FILE\" <<EOF\n{body}EOF\n",
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_heredoc_body_is_read_as_nccl_conf(tmp_path, form):
    text = "#!/bin/bash\nset -e\n" + FORMS[form].format(body=BODY) + "modprobe nvidia-peermem\n"
    report = lint_repo(tmp_path, {"setup.sh": text})
    body_line = text.splitlines().index("NCCL_IB_TIMEOUT=20") + 1
    (conf,) = _envs(report, "nccl.conf")
    assert conf.file == "setup.sh" and conf.scope.startswith("here-document > ")
    assert [(v.key, v.known, v.name.span.line, v.name.span.col) for v in conf.variables] == [
        ("NCCL_IB_TIMEOUT", "20", body_line, 1), ("NCCL_ALGO", "Ringg", body_line + 1, 1)]
    (shell,) = _envs(report, "shell")
    assert not [v for v in shell.variables if v.key.startswith("NCCL_") and v.key != "NCCL_CONF_FILE"]
    assert _found(report, "NCCL303") == [(body_line + 1, 11)]
    assert not _found(report, "NCCL322")


def test_nccl_conf_quirks_in_a_heredoc_are_nccl309(tmp_path):
    report = lint_repo(tmp_path, {"setup.sh": """\
        #!/bin/bash
        cat > /etc/nccl.conf <<'EOF'
        export NCCL_DEBUG=WARN
        EOF
        """})
    assert at(only(report, "NCCL309")) == (3, 1)
    assert not _found(report, "NCCL322")


def test_unquoted_heredoc_expands_and_unknown_stays_unknown(tmp_path):
    report = lint_repo(tmp_path, {"setup.sh": """\
        #!/bin/bash
        HCA=mlx5_0
        cat > /etc/nccl.conf <<EOF
        NCCL_IB_HCA=$HCA
        NCCL_TOPO_FILE=$TOPO
        EOF
        """})
    (conf,) = _envs(report, "nccl.conf")
    hca, topo = conf.variables
    assert hca.known == "mlx5_0" and (hca.span.line, hca.span.col) == (4, 13)
    assert isinstance(topo.value, Unknown) and "TOPO" in topo.value.reason


def test_heredoc_to_another_file_is_neither_conf_nor_shell(tmp_path):
    report = lint_repo(tmp_path, {"setup.sh": """\
        #!/bin/bash
        export NCCL_DEBUG=WARN
        cat > notes.txt <<EOF
        NCCL_ALGO=Ringg
        EOF
        bash -c "cat > notes2.txt" <<'EOF'
        NCCL_PROTO=bogus
        EOF
        """})
    assert not _envs(report, "nccl.conf")
    assert [v.key for e in _envs(report) for v in e.variables] == ["NCCL_DEBUG"]
    assert not [f for f in report.findings if f.code.startswith("NCCL")]


def test_not_exported_fix_never_edits_a_heredoc(tmp_path):
    report = lint_repo(tmp_path, {"job.sh": """\
        #!/bin/bash
        NCCL_IB_TIMEOUT=20
        bash -c "cat > /etc/nccl.conf" <<'EOF'
        NCCL_DEBUG=WARN
        EOF
        sbatch <<'EOF'
        #!/bin/bash
        NCCL_ALGO=Ring
        srun ./train
        EOF
        srun ./train
        """})
    hits = {at(f): f for f in report.findings if f.code == "NCCL322"}
    assert sorted(hits) == [(2, 1), (8, 1)]
    edit = hits[(2, 1)].fix.edits[0]
    assert edit.replacement == "export " and (edit.span.line, edit.span.col) == (2, 1)
    assert hits[(8, 1)].fix is None   # inside the sbatch here-document: said, never edited


# --- layers: which value the ranks see ------------------------------------------------------

def test_environment_beats_heredoc_conf_and_mpirun_x_beats_prefix(tmp_path):
    report = lint_repo(tmp_path, {"run.sh": """\
        #!/bin/bash
        cat > ~/.nccl.conf <<'EOF'
        NCCL_DEBUG=INFO
        NCCL_IB_TIMEOUT=40
        EOF
        export NCCL_DEBUG=WARN
        NCCL_ALGO=Tree mpirun -x NCCL_ALGO=Ring ./all_reduce_perf
        """})
    # the conf's NCCL_DEBUG=INFO and the prefix's NCCL_ALGO=Tree never reach the ranks: an info says
    # so, and the rules that judge values judge the winners instead
    assert _found(report, "NCCL324") == [(3, 12), (7, 11)]
    conf = [f for f in report.findings if f.code == "NCCL324" and f.span.line == 3][0]
    assert "setenv(name, value, 0)" in conf.message and conf.related[0].span.line == 6
    assert not _found(report, "NCCL314")                 # INFO is overridden by WARN
    assert _found(report, "NCCL315") == [(7, 36)]       # Ring (the winner), not Tree
    assert _found(report, "NCCL316") == [(4, 17)]       # nothing overrides NCCL_IB_TIMEOUT=40
    from netlint.nccl.scope import effective

    eff = effective(_envs(report))
    assert eff["NCCL_DEBUG"].known == "WARN" and eff["NCCL_ALGO"].known == "Ring"
    assert eff["NCCL_IB_TIMEOUT"].known == "40"


def test_a_launch_without_the_override_keeps_the_setting_alive(tmp_path):
    report = lint_repo(tmp_path, {"run.sh": """\
        #!/bin/bash
        export NCCL_ALGO=Tree
        mpirun -x NCCL_ALGO=Ring ./a
        mpirun ./b
        """})
    assert not _found(report, "NCCL324")
    assert _found(report, "NCCL315") == [(2, 18), (3, 21)]


# --- false alarms: source prefixes, variables the repo reads ----------------------------------

def test_prefix_to_source_is_an_argument_of_the_sourced_file(tmp_path):
    report = lint_repo(tmp_path, {
        "launch.sh": """\
            #!/bin/bash
            NCCL_LIB_DIR=/opt/nccl/lib source ./env.sh
            NCCL_LIB_DIR=/opt/nccl/lib . /etc/profile.d/nccl.sh
            mpirun ./app
            """,
        "env.sh": "export NCCL_DEBUG_FILE=$NCCL_LIB_DIR/debug.%h\n",
    })
    assert not _found(report, "NCCL301")
    launch = [e for e in _envs(report) if e.file == "launch.sh"][0]
    assert "NCCL_LIB_DIR" not in launch.names()
    assert launch.get("NCCL_DEBUG_FILE").known == "/opt/nccl/lib/debug.%h"   # judged inside env.sh
    nl = only(report, "NL012")
    assert at(nl) == (3, 30) and "NCCL_LIB_DIR" in nl.message and "/etc/profile.d/nccl.sh" in nl.message


def test_variable_the_repo_reads_is_not_unknown(tmp_path):
    report = lint_repo(tmp_path, {
        "launch.sh": """\
            #!/bin/bash
            export NCCL_TEST=all_gather
            export NCCL_BENCH=all_gather
            export NCCL_OTHER=1
            docker run -e NCCL_OTHER=$NCCL_OTHER img
            sbatch run.sub
            """,
        "run.sub": """\
            #!/bin/bash
            srun /opt/nccl-tests/build/${NCCL_TEST:-all_reduce}_perf -b 8
            """,
    })
    # NCCL_TEST is read by run.sub; NCCL_OTHER is only passed on under its own name
    assert _found(report, "NCCL301") == [(3, 8), (4, 8)]


def test_nccl_settings_written_to_another_shell_file_are_said_unread(tmp_path):
    # round 11 (a3mega startup script): `cat >> /opt/nccl-env-profile.sh << ENVEOF` with NCCL exports, dropped silently
    text = ("#!/bin/bash\ndocker pull img\ncat >> /opt/nccl-env-profile.sh << ENVEOF\n"
            "export NCCL_SOCKET_IFNAME=eth0\nexport NCCL_DEBUG=INFO\nENVEOF\n")
    report = lint_repo(tmp_path, {"setup.sh": text})
    notes = [(f.code, f.span.line, f.span.col) for f in report.findings]
    assert notes == [("NL012", 3, 33)] and "/opt/nccl-env-profile.sh" in report.findings[0].message
    # an nccl.conf written the same way is read, not said
    conf = text.replace("/opt/nccl-env-profile.sh", "/etc/nccl.conf").replace("export ", "")
    assert [f.code for f in lint_repo(tmp_path, {"setup.sh": conf}).findings] == ["NCCL314"]


def test_exports_open_mpi_does_not_forward_to_other_hosts(tmp_path):
    # round 15 (karpathy/llm.c layout): Open MPI passes -x names and OMPI_* to remote ranks, not the environment
    report = lint_repo(tmp_path, {"run.sh": "#!/bin/bash\nexport NCCL_IB_HCA=mlx5_0\nexport NCCL_DEBUG=WARN\n"
                                            "mpirun -np 16 -H h1:8,h2:8 -x NCCL_DEBUG ./train\n"
                                            "mpirun -np 8 -x NCCL_DEBUG ./local_only\n"})
    got = [(f.span.line, f.span.col, f.message.split(":")[0]) for f in report.findings if f.code == "NCCL322"]
    assert got == [(2, 8, "NCCL_IB_HCA is exported, but the Open MPI mpirun at line 4 passes only its -x variables (and OMPI_*) to ranks on other hosts")]


def test_a_value_never_exported_is_judged_only_as_not_exported(tmp_path):
    # round 22 (uccl run_nccl_test.sh): `NCCL_PROTO=-1` never exported got NCCL322 and an NCCL303 error
    # "NCCL fails" for a value NCCL never sees
    text = "#!/bin/bash\nNCCL_PROTO=-1\nNCCL_DEBUG=INFO\nmpirun -np 2 -x NCCL_PROTO ./all_reduce_perf -b 8\n"
    report = lint_repo(tmp_path / "dead", {"run.sh": text})
    assert sorted((f.code, *at(f)) for f in report.findings) == [("NCCL322", 2, 1), ("NCCL322", 3, 1)]
    live = lint_repo(tmp_path / "live", {"run.sh": text.replace("NCCL_PROTO=-1", "export NCCL_PROTO=-1")})
    assert [at(f) for f in live.findings if f.code == "NCCL303"] == [(2, 19)]


def test_a_program_run_before_an_export_does_not_keep_it_alive(tmp_path):
    # round 22 (uccl run_gh200.sh): a `python -c` substitution above the exports counted as a launch that
    # sees them, so the -x overrides did not win and NCCL314 warned about a dead INFO
    text = ("#!/bin/bash\nplugin=`python -c 'print(1)'`\nexport NCCL_DEBUG=INFO\n"
            "mpirun -np 16 -N 8 -x NCCL_DEBUG=WARN ./all_reduce_perf -b 8\n")
    report = lint_repo(tmp_path / "a", {"run.sh": text})
    assert sorted((f.code, *at(f)) for f in report.findings) == [("NCCL324", 3, 19)]
    after = text.replace("plugin=`python -c 'print(1)'`\nexport NCCL_DEBUG=INFO\n",
                         "export NCCL_DEBUG=INFO\nplugin=`python -c 'print(1)'`\n")
    report = lint_repo(tmp_path / "b", {"run.sh": after})  # the substitution sees INFO: it stays alive
    assert [(f.code, *at(f)) for f in report.findings if f.code in ("NCCL314", "NCCL324")] == [("NCCL314", 2, 19)]


def test_a_one_command_setting_before_an_export_does_not_keep_it_alive(tmp_path):
    # round 22 (uccl run_gh200.sh): `IFS=, read -ra A <<< "$X"` above the exports made a launch view of its
    # own, in which the export counted as the value seen
    text = ('#!/bin/bash\nIFS=, read -ra HOSTS <<< "$LIST"\nexport NCCL_DEBUG=INFO\n'
            "mpirun -np 16 -N 8 -x NCCL_DEBUG=WARN ./all_reduce_perf -b 8\n")
    report = lint_repo(tmp_path, {"run.sh": text})
    assert sorted((f.code, *at(f)) for f in report.findings if f.code in ("NCCL314", "NCCL324")) == [("NCCL324", 3, 19)]


def test_libfabric_and_pytorch_settings_never_exported(tmp_path):
    # round 23 (oumi-ai/oumi frontier_init.sh: FI_MR_CACHE_MONITOR=kdreg2 "Required to avoid a deadlock", no export)
    text = "#!/bin/bash\nFI_MR_CACHE_MONITOR=kdreg2\nTORCH_NCCL_ASYNC_ERROR_HANDLING=1\nexport FI_PROVIDER=cxi\nsrun python t.py\n"
    report = lint_repo(tmp_path, {"init.sh": text})
    found = [(f.code, *at(f), f.message.split(" (")[0]) for f in report.findings if f.code == "NCCL322"]
    assert found == [("NCCL322", 2, 1, "FI_MR_CACHE_MONITOR is set but never exported, so libfabric"),
                     ("NCCL322", 3, 1, "TORCH_NCCL_ASYNC_ERROR_HANDLING is set but never exported, so PyTorch")]
