"""The run-log loader: NCCL debug lines and nccl-tests output read to located records."""

from __future__ import annotations

from pathlib import Path

import pytest

from netlint.loaders.run_log import read_log
from netlint.run.lines import sniff
from tests.conftest import run_lint, write_repo
from tests.run.shapes import nccl_tests_text

FIXTURES = Path(__file__).parent / "fixtures"


def load(name: str):
    return read_log(name, (FIXTURES / name).read_text(encoding="utf-8"), name)


def test_ib_log_with_mpirun_prefixes():
    run = load("ib_h100_2x8.log").nccl
    assert run.version.value == "2.23.4" and (run.version.span.line, run.version.span.col) == (4, 61)
    assert run.network.value == "IB"
    assert [(p.hca, p.port, p.link) for p in run.ib_ports[:2]] == [("mlx5_0", 1, "IB"), ("mlx5_1", 1, "IB")]
    assert run.hosts == {"node01", "node02"}
    assert len(run.channels) == 16 and all(c.gdr for c in run.channels)
    c = run.channels[0]
    assert (c.channel, c.rank, c.peer, c.direction, c.net, c.dev) == (0, 8, 0, "receive", "IB", 0)
    assert [p.value for p in run.paths[:1]] == ["P2P/CUMEM/read"]
    assert {(e.name, e.value) for e in run.env} == {
        ("NCCL_SOCKET_IFNAME", "ib0"), ("NCCL_IB_HCA", "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7")}
    assert [(c.nranks, c.nnodes, c.local_ranks, c.mnnvl) for c in run.comms][:1] == [(16, 2, 8, 0)]
    assert run.channel_counts[0].value == {"coll": 32, "collnet": 32, "nvls": 16, "p2p": 32}
    assert [f.value for f in run.nvls_support][:1] == [True] and run.nvls_used
    assert run.rings == 2 and run.trees == 4
    assert run.plugin_loaded == [] and "libnccl-net.so" in run.plugin_failed[0].value


def test_roce_log_with_slurm_labels_and_gid():
    run = load("roce_h100_2x8.log").nccl
    assert {p.link for p in run.ib_ports} == {"RoCE"}
    assert run.gids[0].value == (0, 1, 3)
    gid = run.env_reads("NCCL_IB_GID_INDEX")[0]
    assert gid.value == "3" and (gid.span.line, gid.span.col, gid.span.end_col) == (3, 76, 77)


def test_socket_ofi_and_nvls_fixtures():
    sock = load("socket_fallback.log").nccl
    assert sock.network.value == "Socket" and sock.ib_no_device and sock.socket_ifs[0].value.startswith("[0]eth0")
    assert sock.channel_counts[0].value == {"coll": 2, "nvls": 0, "p2p": 2}   # 2.19: no collnet count
    ofi = load("ofi_efa.log").nccl
    assert ofi.network.value == "AWS Libfabric"
    assert "AWS Libfabric" in [p.value for p in ofi.plugin_loaded]
    assert ofi.channels[0].net == "AWS Libfabric" and ofi.channels[0].gdr
    assert [f.value for f in ofi.ofi][:3] == ["Initializing aws-ofi-nccl 1.7.4-aws", "Using Libfabric version 1.19",
                                         "Selected Provider is efa (found 4 nics)"]
    nvls = load("nvls_off_1x8.log").nccl
    assert [f.value for f in nvls.nvls_support] == [False, False]


@pytest.mark.parametrize("prefix", ["", "[1,3]<stdout>:", "3: ", "  12: ", "[rank3]:", "[2024-05-01 10:00:00] "])
def test_any_launcher_prefix(prefix):
    line = f"{prefix}gpu-7:1234:1290 [3] NCCL INFO Using network IB\n"
    run = read_log("x.log", line).nccl
    assert run.network.value == "IB"
    assert run.network.span.col == len(prefix) + len("gpu-7:1234:1290 [3] NCCL INFO Using network ") + 1


def test_warn_trace_and_bare_version_lines():
    text = ("NCCL version 2.21.5+cuda12.4\n"
            "\n"
            "node1:11:12 [0] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.0.0.2<43013> failed : "
            "Connection refused\n"
            "node1:11:12 [0] 1234.567890 transport/net.cc:194 NCCL TRACE Channel 00/0 : 0[0] -> 1[0] [send] via "
            "NET/IB/0/GDRDMA\n"
            "node1:11:12 NCCL CALL ncclCommInitRank(0x1,2,0x2,0)\n")
    run = read_log("x.log", text).nccl
    assert run.version.value == "2.21.5" and run.version.span.line == 1
    assert run.warnings[0].value.startswith("socketStartConnect") and run.warnings[0].span.line == 3
    assert run.channels[0].gdr and run.channels[0].span.line == 4


def test_nccl_2_30_prefix_and_pci_gdr():
    text = ("[2026-06-11 10:00:00] node1:11:12 [0] NCCL INFO Channel 01/0 : 0[0] -> 8[0] [send] via "
            "NET/IB/1/GDRDMA(PCI)/Shared\n")
    c = read_log("x.log", text).nccl.channels[0]
    assert (c.channel, c.dev, c.gdr) == (1, 1, True)


def test_nccl_tests_table_and_header():
    text = nccl_tests_text("all_reduce_perf", ["node01", "node02"], 8, lambda s: min(370.0, s / 1e6), prefix="0: ")
    log = read_log("ar.txt", text)
    assert log.nccl is None and len(log.tests) == 1
    t = log.tests[0]
    assert t.program.value == "all_reduce_perf" and t.collective == "all-reduce"
    assert t.params["maxBytes"] == 8 << 30 and t.params["iters"] == 20
    assert t.ranks == 16 and t.hosts == ["node01", "node02"]
    assert len(t.rows) == 31 and t.rows[-1].size == 8 << 30 and t.rows[-1].busbw() == 370.0
    assert t.rows[-1].oop["busbw"].span.col == 75    # "0: " prefix + the %6s busbw column
    assert t.out_of_bounds.value == 0 and t.avg_busbw.value > 0


def test_old_nccl_tests_shape():
    # NVIDIA/nccl-tests v2.13.9 src/common.cu L875, L895, L979-983, L555, L602, L1055-1056
    text = """\
# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  23012 on dgx01 device  0 [0x07] NVIDIA A100-SXM4-80GB
#  Rank  1 Group  0 Pid  23012 on dgx01 device  1 [0x0f] NVIDIA A100-SXM4-80GB
#
#                                                              out-of-place                       in-place
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
   134217728      33554432     float     sum      -1   1068.4  125.63  219.85      0   1067.2  125.77  220.09      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 219.97
#
"""
    t = read_log("all_reduce_perf.log", text, "all_reduce_perf.log").tests[0]
    assert t.program.value == "all_reduce_perf"          # from the file name
    assert t.ranks == 2 and t.rows[0].busbw() == 220.09 and t.avg_busbw.value == 219.97


def test_per_iteration_columns():
    header = ("#       size         count      type   redop    root     time   algbw   busbw  #wrong    i_min    i_max"
              "    i_p99    i_cv%     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%")
    row = ("     1048576        262144     float     sum      -1    30.11   34.82   65.29       0    29.80    31.00"
           "    30.90     1.10    30.05   34.89   65.42       2    29.70    30.90    30.80     1.00")
    t = read_log("x.txt", "# nThread 1 nGpus 1 minBytes 8 maxBytes 1048576 step: 2(factor) warmup iters: 5 "
                          "iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0\n" + header + "\n" + row + "\n").tests[0]
    r = t.rows[0]
    assert r.oop["busbw"].value == 65.29 and r.ip["busbw"].value == 65.42 and [c.value for c in r.wrong()] == [2]


def test_sniff_says_no_to_other_text():
    assert not sniff("export NCCL_DEBUG=INFO\nexport NCCL_IB_HCA=mlx5_0\n")
    assert not sniff("torch NCCL version 2.18.1 (from the error message)\n")
    assert sniff("h:1:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n")


def test_a_repo_with_a_log_and_a_readme(tmp_path):
    write_repo(tmp_path, {"logs/run.log": (FIXTURES / "socket_fallback.log").read_text(), "notes.txt": "hello\n"})
    report = run_lint(tmp_path)
    assert [r.file for r in report.workspace.runs] == ["logs/run.log"]
    assert not any(f.file == "notes.txt" for f in report.findings)


def test_bounded_records_are_counted(monkeypatch):
    import netlint.models.run as model

    monkeypatch.setattr(model, "MAX_RECORDS", 3)
    text = "".join(f"h:1:1 [0] NCCL INFO Channel {c:02d}/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n" for c in range(10))
    from netlint.loaders.run_log import RunLogLoader
    from netlint.source import SourceFile

    items = list(RunLogLoader().load(SourceFile("x.log", Path("x.log"), text.encode())))
    log = items[-1]
    assert len(log.nccl.channels) == 3 and log.nccl.dropped == {"channels": 7}
    assert items[0].code == "NL012" and "7 channels" in items[0].message


def test_overlong_line_is_skipped_not_read():
    text = "h:1:1 [0] NCCL INFO Using network " + "x" * 70000 + "\nh:1:1 [0] NCCL INFO Using network IB\n"
    run = read_log("x.log", text).nccl
    assert [n.value for n in run.networks] == ["IB"] and run.networks[0].span.line == 2


def test_older_channel_shapes():
    # NCCL <= 2.6 "Ring 00 : 7 -> 8 [send] via NET/AWS Libfabric/0"; <= 2.11 "Channel 01 : 2[c7000] -> 0[87000]"
    text = ("[1,7]<stdout>:ip-1:21471:22316 [7] NCCL INFO Ring 00 : 7 -> 8 [send] via NET/AWS Libfabric/0\n"
            "[1,26]<stdout>:ip-2:8716:9558 [2] NCCL INFO Ring 00 : 26[2] -> 30[6] via P2P/IPC\n"
            "h:1:2 [0] NCCL INFO Channel 01 : 2[c7000] -> 0[87000] [receive] via NET/IB/5/GDRDMA\n"
            ":22901:22901 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 0\n")
    run = read_log("x.log", text).nccl
    assert [(c.rank, c.peer, c.net, c.dev, c.gdr) for c in run.channels] == [(7, 8, "AWS Libfabric", 0, False),
                                                                          (2, 0, "IB", 5, True)]
    assert [p.value for p in run.paths] == ["P2P/IPC"]
    assert [f.value for f in run.rings_gdr] == [False] and run.rings_gdr[0].span.line == 4


def test_env_lines_printed_under_every_flag_do_not_mean_env_is_logged():
    only_all = read_log("x.log", "h:1:1 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to NVL\n").nccl
    assert only_all.env and not only_all.reports_env
    net_only = read_log("x.log", "h:1:1 [0] NCCL INFO NCCL_SOCKET_IFNAME set to eth0\n").nccl
    assert not net_only.reports_env
    env = read_log("x.log", "h:1:1 [0] NCCL INFO NCCL_IB_TC set by environment to 106.\n").nccl
    assert env.reports_env and env.env[0].value == "106"


def test_markdown_ate_the_hashes_and_prepend_rank():
    text = (" nThread 1 nGpus 1 minBytes 8 maxBytes 16777216 step: 2(factor) warmup iters: 5 iters: 5 agg iters: 1 "
            "validation: 1 graph: 0\n"
            "  Rank  0 Group  0 Pid    127 on worker-0 device  0 [0x00] NVIDIA A10G\n"
            "       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
            "busbw #wrong\n"
            "[0]     33554432       8388608     float     sum      -1[0]    2180.1   15.39   29.50      0[0]    "
            "2285.2   14.68   28.14      3\n")
    assert sniff(text)
    t = read_log("x.txt", text).tests[0]
    assert t.params["maxBytes"] == 16777216 and t.ranks == 1 and t.devices[0].host == "worker-0"
    r = t.rows[0]
    assert r.oop["busbw"].value == 29.5 and r.oop["wrong"].value == 0 and [c.value for c in r.wrong()] == [3]


def test_hostile_numbers_do_not_stop_the_read():
    text = ("h:1:1 [0] NCCL INFO Channel " + "9" * 5000 + "/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n"
            "# nThread " + "1" * 5000 + " nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 "
            "agg iters: 1 validation: 1 graph: 0\n"
            "h:1:1 [0] NCCL INFO Using network IB\n")
    log = read_log("x.log", text)
    assert [n.value for n in log.nccl.networks] == ["IB"] and log.nccl.channels == []


def test_long_hostile_lines_are_read_with_bounded_patterns():
    # each of these took seconds with unbounded patterns; now their content is simply not NCCL's
    lines = ["a" * 60000 + " NCCL INFO x", "NCCL INFO " * 6000, "h:1:1 [0] NCCL INFO NCCL_X set to " + " " * 60000 + "x",
             " " * 60000 + "size count type redop x algbw busbw"]
    log = read_log("x.log", "\n".join(lines) + "\nh:1:1 [0] NCCL INFO Using network IB\n")
    assert [n.value for n in log.nccl.networks] == ["IB"] and log.nccl.env == []


def test_old_alltoall_rows_with_an_empty_redop_column():
    # microsoft/superbenchmark test data: old nccl-tests printed no op name for alltoall, so the rows
    # have one field fewer than the header; the columns are read from the fields there are
    text = """\
# nThread 1 nGpus 8 minBytes 1 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 validation: 0
#   Rank  0 Pid 167261 on localhost device  0 [0x00] A100-SXM4-40GB
#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error
     4194304        131072   float             96.44   43.49   38.05    N/A     99.62   42.10   36.84    N/A
     8388608        262144   float             121.1   69.28   60.62    N/A     120.6   69.56   60.87    N/A
"""
    t = read_log("nccl_alltoall.log", text, "nccl_alltoall.log").tests[0]
    assert [(r.size, r.redop, r.busbw()) for r in t.rows] == [(4194304, "", 38.05), (8388608, "", 60.87)]
    cell = t.rows[0].oop["busbw"]
    assert (cell.span.line, cell.span.col) == (4, 64)  # 38.05


def test_redacted_prefix_is_an_nccl_line():
    # `host:pid:tid` cut to one word, as in logs pasted into public issues (ROCm/rccl#2188)
    text = ("node [0] NCCL INFO NET/IB : No device found.\n"
            "node [0] NCCL INFO Using network Socket\n"
            "[2026-08-23 09:56:59] node [1] /app/rccl/src/transport/p2p.cc:256 NCCL WARN hipIpcGetMemHandle failed\n")
    assert sniff(text)
    run = read_log("rccl.log", text, "rccl.log").nccl
    assert run.network.value == "Socket" and (run.network.span.line, run.network.span.col) == (2, 34)
    assert [w.value for w in run.warnings] == ["hipIpcGetMemHandle failed"]


SPLIT_ROW = """\
# Collective test starting: all_reduce_perf
# nThread 1 nGpus 2 minBytes 8388608 maxBytes 8589934592 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0
#  Rank  0 Group  0 Pid  64904 on       mew0 device  0 [0000:17:00] NVIDIA A100 80GB PCIe
#  Rank  1 Group  0 Pid  64904 on       mew0 device  1 [0000:65:00] NVIDIA A100 80GB PCIe
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
     8388608       2097152     float     sum      -1mew0:64904:64904 [1] NCCL INFO AllReduce: opCount 0 sendbuff 0x720000000 recvbuff 0x920000000 count 2097152 datatype 7 op 0 root 0 comm 0x55b6aa64a990 [nranks=2] stream 0x55b6a98daaf0
mew0:64904:64904 [0] NCCL INFO AllReduce: 8388608 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}
    83.33  100.66  100.66      0mew0:64904:64904 [1] NCCL INFO AllReduce: opCount 0 sendbuff 0x920000000 recvbuff 0x920000000 count 2097152 datatype 7 op 0 root 0 comm 0x55b6aa64a990 [nranks=2] stream 0x55b6a98daaf0
mew0:64904:64904 [0] NCCL INFO AllReduce: 8388608 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}
    80.98  103.59  103.59      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 178.078
"""


def test_rows_cut_by_nccl_lines_printed_onto_them():
    # NCCL_DEBUG_SUBSYS=COLL: NCCL logs each call between nccl-tests' printfs of one row (Timez-zx/nccl-tests
    # logs): the row's pieces are joined, the NCCL lines read as NCCL's, the host not taken with the row's -1
    log = read_log("split.log", SPLIT_ROW, "split.log")
    (row,) = log.tests[0].rows
    assert (row.size, row.redop, row.oop["busbw"].value, row.ip["busbw"].value) == (8388608, "sum", 100.66, 103.59)
    assert (row.size_span.line, row.size_span.col) == (7, 6)
    assert (row.ip["busbw"].span.line, row.ip["busbw"].span.col) == (11, 20)
    assert log.nccl.hosts == {"mew0"}


def test_a_table_of_which_no_row_is_read_is_said(tmp_path):
    text = ("# nThread 1 nGpus 2 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 "
            "validation: 1 graph: 0\n"
            "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
            "busbw #wrong\n"
            "  (rows lost by the paste)\n"
            "# Out of bounds values : 0 OK\n"
            "# Avg bus bandwidth    : 178.078\n")
    write_repo(tmp_path, {"t.log": text})
    (f,) = [f for f in run_lint(tmp_path).findings if f.code == "NL012"]
    assert (f.span.line, f.span.col) == (5, 26) and "result table not read" in f.message


EXCERPT = """\
[0] #  Rank  0 Group  0 Pid 497888 on h100clust-worker-1 device  0 [0xa4] NVIDIA H100 80GB HBM3
[0] #  Rank  8 Group  0 Pid 496763 on h100clust-worker-32 device  0 [0xa4] NVIDIA H100 80GB HBM3
[0] h100clust-worker-1:497888:497888 [0] NCCL INFO 256 Bytes -> Algo 0 proto 0 time 25.229528
[0]          512           128     float     sum      -1[0] h100clust-worker-1:497888:497888 [0] NCCL INFO 512 Bytes -> Algo 0 proto 0 time 25.259054
[0]     62.05    0.00    0.01      0
"""


def test_rows_glued_to_nccl_lines_with_no_header_are_said_not_read(tmp_path):
    # NVIDIA/nccl#1453: an excerpt from the device lines on, NCCL_DEBUG_SUBSYS=COLL lines printed into
    # the rows; without the header a piece of a row cannot be placed in its columns
    write_repo(tmp_path, {"allreduce.log": EXCERPT})
    (f,) = [f for f in run_lint(tmp_path).findings if f.code == "NL012"]
    assert (f.span.line, f.span.col) == (4, 5) and f.message.startswith("nccl-tests result rows not read")
    # a run that stopped after its device lines (a crash) has no rows to read: nothing to say
    crashed = EXCERPT.split("[0] h100clust")[0] + "h100-4:1:1 [4] misc/socket.cc:397 NCCL WARN Net : connect failed\n"
    write_repo(tmp_path / "c", {"crash.log": crashed})
    assert [f for f in run_lint(tmp_path / "c").findings if f.code == "NL012"] == []


def test_two_tables_one_after_the_other_are_two_runs():
    # NVIDIA/nccl-tests#78-style paste: a second table right after the first one's footer
    row = "     {size}      {count}     float     sum      -1    10.0  {bw}  {bw}      0    10.0  {bw}  {bw}      0\n"
    table = "".join(row.format(size=1 << k, count=(1 << k) // 4, bw=bw) for k, bw in ((20, "60.00"), (21, "69.00")))
    text = ("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
            "busbw #wrong\n" + table + "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 64.5\n"
            + table.replace("60.00", " 5.00").replace("69.00", " 5.00") + "# Avg bus bandwidth    : 5\n")
    tests = read_log("two.log", text, "two.log").tests
    assert [[r.busbw() for r in t.rows] for t in tests] == [[60.0, 69.0], [5.0, 5.0]]
    assert tests[1].rows[0].size_span.line == 6


def test_pieces_of_a_row_are_not_joined_without_a_header():
    # with no header the pieces cannot say how many fields a row has (a root column or not)
    text = SPLIT_ROW.replace(SPLIT_ROW.splitlines()[4] + "\n", "").replace(SPLIT_ROW.splitlines()[5] + "\n", "")
    log = read_log("split.log", text, "split.log")
    assert [t.rows for t in log.tests] == [[]]


def test_cloudwatch_console_copy():
    # aws/aws-ofi-nccl#889: `  | <time> | <message>`, the host glued to the time zone and the message
    # repeated after ` | `; the bare version line behind the columns
    text = ("  | 2025-05-16T16:39:51.208-07:00 | NCCL version 2.21.5+cuda12.8\n"
            "  | 2025-05-16T16:39:51.208-07:00ip-10-36-29-253:79:79 [0] NCCL INFO Using network Socket | "
            "ip-10-36-29-253:79:79 [0] NCCL INFO Using network Socket\n")
    run = read_log("cw.log", text, "cw.log").nccl
    assert run.version.value == "2.21.5" and (run.version.span.line, run.version.span.col) == (1, 50)
    assert run.network.value == "Socket" and run.hosts == {"ip-10-36-29-253"}



BARE_ROWS = "".join(
    f"[1,0]<stdout>:  {size:>10}  {size // 4:>12}     float     sum      -1    69.10    {b}    {b}      0    "
    f"68.73    {b}    {b}      0\n" for size, b in ((1048576, "15.17"), (2097152, "30.34"), (4194304, "60.68")))


def test_result_rows_pasted_alone_are_read(tmp_path):
    # aws/aws-k8s-tester#585 pastes only the rows of an all_reduce_perf run, each with mpirun's tag
    rows = read_log("nccl_results.log", BARE_ROWS, "nccl_results.log").tests[0].rows
    assert [(r.size, r.oop["busbw"].value) for r in rows] == [(1048576, 15.17), (2097152, 30.34), (4194304, 60.68)]
    assert (rows[0].size_span.line, rows[0].size_span.col) == (1, 20)
    assert sniff(BARE_ROWS) and not sniff(BARE_ROWS.splitlines(keepends=True)[0] * 2)   # one row is no table


def test_a_parameters_line_with_a_tab_or_several_blanks_is_read():
    # NVIDIA/nccl#583's paste: a tab before `iters:`; the run kept no nThread/nGpus, silently
    for blank in ("\t", "       "):
        t = read_log("x.txt", f"# nThread 1 nGpus 8 minBytes 32 maxBytes 8589934592 step: 2(factor) warmup iters: 5"
                              f"{blank}iters: 20 validation: 1\n" + HEADER + ROW).tests[0]
        assert (t.params["nGpus"], t.params["iters"], t.params["maxBytes"]) == (8, 20, 8589934592)


HEADER = ("#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw"
          " #wrong\n")
ROW = "     1048576        262144     float     sum      -1    30.11   34.82   65.29      0    30.05   34.89   65.42      0\n"


@pytest.mark.parametrize("name", ["job04.sh.7194285.nccl", "job04.sh.o7194285", "job04.sh.e7194285",
                                  "log/gpt3-megatron.3314739.o", "slurm-4242.out"])
def test_scheduler_output_names_are_read_as_logs(tmp_path, name):
    # round 10: ABCI's `job04.sh.7194285.nccl` / SGE `.o<id>` and Summit's LSF `%J.o` were skipped by name
    text = ("# nThread 1 nGpus 8 minBytes 32 maxBytes 1048576 step: 2(factor) warmup iters: 5 iters: 20 "
            "validation: 1\n" + HEADER + ROW)
    report = run_lint(write_repo(tmp_path, {name: text}))
    assert [r.file for r in report.workspace.runs] == [name]


def test_an_object_file_is_no_log_name():
    from netlint.loader_names import run_log

    assert not run_log("main.o", ".o") and run_log("gpt3.3314739.o", ".o") and not run_log("a.o7x", ".o7x")
