"""Dockerfiles: the ``ENV`` instructions, which set the environment of every container of the image.

Files named ``Dockerfile``, ``*.Dockerfile``, ``Dockerfile.*`` (``Containerfile`` likewise). Read as
BuildKit reads them (moby/buildkit@12a6a7c ``frontend/dockerfile/parser``):

- a line ending with the escape character (``\\``, or the one a ``# escape=`` directive names) continues
  on the next; comment lines inside a continued instruction are dropped;
- ``ENV NAME=value NAME2="v 2" …``: words split on blanks outside quotes, each ``NAME=value``
  (``line_parsers.go`` ``parseWords``/``parseNameVal``, new form);
- ``ENV NAME value with spaces``: the legacy form, taken when the first word has no ``=``: the name is
  the first word and the value all the rest of the line (``parseNameVal``, "old format");
- the value is then processed like a shell word: quotes removed, ``\\`` escapes the next character,
  ``$VAR``/``${VAR}`` expanded from earlier ``ENV``/``ARG`` — a value with such a reference is Unknown.

A build stage starts at each ``FROM``; a stage built ``FROM`` an earlier one inherits its variables.
One :class:`NcclEnv` per stage that sets anything (format ``dockerfile``, ``how`` = ``dockerfile``;
``scope`` names the stage when the file has several). The image's environment is the lowest layer a
process sees: ``docker run -e``, Compose ``environment:`` and Kubernetes ``env:`` override it.

A ``RUN`` that writes an nccl.conf (``echo NCCL_X=v >> /etc/nccl.conf``, ``printf``, ``| tee``) gives
an ``nccl.conf`` env of the file (:mod:`netlint.nccl.conf_writes`, scope ``[stage x ]RUN echo > …``):
NCCL reads that file below the environment, so the same stage's ``ENV`` wins over it
(:mod:`netlint.nccl.layers`). The Dockerfile may also be claimed for such a ``RUN`` alone.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from netlint.loader_names import is_dockerfile  # noqa: F401  (importers find it here)
from netlint.loaders.base import Loader
from netlint.source import SourceFile

_DIRECTIVE = re.compile(r"#\s*escape\s*=\s*(\S)", re.I)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_REF = re.compile(r"\$(?:\{[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_])")
_RUN_CONF = re.compile(r"(?im)^\s*RUN\s.*(?:\n.*)*?nccl\.conf")


class DockerfileEnvLoader(Loader):
    name = "nccl-dockerfile"
    kind = "nccl_envs"
    wants_by = "dockerfile"

    def claims(self, src: SourceFile) -> bool:
        from netlint.nccl.build import mentions_nccl

        return is_dockerfile(src.name) and mentions_nccl(src.text) and (
            re.search(r"(?im)^\s*ENV\s", src.text) is not None or _RUN_CONF.search(src.text) is not None)

    def load(self, src: SourceFile) -> Iterator[Any]:
        yield from dockerfile_envs(src.path, src.text)


def _logical_lines(text: str) -> Iterator[tuple[str, list[int]]]:
    """(instruction text, file offset of each of its characters), continuations joined."""
    m = None
    for line in text.split("\n"):   # parser directives come first, before any instruction or comment
        m = _DIRECTIVE.match(line.strip())
        if m or not line.strip().startswith("#"):
            break
    esc = m.group(1) if m else "\\"
    chars: list[str] = []
    offs: list[int] = []
    pos = 0
    for line in text.split("\n"):
        start, pos = pos, pos + len(line) + 1
        body = line.rstrip("\r")
        if chars and (not body.strip() or body.lstrip().startswith("#")):
            continue   # blank and comment lines inside a continued instruction
        if not chars and body.lstrip().startswith("#"):
            continue
        stripped = body.rstrip(" \t")
        if stripped.endswith(esc):
            cut = len(stripped) - 1
            chars += list(body[:cut])
            offs.extend(range(start, start + cut))
            continue
        chars += list(body)
        offs.extend(range(start, start + len(body)))
        yield "".join(chars), offs
        chars, offs = [], []
    if chars:
        yield "".join(chars), offs


def _words(s: str, a: int) -> Iterator[tuple[int, int]]:
    """(start, end) of each word of ``s[a:]``: blanks outside quotes separate words (parseWords)."""
    i, n = a, len(s)
    while i < n:
        while i < n and s[i].isspace():
            i += 1
        if i >= n:
            return
        j, quote = i, ""
        while j < n and (quote or not s[j].isspace()):
            c = s[j]
            if quote:
                if c == "\\" and quote == '"' and j + 1 < n:
                    j += 1
                elif c == quote:
                    quote = ""
            elif c in "'\"":
                quote = c
            elif c == "\\" and j + 1 < n:
                j += 1
            j += 1
        yield i, j
        i = j


def _unquote(raw: str) -> tuple[str, bool]:
    """The value after word processing: quotes removed, backslash escapes (and whether a ``$`` reference
    remains outside single quotes)."""
    out, quote, i, ref = [], "", 0, False
    while i < len(raw):
        c = raw[i]
        if quote == "'":
            if c == "'":
                quote = ""
            else:
                out.append(c)
        elif c == "\\" and i + 1 < len(raw):
            i += 1
            out.append(raw[i])
        elif c in "'\"" and (not quote or c == quote):
            quote = "" if quote else c
        else:
            if c == "$" and _REF.match(raw, i):
                ref = True
            out.append(c)
        i += 1
    return "".join(out), ref


def dockerfile_envs(file: str, text: str) -> Iterator[Any]:
    from netlint.located import Span
    from netlint.models.nccl import NcclEnv
    from netlint.nccl.build import LineIndex

    from netlint.nccl.conf_writes import write_envs

    idx = LineIndex(file, text)
    stages: list[tuple[str | None, Span, list]] = []
    writes: dict[int, list] = {}   # stage index -> nccl.conf writes of its RUN instructions
    names: dict[str, list] = {}
    for line, offs in _logical_lines(text):
        m = re.match(r"\s*(\w+)", line)
        if not m:
            continue
        word = m.group(1).upper()
        if word == "FROM":
            parts = [p for p in line.split() if not p.startswith("--")]
            alias = parts[3] if len(parts) >= 4 and parts[2].lower() == "as" else None
            base = names.get(parts[1].lower(), []) if len(parts) > 1 else []
            stages.append((alias, idx.span(offs[m.start(1)], offs[m.end(1) - 1] + 1), list(base)))
            if alias:
                names[alias.lower()] = stages[-1][2]
        elif word == "ENV":
            if not stages:
                stages.append((None, idx.span(offs[m.start(1)], offs[m.start(1)]), []))
            stages[-1][2].extend(_env_vars(line, offs, m.end(1), idx))
        elif word == "RUN" and "nccl.conf" in line.lower():
            writes.setdefault(max(len(stages) - 1, 0), []).extend(_run_writes(file, text, offs, m.end(1)))
    several = len(stages) > 1
    for k, (alias, span, variables) in enumerate(stages):
        label = f"stage {alias or k}" if several else None
        # nccl.conf lines a RUN writes (echo/printf/tee): NCCL's lowest layer, below the image's ENV
        yield from write_envs(file, writes.get(k, []), prefix=f"{label} RUN " if label else "RUN ")
        if variables:
            yield NcclEnv(file=file, format="dockerfile", scope=label, span=span, variables=variables)
    if not stages and writes.get(0):
        yield from write_envs(file, writes[0], prefix="RUN ")


def _run_writes(file: str, text: str, offs: list[int], start: int) -> list:
    """The nccl.conf writes of one ``RUN`` (:mod:`netlint.nccl.conf_writes`; ``/bin/sh`` semantics)."""
    from netlint.nccl.conf_writes import conf_writes, run_script

    script = run_script(file, text, offs, start)
    return conf_writes(script, text, posix=True) if script is not None else []


def _env_vars(line: str, offs: list[int], a: int, idx: Any) -> list[Any]:
    from netlint.located import Scalar
    from netlint.models.nccl import NcclVar, Unknown

    def span(i: int, j: int):
        return idx.span(offs[i], offs[j - 1] + 1) if j > i else idx.span(offs[i - 1] + 1, offs[i - 1] + 1)

    words = list(_words(line, a))
    if not words:
        return []
    out = []
    if "=" not in line[words[0][0]:words[0][1]]:   # legacy: ENV NAME value with spaces
        (ns, ne), rest = words[0], words[1:]
        if not rest:
            return []
        pairs = [(ns, ne, rest[0][0], len(line.rstrip()))]
    else:
        pairs = []
        for ws, we in words:
            eq = line.find("=", ws, we)
            if eq < 0:
                return out   # BuildKit rejects the instruction ("can't find = in …")
            pairs.append((ws, eq, eq + 1, we))
    for ns, ne, vs, ve in pairs:
        name = line[ns:ne]
        if not _NAME.match(name):
            continue
        raw = line[vs:ve]
        text, ref = _unquote(raw)
        vspan = span(vs, ve)
        if ref:
            value: Any = Unknown(raw, vspan, "a $VAR reference (expanded from an earlier ENV or ARG)")
        else:
            value = Scalar(text, vspan, raw, len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'")
        out.append(NcclVar(name=Scalar(name, span(ns, ne), name, False), value=value, how="dockerfile",
                           statement=span(ns, ve)))
    return out
