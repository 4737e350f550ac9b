"""Find, read and validate policy files; compile their expressions. Every problem is a located NL
finding (schema: NL004/NL005, NL030 file-level, NL031 expression, NL033 a field the workspace view
does not have) — never a traceback."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from netlint.findings import Finding, Severity
from netlint.located import ParseError, Span, parse_yaml
from netlint.policy.cel import CelError, Program, compile_expression
from netlint.policy.model import Policy, PolicyFile
from netlint.policy.templates import TemplateError, expression
from netlint.validation import excerpt, validate

def _packs_dir() -> Path:
    """``rules/`` beside the package (a checkout or an editable install), else where the wheel that
    installed this module put its data files: its RECORD knows, whatever the install scheme (a venv,
    ``--user``, ``--prefix``); ``<sys.prefix>/share/netlint/rules`` as the last resort."""
    import sys
    from importlib.metadata import distributions

    here = Path(__file__).resolve().parent.parent.parent / "rules"
    if here.is_dir():
        return here
    for dist in distributions(name="netlint"):
        found = installed_packs(dist, Path(__file__))
        if found is not None:
            return found
    return Path(sys.prefix) / "share" / "netlint" / "rules"


def installed_packs(dist, module: Path) -> Path | None:
    """The packs folder ``dist`` installed, if ``dist`` is the distribution ``module`` belongs to."""
    try:
        files = list(dist.files or ())
        if not any(Path(dist.locate_file(f)).resolve() == module.resolve() for f in files
                   if f.name == module.name):
            return None
        for f in files:
            if f.suffix == ".yaml" and f.parts[-4:-1] == ("share", "netlint", "rules"):
                return Path(dist.locate_file(f)).resolve().parent
    except Exception:  # unreadable metadata: fall back
        return None
    return None


PACKS_DIR = _packs_dir()
BUILTIN_FAMILIES = ("NL", "QOS", "NIC", "NCCL", "JOB", "FAB", "XC")


@dataclass
class CompiledPolicy:
    policy: Policy
    file: str
    program: Program | None          # None for match-across
    paths: list = field(default_factory=list)   # compiled JSONPath queries with their Scalar
    selected: list = field(default_factory=list)  # workspace-schema nodes the paths select ([{}]: any)
    params: dict = field(default_factory=dict)    # its params, the config's overrides applied
    duplicates: list = field(default_factory=list)  # codes whose findings make this one's redundant (runner)
    pack: str | None = None                         # the built-in pack it comes from

    @property
    def code(self) -> str:
        return self.policy.id.value


def resolve(entries: list[str], root: Path, config_file: Path | None = None) -> tuple[list[Path], list[Finding]]:
    """Config ``policies:`` entries → files. A bare name is a built-in pack (``rules/<name>.yaml``);
    anything else is a file or folder below the project root (the config's folder). An entry that
    names nothing, or a file outside the project or the packs (``/etc/passwd``, ``../x.yaml``, a
    link that leads out), is NL030 at the entry in the config file, and that file is not read."""
    files, problems = [], []
    for entry in entries:
        if "/" not in entry and not entry.endswith((".yaml", ".yml")):
            path, base = PACKS_DIR / f"{entry}.yaml", PACKS_DIR
        else:
            path, base = root / entry, root

        def refuse(message: str, what: str) -> None:
            problems.append(Finding("NL030", message, _entry_span(entry, root, config_file),
                                    key=f"policy:{entry}:{what}"))

        outside = _outside(path, base)
        if outside:
            refuse(f"policy {excerpt(entry)} {outside}: netlint reads policy files only below the folder "
                   f"of its config and from its built-in packs; not read", "outside")
        elif path.is_dir():
            for p in sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml")):
                why = _outside(p, base) or _irregular(p)
                if why:
                    refuse(f"policy folder {excerpt(entry)}: {excerpt(p.name)} {why}; not read", p.name)
                else:
                    files.append(p)
        elif path.is_file():
            files.append(path)
        elif path.exists():
            refuse(f"policy {excerpt(entry)} {_irregular(path)}; not read", "irregular")
        else:
            packs = ", ".join(sorted(p.stem for p in PACKS_DIR.glob("*.yaml")))
            refuse(f"policy {excerpt(entry)} not found: no file or folder of that name and no built-in "
                   f"pack ({packs})", "missing")
    return files, problems


def _outside(path: Path, base: Path) -> str:
    """Why ``path`` is not below ``base`` (as written, and once links are followed), or ''."""
    import os

    base = Path(os.path.realpath(base))
    lexical = Path(os.path.normpath(os.path.abspath(path)))
    if not lexical.is_relative_to(base) and not lexical.is_relative_to(os.path.abspath(base)):
        return "is outside the project"
    try:
        real = Path(os.path.realpath(path))
    except (OSError, RuntimeError, ValueError):  # a name the system cannot look up
        return "cannot be looked up"
    return "" if real.is_relative_to(base) else "is a link to a file outside the project"


def _irregular(path: Path) -> str:
    """Why ``path`` (which exists) is no regular file netlint reads, or ''."""
    import stat

    try:
        mode = path.stat().st_mode
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    return "" if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else \
        "is not a regular file (a FIFO, device or socket)"


def _entry_span(entry: str, root: Path, config_file: Path | None) -> Span:
    """Where ``entry`` is written in the config's ``policies`` list (YAML or pyproject.toml)."""
    if config_file is None:
        return Span(".", 1, 1, 1, 1)
    from netlint.discovery import display_path

    shown = display_path(config_file, root)
    try:
        text = config_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return Span(shown, 1, 1, 1, 1)
    import re

    key = re.search(r"^[ \t]*[\"']?policies[\"']?[ \t]*[:=]", text, re.M)
    found = re.compile(r"(?<![\w./-])" + re.escape(entry) + r"(?![\w./-])").search(text, key.end() if key else 0)
    if found is None:
        return Span(shown, 1, 1, 1, 1)
    line = text.count("\n", 0, found.start()) + 1
    col = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
    return Span(shown, line, col, line, col + len(entry), found.start(), found.end())


def unique(policies: list[CompiledPolicy]) -> tuple[list[CompiledPolicy], list[Finding]]:
    """The first policy of each id; a later one with the same id is NL030 and does not run (findings,
    baselines, suppressions and SARIF rules are keyed by the id)."""
    first: dict[str, CompiledPolicy] = {}
    kept, problems = [], []
    for p in policies:
        if p.code in first:
            s = first[p.code].policy.id.span
            problems.append(Finding("NL030", f"policy id {p.code} is already used at {s.file}:{s.line}:{s.col}; "
                                    "ids must be unique", p.policy.id.span, key=f"{p.code}:duplicate"))
            continue
        first[p.code] = p
        kept.append(p)
    return kept, problems


def load(path: Path, shown: str, overrides=None) -> tuple[list[CompiledPolicy], list[Finding]]:
    """The policies of one file. Its messages quote at most a short escaped excerpt of it: a file
    named as a policy may be anything (NL005 "must be a mapping, found str 'root:x:0:0…'").
    ``overrides(policy)`` gives the params the config sets for a policy (``policy-params``)."""
    from netlint.safe_read import Refused, read_bytes

    try:
        text = read_bytes(path).decode("utf-8")
        docs = parse_yaml(shown, text)
    except Refused as exc:
        return [], [Finding(exc.code, exc.message, Span(shown, 1, 1, 1, 1), key="read")]
    except UnicodeDecodeError as exc:
        return [], [Finding("NL030", f"cannot read policy file: not UTF-8 (byte {exc.start})",
                            Span(shown, 1, 1, 1, 1), key="read")]
    except ParseError as exc:
        return [], [Finding("NL003", f"YAML does not parse: {_brief(exc.message)}", exc.span, key="parse")]
    if not docs:
        return [], [Finding("NL030", "empty policy file", Span(shown, 1, 1, 1, 1), key="empty")]
    model, problems = validate(PolicyFile, docs[0].root, "a policy file")
    if model is None:
        return [], problems
    out: list[CompiledPolicy] = []
    for policy in model.rules:
        compiled, errors = _compile(policy, shown, overrides(policy) if overrides else {})
        problems.extend(errors)
        if compiled is not None:
            compiled.pack = _pack_of(path)
            out.append(compiled)
    return out, problems


def _compile(policy: Policy, shown: str, override: dict | None = None) -> tuple[CompiledPolicy | None, list[Finding]]:
    from jsonpath_rfc9535 import JSONPathEnvironment

    code = policy.id.value
    if code.startswith(BUILTIN_FAMILIES) and code.rstrip("0123456789") in BUILTIN_FAMILIES:
        return None, [Finding("NL030", f"policy id {code} uses a built-in rule family; pick your own prefix",
                              policy.id.span, key=f"{code}:id")]
    from netlint.policy.shape import (TypeClash, UnknownField, check_expression, check_field, check_path,
                                      collection_of)

    env = JSONPathEnvironment()
    paths, selected = [], []
    for given in policy.paths:
        try:
            query = env.compile(given.value)
        except Exception as exc:
            return None, [Finding("NL031", f"{code}: JSONPath does not compile: {exc}", given.span,
                                  key=f"{code}:given")]
        try:
            selected.extend(check_path(query))
        except UnknownField as exc:
            return None, [Finding("NL033", f"{code}: given {given.value!r}: {exc}", given.span,
                                  key=f"{code}:given:{exc.name}")]
        paths.append((query, given))
    starts = {collection_of(query) for query, _ in paths}
    collections = None if None in starts else starts
    params, problem = _params(policy, override or {})
    if problem is not None:
        return None, [problem]
    if policy.template is not None and isinstance(params.get("field"), str):
        try:
            check_field(selected, params["field"])
        except UnknownField as exc:
            where = policy.params.get("field")
            span = where.span if hasattr(where, "span") else policy.template.span
            return None, [Finding("NL033", f"{code}: params.field: {exc}", span, key=f"{code}:field:{exc.name}")]
        from netlint.policy.shape import template_clash

        clash = template_clash(selected, params)
        if clash:
            where = policy.params.get("values", policy.params.get("equals"))
            span = where.span if hasattr(where, "span") else policy.template.span
            return None, [Finding("NL031", f"{code}: template {policy.template.value}: {clash}", span,
                                  key=f"{code}:template:type")]
    if policy.assert_ is not None:
        try:
            check_expression(policy.assert_.value, selected, collections)
        except TypeClash as exc:
            return None, [Finding("NL031", f"{code}: assert: {exc}", _column(policy.assert_, exc.offset + 1),
                                  key=f"{code}:assert:type")]
        except UnknownField as exc:
            return None, [Finding("NL033", f"{code}: assert: {exc}", _column(policy.assert_, exc.offset + 1),
                                  key=f"{code}:assert:{exc.name}")]
    if policy.message is not None:
        from netlint.policy.runner import PLACEHOLDER

        for m in PLACEHOLDER.finditer(policy.message.value):
            try:
                check_expression(m.group(1), selected, collections)
            except UnknownField as exc:
                return None, [Finding("NL033", f"{code}: message placeholder {{{m.group(1)}}}: {exc}",
                                      _column(policy.message, m.start(1) + exc.offset + 1),
                                      key=f"{code}:message:{exc.name}")]
    if policy.template is not None:
        try:
            source = expression(policy.template.value, params)
        except TemplateError as exc:
            param = policy.params.get(exc.param) if exc.param else None
            span = param.span if hasattr(param, "span") else policy.template.span
            return None, [Finding("NL031", f"{code}: template {policy.template.value}: {exc}",
                                  span, key=f"{code}:template")]
        where = policy.template
    else:
        source, where = policy.assert_.value, policy.assert_
    program = None
    if source is not None:
        try:
            program = compile_expression(source)
        except CelError as exc:
            return None, [Finding("NL031", f"{code}: CEL expression rejected: {exc.message}",
                                  _column(where, exc.column), key=f"{code}:assert")]
    problem = _names(policy, params)  # after compiling: a syntax error is the first thing to fix
    if problem is not None:
        return None, [problem]
    return CompiledPolicy(policy, shown, program, paths, selected, params), []


def _params(policy: Policy, override: dict) -> tuple[dict, Finding | None]:
    """The policy's params with the config's overrides, ``${netlint.NAME}`` replaced by netlint's
    recommended value; NL033 at the param for a NAME netlint does not have."""
    from netlint.policy.lint import netlint_values
    from netlint.recommended import VALUES

    params, problems = netlint_values({**policy.parameters, **override}, VALUES)
    if not problems:
        return params, None
    where, message = problems[0]
    top = policy.params.get(where.split(".")[0].split("[")[0])
    span = top.span if hasattr(top, "span") else policy.id.span
    return params, Finding("NL033", f"{policy.id.value}: params.{where}: {message}", span,
                           key=f"{policy.id.value}:params:{where}")


def _names(policy: Policy, params: dict) -> Finding | None:
    """NL033 for a name CEL would reject on every node (``sellf.mtu``), a ``params.x`` the policy does
    not declare, or a message ``{…}`` netlint would print as written."""
    from netlint.policy.lint import bad_placeholder, unknown_param, unknown_variable

    code = policy.id.value
    if policy.assert_ is not None:
        for check, what in ((unknown_variable, "variable"), (lambda s: unknown_param(s, params), "param")):
            found = check(policy.assert_.value)
            if found is not None:
                return Finding("NL033", f"{code}: assert: {found[1]}", _column(policy.assert_, found[0] + 1),
                               key=f"{code}:assert:{what}")
    if policy.message is not None:
        found = bad_placeholder(policy.message.value, params)
        if found is not None:
            return Finding("NL033", f"{code}: message: {found[1]}", _column(policy.message, found[0] + 1),
                           key=f"{code}:message:placeholder")
    return None


def _brief(text: str, limit: int = 120) -> str:
    """A parser's message about a file that may be no policy at all: one line, non-printable
    characters escaped, at most ``limit`` characters."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in " ".join(text.split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _column(scalar: Any, column: int) -> Span:
    """The span of the offending character when the expression is a one-line plain/quoted scalar."""
    span = scalar.span
    if column <= 0 or span.line != span.end_line:
        return span
    col = span.col + (1 if scalar.quoted else 0) + column - 1
    start = span.start + (col - span.col)
    return Span(span.file, span.line, col, span.line, col + 1, start, start + 1)


def _pack_of(path: Path) -> str | None:
    try:
        return path.stem if path.resolve().parent == PACKS_DIR.resolve() else None
    except OSError:
        return None


def describe(policy: CompiledPolicy) -> dict:
    """What reporters and ``netlint rule`` say about a policy: its summary, docs, tags, severity and
    file (a policy is no class in the rule registry)."""
    p = policy.policy
    return {"summary": p.summary.value, "file": policy.file, "docs": p.docs.value if p.docs else None,
            "tags": [t.value for t in p.tags], "severity": p.level, "pack": policy.pack,
            "source": f"built-in pack {policy.pack}" if policy.pack else policy.file}


def severity_of(policy: Policy) -> Severity:
    return Severity.parse(policy.level)
