"""NL020-NL029: findings about inline suppressions (``# netlint: disable=...``). The engine emits
them (netlint/suppress.py); these classes carry their docs."""

from netlint.findings import Severity
from netlint.rules.nl.engine_findings import _EngineRule


class _SuppressionRule(_EngineRule):
    tags = ("suppression",)


class UnusedSuppression(_SuppressionRule):
    """An inline suppression, or one code of it, suppressed nothing: the finding it was written for is
    gone (fixed, moved to another line, or the rule no longer fires there). A stale suppression hides
    the next real finding of that rule on the line, so it is reported, as ruff's RUF100 does. Codes of
    rules that are switched off (`select`, `ignore`, `per-file-ignores`, `severity: off`) are not
    reported.

    Bad: `pfc: {priorities: [3, 4]}  # netlint: disable=QOS104 -- lab` on a line with no QOS104 finding.
    Good: the same line without the comment.

    Fix (safe): delete the comment, or remove the unused codes from it."""

    code, name, summary = "NL020", "unused-suppression", "Inline suppression that suppressed nothing"
    severity = Severity.WARNING


class SuppressionWithoutReason(_SuppressionRule):
    """The configuration sets `require-suppression-reason: true` and this inline suppression gives no
    reason. It suppresses nothing until one is added after `--`, so the finding it was meant for is
    still reported. A reason tells the next reader why the finding is acceptable here.

    Bad: `# netlint: disable=NCCL314`. Good: `# netlint: disable=NCCL314 -- debug build, see INC-2231`."""

    code, name, summary = "NL021", "suppression-without-reason", "Inline suppression without the required reason"


class InvalidSuppression(_SuppressionRule):
    """A `# netlint:` comment that cannot be used. It suppresses nothing. The causes:

    - an unknown directive (only `disable=` and `disable-file=` exist), or no rule codes;
    - a code of a netlint family (NL, QOS, NCCL, ...) that matches no rule, i.e. a typo (codes of
      other families, such as an organisation's policy rules, are taken on trust);
    - a `disable=` comment followed by a blank line: it covers nothing;
    - a trailing directive in `nccl.conf`: NCCL reads everything after `=` as the value, comments
      included, so the directive must sit on a line of its own.

    Bad: `# netlint: disable-line=QOS101`. Good: `# netlint: disable=QOS101 -- reason`."""

    code, name, summary = "NL022", "invalid-suppression", "Inline suppression that cannot be read"
    severity = Severity.WARNING
