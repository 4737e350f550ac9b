"""The fixer: applies the edits findings carry, safely, for every format netlint reads.

``run_fixes(options, unsafe=..., write=...)`` lints, fixes in memory, re-lints until nothing changes
(at most :data:`RUNAWAY_LIMIT` passes), then writes each changed file atomically. Text edits apply
to any file (YAML, JSON, env, shell); structural edits (``Edit.doc_path``) go through ruamel.yaml's
round trip for YAML and a minimal text insertion for JSON. See docs/fixes.md.
"""

from netlint.fix.errors import Applied, FixError, Skipped
from netlint.fix.loop import RUNAWAY_LIMIT, FileChange, FixRun, run_fixes

__all__ = ["Applied", "FileChange", "FixError", "FixRun", "RUNAWAY_LIMIT", "Skipped", "run_fixes"]
