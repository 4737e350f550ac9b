"""The policy file format (``schemas/policy.schema.json`` is generated from these models)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from netlint.models.base import Located, Model

PolicyId = Annotated[str, Field(pattern=r"^[A-Z][A-Z0-9_-]*[0-9]+$")]
Template = Literal["required", "forbidden", "range", "one-of", "pattern", "match-across"]


class Examples(Model):
    pass_: list[Any] = Field(default_factory=list, alias="pass",
                             description="values of `self` that must pass (match-across: lists of them)")
    fail: list[Any] = Field(default_factory=list,
                            description="values of `self` that must fail (match-across: lists of them)")
    workspace: dict[str, Any] = Field(default_factory=dict,
                                      description="the `workspace` the examples run against (default: empty)")
    switch: dict[str, Any] = Field(default_factory=dict, description="the `switch` the examples are in")
    nccl_env: dict[str, Any] = Field(default_factory=dict, description="the `nccl_env` the examples are in")
    job: dict[str, Any] = Field(default_factory=dict, description="the `job` the examples are in")
    nic: dict[str, Any] = Field(default_factory=dict, description="the `nic` the examples are in")


class Policy(Model):
    # exactly one of `assert` / `template` (the validator below), for editors using the JSON Schema too
    model_config = {**Model.model_config,
                    "json_schema_extra": {"oneOf": [{"required": ["assert"]}, {"required": ["template"]}]}}

    id: Located[PolicyId] = Field(description="Stable code, e.g. ORG001 (not a built-in family)")
    summary: Located[str] = Field(description="One line: what the policy requires (shown by `netlint rules`)")
    severity: Located[Literal["error", "warning", "info"]] = Field(  # type: ignore[assignment]
        default=None, description="error (default), warning or info")
    given: Located[str] | list[Located[str]] = Field(description="RFC 9535 JSONPath(s) over the workspace view")
    assert_: Located[str] | None = Field(None, alias="assert", description=(
        "CEL over `self`, `workspace` and the item the node is in (`switch`, `nccl_env`, `job`, `nic`)"))
    template: Located[Template] | None = Field(None, description=(
        "A built-in check instead of CEL: required, forbidden, range, one-of, pattern, match-across (with `params`)"))
    params: dict[str, Any] = Field(default_factory=dict, description=(
        "Template parameters, or values a CEL `assert` reads as `params.x`; the config's `policy-params` "
        "overrides them per pack, file or policy id. In a value, `${netlint.NAME}` is one of netlint's "
        "recommended values (docs/policy.md)"))
    message: Located[str] | None = Field(None, description="With {self.field} / {switch.name} / {workspace.x} placeholders")
    docs: Located[str] | None = Field(None, description="Why, and the source of the number (shown by `netlint rule`)")
    tags: list[Located[str]] = Field(default_factory=list, description="Labels to select or group policies by")
    duplicates: Located[str] | list[Located[str]] = Field(default_factory=list, description=(
        "Codes of rules that report the same fault (a built-in rule, another pack's policy): where one "
        "of them is enabled (and, for a policy, loaded before this one) this policy's findings are dropped"))
    examples: Examples | None = Field(None, description="Values that must fail and pass (`netlint policy test` runs them)")

    @model_validator(mode="after")
    def _one_check(self) -> "Policy":
        if (self.assert_ is None) == (self.template is None):
            raise ValueError("a policy needs exactly one of 'assert' (CEL) or 'template'")
        return self

    @property
    def level(self) -> str:
        return self.severity.value if self.severity is not None else "error"

    @property
    def parameters(self) -> dict:
        from netlint.located import plain

        return plain(self.params)

    @property
    def duplicated(self) -> list:
        """The ``duplicates`` entries (Scalars), one or a list as written."""
        return self.duplicates if isinstance(self.duplicates, list) else [self.duplicates]

    @property
    def paths(self) -> list:
        return self.given if isinstance(self.given, list) else [self.given]


class PolicyFile(Model):
    rules: list[Policy] = Field(description="The policies of this file")

