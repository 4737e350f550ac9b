"""``netlint schema [NAME]``: print one of the JSON Schemas netlint ships, or (``--path``) its installed
file, for editors (docs/editors.md). Without NAME: the list of names."""

from __future__ import annotations

import sys


def add_parser(sub) -> None:
    p = sub.add_parser("schema", help="print a shipped JSON Schema (inventory, switch, nic, policy, config, ...)")
    p.add_argument("name", nargs="?", help="schema name: inventory, switch, nic, policy, config, workspace, "
                   "advisories (or its file name); none: list them")
    p.add_argument("--path", action="store_true", help="print the installed file's path instead of its content")


def shipped(name: str):
    """The installed schema file for ``name`` (``inventory`` or ``inventory.schema.json``), or None."""
    from importlib import resources

    from netlint.schemas_gen import names

    file = name if name.endswith(".schema.json") else f"{name}.schema.json"
    if file not in names():
        return None
    return resources.files("netlint").joinpath("schemas", file)


def run(args) -> int:
    from netlint.schemas_gen import names

    if not args.name:
        for file in names():
            print(file.removesuffix(".schema.json"))
        return 0
    found = shipped(args.name)
    if found is None or not found.is_file():
        known = ", ".join(n.removesuffix(".schema.json") for n in names())
        sys.stderr.write(f"netlint: unknown schema {args.name!r} (known: {known})\n")
        return 2
    if args.path:
        print(str(found))
    else:
        sys.stdout.write(found.read_text(encoding="utf-8"))
    return 0
