"""The fixer: applies the edits findings carry, safely, for every format netlint reads.

``run_fixes(options, unsafe=..., write=...)`` lints, fixes in memory, re-lints until nothing changes
(at most :data:`RUNAWAY_LIMIT` passes; a fix that is not idempotent is dropped, files that do not
settle are not written), then writes each changed file atomically — only inside the project, never
through a hard link or over a read-only file, and only when the result still parses
(:mod:`netlint.fix.write`); ``FixRun.unwritten`` says which files were not written and why. Text edits apply
to any file (YAML, JSON, env, shell); structural edits (``Edit.doc_path``) go through ruamel.yaml's
round trip for YAML and a minimal text insertion for JSON. See docs/fixes.md.
"""

from typing import Any

_FROM = {"Applied": "errors", "FixError": "errors", "Skipped": "errors", "RUNAWAY_LIMIT": "loop",
         "FileChange": "loop", "FixRun": "loop", "run_fixes": "loop"}


def __getattr__(name: str) -> Any:
    # Imported on first use: every `netlint check` asks netlint.fix.cli whether to fix, and the fixer
    # (ruamel.yaml, PyYAML) is only needed when it does.
    if name in _FROM:
        import importlib

        return getattr(importlib.import_module(f"netlint.fix.{_FROM[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["Applied", "FileChange", "FixError", "FixRun", "RUNAWAY_LIMIT", "Skipped", "run_fixes"]
