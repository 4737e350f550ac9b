"""NCCL's INFO/WARN/TRACE lines into a located :class:`~netlint.models.run.NcclRun`.

Each pattern below copies the shape of one ``INFO``/``WARN`` format string of NCCL (or of a net plugin
NCCL loads); the line numbers are those of NVIDIA/nccl@68b54236 (v2.23.4-1) unless another commit is
named, and the same strings are in 2.18-2.30 unless noted:

- ``NCCL version %s`` — ``src/init.cc`` L527-532 (``VERSION_STRING``, "2.23.4+cuda12.6");
- ``Using network %s`` — ``src/init.cc`` L342 (the net chosen: IB, Socket, or a plugin's name);
- ``NET/Plugin: Loaded net plugin %s (v%d)``, ``NET/Plugin: Could not find:%s. Using internal network
  plugin.``, ``NET/Plugin: Plugin name set by env to %s``, ``NET/Plugin: %s`` (a dlopen error) —
  ``src/net.cc`` L374-441, L465-479; v2.19.3-1 ``src/net.cc`` L231-234 (``NET/Plugin : dlerror=%s No
  plugin found (%s)…``, ``NET/Plugin : Plugin load returned %d : %s.``); v2.27.3-1
  ``src/plugin/net.cc`` L103 (``Successfully loaded external plugin %s``), ``src/plugin/plugin_open.cc``
  L69-106; 5067397c ``src/plugin/net.cc`` L126 (``Successfully loaded external network plugin %s``);
- ``NET/IB : Using%s %s; OOB %s:%s`` with `` [%d]%s:%d/%s`` per device (IB or RoCE) and `` [%d]={…}``
  for merged ones — ``src/transport/net_ib.cc`` L648-669; ``NET/IB : No device found.`` L642;
- ``NET/IB: %s %d IbDev %d Port %d qpn %d mtu %d … GID %ld (%lX/%lX) …`` (RoCE QPs, NET subsystem) —
  ``net_ib.cc`` L1252; v2.29.2-1 ``src/transport/net_ib/connect.cc`` L649;
- ``NET/Socket : Using%s`` with `` [%d]%s:%s`` — ``src/transport/net_socket.cc`` L62;
- ``Channel %02d/%d : %d[%d] -> %d[%d] [send|receive] via NET/%s/%d%s%s`` (``/GDRDMA``, ``/Shared``;
  2.30 adds ``(PCI)``) — ``src/transport/net.cc`` L194-197, L233; 5067397c L324-377;
- ``Channel %02d/%01d : %d[%d] -> %d[%d] via P2P/…`` — ``src/transport/p2p.cc`` L390-410;
  ``Channel %02d : %d[%d] -> %d[%d] via SHM/%s/%s`` — ``src/transport/shm.cc`` L126;
- ``GPU Direct RDMA Disabled for GPU %lx / HCA %lx (distance %d > %d)`` — ``src/graph/paths.cc`` L407;
- ``%s set by environment to %lld.`` — ``src/misc/param.cc`` L86 (every ``NCCL_PARAM`` when first read),
  ``Invalid value %s for %s, using default %lld.`` L84; ``NCCL_… set by environment to %s`` for string
  variables (``misc/socket.cc`` L332, ``graph/tuning.cc`` L294-299, ``graph/paths.cc`` L218-240, …);
  ``NCCL_IB_HCA set to %s`` (``net_ib.cc`` L524), ``NCCL_SOCKET_IFNAME set to %s`` (``socket.cc`` L334);
- ``comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d`` — ``src/init.cc`` L1044;
- ``%d coll channels, %d collnet channels, %d nvls channels, %d p2p channels, %d p2p channels per
  peer`` — ``src/init.cc`` L1274 (2.18-2.22: without ``collnet channels``);
- ``Channel %02d/%02d :`` + ranks (``src/graph/rings.cc`` L41), ``Trees%s`` (``src/init.cc`` L1099);
- ``NVLS multicast support is %savailable on dev %d`` — ``src/transport/nvls.cc`` L171; ``NVLS comm %p
  headRank %d nHeads %d …`` L281, ``Connected NVLS tree`` L185, ``NVLS Trees : …``
  (``graph/connect.cc`` L318); ``CollNet %02d/%1d : %d [send] via COLLNET/%s/%d%s`` —
  ``src/transport/coll_net.cc`` L169-193, ``rank %d Connected CollNet`` L1217;
- aws-ofi-nccl's ``NET/OFI `` prefix (aws/aws-ofi-nccl@2daf7d30 ``include/nccl_ofi_log.h`` L21):
  ``NET/OFI Selected provider is %s, fabric is %s (found %d nics)`` (``src/nccl_ofi_net.cpp`` L644;
  "Selected Provider is %s (found %d nics)" before @06e8db33), ``NET/OFI Using Libfabric version %u.%u``
  L194; its network is named "Libfabric" (``src/nccl_ofi_interface_nvidia.cpp`` L662; "AWS
  Libfabric" up to v1.7.4-aws ``src/compat_v5.c`` L10).
"""

from __future__ import annotations

import re

from netlint.models.run import CommInfo, EnvRead, Fact, IbPort, NcclRun, NetChannel
from netlint.run.lines import BARE_VERSION, Locator, nccl_prefix

# NCCL formats a whole line into 1,024 bytes (v2.23.4-1 src/debug.cc L196): a longer message is not NCCL's.
MAX_MESSAGE = 2048
VERSION = re.compile(r"NCCL version (\d+\.\d+\.\d+)")
_REPEATED = re.compile(r"\s+\|\s+\S+:\d+:\d+ (?:\[\d+\] )?NCCL (?:INFO|WARN|TRACE) ")
USING_NETWORK = re.compile(r"Using network (\S.*\S|\S)")
PLUGIN_OK = re.compile(r"(?:NET/Plugin ?: ?Loaded net plugin (.+?) \(v\d+\)"
                       r"|Successfully loaded external (?:network )?plugin (\S+)"
                       r"|NET/Plugin ?: ?Plugin name set by env to (\S+))")
PLUGIN_NEUTRAL = ("Loaded coll", "Failed to find ncclCollNet", "Closing", "Using internal network plugin.",
                  "Plugin name set by env", "Loaded net plugin")
IB_USING = re.compile(r"NET/IB ?: ?Using(.*?);\s*OOB\s+(\S+)")
IB_DEV = re.compile(r"\[(\d+)\]\s*([^\s:\[\]{},=]+):(\d+)/(IB|RoCE)")
SOCKET_USING = re.compile(r"NET/Socket ?: ?Using\s+(\[\d+\].*)$")
GID = re.compile(r"NET/IB: NCCL (?:Merged)?Dev (\d+) IbDev (\d+) Port (\d+) qpn \d+ mtu \d+ .*?\bGID (\d+) \(")
# Before 2.12 the line had no "/connIndex" and showed the peer's bus id: "Channel 01 : 2[c7000] -> 0[87000]".
# Up to 2.6 the same lines began "Ring 00 : 7 -> 8 [send] via NET/AWS Libfabric/0".
NET_CHANNEL = re.compile(r"(?:Channel|Ring) (\d+)(?:/\d+)? : (\d+)(?:\[\w+\])? -> (\d+)(?:\[\w+\])? \[(send|receive)\] "
                         r"via NET/(.+?)/(\d+)(?:\(\d+\))?(/GDRDMA(?:\(PCI\))?)?(?:/Shared)?\s*$")
PATH = re.compile(r"(?:Channel|Ring) \d+(?:/\d+)? : \d+(?:\[\w+\])? -> \d+(?:\[\w+\])? via ((?:P2P|SHM)/\S+(?: pointer\S*)?)")
# 2.24+: "Connected all rings, use ring PXN %d GDR %d" (v2.24.3-1 src/transport/generic.cc; 5067397c L40):
# GDR 0 when some ring connection over the network runs without GPUDirect RDMA (src/transport/net.cc L313).
RINGS_GDR = re.compile(r"Connected all rings, use ring PXN \d+ GDR (\d+)")
GDR_OFF = re.compile(r"GPU Direct RDMA Disabled for GPU (\w+) / HCA (\w+) \(distance (\d+) > (-?\d+)\)")
ENV = re.compile(r"(?:\w+/Plugin: )?(NCCL_[A-Z0-9_]+) set (by environment )?to (\S.*\S|\S)")
ENV_INVALID = re.compile(r"Invalid value (.*) for (NCCL_[A-Z0-9_]+), using default (-?\d+)\.")
COMM = re.compile(r"comm 0x[0-9a-fA-F]+ rank (\d+) nRanks (\d+) nNodes (\d+) localRanks (\d+) localRank \d+"
                  r"(?: MNNVL (\d+))?")
# Older releases: ``comm %p rank %d nranks %d cudaDev %d busId %lx - Init COMPLETE`` (no node count).
OLD_COMM = re.compile(r"comm 0x[0-9a-fA-F]+ rank (\d+) nranks (\d+) cudaDev ")
COUNTS = re.compile(r"(\d+) (coll|collnet|nvls|p2p) channels(?! per)")
NVLS_SUPPORT = re.compile(r"NVLS multicast support is (not )?available on dev (\d+)")
NVLS_USED = ("NVLS comm ", "Connected NVLS", "NVLS Trees", "NVLS Head")
COLLNET_USED = re.compile(r"(?:CollNet \d+/\d+ : \d+ \[(?:send|receive)\] via COLLNET/|(?:rank \d+ )?Connected CollNet)")
RING = re.compile(r"(?:Channel \d+/\d+ :\s+\d|Ring \d+ : \d+ -> \d+ -> \d+)")
OFI = re.compile(r"NET/OFI ((?:Selected [Pp]rovider is|Using Libfabric version|Initializing) .+)$")


class NcclReader:
    """Feed it lines (:meth:`line`); :attr:`run` is what they said."""

    def __init__(self, file: str):
        self.run = NcclRun()
        self.loc = Locator(file)
        self.proc: tuple = ("", "")

    def line(self, lineno: int, offset: int, line: str, body: int) -> bool:
        """Read one line (``body``: where the text after launcher prefixes begins). True if NCCL's."""
        loc = self.loc.at(lineno, offset)
        m = nccl_prefix(line, body) if "NCCL " in line else None
        if m is None:
            v = BARE_VERSION.match(line, body)
            if v is not None:
                self._first(loc, body)
                self.run.add("versions", Fact(v.group(1), loc.span(v.start(1), v.end(1))))
                return True
            return False
        run = self.run
        self._first(loc, m.start)
        host = m.host
        self.proc = (host, m.pid)
        if len(run.hosts) < 100_000:
            run.hosts.add(host)
        level = m.level
        if level == "CALL":
            return True
        start = m.end
        msg = line[start:start + MAX_MESSAGE]
        again = _REPEATED.search(msg)  # CloudWatch repeats the message after ` | `: read it once
        if again is not None:
            msg = msg[:again.start()]
        if level == "WARN":
            run.add("warnings", Fact(msg.strip(), loc.span(start, len(line)), host))
            return True
        run.info_lines += 1
        self._message(loc, line, start, msg, host)
        return True

    def _first(self, loc: Locator, col: int) -> None:
        if self.run.first is None:
            self.run.first = loc.span(col, col)

    def _message(self, loc: Locator, line: str, at: int, msg: str, host: str) -> None:
        run = self.run

        def fact(value, m, group=1):
            return Fact(value, loc.span(at + m.start(group), at + m.end(group)), host)

        head = msg
        if head.startswith("Channel ") or head.startswith("Ring "):
            if "via NET/" in msg:
                m = NET_CHANNEL.match(msg)
                if m:
                    run.add("channels", NetChannel(int(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4),
                                                   m.group(5), int(m.group(6)), bool(m.group(7)),
                                                   loc.span(at + m.start(5) - 4, at + m.end(6)), host))
            elif " via " in msg:
                m = PATH.match(msg)
                if m:
                    run.add("paths", fact(m.group(1), m), m.group(1))
            elif RING.match(msg):
                run.rings += 1
            return
        if head.startswith("NCCL_") or head.startswith("TUNER/Plugin") or head.startswith("NET/Plugin: NC"):
            m = ENV.match(msg)
            if m:
                name, value = m.group(1), m.group(3)
                if value.endswith(".") and _int(value[:-1]):   # "%lld." (param.cc L86)
                    value = value[:-1]
                run.add("env", EnvRead(name, value, loc.span(at + m.start(3), at + m.start(3) + len(value)),
                                       loc.span(at + m.start(1), at + m.end(1)), host, by_env=bool(m.group(2))),
                        (host, name, value, bool(m.group(2))))
            return
        if head.startswith("NET/"):
            self._net(loc, at, msg, host, fact)
            return
        if head.startswith("NCCL version"):
            m = VERSION.match(msg)
            if m:
                run.add("versions", fact(m.group(1), m), (host, m.group(1)))
            return
        if head.startswith("Using network"):
            m = USING_NETWORK.match(msg)
            if m:
                run.add("networks", fact(m.group(1), m), (self.proc, m.group(1)))
            return
        if head.startswith("Successfull"):
            m = PLUGIN_OK.match(msg)
            if m:
                run.add("plugin_loaded", fact(m.group(2), m, 2))
            return
        if head.startswith("comm 0x"):
            m = COMM.match(msg)
            if m:
                mnnvl = int(m.group(5)) if m.group(5) is not None else None
                run.add("comms", CommInfo(int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)), mnnvl,
                                          loc.span(at, len(line))), (host,) + m.groups()[1:])
                return
            m = OLD_COMM.match(msg)
            if m and m.group(2) == "1":  # older releases name no node count; one rank is one node
                run.add("comms", CommInfo(int(m.group(1)), 1, 1, 1, None, loc.span(at, len(line))), (host, "1"))
            return
        if head.startswith("GPU Direct R"):
            m = GDR_OFF.match(msg)
            if m:
                run.add("gdr_disabled", Fact(msg.strip(), loc.span(at, len(line)), host))
            return
        if head.startswith("Invalid val"):
            m = ENV_INVALID.match(msg)
            if m:
                run.add("env", EnvRead(m.group(2), m.group(3), loc.span(at + m.start(3), at + m.end(3)),
                                       loc.span(at + m.start(2), at + m.end(2)), host, m.group(1)),
                        (host, m.group(2), m.group(1)))
            return
        if head.startswith("NVLS multic"):
            m = NVLS_SUPPORT.match(msg)
            if m:
                run.add("nvls_support", Fact(m.group(1) is None, loc.span(at, len(line)), host), (self.proc, m.group(2)))
            return
        if msg.startswith(NVLS_USED):
            run.add("nvls_used", Fact(msg.strip(), loc.span(at, len(line)), host))
            return
        if head.startswith("Connected all rings, use"):
            m = RINGS_GDR.match(msg)
            if m:
                run.add("rings_gdr", fact(m.group(1) == "1", m), (host, m.group(1)))
            return
        if head.startswith("Trees"):
            run.trees += 1
            return
        if " channels" in msg and "p2p channels" in msg:
            counts = {k: int(n) for n, k in COUNTS.findall(msg)}
            if counts:
                run.add("channel_counts", Fact(counts, loc.span(at, len(line)), host), (host, tuple(sorted(counts.items()))))
            return
        if COLLNET_USED.match(msg):
            run.add("collnet_used", Fact(msg.strip(), loc.span(at, len(line)), host))

    def _net(self, loc: Locator, at: int, msg: str, host: str, fact) -> None:
        run = self.run
        if msg.startswith("NET/IB"):
            m = IB_USING.match(msg)
            if m:
                for d in IB_DEV.finditer(msg, m.start(1), m.end(1)):
                    run.add("ib_ports", IbPort(int(d.group(1)), d.group(2), int(d.group(3)), d.group(4),
                                               loc.span(at + d.start(2), at + d.end(2)), host),
                            (host, d.group(2), d.group(3), d.group(4)))
                return
            if "No device found" in msg:
                run.add("ib_no_device", Fact(msg.strip(), loc.span(at, at + len(msg.rstrip())), host), host)
                return
            m = GID.match(msg)
            if m:
                run.add("gids", Fact((int(m.group(2)), int(m.group(3)), int(m.group(4))),
                                     loc.span(at + m.start(4), at + m.end(4)), host), (host,) + m.groups()[1:])
            return
        if msg.startswith("NET/Socket"):
            m = SOCKET_USING.match(msg)
            if m:
                run.add("socket_ifs", fact(m.group(1), m))
            return
        if msg.startswith("NET/OFI"):
            m = OFI.match(msg)
            if m:
                run.add("ofi", fact(m.group(1), m))
            return
        if msg.startswith("NET/Plugin"):
            m = PLUGIN_OK.match(msg)
            if m:
                name = m.group(1) or m.group(3)
                run.add("plugin_loaded", fact(name, m, 1 if m.group(1) else 3))
                return
            text = re.sub(r"^NET/Plugin ?: ?", "", msg).strip()
            if text and not text.startswith(PLUGIN_NEUTRAL):
                run.add("plugin_failed", Fact(text, loc.span(at, at + len(msg.rstrip())), host))


def _int(text: str) -> bool:
    return bool(re.fullmatch(r"-?\d+", text))
