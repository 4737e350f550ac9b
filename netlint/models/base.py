"""Pydantic building blocks for located models.

``Located[int]`` is a field type whose value is a :class:`~netlint.located.Scalar`: pydantic checks
the scalar's value against ``int`` (with any constraints) and keeps the scalar's span, so every
value a rule reads can be pointed at. Its JSON Schema is that of the inner type, so schemas generated
from these models describe the user's file, not netlint's wrappers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from netlint.located import Scalar, Span

if TYPE_CHECKING:
    from pydantic_core import core_schema

NOWHERE = Span("", 0, 0, 0, 0)


class _LocatedSchema:
    __slots__ = ("inner",)

    def __init__(self, inner: Any):
        self.inner = inner

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> core_schema.CoreSchema:
        from pydantic_core import core_schema

        inner = handler.generate_schema(self.inner)

        def wrap(value: Any, validate: Any) -> Scalar:
            if isinstance(value, Scalar):
                return Scalar(validate(value.value), value.span, value.raw, value.quoted)
            return Scalar(validate(value), NOWHERE)

        return core_schema.no_info_wrap_validator_function(
            wrap, inner,
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda s: s.value if isinstance(s, Scalar) else s),
        )


class Located:
    """``Located[T]``: a Scalar whose value validates as ``T``."""

    def __class_getitem__(cls, item: Any) -> Any:
        return Annotated[Scalar, _LocatedSchema(item)]


def __getattr__(name: str) -> Any:
    # The pydantic base of netlint's own formats (inventory, native switch and NIC files) is imported
    # with pydantic, when such a file is read: a run without one imports neither.
    if name == "Model":
        from netlint.models.pydantic_base import Model

        return Model
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def value(item: Any, default: Any = None) -> Any:
    """The plain value of a Located field (or ``default`` when it is absent)."""
    if item is None:
        return default
    return item.value if isinstance(item, Scalar) else item
