"""Switch QoS written in a vendor CLI configuration netlint does not read (Arista EOS, Cisco NX-OS, Dell
OS10 and their like): one NL012 (info) saying so, at the first QoS line, instead of passing the file over.

Such a file sets the fabric's PFC, ECN and DSCP classes, the settings netlint compares with the inventory
and the NICs, so "All checks passed" on a repository of them would claim checks that never ran. The
network team can describe the switch in netlint's native switch YAML (netlint/loaders/native_switch.py)
to have it checked. The lines recognised are each vendor's QoS commands: ``priority-flow-control``
(``on``/``mode on``/``priority N no-drop``/``watchdog``), ``random-detect ecn``, ``qos map dscp … to
traffic-class``, ``qos trust dscp`` (Arista EOS User Manual, "Quality of Service" and "Priority Flow
Control"); ``class-map``/``policy-map type network-qos``, ``pause pfc-cos``, ``pause no-drop``,
``random-detect … ecn``, ``priority-flow-control mode auto``/``watch-dog-interval`` (Cisco Nexus 9000
NX-OS Quality of Service Configuration Guide); ``pfc-cos``, ``wred <profile>`` (Dell SmartFabric OS10
User Guide, "Priority flow control", "WRED"); ``dcb priority-flow-control``, ``traffic-class N
congestion-control ecn`` (NVIDIA Onyx User Manual); ``congestion-notification-profile``,
``explicit-congestion-notification`` (Junos OS Class of Service User Guide). Prose that quotes such
commands is no configuration: the file must have lines of its own structure too.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from netlint.findings import Finding, Severity
from netlint.loaders.base import Loader
from netlint.source import SourceFile

_QOS = re.compile(
    r"^[ \t]*(?:interface[ \t]+ethernet[ \t]+\S+[ \t]+)?(?:"
    r"priority-flow-control[ \t]+(?:on|mode[ \t]+(?:on|auto)|priority[ \t]+\d+[ \t]+no-drop|watchdog|watch-dog)"
    r"|dcb[ \t]+priority-flow-control\b|traffic-class[ \t]+\d+[ \t]+congestion-control[ \t]+ecn\b"
    r"|random-detect[ \t]+ecn\b|random-detect\b[^\n]*[ \t]ecn[ \t]*$"
    r"|qos[ \t]+map[ \t]+(?:dscp|cos|traffic-class)\b|qos[ \t]+trust[ \t]+dscp\b|wred[ \t]+\S+[ \t]*$"
    r"|(?:class-map|policy-map)[ \t]+type[ \t]+network-qos\b|pause[ \t]+(?:pfc-cos|no-drop)\b|pfc-cos[ \t]+\d"
    r"|congestion-notification-profile\b|explicit-congestion-notification;)",
    re.M)
# A configuration, not prose quoting one: its own structure lines (a hostname, an interface, a Junos block,
# a `!` or `##` separator) somewhere in the file
_CONFIG = re.compile(r"^(?:hostname|switchname|feature[ \t]|version[ \t]|!|##)|^[ \t]*(?:interface\b|"
                     r"interfaces[ \t]*\{|system[ \t]*\{|class-of-service[ \t]*\{)", re.M)


class SwitchCliLoader(Loader):
    name = "switch-cli-unread"
    kind = "switches"
    wants_by = "switch_cli"

    def claims(self, src: SourceFile) -> bool:
        text = src.text
        return _QOS.search(text) is not None and _CONFIG.search(text) is not None

    def load(self, src: SourceFile) -> Iterator[Any]:
        from netlint.nccl.build import LineIndex

        text = src.text
        m = _QOS.search(text)
        start = m.start() + len(m.group(0)) - len(m.group(0).lstrip())
        end = text.find("\n", start)
        written = text[start:end if end >= 0 else len(text)].rstrip()
        yield Finding("NL012", f"switch QoS in a vendor CLI configuration (`{written[:80]}`): netlint does not read "
                               f"this format (Arista EOS, Cisco NX-OS, Dell OS10, Junos, Onyx …), so the PFC, ECN and DSCP "
                               f"settings of this file are not checked; describe the switch in netlint's native "
                               f"switch YAML to have them checked",
                      LineIndex(src.path, text).span(start, start + len(written)),
                      Severity.INFO, key="switch-cli-unread")
