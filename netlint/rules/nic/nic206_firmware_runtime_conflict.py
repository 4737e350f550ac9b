from __future__ import annotations

from typing import Iterator

from netlint.findings import Finding, Related, Severity
from netlint.rules.base import Rule

# the CNP class has an owner when the inventory states it (NIC205 judges the value that runs)
_INTENT = {"cnp_dscp": "cnp_dscp", "cnp_priority": "cnp_priority"}


class FirmwareRuntimeConflict(Rule):
    """A NIC parameter has one value in firmware (NV config) and another at runtime.

    What: for the same NIC port — one file, or files of one node group that can describe the same port
    (same interface / device, same port or every port; without an inventory only files that name the same
    interface or device) — a parameter set in the firmware NV config
    (`mlxconfig`, the operator's `rawNvConfig` or the values `roceOptimized` implies, NIC YAML
    `firmware:`) and at runtime (sysfs `ecn/roce_np|roce_rp/…`, debugfs `cc_params`, `mlnx_qos`, DMS)
    to different values: `CNP_DSCP_P1` vs `ecn/roce_np/cnp_dscp`, a `ROCE_CC_PRIO_MASK_P1` bit vs
    `roce_rp/enable/<p>`, `RPG_MIN_DEC_FAC_P1` vs `rpg_min_dec_fac`. Reported once per pair, at the
    firmware value, the runtime value related. A CNP DSCP or priority whose runtime value differs from
    the inventory's CNP class is NIC205's (fixing it ends this conflict too).

    Why: the runtime value is what the driver runs with until the next reboot; the firmware value is
    loaded at boot. Whatever sets the runtime value (a boot script, the operator, a hand-typed `echo`)
    must run again after every reboot, or the NIC silently comes back with the firmware value: the
    fabric behaves differently after a maintenance reboot of some hosts, with no config change.

    Bad:  `mlxconfig` query `CNP_DSCP_P1  26` and `/sys/class/net/ens1np0/ecn/roce_np/cnp_dscp 48`
    Good: both 48

    Fix: none automatic: decide which value is meant and write it in both layers
    (`mlxconfig -d <dev> set …` and the runtime setting).

    Source: MLNX_OFED "Explicit Congestion Notification (ECN)"
    (https://docs.nvidia.com/networking/display/mlnxofedv23041130/explicit+congestion+notification+(ecn):
    sysfs values are not persistent); DOCA "DCQCN CC Parameters"
    (https://networking-docs.nvidia.com/doca/archive/3-4-0/dcqcn-cc-parameters: the NVConfig name of
    each MLNX_OFED parameter); Mellanox/nic-configuration-operator@8bfbeb34 README L88-96 (NV config
    persistent, QoS "Non-persistent (need to be applied after each boot)"); ROCm/mori#658 (sysfs is
    what the driver runs with, `ROCE_CC_PRIO_MASK_P1` what the firmware boots with).
    """

    code = "NIC206"
    name = "firmware-runtime-conflict"
    summary = "NIC firmware value differs from the runtime value"
    severity = Severity.WARNING
    tags = ("nic",)

    def check(self, ws) -> Iterator[Finding]:
        from netlint.nic import roce
        from netlint.nic.join import layer_conflicts
        from netlint.nic.params import in_range

        it = roce.intent(ws)
        owner = {id(v): n for n in ws.nics for _, st in n.settings() for v in (st.firmware, st.runtime) if v is not None}
        sets = [nics for _, nics in roce.groups(ws)]
        bound = {id(n) for nics in sets for n in nics}
        sets += [[n] for n in ws.nics if id(n) not in bound]   # a file bound to no node group: alone
        pairs: dict[tuple, list] = {}
        for nics in sets:
            for name, fw, rt in layer_conflicts(nics):
                a, b = owner.get(id(fw)), owner.get(id(rt))
                if a is not None and b is not None and not roce.one_nic(a, b, ws.inventory is None):
                    continue   # two operator documents select their own NICs; without an inventory, files
                    # that do not name the same NIC may come from different hosts
                if name.startswith("dcqcn.") and False in (in_range(name[6:], fw.value), in_range(name[6:], rt.value)):
                    continue   # a value outside its documented range is NIC207's
                want = getattr(it, _INTENT[name], None) if name in _INTENT else None
                if want is not None and rt.value != want.value:
                    continue
                # one ROCE_CC_PRIO_MASK token against one runtime statement: one finding for all its bits
                kind = name.split(".")[0] if name.startswith(("rp_enable.", "np_enable.")) else name
                row = pairs.setdefault((fw.span, rt.span, kind, fw.value, rt.value), [])
                if (name, fw, rt) not in row:
                    row.append((name, fw, rt))
        for (_, _, kind, _, _), rows in pairs.items():
            name, fw, rt = rows[0]
            if kind in ("rp_enable", "np_enable"):
                prios = ",".join(sorted({n.split(".")[1] for n, _, _ in rows}, key=int))
                label = f"DCQCN {'reaction' if kind == 'rp_enable' else 'notification'} point on priority {prios}"
            else:
                label = name.replace("dcqcn.", "")
            fw_src = f"implied by {fw.via}" if fw.implied else fw.via
            yield self.finding(
                f"{label}: firmware {_v(fw.value)} ({fw_src}) but runtime {_v(rt.value)} ({rt.via}): the NIC runs "
                f"{_v(rt.value)} until the next reboot, then {_v(fw.value)} until something (a boot script, the "
                f"NIC operator's next reconcile) applies the runtime setting again", fw.span, key=f"{kind}:{fw.span.file}:{rt.span.file}",
                related=[Related(rt.span, f"runtime {_v(rt.value)} ({rt.via})")])


def _v(value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple):
        return ",".join(map(str, value)) or "none"
    return str(value)
