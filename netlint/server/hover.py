"""Hover: on a finding, its rule's docs; on an NCCL (or other stack's) variable, a Megatron-LM flag or
a SONiC QoS table/field, what netlint's registries say about it."""

from __future__ import annotations

import re

from lsprotocol import types as t

WORD = re.compile(r"-{0,2}[A-Za-z0-9_][A-Za-z0-9_\-]*")


def word_at(line: str, character: int) -> tuple[str, int, int] | None:
    """The name under the cursor (``--flag``, ``NCCL_X``, ``dscp_to_tc_map``) and its columns."""
    for m in WORD.finditer(line):
        if m.start() <= character <= m.end():
            return m.group(), m.start(), m.end()
    return None


def rule_markdown(code: str, message: str) -> str:
    from netlint.rules.base import get_rule

    rule = get_rule(code)
    if rule is None:
        return f"**{code}** {message}"
    return (f"**{rule.code} {rule.name}** ({rule.severity}) — {rule.summary}\n\n{message}\n\n---\n\n"
            f"{rule.docs()}")


def hover(pairs, line_text: str, position: t.Position) -> t.Hover | None:
    """``pairs`` are the document's (finding, diagnostic); ``position`` is in the server's units
    (characters) on ``line_text``."""
    parts = []
    for f, d in pairs:
        r = d.range
        if (r.start.line, r.start.character) <= (position.line, position.character) <= (r.end.line, r.end.character):
            parts.append(rule_markdown(f.code, f.message))
    found = word_at(line_text, position.character)
    if found is not None:
        from netlint.server.knowledge import describe

        known = describe(found[0])
        if known:
            parts.append(known)
    if not parts:
        return None
    return t.Hover(contents=t.MarkupContent(kind=t.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)))
