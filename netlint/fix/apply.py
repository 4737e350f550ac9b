"""One fix pass: choose which fixes of a lint report can be applied, and apply them in memory.

Order is the report's finding order, so the outcome is deterministic: an earlier fix wins over a
later one that edits the same text (or the same YAML/JSON path, or the text of the value a
structural edit replaces); the later one is skipped with a reason, and the next pass (after a
re-lint) gets another chance at it. A fix is all or nothing: when one of its edits cannot be
applied, none are. In each file the text edits are applied first (they carry positions), then the
structural edits (they carry paths), each fix's verified on its own.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

import yaml

from netlint.findings import Edit, Finding
from netlint.fix.errors import Applied, FixError, Skipped, identity
from netlint.fix.text import apply_text_edits, check_text_edit, overlaps
from netlint.source import SourceFile, UnreadableFile

YAML_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIXES = (".json",)
PARSE_ERROR = "NL003"


@dataclass
class FileState:
    path: str
    src: SourceFile | None = None
    text: str = ""
    kind: str | None = None  # "yaml", "json" or None (env, shell, anything else: text edits only)
    reason: str | None = None  # why this file cannot be fixed, when it cannot
    text_edits: list[Edit] = field(default_factory=list)
    structural: list[tuple[int, Edit, int]] = field(default_factory=list)  # (fix no., edit, doc)
    _nodes: list | None = None

    def nodes(self) -> list:
        """The file's documents as PyYAML nodes (JSON reads as YAML here), for positions."""
        if self._nodes is None:
            self._nodes = list(yaml.compose_all(self.text, Loader=_Loader))
        return self._nodes

    def doc_index(self, edit: Edit) -> int:
        """Which YAML document of the file the edit's span falls in."""
        docs = [(n.start_mark.index, n.end_mark.index) if n is not None else (-1, -1) for n in self.nodes()]
        if len(docs) == 1 or self.kind == "json":
            return 0
        s = edit.span.start
        if s < 0:
            raise FixError("the edit has no position, and the file holds several YAML documents")
        best = None
        for i, (a, b) in enumerate(docs):
            if a <= s <= b and a >= 0:
                return i
            if 0 <= a <= s:
                best = i
        if best is None:
            raise FixError("cannot tell which YAML document the edit is for")
        return best

    def existing(self, doc: int, path: tuple) -> tuple[int, int] | None:
        """The text range of the value a structural edit would replace, when it exists."""
        try:
            node = self.nodes()[doc]
        except (IndexError, yaml.YAMLError):
            return None
        for part in path:
            if isinstance(node, yaml.MappingNode):
                node = next((v for k, v in node.value if isinstance(k, yaml.ScalarNode)
                             and k.value == str(part)), None)
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
                node = node.value[part]
            else:
                return None
            if node is None:
                return None
        return node.start_mark.index, node.end_mark.index


try:
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader


@dataclass
class PassResult:
    texts: dict[str, str]  # display path -> new text, for files that changed
    sources: dict[str, SourceFile]
    applied: list[Applied]
    skipped: list[Skipped]


def fixable(f: Finding, unsafe: bool) -> bool:
    return f.fix is not None and bool(f.fix.edits) and not f.suppressed and (f.fix.safe or unsafe)


def fix_pass(report, *, unsafe: bool, blocked: dict[str, str],
             current: Callable[[SourceFile], bytes | None], exclude: set[tuple] = frozenset()) -> PassResult:
    """Apply what can be applied of ``report``'s fixes. ``current(src)`` gives the bytes the file
    holds now (on disk, or in the overlay of earlier passes); ``blocked`` maps files that must not
    be touched any more to the reason, and grows when a file turns out to have changed. Fixes of the
    findings in ``exclude`` (by :func:`identity`; found not idempotent) are left out."""
    ws = report.workspace
    broken = {f.file for f in report.findings if f.code == PARSE_ERROR}
    states: dict[str, FileState] = {}
    skipped: list[Skipped] = []

    def state(path: str) -> FileState:
        st = states.get(path)
        if st is None:
            st = states[path] = _file_state(path, ws, broken, blocked, current)
        return st

    accepted: list[tuple[int, Finding]] = []
    for n, f in enumerate(x for x in report.findings if fixable(x, unsafe) and identity(x) not in exclude):
        reason, soft = _admit(n, f, state)
        if reason is None:
            accepted.append((n, f))
        else:
            skipped.append(Skipped(f, reason, hard=not soft))

    rejected: dict[int, str] = {}
    while True:
        texts, failures = _apply_all(states, accepted, rejected)
        if not failures:
            break
        rejected.update(failures)
    applied = []
    for n, f in accepted:
        if n in rejected:
            skipped.append(Skipped(f, rejected[n]))
        else:
            applied.append(Applied(f, f.fix.description, f.fix.safe,
                                   tuple(sorted({e.file for e in f.fix.edits}))))
    changed = {p: t for p, t in texts.items() if t != states[p].text}
    return PassResult(changed, {p: states[p].src for p in changed}, applied, skipped)


def _file_state(path: str, ws, broken: set[str], blocked: dict[str, str],
                current: Callable[[SourceFile], bytes | None]) -> FileState:
    st = FileState(path)
    if path in blocked:
        st.reason = blocked[path]
        return st
    src = ws.sources.get(path)
    if src is None:
        st.reason = f"netlint did not read {path}; it only fixes files it checked"
        return st
    st.src = src
    if ws.targets is not None and path not in ws.targets:
        st.reason = f"{path} is not among the files being checked"
        return st
    if current(src) != src.data:
        st.reason = f"{path} changed since netlint read it; left untouched"
        blocked[path] = st.reason
        return st
    try:
        st.text = src.text
    except UnreadableFile as exc:
        st.reason = exc.message
        return st
    st.kind = _kind(src, st.text)
    if path in broken or not _parses(st.kind, st.text) or _loader_parse_error(src):
        st.reason = f"{path} does not parse; netlint never fixes a file it could not parse"
    return st


def _loader_parse_error(src: SourceFile) -> bool:
    """Whether a loader that reads ``src`` finds a parse error (NL003) in it. Asked of the loaders
    themselves because ``--select``/``ignore`` may have filtered NL003 out of the report."""
    from netlint.loaders.base import load_loaders

    for loader in load_loaders().values():
        try:
            if not (loader.wants(src.name, src.suffix) and loader.claims(src)):
                continue
            if any(isinstance(item, Finding) and item.code == PARSE_ERROR for item in loader.load(src)):
                return True
        except Exception:  # a loader that trips over the file: it is not ours to judge here
            continue
    return False


def _kind(src: SourceFile, text: str) -> str | None:
    if src.suffix in YAML_SUFFIXES:
        return "yaml"
    if src.suffix in JSON_SUFFIXES:
        return "json"
    head = text.lstrip()[:1]
    if head in ("{", "["):
        try:
            json.loads(text)
            return "json"
        except ValueError:
            return None
    return None


def _parses(kind: str | None, text: str) -> bool:
    try:
        if kind == "yaml":
            for _ in yaml.compose_all(text, Loader=_Loader):
                pass
        elif kind == "json":
            json.loads(text)
    except (yaml.YAMLError, ValueError):
        return False
    return True


def _admit(n: int, f: Finding, state: Callable[[str], FileState]) -> tuple[str | None, bool]:
    """Check every edit of ``f``'s fix; on success record them in their files' states.
    Returns (reason, soft) when the fix cannot be applied in this pass."""
    plan: list[tuple[FileState, Edit, int | None]] = []
    own: dict[str, list[Edit]] = {}
    for edit in f.fix.edits:
        st = state(edit.file)
        if st.reason:
            return st.reason, False
        structural = edit.doc_path is not None
        try:
            if structural:
                if st.kind is None:
                    raise FixError(f"a structural edit needs a YAML or JSON file; {st.path} is neither")
                if edit.expected:
                    check_text_edit(edit, st.text)
                doc = st.doc_index(edit) if st.kind == "yaml" else 0
            else:
                check_text_edit(edit, st.text)
                doc = None
        except FixError as exc:
            return str(exc), False
        except yaml.YAMLError:
            return f"{st.path} does not parse; netlint never fixes a file it could not parse", False
        for other in own.get(st.path, []):
            if _clash(other, edit, st, doc):
                return "the fix's own edits overlap", False
        conflict = _conflict(st, edit, doc)
        if conflict is not None:
            return conflict, True
        own.setdefault(st.path, []).append(edit)
        plan.append((st, edit, doc))
    for st, edit, doc in plan:
        if edit.doc_path is None:
            if edit not in st.text_edits:
                st.text_edits.append(edit)
        else:
            st.structural.append((n, edit, doc))
    return None, False


def _conflict(st: FileState, edit: Edit, doc: int | None) -> str | None:
    earlier = "; the earlier one wins"
    if edit.doc_path is None:
        rng = (edit.span.start, edit.span.end)
        for other in st.text_edits:
            if other == edit:
                continue  # the same edit from another finding: applied once
            if overlaps((other.span.start, other.span.end), rng):
                return f"conflicts with an earlier fix at line {other.span.line}, column {other.span.col}{earlier}"
        for _, other, odoc in st.structural:
            hit = st.existing(odoc, tuple(other.doc_path))
            if hit is not None and overlaps(hit, rng):
                return f"conflicts with an earlier fix of {_show(other.doc_path)}{earlier}"
        return None
    for _, other, odoc in st.structural:
        if odoc == doc and _path_clash(other, edit):
            return f"conflicts with an earlier fix of {_show(other.doc_path)}{earlier}"
    hit = st.existing(doc, tuple(edit.doc_path))
    if hit is not None:
        for other in st.text_edits:
            if overlaps((other.span.start, other.span.end), hit):
                return (f"conflicts with an earlier fix at line {other.span.line}, column "
                        f"{other.span.col}{earlier}")
    return None


def _clash(a: Edit, b: Edit, st: FileState, doc: int | None) -> bool:
    if a.doc_path is None and b.doc_path is None:
        return overlaps((a.span.start, a.span.end), (b.span.start, b.span.end))
    if a.doc_path is not None and b.doc_path is not None:
        return _path_clash(a, b)
    text, struct = (a, b) if a.doc_path is None else (b, a)
    hit = st.existing(st.doc_index(struct) if st.kind == "yaml" else 0, tuple(struct.doc_path))
    return hit is not None and overlaps(hit, (text.span.start, text.span.end))


def _path_clash(a: Edit, b: Edit) -> bool:
    pa, pb = tuple(a.doc_path), tuple(b.doc_path)
    if pa == pb:
        return a.value != b.value
    short, long_ = (pa, pb) if len(pa) < len(pb) else (pb, pa)
    return long_[: len(short)] == short


def _show(path: Any) -> str:
    from netlint.fix.paths import format_path

    return format_path(tuple(path))


def _apply_all(states: dict[str, FileState], accepted: list[tuple[int, Finding]],
               rejected: dict[int, str]) -> tuple[dict[str, str], dict[int, str]]:
    """New text per file from the accepted fixes not yet rejected; and fixes newly rejected."""
    alive = {n for n, _ in accepted if n not in rejected}
    owners: dict[int, Finding] = dict(accepted)
    texts: dict[str, str] = {}
    failures: dict[int, str] = {}
    for path, st in states.items():
        if st.reason or not (st.text_edits or st.structural):
            continue
        edits = [e for e in st.text_edits if any(n in alive and e in owners[n].fix.edits for n in owners)]
        new = apply_text_edits(st.text, edits)
        if edits and st.kind and not _parses(st.kind, new):
            for n in alive:
                if any(e.file == path and e.doc_path is None for e in owners[n].fix.edits):
                    failures[n] = f"the edits would leave {path} unparsable; not applied"
            continue
        by_fix: dict[int, list[tuple[Edit, int]]] = {}
        for n, edit, doc in st.structural:
            if n in alive:
                by_fix.setdefault(n, []).append((edit, doc))
        for n, items in by_fix.items():
            try:
                new = _structural(st, new, items)
            except FixError as exc:
                failures[n] = str(exc)
            except Exception as exc:  # a fixer bug must not take the whole run down, nor write
                failures[n] = f"internal error while applying the fix ({type(exc).__name__}: {exc})"
        texts[path] = new
    return texts, failures


def _structural(st: FileState, text: str, items: list[tuple[Edit, int]]) -> str:
    if st.kind == "json":
        from netlint.fix import jsonfix

        for edit, _ in items:
            text = jsonfix.apply(text, tuple(edit.doc_path), edit.value)
        return text
    from netlint.fix import yamlfix

    docs: dict[int, list] = {}
    for edit, doc in items:
        docs.setdefault(doc, []).append((tuple(edit.doc_path), edit.value))
    for doc, ops in sorted(docs.items()):
        text = yamlfix.apply(text, doc, ops)
    return text
