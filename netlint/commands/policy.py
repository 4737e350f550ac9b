"""``netlint policy test [PATH...]``: run every policy's pass/fail examples (like ``conftest verify``);
``netlint policy view [JSONPATH]``: the data a policy sees there (netlint/commands/policy_view.py)."""

from __future__ import annotations

import sys
from pathlib import Path


def add_parser(sub) -> None:
    p = sub.add_parser("policy", help="work with policy files")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    test = actions.add_parser("test", help="run the examples of policy files, like `conftest verify`")
    test.add_argument("paths", nargs="*", type=Path,
                      help="policy files or folders (default: the config's `policies`, else rules/, else "
                           "the built-in packs)")
    from netlint.commands import policy_view

    policy_view.add_parser(actions)


def run(args) -> int:
    if args.action == "view":
        from netlint.commands import policy_view

        return policy_view.run(args)
    from netlint.policy.files import PACKS_DIR, load, unique
    from netlint.policy.runner import run_examples

    files: list[Path] = []
    failed = 0
    if not args.paths:
        configured, problems = _configured()
        for f in problems:  # a configured pack or file that does not exist fails the run
            print(f"{f.span.file}:{f.span.line}:{f.span.col}: {f.code} {f.message}")
        failed += len(problems)
        files.extend(configured)
    for path in args.paths or ([] if files or failed else [Path("rules") if Path("rules").is_dir() else PACKS_DIR]):
        if path.is_dir():
            files.extend(sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml")))
        elif path.is_file():
            files.append(path)
        else:
            sys.stderr.write(f"netlint: error: no such file or directory: {path}\n")
            return 2
    tested, wrong, bare = 0, 0, []
    loaded, problems = [], []
    for file in dict.fromkeys(files):
        policies, found = load(file, _shown(file))
        loaded.extend(policies)
        problems.extend(found)
    loaded, duplicates = unique(loaded)
    from netlint.policy.overrides import duplicated

    loaded, unknown = duplicated(loaded)  # a `duplicates` code no rule has would report twice
    duplicates += unknown
    for f in problems + duplicates:  # a policy that does not load fails the test run
        print(f"{f.span.file}:{f.span.line}:{f.span.col}: {f.code} {f.message}")
        failed += 1
    for policy in loaded:
        ex = policy.policy.examples
        if ex is None or not (ex.pass_ or ex.fail):
            bare.append(policy.code)
            continue
        tested += len(ex.pass_) + len(ex.fail)
        setup, problems = run_examples(policy)
        for problem in setup + problems:
            print(problem)
        failed += len(setup)
        wrong += len(problems)
    failed += wrong
    if bare:
        print(f"no examples: {', '.join(bare)}")
    print(f"{tested - wrong} passed, {failed} failed")
    return 1 if failed else 0


def _configured() -> tuple[list[Path], list]:
    """The policy files the netlint config in or above the current directory names."""
    from netlint.config import load_config
    from netlint.policy.files import resolve

    config, _ = load_config(None, Path.cwd())
    if not config.settings.policies:
        return [], []
    return resolve(config.settings.policies, config.root, config.file)


def _shown(path: Path) -> str:
    import os

    try:
        return os.path.relpath(path) if not os.path.relpath(path).startswith("..") else str(path)
    except ValueError:
        return str(path)
