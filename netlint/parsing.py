"""Parsing YAML and JSON into located trees (:mod:`netlint.located` types).

YAML: one pass over libyaml's event stream (``CSafeLoader``), which never constructs arbitrary
Python objects. JSON: values from the C ``json`` module and positions deferred until first use.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from netlint.located import (Document, MapNode, ParseError, Scalar, SeqNode, Span, _Loader, plain,
                             walk)


_TAG = "tag:yaml.org,2002:"
_safe = yaml.constructor.SafeConstructor()
_resolver = yaml.resolver.Resolver()
_JSON_INT = re.compile(r"-?(0|[1-9][0-9]*)\Z")
_EV_SCALAR, _EV_MAP, _EV_SEQ, _EV_ALIAS = (yaml.ScalarEvent, yaml.MappingStartEvent,
                                          yaml.SequenceStartEvent, yaml.AliasEvent)
_EV_END = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


class _Builder:
    """Builds located trees straight from libyaml's event stream.

    Going from events (made in C) to MapNode/SeqNode/Scalar in one pass avoids building PyYAML's
    node graph first and walking it again: on large SONiC files this halves the cost of locating.
    """

    def __init__(self, file: str, json_mode: bool):
        self.file = file
        self.json_mode = json_mode
        self.duplicates: list[tuple[str, Span]] = []
        self.anchors: dict[str, Any] = {}

    def documents(self, text: str) -> list[Any]:
        loader = _Loader(text)
        docs: list[Any] = []
        try:
            stack: list[list] = []  # frames: [container, pending_key, merges]
            root: Any = None
            file = self.file
            while True:
                ev = loader.get_event()
                if ev is None:
                    break
                cls = type(ev)
                if cls is _EV_SCALAR:
                    value: Any = self.scalar(ev)
                    anchor = ev.anchor
                elif cls is _EV_MAP or cls is _EV_SEQ:
                    sm = ev.start_mark
                    span = Span(file, sm.line + 1, sm.column + 1, 0, 0, sm.index, -1)
                    container = MapNode(span) if cls is _EV_MAP else SeqNode(span)
                    if ev.anchor:
                        self.anchors[ev.anchor] = container
                    stack.append([container, _NO_KEY, None])
                    continue
                elif cls in _EV_END:
                    container, _, merges = stack.pop()
                    em = ev.end_mark
                    sp = container.span
                    sp._end_line, sp._end_col, sp._end = em.line + 1, em.column + 1, em.index
                    if merges:
                        self.merge(container, merges)
                    value, anchor = container, None
                elif cls is _EV_ALIAS:
                    value, anchor = self.anchors.get(ev.anchor), None
                    if value is None:
                        raise ParseError(f"found undefined alias {ev.anchor!r}", self.mark_span(ev.start_mark))
                elif cls is yaml.DocumentEndEvent:
                    if root is not None:
                        docs.append(root)
                    root = None
                    continue
                else:
                    continue
                if anchor:
                    self.anchors[anchor] = value
                if not stack:
                    root = value
                    continue
                frame = stack[-1]
                parent = frame[0]
                if type(parent) is SeqNode:
                    parent.append(value)
                elif frame[1] is _NO_KEY:
                    frame[1] = value
                else:
                    self.put(frame, parent, frame[1], value)
                    frame[1] = _NO_KEY
        finally:
            loader.dispose()
        return docs

    def put(self, frame: list, parent: "MapNode", key: Any, value: Any) -> None:
        if type(key) is not Scalar:  # complex keys do not occur in config files
            key = Scalar(repr(plain(key)), key.span)
        if key.raw == "<<" and not key.quoted and not self.json_mode:
            if frame[2] is None:
                frame[2] = []
            frame[2].extend(value if isinstance(value, SeqNode) else [value])
            return
        k = key.value
        if k in parent:
            self.duplicates.append((str(k), key.span))
        parent[k] = value
        parent.keys_at[k] = key

    @staticmethod
    def merge(container: "MapNode", merges: list) -> None:
        for m in merges:
            if isinstance(m, MapNode):
                for k, v in m.items():
                    if k not in container:
                        container[k] = v
                        container.keys_at[k] = m.keys_at.get(k, Scalar(k, m.span))

    def mark_span(self, mark: Any) -> Span:
        return Span(self.file, mark.line + 1, mark.column + 1, mark.line + 1, mark.column + 2,
                    mark.index, mark.index + 1)

    def scalar(self, ev: Any) -> Scalar:
        text = ev.value
        sm, em = ev.start_mark, ev.end_mark
        span = Span(self.file, sm.line + 1, sm.column + 1, em.line + 1, em.column + 1, sm.index, em.index)
        style = ev.style
        if style:  # quoted or block scalars are strings
            return Scalar(text, span, text, style in ("'", '"'))
        if self.json_mode:
            return Scalar(_json_plain(text), span, text)
        tag = ev.tag
        if tag is None or tag == "!":
            tag = _resolver.resolve(yaml.ScalarNode, text, ev.implicit)
        if tag == _TAG + "str":
            value: Any = text
        elif tag == _TAG + "int":
            value = _safe.construct_yaml_int(yaml.ScalarNode(tag, text))
        elif tag == _TAG + "float":
            value = _safe.construct_yaml_float(yaml.ScalarNode(tag, text))
        elif tag == _TAG + "bool":
            value = _safe.construct_yaml_bool(yaml.ScalarNode(tag, text))
        elif tag == _TAG + "null":
            value = None
        else:  # timestamps, binary, explicit tags: keep the text, never build objects
            value = text
        return Scalar(value, span, text)


_NO_KEY = object()


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


def _mark_span(file: str, mark: Any, text: str) -> Span:
    if mark is None:
        return Span(file, 1, 1, 1, 1, 0, 0)
    return Span(file, mark.line + 1, mark.column + 1, mark.line + 1, mark.column + 2,
                mark.index, min(mark.index + 1, len(text)))


def parse_yaml(file: str, text: str) -> list[Document]:
    """All documents of a YAML stream. Raises :class:`ParseError` with the parser's position."""
    b = _Builder(file, json_mode=False)
    roots = _run(b, file, text)
    return [Document(r, b.duplicates if i == 0 else []) for i, r in enumerate(roots)]


def _run(b: _Builder, file: str, text: str) -> list[Any]:
    try:
        return b.documents(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        msg = exc.problem or str(exc)
        if exc.context:
            msg = f"{msg} ({exc.context})"
        raise ParseError(msg, _mark_span(file, mark, text)) from None
    except yaml.YAMLError as exc:  # reader errors (control characters) have no MarkedYAMLError
        raise ParseError(str(exc).splitlines()[0], Span(file, 1, 1, 1, 1, 0, 0)) from None


def parse_json(file: str, text: str) -> Document:
    """A JSON document with (deferred) spans. Errors carry json's own line and column.

    ``json.loads`` (C) decides validity and gives the values; positions come from libyaml's event
    stream only when a span is first needed (:class:`_LazyJson`). A document with duplicate keys is
    located eagerly, so NL009 can point at the second key.
    """
    duplicated: list[bool] = []

    def pairs(items: list) -> dict:
        out = dict(items)
        if len(out) != len(items):
            duplicated.append(True)
        return out

    try:
        data = json.loads(text, object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        off = exc.pos
        span = Span(file, exc.lineno, exc.colno, exc.lineno, exc.colno + 1, off, off + 1)
        raise ParseError(exc.msg, span) from None
    if duplicated:
        b = _Builder(file, json_mode=True)
        try:
            roots = b.documents(text)
        except (yaml.YAMLError, ParseError):
            roots = None
        if roots and len(roots) == 1:
            return Document(roots[0], b.duplicates)
    lazy = _LazyJson(file, text)
    lazy.root = lazy.build(data)
    return Document(lazy.root, [])


class _LazyJson:
    """Values from ``json.loads`` now; every span of the document filled in on first use."""

    def __init__(self, file: str, text: str):
        self.file = file
        self.text = text
        self.root: Any = None

    def build(self, value: Any) -> Any:
        kind = type(value)
        if kind is dict:
            node = MapNode(Span.deferred(self))
            keys = node.keys_at
            for k, v in value.items():
                node[k] = self.build(v)
                keys[k] = Scalar(k, Span.deferred(self), k, True)
        elif kind is list:
            node = SeqNode(Span.deferred(self))
            node.extend([self.build(v) for v in value])
        elif kind is str:
            node = Scalar(value, Span.deferred(self), value, True)
        else:
            raw = "null" if value is None else ("true" if value is True else "false") \
                if kind is bool else repr(value)
            node = Scalar(value, Span.deferred(self), raw)
        return node

    def resolve(self) -> None:
        root, self.root = self.root, None
        if root is None:
            return  # already resolved (or being resolved)
        try:
            located = _Builder(self.file, json_mode=True).documents(self.text)
        except (yaml.YAMLError, ParseError):
            located = []
        if len(located) == 1:
            _fill(root, located[0])
        whole = Span(self.file, 1, 1, 1, 1, 0, 0)
        for _, node in walk(root):  # anything YAML could not place points at the file's start
            for span in _spans_of(node):
                if span._doc is self:
                    span._set(whole)


def _spans_of(node: Any) -> list:
    spans = [node.span]
    if isinstance(node, MapNode):
        spans.extend(k.span for k in node.keys_at.values())
    return spans


def _fill(lazy: Any, real: Any) -> None:
    lazy.span._set(real.span)
    if isinstance(lazy, MapNode) and isinstance(real, MapNode):
        for k, child in lazy.items():
            other = real.get(k)
            if other is None:
                continue
            lazy.keys_at[k].span._set(real.key_span(k))
            _fill(child, other)
    elif isinstance(lazy, SeqNode) and isinstance(real, SeqNode):
        for a, b in zip(lazy, real):
            _fill(a, b)


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
