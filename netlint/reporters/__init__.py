"""Reporters only format findings. Each module exposes ``render(report, options) -> str``."""

from __future__ import annotations

import importlib

FORMATS = ("text", "json", "sarif", "github")


def render(fmt: str, report, options) -> str:
    module = importlib.import_module(f"netlint.reporters.{fmt}")
    return module.render(report, options)
