"""nccl-tests output written by the tests in nccl-tests' own printf shapes (see fixtures/README.md).

``nccl_tests_text`` prints what ``all_reduce_perf`` (etc.) prints for a given bus bandwidth per size:
the version/starting/parameters lines, one ``#  Rank`` line per rank, the two header lines and one
row per size, then the footer — each with the format string of NVIDIA/nccl-tests@a0b82b22
``src/util.cu`` (L457, L508, L623-625, L687, L756-759, L777-778).
"""

from __future__ import annotations

FACTORS = {"all_reduce_perf": lambda n: 2 * (n - 1) / n, "all_gather_perf": lambda n: (n - 1) / n,
           "reduce_scatter_perf": lambda n: (n - 1) / n, "alltoall_perf": lambda n: (n - 1) / n,
           "sendrecv_perf": lambda n: 1.0, "broadcast_perf": lambda n: 1.0}
REDOP = {"all_reduce_perf": "sum", "reduce_scatter_perf": "sum"}


def float_str(value: float, width: int) -> str:
    """util.cu getFloatStr (L487-492): %.2f, else %.1f, else %.0f, else %e, in ``width``."""
    for fmt in ("%*.2f", "%*.1f", "%*.0f"):
        s = fmt % (width, value)
        if len(s) <= width:
            return s
    return ("%*.1e" if width >= 7 else "%*.0e") % (width, value)


def sizes(lo: int = 8, hi: int = 8 << 30) -> list[int]:
    out, s = [], lo
    while s <= hi:
        out.append(s)
        s *= 2
    return out


def nccl_tests_text(program: str, hosts: list[str], gpus_per_host: int, busbw, wrong=lambda size, ip: 0,
                 size_list: list[int] | None = None, prefix: str = "", footer: bool = True) -> str:
    """The text of one run; ``busbw(size)`` gives GB/s, ``wrong(size, in_place)`` the #wrong column."""
    n = len(hosts) * gpus_per_host
    factor = FACTORS[program](n)
    size_list = size_list or sizes()
    lines = ["# nccl-tests version 2.19.6 nccl-headers=22304 nccl-library=22304",
             f"# Collective test starting: {program}",
             "# nThread %d nGpus %d minBytes %ld maxBytes %ld step: %ld(%s) warmup iters: %d iters: %d agg iters: %d "
             "validation: %d graph: %d unalign: %d" % (1, 1, size_list[0], size_list[-1], 2, "factor", 5, 20, 1, 1, 0, 0),
             "#", "# Using devices"]
    rank = 0
    for h in hosts:
        for d in range(gpus_per_host):
            lines.append("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s"
                         % (rank, 0, 4000 + rank, h, d, 0, 0x18 + d * 0x10, 0, "NVIDIA H100 80GB HBM3"))
            rank += 1
    lines.append("#")
    lines.append("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          "
                 % ("", "", "", "", ""))
    lines.append("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s"
                 % ("size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
                    "busbw", "#wrong", 0, ""))
    lines.append("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s"
                 % ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", 0, ""))
    total, rows = 0.0, 0
    oob = 0
    for size in size_list:
        bus = busbw(size)
        alg = bus / factor
        time_us = size / (alg * 1e3)
        row = "%12li  %12li  %8s  %6s  %6s" % (size, size // 4, "float", REDOP.get(program, "none"), "-1")
        for ip in (False, True):
            w = wrong(size, ip)
            oob += w
            row += "  %7s  %6s  %6s  %6g" % (float_str(time_us, 7), float_str(alg, 6), float_str(bus, 6), w)
        lines.append(row)
        total += bus * 2
        rows += 2
    if footer:
        lines.append("# %-20s : %d %s" % ("Out of bounds values", oob, "FAILED" if oob else "OK"))
        lines.append("# %-20s : %g %s" % ("Avg bus bandwidth", total / rows, ""))
        lines.append("#")
        lines.append(f"# Collective test concluded: {program}")
    return "\n".join(prefix + line for line in lines) + "\n"
