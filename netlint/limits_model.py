"""The pydantic model of ``limits:`` in netlint.yaml: validation of a configuration file that sets any,
and its JSON Schema. A run without one never imports it (:class:`netlint.limits.Limits` holds the
defaults); a test keeps the two in step."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

MB = 1024 * 1024


class Limits(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    max_file_mb: float = Field(
        10, gt=0, le=1024, alias="max-file-mb",
        description="Largest file read, in MiB; a larger file is not read (NL013)")
    max_depth: int = Field(
        100, ge=8, le=200, alias="max-depth",
        description="Deepest nesting of JSON, YAML or TOML containers; deeper is NL003")
    max_alias_nodes: int = Field(
        100_000, ge=0, le=10_000_000, alias="max-alias-nodes",
        description="YAML nodes a document may reach through aliases (*ref, <<: *ref); more is NL003")
    max_int_digits: int = Field(
        100, ge=20, le=4000, alias="max-int-digits",
        description="Digits of an integer literal; a longer one is NL005 (out of range) and read as text")
    policy_budget: int = Field(
        10_000_000, ge=1_000, le=10_000_000_000, alias="policy-budget",
        description="Cost units one policy may spend (nodes selected, expression tokens per node, "
                    "macro iterations, list copies, regex compilations); more is NL035 and the policy stops")

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * MB)
