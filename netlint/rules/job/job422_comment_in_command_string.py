from __future__ import annotations

import re

from netlint.findings import Related, Severity
from netlint.rules.base import Rule
from netlint.rules.job.common import jobs, key

_PLACEHOLDER = re.compile(r"__netlint_unknown_\d+__")


class CommentInCommandString(Rule):
    """A ``#`` inside an options string that ``eval`` or ``bash -c`` reads again cuts the launch.

    **What**: an options variable whose text holds a `` #`` at the start of a word (``opts="--lr 1e-4
    # peak"``) is expanded into a string that ``eval`` / ``bash -c`` parses again, where that ``#``
    starts a comment. Everything after it on that line — often most of the launch's arguments — is
    never passed to the program.

    **Why**: bash recognises comments when it reads a command, not inside an expanded value; ``eval``
    and ``bash -c`` read their string as a new command, so a ``#`` that was plain text becomes a
    comment there (bash(1), "COMMENTS": "a word beginning with # causes that word and all remaining
    characters on that line to be ignored"; "eval [arg ...]: The args are read and concatenated
    together into a single command"). The job starts without the dropped options and no tool
    complains.

    **Bad**: ``opts="--lr 1e-4 # peak
    --deepspeed_config ds.json"; run="deepspeed train.py $opts"; eval $run`` (unquoted ``$opts``
    joins the lines: ``--deepspeed_config`` is dropped).

    **Good**: keep comments out of options strings (use a bash array and ``"${opts[@]}"``).

    **Fix**: none offered: where the comment should end is the author's call.

    **Source**: GNU Bash Reference Manual, 3.1.3 Comments and 4.1 Bourne Shell Builtins (``eval``).
    """

    code = "JOB422"
    name = "comment-in-command-string"
    severity = Severity.ERROR
    summary = "A # in an eval'd / bash -c options string turns the rest of the launch into a comment"

    def check(self, ws):
        for job in jobs(ws):
            if job.script is None or job.launch is None:
                continue
            at = job.launch.span
            for cut in job.script.comment_cuts:
                if (cut.at.file, cut.at.start, cut.at.end) != (at.file, at.start, at.end):
                    continue
                dropped = _PLACEHOLDER.sub("…", cut.dropped)
                options = [w for w in dropped.split() if w.startswith("-")]
                if not options:
                    continue  # only comment words were lost
                shown = " ".join(options[:4]) + (" …" if len(options) > 4 else "")
                yield self.finding(
                    f"this `#` starts a comment when the launch string is read again (eval / bash -c): "
                    f"{len(options)} option(s) after it never reach the program ({shown})",
                    cut.span, key=key(job, f"comment-cut:{cut.span.line}:{cut.span.col}"),
                    related=[Related(at, "the string is read again here")])
