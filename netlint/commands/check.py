"""``netlint check [PATH...]``: lint an infra repo and report findings."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from netlint.outputs import write_text


def add_parser(sub) -> None:
    p = sub.add_parser("check", help="lint files and directories (default: .)")
    p.add_argument("paths", nargs="*", type=Path, help="files or directories (default: .)")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="output format (default: $NETLINT_OUTPUT_FORMAT, else github when GITHUB_ACTIONS=true, "
                        "else text)")
    p.add_argument("--output-file", "-o", type=Path, help="write the report to this file")
    p.add_argument("--select", help="comma-separated rule codes or prefixes to enable")
    p.add_argument("--ignore", help="comma-separated rule codes or prefixes to disable")
    p.add_argument("--extend-select", help="comma-separated rule codes or prefixes to enable on top of the "
                                           "selection (--select or the config's select)")
    p.add_argument("--config", type=Path, help="configuration file (default: found upward)")
    p.add_argument("--inventory", type=Path, help="cluster inventory file")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings are reported")
    p.add_argument("--fail-on", choices=("error", "warning", "info"),
                   help="lowest severity that makes the exit code 1 (default: warning)")
    p.add_argument("--statistics", action="store_true",
                   help="show a count per rule instead of the findings (text; a statistics object in json)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour the text report (auto: on a terminal, unless NO_COLOR is set; FORCE_COLOR "
                        "forces it)")
    p.add_argument("--stdin-filename", type=Path, metavar="PATH",
                   help="lint the text read from stdin as the content of PATH (an existing file of the "
                        "repository, which gives the context), for editors")
    p.add_argument("--quiet", "-q", action="store_true", help="print nothing; only the exit code")
    p.add_argument("--jobs", type=int, default=None,
                   help="worker processes for loading (default: 1; see docs/runs.md)")
    p.add_argument("--no-cache", action="store_true",
                   help="neither read nor write the cache of unchanged files (.netlint_cache)")
    p.add_argument("--cache-dir", type=Path, metavar="DIR",
                   help="where the cache lives (default: the configuration's cache-dir, else .netlint_cache "
                        "at the project root)")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="print the traceback of each internal error (NL000) on stderr")
    p.add_argument("--show-files", action="store_true",
                   help="list every file walked with the format netlint read it as, or why it was skipped; "
                        "report no findings")
    # Integrations (docs/integrations.md): suppressions, baseline, pre-commit, SARIF.
    p.add_argument("--no-inline-suppressions", action="store_true",
                   help="ignore `# netlint: disable=...` comments (CI governance)")
    p.add_argument("--baseline", type=Path, metavar="FILE",
                   help="do not report findings recorded in this baseline file")
    p.add_argument("--write-baseline", type=Path, metavar="FILE",
                   help="record the current findings in FILE and exit 0")
    p.add_argument("--force-exclude", action="store_true",
                   help="treat named files like walked ones: config excludes apply, unknown formats are "
                        "skipped silently (pre-commit)")
    p.add_argument("--changed-since", metavar="REF",
                   help="check the files changed since the git revision REF (git diff REF...HEAD, plus the "
                        "work tree's changes) under PATH, as pre-commit checks staged files (CI)")
    p.add_argument("--sarif-file", type=Path, metavar="FILE",
                   help="also write a SARIF report to FILE, whatever --format is")
    p.add_argument("--sarif-include-suppressed", action="store_true",
                   help="keep suppressed findings in SARIF (GitHub code scanning would open alerts for them)")
    p.add_argument("--fix", action="store_true", help="apply safe fixes (see docs/fixes.md)")
    p.add_argument("--unsafe-fixes", action="store_true",
                   help="with --fix/--diff/--fix-only: also apply fixes that change the run or the fabric")
    p.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; write nothing")
    p.add_argument("--fix-only", action="store_true", help="apply fixes; do not report remaining findings")


FORMATS = ("text", "json", "sarif", "github")


def run(args) -> int:
    from netlint.outputs import OutputError

    # What a run builds lives until the output is written and makes no reference cycles worth
    # collecting: with the cyclic GC on, each collection rescans millions of objects (at 10,000
    # files a third of the run, then a full collection at exit). The collector stays off for the
    # run; as a program, what is alive at the end is frozen so that the interpreter's collection at
    # exit has nothing to scan (called in-process, e.g. by tests, the collector comes back as it was).
    import gc

    enabled = gc.isenabled()
    gc.disable()
    try:
        return _run(args)
    except OutputError as exc:  # a path netlint was asked to write: one line, exit 2, no traceback
        sys.stderr.write(f"netlint: error: {exc}\n")
        return 2
    finally:
        if getattr(args, "as_program", False):
            gc.freeze()
        if enabled:
            gc.enable()


def _usage_error(args) -> str | None:
    """What makes the command line unusable before anything is read (exit 2), or None."""
    from netlint.outputs import OutputError, check_writable

    if args.jobs is not None and args.jobs < 1:
        return f"--jobs must be 1 or more (got {args.jobs})"
    env_format = os.environ.get("NETLINT_OUTPUT_FORMAT", "")
    if args.format is None and env_format and env_format not in FORMATS:
        return f"NETLINT_OUTPUT_FORMAT={env_format!r} is not a format ({', '.join(FORMATS)})"
    if args.stdin_filename is not None:
        if args.fix or args.fix_only:
            return "--stdin-filename lints stdin; it writes no file (use --diff to see the fixes)"
        if args.paths:
            return "--stdin-filename takes no PATH arguments (the file is the one named)"
    for flag, path in (("--output-file", args.output_file), ("--sarif-file", args.sarif_file),
                       ("--write-baseline", args.write_baseline)):
        if path is not None:
            try:
                check_writable(flag, path)
            except OutputError as exc:
                return str(exc)
    return None


def _run(args) -> int:
    from netlint.config_file import parse_codes
    from netlint.engine import Options, lint
    from netlint.findings import Severity

    problem = _usage_error(args)
    if problem:
        sys.stderr.write(f"netlint: error: {problem}\n")
        return 2
    paths = [args.stdin_filename] if args.stdin_filename is not None else args.paths
    force_exclude = args.force_exclude
    if getattr(args, "changed_since", None) is not None:
        paths = _changed(args)
        if paths is None:
            return 2
        force_exclude = True  # as pre-commit: a changed README is not netlint's business
    else:
        paths = paths or [Path(".")]
    opts = Options(paths=paths, config_file=args.config, inventory=args.inventory,
                   select=parse_codes(args.select) or None, ignore=parse_codes(args.ignore) or None,
                   extend_select=parse_codes(args.extend_select) or None,
                   jobs=args.jobs, inline_suppressions=not args.no_inline_suppressions,
                   baseline=args.baseline, force_exclude=force_exclude, show_files=args.show_files,
                   cache=_cached(args), cache_dir=_cache_dir(args))
    from netlint.safe_read import exists

    missing = [p for p in opts.paths if not exists(p)]
    if missing:
        sys.stderr.write(f"netlint: error: no such file or directory: {missing[0]}\n")
        return 2
    from netlint.terminal import Progress

    try:
        with Progress(sys.stderr, enabled=False if args.quiet else None), _stdin_as(args.stdin_filename):
            report = lint(opts)
    except Exception as exc:  # never a partial report: what failed outside any one file or rule
        report = failed_report(opts, exc)
    _internal_errors_to_stderr(report, getattr(args, "verbose", False))
    if report.config_errors:
        from netlint.codes import FLAG_LINE

        for f in report.config_errors:
            if f.span.line == FLAG_LINE:  # a code given on the command line: no file to point at
                sys.stderr.write(f"netlint: error: {f.message} ({f.code})\n")
            else:
                sys.stderr.write(f"{f.span.file}:{f.span.line}:{f.span.col}: {f.code} {f.message}\n")
        return 2
    if args.show_files:
        return _show_files(args, report)
    from netlint.fix import cli as fixcli

    fix_run = fixcli.apply_fixes(opts, report, args) if fixcli.wanted(args) else None
    if fix_run is not None:
        report = fix_run.report
    if args.write_baseline is not None:
        return _write_baseline(args, report)
    if report.stale_baseline and not args.quiet:
        sys.stderr.write(f"netlint: {report.stale_baseline} baseline entr"
                         f"{'y' if report.stale_baseline == 1 else 'ies'} no longer match a finding; "
                         f"refresh the baseline with --write-baseline {args.baseline}\n")
    fail_on = Severity.parse(args.fail_on or report.config.settings.fail_on)
    failing = [f for f in report.findings if not f.suppressed and f.severity >= fail_on]
    code = 2 if report.internal_error else (1 if failing and not args.exit_zero else 0)
    if fix_run is not None:
        code = fixcli.exit_code(fix_run, args, code)
    args.exit_code = code
    fmt = args.format or os.environ.get("NETLINT_OUTPUT_FORMAT") or \
        ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    if fix_run is not None and (args.diff or args.fix_only):
        if not args.quiet:
            sys.stdout.write(fix_run.diff() if args.diff else "")
            (sys.stderr if args.diff else sys.stdout).write(fixcli.summary(fix_run, args) + "\n")
        return code
    if not args.quiet:
        from netlint.terminal import use_color

        # a report written to a file gets colour only when asked for by --color always
        args.color_enabled = fmt == "text" and (use_color(args.color, sys.stdout) if not args.output_file
                                                else args.color == "always")
        out = _render(fmt, report, args)
        if fix_run is not None:
            if fmt == "text" and not args.output_file:
                out += fixcli.summary(fix_run, args) + "\n"
            else:
                sys.stderr.write(fixcli.summary(fix_run, args) + "\n")
        if args.output_file:
            write_text("--output-file", args.output_file, out)
        else:
            sys.stdout.write(out)
    if args.sarif_file is not None:
        write_text("--sarif-file", args.sarif_file, _render("sarif", report, args))
    return code


def _cached(args) -> bool:
    """The cache serves plain checks; stdin and fixes (which re-lint edited text) run without it.
    ``NETLINT_NO_CACHE`` set (and not 0/false/no) is ``--no-cache``: a CI job that does not keep the
    folder would only pay for writing it (ruff's RUFF_NO_CACHE)."""
    from netlint.fix import cli as fixcli

    if getattr(args, "no_cache", False) or getattr(args, "stdin_filename", None) is not None:
        return False
    if os.environ.get("NETLINT_NO_CACHE", "").strip().lower() not in ("", "0", "false", "no"):
        return False
    return not fixcli.wanted(args)


def _cache_dir(args) -> Path | None:
    """``--cache-dir``, else ``NETLINT_CACHE_DIR``, else the configuration's (netlint/cache.py)."""
    given = getattr(args, "cache_dir", None)
    if given is None and os.environ.get("NETLINT_CACHE_DIR"):
        given = Path(os.environ["NETLINT_CACHE_DIR"])
    return given


def _changed(args) -> list[Path] | None:
    """The files ``--changed-since`` names (netlint.changed), or None after a one-line error."""
    from netlint.changed import ChangedError, changed_files

    if args.stdin_filename is not None:
        sys.stderr.write("netlint: error: --changed-since and --stdin-filename do not go together\n")
        return None
    try:
        return changed_files(args.changed_since, args.paths or [Path(".")])
    except ChangedError as exc:
        sys.stderr.write(f"netlint: error: {exc}\n")
        return None


def _stdin_as(path: Path | None):
    """While linting, the file ``path`` reads as stdin's bytes (the fixer's overlay), so an editor's
    unsaved buffer is linted with the rest of the repository as context."""
    from contextlib import nullcontext

    if path is None:
        return nullcontext()
    from netlint.fix.files import key, overlay

    return overlay({key(path): sys.stdin.buffer.read()})


def failed_report(opts, exc: BaseException):
    """A report holding one NL000 when the run failed outside every per-file and per-rule guard, so
    every output format is still complete and the exit code is 2."""
    from netlint.config_file import Config
    from netlint.engine import Report, internal_error
    from netlint.located import Span
    from netlint.workspace import Workspace

    config = Config()
    where = opts.paths[0].as_posix() if opts.paths else "."
    finding = internal_error("the run", exc, Span(where, 1, 1, 1, 1, 0, 0), "internal:run")
    return Report([finding], Workspace(root=config.root, config=config), config, [], [])


def _render(fmt: str, report, args) -> str:
    """The whole report as text; a reporter that fails gives a report of that failure instead."""
    from netlint.reporters import render

    try:
        return render(fmt, report, args)
    except Exception as exc:
        failed = failed_report(args_options(args), exc)
        failed.findings[0].message = failed.findings[0].message.replace("the run", f"the {fmt} report", 1)
        _internal_errors_to_stderr(failed, getattr(args, "verbose", False))
        args.exit_code = 2
        return render(fmt, failed, args)


def args_options(args):
    from netlint.engine import Options

    return Options(paths=args.paths or [Path(".")])


def _internal_errors_to_stderr(report, verbose: bool) -> None:
    """One line per NL000 on stderr (the report has the finding); the traceback with ``--verbose``."""
    for f in report.findings:
        if f.code != "NL000":
            continue
        from netlint.reporters import cwd_path

        where = cwd_path(report, f.span.file)
        sys.stderr.write(f"netlint: {where}:{f.span.line}:{f.span.col}: {f.message}\n")
        tb = f.extra.get("traceback")
        if verbose and tb:
            sys.stderr.write(tb if tb.endswith("\n") else tb + "\n")
    if not verbose and any(f.code == "NL000" and f.extra.get("traceback") for f in report.findings):
        sys.stderr.write("netlint: this is a netlint bug; run with --verbose for the traceback and "
                         "report it with the file that triggered it\n")


def _show_files(args, report) -> int:
    """``--show-files``: one line per file, ``path: format[, format]`` or ``path: skipped: why`` (like
    ruff's ``--show-files``, which lists what would be checked; exits 0 whatever the findings); with
    ``--format json`` a list of ``{"file", "read_as"}`` / ``{"file", "skipped"}`` objects."""
    from netlint.display import namer

    rows = report.shown or []
    name = namer(report.config.root)  # named from the current directory, as the findings are
    if getattr(args, "format", None) == "json":  # one object per file: what read it, or why none did
        import json

        out = json.dumps([{"file": name(path), "skipped": what[len("skipped: "):]} if what.startswith("skipped: ")
                          else {"file": name(path), "read_as": what} for path, what in rows], indent=2) + "\n"
    else:
        out = "".join(f"{name(path)}: {what}\n" for path, what in rows)
    if args.output_file:
        write_text("--output-file", args.output_file, out)
    elif not args.quiet:
        sys.stdout.write(out)
    return 2 if report.internal_error else 0


def _write_baseline(args, report) -> int:
    from netlint.baseline import Baseline, BaselineError, write

    previous = None
    if report.workspace.targets is not None and args.write_baseline.is_file():
        try:
            previous = Baseline.read(args.write_baseline)
        except BaselineError:
            previous = None
    replaced = report.workspace.targets
    if previous is not None and replaced is not None:  # a file gone since has no findings left
        root = report.config.root
        replaced = set(replaced) | {file for file, _, _ in previous.entries if not (root / file).exists()}
    try:
        n = write(args.write_baseline, report.findings, previous, replaced)
    except OSError as exc:
        from netlint.outputs import OutputError

        raise OutputError(f"cannot write --write-baseline {args.write_baseline}: {exc.strerror or exc}") from None
    if not args.quiet:
        sys.stderr.write(f"netlint: wrote {n} finding{'s' if n != 1 else ''} to {args.write_baseline}\n")
    return 2 if report.internal_error else 0
