"""Inline suppressions in files that have ``#`` comments (YAML, env files, shell, nccl.conf, TOML).

Grammar (one directive per comment)::

    key: value  # netlint: disable=QOS101,QOS104 -- reason
    # netlint: disable=NCCL314 -- debug build, reverted before merge
    NCCL_DEBUG=INFO
    # netlint: disable-file=QOS107 -- this lab switch has three lossless classes on purpose

* ``disable=CODES`` after text on a line covers that line; on a line of its own it covers the next
  line that is not itself a comment (so several directives can stack above one line).
* ``disable-file=CODES`` anywhere in a file covers the whole file.
* CODES are rule codes or prefixes (``QOS``), comma-separated; ``ALL`` covers every rule.
* ``-- reason`` is the justification. With ``require-suppression-reason: true`` a directive without
  one suppresses nothing and is reported (NL021).
* A finding is matched on its primary location's first line.

A directive, or one code of it, that covered no finding of an enabled rule is reported (NL020) with
a fix that deletes it. A directive that cannot be read is reported (NL022) and suppresses nothing.
JSON has no comments: there, ``per-file-ignores`` and the baseline do the job.

The scan is textual: a ``# netlint:`` comment is recognised where ``#`` starts a comment in YAML and
shell (at the start of a line or after white space), which also covers scripts embedded in YAML
block scalars.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

from netlint.config_file import Config, matches_code
from netlint.findings import Edit, Finding, Fix, Severity
from netlint.located import Span

# Files whose format has no comments (JSON): directives there are not read.
NO_COMMENTS = (".json",)

DIRECTIVE = re.compile(r"(?:^|(?<=\s))#\s*netlint\s*:\s*(?P<body>.*?)\s*$")
CODE = re.compile(r"[A-Z][A-Z0-9_]*\Z")
VERBS = ("disable", "disable-file")


@dataclass
class Directive:
    file: str
    line: int            # the comment's line
    col: int             # 1-based column of '#'
    start: int           # str offset of '#'
    end: int             # str offset of the end of the line (before the newline)
    verb: str
    codes: list[str]
    reason: str
    own_line: bool       # nothing but white space before '#'
    line_start: int      # str offset of the start of the line
    line_end: int        # str offset just past the newline (or end of text)
    covers: int | None = None  # the line a line directive covers
    used: dict[str, bool] = field(default_factory=dict)

    @property
    def span(self) -> Span:
        return Span(self.file, self.line, self.col, self.line, self.col + (self.end - self.start),
                    self.start, self.end)

    def covers_finding(self, f: Finding) -> bool:
        return self.verb == "disable-file" or f.span.line == self.covers

    def matching(self, code: str) -> list[str]:
        return [c for c in self.codes if matches_code(code, [c])]


def scan(file: str, text: str) -> tuple[list[Directive], list[tuple[Span, str]]]:
    """The directives in ``text`` and the problems (span, message) of those that cannot be read."""
    directives: list[Directive] = []
    problems: list[tuple[Span, str]] = []
    if "netlint" not in text:
        return directives, problems
    lines = re.findall(r"[^\n]*\n|[^\n]+\Z", text)  # '\n' only: the line numbers parsers report
    offset = 0
    pending: list[Directive] = []  # own-line directives waiting for the line they cover
    for lineno, raw in enumerate(lines, 1):
        body = raw.rstrip("\r\n")
        stripped = body.strip()
        line_start, line_end = offset, offset + len(raw)
        offset = line_end
        m = DIRECTIVE.search(body) if "netlint" in body else None
        if m is None:
            if stripped.startswith("#"):
                continue  # a plain comment line: directives above keep waiting
            for d in pending:
                d.covers = lineno if stripped else None
            pending = []
            continue
        hash_col = m.start()
        own = not body[:hash_col].strip()
        span = Span(file, lineno, hash_col + 1, lineno, len(body) + 1, line_start + hash_col, line_start + len(body))
        parsed = _parse_body(m.group("body"))
        if isinstance(parsed, str):
            problems.append((span, parsed))
            if not own:
                for d in pending:
                    d.covers = lineno
                pending = []
            continue
        verb, codes, reason = parsed
        d = Directive(file, lineno, hash_col + 1, line_start + hash_col, line_start + len(body), verb, codes,
                      reason, own, line_start, line_end)
        d.used = {c: False for c in codes}
        directives.append(d)
        if verb == "disable-file":
            continue
        if own:
            pending.append(d)
        else:
            d.covers = lineno
            for p in pending:
                p.covers = lineno
            pending = []
    return directives, problems


def _parse_body(body: str) -> tuple[str, list[str], str] | str:
    head, sep, reason = body.partition("--")
    head = head.strip()
    written, eq, codes_text = head.partition("=")
    verb = written.strip().lower()
    if verb not in VERBS:
        return f"unknown netlint directive '{written.strip() or body}' (use disable= or disable-file=)"
    if not eq or not codes_text.strip():
        return f"'netlint: {verb}' names no rule codes; write {verb}=CODE[,CODE...] -- reason"
    codes = [c.strip().upper() for c in re.split(r"[,\s]+", codes_text) if c.strip()]
    bad = [c for c in codes if not CODE.match(c)]
    if bad:
        return f"'{bad[0]}' is not a rule code or prefix in this netlint directive"
    return verb, codes, reason.strip() if sep else ""


@dataclass
class Outcome:
    """What inline suppressions did: the NL02x findings to add (not yet filtered)."""

    findings: list[Finding] = field(default_factory=list)
    directives: list[Directive] = field(default_factory=list)


def apply(findings: list[Finding], texts: dict[str, str], config: Config,
          enabled: Callable[[str, str], bool], known: Iterable[str] = (),
          nccl_conf_files: Iterable[str] = ()) -> Outcome:
    """Mark ``findings`` covered by a directive in ``texts`` (file -> text) as suppressed.

    ``enabled(code, file)`` says whether a rule is on for a file (select, ignore, per-file-ignores,
    severity); a directive code that covers only rules that are off is not reported as unused.
    ``known`` is the set of rule codes (a code that matches none is reported). Files in
    ``nccl_conf_files`` accept only own-line directives: NCCL reads the rest of a line as the value.
    """
    require_reason = config.settings.require_suppression_reason
    known = list(known)
    families = {k.rstrip("0123456789") for k in known}
    nccl_conf = set(nccl_conf_files)
    out = Outcome()
    by_file: dict[str, list[Directive]] = {}
    for file, text in texts.items():
        if file.lower().endswith(NO_COMMENTS):
            continue
        directives, problems = scan(file, text)
        for span, msg in problems:
            out.findings.append(Finding("NL022", msg, span, Severity.WARNING, key=f"invalid:{msg}"))
        usable = []
        for d in directives:
            if file in nccl_conf and not d.own_line:
                out.findings.append(Finding(
                    "NL022", "nccl.conf has no trailing comments: NCCL reads this directive as part of the "
                    "value; put it on a line of its own above", d.span, Severity.WARNING,
                    key=f"trailing:{','.join(d.codes)}"))
                continue
            unknown = [c for c in d.codes if _unknown(c, known, families)]
            for c in unknown:
                out.findings.append(Finding("NL022", f"'{c}' in this suppression matches no netlint rule",
                                            d.span, Severity.WARNING, key=f"unknown:{c}"))
            if require_reason and not d.reason:
                out.findings.append(Finding(
                    "NL021", f"suppression of {', '.join(d.codes)} has no reason; it suppresses nothing until "
                    "one is given (`-- reason`)", d.span, Severity.ERROR, key=f"no-reason:{','.join(d.codes)}"))
                continue
            if d.verb == "disable" and d.covers is None:
                out.findings.append(Finding(
                    "NL022", "this suppression covers no line: put it on the reported line or on the line "
                    "above it", d.span, Severity.WARNING, key=f"dangling:{','.join(d.codes)}"))
                continue
            d.used.update({c: False for c in d.codes if c not in unknown})
            for c in unknown:
                d.used.pop(c, None)
            usable.append(d)
        if usable:
            by_file[file] = usable
            out.directives.extend(usable)
    if not by_file:
        return out
    for f in findings:
        if f.suppressed is not None or f.code == "NL000":
            continue
        for d in by_file.get(f.file, ()):
            hits = d.matching(f.code) if d.covers_finding(f) else []
            if not hits:
                continue
            for c in hits:
                d.used[c] = True
            reason = d.reason
            f.suppressed = reason or "suppressed inline (no reason given)"
            f.extra["suppression"] = {"kind": "inSource", "justification": reason,
                                      "line": d.line}
            break
    for d in out.directives:
        unused = [c for c, hit in d.used.items() if not hit and _enabled_any(c, d.file, enabled, known)]
        if unused:
            out.findings.append(_unused(d, unused, texts[d.file]))
    return out


def _unknown(code: str, known: list[str], families: set[str]) -> bool:
    """A code in one of netlint's families (NL, QOS, NCCL, ...) that names no rule: a typo. Codes of
    other families (an organisation's policy rules, ORG001) are taken on trust."""
    if code == "ALL" or not known or any(k.startswith(code) for k in known):
        return False
    return any(code.startswith(f) for f in families)


def _enabled_any(code: str, file: str, enabled: Callable[[str, str], bool], known: list[str]) -> bool:
    if code == "ALL":
        return True
    candidates = [k for k in known if k.startswith(code)] or [code]
    return any(enabled(k, file) for k in candidates)


def _unused(d: Directive, unused: list[str], text: str) -> Finding:
    remaining = [c for c in d.codes if c not in unused]
    what = ", ".join(unused)
    if remaining:
        msg = f"suppression of {what} suppressed nothing; keep only {', '.join(remaining)}"
        old = text[d.start:d.end]
        new = _rewrite_codes(old, remaining)
        edit = Edit(d.span, new, old)
        fix = Fix(f"remove {what} from the suppression", (edit,))
    else:
        msg = f"suppression of {what} suppressed nothing"
        if d.own_line:
            s, e = d.line_start, d.line_end
            span = Span(d.file, d.line, 1, d.line + 1, 1, s, e)
        else:
            s = d.start
            while s > d.line_start and text[s - 1] in " \t":
                s -= 1
            e = d.end
            span = Span(d.file, d.line, s - d.line_start + 1, d.line, d.col + (d.end - d.start), s, e)
        fix = Fix("delete the unused suppression", (Edit(span, "", text[s:e]),))
    return Finding("NL020", msg, d.span, Severity.WARNING, fix=fix, key=f"unused:{d.verb}:{what}")


def _rewrite_codes(comment: str, codes: list[str]) -> str:
    m = re.search(r"(=\s*)([A-Za-z0-9_,\s]*?)(\s*(?:\s--.*)?)$", comment)
    if m is None:
        return comment
    return comment[:m.start(2)] + ",".join(codes) + comment[m.end(2):]
