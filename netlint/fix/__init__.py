"""The fixer: applies the edits findings carry, safely, for every format netlint reads.

``run_fixes(options, unsafe=..., write=...)`` lints, fixes in memory, re-lints until nothing changes
(at most :data:`RUNAWAY_LIMIT` passes; a fix that is not idempotent is dropped, files that do not
settle are not written), then writes each changed file atomically — only inside the project, never
through a hard link or over a read-only file, and only when the result still parses
(:mod:`netlint.fix.write`); ``FixRun.unwritten`` says which files were not written and why. Text edits apply
to any file (YAML, JSON, env, shell); structural edits (``Edit.doc_path``) go through ruamel.yaml's
round trip for YAML and a minimal text insertion for JSON. See docs/fixes.md.
"""

from netlint.fix.errors import Applied, FixError, Skipped
from netlint.fix.loop import RUNAWAY_LIMIT, FileChange, FixRun, run_fixes

__all__ = ["Applied", "FileChange", "FixError", "FixRun", "RUNAWAY_LIMIT", "Skipped", "run_fixes"]
