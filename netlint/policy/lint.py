"""Load-time checks of the names a policy writes that the engine would only reject on a node.

CEL reports an undeclared variable (``sellf.mtu``) when it evaluates, once per selected node, and
not at all behind ``has()`` or a short-circuit; a message placeholder netlint does not recognise
(``{mtu}``) would print as written; a ``params.x`` the policy does not declare fails per node too.
Each is a located NL033 at load, with a did-you-mean, and the policy does not run.
"""

from __future__ import annotations

import re

from netlint.nearest import close_match

_OPERATOR_WORDS = frozenset({"in"})          # CEL's one word operator
_PARAM_USE = re.compile(r"(?<![\w.])params\s*\.\s*([A-Za-z_]\w*)")
_BRACED = re.compile(r"\{([^{}]*)\}")
_NETLINT_VALUE = re.compile(r"\$\{netlint\.([A-Za-z_]\w*)\}")


def variables() -> tuple[str, ...]:
    from netlint.policy.cel import PARAMS, VARIABLES

    return (*VARIABLES, PARAMS)


def _hint(word: str, table: tuple[str, ...]) -> str:
    close = close_match(word, tuple(sorted(table)), 0.6)
    return f"; did you mean '{close}'?" if close else ""


def unknown_variable(source: str) -> tuple[int, str] | None:
    """(offset, message) of the first name the expression reads that is no variable of a policy
    (nor a macro's own variable, a literal or a type name), or None."""
    from netlint.policy.cost import _NOT_VARIABLES, _free, _Text

    text = _Text(source)
    bound = {text.blanked[s:e].strip() for _, _, _, _, args in text.macros() for s, e in args[:1]}
    known = set(variables())
    free = _free(text, 0, len(text.blanked), bound | known | _OPERATOR_WORDS | set(_NOT_VARIABLES))
    if not free:
        return None
    first = min((m.start(), m.group()) for m in re.finditer(r"(?<![\w.])[A-Za-z_]\w*", text.blanked)
                if m.group() in free)
    name = first[1]
    return first[0], (f"'{name}' is not a variable of a policy expression (it has "
                      f"{', '.join(variables())} and the variables of its own macros){_hint(name, variables())}")


def unknown_param(source: str, declared: dict) -> tuple[int, str] | None:
    """(offset, message) of the first ``params.x`` whose ``x`` the policy's ``params`` do not have."""
    from netlint.policy.cel import blank_strings

    for m in _PARAM_USE.finditer(blank_strings(source)):
        if m.group(1) not in declared:
            return m.start(1), _no_param(m.group(1), declared)
    return None


def _no_param(name: str, declared: dict) -> str:
    have = ", ".join(sorted(declared)) or "none"
    return (f"params has no '{name}' (this policy's params: {have}){_hint(name, tuple(declared))}; "
            "declare it with a default under `params:`")


def bad_placeholder(message: str, declared: dict) -> tuple[int, str] | None:
    """(offset, message) of the first ``{…}`` in a policy message that is not a placeholder netlint
    fills in (it would print as written), or of a ``{params.x}`` the policy does not declare."""
    names = variables()
    for m in _BRACED.finditer(message):
        inner = m.group(1)
        parts = [p.strip() for p in inner.split(".")]
        head = parts[0]
        if head in names and inner == inner.strip() and all(re.fullmatch(r"[A-Za-z_]\w*", p) for p in parts[1:]) \
                and " " not in inner:
            if head == "params" and len(parts) > 1 and parts[1] not in declared:
                return m.start(1) + len("params."), _no_param(parts[1], declared)
            continue
        if re.fullmatch(r"[A-Za-z_]\w*", inner):
            close = close_match(inner, tuple(sorted(names)), 0.6)
            hint = f"; did you mean '{{{close}}}'?" if close else f"; did you mean '{{self.{inner}}}'?"
        elif head and re.fullmatch(r"[A-Za-z_]\w*", head) and head not in names:
            hint = _hint(head, names)
        else:
            hint = ""
        return m.start(), (f"'{{{inner}}}' is not a placeholder: netlint fills in {{self.x}}, {{switch.x}}, "
                           f"{{workspace.x}}, {{params.x}} (dotted field names of "
                           f"{', '.join(names)}) and would print this one as written{hint}")
    return None


def netlint_values(value, recommended: dict, path: str = "") -> tuple[object, list[tuple[str, str]]]:
    """``value`` with each ``${netlint.NAME}`` in its strings replaced by netlint's recommended value
    NAME (a string that is only the reference becomes the value itself, keeping its type), and the
    (path, message) of each unknown NAME."""
    problems: list[tuple[str, str]] = []
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            out[k], found = netlint_values(v, recommended, f"{path}.{k}" if path else str(k))
            problems += found
        return out, problems
    if isinstance(value, list):
        items = []
        for i, v in enumerate(value):
            got, found = netlint_values(v, recommended, f"{path}[{i}]")
            items.append(got)
            problems += found
        return items, problems
    if not isinstance(value, str) or "${" not in value:
        return value, problems
    for m in _NETLINT_VALUE.finditer(value):
        if m.group(1) not in recommended:
            problems.append((path, f"${{netlint.{m.group(1)}}} is not one of netlint's recommended values "
                                   f"({', '.join(sorted(recommended))}){_hint(m.group(1), tuple(recommended))}"))
    if problems:
        return value, problems
    whole = _NETLINT_VALUE.fullmatch(value)
    if whole:
        return recommended[whole.group(1)], problems
    return _NETLINT_VALUE.sub(lambda m: str(recommended[m.group(1)]), value), problems
