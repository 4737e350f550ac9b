"""``nccl.conf`` files (``/etc/nccl.conf``, ``~/.nccl.conf``, ``$NCCL_CONF_FILE``): NCCL's own format.

This is **not** shell. NVIDIA/nccl@5067397c ``src/misc/param.cc`` ``setEnvFile()`` reads each line:
trailing ``\\n``/``\\r`` stripped; a line whose first byte is ``#`` is skipped; a line without ``=`` is
skipped; the name is everything before the **first** ``=``; the value is everything after it, verbatim
(no trimming, no unquoting, no ``export`` handling). So ``NCCL_IB_HCA==mlx5_0`` has the value ``=mlx5_0``,
``export NCCL_DEBUG=WARN`` sets a variable literally named ``export NCCL_DEBUG``, and
``NCCL_DEBUG=WARN  # prod`` has the value ``WARN  # prod``. The loader keeps exactly that meaning and
marks the quirks in ``NcclVar.flags`` for the rule that reports them (NCCL309).

Recognised by name (``nccl.conf``, ``.nccl.conf``, ``*.nccl.conf``) or, for other ``*.conf`` files, by
content: every non-comment line is ``NAME=VALUE`` and some name is an NCCL variable, with no ``export``
(a ``.conf`` full of ``export`` lines is a shell file meant to be sourced, like Azure's ``hopper.conf``).
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from netlint.loaders.base import Loader
from netlint.source import SourceFile

_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def is_conf_name(name: str) -> bool:
    low = name.lower()
    return low in ("nccl.conf", ".nccl.conf") or low.endswith(".nccl.conf") or low.endswith("_nccl.conf")


class NcclConfLoader(Loader):
    name = "nccl-conf"
    kind = "nccl_envs"
    suffixes = (".conf",)
    filenames = ("nccl.conf", ".nccl.conf")

    def claims(self, src: SourceFile) -> bool:
        text = src.text
        if is_conf_name(src.name):
            return True
        if "NCCL_" not in text:
            return False
        lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
        return bool(lines) and all(_PLAIN.match(ln) for ln in lines) and \
            any(ln.startswith("NCCL_") for ln in lines)

    def load(self, src: SourceFile) -> Iterator[Any]:
        yield parse_conf(src.path, src.text)


def parse_conf(file: str, text: str, index: Any = None, scope: str | None = None):
    """NCCL's reading of ``text``. ``index`` maps offsets in ``text`` to spans (default: ``text`` is
    the whole of ``file``; a here-document body passes its own, so spans land in the script); an
    index with ``unknown(start, end)`` marks values a shell left unknown."""
    from netlint.located import Span
    from netlint.models.nccl import NcclEnv, NcclVar, Unknown
    from netlint.nccl.build import LineIndex, TEMPLATE

    idx = index if index is not None else LineIndex(file, text)
    unknown = getattr(idx, "unknown", None)
    variables = []
    offset = 0
    for raw_line in text.split("\n"):
        start = offset
        offset += len(raw_line) + 1
        line = raw_line.rstrip("\r")
        if not line or line.startswith("#") or "=" not in line:
            if line.strip() and not line.startswith("#") and "=" not in line:
                # NCCL skips it; keep a flagged pseudo-variable so NCCL309 can say so
                name = idx.scalar(line, start, start + len(line))
                variables.append(NcclVar(name=name, value=None, how="nccl.conf", exported=False,
                                         statement=idx.span(start, start + len(line)), flags=["no-equals"]))
            continue
        name_text, value_text = line.split("=", 1)
        eq = start + len(name_text)
        name = idx.scalar(name_text, start, eq)
        v_start, v_end = eq + 1, eq + 1 + len(value_text)
        flags = []
        if name_text.startswith("export ") or name_text.startswith("export\t"):
            flags.append("export")
        elif name_text != name_text.strip():
            flags.append("name-space")
        elif name_text.lstrip().startswith("#"):
            flags.append("indented-comment")
        if len(value_text) >= 2 and value_text[0] == value_text[-1] and value_text[0] in "\"'":
            flags.append("quoted")
        m = re.search(r"\s+#", value_text)
        if m:
            flags.append("inline-comment")
        elif value_text != value_text.rstrip():
            flags.append("trailing-space")
        why = unknown(v_start, v_end) if unknown is not None else None
        if TEMPLATE.search(value_text):
            value: Any = Unknown(value_text, idx.span(v_start, v_end), "a template placeholder ({{ ... }})")
        elif why is not None:
            value = Unknown(value_text, idx.span(v_start, v_end), why)
        else:
            value = idx.scalar(value_text, v_start, v_end)
        variables.append(NcclVar(name=name, value=value, how="nccl.conf",
                                 statement=idx.span(start, start + len(line)), flags=flags))
    return NcclEnv(file=file, format="nccl.conf", scope=scope, span=Span(file, 1, 1, 1, 1, 0, 0),
                   variables=variables)
