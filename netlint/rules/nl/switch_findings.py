"""NL0xx findings emitted by the switch QoS loaders (docs only; the loaders emit them)."""

from netlint.rules.nl.engine_findings import _EngineRule


class DanglingReference(_EngineRule):
    """A switch config refers to something it does not define: a QoS map, WRED profile, scheduler,
    buffer profile or pool, or a port that is not in the PORT table.

    SONiC rejects such a config (YANG leafrefs; `sonic-cfggen`/`config load` fail), and when it is
    written to CONFIG_DB anyway, orchagent keeps the port's QoS unset: the port falls back to the
    platform default (one lossy class). netlint checks a reference when the target table is in the
    same file, or when the file is a complete configuration (it has DEVICE_METADATA and PORT, or it
    is YANG instance data); a rendered fragment such as `qos.json` may leave a table to another file.

    Bad: `"PORT_QOS_MAP": {"Ethernet0": {"dscp_to_tc_map": "AZURE"}}` with no `DSCP_TO_TC_MAP|AZURE`.
    Good: define `"DSCP_TO_TC_MAP": {"AZURE": {...}}`, or fix the name.

    Source: sonic-net/sonic-buildimage@086b03bd `src/sonic-yang-models/yang-models/` leafrefs, e.g.
    `sonic-port-qos-map.yang` L77-153 (PORT_QOS_MAP → PORT, DSCP_TO_TC_MAP,
    TC_TO_PRIORITY_GROUP_MAP, TC_TO_QUEUE_MAP, MAP_PFC_PRIORITY_TO_QUEUE, SCHEDULER, …),
    `sonic-queue.yang` L66-93 (QUEUE → PORT, SCHEDULER, WRED_PROFILE), `sonic-buffer-pg.yang` L42-62
    (BUFFER_PG → PORT, BUFFER_PROFILE)."""

    code, name, summary = "NL011", "dangling-reference", "Reference to an undefined map, profile, scheduler or port"
