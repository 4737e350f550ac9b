from __future__ import annotations

import re
from typing import Iterator

from netlint.findings import Edit, Finding, Fix, Severity, replace_span
from netlint.located import Span
from netlint.nccl import scope
from netlint.rules.base import Rule


class NcclConfShellSyntax(Rule):
    """Shell syntax in an nccl.conf file, where NCCL reads it literally.

    What: NCCL reads `/etc/nccl.conf`, `~/.nccl.conf` and `$NCCL_CONF_FILE` itself: the name is
    everything before the first `=` and the value everything after it, verbatim. So `export NCCL_X=1`
    sets a variable named `export NCCL_X`; `NCCL_X="eth0"` keeps the quotes; `NCCL_X=WARN  # prod`
    keeps the comment; spaces around the name or after the value stay; a line without `=` is
    skipped; only a `#` in column 0 starts a comment.

    Why: the variable is never set, or has a value that matches nothing (`"eth0"` with quotes is not
    an interface name), and NCCL says nothing.

    Bad:  `export NCCL_DEBUG=WARN`, `NCCL_SOCKET_IFNAME="eth0"`, `NCCL_DEBUG=WARN  # prod`
    Good: `NCCL_DEBUG=WARN`, `NCCL_SOCKET_IFNAME=eth0`

    Fix: remove `export `, the quotes or the spaces; move an inline comment to its own line above
    (unsafe: the setting then takes effect).

    Source: NVIDIA/nccl@5067397c (2.30.7) `src/misc/param.cc` L27-50 (`setEnvFile`: the line end is
    stripped; a line whose first byte is `#`, or that has no `=`, is skipped; the name is the text
    before the first `=`, the value the rest, verbatim), L52-67 (`initEnvFunc`: `$NCCL_CONF_FILE` or
    `~/.nccl.conf`, then `/etc/nccl.conf`), `src/os/linux.cc` L107; NCCL User Guide, Environment
    Variables (introduction: nccl.conf files).
    """

    code = "NCCL309"
    name = "nccl-conf-shell-syntax"
    summary = "Shell syntax (export, quotes, inline #) in nccl.conf, which NCCL reads literally"
    severity = Severity.ERROR
    tags = ("nccl",)

    def check(self, ws) -> Iterator[Finding]:
        for env in scope.envs(ws):
            if env.format != "nccl.conf":
                continue
            text = ws.text(env.file)
            for var in env.variables:
                yield from self._line(var, text, ws)

    def _line(self, var, text, ws) -> Iterator[Finding]:
        flags = set(var.flags)
        name = var.key
        if "no-equals" in flags:
            yield self.finding(f"nccl.conf line '{name.strip()}' has no '=': NCCL skips it", var.name.span,
                               key=f"line:{name.strip()}", severity=Severity.WARNING)
            return
        if "export" in flags:
            real = name[len("export"):].strip()
            span = var.name.span
            fix = Fix(f"remove 'export '", (replace_span(span, real, text),), safe=False)
            yield self.finding(f"nccl.conf is not shell: this line sets a variable named '{name}', so {real} "
                               f"stays unset; remove 'export '", span, key=real, fix=fix)
            return
        if "name-space" in flags or "indented-comment" in flags:
            real = name.strip()
            if real.startswith("#"):
                yield self.finding(f"only '#' in column 0 starts a comment in nccl.conf: this line sets a "
                                   f"variable named '{name}'", var.name.span, key=f"line:{real}",
                                   severity=Severity.WARNING)
                return
            fix = Fix("remove the spaces around the name", (replace_span(var.name.span, real, text),), safe=False)
            yield self.finding(f"the name ends at the first '=' in nccl.conf, spaces included: this sets "
                               f"'{name}', not {real}", var.name.span, key=real, fix=fix)
            return
        value = var.known
        if value is None:
            return
        if "quoted" in flags:
            inner = value[1:-1]
            edit = replace_span(var.value.span, inner, text)
            yield self.finding(f"nccl.conf keeps quotes: {name} is {value} with the quote characters; write "
                               f"{name}={inner}", var.span, key=name,
                               fix=Fix("remove the quotes", (edit,), safe=False))
        if "inline-comment" in flags:
            m = re.search(r"\s+#", value)
            kept = value[:m.start()]
            cut = var.value.span
            start = cut.start + m.start()
            span = Span(cut.file, cut.line, cut.col + m.start(), cut.end_line, cut.end_col, start, cut.end)
            yield self.finding(f"nccl.conf has no inline comments: the value of {name} is '{value}', comment "
                               f"included", span, key=name,
                               fix=_move_comment(span, value[m.start():].strip(), var.name.span, text))
        elif "trailing-space" in flags:
            kept = value.rstrip()
            cut = var.value.span
            start = cut.start + len(kept)
            span = Span(cut.file, cut.line, cut.col + len(kept), cut.end_line, cut.end_col, start, cut.end)
            yield self.finding(f"nccl.conf keeps trailing spaces: the value of {name} is '{value}'", span,
                               key=name, severity=Severity.WARNING,
                               fix=Fix("remove the trailing spaces", (replace_span(span, "", text),), safe=False))


def _move_comment(span: Span, comment: str, name: Span, text: str | None) -> Fix | None:
    """Cut the inline comment and write it on its own line above the setting (``#`` in column 0)."""
    if text is None or name.start < 0:
        return None
    at = text.rfind("\n", 0, name.start) + 1
    nl = "\r\n" if text[span.end:span.end + 2] == "\r\n" else "\n"
    insert = Edit(Span(span.file, name.line, 1, name.line, 1, at, at), comment + nl, "")
    return Fix("move the comment to its own line", (replace_span(span, "", text), insert), safe=False)
