"""The last check before a fixed file is written: does the new text still read as its format?

Every fix is checked as it is applied (YAML and JSON must still parse, structural edits must change
exactly their path), but a file is written only after the whole result has been read again the
way netlint and the file's own tools read it:

- YAML and JSON: the same parsers as the first check (PyYAML's composer, ``json``);
- shell scripts: ``bash -n`` (parse, run nothing; :mod:`netlint.shell.syntax`) must not reject a line
  it accepted before the fix;
- every netlint loader that claims the file: none may find a parse error (NL003) in the new text
  (TOML, dotenv, Cumulus, DeepSpeed configs, launch scripts, …).

A file that fails is not written; the reason says which reader refused it.
"""

from __future__ import annotations

from pathlib import Path

from netlint.fix.apply import _kind, _loader_parse_error, _parses
from netlint.source import SourceFile, UnreadableFile

SHELL_SUFFIXES = (".sh", ".bash", ".sbatch", ".slurm", ".sub", ".ksh", ".zsh")


def refusal(path: str, abspath: Path, before: bytes, after: bytes) -> str | None:
    """Why ``after`` must not be written over ``path``, or None when every reader accepts it."""
    new = SourceFile(path, abspath, after)
    try:
        text = new.text
    except UnreadableFile as exc:
        return f"the fixed text is not readable ({exc.message})"
    kind = _kind(new, text)
    if not _parses(kind, text):
        return f"the fixed text does not parse as {kind.upper() if kind else 'its format'}"
    if _is_shell(new, text):  # bash first: the script's own tool, and its message names the line
        why = _bash_refusal(SourceFile(path, abspath, before), text)
        if why:
            return why
    if _loader_parse_error(new):
        return "a netlint reader finds a parse error (NL003) in the fixed text"
    return None


def _is_shell(src: SourceFile, text: str) -> bool:
    if src.suffix in SHELL_SUFFIXES:
        return True
    first = text.split("\n", 1)[0]
    return first.startswith("#!") and any(sh in first for sh in ("sh", "bash"))


def _bash_refusal(old: SourceFile, text: str) -> str | None:
    from netlint.shell.syntax import bash_rejects

    after = bash_rejects(text)
    if not after:  # accepted, or no bash to ask (netlint's own reader has spoken above)
        return None
    try:
        before = bash_rejects(old.text) or []
    except UnreadableFile:
        before = []
    if len(after) <= len(before):
        return None  # bash rejected as much before the fix: not the fix's doing
    line, message = after[0]
    return f"bash -n rejects the fixed script (line {line}: {message})"
