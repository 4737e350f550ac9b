"""mpirun options netlint reads around what it cannot: ranks per node (NCCL312 is moot with one rank per
node or pod) and an unknown word among the options, which does not end them (round 9: dranet MPIJobs
with slotsPerWorker: 1 got NCCL312; aws deep-learning-containers nccl_allreduce.sh lost every
`-x` after `${USE_DEVICE_RDMA_ARG}`)."""

from __future__ import annotations

import pytest

from tests.conftest import at, lint_repo, mpijob

SHM_OFF = '["mpirun", "-np", "2", "-x", "NCCL_SHM_DISABLE=1", "python", "train.py"]'


def _312(report):
    return [(f.file, *at(f)) for f in report.findings if f.code == "NCCL312"]


def test_mpijob_one_slot_per_worker_has_no_host_to_share(tmp_path):
    assert _312(lint_repo(tmp_path, {"job.yaml": mpijob(SHM_OFF, slots=1)})) == []
    # bad: two ranks per pod share its /dev/shm, where SHM would carry their traffic
    assert _312(lint_repo(tmp_path, {"job.yaml": mpijob(SHM_OFF, slots=2)})) == [("job.yaml", 14, 69)]


@pytest.mark.parametrize("opts, reported", [("-N 1", False), ("--npernode 1", False), ("-ppn 1", False),
                                            ("--map-by ppr:1:node", False), ("-N 8", True), ("", True)])
def test_mpirun_ranks_per_node(tmp_path, opts, reported):
    text = f"mpirun -np 16 {opts} -x NCCL_SHM_DISABLE=1 python train.py\n"
    found = _312(lint_repo(tmp_path, {"run.sh": text}))
    assert found == ([("run.sh", 1, text.index("=1") + 2)] if reported else [])


def test_an_unknown_word_among_the_options_does_not_end_them(tmp_path):
    text = ('if [ "$RDMA" = 1 ]; then EXTRA="-x FI_EFA_USE_DEVICE_RDMA=1"; else EXTRA=""; fi\n'
            "mpirun -np 16 -x FI_PROVIDER=efa ${EXTRA} -x NCCL_PROTO=simple -x NCCL_DEBUG=TRAC ./all_reduce_perf\n")
    report = lint_repo(tmp_path, {"run.sh": text})
    assert sorted((f.code, *at(f)) for f in report.findings if f.code in ("NCCL303", "NCCL315")) == \
        [("NCCL303", 2, 78), ("NCCL315", 2, 57)]


def test_a_fragment_that_is_a_list_is_no_mpijob(tmp_path):
    # found by the k8s fuzzer: a root sequence (a container list cut from a manifest) has no spec
    text = '- name: c\n  command: ["mpirun", "-np", "2", "-x", "NCCL_SHM_DISABLE=1", "python", "t.py"]\n'
    report = lint_repo(tmp_path, {"containers.yaml": text})
    assert not [f for f in report.findings if f.code == "NL000"] and _312(report) == [("containers.yaml", 2, 59)]


def test_p2p_disabled_is_moot_with_one_rank_per_node_too(tmp_path):
    # the class of round 9's NCCL312, for NCCL311 (left open since round 16: one-GPU pods told that
    # intra-node traffic goes through host memory)
    p2p_off = SHM_OFF.replace("NCCL_SHM_DISABLE", "NCCL_P2P_DISABLE")
    assert [f for f in lint_repo(tmp_path / "one", {"job.yaml": mpijob(p2p_off, slots=1)}).findings
            if f.code == "NCCL311"] == []
    text = "mpirun -np 16 -N 8 -x NCCL_P2P_DISABLE=1 python train.py\n"
    (f,) = [f for f in lint_repo(tmp_path / "eight", {"run.sh": text}).findings if f.code == "NCCL311"]
    assert at(f) == (1, text.index("=1") + 2)
    one = text.replace("-N 8", "-N 1")
    assert [f for f in lint_repo(tmp_path / "n1", {"run.sh": one}).findings if f.code == "NCCL311"] == []


@pytest.mark.parametrize("args, reported", [("-g 1", False), ("-t 8 -g 1", True), ("-g 8", True),
                                            ("--nthreads 2", True), ("-t $T", True)])
def test_nccl_tests_threads_and_gpus_put_ranks_on_one_node(tmp_path, args, reported):
    # round 22 (uccl run_nccl_test_single_proc.sh: mpirun -N 1 … alltoall_perf -t 8 -g 1, 8 GPUs per process)
    text = f"mpirun -np 4 -N 1 -x NCCL_SHM_DISABLE=1 ./build/alltoall_perf -b 8 {args}\n"
    found = _312(lint_repo(tmp_path, {"run.sh": text}))
    assert found == ([("run.sh", 1, text.index("=1") + 2)] if reported else [])


def test_torchrun_with_one_process_per_node(tmp_path):
    # round 24 (dibaotian nccl-tests-platform-setup ddp/tcp_torchrun.sh: NCCL_P2P_DISABLE=1, --nproc_per_node=1)
    text = "#!/bin/bash\nexport NCCL_P2P_DISABLE=1\ntorchrun --nproc_per_node={n} --nnodes=2 train.py\n"
    one = lint_repo(tmp_path / "one", {"t.sh": text.format(n=1)})
    assert [f for f in one.findings if f.code == "NCCL311"] == []
    eight = lint_repo(tmp_path / "eight", {"t.sh": text.format(n=8)})
    assert [at(f) for f in eight.findings if f.code == "NCCL311"] == [(2, 25)]


def test_p2p_and_shm_both_disabled_send_intra_node_traffic_over_the_network(tmp_path):
    # round 25 (microsoft/superbenchmark nccl-bw:gdr-only: NCCL_P2P_DISABLE=1 with NCCL_SHM_DISABLE=1)
    text = "export NCCL_P2P_DISABLE=1\nexport NCCL_SHM_DISABLE=1\ntorchrun --nproc_per_node 8 train.py\n"
    (f,) = [f for f in lint_repo(tmp_path, {"env.sh": text}).findings if f.code == "NCCL311"]
    assert at(f) == (1, 25) and "goes over the network instead of NVLink (NCCL_SHM_DISABLE=1" in f.message
