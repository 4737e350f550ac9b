"""nccl.conf written by ``echo``/``printf`` (also piped into ``tee``, inside a helper's command string
and in a Dockerfile ``RUN``) is read as nccl.conf lines, located in the file, and layered below the
environment (a Dockerfile ``ENV`` wins over it)."""

from __future__ import annotations

from conftest import at, lint_repo, only

from netlint.models.nccl import NcclEnv, Unknown


def _confs(report):
    return [e for e in report.workspace.nccl_envs if isinstance(e, NcclEnv) and e.format == "nccl.conf"]


def _rows(report):
    return [(e.scope, v.key, v.known, v.name.span.line, v.name.span.col, v.span.line, v.span.col)
            for e in _confs(report) for v in e.variables]


SETUP = """\
#!/bin/bash
echo NCCL_SOCKET_IFNAME=^docker0,lo >> /etc/nccl.conf
printf 'NCCL_IB_TC=%s\\nNCCL_ALGO=Ringg\\n' 106 > ~/.nccl.conf
echo "NCCL_DEBUG=WARN" | sudo tee -a /etc/nccl.conf > /dev/null
run_cmd () {
    out=`sudo bash -c "$2" 2>&1`
}
run_cmd "Add NCCL conf" "echo -e \\"# added\\nNCCL_IB_GID_INDEX=3\\nNCCL_IB_SL=$SL\\" >> /etc/nccl.conf"
true && echo NCCL_PROTO=Simple >> /etc/nccl.conf
echo NCCL_NET_GDR_LEVEL=PHB >> notes.txt
"""


def test_echo_printf_tee_and_helper_strings_are_nccl_conf_lines(tmp_path):
    report = lint_repo(tmp_path, {"setup.sh": SETUP})
    rows = _rows(report)
    assert rows == [
        ("echo > /etc/nccl.conf", "NCCL_SOCKET_IFNAME", "^docker0,lo", 2, 6, 2, 25),
        ("printf > ~/.nccl.conf", "NCCL_IB_TC", "106", 3, 9, 3, 43),       # %s filled from the argument
        ("printf > ~/.nccl.conf", "NCCL_ALGO", "Ringg", 3, 24, 3, 34),
        ("tee > /etc/nccl.conf", "NCCL_DEBUG", "WARN", 4, 7, 4, 18),
        ("echo > /etc/nccl.conf", "NCCL_IB_GID_INDEX", "3", 8, 45, 8, 63),  # inside run_cmd's string
        ("echo > /etc/nccl.conf", "NCCL_IB_SL", None, 8, 66, 8, 77),
        ("echo > /etc/nccl.conf", "NCCL_PROTO", "Simple", 9, 14, 9, 25),    # `a && echo … >> f`
    ]
    sl = [v for e in _confs(report) for v in e.variables if v.key == "NCCL_IB_SL"][0]
    assert isinstance(sl.value, Unknown) and "SL" in sl.value.reason
    assert at(only(report, "NCCL303")) == (3, 34)     # Ringg, judged as NCCL reads the file
    # nothing of it is a shell assignment, so nothing is "set but never exported"
    assert not [f for f in report.findings if f.code == "NCCL322"]


def test_heredoc_after_and_and_is_read_too(tmp_path):
    report = lint_repo(tmp_path, {"setup.sh": """\
        #!/bin/bash
        mkdir -p /etc && cat > /etc/nccl.conf <<'EOF'
        NCCL_ALGO=Ringg
        EOF
        """})
    assert [(v.key, v.name.span.line) for e in _confs(report) for v in e.variables] == [("NCCL_ALGO", 3)]
    assert at(only(report, "NCCL303")) == (3, 11)


DOCKERFILE = """\
FROM nvcr.io/nvidia/pytorch:24.09-py3
ENV NCCL_DEBUG=WARN \\
    NCCL_SOCKET_IFNAME=^docker,lo
RUN apt-get update && \\
    # a comment inside the continuation
    rm -rf /tmp/nccl \\
   && echo NCCL_SOCKET_IFNAME=^docker0,lo >> /etc/nccl.conf \\
   && echo "NCCL_IB_TIMEOUT=20" | tee -a /etc/nccl.conf
RUN echo -e "NCCL_ALGO=Ringg\\nNCCL_PROTO=Simple" >> /etc/nccl.conf
"""


def test_dockerfile_run_writes_nccl_conf_and_env_wins(tmp_path):
    report = lint_repo(tmp_path, {"Dockerfile": DOCKERFILE})
    assert [r[:5] for r in _rows(report)] == [
        ("RUN echo > /etc/nccl.conf", "NCCL_SOCKET_IFNAME", "^docker0,lo", 7, 12),
        ("RUN tee > /etc/nccl.conf", "NCCL_IB_TIMEOUT", "20", 8, 13),
        # /bin/sh runs RUN: `echo -e` prints "-e …" with escapes in dash, the text alone in bash
        ("RUN echo > /etc/nccl.conf", "NCCL_ALGO", None, 9, 14),
        ("RUN echo > /etc/nccl.conf", "NCCL_PROTO", None, 9, 31),
    ]
    f = only(report, "NCCL324")   # the image's ENV is in every process's environment: the conf line is dead
    assert at(f) == (7, 31) and f.related[0].span.line == 3 and "setenv(name, value, 0)" in f.message
    assert not [f for f in report.findings if f.code == "NCCL303"]   # Ringg is not known to be written


def test_run_conf_of_another_stage_is_not_layered_under_this_stage(tmp_path):
    report = lint_repo(tmp_path, {"Dockerfile": """\
        FROM ubuntu:22.04 AS build
        RUN echo NCCL_DEBUG=INFO >> /etc/nccl.conf
        FROM nvcr.io/nvidia/pytorch:24.09-py3
        ENV NCCL_DEBUG=WARN
        """})
    assert [(e.scope, [v.key for v in e.variables]) for e in _confs(report)] == [
        ("stage build RUN echo > /etc/nccl.conf", ["NCCL_DEBUG"])]
    assert not [f for f in report.findings if f.code == "NCCL324"]


def test_echo_options_decide_escapes_as_bash_does(tmp_path):
    report = lint_repo(tmp_path, {"setup.sh": """\
        #!/bin/bash
        echo -e -n "NCCL_ALGO=Ring\\nNCCL_PROTO=Simple\\n" >> /etc/nccl.conf
        echo -e -E "NCCL_DEBUG=WARN\\nNCCL_IB_HCA=mlx5_0" >> /etc/nccl.conf
        """})
    rows = [(r[1], r[2], r[3], r[4]) for r in _rows(report)]
    # -e then -n: escapes on; -e then -E: off, so the `\\n` stays in one (odd) line
    assert rows == [("NCCL_ALGO", "Ring", 2, 13), ("NCCL_PROTO", "Simple", 2, 29),
                    ("NCCL_DEBUG", "WARN\\nNCCL_IB_HCA=mlx5_0", 3, 13)]


def test_dockerfile_run_and_chain_writes_are_not_conditional(tmp_path):
    # aws/deep-learning-containers Dockerfile.gpu: `RUN mv … && echo NCCL_DEBUG=INFO >> /etc/nccl.conf`;
    # a failing `mv` fails the build, so every image that exists has the line
    report = lint_repo(tmp_path, {"Dockerfile": """\
        FROM nvcr.io/nvidia/pytorch:24.05-py3
        RUN mv /opt/mpi/bin/mpirun /opt/mpi/bin/mpirun.real \\
         && echo NCCL_DEBUG=INFO >> /etc/nccl.conf
        """})
    (env,) = _confs(report)
    (var,) = env.variables
    assert var.key == "NCCL_DEBUG" and not var.conditional
    assert at(only(report, "NCCL314")) == (3, 21)
    # the same chain in a script is a condition: the echo runs only if mv succeeds
    script = lint_repo(tmp_path / "sh", {"setup.sh": "mv /a /b && echo NCCL_DEBUG=INFO >> /etc/nccl.conf\n"})
    assert [v.conditional for e in _confs(script) for v in e.variables] == [True]


def test_the_dynamic_linkers_nccl_conf_is_not_nccls(tmp_path):
    # round 22 (dstack's base Dockerfile): /etc/ld.so.conf.d/nccl.conf lists library folders for ldconfig(8)
    docker = ('FROM ubuntu:22.04\nENV NCCL_HOME=/opt/nccl\nRUN echo "${NCCL_HOME}/lib" >> /etc/ld.so.conf.d/nccl.conf '
              '&& ldconfig\nRUN echo "NCCL_ALGO=Ringg" >> /etc/nccl.conf\n')
    script = "#!/bin/bash\ncat > /etc/ld.so.conf.d/nccl.conf <<EOF\n/opt/nccl/lib\nEOF\nldconfig\n"
    report = lint_repo(tmp_path, {"Dockerfile": docker, "setup.sh": script})
    assert sorted((f.file, f.code, *at(f)) for f in report.findings) == [("Dockerfile", "NCCL303", 4, 21)]
