"""``netlint policy view [JSONPATH] [PATH...]``: the workspace view a policy selects from, at a
JSONPath (like ``conftest parse``): what ``self`` is for each node a ``given`` selects, with the file
and line it comes from. Write the policy against what this prints (strings stay strings: an NCCL
value is ``"106"``; ``nodes`` is a list)."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def add_parser(actions) -> None:
    view = actions.add_parser("view", help="print the workspace view at a JSONPath, like `conftest parse`")
    view.add_argument("query", nargs="?", default="$", metavar="JSONPATH",
                      help="RFC 9535 JSONPath, as in a policy's `given` (default: $, the whole view)")
    view.add_argument("paths", nargs="*", type=Path, help="files or directories (default: .)")
    view.add_argument("--inventory", type=Path, help="cluster inventory file")
    view.add_argument("--config", type=Path, help="configuration file (default: found upward)")
    view.add_argument("--format", choices=("text", "json"), default="text",
                      help="text: each node's path and location, then its value; json: a list of "
                           "{path, location, value}")


def run(args) -> int:
    from jsonpath_rfc9535 import JSONPathEnvironment

    try:
        query = JSONPathEnvironment().compile(args.query)
    except Exception as exc:
        sys.stderr.write(f"netlint: error: JSONPath {args.query!r} does not compile: {exc}\n")
        return 2
    from netlint.policy.shape import UnknownField, check_path

    try:
        check_path(query)
    except UnknownField as exc:  # a path the view cannot have: say so rather than print nothing
        sys.stderr.write(f"netlint: error: JSONPath {args.query!r}: {exc}\n")
        return 2
    from netlint.commands.workspace_run import workspace_report
    from netlint.policy.view import View

    report = workspace_report(args)
    if report is None:
        return 2
    view = View()
    data = view.build(report.workspace)
    from netlint.display import namer

    name = namer(report.workspace.root)  # files named from the current directory, as `netlint check` does
    nodes = [(_path(node), _where(view.span_at(tuple(_location(node))), name), node.value)
             for node in query.finditer(data)]
    if args.format == "json":
        print(json.dumps([{"path": p, "location": w, "value": v} for p, w, v in nodes], indent=2,
                         ensure_ascii=False))
    else:
        for p, where, value in nodes:
            print(f"# {p}" + (f"  ({where})" if where else ""))
            print(json.dumps(value, indent=2, ensure_ascii=False))
    if not nodes:
        sys.stderr.write(f"netlint: no node of the workspace view matches {args.query}\n")
        return 1
    return 0


def _path(node) -> str:
    path = node.path
    return path() if callable(path) else path  # the normalized path (RFC 9535 §2.7)


def _location(node) -> list:
    loc = node.location
    return list(loc() if callable(loc) else loc)


def _where(span, name) -> str | None:
    return f"{name(span.file)}:{span.line}:{span.col}" if span is not None and span.line > 0 else None
