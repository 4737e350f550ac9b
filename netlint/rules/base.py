"""The rule contract: metadata on the class, the check a generator, the docstring the docs.

A rule reads the :class:`~netlint.workspace.Workspace` and yields findings. It never parses files
and never prints. Subclasses register themselves by defining ``code``.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, ClassVar, Iterator

from netlint.findings import Finding, Fix, Related, Severity
from netlint.located import Span

if TYPE_CHECKING:
    from netlint.workspace import Workspace

REGISTRY: dict[str, type["Rule"]] = {}


class Rule:
    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    severity: ClassVar[Severity] = Severity.ERROR
    summary: ClassVar[str] = ""
    tags: ClassVar[tuple[str, ...]] = ()
    # Rules emitted by the engine itself (parse errors, schema violations) have no check.
    engine_only: ClassVar[bool] = False
    # The workspace kinds the check reads (netlint.rule_inputs); empty: its family's. A run on some
    # files (pre-commit) reports a finding located elsewhere only when the rule reads a given file.
    reads: ClassVar[frozenset[str]] = frozenset()
    # What the rule reads, so a run imports it only when the workspace holds that: groups of kinds
    # (netlint.registry.present), one of each group present; None = the family's NEEDS, () = always.
    needs: ClassVar[tuple[tuple[str, ...], ...] | None] = None

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        if not cls.code:
            return
        if cls.code in REGISTRY and REGISTRY[cls.code] is not cls:
            raise RuntimeError(f"rule code {cls.code} defined twice")
        if not cls.__doc__ or not cls.summary or not cls.name:
            raise RuntimeError(f"rule {cls.code} needs a name, a summary and docs")
        REGISTRY[cls.code] = cls

    # -- for subclasses -------------------------------------------------------------------------
    def check(self, ws: "Workspace") -> Iterator[Finding]:
        return iter(())

    @classmethod
    def finding(cls, message: str, span: Span, *, key: str = "", fix: Fix | None = None,
                related: tuple[Related, ...] | list[Related] = (),
                severity: Severity | None = None) -> Finding:
        return Finding(code=cls.code, message=message, span=span,
                       severity=severity or cls.severity, related=tuple(related),
                       fix=fix, key=key)

    # -- docs -------------------------------------------------------------------------------------
    @classmethod
    def docs(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def help_uri(cls, docs_url: str | None = None) -> str | None:
        """The rule's page (docs/rules/CODE.md) under the configured ``docs-url``, else None:
        netlint has no web site, so a link is only given where the user publishes the pages."""
        from netlint.rule_pages import help_uri

        return help_uri(cls.code, docs_url)

    @classmethod
    def family(cls) -> str:
        return cls.code.rstrip("0123456789")

    @classmethod
    def inputs(cls) -> frozenset[str]:
        from netlint.rule_inputs import family_inputs

        return cls.reads or family_inputs(cls.family())


def load_rules() -> dict[str, type[Rule]]:
    """Import every module under ``netlint.rules`` once, so each rule registers itself."""
    if not _loaded:
        import importlib
        import pkgutil

        import netlint.rules as pkg

        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            importlib.import_module(info.name)
        _loaded.append(True)
    return dict(sorted(REGISTRY.items(), key=lambda kv: _code_order(kv[0])))


def _code_order(code: str) -> tuple:
    prefix = code.rstrip("0123456789")
    return (prefix, int(code[len(prefix):] or 0))


_loaded: list[bool] = []


def get_rule(code: str) -> type[Rule] | None:
    return load_rules().get(code.upper())
