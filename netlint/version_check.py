"""``required-version`` in the configuration: the netlint releases a repository's config is written for
(ruff's setting of the same name). A PEP 440 specifier (``>=0.2,<0.4``) or a bare version (that
release exactly). Compared with ``packaging`` when it is installed (pip brings it into most
environments); otherwise a plain numeric comparison of each clause, which covers specifiers made of
``>=``, ``<=``, ``>``, ``<``, ``==`` and ``!=`` on release numbers."""

from __future__ import annotations

import re

_CLAUSE = re.compile(r"^\s*(>=|<=|==|!=|>|<|~=)?\s*v?(\d+(?:\.\d+)*)\s*$")


def unmet(spec: str, version: str) -> str | None:
    """Why ``version`` does not satisfy ``spec`` (one line), or None when it does."""
    spec = spec.strip()
    if not spec:
        return "required-version is empty"
    if re.fullmatch(r"v?\d+(\.\d+)*", spec):
        spec = f"=={spec.lstrip('v')}"
    try:
        from packaging.specifiers import InvalidSpecifier, SpecifierSet
        from packaging.version import InvalidVersion, Version
    except ImportError:
        return _unmet_simple(spec, version)
    try:
        ok = SpecifierSet(spec).contains(Version(version), prereleases=True)
    except InvalidSpecifier:
        return f"required-version {spec!r} is not a version specifier (PEP 440, e.g. '>=0.2')"
    except InvalidVersion:
        return None  # a development build with a local version string: do not block it
    return None if ok else f"this configuration requires netlint {spec}; this is netlint {version}"


def _release(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text.split("+")[0])[:4])


def _unmet_simple(spec: str, version: str) -> str | None:
    have = _release(version)
    for clause in spec.split(","):
        m = _CLAUSE.match(clause)
        if m is None or m.group(1) == "~=":
            return f"required-version {spec!r} is not a version specifier this netlint can check " \
                   f"without the 'packaging' library (use >=, <=, >, <, ==, != on release numbers)"
        op, want = m.group(1) or "==", _release(m.group(2))
        width = max(len(have), len(want))
        a, b = have + (0,) * (width - len(have)), want + (0,) * (width - len(want))
        if not {">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b, "==": a == b, "!=": a != b}[op]:
            return f"this configuration requires netlint {spec}; this is netlint {version}"
    return None
