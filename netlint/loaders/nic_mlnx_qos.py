"""``mlnx_qos -i <if>`` output saved as text → trust, DSCP→priority, PFC vector, priority→TC (runtime).

The shape is the one ``pretty_print`` in Mellanox/mlnx-tools@8fbfd9cf python/mlnx_qos (L294-366)
prints::

    DCBX mode: OS controlled
    Priority trust state: dscp
    dscp2prio mapping:
            prio:0 dscp:07,06,05,04,03,02,01,00,
            prio:3 dscp:31,30,29,28,27,26,25,24,
    Receive buffer size (bytes): 130944,130944,0,0,0,0,0,0,
    Cable len: 7
    PFC configuration:
            priority    0   1   2   3   4   5   6   7
            enabled     0   0   0   1   0   0   0   0
            buffer      0   0   0   1   0   0   0   0
    tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%
             priority:  3

A priority's DSCP list wraps after eight entries onto another ``prio:N dscp:`` line (L284-291). The
interface is known when the dump records its command (``mlnx_qos -i eth2``). All values are runtime.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from netlint.loaders.nic_text import DumpLoader, command_arg
from netlint.located import Scalar
from netlint.nic.build import NicBuilder
from netlint.nic.text import Lines
from netlint.source import SourceFile

_TRUST = re.compile(r"^\s*Priority trust (?:state|mode):\s*(?P<v>\w+)")
_DSCP = re.compile(r"^\s*prio:\s*(?P<p>\d)\s+dscp:\s*(?P<list>[\d,\s]*)$")
_ENABLED = re.compile(r"^\s*enabled\s+(?P<bits>[01](?:\s+[01]){7})\s*$")
_TC = re.compile(r"^\s*tc:\s*(?P<tc>\d+)\b")
_PRIO = re.compile(r"^\s*(?:up:\s*\d+\s+)?priority:\s+(?P<p>\d)\s*$")
_CABLE = re.compile(r"^\s*Cable len:\s*(?P<v>\d+)")
VIA = "mlnx_qos"


class MlnxQosLoader(DumpLoader):
    name = "nic-mlnx-qos"

    def claims(self, src: SourceFile) -> bool:
        text = src.text
        return "Priority trust state" in text or ("PFC configuration:" in text and "enabled" in text)

    def load(self, src: SourceFile) -> Iterator[Any]:
        lines = Lines(src.path, src.text)
        b = NicBuilder(src.path, "mlnx_qos", lines.first(), src.abspath.stem)
        cmd = command_arg(src.text, "mlnx_qos", "-i")
        if cmd is not None:
            i, m = cmd
            b.scope["interface"] = Scalar(m.group("value"), lines.span(i, m.start("value"), m.end("value")),
                                          m.group("value"))
            b.name = m.group("value")
        tc: int | None = None
        for i, line in lines:
            if (m := _TRUST.match(line)) is not None:
                word = m.group("v").lower()
                if word in ("dscp", "pcp"):
                    b.put("trust", word, lines.span(i, m.start("v"), m.end("v")), layer="runtime",
                          via=f"{VIA} Priority trust state")
            elif (m := _DSCP.match(line)) is not None:
                prio = int(m.group("p"))
                for d in re.finditer(r"\d+", m.group("list")):
                    a, z = m.start("list") + d.start(), m.start("list") + d.end()
                    b.put("dscp_to_prio", prio, lines.span(i, a, z), layer="runtime", via=f"{VIA} dscp2prio",
                          raw=d.group(0), index=int(d.group(0)))
            elif (m := _ENABLED.match(line)) is not None:
                bits = m.group("bits").split()
                prios = tuple(p for p, bit in enumerate(bits) if bit == "1")
                b.put("pfc", prios, lines.span(i, m.start("bits"), m.end("bits")), layer="runtime",
                      via=f"{VIA} PFC enabled", raw=",".join(bits))
            elif (m := _TC.match(line)) is not None:
                tc = int(m.group("tc"))
            elif (m := _PRIO.match(line)) is not None and tc is not None:
                b.put("prio_to_tc", tc, lines.span(i, m.start("p"), m.end("p")), layer="runtime",
                      via=f"{VIA} tc {tc}", index=int(m.group("p")))
            elif (m := _CABLE.match(line)) is not None:
                b.put("other", int(m.group("v")), lines.span(i, m.start("v"), m.end("v")), layer="runtime",
                      via=f"{VIA} Cable len", index="cable_len")
        if not b.empty():
            yield from b.build()
