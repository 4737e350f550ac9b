"""The pydantic base of netlint's own formats (inventory, native switch and NIC files): imported from
:mod:`netlint.models.base` only when one of those is read or its schema generated."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from netlint.located import Scalar, Span


class Model(BaseModel):
    """Strict about keys (an unknown key is a finding), lenient about nothing else."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, arbitrary_types_allowed=True,
                              frozen=False)

    def span_of(self, field: str) -> Span | None:
        value = getattr(self, field, None)
        return value.span if isinstance(value, Scalar) else None
