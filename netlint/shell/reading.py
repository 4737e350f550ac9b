"""Reading script text for the bash evaluator: tree-sitter's parse with line-by-line error recovery,
syntax errors confirmed by ``bash -n`` (:mod:`netlint.shell.syntax`), and comments that only appear
when a run-time string is read again.

A mixin of :class:`netlint.shell.evaluator.Evaluator`."""

from __future__ import annotations

import re

from pathlib import Path

from netlint.located import Span
from netlint.shell.model import CommentCut, ShellError
from netlint.shell.provenance import ProvText
from netlint.shell.values import MAX_RECOVERY, Frame, _parser, _short


_PLACEHOLDER = re.compile(r"__netlint_unknown_\d+__")


class Reading:
    def _parse(self, pt: ProvText, path: str, abspath: Path | None):
        parser = _parser()
        pt = pt.escaped_blank_hash().base10_arithmetic().bare_heredocs_blanked()
        original = pt
        skipped: list[tuple[int, Span, str, str]] = []   # (line start, span, what, line text)
        for _ in range(MAX_RECOVERY):
            frame = Frame(pt, path, abspath)
            tree = parser.parse(frame.data)
            bad = _first_error(tree.root_node)
            if bad is None:
                break
            a, _ = frame.rng(bad)
            line_start = pt.text.rfind("\n", 0, a) + 1
            line_end = pt.text.find("\n", a)
            line_end = len(pt.text) if line_end < 0 else line_end
            if line_end <= line_start:
                line_end = min(len(pt.text), line_start + 1)
            line_text = pt.text[line_start:line_end].strip()
            if not line_text:
                break
            what = "unexpected text" if bad.type == "ERROR" else f"missing {bad.type!r}"
            span = pt.span(a, max(a + 1, frame.c(bad.end_byte)) if bad.type == "ERROR" else a + 1)
            skipped.append((line_start, span, what, line_text))
            pt = pt.blanked(line_start, line_end)
        else:
            frame = Frame(pt, path, abspath)
            tree = parser.parse(frame.data)
        if skipped:
            self._report_skipped(original, skipped)
        return tree, frame

    def _comment_cuts(self, root, f: Frame) -> None:
        """A ``#`` that reached an ``eval`` / ``bash -c`` string through a variable starts a comment
        when that string is read again: the rest of the line is dropped (``"--x \\  # note"`` in an
        options string that is later ``eval``'d)."""
        stack = [root]
        while stack:
            n = stack.pop()
            if n.type != "comment":
                stack.extend(n.children)
                continue
            a, b = f.rng(n)
            hash_at = f.pt.span(a, a + 1)
            at = self.nested_span
            if at is None or hash_at.line <= 0 or (hash_at.file == at.file and at.start <= hash_at.start < at.end):
                continue  # written in the string itself: the author's own comment
            self.script.comment_cuts.append(CommentCut(hash_at, at, f.pt.text[a + 1:b].strip()))

    def _report_skipped_in_string(self, pt: ProvText, skipped, verdict) -> None:
        """NL012 (info) on a command string built at run time (``bash -c "…"``): netlint's reading of
        it (its escapes, pieces only the run knows, read as plain words) is not bash's own."""
        if verdict:
            # bash rejects the string too: one finding with bash's reason (an inner `"` that closes the
            # string early leaves bash an unfinished script) instead of one per line
            line, msg = verdict[0]
            unknown = " with the run's values unknown" if "__netlint_unknown_" in pt.text else ""
            self.script.errors.append(ShellError(
                f"the command string built at run time does not read as bash{unknown} (bash: {msg}, on its "
                f"line {line}): if that is what the run builds, the command that runs it fails; netlint "
                f"skipped it", self.nested_span or skipped[0][1], "unread"))
            return
        for _, span, what, line_text in skipped:
            shown = _PLACEHOLDER.sub("…", line_text)  # pieces only the run knows, as netlint writes them
            if what == "missing 'word'" and ("<" in shown or ">" in shown):
                what = "a `<` or `>` with no file after it, as a `<PLACEHOLDER>` left in the text reads"
            self.script.errors.append(ShellError(
                f"netlint could not read `{_short(shown)}` in a command string built at run "
                f"time ({what}); that part was skipped", span, "unread"))

    def _report_skipped(self, pt: ProvText, skipped) -> None:
        """NL003 where bash rejects the line too; NL012 (info) where only tree-sitter failed."""
        from netlint.shell.syntax import bash_rejects

        whole_file = pt.ft is not None and not self.nested
        verdict = bash_rejects(pt.text)
        if not whole_file:
            self._report_skipped_in_string(pt, skipped, verdict)
            return
        if verdict is None:  # no bash to ask: tree-sitter's view stands
            for _, span, what, line_text in skipped:
                self.script.errors.append(ShellError(
                    f"bash syntax error ({what}) in `{_short(line_text)}`; this line was skipped", span))
            return
        from netlint.shell.syntax import MAX_ERRORS

        rejected = dict(verdict)
        # bash is asked about one error at a time, MAX_ERRORS times: lines past the last it named were
        # never asked about (a log pasted into a .sh)
        asked_to = verdict[-1][0] if len(verdict) >= MAX_ERRORS else None
        ts_lines = {span.line: (span, line_text) for _, span, _, line_text in skipped}
        for line, msg in verdict:
            span, line_text = ts_lines.get(line, (None, None))
            if span is None:
                start = pt.ft.line_offset(line)
                end = pt.text.find("\n", start)
                end = len(pt.text) if end < 0 else end
                span, line_text = pt.span(start, end), pt.text[start:end].strip()
            self.script.errors.append(ShellError(
                f"bash: {msg} in `{_short(line_text)}`", _at_token(pt, line, msg, span)))
        for _, span, what, line_text in skipped:
            if span.line in rejected:
                continue
            if asked_to is not None and span.line > asked_to:
                self.script.errors.append(ShellError(
                    f"netlint's bash reader could not read `{_short(line_text)}` ({what}): this line was "
                    f"skipped", span, "unread"))
                continue
            self.script.errors.append(ShellError(
                f"netlint's bash reader could not read `{_short(line_text)}` ({what}; bash accepts "
                f"it): this line was skipped", span, "unread"))
        if asked_to is not None and asked_to < pt.text.count("\n") + 1:
            start = pt.ft.line_offset(asked_to + 1)  # the first line bash was not asked about
            end = pt.text.find("\n", start)
            self.script.errors.append(ShellError(
                f"bash's syntax errors are listed up to line {asked_to} ({MAX_ERRORS} of them); from here on "
                f"lines were not checked with bash and may hold more", pt.span(start, len(pt.text) if end < 0 else end),
                "unread"))


def _first_error(root):
    """The first ERROR/MISSING node, or a redirection whose target is on a later line (bash
    rejects `cmd >` + newline; tree-sitter quietly takes the next line as the target)."""
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            return n
        if n.type == "file_redirect":
            op = next((c for c in n.children if not c.is_named), None)
            dest = n.child_by_field_name("destination")
            if op is not None and dest is not None and dest.start_point[0] != op.end_point[0] \
                    and not _continued(n, op, dest):
                return op
        if n.has_error or n.type in ("program", "redirected_statement", "declaration_command",
                                     "command", "list", "pipeline", "compound_statement",
                                     "if_statement", "do_group", "for_statement", "while_statement",
                                     "function_definition", "subshell", "case_statement",
                                     "case_item", "else_clause", "elif_clause"):
            stack.extend(reversed(n.children))
    return None


def _continued(redirect, op, dest) -> bool:
    """Only blanks and backslash-newlines between a redirection and its target: bash reads the
    target from the next line (`--image <path to docker image> \\` + newline + `--next`)."""
    gap = redirect.text[op.end_byte - redirect.start_byte:dest.start_byte - redirect.start_byte]
    return gap.replace(b"\\\n", b"").strip(b" \t") == b""


_TOKEN = re.compile(r"near unexpected token `(.+?)'")


def _at_token(pt, line: int, msg: str, span):
    """The token bash names (``syntax error near unexpected token `('``) on its line, else ``span``."""
    m = _TOKEN.search(msg)
    if m is None or pt.ft is None:
        return span
    start = pt.ft.line_offset(line)
    end = pt.text.find("\n", start)
    end = len(pt.text) if end < 0 else end
    from_col = span.start if span is not None and span.line == line and span.start is not None else start
    at = pt.text.find(m.group(1), max(from_col, start), end)
    if at < 0:
        at = pt.text.find(m.group(1), start, end)
    return pt.span(at, at + len(m.group(1))) if at >= 0 else span
