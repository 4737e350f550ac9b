"""Structural edits on YAML through ruamel.yaml's round trip, kept to the lines they change.

ruamel.yaml (imported here, lazily: only when a YAML structural edit is applied) loads the file
with comments, key order, quoting, anchors and flow style; the edit sets a path on that tree; the
dump is configured with the file's own indentation (detected), a wide line width and the original
quotes. Two extra steps make the result safe for production configs:

* :func:`netlint.fix.merge.merge3` carries only the changed lines back onto the original text, so
  lines the fix did not touch keep their exact bytes (ruamel would otherwise re-indent or respace
  them);
* the result is loaded again and must equal the data before the edit with exactly that path set
  (:func:`netlint.fix.paths.set_path`), and must keep every comment; otherwise the edit is refused.

A key appended to a mapping is placed before the comment lines that followed the mapping's last
entry (ruamel attaches those to the last entry, which would put the new key under a comment that
belongs to the next block).
"""

from __future__ import annotations

import io
import re
from collections import Counter
from typing import Any

import yaml

from netlint.fix.errors import FixError
from netlint.fix.merge import merge3
from netlint.fix.paths import MISSING, format_path, match_key, set_path, unshare
from netlint.fix.text import newline_of

try:
    _Loader = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

_STR = "tag:yaml.org,2002:str"


def apply(text: str, doc_index: int, ops: list[tuple[tuple, Any]]) -> str:
    """``text`` with each ``(path, value)`` of ``ops`` set in YAML document ``doc_index``."""
    nl = newline_of(text)
    body = text.replace("\r\n", "\n") if nl == "\r\n" else text
    try:
        before = list(yaml.load_all(body, Loader=_Loader))
    except yaml.YAMLError as exc:
        raise FixError(f"the file is not valid YAML ({str(exc).splitlines()[0]})") from None
    docs_before = [d for d in before]
    if not 0 <= doc_index < len(docs_before):
        raise FixError("cannot tell which YAML document the edit is for")
    expected = [unshare(d) for d in docs_before]
    for path, value in ops:
        expected[doc_index] = set_path(expected[doc_index], tuple(path), value)

    y = _yaml(body)
    try:
        unchanged = list(y.load_all(body))
        changed = list(y.load_all(body))
    except Exception as exc:  # ruamel's errors have no common base worth naming here
        raise FixError(f"ruamel.yaml cannot round-trip this file ({type(exc).__name__})") from None
    if len(changed) != len(docs_before):
        raise FixError("ruamel.yaml and PyYAML disagree on this file's documents")
    quote = _quote_style(body)
    for path, value in ops:
        changed[doc_index] = _set(changed[doc_index], tuple(path), value, quote)
    r = _dump(y, unchanged, body)
    m = _dump(y, changed, body)
    reasons = []
    for candidate in (merge3(body, r, m), m):
        if candidate is None:
            continue
        why = _verify(body, candidate, expected)
        if why is None:
            return candidate.replace("\n", "\r\n") if nl == "\r\n" else candidate
        reasons.append(why)
    raise FixError(reasons[0] if reasons else "the edit cannot be placed in this file")


def _verify(before: str, after: str, expected: list) -> str | None:
    try:
        got = list(yaml.load_all(after, Loader=_Loader))
    except yaml.YAMLError:
        return "the edited file would not parse"
    if got != expected:
        return "the edit would change more than the path it sets (a YAML alias or an unusual scalar?)"
    lost = Counter(_comments(before)) - Counter(_comments(after))
    if lost:
        return f"ruamel.yaml would drop a comment ({next(iter(lost))!r})"
    return None


# -- ruamel setup --------------------------------------------------------------------------------

def _yaml(text: str):
    from ruamel.yaml import YAML

    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.allow_duplicate_keys = True
    y.width = 4096  # never fold a long line the original kept on one line
    mapping, sequence, offset = detect_indent(text)
    y.indent(mapping=mapping, sequence=sequence, offset=offset)
    if re.match(r"(#[^\n]*\n|\s*\n)*---", text):
        y.explicit_start = True
    return y


def _dump(y, docs: list, original: str) -> str:
    buf = io.StringIO()
    if len(docs) == 1:
        y.dump(docs[0], buf)
    else:
        y.dump_all(docs, buf)
    return buf.getvalue()


_KEY_LINE = re.compile(r"^( *)(- +)*([^\s#-][^#]*?|-[^\s][^#]*?):(\s+[&!][^\s#]+)*\s*(#.*)?$")
_DASH = re.compile(r"^( *)- +(\S)")


def detect_indent(text: str) -> tuple[int, int, int]:
    """The (mapping, sequence, offset) indentation ruamel should use to write like this file:
    the most common step from a ``key:`` line to its first child."""
    maps: Counter = Counter()
    seqs: Counter = Counter()
    lines = [ln for ln in text.split("\n") if ln.strip() and not ln.lstrip().startswith("#")]
    for prev, cur in zip(lines, lines[1:]):
        m = _KEY_LINE.match(prev)
        if not m or prev.rstrip().endswith(("|", ">", "|-", ">-")):
            continue
        key_col = len(prev) - len(prev.lstrip(" -"))
        col = len(cur) - len(cur.lstrip(" "))
        if col <= len(m.group(1)) and not cur.lstrip().startswith("- "):
            continue
        d = _DASH.match(cur)
        if d:
            offset = len(d.group(1)) - key_col
            if offset >= 0:
                seqs[(offset, d.start(2) - len(d.group(1)))] += 1
        elif col > key_col:
            maps[col - key_col] += 1
    mapping = maps.most_common(1)[0][0] if maps else 2
    if seqs:
        (offset, dash_width), _ = seqs.most_common(1)[0]
        sequence = offset + dash_width
    else:
        offset, sequence = 0, 2
    return mapping, max(sequence, offset + 2), offset


def _quote_style(text: str) -> str:
    return '"' if len(re.findall(r':\s+"', text)) > len(re.findall(r":\s+'", text)) else "'"


# -- setting a path on the round-trip tree ---------------------------------------------------------

def _set(node: Any, path: tuple, value: Any, quote: str) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if not path:
        if isinstance(node, CommentedMap) and isinstance(value, dict):
            for k, v in value.items():
                _set(node, (k,), v, quote)
            return node
        return _to_rt(value, node, quote)
    parent = node
    for i, part in enumerate(path[:-1]):
        if isinstance(parent, CommentedMap):
            k = match_key(parent, part)
            if k is MISSING:
                nested: Any = value
                for p in reversed(path[i + 1:]):
                    nested = {p: nested}
                _append(parent, part, _to_rt(nested, None, quote))
                return node
            parent = parent[k]
        elif isinstance(parent, CommentedSeq) and isinstance(part, int) and 0 <= part < len(parent):
            parent = parent[part]
        else:
            raise FixError(f"cannot set {format_path(path)}: a {type(parent).__name__} is in the way")
    last = path[-1]
    if isinstance(parent, CommentedMap):
        k = match_key(parent, last)
        if k is MISSING:
            _append(parent, last, _to_rt(value, None, quote))
        elif isinstance(parent[k], CommentedMap) and isinstance(value, dict):
            for kk, vv in value.items():
                _set(parent[k], (kk,), vv, quote)
        else:
            parent[k] = _to_rt(value, parent[k], quote)
    elif isinstance(parent, CommentedSeq) and isinstance(last, int) and 0 <= last <= len(parent):
        if last == len(parent):
            _append(parent, last, _to_rt(value, None, quote))
        elif isinstance(parent[last], CommentedMap) and isinstance(value, dict):
            for kk, vv in value.items():
                _set(parent[last], (kk,), vv, quote)
        else:
            parent[last] = _to_rt(value, parent[last], quote)
    else:
        raise FixError(f"cannot set {format_path(path)}: a {type(parent).__name__} is in the way")
    return node


def _to_rt(value: Any, like: Any, quote: str) -> Any:
    """A Python value as ruamel round-trip data; strings that YAML 1.1 (PyYAML, which netlint
    reads with) would not load back as strings are quoted, in the file's usual quote style."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

    if isinstance(value, dict):
        out = CommentedMap()
        for k, v in value.items():
            out[k] = _to_rt(v, None, quote)
        if isinstance(like, CommentedMap) and like.fa.flow_style():
            out.fa.set_flow_style()
        return out
    if isinstance(value, (list, tuple)):
        seq = CommentedSeq(_to_rt(v, None, quote) for v in value)
        if isinstance(like, CommentedSeq) and like.fa.flow_style():
            seq.fa.set_flow_style()
        return seq
    if isinstance(value, str):
        if isinstance(like, (SingleQuotedScalarString, DoubleQuotedScalarString)):
            return type(like)(value)
        resolved = yaml.resolver.Resolver().resolve(yaml.ScalarNode, value, (True, False))
        if resolved != _STR or value != value.strip() or not value:
            return (DoubleQuotedScalarString if quote == '"' else SingleQuotedScalarString)(value)
    return value


def _own_keys(node) -> list:
    own = getattr(node, "_ok", None)
    return [k for k in node if own is None or k in own]


def _tail_slot(node) -> tuple | None:
    """The deepest (container, key, index) whose trailing comment ends ``node``'s last entry."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    found = None
    while True:
        if isinstance(node, CommentedMap) and _own_keys(node):
            k, idx = _own_keys(node)[-1], 2
        elif isinstance(node, CommentedSeq) and len(node):
            k, idx = len(node) - 1, 0
        else:
            return found
        slot = node.ca.items.get(k)
        if slot and len(slot) > idx and slot[idx] is not None and not isinstance(slot[idx], list):
            found = (node, k, idx)
        node = node[k]


def _append(container, key: Any, value: Any) -> None:
    """Add ``key`` (or append to a sequence) and move the comment lines that trailed the old last
    entry so they trail the new one instead."""
    from ruamel.yaml.comments import CommentedMap
    from ruamel.yaml.tokens import CommentToken

    old = _tail_slot(container)
    if isinstance(container, CommentedMap):
        container[key] = value
    else:
        container.append(value)
    if old is None:
        return
    node, k, idx = old
    token = node.ca.items[k][idx]
    eol, sep, rest = token.value.partition("\n")
    if not sep or not rest:
        return
    if eol.strip():
        token.value = eol + "\n"
    else:
        node.ca.items[k][idx] = None
    new = _tail_slot_target(container)
    if new is None:
        return
    tnode, tk, tidx = new
    slots = tnode.ca.items.setdefault(tk, [None, None, None, None])
    slots[tidx] = CommentToken("\n" + rest, token.start_mark, None)


def _tail_slot_target(container) -> tuple:
    """Where the new last entry's trailing comment goes: its deepest last leaf."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    node = container
    while True:
        if isinstance(node, CommentedMap) and _own_keys(node):
            k, idx = _own_keys(node)[-1], 2
        elif isinstance(node, CommentedSeq) and len(node):
            k, idx = len(node) - 1, 0
        else:
            return None
        child = node[k]
        if isinstance(child, (CommentedMap, CommentedSeq)) and len(child) and not child.fa.flow_style():
            node = child
            continue
        return node, k, idx


# -- comments, for the "keeps every comment" check ------------------------------------------------

def _comments(text: str) -> list[str]:
    out = []
    for line in text.split("\n"):
        quote = None
        for i, ch in enumerate(line):
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "'\"" and (i == 0 or line[i - 1] in " \t:[{,-"):
                quote = ch
            elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
                out.append(line[i:].rstrip())
                break
    return out
