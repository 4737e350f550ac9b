"""``nccl.conf`` written by ``echo``/``printf`` rather than a here-document, read as nccl.conf lines.

The forms: ``echo NCCL_X=v >> /etc/nccl.conf``, ``printf 'NCCL_X=%s\\n' v > ~/.nccl.conf``, the same
behind ``sudo`` or piped into ``[sudo] tee [-a] …/nccl.conf``; inside a ``bash -c`` string (the shell
evaluator reads those); inside a string handed to a function of the script or to ``ssh``/``pdsh``/
``clush`` (``run_cmd "Add NCCL conf" "echo -e \\"NCCL_IB_TC=$tos\\" >> $conf"``: such helpers run
their argument as a command line, so the string is evaluated the same way, in place); and in a
Dockerfile ``RUN`` (:func:`run_script`). A target counts as for here-documents
(:mod:`netlint.nccl.heredoc`: an nccl.conf name, or the script's ``$NCCL_CONF_FILE``).

The text written is rebuilt the way the command prints it, each character mapped back to where it
was written: ``echo`` joins its arguments with one blank and adds a newline (``-n`` none); ``-e``
interprets backslash escapes (bash(1) "echo"); ``printf`` interprets the escapes of its format and
fills ``%s``/``%b`` from the arguments, reusing the format while arguments remain (bash(1)
"printf"; other conversions are not rebuilt, and such a write is not read). Under ``/bin/sh``
(a Dockerfile ``RUN``) ``echo`` with a backslash or ``-e``/``-E`` differs between shells (dash
interprets escapes and prints ``-e``; bash does not), so the values of such a write are Unknown. The
text is then parsed with NCCL's own rules (:func:`netlint.loaders.nccl_conf.parse_conf`), never as
shell; a value built from something netlint cannot resolve is Unknown.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from netlint.located import Scalar, Span

_REMOTE = ("ssh", "pdsh", "clush")
_CONF_HINT = re.compile(r">\s*\S*(?:nccl\.conf|NCCL_CONF_FILE)", re.I)
_ECHO_ESC = {"n": "\n", "t": "\t", "\\": "\\", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b",
             "f": "\f", "v": "\v"}
_SH_ECHO = "under /bin/sh, echo with -e/-E or a backslash prints differently in dash and bash"


class CharIndex:
    """The text a command writes, each character mapped to characters of the word it came from."""

    def __init__(self, chars: list[tuple[str, Any, int, int]], ambiguous: str | None = None):
        self.chars = chars          # (output character, Word, start, end in the word's text)
        self.text = "".join(c for c, _, _, _ in chars)
        self.ambiguous = ambiguous  # every value Unknown, for this reason

    def span(self, a: int, b: int) -> Span:
        if not self.chars:
            return Span("", 0, 0, 0, 0)
        if b <= a:
            _, w, i, j = self.chars[min(a, len(self.chars) - 1)]
            at = i if a < len(self.chars) else j
            return w.span_of(at, at)
        _, w1, i1, _ = self.chars[a]
        _, w2, _, j2 = self.chars[min(b, len(self.chars)) - 1]
        if w1 is w2:
            return w1.span_of(i1, j2)
        s, e = w1.span_of(i1, i1 + 1), w2.span_of(j2 - 1, j2)
        return Span(s.file, s.line, s.col, e.end_line, e.end_col, s.start, e.end)

    def scalar(self, value: str, a: int, b: int, quoted: bool = False) -> Scalar:
        span = self.span(a, b)
        raw = value
        if b > a and self.chars[a][1] is self.chars[b - 1][1]:
            raw = self.chars[a][1].slice(self.chars[a][2], self.chars[b - 1][3]).raw or value
        return Scalar(value, span, raw, quoted)

    def unknown(self, a: int, b: int) -> str | None:
        if self.ambiguous:
            return self.ambiguous
        for _, w, i, j in self.chars[a:b]:
            part = next((p.unknown for p in w.slice(i, j).parts if p.unknown is not None), None)
            if part is not None:
                return str(part.reason)
        return None


def _name(word: Any) -> str:
    return posixpath.basename(word.value) if isinstance(getattr(word, "value", None), str) else ""


def _escapes(word: Any, start: int, printf: bool) -> list[tuple[str, Any, int, int]]:
    """``word``'s text from ``start`` with backslash escapes interpreted (``\\c`` ends the output:
    an entry ``("", None, -1, -1)`` marks it)."""
    text, out, i = word.text, [], start
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            if n in _ECHO_ESC:
                out.append((_ECHO_ESC[n], word, i, i + 2))
                i += 2
                continue
            if n == "c":
                out.append(("", None, -1, -1))
                return out
            m = re.match(r"0?[0-7]{1,3}" if not printf else r"[0-7]{1,3}", text[i + 1:])
            if m and (printf or n == "0"):
                out.append((chr(int(m.group(0), 8) & 0xFF), word, i, i + 1 + len(m.group(0))))
                i += 1 + len(m.group(0))
                continue
        out.append((c, word, i, i + 1))
        i += 1
    return out


def _plain(word: Any) -> list[tuple[str, Any, int, int]]:
    return [(c, word, i, i + 1) for i, c in enumerate(word.text)]


def _echo(argv: list, posix: bool) -> CharIndex | None:
    args, i, newline, escapes, ambiguous = argv[1:], 0, True, False, None
    while i < len(args) and isinstance(args[i].value, str) and re.fullmatch(r"-[neE]+", args[i].value):
        newline = newline and "n" not in args[i].value
        if re.search("[eE]", args[i].value):   # the last of -e / -E wins
            escapes = args[i].value.rfind("e") > args[i].value.rfind("E")
        if posix and re.search("[eE]", args[i].value):
            ambiguous = _SH_ECHO
        i += 1
    chars: list = []
    for k, w in enumerate(args[i:]):
        if k:
            chars.append((" ", w, 0, 0))
        piece = _escapes(w, 0, False) if escapes else _plain(w)
        if posix and "\\" in w.text:
            ambiguous = _SH_ECHO
        if piece and piece[-1][1] is None:   # \c: nothing more, not even the newline
            return CharIndex(chars + piece[:-1], ambiguous)
        chars += piece
    if newline and args[i:]:
        last = args[-1]
        chars.append(("\n", last, len(last.text), len(last.text)))
    return CharIndex(chars, ambiguous)


def _printf(argv: list) -> CharIndex | None:
    args = argv[1:]
    if args and args[0].value == "--":
        args = args[1:]
    if not args or not isinstance(args[0].value, str) or args[0].value.startswith("-"):
        return None   # `printf -v VAR` writes a variable, not the output
    fmt, rest = args[0], args[1:]
    pieces = _escapes(fmt, 0, True)
    chars: list = []
    while True:
        used = 0
        k = 0
        while k < len(pieces):
            c = pieces[k]
            if c[1] is None:
                return CharIndex(chars)
            if c[0] == "%" and k + 1 < len(pieces) and c[3] - c[2] == 1:
                conv = pieces[k + 1][0]
                if conv == "%":
                    chars.append(c)
                elif conv in "sb":
                    if used < len(rest):
                        w = rest[used]
                        chars += _escapes(w, 0, True) if conv == "b" else _plain(w)
                    used += 1
                else:
                    return None
                k += 2
                continue
            chars.append(c)
            k += 1
        rest = rest[used:]
        if not used or not rest:
            return CharIndex(chars)


def _writer(argv: list, posix: bool) -> CharIndex | None:
    from netlint.nccl.heredoc import _unwrap

    argv = _unwrap(argv)
    if not argv:
        return None
    name = _name(argv[0])
    if name == "echo":
        return _echo(argv, posix)
    if name == "printf":
        return _printf(argv)
    return None


def _piped_into(cmd: Any, prev: Any, text: str | None) -> bool:
    """``prev | cmd`` as written: only blanks and one ``|`` between the two commands."""
    a, b = prev.span, cmd.span
    if text is None or a.file != b.file or not 0 <= a.end <= b.start <= len(text):
        return False
    return re.fullmatch(r"[ \t]*\|&?[ \t]*(?:\\\n[ \t]*)?", text[a.end:b.start]) is not None


def conf_writes(script: Any, text: str | None = None, posix: bool = False, conf_file: str | None = None,
                seen: set | None = None) -> list[tuple]:
    """``(CharIndex, target Word, how, conditional)`` for every echo/printf of ``script`` whose output goes
    to an nccl.conf. ``text``: the file the commands' spans index (to see ``echo … | tee``); ``posix``:
    the script runs under ``/bin/sh``."""
    from netlint.nccl.heredoc import _is_conf_target, _targets

    if conf_file is None:
        word = script.value_of("NCCL_CONF_FILE")
        conf_file = word.value if isinstance(getattr(word, "value", None), str) else None
    out: list[tuple] = []
    seen = set() if seen is None else seen
    prev = None
    for cmd in script.commands:
        body = _writer(cmd.argv, posix)
        target, how = None, None
        if body is not None:
            target = next((w for op, w in cmd.redirects if op in (">", ">>", ">|", "&>")
                           and _is_conf_target(w, conf_file)), None)
            how = _name(_unwrap_name(cmd.argv))
        elif prev is not None and _piped_into(cmd, prev, text):
            tees = [w for w in _targets(cmd.argv, []) if _is_conf_target(w, conf_file)] \
                if _name(_unwrap_name(cmd.argv)) == "tee" else []
            body = _writer(prev.argv, posix) if tees else None
            target, how = (tees[0], "tee") if body is not None else (None, None)
        if body is not None and target is not None:
            key = (cmd.span.file, cmd.span.start, target.text)
            if key not in seen:
                seen.add(key)
                out.append((body, target, how, cmd.conditional))
        if body is None and (cmd.name in script.functions or _name(_unwrap_name(cmd.argv)) in _REMOTE):
            out += _in_strings(cmd, text, posix, conf_file, seen)
        prev = cmd
    return out


def _unwrap_name(argv: list) -> Any:
    from netlint.nccl.heredoc import _unwrap

    rest = _unwrap(argv)
    return rest[0] if rest else argv[0] if argv else None  # a command with no words has no name


def _in_strings(cmd: Any, text: str | None, posix: bool, conf_file: str | None, seen: set) -> list[tuple]:
    """Writes inside a command-line string given to a helper function or a remote shell (one level)."""
    out = []
    for w in cmd.argv[1:]:
        if not _CONF_HINT.search(w.text):
            continue
        inner = string_script(cmd.span.file, list(w.parts))
        for body, target, how, cond in conf_writes(inner, text, posix, conf_file, seen):
            out.append((body, target, how, cond or cmd.conditional))
    return out


def string_script(file: str, segs: list, build_step: bool = False) -> Any:
    """Evaluate text made of shell pieces (each character keeps where it was written) as a script
    of ``file``: nothing runs, no file is sourced. ``build_step``: a Dockerfile ``RUN``, whose
    ``a && b`` runs ``b`` in every image that builds (a failing ``a`` fails the build)."""
    from netlint.shell.evaluator import Evaluator
    from netlint.shell.model import Script
    from netlint.shell.provenance import ProvText
    from netlint.shell.values import _Exit, _Return

    script = Script(file=file)
    ev = Evaluator(script, {}, None)
    ev.build_step = build_step
    try:
        ev.run_text(ProvText.of_segs(segs), file, None, header=False)
    except (_Exit, _Return, RecursionError):
        pass
    return script


def write_envs(file: str, writes: list[tuple], prefix: str = "") -> list[Any]:
    """One ``nccl.conf`` NcclEnv per write of :func:`conf_writes`; ``scope`` names the command and the
    target (``echo > /etc/nccl.conf``), after ``prefix``."""
    from netlint.loaders.nccl_conf import parse_conf

    envs = []
    for body, target, how, conditional in writes:
        env = parse_conf(file, body.text, body, scope=f"{prefix}{how} > {target.text}")
        if conditional:
            for v in env.variables:
                v.flags.append("conditional")
        envs.append(env)
    return envs


def run_stage(scope: str | None) -> str | None:
    """The Dockerfile stage an nccl.conf env written by a ``RUN`` belongs to (``stage x`` of
    ``stage x RUN echo > …``; None for a single-stage file)."""
    if not scope or " RUN " not in f" {scope}":
        return None
    head = f" {scope}".split(" RUN ", 1)[0].strip()
    return head or None


def run_script(file: str, file_text: str, offsets: list[int], start: int) -> Any:
    """A Dockerfile ``RUN`` in shell form, evaluated as ``/bin/sh -c`` would run it: ``offsets[i]`` is
    the file offset of character ``i`` of the instruction (continuations joined), ``start`` the first
    character after ``RUN``. None for the exec form (``RUN ["…"]``) and BuildKit here-documents."""
    from netlint.shell.model import FileText, Seg

    rest = "".join(file_text[o] for o in offsets[start:])
    stripped = rest.lstrip()
    while stripped.startswith("--"):   # RUN --mount=… --network=… cmd
        cut = re.match(r"--\S+\s*", stripped)
        stripped = stripped[cut.end():]
    if not stripped or stripped.startswith(("[", "<<")):
        return None
    begin = start + len(rest) - len(stripped)
    ft = FileText(file, file_text)
    segs: list = []
    for k in range(begin, len(offsets)):
        o = offsets[k]
        last = segs[-1] if segs else None
        if last is not None and last.oend == o:
            segs[-1] = Seg(last.text + file_text[o], ft, last.ostart, o + 1)
        else:
            segs.append(Seg(file_text[o], ft, o, o + 1))
    return string_script(file, segs, build_step=True)
