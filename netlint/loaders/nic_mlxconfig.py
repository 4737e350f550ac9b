"""``mlxconfig -d <dev> query`` (or ``mstconfig``) output saved as text → firmware NV config.

The tool prints one block per device::

    Device #1:
    ----------

    Device type:        ConnectX7
    Name:               MCX75310AAS-NEA_Ax
    Device:             0000:1a:00.0

    Configurations:                                      Default         Current         Next Boot
    *       ROCE_CC_PRIO_MASK_P1                        255             8               8
            CNP_DSCP_P1                                 48              48              48

``query`` without ``-e`` prints the "Next Boot" column only. netlint takes "Current" when printed
(what the firmware runs now), else "Next Boot"; a "Next Boot" value that differs from "Current" is
kept in ``nic.firmware_next_boot``. Values read as numbers: ``True(1)`` 1, ``ECN(0)`` 0, ``0xff`` 255.
``_P1``/``_P2`` parameters belong to that port, so a dual-port card gives one NicQos per port.
Every value is located at its own token in the chosen column. Parameter names and the per-port
suffix: DOCA "DCQCN CC Parameters" (NVConfig column); a real query of a ConnectX-5 in this shape:
ironcore-dev/dpservice#26.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from netlint.loaders.nic_text import DumpLoader, command_arg
from netlint.located import Scalar
from netlint.nic.build import NicBuilder
from netlint.nic.text import Lines
from netlint.source import SourceFile

_PARAM = re.compile(r"^\s*(?P<star>\*)?\s*(?P<name>[A-Z][A-Z0-9_]*(?:\[\d+\])?)\s+(?P<rest>\S.*)$")
_DEVICE = re.compile(r"^\s*Device:\s+(?P<dev>\S+)")
_BLOCK = re.compile(r"^\s*Device #\d+:")


class MlxconfigLoader(DumpLoader):
    name = "nic-mlxconfig"

    def claims(self, src: SourceFile) -> bool:
        text = src.text
        if "Configurations:" not in text:
            return False
        return bool(re.search(r"^\s*\*?\s*[A-Z][A-Z0-9_]+\s+\S", text.split("Configurations:", 1)[1], re.M))

    def load(self, src: SourceFile) -> Iterator[Any]:
        lines = Lines(src.path, src.text)
        stem = src.abspath.stem
        cmd = command_arg(src.text, "mlxconfig", "-d") or command_arg(src.text, "mstconfig", "-d")
        cmd_dev = None
        if cmd is not None:
            i, m = cmd
            cmd_dev = Scalar(m.group("value"), lines.span(i, m.start("value"), m.end("value")), m.group("value"))
        for block in _blocks(lines):
            builder, device = _block(lines, block, src.path, stem)
            device = device or cmd_dev
            if builder.empty():
                continue
            builder.scope["device"] = device
            if device is not None:
                builder.name = str(device.value)
            yield from builder.build(per_port=True)


def _blocks(lines: Lines) -> list[list[int]]:
    """Line indexes of each ``Device #N:`` block (the whole file when there is no such header)."""
    out: list[list[int]] = [[]]
    for i, line in lines:
        if _BLOCK.match(line) and out[-1]:
            out.append([])
        out[-1].append(i)
    return out


def _block(lines: Lines, block: list[int], file: str, stem: str) -> tuple[NicBuilder, Scalar | None]:
    builder = NicBuilder(file, "mlxconfig", lines.line_span(block[0]) if block else lines.first(), stem)
    device = None
    columns: list[str] | None = None
    for i in block:
        line = lines.lines[i]
        m = _DEVICE.match(line)
        if m and device is None:
            device = Scalar(m.group("dev"), lines.span(i, m.start("dev"), m.end("dev")), m.group("dev"))
            continue
        if line.lstrip().startswith("Configurations:"):
            head = line.split("Configurations:", 1)[1].strip()
            columns = re.split(r"\s{2,}", head) if head else ["Next Boot"]
            builder.span = lines.line_span(i)
            continue
        if columns is None:
            continue
        m = _PARAM.match(line)
        if m is None:
            continue
        values = [(t.group(0), t.start(), t.end()) for t in re.finditer(r"\S+", line[m.start("rest"):])]
        if len(values) != len(columns):
            continue  # a wrapped or unexpected row: not guessed
        off = m.start("rest")
        pick = columns.index("Current") if "Current" in columns else len(columns) - 1
        raw, a, b = values[pick]
        name = m.group("name")
        builder.firmware(name, raw, lines.span(i, off + a, off + b))
        if "Next Boot" in columns and pick != columns.index("Next Boot"):
            nraw, na, nb = values[columns.index("Next Boot")]
            if nraw != raw:
                builder.firmware(name, nraw, lines.span(i, off + na, off + nb), next_boot=True)
    return builder, device
