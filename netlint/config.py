"""netlint's own configuration: ``[tool.netlint]`` in pyproject.toml, or netlint.yaml / .netlint.yaml.

Found from the start directory upward; the closest file wins (ruff's rule, no implicit merging).
Its directory is the project root: relative paths in it (inventory, include, exclude, policies)
are relative to that root. An unknown key is a finding (NL008), not silently ignored.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from netlint.findings import Finding, Severity
from netlint.limits import Limits
from netlint.located import MapNode, ParseError, Scalar, Span, parse_yaml, plain

CONFIG_NAMES = ("netlint.yaml", ".netlint.yaml", "netlint.yml", ".netlint.yml", "pyproject.toml")
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


class Config:
    def __init__(self, settings: Settings | None = None, root: Path | None = None,
                 file: Path | None = None):
        self.settings = settings or Settings()
        self.root = (root or Path.cwd()).resolve()
        self.file = file
        self.key_spans: dict[str, Span] = {}  # where each top-level key is written (located NL008)

    def rule_options(self, code: str) -> dict[str, Any]:
        return self.settings.rules.get(code, {})

    def is_excluded(self, rel: str) -> bool:
        return any(_glob_match(rel, g) for g in self.settings.exclude)

    def is_included(self, rel: str) -> bool:
        return not self.settings.include or any(_glob_match(rel, g) for g in self.settings.include)

    def severity_for(self, code: str) -> str | None:
        best, best_len = None, -1
        for pattern, level in self.settings.severity.items():
            if code.startswith(pattern.upper()) and len(pattern) > best_len:
                best, best_len = level, len(pattern)
        return best


def _glob_match(rel: str, pattern: str) -> bool:
    pattern = pattern.rstrip("/")
    if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(rel, pattern + "/*"):
        return True
    parts = rel.split("/")
    # a bare name ("venv", "*.bak") matches any path component, like .gitignore
    return "/" not in pattern and any(fnmatch.fnmatch(p, pattern) for p in parts)


def find_config_file(start: Path) -> Path | None:
    start = start.resolve()
    for directory in (start, *start.parents):
        for name in CONFIG_NAMES:
            candidate = directory / name
            if candidate.is_file():
                if name == "pyproject.toml" and not _has_tool_table(candidate):
                    continue
                return candidate
    return None


def _has_tool_table(path: Path) -> bool:
    try:
        return "[tool.netlint]" in path.read_text(encoding="utf-8")
    except OSError:
        return False


def load_config(path: Path | None, start: Path) -> tuple[Config, list[Finding]]:
    """Read ``path`` (or the closest config above ``start``). Errors come back as NL008 findings."""
    file = path or find_config_file(start)
    if file is None:
        root = start if start.is_dir() else start.parent
        return Config(root=root), []
    shown = str(file)
    from netlint.safe_read import Refused, read_bytes

    try:  # a regular file within the default limits.max-file-mb (a FIFO named --config would block)
        text = read_bytes(file).decode("utf-8")
    except (Refused, UnicodeDecodeError) as exc:
        return Config(root=file.parent), [_config_finding(f"cannot read config: {exc}", Span(shown, 1, 1, 1, 1))]
    if file.name == "pyproject.toml":
        data, spans, problems = _read_toml(shown, text)
    else:
        data, spans, problems = _read_yaml(shown, text)
    if problems:
        return Config(root=file.parent, file=file), problems
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
        return Config(root=file.parent, file=file), findings
    config = Config(settings, root=file.parent, file=file)
    config.key_spans = spans
    if settings.required_version is not None:
        from netlint import __version__
        from netlint.version_check import unmet

        why = unmet(settings.required_version, __version__)
        if why:
            return config, [_config_finding(why, spans.get("required-version", Span(shown, 1, 1, 1, 1)))]
    return config, []


def _config_finding(message: str, span: Span) -> Finding:
    return Finding("NL008", message, span, Severity.ERROR, key=message)


def _read_yaml(shown: str, text: str) -> tuple[dict, dict[str, Span], list[Finding]]:
    try:
        docs = parse_yaml(shown, text)
    except ParseError as exc:
        return {}, {}, [_config_finding(exc.message if exc.bound else f"config does not parse: {exc.message}",
                                        exc.span)]
    if not docs:
        return {}, {}, []
    root = docs[0].root
    if not isinstance(root, MapNode):
        return {}, {}, [_config_finding("config must be a mapping", getattr(root, "span", Span(shown, 1, 1, 1, 1)))]
    spans = {str(k): root.key_span(k) for k in root}
    spans.update(_code_spans(root))
    return plain(root), spans, []


def _code_spans(root: MapNode) -> dict[str, Span]:
    """Where each rule code of select/ignore/per-file-ignores/severity is written, keyed
    ``select:CODE`` or ``per-file-ignores:PATTERN:CODE`` (netlint.codes locates NL008 there)."""
    out: dict[str, Span] = {}

    def items(prefix: str, node) -> None:
        for item in node if isinstance(node, list) else ():
            if isinstance(item, Scalar) and isinstance(item.value, str):
                out.setdefault(f"{prefix}:{item.value}", item.span)

    for key in ("select", "ignore"):
        items(key, root.get(key))
    files = root.get("per-file-ignores")
    for pattern, codes in files.items() if isinstance(files, MapNode) else ():
        items(f"per-file-ignores:{plain(pattern)}", codes)
    levels = root.get("severity")
    for code in levels if isinstance(levels, MapNode) else ():
        out.setdefault(f"severity:{plain(code)}", levels.key_span(code))
    return out


def _read_toml(shown: str, text: str) -> tuple[dict, dict[str, Span], list[Finding]]:
    from netlint.parsing_toml import parse_toml

    try:
        data = parse_toml(shown, text)
    except ParseError as exc:
        return {}, {}, [_config_finding(exc.message if exc.bound else f"pyproject.toml does not parse: "
                                        f"{exc.message}", exc.span)]
    section = data.get("tool", {}).get("netlint", {})
    spans: dict[str, Span] = {}
    in_section = False
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("["):
            in_section = stripped.startswith("[tool.netlint")
            continue
        if in_section and "=" in stripped and not stripped.startswith("#"):
            key = stripped.split("=", 1)[0].strip().strip('"')
            col = line.index(key) + 1 if key in line else 1
            spans.setdefault(key, Span(shown, lineno, col, lineno, col + len(key)))
    return section, spans, []


def matches_code(code: str, patterns: list[str]) -> bool:
    code = code.upper()
    return any(p.upper() == "ALL" or code.startswith(p.upper()) for p in patterns)


def parse_codes(text: str | None) -> list[str]:
    if not text:
        return []
    return [c.strip() for c in text.split(",") if c.strip()]


def severity_of(level: str) -> Severity:
    return Severity.parse(level)


__all__ = ["Config", "Settings", "load_config", "find_config_file", "matches_code", "Scalar"]
