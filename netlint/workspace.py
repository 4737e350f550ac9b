"""The joined view of an infra repo: inventory, switches, NICs, NCCL environments and jobs.

Built once per run from the loaders' output; rules only read it. Derived facts that several rules
need (the fabric model's traffic per parallel group, which env applies to which job) are computed
by their own modules and cached here, not recomputed inside rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from netlint.config import Config
    from netlint.models.inventory import Inventory
    from netlint.source import SourceFile


@dataclass
class Workspace:
    root: Path
    config: "Config"
    inventory: "Inventory | None" = None
    inventory_file: str | None = None
    switches: list[Any] = field(default_factory=list)
    nics: list[Any] = field(default_factory=list)
    nccl_envs: list[Any] = field(default_factory=list)
    jobs: list[Any] = field(default_factory=list)
    templates: list[Any] = field(default_factory=list)  # netlint.jobs.templates.Template: filled, not read
    # Switch-side tables that are no switch of their own (SONiC pg_profile_lookup.ini): a loader of
    # kind "switches" yields them; the model's ``workspace_collection`` class attribute routes them here.
    switch_tables: list[Any] = field(default_factory=list)
    # Releases the repo pins (netlint.advisories.pins.PinSet: NGC tags, pip pins), for the ADV8xx rules.
    pins: list[Any] = field(default_factory=list)
    # What runs printed (netlint.models.run.RunLog: NCCL debug logs, nccl-tests results), for RUN7xx.
    runs: list[Any] = field(default_factory=list)
    sources: dict[str, "SourceFile"] = field(default_factory=dict)
    inventories: list[tuple[str, Any]] = field(default_factory=list)  # every inventory read: (file, model)
    # Files the user asked about (None = all). pre-commit passes a subset; context files are
    # still loaded so cross-file rules see the whole picture.
    targets: set[str] | None = None
    cache: dict[str, Any] = field(default_factory=dict)

    def text(self, file: str) -> str | None:
        src = self.sources.get(file)
        try:
            return src.text if src is not None else None
        except Exception:
            return None

    def derived(self, name: str, compute: Any) -> Any:
        """A derived fact computed once per run (``compute(self)``) and shared by rules."""
        if name not in self.cache:
            self.cache[name] = compute(self)
        return self.cache[name]

    def add(self, kind: str, model: Any, file: str) -> None:
        if kind == "inventory":
            self.inventories.append((file, model))  # which one applies: netlint.inventory_choice
            if self.inventory is None:
                self.inventory, self.inventory_file = model, file
            return
        getattr(self, getattr(model, "workspace_collection", kind)).append(model)
