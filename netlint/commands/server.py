"""``netlint server``: run the language server on stdin/stdout (docs/editors.md)."""

from __future__ import annotations

import sys

HINT = "netlint: the language server needs pygls: pip install 'netlint[lsp]'\n"


def add_parser(sub) -> None:
    p = sub.add_parser("server", help="run the language server (LSP over stdio) for editors")
    p.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default and only "
                   "transport; accepted because editors pass it)")


def run(args) -> int:
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        sys.stderr.write(HINT)
        return 2
    from netlint.server.protocol import main

    return main()
