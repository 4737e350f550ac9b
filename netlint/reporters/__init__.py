"""Reporters only format findings. Each module exposes ``render(report, options) -> str``."""

from __future__ import annotations

import importlib
import os
from pathlib import Path

FORMATS = ("text", "json", "sarif", "github")


def render(fmt: str, report, options) -> str:
    module = importlib.import_module(f"netlint.reporters.{fmt}")
    return module.render(report, options)


def repo_root(report) -> Path:
    """Where paths for GitHub (annotations, code scanning) are relative to: ``GITHUB_WORKSPACE`` when
    it holds the project, else the git work tree around the project root, else the project root.

    Spans hold paths relative to the netlint configuration's folder, which need not be the
    repository's root (``examples/netlint.yaml``); GitHub, SARIF and ``--diff`` headers use
    repository-relative paths (netlint.display)."""
    root = report.config.root
    ws = os.environ.get("GITHUB_WORKSPACE")
    if ws:
        top = Path(ws).resolve()
        if top == root or top in root.parents:
            return top
    for d in (root, *root.parents):
        if (d / ".git").exists():
            return d
    return root


def absolute(report, file: str) -> Path:
    """The file a span path names (netlint.display.absolute)."""
    from netlint.display import absolute as absolute_path

    return absolute_path(report.config.root, file)


def repo_path(report, file: str, top: Path | None = None) -> str | None:
    """``file`` relative to :func:`repo_root` (POSIX), or None when it lies outside."""
    top = top or repo_root(report)
    try:
        return absolute(report, file).relative_to(top).as_posix()
    except ValueError:
        return None


def cwd_path(report, file: str) -> str:
    """``file`` as a person reads it: relative to the current directory when below it, else absolute
    (netlint.display)."""
    from netlint.display import shown

    return shown(report.config.root, file)
