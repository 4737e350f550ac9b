"""Finding and reading netlint's configuration file, and the :class:`Config` of a run, without pydantic.

A run without a configuration file (one file linted on its own, a pre-commit hook in a repo that
has none) imports no pydantic: its settings are :class:`DefaultSettings`, the defaults of
:class:`netlint.config.Settings` kept as data in :mod:`netlint.registry_data` (``python -m
netlint.registry`` regenerates them; a test fails when they drift). A file's settings are validated
by that pydantic model (:func:`netlint.config.validate`), imported only then.
"""

from __future__ import annotations

import copy
import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING, Any

from netlint.findings import Finding, Severity
from netlint.located import MapNode, ParseError, Scalar, Span, plain

if TYPE_CHECKING:
    from netlint.config import Settings

CONFIG_NAMES = ("netlint.yaml", ".netlint.yaml", "netlint.yml", ".netlint.yml", "pyproject.toml")


class DefaultSettings:
    """The settings of a run without a configuration file: each field's default, as
    ``Settings()`` would give it (a field the generated data lacks is asked of pydantic); with
    ``values`` (from :func:`plain_settings`), what ``Settings.model_validate`` gives for them."""

    def __init__(self, values: dict[str, Any] | None = None) -> None:
        from netlint import limits
        from netlint.registry_data import SETTINGS_DEFAULTS

        self.__dict__.update(copy.deepcopy(SETTINGS_DEFAULTS))
        self.limits = limits.DEFAULT
        self._given = copy.deepcopy(values or {})
        self.__dict__.update(copy.deepcopy(self._given))

    def __getattr__(self, name: str) -> Any:  # only for a field added since the data was generated
        if name.startswith("__"):
            raise AttributeError(name)
        from netlint.config import Settings

        if name not in Settings.model_fields:
            raise AttributeError(name)
        value = getattr(Settings(), name)
        setattr(self, name, value)
        return value

    def model_dump(self) -> dict[str, Any]:
        """What ``Settings().model_dump()`` gives (the cache's key reads it)."""
        from dataclasses import asdict

        from netlint.registry_data import SETTINGS_DEFAULTS

        return {**copy.deepcopy(SETTINGS_DEFAULTS), **copy.deepcopy(self._given), "limits": asdict(self.limits)}


def plain_settings(data: Any) -> DefaultSettings | None:
    """The settings of a configuration file whose every value pydantic would take as it is (a
    string, a list of strings, a known level...), without importing pydantic; None when any key is
    unknown or any value needs validating (pydantic then says what is wrong, or converts it)."""
    from netlint.registry_data import SETTINGS_FIELDS

    if type(data) is not dict:
        return None
    values: dict[str, Any] = {}
    for key, value in data.items():
        name, kind = SETTINGS_FIELDS.get(key, (None, None))
        if kind is None or name in values or not _fits(kind, value):
            return None
        values[name] = value
    return DefaultSettings(values)


def _fits(kind: Any, value: Any) -> bool:
    def strings(v: Any) -> bool:
        return type(v) is list and all(type(s) is str for s in v)

    def keyed(v: Any, ok) -> bool:
        return type(v) is dict and all(type(k) is str and ok(x) for k, x in v.items())

    if kind == "str":
        return type(value) is str
    if kind == "str?":
        return value is None or type(value) is str
    if kind == "bool":
        return type(value) is bool
    if kind == "list[str]":
        return strings(value)
    if kind == "dict[str,list[str]]":
        return keyed(value, strings)
    if kind == "dict[str,dict]":
        return keyed(value, lambda x: keyed(x, lambda _: True))
    if isinstance(kind, tuple) and kind[0] == "literal":
        return type(value) is str and value in kind[1]
    if isinstance(kind, tuple) and kind[0] == "dict[str,literal]":
        return keyed(value, lambda x: type(x) is str and x in kind[1])
    return False


class Config:
    def __init__(self, settings: "Settings | DefaultSettings | None" = None, root: Path | None = None,
                 file: Path | None = None):
        self.settings = settings or DefaultSettings()
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
    settings = plain_settings(data)  # values pydantic would take as they are: no pydantic
    if settings is None:
        from netlint.config import validate  # pydantic: a value to check or convert, an unknown key

        settings, findings = validate(data, spans, shown)
        if settings is None:
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
    from netlint.parsing import parse_yaml

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
