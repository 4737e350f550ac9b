"""netlint's own configuration: ``[tool.netlint]`` in pyproject.toml, or netlint.yaml / .netlint.yaml.

Found from the start directory upward; the closest file wins (ruff's rule, no implicit merging).
Its directory is the project root: relative paths in it (inventory, include, exclude, policies)
are relative to that root. An unknown key is a finding (NL008), not silently ignored.

This module is the pydantic model of the settings: it validates a configuration file's settings
and gives netlint.schema.json. Finding and reading the file, and a run's :class:`Config`, are in
:mod:`netlint.config_file`, which imports this module only when a file sets something.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

# Finding and reading the file, and Config, need no pydantic (netlint/config_file.py); importers of
# netlint.config still find them here.
from netlint.config_file import (CONFIG_NAMES, Config, DefaultSettings, _config_finding,  # noqa: F401
                                 _glob_match, _read_toml, _read_yaml, find_config_file, load_config,
                                 matches_code, parse_codes, severity_of)
from netlint.findings import Finding
from netlint.limits_model import Limits
from netlint.located import Scalar, Span

Level = Literal["error", "warning", "info", "off"]


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    inventory: str | None = Field(None, description="Path of the cluster inventory")
    include: list[str] = Field(default_factory=list, description="Globs of files to lint (default: all recognised)")
    exclude: list[str] = Field(default_factory=list, description="Globs of files or folders to skip")
    select: list[str] = Field(default_factory=list, description="Rule codes or prefixes to enable (default: all)")
    ignore: list[str] = Field(default_factory=list, description="Rule codes or prefixes to disable")
    per_file_ignores: dict[str, list[str]] = Field(default_factory=dict, alias="per-file-ignores",
                                                   description="Glob of files -> rule codes or prefixes disabled there")
    severity: dict[str, Level] = Field(default_factory=dict, description="Severity per rule code")
    fail_on: Literal["error", "warning", "info"] = Field(
        "warning", alias="fail-on", description="Lowest severity that makes the exit code 1")
    nccl_version: str | None = Field(None, alias="nccl-version", description="NCCL release the jobs run")
    policies: list[str] = Field(default_factory=list, description="Policy files, folders or built-in packs")
    policy_params: dict[str, dict[str, Any]] = Field(
        default_factory=dict, alias="policy-params",
        description="Policy params per `policies` entry (a pack name or a path as written) or per policy id")
    require_suppression_reason: bool = Field(
        False, alias="require-suppression-reason",
        description="Inline suppressions must say why (`-- reason`); one without suppresses nothing (NL021)")
    mfu: Annotated[float, Field(gt=0, le=1)] | None = Field(None, description="Model FLOPs utilisation for step time")
    rules: dict[str, dict[str, Any]] = Field(default_factory=dict, description="Per-rule options")
    limits: Limits = Field(default_factory=Limits, description="Bounds on what is read (netlint/limits.py)")
    cache_dir: str | None = Field(None, alias="cache-dir",
                                  description="Folder of the cache of unchanged files (default: .netlint_cache "
                                              "at the project root)")
    required_version: str | None = Field(None, alias="required-version",
                                         description="netlint releases this configuration is written for "
                                                     "(PEP 440 specifier, e.g. '>=0.2'; a bare version: exactly)")
    docs_url: Annotated[str, Field(pattern=r"^https?://\S+$")] | None = Field(
        None, alias="docs-url", description="Where netlint's docs/rules pages are published (e.g. "
        "https://github.com/ORG/netlint/blob/COMMIT/docs/rules): SARIF helpUri and `netlint rule` link there")


def validate(data: dict, spans: dict[str, Span], shown: str) -> tuple[Settings | None, list[Finding]]:
    """The settings a configuration file's ``data`` gives, or None and its NL008 findings."""
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        import difflib

        known = [f.alias or n for n, f in Settings.model_fields.items()]
        findings = []
        for err in exc.errors(include_url=False):
            top = str(err["loc"][0]) if err["loc"] else ""
            span = spans.get(top, Span(shown, 1, 1, 1, 1))
            if err["type"] == "extra_forbidden" and len(err["loc"]) > 1:  # inside a table (limits)
                msg = f"unknown config key '{'.'.join(str(p) for p in err['loc'])}'"
            elif err["type"] == "extra_forbidden":
                hint = difflib.get_close_matches(top, known, n=1, cutoff=0.6)
                msg = f"unknown config key '{top}'" + (f"; did you mean '{hint[0]}'?" if hint else "")
            else:
                where = ".".join(str(p) for p in err["loc"])
                msg = f"config {where}: {err['msg']}"
            findings.append(_config_finding(msg, span))
        return None, findings
    return settings, []


__all__ = ["Config", "Settings", "load_config", "find_config_file", "matches_code", "Scalar"]
