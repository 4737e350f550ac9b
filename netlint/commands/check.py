"""``netlint check [PATH...]``: lint an infra repo and report findings."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def add_parser(sub) -> None:
    p = sub.add_parser("check", help="lint files and directories (default: .)")
    p.add_argument("paths", nargs="*", type=Path, help="files or directories (default: .)")
    p.add_argument("--format", choices=("text", "json", "sarif", "github"), default=None,
                   help="output format (default: text; github when GITHUB_ACTIONS=true)")
    p.add_argument("--output-file", "-o", type=Path, help="write the report to this file")
    p.add_argument("--select", help="comma-separated rule codes or prefixes to enable")
    p.add_argument("--ignore", help="comma-separated rule codes or prefixes to disable")
    p.add_argument("--config", type=Path, help="configuration file (default: found upward)")
    p.add_argument("--inventory", type=Path, help="cluster inventory file")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings are reported")
    p.add_argument("--fail-on", choices=("error", "warning", "info"),
                   help="lowest severity that makes the exit code 1 (default: warning)")
    p.add_argument("--statistics", action="store_true", help="show a count per rule")
    p.add_argument("--quiet", "-q", action="store_true", help="print nothing; only the exit code")
    p.add_argument("--jobs", type=int, default=None, help="worker processes for loading (default: 1)")
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
    p.add_argument("--sarif-file", type=Path, metavar="FILE",
                   help="also write a SARIF report to FILE, whatever --format is")
    p.add_argument("--sarif-include-suppressed", action="store_true",
                   help="keep suppressed findings in SARIF (GitHub code scanning would open alerts for them)")
    p.add_argument("--fix", action="store_true", help="apply safe fixes (see docs/fixes.md)")
    p.add_argument("--unsafe-fixes", action="store_true",
                   help="with --fix/--diff/--fix-only: also apply fixes that change the run or the fabric")
    p.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; write nothing")
    p.add_argument("--fix-only", action="store_true", help="apply fixes; do not report remaining findings")


def run(args) -> int:
    from netlint.config import parse_codes
    from netlint.engine import Options, lint
    from netlint.findings import Severity

    opts = Options(paths=args.paths or [Path(".")], config_file=args.config, inventory=args.inventory,
                   select=parse_codes(args.select) or None, ignore=parse_codes(args.ignore) or None,
                   jobs=args.jobs, inline_suppressions=not args.no_inline_suppressions,
                   baseline=args.baseline, force_exclude=args.force_exclude, show_files=args.show_files)
    from netlint.safe_read import exists

    missing = [p for p in opts.paths if not exists(p)]
    if missing:
        sys.stderr.write(f"netlint: error: no such file or directory: {missing[0]}\n")
        return 2
    try:
        report = lint(opts)
    except Exception as exc:  # never a partial report: what failed outside any one file or rule
        report = failed_report(opts, exc)
    _internal_errors_to_stderr(report, getattr(args, "verbose", False))
    if report.config_errors:
        for f in report.config_errors:
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
    fmt = args.format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    if fix_run is not None and (args.diff or args.fix_only):
        if not args.quiet:
            sys.stdout.write(fix_run.diff() if args.diff else "")
            (sys.stderr if args.diff else sys.stdout).write(fixcli.summary(fix_run, args) + "\n")
        return code
    if not args.quiet:
        out = _render(fmt, report, args)
        if fix_run is not None:
            if fmt == "text" and not args.output_file:
                out += fixcli.summary(fix_run, args) + "\n"
            else:
                sys.stderr.write(fixcli.summary(fix_run, args) + "\n")
        if args.output_file:
            args.output_file.write_text(out, encoding="utf-8")
        else:
            sys.stdout.write(out)
    if args.sarif_file is not None:
        args.sarif_file.write_text(_render("sarif", report, args), encoding="utf-8")
    return code


def failed_report(opts, exc: BaseException):
    """A report holding one NL000 when the run failed outside every per-file and per-rule guard, so
    every output format is still complete and the exit code is 2."""
    from netlint.config import Config
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
        sys.stderr.write(f"netlint: {f.span.file}:{f.span.line}:{f.span.col}: {f.message}\n")
        tb = f.extra.get("traceback")
        if verbose and tb:
            sys.stderr.write(tb if tb.endswith("\n") else tb + "\n")
    if not verbose and any(f.code == "NL000" and f.extra.get("traceback") for f in report.findings):
        sys.stderr.write("netlint: this is a netlint bug; run with --verbose for the traceback and "
                         "report it with the file that triggered it\n")


def _show_files(args, report) -> int:
    """``--show-files``: one line per file, ``path: format[, format]`` or ``path: skipped: why`` (like
    ruff's ``--show-files``, which lists what would be checked; exits 0 whatever the findings)."""
    rows = report.shown or []
    out = "".join(f"{path}: {what}\n" for path, what in rows)
    if args.output_file:
        args.output_file.write_text(out, encoding="utf-8")
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
    n = write(args.write_baseline, report.findings, previous, report.workspace.targets)
    if not args.quiet:
        sys.stderr.write(f"netlint: wrote {n} finding{'s' if n != 1 else ''} to {args.write_baseline}\n")
    return 2 if report.internal_error else 0
