"""The host interfaces an ``NCCL_SOCKET_IFNAME`` list can select (not a rule: no ``code``).

The inventory names interfaces exactly (``eth0``) or, where names differ between nodes, by a
shell-style pattern (``enp*``, ``eth[0-3]``, ``fnmatch`` syntax). NCCL matches its list entries by
prefix, or exactly after ``=``, and ``^`` inverts the list (:mod:`netlint.nccl.lists`). An entry and
a pattern agree when some interface name fits both; undecidable cases count as agreeing, so the rule
built on this stays silent rather than guess.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

WILD = "*?["


def is_pattern(name: str) -> bool:
    return any(c in name for c in WILD)


def _tokens(pattern: str) -> list[str]:
    """``*``, ``?``, a whole ``[...]`` class, or one literal character each (fnmatch's grammar)."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "[":
            j = i + 1
            if j < n and pattern[j] == "!":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 1
            if j < n:
                out.append(pattern[i:j + 1])
                i = j + 1
                continue
        out.append(c)   # also an unclosed '[', which fnmatch reads literally
        i += 1
    return out


def _one(token: str, c: str) -> bool:
    if token == "?":
        return True
    if len(token) > 1:   # a class
        return fnmatchcase(c, token)
    return token == c


def can_start_with(pattern: str, prefix: str) -> bool:
    """Does some name matching ``pattern`` start with ``prefix``? (an NFA over the pattern's tokens)"""
    toks = _tokens(pattern)

    def close(states: set[int]) -> set[int]:
        out = set(states)
        for i in sorted(states):
            while i < len(toks) and toks[i] == "*":
                i += 1
                out.add(i)
        return out

    states = close({0})
    for c in prefix:
        nxt = set()
        for i in states:
            if i < len(toks):
                if toks[i] == "*":
                    nxt.add(i)
                elif _one(toks[i], c):
                    nxt.add(i + 1)
        states = close(nxt)
        if not states:
            return False
    return True


def literal_head(pattern: str) -> str:
    """The fixed text before the pattern's first wildcard: every matching name starts with it."""
    for i, c in enumerate(pattern):
        if c in WILD:
            return pattern[:i]
    return pattern


def selectable(lst, name: str) -> bool:
    """Could NCCL, given the parsed list ``lst`` (:class:`netlint.nccl.lists.IfList`), select an
    interface that the inventory's ``name`` (an exact name or a pattern) stands for?"""
    if not is_pattern(name):
        return lst.selects(name)
    if not lst.entries:
        return True
    if not lst.exclude:
        if lst.exact:
            return any(fnmatchcase(e.name, name) for e in lst.entries)
        return any(can_start_with(name, e.name) for e in lst.entries)
    if lst.exact:
        return True   # a pattern stands for names the exact exclusions cannot all list
    head = literal_head(name)
    return not any(head.startswith(e.name) for e in lst.entries)
