"""Located models declared like pydantic models, built as dataclasses: no pydantic on a run's path.

The models every run builds (:mod:`netlint.models.nccl`) are filled by netlint's own loaders with
values already checked, so pydantic's validation only cost start-up time (importing it and building
its validators is most of a one-file run). :class:`Model` keeps the declarations as they were
(``Field(default, description=...)``, ``Located[T]``, ``field_serializer``) and makes each subclass
a keyword-only dataclass that does what the pydantic model did with what loaders pass: a
``Located`` value becomes a plain :class:`~netlint.located.Scalar` with the same value, span, raw
text and quotes (a :class:`~netlint.shell.model.Word` is not kept), lists are copied, and an unknown
keyword is an error. ``model_fields`` (alias, annotation, description) is what the policy view and
its schema read, as from pydantic.
"""

from __future__ import annotations

import dataclasses
import sys
import typing
from typing import Any, ClassVar

_REQUIRED = dataclasses.MISSING


class FieldInfo:
    """What ``Field(...)`` declares; ``annotation`` is filled in when ``model_fields`` is first read."""

    __slots__ = ("default", "default_factory", "description", "alias", "annotation")

    def __init__(self, default: Any = _REQUIRED, *, default_factory: Any = None, description: str | None = None,
                 alias: str | None = None):
        self.default, self.default_factory = default, default_factory
        self.description, self.alias, self.annotation = description, alias, None


def Field(default: Any = _REQUIRED, *, default_factory: Any = None, description: str | None = None,  # noqa: N802
          alias: str | None = None) -> Any:
    return FieldInfo(default, default_factory=default_factory, description=description, alias=alias)


def field_serializer(*names: str):
    """Kept for ``model_dump``: how the named fields are written out."""
    def mark(fn):
        fn.__serializes__ = names
        return fn
    return mark


class _ModelFields:
    """``cls.model_fields``: name -> FieldInfo with the evaluated annotation (``Located[T]`` -> Scalar)."""

    def __get__(self, obj: Any, cls: type) -> dict[str, FieldInfo]:
        cached = cls.__dict__.get("_model_fields")
        if cached is None:
            hints = _hints(cls)
            cached = {}
            for name, info in cls._declared.items():
                tp = hints.get(name, Any)
                if typing.get_origin(tp) is typing.Annotated:
                    tp = typing.get_args(tp)[0]
                info.annotation = tp
                cached[name] = info
            cls._model_fields = cached
        return cached


class Model:
    """Base of a located model built without pydantic (see the module docstring)."""

    _declared: ClassVar[dict[str, FieldInfo]] = {}
    model_fields = _ModelFields()

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        declared = dict(cls._declared)
        for name, annotation in cls.__dict__.get("__annotations__", {}).items():
            if isinstance(annotation, str) and annotation.startswith("ClassVar"):
                continue
            value = cls.__dict__.get(name, _REQUIRED)
            info = value if isinstance(value, FieldInfo) else FieldInfo(value)
            declared[name] = info
            if info.default_factory is not None:
                setattr(cls, name, dataclasses.field(default_factory=info.default_factory))
            elif info.default is _REQUIRED:
                if name in cls.__dict__:
                    delattr(cls, name)
            else:
                setattr(cls, name, info.default)
        cls._declared = declared
        cls._copied = None  # (located fields, list fields), found when the first instance is built
        dataclasses.dataclass(kw_only=True, eq=True, repr=True)(cls)

    def __post_init__(self) -> None:
        cls = type(self)
        if cls._copied is None:
            cls._copied = _coercions(cls)
        located, lists = cls._copied
        if located or lists:
            from netlint.located import Scalar

            from netlint.models.base import NOWHERE

            for name in located:
                v = getattr(self, name)
                object.__setattr__(self, name, Scalar(v.value, v.span, v.raw, v.quoted) if isinstance(v, Scalar)
                                   else Scalar(v, NOWHERE))
            for name in lists:
                v = getattr(self, name)
                if isinstance(v, (list, tuple)):
                    object.__setattr__(self, name, list(v))

    def span_of(self, field: str):
        from netlint.located import Scalar

        value = getattr(self, field, None)
        return value.span if isinstance(value, Scalar) else None

    def model_dump(self) -> dict[str, Any]:
        out = {}
        serializers = {n: fn for fn in vars(type(self)).values() for n in getattr(fn, "__serializes__", ())}
        for name in self._declared:
            value = getattr(self, name)
            if name in serializers:
                out[name] = serializers[name](self, value)
            elif isinstance(value, Model):
                out[name] = value.model_dump()
            elif isinstance(value, list):
                out[name] = [v.model_dump() if isinstance(v, Model) else v for v in value]
            else:
                out[name] = value
        return out


def _coercions(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]]:
    from netlint.models.base import _LocatedSchema

    hints = _hints(cls)
    located, lists = [], []
    for name in cls._declared:
        tp = hints.get(name, Any)
        if typing.get_origin(tp) is typing.Annotated and any(isinstance(m, _LocatedSchema)
                                                            for m in typing.get_args(tp)[1:]):
            located.append(name)
        elif typing.get_origin(tp) is list:
            lists.append(name)
    return tuple(located), tuple(lists)


def _hints(cls: type) -> dict[str, Any]:
    """The declared fields' annotations, evaluated in the module of the class that declares each."""
    out: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if klass is Model or not (isinstance(klass, type) and issubclass(klass, Model)):
            continue
        scope = vars(sys.modules[klass.__module__])
        for name, annotation in klass.__dict__.get("__annotations__", {}).items():
            if name in cls._declared:
                out[name] = eval(annotation, scope) if isinstance(annotation, str) else annotation  # noqa: S307
    return out
