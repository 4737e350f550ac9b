"""RoCE setup scripts: the commands that set the NIC's QoS, read as bash runs them → runtime values.

A script that configures the host end of the lossless path writes the same values the dumps show,
with the tools that set them (the classic Mellanox lossless-RoCE recipe):

- ``mlnx_qos -i <if> --trust dscp|pcp``, ``--pfc 0,0,0,1,0,0,0,0`` (``-f``), ``--dscp2prio set,26,3``
  (repeatable), ``--prio_tc …`` (``-p``), ``--cable_len N`` — Mellanox/mlnx-tools@088fadb3
  python/mlnx_qos (its ``add_option`` list, and the parsing of each: eight 0/1 items for ``--pfc``,
  ``set|del,<dscp>,<prio>`` for ``--dscp2prio``, eight TCs for ``--prio_tc``);
- ``cma_roce_tos -d <hca> -p <port> -t <tos>`` (RDMA-CM's default ToS; Mellanox/mlnx-tools@1af04699
  sbin/cma_roce_tos: device ``mlx5_0`` and port 1 unless given);
- ``echo <value> > <sysfs file>`` for the files :mod:`netlint.loaders.nic_sysfs` reads
  (``/sys/class/infiniband/<hca>/tc/<port>/traffic_class``, ``/sys/class/net/<if>/ecn/roce_np/enable/3``,
  ``…/qos/trust``, the configfs ``default_roce_tos``), also inside ``sh -c '…'``;
- ``mlxconfig -d <dev> [-y] set NAME=VALUE …`` (firmware NV config, as a ``mlxconfig query`` lists it);
- iproute2 ``dcb pfc set dev <if> prio-pfc 0:off … 3:on …`` (all eight priorities, or ``all:off`` and
  the exceptions) and ``dcb app add|replace dev <if> dscp-prio 26:3 …`` (dcb-pfc(8), dcb-app(8));
- open-lldp ``lldptool -T -i <if> -V PFC enabled=3`` (lldptool-pfc(8); ``willing=yes`` is said at info
  level: the switch's PFC is then taken by DCBX).

The script is evaluated by netlint's bash reader, so variables, functions and ``sudo``/``sh -c`` are
followed. A command inside a branch netlint cannot decide is not read (it may not run) and a value
only the run knows is not guessed: both are said once, as NL012. One NicQos per interface, RDMA device
(and port) or device the commands name, as the sysfs listing does.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from netlint.loader_names import SHELL_SUFFIXES
from netlint.loaders.base import Loader, is_shell_trace, script_by_name_or_first_line
from netlint.source import SourceFile
from netlint.nic.commands import (_MLNX_VALUE_OPTS, _path, _runs, _sets_something, _shown, _substituted_setter,
                                   _sysfs_target, _text, _written)

# what a NIC setup script holds; a cheap test before the script is evaluated
_MARKERS = ("mlnx_qos", "cma_roce_tos", "/ecn/roce_", "/traffic_class", "/qos/trust", "default_roce_tos",
            "default_roce_mode", "/cc_params/", "mlxconfig", "mstconfig", "dcb pfc", "dcb app", "lldptool")
_WRAPPERS = ("sudo", "nohup", "exec", "command", "time")


class NicScriptLoader(Loader):
    name = "nic-script"
    kind = "nics"
    suffixes = SHELL_SUFFIXES
    wants_by = "shell"

    def claims(self, src: SourceFile) -> bool:
        text = src.text
        if not any(m in text for m in _MARKERS) or not script_by_name_or_first_line(src) or is_shell_trace(text):
            return False
        reader = _ScriptReader(src)
        if not (reader.commands or reader.skipped or reader.unknown or reader.written or reader.substituted
                or reader.partial):
            return False
        self._last = (src, reader)  # load() follows claims() for the same file: evaluated once
        return True

    def load(self, src: SourceFile) -> Iterator[Any]:
        last, self._last = self._last, None
        reader = last[1] if last is not None and last[0] is src else _ScriptReader(src)
        yield from reader.notes()
        for b in reader.builders.values():
            if not b.empty():
                yield from b.build(per_port=True)

    _last: tuple | None = None


class _ScriptReader:
    def __init__(self, src: SourceFile):
        from netlint.shell import parse_script

        self.file = src.path
        self.builders: dict[tuple, Any] = {}
        self.commands = 0
        self.skipped: list[Any] = []   # commands under a condition netlint cannot decide
        self.unknown: list[tuple[Any, str]] = []  # (word, what) values only the run knows
        self.partial: list[tuple[Any, str]] = []  # (span, message) settings that leave part unsaid
        script = parse_script(src, follow_sources=False)
        self.fork_kinds = script.fork_kinds
        # here-documents that write NIC setup commands to another script (spiderpool's rdma-qos.sh writes
        # /usr/local/bin/rdma_qos.sh and runs it from a systemd unit): their commands are that script's
        self.written = [h for h in script.heredocs
                        if h.target is not None and any(m in (h.body.text or "") for m in _MARKERS)]
        # `out=$(mlnx_qos -i "$nic" --pfc 0,0,0,0,0,0,0,0)`: a setter run for its output (DDN's
        # verify_ddn_roce_tuning.sh); the reader does not evaluate command substitutions
        self.substituted = list({(sp.start, sp.end): (sp, t) for sp, t in script.substitutions
                                 if _substituted_setter(t)}.values())
        seen: set = set()
        for cmd in script.commands:
            # a function called again with the same arguments: the same command, the same values; with
            # others (`set_prio 0 0`, `set_prio 26 5`) each call sets its own
            ident = (cmd.span.start, cmd.span.end, tuple(w.text for w in cmd.argv))
            if ident in seen:
                continue
            seen.add(ident)
            self._command(cmd)

    # -- findings about what was not read ----------------------------------------------------------
    def notes(self) -> Iterator[Any]:
        from netlint.findings import Finding, Severity
        from netlint.shell.values import _short

        if self.skipped:
            first = self.skipped[0]
            yield Finding("NL012", f"{len(self.skipped)} NIC setup command(s) run only under a condition netlint "
                                   f"cannot decide (first: `{_shown(first)}`); their values are not read",
                          first.span, Severity.INFO, key="nic-script:conditional")
        for h in self.written:
            yield Finding("NL012", f"NIC setup commands in a here-document written to `{_text(h.target) or h.target.text}` "
                                   "are not read: they run when that script runs, and netlint reads only the "
                                   "commands of this one", h.span, Severity.INFO,
                          key=f"nic-script:heredoc:{h.span.line}")
        if self.substituted:
            span, text = self.substituted[0]
            more = f" (and {len(self.substituted) - 1} more)" if len(self.substituted) > 1 else ""
            yield Finding("NL012", f"NIC setup command run inside a command substitution `$({_short(text)})`"
                                   f"{more} is not read: netlint does not evaluate commands whose output a "
                                   "script captures", span, Severity.INFO, key="nic-script:substitution")
        for span, message in self.partial:
            yield Finding("NL012", message, span, Severity.INFO, key=f"nic-script:partial:{span.line}:{span.col}")
        for word, what in self.unknown:
            reason = getattr(word.value, "reason", "known only when the script runs")
            yield Finding("NL012", f"{what} is not read: its value is unknown ({reason})", word.span,
                          Severity.INFO, key=f"nic-script:unknown:{word.span.line}:{word.span.col}")

    # -- commands ----------------------------------------------------------------------------------
    def _command(self, cmd) -> None:
        argv = list(cmd.argv)
        while argv and _text(argv[0]) in _WRAPPERS:
            argv = argv[1:]
            while argv and (_text(argv[0]) or "").startswith("-"):  # sudo -E, time -p
                argv = argv[1:]
        name = (_text(argv[0]) or "").rsplit("/", 1)[-1] if argv else ""
        if name == "mlnx_qos":
            handler = self._mlnx_qos
        elif name == "cma_roce_tos":
            handler = self._cma_roce_tos
        elif name in ("mlxconfig", "mstconfig"):
            handler = self._mlxconfig
        elif name == "dcb":
            handler = self._dcb
        elif name == "lldptool":
            handler = self._lldptool
        elif name in ("echo", "printf") and cmd.redirects:
            handler = self._echo
        else:
            return
        if not _sets_something(name, cmd, argv):
            return  # a query (`mlxconfig … q`, `mlnx_qos -i eth0`): it sets nothing
        if cmd.conditional and any(not _runs(self.fork_kinds.get(fork, ""), arm) for fork, arm in cmd.branch):
            self.skipped.append(cmd)  # may not run (a `for` over literal words does: read)
            return
        handler(cmd, argv)

    def _builder(self, scope: str, ident, port: int | None, fmt: str, span, label: str | None = None):
        """One NicQos per device the commands name; ``label`` (``$NIC``) keeps apart devices whose names
        only the run knows."""
        from netlint.located import Scalar
        from netlint.nic.build import NicBuilder

        text = _text(ident) if ident is not None else None
        key = (scope, text or label, port)
        b = self.builders.get(key)
        if b is None:
            b = self.builders[key] = NicBuilder(self.file, fmt, span, text or label or "(unnamed)")
            if text is not None:
                b.scope["interface" if scope == "net" else "device"] = Scalar(text, ident.span, text)
        return b

    def _value(self, word, what: str) -> str | None:
        text = _text(word)
        if text is None:
            self.unknown.append((word, what))
        return text

    def _mlnx_qos(self, cmd, argv) -> None:
        from netlint.nic.build import pfc_vector

        opts: list[tuple[str, Any]] = []
        i = 1
        while i < len(argv):
            flag = _text(argv[i]) or ""
            key, value = flag, None
            if "=" in flag and flag.startswith("--"):
                key = flag.split("=", 1)[0]
                value = argv[i].slice(len(key) + 1)
            opt = _MLNX_VALUE_OPTS.get(key)
            if opt is not None and value is None and i + 1 < len(argv):
                value = argv[i + 1]
                i += 1
            if opt is not None and value is not None:
                opts.append((opt, value))
            i += 1
        iface = next((v for o, v in opts if o == "interface"), None)
        label = None
        if iface is not None and _text(iface) is None:  # `-i $IF`: the interface the run names
            label, iface = _written(iface, cmd), None
        if all(o == "interface" for o, _ in opts):
            return  # `mlnx_qos -i eth0` shows the settings; it sets nothing
        self.commands += 1
        b = self._builder("net", iface, None, "nic-script", cmd.span, label)
        for opt, word in opts:
            if opt == "interface":
                continue
            text = self._value(word, f"mlnx_qos --{opt}")
            if text is None:
                continue
            via = f"mlnx_qos --{opt}"
            if opt == "trust" and text.lower() in ("dscp", "pcp"):
                b.put("trust", text.lower(), word.span, layer="runtime", via=via, raw=text)
            elif opt == "pfc":
                prios = pfc_vector(text)
                if prios is not None:
                    b.put("pfc", prios, word.span, layer="runtime", via=via, raw=text)
            elif opt == "dscp2prio":
                m = re.fullmatch(r"set,(\d{1,2}),([0-7])", text.strip())
                if m and int(m.group(1)) < 64:
                    b.put("dscp_to_prio", int(m.group(2)), word.span, layer="runtime", via=via, raw=text,
                          index=int(m.group(1)))
            elif opt == "prio_tc":
                tcs = text.split(",")
                if len(tcs) == 8 and all(t.strip().isdigit() and int(t) < 8 for t in tcs):
                    for prio, tc in enumerate(tcs):
                        b.put("prio_to_tc", int(tc), word.span, layer="runtime", via=via, raw=text, index=prio)
            elif opt == "cable_len" and text.strip().isdigit():
                b.put("other", int(text), word.span, layer="runtime", via=via, raw=text, index="cable_len")

    def _dcb(self, cmd, argv) -> None:
        from netlint.nic.dcb import read_dcb

        read_dcb(self, cmd, argv, _text, _written)

    def _lldptool(self, cmd, argv) -> None:
        from netlint.nic.lldptool import read_lldptool

        read_lldptool(self, cmd, argv, _text, _written)

    def _cma_roce_tos(self, cmd, argv) -> None:
        dev = port = tos = None
        i = 1
        while i + 1 < len(argv):
            flag = _text(argv[i])
            if flag == "-d":
                dev = argv[i + 1]
            elif flag == "-p":
                port = argv[i + 1]
            elif flag == "-t":
                tos = argv[i + 1]
            i += 2 if flag in ("-d", "-p", "-t") else 1
        if tos is None:
            return
        text = self._value(tos, "cma_roce_tos -t")
        if text is None or not text.strip().isdigit():
            return
        if port is not None and not (_text(port) or "").isdigit():
            return  # which port it sets is known only when the script runs
        label = None
        if dev is not None and _text(dev) is None:  # `-d "$dev"`: a device the run names, kept apart by name
            label, dev = _written(dev, cmd), None
        self.commands += 1
        # the tool's defaults: device mlx5_0, port 1 (its `-d`/`-p` help)
        p = int(_text(port)) if port is not None else 1
        ident = dev if dev is not None or label is not None else _Named("mlx5_0", cmd.span)
        b = self._builder("ib", ident, p, "nic-script", cmd.span, label)
        b.put("cma_roce_tos", int(text), tos.span, layer="runtime", via="cma_roce_tos -t", raw=text, port=p)

    def _mlxconfig(self, cmd, argv) -> None:
        words = [_text(w) for w in argv]
        if "set" not in words:
            return
        dev = next((argv[i + 1] for i, w in enumerate(words[:-1]) if w in ("-d", "--dev")), None)
        b = self._builder("dev", dev if dev is not None and _text(dev) is not None else None, None,
                          "nic-script", cmd.span)
        for word in argv[words.index("set") + 1:]:
            text = _text(word)
            if text is None:
                self.unknown.append((word, "mlxconfig set"))
                continue
            name, eq, raw = text.partition("=")
            if eq and b.firmware(name, raw, word.span, via=f"mlxconfig set {name}"):
                self.commands += 1

    def _echo(self, cmd, argv) -> None:
        from netlint.loaders.nic_sysfs import _value, split

        target = _sysfs_target(cmd)
        if target is None or len(argv) < 2:
            return
        word = argv[-1] if _text(argv[0]) == "echo" else argv[1]
        path = _path(target)
        text = self._value(word, f"the value written to {path}")
        if text is None:
            return
        parsed = split(f"{path} {text}")
        if parsed is None:
            return
        scope, _, m, value = parsed
        port = int(m.group("port")) if "port" in m.groupdict() and m.group("port") else None
        self.commands += 1
        ident = m.group("id")  # `…` when the path's device is a variable: one unnamed device
        b = self._builder(scope, None if "…" in ident else _Named(ident, target.span), port, "nic-script", cmd.span)
        _value(b, _WordLines(word), 0, 0, m, text, port)


class _Named:
    """A name with the span of the word it was read from (a sysfs path's device)."""

    def __init__(self, value: str, span):
        self.value, self.span = value, span


class _WordLines:
    """:mod:`netlint.loaders.nic_sysfs`'s value reader over one shell word: its spans are the word's."""

    def __init__(self, word):
        self.word = word

    def span(self, i: int, start: int, end: int):
        return self.word.span
