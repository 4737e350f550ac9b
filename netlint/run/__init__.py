"""Run evidence (issue 18): reading what a run printed and judging it against the repo's intent.

- :mod:`netlint.run.lines` — the line walk, launcher prefixes, NCCL's line prefix;
- :mod:`netlint.run.nccl_log` — NCCL INFO/WARN/TRACE lines → :class:`netlint.models.run.NcclRun`;
- :mod:`netlint.run.nccl_tests` — nccl-tests output → :class:`netlint.models.run.TestsRun`;
- :mod:`netlint.run.intent` — which env applies to a log, what NCCL prints when it reads a variable;
- :mod:`netlint.run.expect` — the bus bandwidth the fabric model expects (the one place it is asked);
- :mod:`netlint.run.measure` — measured beside expected, saturation.
"""
