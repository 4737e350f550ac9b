"""Completion from netlint's registries: NCCL variable names wherever one is being typed, their
values after ``NAME=``, and Megatron-LM flags (``--...``) in shell launch scripts."""

from __future__ import annotations

import re

from lsprotocol import types as t

NAME = re.compile(r"(?<![A-Za-z0-9_])([A-Z][A-Z0-9_]*)\Z")
ASSIGNED = re.compile(r"(?<![A-Za-z0-9_])(NCCL_[A-Z0-9_]+)\s*[=:]\s*([\"']?)([A-Za-z0-9_.+\-]*)\Z")
FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z0-9_\-]*)\Z")
SHELL_SUFFIXES = (".sh", ".bash", ".slurm", ".sbatch", ".zsh")


def is_script(path: str, text: str) -> bool:
    return path.lower().endswith(SHELL_SUFFIXES) or text.startswith("#!")


def complete(path: str, text: str, before: str, line: int) -> list[t.CompletionItem]:
    """Items for the text ``before`` the cursor on ``line`` (positions in characters)."""
    from netlint.server import knowledge

    col = len(before)
    m = ASSIGNED.search(before)
    if m:
        values = knowledge.nccl_values(m.group(1))
        rng = _range(line, col - len(m.group(3)), col)
        return [t.CompletionItem(label=v, kind=t.CompletionItemKind.EnumMember, detail=note or m.group(1),
                                 text_edit=t.TextEdit(rng, v), sort_text=f"{i:03d}")
                for i, (v, note) in enumerate(values)]
    m = FLAG.search(before)
    if m and is_script(path, text):
        typed = m.group(1)
        rng = _range(line, col - len(typed), col)
        return [t.CompletionItem(label=flag, kind=t.CompletionItemKind.Property, detail=f"args.{dest}",
                                 text_edit=t.TextEdit(rng, flag), filter_text=flag)
                for flag, dest in knowledge.megatron_flags() if flag.startswith(typed)]
    m = NAME.search(before)
    if m and ("NCCL_".startswith(m.group(1)) or m.group(1).startswith("NCCL_")):
        typed = m.group(1)
        rng = _range(line, col - len(typed), col)
        return [t.CompletionItem(label=name, kind=t.CompletionItemKind.Variable, detail=meaning,
                                 tags=[t.CompletionItemTag.Deprecated] if deprecated else None,
                                 text_edit=t.TextEdit(rng, name))
                for name, meaning, deprecated in knowledge.nccl_names() if name.startswith(typed)]
    return []


def _range(line: int, start: int, end: int) -> t.Range:
    return t.Range(t.Position(line, start), t.Position(line, end))
