"""Policies described like built-in rules: for SARIF's rule descriptors, ``netlint rules`` and
``netlint rule CODE``. A policy is no class in the rule registry; what it says about itself
(``summary``, ``docs``, ``tags``, ``severity``, its file) comes from the policy file."""

from __future__ import annotations

from pathlib import Path

MAX_DESCRIPTION = 1024  # GitHub code scanning: shortDescription / fullDescription text
MAX_TAGS = 20


def enabled(start: Path | None = None) -> list[dict]:
    """The policies the netlint config in or above ``start`` (default: the current directory)
    enables, described (:func:`netlint.policy.files.describe` plus ``code``), in load order. A
    policy that does not load is left out: ``netlint check`` reports it (NL03x)."""
    from netlint.config import load_config

    config, problems = load_config(None, start or Path.cwd())
    if problems or not config.settings.policies:
        return []
    from netlint.discovery import display_path
    from netlint.policy.files import describe
    from netlint.policy.overrides import configured_policies, duplicated

    compiled, _ = configured_policies(config, lambda path: display_path(path, config.root))
    compiled, _ = duplicated(compiled)
    return [{"code": p.code, **describe(p), "duplicates": p.duplicates} for p in compiled]


def name(meta: dict) -> str:
    """A rule name for a policy: its summary in kebab case, as built-in names are."""
    import re

    return re.sub(r"[^a-z0-9]+", "-", meta["summary"].lower()).strip("-")[:60] or meta["code"].lower()


def docs_text(meta: dict) -> str:
    """``netlint rule CODE``'s text for a policy."""
    lines = [f"# {meta['code']} {name(meta)}", "",
             f"Default severity: {meta['severity']}. {meta['summary'].rstrip('.')}.", ""]
    if meta.get("docs"):
        lines += [meta["docs"].strip(), ""]
    if meta.get("tags"):
        lines.append(f"Tags: {', '.join(meta['tags'])}")
    lines.append(f"Policy: {meta['source']}")
    if meta.get("duplicates"):
        lines.append(f"Not reported where {', '.join(meta['duplicates'])} is enabled (duplicates).")
    return "\n".join(lines)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split()) or "-"
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def sarif_descriptor(code: str, meta: dict, levels: dict) -> dict:
    """A SARIF ``reportingDescriptor`` for a policy, from what the policy file says."""
    severity = meta.get("severity") or "error"
    summary = meta.get("summary") or code
    docs = (meta.get("docs") or "").strip()
    tags = list(dict.fromkeys(t for t in ("netlint", "policy", *meta.get("tags", ())) if t))[:MAX_TAGS]
    source = meta.get("source") or meta.get("file")
    markdown = f"**{code} {name({**meta, 'code': code})}**: {summary}\n\n{docs}".rstrip() + f"\n\nPolicy: {source}"
    return {
        "id": code,
        "name": name({**meta, "code": code}),
        "shortDescription": {"text": _clip(summary, MAX_DESCRIPTION)},
        "fullDescription": {"text": _clip(docs or summary, MAX_DESCRIPTION)},
        "help": {"text": f"{summary}\n\n{docs}".strip() + f"\n\nPolicy: {source}",
                 "markdown": markdown},
        "defaultConfiguration": {"level": levels.get(severity, "warning")},
        "properties": {"tags": tags, "precision": "high",
                       "problem.severity": "recommendation" if severity == "info" else severity},
    }
