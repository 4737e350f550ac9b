"""Command line: ``netlint check|rules|rule|model|policy|advisories``. Exit codes: 0 clean, 1 findings, 2 error.

Each subcommand lives in ``netlint.commands.<name>`` with ``add_parser`` and ``run``; they import
their heavy dependencies inside ``run`` so start-up stays cheap.
"""

from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS = ("check", "rules", "rule", "model", "path", "policy", "advisories", "server", "schema")
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def main(argv: list[str] | None = None) -> int:
    as_program = argv is None  # the process ends with this call (see commands/check.py: GC at exit)
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["--version"], ["-V"]):
        from netlint import __version__

        print(f"netlint {__version__}")
        return EXIT_CLEAN
    parser = argparse.ArgumentParser(prog="netlint", description=__doc__.splitlines()[0])
    parser.add_argument("-V", "--version", action="store_true", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    first = argv[0] if argv else ""
    if first.startswith("-"):  # `netlint --help` lists every command; `netlint -x` says it is unknown
        modules = _parsers(sub, COMMANDS)
    else:  # only the command that runs is imported (start-up: a one-file check imports no other)
        modules = _parsers(sub, [first]) if first in COMMANDS else {}
        if first not in modules:
            argv = ["check", *argv]  # `netlint PATH` means `netlint check PATH`, like ruff/yamllint
            modules = _parsers(sub, ["check"])
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors; keep that, but return it
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help()
        return EXIT_ERROR
    args.as_program = as_program
    try:
        return modules[args.command].run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_CLEAN


def _parsers(sub, names) -> dict:
    """Import ``netlint.commands.<name>`` for each name and add its parser (a missing one is skipped)."""
    modules = {}
    for name in names:
        try:
            module = importlib.import_module(f"netlint.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"netlint.commands.{name}":
                raise
            continue
        modules[name] = module
        module.add_parser(sub)
    return modules


if __name__ == "__main__":
    raise SystemExit(main())
