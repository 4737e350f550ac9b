"""iproute2 ``dcb`` in NIC setup scripts: ``dcb pfc set dev <if> prio-pfc …`` and ``dcb app add|replace
dev <if> dscp-prio …`` read as the script reader (:mod:`netlint.loaders.nic_script`) reads mlnx_qos."""

from __future__ import annotations

import re


def read_dcb(reader, cmd, argv, _text, _written) -> None:
    """iproute2 ``dcb pfc set dev DEV prio-pfc P:on|off …`` and ``dcb app add|replace dev DEV dscp-prio
    D:P …`` (dcb-pfc(8), dcb-app(8): a key may be ``all``; DSCP values may be names such as CS6, AF41).
    ``reader`` is the script reader whose NIC builders the values go to; ``_text`` / ``_written`` its
    word helpers (a word's literal text, a word as the script writes it)."""
    words = [w for w in argv[1:] if not (_text(w) or "").startswith("-")]  # dcb -j/-p/-s/-N options
    texts = [_text(w) for w in words]
    if len(texts) < 4 or texts[0] not in ("pfc", "app") or texts[1] not in ("set", "add", "replace") \
            or "dev" not in texts:
        return
    at = texts.index("dev")
    dev = words[at + 1] if at + 1 < len(words) else None
    label = None
    if dev is not None and _text(dev) is None:
        label, dev = _written(dev, cmd), None
    want = "prio-pfc" if texts[0] == "pfc" else "dscp-prio"
    if want not in texts:
        return
    reader.commands += 1
    b = reader._builder("net", dev, None, "nic-script", cmd.span, label)
    k = texts.index(want) + 1
    pairs = []
    while k < len(words) and texts[k] is not None and ":" in texts[k]:
        pairs.append(words[k])
        k += 1
    via = f"dcb {texts[0]} {want}"
    if texts[0] == "pfc":
        state: dict[int, bool] = {}
        for w in pairs:
            key, _, val = _text(w).partition(":")
            on = {"on": True, "off": False}.get(val.lower())
            prios = range(8) if key == "all" else [int(key)] if key.isdigit() and int(key) < 8 else []
            for p in prios:
                if on is not None:
                    state[p] = on
        if len(state) == 8:  # `prio-pfc 3:on` alone leaves the other priorities as they were
            b.put("pfc", sorted(p for p, on in state.items() if on), pairs[0].span, layer="runtime",
                  via=via, raw=" ".join(_text(w) for w in pairs))
        elif pairs:
            reader.partial.append((pairs[0].span, f"`{via} {' '.join(_text(w) for w in pairs)}` sets PFC on some "
                                                f"priorities only; the others keep what the NIC had, which "
                                                f"the script does not say: the PFC vector is not read"))
        return
    for w in pairs:
        key, _, val = _text(w).partition(":")
        dscp = _dscp_number(key)
        if dscp is not None and val.isdigit() and int(val) < 8:
            b.put("dscp_to_prio", int(val), w.span, layer="runtime", via=via, raw=_text(w), index=dscp)


def _dscp_number(text: str) -> int | None:
    """A DSCP written as a number or by its name in iproute2's rt_dsfield (CS0-CS7, AF11-AF43, EF)."""
    if text.isdigit():
        return int(text) if int(text) < 64 else None
    up = text.upper()
    if re.fullmatch(r"CS[0-7]", up):
        return 8 * int(up[2])
    if re.fullmatch(r"AF[1-4][1-3]", up):
        return 8 * int(up[2]) + 2 * int(up[3])
    return 46 if up == "EF" else None
