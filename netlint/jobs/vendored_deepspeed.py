"""A DeepSpeed fork kept in the repository (Habana's ``deepspeed-fork/``, a vendored ``deepspeed/``): the
config keys it reads, so JOB432 does not call a fork's own key unknown.

Found by its ``deepspeed/runtime/constants.py`` (where DeepSpeed names every config key) at most three
folders below the project root; the keys are the quoted names in that file and the config modules beside
it (``config.py``, ``precision_config.py``, ``zero/config.py``, ``zero/offload_config.py``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from netlint.workspace import Workspace

_NAME = re.compile(r"""["']([a-z][a-z0-9_]*)["']""")
_FILES = ("constants.py", "config.py", "precision_config.py", "zero/config.py", "zero/offload_config.py")
_MAX_BYTES = 2_000_000


def fork_keys(ws: "Workspace") -> frozenset[str]:
    """Every key name a vendored DeepSpeed's config code names (empty when there is no fork)."""
    def compute(w):
        from netlint.safe_read import is_file, read_text

        root = w.root
        found: set[str] = set()
        for pattern in ("deepspeed/runtime", "*/deepspeed/runtime", "*/*/deepspeed/runtime"):
            for runtime in sorted(root.glob(pattern)):
                if not is_file(runtime / "constants.py"):
                    continue
                for name in _FILES:
                    text = read_text(runtime / name, _MAX_BYTES) if is_file(runtime / name) else None
                    if text:
                        found.update(_NAME.findall(text))
        return frozenset(found)

    return ws.derived("jobs.deepspeed_fork_keys", compute)
