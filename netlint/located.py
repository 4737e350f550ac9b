"""Located documents: YAML and JSON trees in which every value knows its span.

Parsing uses PyYAML's libyaml composer (``yaml.compose_all`` with ``CSafeLoader``): it builds
nodes with start/end marks and never constructs arbitrary Python objects. The node tree is then
turned into :class:`MapNode` (a ``dict``), :class:`SeqNode` (a ``list``) and :class:`Scalar`
leaves, so loaders and pydantic models see ordinary containers while every leaf keeps its
``Span``. JSON is read by the same composer (JSON is, for these files, a subset of YAML) but
plain scalars are resolved with JSON's rules, not YAML 1.1's (``5e8`` is a number, ``yes`` is not).
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator, NamedTuple

import yaml

try:  # libyaml is the fast path; the pure-Python loader keeps netlint usable without it
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - depends on how PyYAML was built
    _Loader = yaml.SafeLoader


class Span(NamedTuple):
    """Where a value sits: 1-based line/column, end exclusive; ``start``/``end`` are str offsets."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    start: int = -1
    end: int = -1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class ParseError(Exception):
    """A document that does not parse; carries the parser's own position."""

    def __init__(self, message: str, span: Span):
        super().__init__(message)
        self.message = message
        self.span = span


class Scalar:
    """A leaf value with its span. ``raw`` is the source text of the token (unquoted)."""

    __slots__ = ("value", "span", "raw", "quoted")

    def __init__(self, value: Any, span: Span, raw: str = "", quoted: bool = False):
        self.value = value
        self.span = span
        self.raw = raw
        self.quoted = quoted

    def __repr__(self) -> str:
        return f"Scalar({self.value!r} @ {self.span.line}:{self.span.col})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Scalar):
            return self.value == other.value
        return self.value == other

    def __hash__(self) -> int:
        return hash(self.value)


class MapNode(dict):
    """A mapping; ``keys_at`` holds each key's own Scalar (for key spans and did-you-mean)."""

    __slots__ = ("span", "keys_at")

    def __init__(self, span: Span):
        super().__init__()
        self.span = span
        self.keys_at: dict[Any, Scalar] = {}

    def at(self, key: Any) -> Span:
        """The span of ``key``'s value, or of the mapping when the key is absent."""
        child = self.get(key)
        if child is not None and hasattr(child, "span"):
            return child.span
        return self.span

    def key_span(self, key: Any) -> Span:
        k = self.keys_at.get(key)
        return k.span if k is not None else self.span


class SeqNode(list):
    __slots__ = ("span",)

    def __init__(self, span: Span):
        super().__init__()
        self.span = span


Node = MapNode | SeqNode | Scalar


def plain(node: Any) -> Any:
    """Strip locations: the Python value of a node tree."""
    if isinstance(node, Scalar):
        return node.value
    if isinstance(node, MapNode):
        return {k: plain(v) for k, v in node.items()}
    if isinstance(node, SeqNode):
        return [plain(v) for v in node]
    return node


def walk(node: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """Every (path, node) pair below ``node``, depth first."""
    yield path, node
    if isinstance(node, MapNode):
        for k, v in node.items():
            yield from walk(v, path + (k,))
    elif isinstance(node, SeqNode):
        for i, v in enumerate(node):
            yield from walk(v, path + (i,))


def locate(node: Any, path: tuple) -> Any:
    """The node at ``path`` (keys and indexes), or None."""
    for part in path:
        if isinstance(node, MapNode):
            node = node.get(part)
        elif isinstance(node, SeqNode) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        else:
            return None
    return node


# --- YAML -------------------------------------------------------------------------------------

_TAG = "tag:yaml.org,2002:"
_safe = yaml.constructor.SafeConstructor()
_JSON_INT = re.compile(r"-?(0|[1-9][0-9]*)\Z")


class _Builder:
    def __init__(self, file: str, json_mode: bool):
        self.file = file
        self.json_mode = json_mode
        self.duplicates: list[tuple[str, Span]] = []
        self._memo: dict[int, Any] = {}

    def span(self, node: yaml.Node) -> Span:
        s, e = node.start_mark, node.end_mark
        return Span(self.file, s.line + 1, s.column + 1, e.line + 1, e.column + 1, s.index, e.index)

    def build(self, node: yaml.Node) -> Any:
        cached = self._memo.get(id(node))
        if cached is not None:
            return cached
        if isinstance(node, yaml.ScalarNode):
            out: Any = self.scalar(node)
        elif isinstance(node, yaml.SequenceNode):
            out = SeqNode(self.span(node))
            out.extend(self.build(child) for child in node.value)
        else:
            out = self.mapping(node)
        self._memo[id(node)] = out
        return out

    def mapping(self, node: yaml.MappingNode) -> MapNode:
        out = MapNode(self.span(node))
        merges: list[MapNode] = []
        for key_node, value_node in node.value:
            if key_node.tag == _TAG + "merge":
                merged = self.build(value_node)
                merges.extend(merged if isinstance(merged, SeqNode) else [merged])
                continue
            key = self.build(key_node)
            if not isinstance(key, Scalar):  # complex keys do not occur in config files
                key = Scalar(repr(plain(key)), key.span)
            k = key.value
            if k in out:
                self.duplicates.append((str(k), key.span))
            out[k] = self.build(value_node)
            out.keys_at[k] = key
        for m in merges:
            if isinstance(m, MapNode):
                for k, v in m.items():
                    if k not in out:
                        out[k] = v
                        out.keys_at[k] = m.keys_at.get(k, Scalar(k, m.span))
        return out

    def scalar(self, node: yaml.ScalarNode) -> Scalar:
        text = node.value
        quoted = node.style in ("'", '"')
        span = self.span(node)
        if quoted or node.style in ("|", ">"):
            return Scalar(text, span, text, quoted)
        if self.json_mode:
            return Scalar(_json_plain(text), span, text)
        tag = node.tag
        if tag == _TAG + "str":
            value: Any = text
        elif tag == _TAG + "int":
            value = _safe.construct_yaml_int(node)
        elif tag == _TAG + "float":
            value = _safe.construct_yaml_float(node)
        elif tag == _TAG + "bool":
            value = _safe.construct_yaml_bool(node)
        elif tag == _TAG + "null":
            value = None
        else:  # timestamps, binary, explicit tags: keep the text, never build objects
            value = text
        return Scalar(value, span, text)


def _json_plain(text: str) -> Any:
    if text == "true":
        return True
    if text == "false":
        return False
    if text == "null":
        return None
    if _JSON_INT.match(text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


class Document(NamedTuple):
    root: Any
    duplicates: list[tuple[str, Span]]


def _mark_span(file: str, mark: Any, text: str) -> Span:
    if mark is None:
        return Span(file, 1, 1, 1, 1, 0, 0)
    return Span(file, mark.line + 1, mark.column + 1, mark.line + 1, mark.column + 2,
                mark.index, min(mark.index + 1, len(text)))


def parse_yaml(file: str, text: str) -> list[Document]:
    """All documents of a YAML stream. Raises :class:`ParseError` with the parser's position."""
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        msg = exc.problem or str(exc)
        if exc.context:
            msg = f"{msg} ({exc.context})"
        raise ParseError(msg, _mark_span(file, mark, text)) from None
    except yaml.YAMLError as exc:  # reader errors (control characters) have no MarkedYAMLError
        raise ParseError(str(exc).splitlines()[0], Span(file, 1, 1, 1, 1, 0, 0)) from None
    docs = []
    for node in nodes:
        if node is None:
            continue
        b = _Builder(file, json_mode=False)
        docs.append(Document(b.build(node), b.duplicates))
    return docs


def parse_json(file: str, text: str) -> Document:
    """A JSON document with spans. Errors carry json's own line and column."""
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        off = exc.pos
        span = Span(file, exc.lineno, exc.colno, exc.lineno, exc.colno + 1, off, off + 1)
        raise ParseError(exc.msg, span) from None
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.YAMLError:
        node = None  # valid JSON that YAML 1.1 rejects (e.g. tabs in odd places): no positions
    if node is None:
        whole = Span(file, 1, 1, 1, 1, 0, 0)
        return Document(_unlocated(json.loads(text), whole), [])
    b = _Builder(file, json_mode=True)
    return Document(b.build(node), b.duplicates)


def _unlocated(value: Any, span: Span) -> Any:
    if isinstance(value, dict):
        m = MapNode(span)
        for k, v in value.items():
            m[k] = _unlocated(v, span)
            m.keys_at[k] = Scalar(k, span)
        return m
    if isinstance(value, list):
        s = SeqNode(span)
        s.extend(_unlocated(v, span) for v in value)
        return s
    return Scalar(value, span, json.dumps(value))
