"""A small abstract evaluator for bash over tree-sitter-bash's syntax tree.

Not a shell: it runs nothing. It follows assignments, expansions, arrays, arithmetic, ``if``/``case``
whose conditions it can decide, ``source``, ``bash -c`` strings and ``sbatch`` here-docs, and records
every command with its argv. Whatever needs a real run (``$(…)``, variables only the environment sets,
loops, undecidable branches) becomes an :class:`~netlint.shell.model.Unknown`.
tree-sitter is imported lazily, on the first parse.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from pathlib import Path
from typing import Any, Callable

from netlint.located import Span
from netlint.shell.model import (Assignment, Command, FileText, HereDoc, Note, Script, Seg,
                                 ShellError, Unknown, Word)
from netlint.shell.provenance import ProvText
from netlint.shell.sbatch import parse_sbatch_header

_PARSER: list[Any] = []
MAX_DEPTH = 8          # nested source / bash -c / function-call depth
MAX_RECOVERY = 40      # syntax-error lines blanked before giving up
MAX_SOURCE_BYTES = 1_000_000
BREAK = object()       # field boundary between array elements ("${A[@]}")
SHELLS = {"bash", "sh", "zsh", "dash", "ksh"}
DECLARE = {"export", "declare", "typeset", "local", "readonly"}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_INT = re.compile(r"[+-]?\d+\Z")


def _parser():
    if not _PARSER:
        import tree_sitter_bash
        from tree_sitter import Language, Parser

        _PARSER.append(Parser(Language(tree_sitter_bash.language())))
    return _PARSER[0]


class _Exit(Exception):
    pass


class _Return(Exception):
    pass


class Var:
    """A variable's value: ``segs`` (scalar) or ``elems`` (array); ``word`` where it was assigned."""

    __slots__ = ("segs", "elems", "exported", "assigned_at")

    def __init__(self, segs=None, elems=None, exported=False, assigned_at: Span | None = None):
        self.segs = segs
        self.elems = elems
        self.exported = exported
        self.assigned_at = assigned_at

    @property
    def is_array(self) -> bool:
        return self.elems is not None

    def text(self) -> str | None:
        parts = self.segs if self.elems is None else [s for e in self.elems for s in e]
        if any(s.unknown is not None for s in parts):
            return None
        if self.elems is not None:
            return " ".join("".join(s.text for s in e) for e in self.elems)
        return "".join(s.text for s in parts)

    def with_export(self, exported: bool) -> "Var":
        return Var(self.segs, self.elems, exported, self.assigned_at)


def _unknown_var(u: Unknown, exported=False) -> Var:
    return Var([Seg("", None, 0, 0, False, u.span, False, u)], None, exported, u.span)


class Frame:
    """Per-text parse state: the provenance text, byte→char map, file paths."""

    def __init__(self, pt: ProvText, path: str, abspath: Path | None):
        self.pt = pt
        self.path = path            # display path of the file this text belongs to
        self.abspath = abspath      # on-disk path (None for synthetic text)
        data = pt.text.encode("utf-8")
        self.data = data
        if len(data) == len(pt.text):
            self.b2c = None
        else:
            b2c = [0] * (len(data) + 1)
            bi = 0
            for ci, ch in enumerate(pt.text):
                n = len(ch.encode("utf-8"))
                for k in range(n):
                    b2c[bi + k] = ci
                bi += n
            b2c[bi] = len(pt.text)
            self.b2c = b2c

    def c(self, byte: int) -> int:
        return byte if self.b2c is None else self.b2c[byte]

    def rng(self, node) -> tuple[int, int]:
        return self.c(node.start_byte), self.c(node.end_byte)

    def text(self, node) -> str:
        a, b = self.rng(node)
        return self.pt.text[a:b]

    def span(self, node) -> Span:
        a, b = self.rng(node)
        return self.pt.span(a, b)


class Evaluator:
    def __init__(self, script: Script, env: dict[str, Var], read: Callable[[str, Path], Any] | None):
        self.script = script
        self.env = env
        self.read = read
        self.functions: dict[str, tuple[Any, Frame]] = {}
        self.cond = 0           # > 0 inside undecided branches / loop bodies
        self.depth = 0
        self.parent: Command | None = None
        self.nested = False
        self.nested_span: Span | None = None
        self.source_stack: list[str] = []

    # ---------------------------------------------------------------------------------- parsing
    def run_text(self, pt: ProvText, path: str, abspath: Path | None, header: bool = True) -> None:
        tree, frame = self._parse(pt, path, abspath)
        if header:
            for key, value in parse_sbatch_header(frame.pt).items():
                self.script.sbatch.setdefault(key, value)
        self._block(tree.root_node.children, frame)

    def _parse(self, pt: ProvText, path: str, abspath: Path | None):
        parser = _parser()
        for _ in range(MAX_RECOVERY):
            frame = Frame(pt, path, abspath)
            tree = parser.parse(frame.data)
            bad = _first_error(tree.root_node)
            if bad is None:
                return tree, frame
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
            self.script.errors.append(ShellError(
                f"bash syntax error ({what}) in `{_short(line_text)}`; this line was skipped",
                pt.span(a, max(a + 1, frame.c(bad.end_byte)) if bad.type == "ERROR" else a + 1)))
            pt = pt.blanked(line_start, line_end)
        frame = Frame(pt, path, abspath)
        return parser.parse(frame.data), frame

    # ------------------------------------------------------------------------------- statements
    def _block(self, nodes, f: Frame) -> None:
        for n in nodes:
            self._stmt(n, f)

    def _stmt(self, n, f: Frame, redirects=None) -> None:
        t = n.type
        if t in ("comment", ";", "&", ";;", "\n", "{", "}", "(", ")", "do", "done", "then", "fi"):
            return
        if t == "command":
            self._command(n, f, redirects or [])
        elif t == "variable_assignment":
            self._assign(n, f)
        elif t == "variable_assignments":
            for c in n.named_children:
                if c.type == "variable_assignment":
                    self._assign(c, f)
        elif t == "declaration_command":
            self._declare(n, f)
        elif t == "unset_command":
            for c in n.named_children:
                if c.type in ("variable_name", "word"):
                    self.env.pop(f.text(c), None)
        elif t == "redirected_statement":
            self._redirected(n, f)
        elif t in ("program", "compound_statement", "do_group"):
            self._block(n.children, f)
        elif t == "subshell":
            saved = dict(self.env)
            try:
                self._block(n.children, f)
            except _Exit:
                pass
            self.env = saved
        elif t == "list":
            self._list(n, f)
        elif t == "pipeline":
            for c in n.named_children:
                self._stmt(c, f)
        elif t == "negated_command":
            for c in n.named_children:
                self._stmt(c, f)
        elif t == "if_statement":
            self._if(n, f)
        elif t == "case_statement":
            self._case(n, f)
        elif t in ("for_statement", "c_style_for_statement", "while_statement", "until_statement"):
            self._loop(n, f)
        elif t == "function_definition":
            name = n.child_by_field_name("name")
            body = n.child_by_field_name("body")
            if name is not None and body is not None:
                self.functions[f.text(name)] = (body, f)
        elif t == "test_command":
            self._test(n, f)
        # anything else (arithmetic `(( ))` statements, ERROR remnants) has no effect we model

    def _list(self, n, f: Frame) -> None:
        kids = [c for c in n.children if c.type != "comment"]
        if len(kids) != 3 or kids[1].type not in ("&&", "||"):
            for c in n.named_children:
                self._stmt(c, f)
            return
        left, op, right = kids
        r = self._condition(left, f)
        if r is None:
            self._fork([lambda: self._stmt(right, f), lambda: None])
        elif (r and op.type == "&&") or (not r and op.type == "||"):
            self._stmt(right, f)

    def _condition(self, n, f: Frame) -> bool | None:
        """Evaluate a condition; True/False when decided, None when not (commands run for record)."""
        t = n.type
        if t == "test_command":
            return self._test(n, f)
        if t == "list":
            kids = [c for c in n.children if c.type != "comment"]
            if len(kids) == 3 and kids[1].type in ("&&", "||"):
                a = self._condition(kids[0], f)
                if kids[1].type == "&&":
                    if a is False:
                        return False
                    b = self._condition(kids[2], f)
                    return b if a is True else (False if b is False else None)
                if a is True:
                    return True
                b = self._condition(kids[2], f)
                return b if a is False else (True if b is True else None)
        if t == "negated_command":
            inner = n.named_children[-1] if n.named_children else None
            r = self._condition(inner, f) if inner is not None else None
            return None if r is None else not r
        if t == "command":
            name = n.child_by_field_name("name")
            if name is not None and f.text(name) in ("true", ":"):
                return True
            if name is not None and f.text(name) == "false":
                return False
        self._stmt(n, f)
        return None

    def _test(self, n, f: Frame) -> bool | None:
        exprs = [c for c in n.named_children if c.type != "comment"]
        if len(exprs) != 1:
            return None
        return self._texpr(exprs[0], f)

    def _texpr(self, n, f: Frame) -> bool | None:
        t = n.type
        if t == "parenthesized_expression":
            inner = [c for c in n.named_children]
            return self._texpr(inner[0], f) if len(inner) == 1 else None
        if t == "unary_expression":
            op = n.child_by_field_name("operator")
            kids = [c for c in n.named_children if c != op and c.type != "test_operator"]
            opt = f.text(op) if op is not None else (n.children[0].type if n.children else "")
            if opt == "!" and kids:
                r = self._texpr(kids[-1], f)
                return None if r is None else not r
            if not kids:
                return None
            val = self._scalar_text(kids[-1], f)
            if opt == "-z":
                return None if val is None else val == ""
            if opt == "-n":
                return None if val is None else val != ""
            return None  # file tests and the like need the machine
        if t == "binary_expression":
            left = n.child_by_field_name("left")
            right = n.child_by_field_name("right")
            op = n.child_by_field_name("operator")
            if op is None or left is None or right is None:
                return None
            o = f.text(op)
            if o in ("&&", "-a", "||", "-o"):
                a, b = self._texpr(left, f), self._texpr(right, f)
                if o in ("&&", "-a"):
                    return False if False in (a, b) else (True if a and b else None)
                return True if True in (a, b) else (False if a is False and b is False else None)
            lv, rv = self._scalar_text(left, f), self._scalar_text(right, f)
            if lv is None or rv is None:
                return None
            if o in ("==", "="):
                return fnmatch.fnmatchcase(lv, rv) if n.parent is not None and _in_double_bracket(n) \
                    and not _is_quoted(right) else lv == rv
            if o == "!=":
                return lv != rv
            if o in ("-eq", "-ne", "-gt", "-ge", "-lt", "-le"):
                if not (_INT.match(lv.strip()) and _INT.match(rv.strip())):
                    return None
                a, b = int(lv), int(rv)
                return {"-eq": a == b, "-ne": a != b, "-gt": a > b, "-ge": a >= b,
                        "-lt": a < b, "-le": a <= b}[o]
            return None
        val = self._scalar_text(n, f)
        if val is None:
            return None
        return val != ""

    def _scalar_text(self, n, f: Frame) -> str | None:
        segs = self._join(self._expand(n, f, quoted=True))
        if any(s.unknown is not None for s in segs):
            return None
        return "".join(s.text for s in segs)

    # ---------------------------------------------------------------------------- control flow
    def _fork(self, branches: list[Callable[[], None]], kind: str = "branch") -> None:
        """Run each branch on its own copy of the environment, then merge what survives."""
        base = self.env
        results = []
        self.cond += 1
        try:
            for br in branches:
                self.env = dict(base)
                try:
                    br()
                    results.append(self.env)
                except _Exit:
                    pass
        finally:
            self.cond -= 1
        self.env = _merge(base, results, kind) if results else dict(base)
        if not results:
            raise _Exit()

    def _if(self, n, f: Frame) -> None:
        clauses = []  # (condition node or None for else, [body nodes])
        cond, body = None, []
        mode = "cond"
        for c in n.children:
            t = c.type
            if t in ("if", "fi", ";", "\n"):
                continue
            if t == "then":
                mode = "body"
                continue
            if t == "elif_clause":
                clauses.append((cond, body))
                ec, eb, m = None, [], "cond"
                for d in c.children:
                    if d.type in ("elif", ";"):
                        continue
                    if d.type == "then":
                        m = "body"
                        continue
                    if m == "cond" and ec is None and d.type != "comment":
                        ec = d
                    elif m == "body":
                        eb.append(d)
                cond, body = ec, eb
                continue
            if t == "else_clause":
                clauses.append((cond, body))
                cond, body = "else", [d for d in c.children if d.type != "else"]
                continue
            if mode == "cond":
                if cond is None and t != "comment":
                    cond = c
            else:
                body.append(c)
        clauses.append((cond, body))
        self._clauses(clauses, f)

    def _clauses(self, clauses, f: Frame) -> None:
        if not clauses:
            return
        cond, body = clauses[0]
        if cond == "else":
            self._block(body, f)
            return
        r = self._condition(cond, f) if cond is not None else None
        if r is True:
            self._block(body, f)
        elif r is False:
            self._clauses(clauses[1:], f)
        else:
            self._fork([lambda: self._block(body, f), lambda: self._clauses(clauses[1:], f)])

    def _case(self, n, f: Frame) -> None:
        value = n.child_by_field_name("value")
        text = self._scalar_text(value, f) if value is not None else None
        items = [c for c in n.named_children if c.type == "case_item"]
        arms = []
        for item in items:
            pats, body, seen_paren = [], [], False
            for d in item.children:
                if d.type == ")":
                    seen_paren = True
                    continue
                if not seen_paren:
                    if d.type not in ("|", "("):
                        pats.append(d)
                elif d.type not in (";;", ";&", ";;&"):
                    body.append(d)
            arms.append((pats, body))
        if text is not None:
            for pats, body in arms:
                decided = True
                for p in pats:
                    pt = self._scalar_text(p, f)
                    if pt is None:
                        decided = False
                        break
                    if fnmatch.fnmatchcase(text, pt):
                        self._block(body, f)
                        return
                if not decided:
                    break
            else:
                return
        branches = [(lambda b=body: self._block(b, f)) for _, body in arms]
        if not any(self._scalar_text(p, f) == "*" for pats, _ in arms for p in pats):
            branches.append(lambda: None)
        self._fork(branches)

    def _loop(self, n, f: Frame) -> None:
        body = n.child_by_field_name("body")
        var = n.child_by_field_name("variable")
        if n.type in ("while_statement", "until_statement"):
            cond = n.child_by_field_name("condition")
            if cond is not None:
                self._stmt(cond, f)

        def once():
            if var is not None:
                name = f.text(var)
                self.env[name] = _unknown_var(Unknown(f"loop variable ${name}", f.span(var), "loop", name=name))
            if body is not None:
                self._stmt(body, f)

        self._fork([once, lambda: None], kind="loop")

    # ------------------------------------------------------------------------------ assignments
    def _assign(self, n, f: Frame, exported: bool | None = None, scope: str = "global",
                command: Command | None = None, record: bool = True) -> Assignment | None:
        name_node = n.child_by_field_name("name")
        value_node = n.child_by_field_name("value")
        if name_node is None:
            return None
        name = f.text(name_node)
        index = None
        if name_node.type == "subscript":
            inner = name_node.child_by_field_name("name")
            idx = name_node.child_by_field_name("index")
            name = f.text(inner) if inner is not None else name
            index = self._scalar_text(idx, f) if idx is not None else None
        op = "+=" if any(c.type == "+=" for c in n.children) else "="
        nspan = f.span(n)
        if value_node is None:
            a, b = f.rng(n)
            vspan = f.pt.span(b, b)
            value = Word([], vspan)
            value.span = vspan
            elements = None
            segs: list[Seg] = []
        elif value_node.type == "array":
            elements = []
            for c in value_node.named_children:
                if c.type == "comment":
                    continue
                for w in self._words(c, f):
                    elements.append(w)
            segs = []
            value = _join_words(elements, f.span(value_node))
        else:
            elements = None
            segs = [s.copy(split=False) for s in self._join(self._expand(value_node, f, quoted=True,
                                                                            assignment=True))]
            value = Word(segs, f.span(value_node))
        if value_node is not None:
            value.span = f.span(value_node)
            value.raw = f.text(value_node)
        old = self.env.get(name)
        was_exported = bool(old and old.exported)
        exp = was_exported if exported is None else (exported or was_exported)
        if scope in ("global", "local"):
            if elements is not None:
                new_elems = [w.parts for w in elements]
                if op == "+=" and old is not None:
                    base = old.elems if old.elems is not None else ([old.segs] if old.segs else [])
                    new_elems = list(base) + new_elems
                self.env[name] = Var(None, new_elems, exp, nspan)
            elif index is not None and old is not None and old.elems is not None and _INT.match(index):
                elems = list(old.elems)
                i = int(index)
                while len(elems) <= i:
                    elems.append([])
                elems[i] = segs
                self.env[name] = Var(None, elems, exp, nspan)
            else:
                if op == "+=" and old is not None:
                    if old.elems is not None:
                        self.env[name] = Var(None, list(old.elems) + [segs], exp, nspan)
                    else:
                        self.env[name] = Var(list(old.segs or []) + segs, None, exp, nspan)
                else:
                    self.env[name] = Var(segs, None, exp, nspan)
        asg = Assignment(name=name, value=value, exported=bool(exp) if scope != "command" else False,
                         span=nspan, scope=scope, name_span=f.span(name_node), op=op,
                         elements=elements, conditional=self.cond > 0, command=command,
                         nested=self.nested)
        if record:
            self.script.assignments.append(asg)
        return asg

    def _declare(self, n, f: Frame) -> None:
        kw = n.children[0].type if n.children else "declare"
        exported = kw == "export"
        scope = "local" if kw == "local" else "global"
        for c in n.children[1:]:
            if c.type == "word":
                opt = f.text(c)
                if opt.startswith("-") and "x" in opt:
                    exported = True
                elif opt.startswith("+") and "x" in opt:
                    exported = False
            elif c.type == "variable_assignment":
                self._assign(c, f, exported=exported or None, scope=scope)
            elif c.type == "variable_name":
                name = f.text(c)
                if exported:
                    self.script.exported_names.add(name)
                    old = self.env.get(name)
                    if old is not None:
                        self.env[name] = old.with_export(True)
                    else:
                        self.env[name] = Var([], None, True, f.span(c))

    # ---------------------------------------------------------------------------------- commands
    def _redirected(self, n, f: Frame) -> None:
        body = n.child_by_field_name("body")
        redirects, heredoc_nodes = [], []
        for c in n.children:
            if c.type == "heredoc_redirect":
                heredoc_nodes.append(c)
            elif c.type in ("file_redirect", "herestring_redirect"):
                redirects.append(c)
        if body is None:
            return
        if body.type == "command":
            self._command(body, f, redirects, heredoc_nodes[0] if heredoc_nodes else None)
        else:
            self._stmt(body, f)

    def _command(self, n, f: Frame, redirect_nodes=(), heredoc_node=None) -> None:
        prefix, args, name_node = [], [], None
        for i, c in enumerate(n.children):
            field = n.field_name_for_child(i)
            if c.type == "variable_assignment" and name_node is None:
                prefix.append(c)
            elif field == "name":
                name_node = c
            elif field == "argument":
                args.append(c)
            elif c.type in ("file_redirect", "herestring_redirect"):
                redirect_nodes = list(redirect_nodes) + [c]
        span = f.span(n)
        if name_node is None:
            for c in prefix:
                self._assign(c, f)
            return
        argv: list[Word] = []
        arg_spans: list[Span] = []
        for group in _adjacent_groups([name_node] + args):
            words = self._group_words(group, f)
            a, _ = f.rng(group[0])
            _, b = f.rng(group[-1])
            at = f.pt.span(a, b)
            argv.extend(words)
            arg_spans.extend([at] * len(words))
        if self.nested_span is not None:
            span = self.nested_span
        cmd = Command(argv=argv, span=span, conditional=self.cond > 0, parent=self.parent,
                      arg_spans=arg_spans)
        for c in prefix:
            asg = self._assign(c, f, scope="command", command=cmd)
            if asg is not None:
                cmd.env[asg.name] = asg
        for r in redirect_nodes:
            dest = r.child_by_field_name("destination")
            op = next((c for c in r.children if not c.is_named), None)
            if dest is not None:
                ws = self._words(dest, f)
                if ws:
                    cmd.redirects.append((f.text(op) if op is not None else ">", ws[0]))
        self._strip_env(cmd)
        cmd.environment = {k: _var_word(v, k) for k, v in self.env.items() if v.exported}
        if heredoc_node is not None:
            cmd.heredoc = self._heredoc(heredoc_node, f, cmd)
        self.script.commands.append(cmd)
        self._builtin(cmd, f)

    def _strip_env(self, cmd: Command) -> None:
        """``env [-i] [-u NAME] NAME=V … cmd``: move the assignments to ``cmd.env``."""
        if cmd.name != "env":
            return
        i = 1
        while i < len(cmd.argv):
            w = cmd.argv[i]
            v = w.value
            if isinstance(v, str) and v in ("-i", "-", "--ignore-environment", "-0", "--null"):
                i += 1
                continue
            if isinstance(v, str) and v in ("-u", "--unset", "-C", "--chdir", "-S"):
                i += 2
                continue
            text = w.text
            eq = text.find("=")
            if eq > 0 and _NAME.match(text[:eq]):
                name = text[:eq]
                val = w.slice(eq + 1)
                asg = Assignment(name=name, value=val, exported=False, span=w.span, scope="env",
                                 name_span=w.slice(0, eq).span, conditional=self.cond > 0,
                                 command=cmd, nested=self.nested)
                cmd.env[name] = asg
                self.script.assignments.append(asg)
                i += 1
                continue
            break
        if i < len(cmd.argv):
            cmd.argv, cmd.arg_spans = cmd.argv[i:], cmd.arg_spans[i:]

    def _builtin(self, cmd: Command, f: Frame) -> None:
        name = cmd.name
        if name is None:
            return
        argv = cmd.argv
        if name in ("source", ".") and len(argv) > 1:
            self._source(argv[1], f)
        elif name == "exit" and not self.depth_in_function():
            raise _Exit()
        elif name == "return":
            raise _Return()
        elif name == "eval" and len(argv) > 1 and self.depth < MAX_DEPTH:
            segs: list[Seg] = []
            for i, w in enumerate(argv[1:]):
                if i:
                    segs.append(Seg(" ", None, 0, 0, False, w.span))
                segs.extend(w.parts)
            self._nested(segs, f, cmd, child=False)
        elif name in self.functions and self.depth < MAX_DEPTH:
            self._call(name, argv[1:])
        elif name == "unset":
            for w in argv[1:]:
                if isinstance(w.value, str) and not w.value.startswith("-"):
                    self.env.pop(w.value, None)
        elif name == "shift":
            pass
        # `bash -c STRING` (also behind srun/mpirun/docker wrappers)
        for i, w in enumerate(argv[:-1]):
            v = w.value
            if isinstance(v, str) and posixpath.basename(v) in SHELLS and i + 2 < len(argv) + 1:
                j = i + 1
                while j < len(argv) and isinstance(argv[j].value, str) and argv[j].value.startswith("-") \
                        and "c" not in argv[j].value[1:]:
                    j += 1
                if j + 1 < len(argv) and isinstance(argv[j].value, str) and argv[j].value.startswith("-") \
                        and "c" in argv[j].value[1:] and self.depth < MAX_DEPTH:
                    self._nested(list(argv[j + 1].parts), f, cmd, child=True, at=cmd.arg_span(j + 1))
                break
        if cmd.heredoc is not None and posixpath.basename(name) in ("sbatch", "bash", "sh", "srun") \
                and self.depth < MAX_DEPTH:
            self._nested(list(cmd.heredoc.body.parts), f, cmd, child=True, header=True,
                         at=cmd.heredoc.span)

    def depth_in_function(self) -> bool:
        return False

    def _call(self, name: str, args: list[Word]) -> None:
        body, bf = self.functions[name]
        saved = {k: self.env.get(k) for k in [str(i) for i in range(1, 10)] + ["@", "#"]}
        for i in range(1, 10):
            if i <= len(args):
                self.env[str(i)] = Var(list(args[i - 1].parts), None, False, args[i - 1].span)
            else:
                self.env.pop(str(i), None)
        self.env["@"] = Var(None, [list(a.parts) for a in args], False, None)
        self.depth += 1
        try:
            self._stmt(body, bf)
        except _Return:
            pass
        finally:
            self.depth -= 1
            for k, v in saved.items():
                if v is None:
                    self.env.pop(k, None)
                else:
                    self.env[k] = v

    def _nested(self, segs: list[Seg], f: Frame, cmd: Command, child: bool, header: bool = False,
                at: Span | None = None) -> None:
        pt = ProvText.of_segs(segs)
        if not pt.text.strip():
            return
        saved_env, saved_parent, saved_nested = self.env, self.parent, self.nested
        saved_span = self.nested_span
        if child:
            self.env = {k: v for k, v in self.env.items() if v.exported}
        self.parent = cmd if child else self.parent
        self.nested = True
        if self.nested_span is None:
            self.nested_span = at or cmd.span
        self.depth += 1
        try:
            self.run_text(pt, f.path, f.abspath, header=header)
        except _Exit:
            pass
        finally:
            self.depth -= 1
            if child:
                self.env = saved_env
            self.parent, self.nested = saved_parent, saved_nested
            self.nested_span = saved_span

    def _source(self, w: Word, f: Frame) -> None:
        rel: str | None = None
        if w.known:
            rel = w.value
        else:
            u = w.value
            rest = w.text.split("…", 1)[-1] if w.text.count("…") == 1 else None
            if u.kind == "cwd" and u.prefix == "" and rest is not None and rest.startswith("/"):
                rel = rest.lstrip("/")
                self.script.notes.append(Note(
                    f"assumed the script runs from its own directory to resolve `{w.raw or w.text}`", w.span))
        if rel is None:
            self.script.sources.append(w)
            return
        base_dir = posixpath.dirname(f.path)
        display = posixpath.normpath(posixpath.join(base_dir, rel)) if not rel.startswith("/") else rel
        resolved = Word(w.parts, w.span)
        resolved.value = display
        self.script.sources.append(resolved)
        if f.abspath is None or rel.startswith("/"):
            return
        target = (f.abspath.parent / rel)
        try:
            target = target.resolve()
        except OSError:
            return
        if not target.is_file():
            return
        self.script.source_files[display] = target
        if display in self.source_stack or self.depth >= MAX_DEPTH or self.read is None:
            return
        text = self.read(display, target)
        if text is None:
            return
        ft = FileText(display, text)
        self.source_stack.append(display)
        self.depth += 1
        try:
            self.run_text(ProvText.of_file(ft), display, target, header=False)
        finally:
            self.depth -= 1
            self.source_stack.pop()

    def _heredoc(self, n, f: Frame, cmd: Command) -> HereDoc:
        start = next((c for c in n.children if c.type == "heredoc_start"), None)
        body = next((c for c in n.children if c.type == "heredoc_body"), None)
        delim = f.text(start) if start is not None else ""
        quoted = any(q in delim for q in "'\"\\")
        strip_tabs = any(c.type == "<<-" for c in n.children)
        target = None
        for c in n.children:
            if c.type == "file_redirect":
                dest = c.child_by_field_name("destination")
                if dest is not None:
                    ws = self._words(dest, f)
                    target = ws[0] if ws else None
                    if target is not None:
                        cmd.redirects.append((">", target))
        if body is None:
            w = Word([], f.span(n))
        else:
            a, b = f.rng(body)
            if quoted:
                w = Word(f.pt.segs([(f.pt.text[i], i) for i in range(a, b)]), f.span(body))
            else:
                w = Word(self._join(self._interp(body, f, "heredoc")), f.span(body))
            if strip_tabs:
                w = _strip_tabs(w)
        hd = HereDoc(body=w, delimiter=delim.strip("'\""), quoted=quoted, span=f.span(n), target=target,
                     command=cmd)
        self.script.heredocs.append(hd)
        return hd

    # -------------------------------------------------------------------------------- expansion
    def _words(self, n, f: Frame) -> list[Word]:
        """Expand one argument node into argv words (field splitting applied)."""
        items = self._expand(n, f, quoted=False)
        return [Word(parts, f.span(n)) for parts in _split(items)]

    def _group_words(self, nodes, f: Frame) -> list[Word]:
        """Words of argument nodes written without blanks between them (tree-sitter splits
        `a_$B.c` into `a_$` and `B.c`): one word, with a dangling `$` joined to the name after it."""
        if len(nodes) == 1:
            return self._words(nodes[0], f)
        items: list = []
        i = 0
        while i < len(nodes):
            n = nodes[i]
            last = n.children[-1] if n.type == "concatenation" and n.children else n
            if last.type == "$" and i + 1 < len(nodes) and nodes[i + 1].type == "word":
                if n.type == "concatenation":
                    for c in n.children[:-1]:
                        items.extend(self._expand(c, f, quoted=False))
                nxt = nodes[i + 1]
                text = f.text(nxt)
                m = re.match(r"[A-Za-z_][A-Za-z0-9_]*", text)
                if m:
                    la, _ = f.rng(last)
                    na, nb = f.rng(nxt)
                    items.extend(self._var(m.group(0), None, f.pt.span(la, na + m.end()), False, f))
                    items.extend(self._lit(na + m.end(), nb, f, "word"))
                    i += 2
                    continue
            items.extend(self._expand(n, f, quoted=False))
            i += 1
        a, _ = f.rng(nodes[0])
        _, b = f.rng(nodes[-1])
        return [Word(parts, f.pt.span(a, b)) for parts in _split(items)]

    def _join(self, items) -> list[Seg]:
        out: list[Seg] = []
        for it in items:
            if it is BREAK:
                out.append(Seg(" ", None, 0, 0, False, out[-1].site_span() if out else None))
            else:
                out.append(it)
        return out

    def _lit(self, a: int, b: int, f: Frame, mode: str) -> list[Seg]:
        text = f.pt.text
        chars: list[tuple[str, int]] = []
        i = a
        while i < b:
            ch = text[i]
            if ch == "\\" and mode != "raw" and i + 1 < b:
                nxt = text[i + 1]
                if nxt == "\n":
                    i += 2
                    continue
                if mode == "word" or (mode == "dq" and nxt in '$`"\\') or (mode == "heredoc" and nxt in "$`\\"):
                    chars.append((nxt, i + 1))
                    i += 2
                    continue
            chars.append((ch, i))
            i += 1
        return f.pt.segs(chars)

    def _interp(self, n, f: Frame, mode: str) -> list:
        """Literal gaps and expansions inside a string / here-doc body."""
        a, b = f.rng(n)
        items: list = []
        pos = a
        if n.type == "string":
            pos, b = a + 1, b - 1
        for c in n.children:
            ca, cb = f.rng(c)
            if c.type in ('"', "string_content", "heredoc_content") or not c.is_named:
                continue
            if ca > pos:
                items.extend(self._lit(pos, ca, f, mode))
            items.extend(self._expand(c, f, quoted=True))
            pos = max(pos, cb)
        if b > pos:
            items.extend(self._lit(pos, b, f, mode))
        return items

    def _expand(self, n, f: Frame, quoted: bool, assignment: bool = False) -> list:
        t = n.type
        a, b = f.rng(n)
        if t in ("word", "number", "extglob_pattern", "regex", "test_operator", "variable_name",
                 "special_variable_name", "file_descriptor", "brace_expression"):
            segs = self._lit(a, b, f, "word")
            return segs
        if t == "raw_string":
            return f.pt.segs([(f.pt.text[i], i) for i in range(a + 1, b - 1)]) or [_empty(f, a + 1)]
        if t == "string":
            items = self._interp(n, f, "dq")
            return items or [_empty(f, a + 1)]
        if t == "translated_string":
            inner = n.named_children[0] if n.named_children else None
            return self._expand(inner, f, True) if inner is not None else [_empty(f, a)]
        if t == "ansi_c_string":
            raw = f.pt.text[a + 2:b - 1]
            try:
                value = raw.encode("latin-1", "backslashreplace").decode("unicode_escape")
            except Exception:
                value = raw
            return [f.pt.range_seg(a, b, value)]
        if t == "concatenation":
            out: list = []
            for c in n.children:
                out.extend(self._expand(c, f, quoted, assignment))
            return out
        if t == "simple_expansion":
            name_node = n.named_children[0] if n.named_children else None
            if name_node is None:
                return self._lit(a, b, f, "word")
            return self._var(f.text(name_node), None, f.span(n), quoted, f)
        if t == "expansion":
            return self._param(n, f, quoted)
        if t == "arithmetic_expansion":
            inner = [c for c in n.named_children]
            val = self._arith(inner[0], f) if len(inner) == 1 else None
            if isinstance(val, int):
                return [f.pt.range_seg(a, b, str(val), split=not quoted)]
            u = val if isinstance(val, Unknown) else Unknown(f"arithmetic `{_short(f.text(n))}`", f.span(n))
            return [_useg(u)]
        if t == "command_substitution":
            inner_text = f.text(n).strip("`").removeprefix("$(").removesuffix(")").strip()
            unknown_inner = f.pt.unknown_in(a, b)
            if unknown_inner is not None and inner_text.startswith("__netlint_unknown_"):
                return [_useg(unknown_inner)]
            kind = "cwd" if inner_text == "pwd" else "command"
            return [_useg(Unknown(f"output of `{_short(inner_text)}`", f.span(n), kind))]
        if t == "process_substitution":
            return [_useg(Unknown("process substitution", f.span(n), "command"))]
        if t in ("array",):
            out = []
            for c in n.named_children:
                out.extend(self._expand(c, f, quoted))
                out.append(BREAK)
            return out[:-1]
        if t == "comment":
            return []
        # anything else: keep its text literally
        return self._lit(a, b, f, "word")

    def _lookup(self, name: str, span: Span) -> Var | None:
        v = self.env.get(name)
        if v is not None:
            return v
        return None

    def _missing(self, name: str, span: Span) -> Unknown:
        if name.isdigit() or name in ("@", "*", "#"):
            return Unknown(f"positional parameter ${name}", span, "positional", name=name)
        if name == "PWD":
            return Unknown("the current directory ($PWD)", span, "cwd", name=name)
        if name in ("?", "$", "!", "-", "RANDOM", "SECONDS", "LINENO", "BASHPID"):
            return Unknown(f"${name} is only known at run time", span, "other", name=name)
        return Unknown(f"${name} is not set in the script (it comes from the environment)", span, "env",
                       name=name)

    def _var(self, name: str, index: str | None, span: Span, quoted: bool, f: Frame) -> list:
        v = self._lookup(name, span)
        if v is None:
            return [_useg(self._missing(name, span))]
        if v.elems is not None:
            if index in ("@", "*"):
                if index == "*" or not quoted:
                    out: list = []
                    for i, e in enumerate(v.elems):
                        if i:
                            out.append(BREAK if not quoted else Seg(" ", None, 0, 0, False, span))
                        out.extend(_mark(e, split=not quoted, site=None))
                    return out
                out = []
                for i, e in enumerate(v.elems):
                    if i:
                        out.append(BREAK)
                    out.extend(_mark(e, split=False, site=None) or [Seg("", None, 0, 0, False, span)])
                return out
            i = 0
            if index is not None:
                if not _INT.match(index):
                    return [_useg(Unknown(f"${{{name}[{index}]}}", span))]
                i = int(index)
            if i >= len(v.elems):
                return []
            segs = v.elems[i]
        else:
            if index not in (None, "0", "@", "*"):
                return []
            segs = v.segs or []
        single = not any(any(ch.isspace() for ch in s.text) for s in segs)
        return _mark(segs, split=not quoted, site=span if single else None)

    def _param(self, n, f: Frame, quoted: bool) -> list:
        span = f.span(n)
        kids = [c for c in n.children if c.type not in ("${", "}")]
        if not kids:
            return []
        length = kids[0].type == "#" and len(kids) >= 2
        if length:
            kids = kids[1:]
        target = kids[0]
        name, index = None, None
        if target.type == "subscript":
            nn = target.child_by_field_name("name")
            ix = target.child_by_field_name("index")
            name = f.text(nn) if nn is not None else None
            index = f.text(ix) if ix is not None else None
            if index is not None and index not in ("@", "*") and not _INT.match(index):
                index = self._scalar_text(ix, f) if ix is not None else None
        elif target.type in ("variable_name", "special_variable_name"):
            name = f.text(target)
        else:
            return [_useg(Unknown(f"expansion `{_short(f.text(n))}`", span))]
        if name is None:
            return [_useg(Unknown(f"expansion `{_short(f.text(n))}`", span))]
        var = self._lookup(name, span)
        if length:
            if var is None:
                return [_useg(self._missing(name, span))]
            if var.elems is not None and index in ("@", "*"):
                if any(s.unknown is not None for e in var.elems for s in e):
                    return [_useg(Unknown(f"length of ${{{name}[@]}}", span))]
                return [f.pt.range_seg(*f.rng(n), str(len(var.elems)), split=not quoted)]
            t = var.text()
            if t is None:
                return [_useg(Unknown(f"length of ${name}", span))]
            return [f.pt.range_seg(*f.rng(n), str(len(t)), split=not quoted)]
        rest = kids[1:]
        if not rest:
            return self._var(name, index, span, quoted, f)
        op_node = rest[0]
        op = f.text(op_node)
        operand = rest[1:]
        if op in (":-", "-", ":=", "=", ":+", "+", ":?", "?"):
            colon = op.startswith(":")
            unset = var is None
            value_text = var.text() if var is not None else None
            empty = unset or (value_text == "" if value_text is not None else False)
            if var is not None and value_text is None and colon:
                # set, but to something unknown: cannot tell whether it is empty
                return self._var(name, index, span, quoted, f)
            use_alt = (empty if colon else unset)
            if op in (":+", "+"):
                if use_alt:
                    return []
                return self._operand(operand, f, quoted)
            if op in (":?", "?"):
                return self._var(name, index, span, quoted, f)
            if use_alt:
                if unset:
                    self.script.notes.append(Note(
                        f"${name} is not set in the script; assumed its default from `{_short(f.text(n))}`",
                        span))
                items = self._operand(operand, f, quoted)
                if op in (":=", "="):
                    self.env[name] = Var(self._join(items), None, False, span)
                single = not any(it is BREAK or any(ch.isspace() for ch in it.text) for it in items)
                return [it if it is BREAK else it.copy(site=span if single else it.site) for it in items]
            return self._var(name, index, span, quoted, f)
        # pattern removal / substitution / case / substring: only when everything is literal
        if var is None or var.text() is None:
            return [_useg(self._missing(name, span) if var is None else
                          Unknown(f"expansion `{_short(f.text(n))}`", span))]
        value = var.text() or ""
        pat = "".join(s.text for s in self._join(self._operand(operand, f, True))) if operand else ""
        result = _pattern_op(value, op, pat, operand, f)
        if result is None:
            return [_useg(Unknown(f"expansion `{_short(f.text(n))}`", span))]
        return [f.pt.range_seg(*f.rng(n), result, split=not quoted)]

    def _operand(self, nodes, f: Frame, quoted: bool) -> list:
        out: list = []
        for c in nodes:
            out.extend(self._expand(c, f, quoted))
        return out

    # ------------------------------------------------------------------------------- arithmetic
    def _arith(self, n, f: Frame) -> int | Unknown | None:
        t = n.type
        if t == "number":
            return _parse_int(f.text(n))
        if t in ("variable_name", "word"):
            text = f.text(n)
            if _INT.match(text):
                return int(text)
            return self._arith_var(text, f.span(n))
        if t in ("simple_expansion", "expansion"):
            segs = self._join(self._expand(n, f, quoted=True))
            u = next((s.unknown for s in segs if s.unknown is not None), None)
            if u is not None:
                return u
            return _parse_int("".join(s.text for s in segs).strip() or "0")
        if t == "parenthesized_expression":
            inner = n.named_children
            return self._arith(inner[0], f) if len(inner) == 1 else None
        if t == "unary_expression":
            op = n.children[0]
            inner = n.named_children[-1] if n.named_children else None
            v = self._arith(inner, f) if inner is not None else None
            if not isinstance(v, int):
                return v
            o = f.text(op)
            return {"-": -v, "+": v, "!": int(not v), "~": ~v}.get(o)
        if t == "binary_expression":
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            op = n.child_by_field_name("operator")
            if left is None or right is None or op is None:
                return None
            x, y = self._arith(left, f), self._arith(right, f)
            for v in (x, y):
                if not isinstance(v, int):
                    return v
            return _binop(f.text(op), x, y)
        if t == "ternary_expression":
            c = self._arith(n.child_by_field_name("condition"), f)
            if not isinstance(c, int):
                return c
            branch = n.child_by_field_name("consequence" if c else "alternative")
            return self._arith(branch, f) if branch is not None else None
        if t == "command_substitution":
            return Unknown(f"output of `{_short(f.text(n))}`", f.span(n), "command")
        return None

    def _arith_var(self, name: str, span: Span) -> int | Unknown | None:
        v = self._lookup(name, span)
        if v is None:
            return self._missing(name, span)
        segs = v.segs if v.elems is None else (v.elems[0] if v.elems else [])
        u = next((s.unknown for s in segs if s.unknown is not None), None)
        if u is not None:
            return u
        text = "".join(s.text for s in segs).strip()
        return _parse_int(text or "0")


# ------------------------------------------------------------------------------------ helpers
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
            if op is not None and dest is not None and dest.start_point[0] != op.end_point[0]:
                return op
        if n.has_error or n.type in ("program", "redirected_statement", "declaration_command",
                                     "command", "list", "pipeline", "compound_statement",
                                     "if_statement", "do_group", "for_statement", "while_statement",
                                     "function_definition", "subshell", "case_statement",
                                     "case_item", "else_clause", "elif_clause"):
            stack.extend(reversed(n.children))
    return None


def _adjacent_groups(nodes):
    groups, prev_end = [], None
    for n in nodes:
        if groups and prev_end == n.start_byte:
            groups[-1].append(n)
        else:
            groups.append([n])
        prev_end = n.end_byte
    return groups


def _hull_sites(segs: list[Seg]) -> Span | None:
    from netlint.shell.model import _hull

    sites = [s.site for s in segs if s.site is not None]
    return _hull(sites) if sites else None


def _short(text: str, n: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _in_double_bracket(n) -> bool:
    p = n.parent
    while p is not None and p.type != "test_command":
        p = p.parent
    return p is not None and p.children and p.children[0].type == "[["


def _is_quoted(n) -> bool:
    return n.type in ("string", "raw_string")


def _empty(f: Frame, at: int) -> Seg:
    s = f.pt.segs([("x", at)])
    if s and s[0].ft is not None:
        return Seg("", s[0].ft, s[0].ostart, s[0].ostart, True, s[0].site)
    return Seg("", None, 0, 0, False, f.pt.span(at, at))


def _useg(u: Unknown) -> Seg:
    return Seg("", None, 0, 0, False, u.span, False, u)


def _mark(segs: list[Seg], split: bool, site: Span | None) -> list[Seg]:
    return [s.copy(split=split, site=site if site is not None else s.site) for s in segs]


def _split(items) -> list[list[Seg]]:
    """Field splitting: unquoted expansion results split on blanks; BREAK separates elements."""
    words: list[list[Seg]] = []
    cur: list[Seg] = []
    started = False
    for it in items:
        if it is BREAK:
            if started:
                words.append(cur)
            cur, started = [], False
            continue
        if it.unknown is not None or not it.split:
            cur.append(it)
            started = True
            continue
        text = it.text
        i, n = 0, len(text)
        while i < n:
            if text[i] in " \t\n":
                if started:
                    words.append(cur)
                cur, started = [], False
                while i < n and text[i] in " \t\n":
                    i += 1
                continue
            j = i
            while j < n and text[j] not in " \t\n":
                j += 1
            cur.append(it.sub(i, j))
            started = True
            i = j
    if started:
        words.append(cur)
    return words


def _join_words(words: list[Word], span: Span) -> Word:
    parts: list[Seg] = []
    for i, w in enumerate(words):
        if i:
            parts.append(Seg(" ", None, 0, 0, False, span))
        parts.extend(w.parts)
    return Word(parts, span)


def _var_word(v: Var, name: str) -> Word:
    if v.elems is not None:
        return _join_words([Word(e, v.assigned_at) for e in v.elems], v.assigned_at or Span("", 0, 0, 0, 0))
    return Word(list(v.segs or []), v.assigned_at)


def _strip_tabs(w: Word) -> Word:
    out, bol = [], True
    for p in w.parts:
        if p.unknown is not None:
            out.append(p)
            bol = False
            continue
        keep = []
        for i, ch in enumerate(p.text):
            if bol and ch == "\t":
                continue
            bol = ch == "\n"
            keep.append(i)
        # regroup contiguous kept characters
        start = None
        for k, i in enumerate(keep):
            if start is None:
                start = prev = i
            elif i != prev + 1:
                out.append(p.sub(start, prev + 1))
                start = i
            prev = i
        if start is not None:
            out.append(p.sub(start, prev + 1))
    return Word(out, w.span)


def _same(a: Var, b: Var) -> bool:
    if a is b:
        return True
    if (a.elems is None) != (b.elems is None):
        return False
    ta, tb = a.text(), b.text()
    if ta is None or tb is None:
        return False
    if a.elems is not None:
        return [ "".join(s.text for s in e) for e in a.elems] == ["".join(s.text for s in e) for e in b.elems]
    return ta == tb


def _merge(base: dict[str, Var], results: list[dict[str, Var]], kind: str = "branch") -> dict[str, Var]:
    """Join the environments of several branches: equal values survive, differing ones become
    unknown (an array that only grew keeps its common prefix, then one unknown element)."""
    if len(results) == 1:
        # only one branch survived (the others exited): its environment is the outcome, but values
        # it set conditionally stay as they are — the other paths ended the script
        return results[0]
    names = set()
    for r in results:
        names.update(r)
    out: dict[str, Var] = {}
    for name in names:
        vals = [r.get(name) for r in results]
        first = vals[0]
        if all(v is not None for v in vals) and all(_same(first, v) for v in vals[1:]):
            out[name] = first
            continue
        present = [v for v in vals if v is not None]
        exported = any(v.exported for v in present)
        span = next((v.assigned_at for v in present if v.assigned_at is not None), Span("", 0, 0, 0, 0))
        arrays = [v for v in vals if v is not None and v.elems is not None]
        if arrays and len(arrays) == len(vals):
            shortest = min(arrays, key=lambda v: len(v.elems))
            k = len(shortest.elems)
            if all([_etext(e) for e in v.elems[:k]] == [_etext(e) for e in shortest.elems] for v in arrays):
                u = Unknown(f"elements of {name} added only on some paths ({_WHY[kind]})", span, kind,
                            name=name)
                out[name] = Var(None, list(shortest.elems) + [[_useg(u)]], exported, span)
                continue
        u = Unknown(f"${name} {_WHY2[kind]}", span, kind, name=name)
        out[name] = _unknown_var(u, exported)
    return out


_WHY = {"branch": "an if/case/&& netlint cannot decide", "loop": "a loop body"}
_WHY2 = {"branch": "differs between branches netlint cannot decide", "loop": "is assigned in a loop"}


def _etext(e: list[Seg]) -> str | None:
    if any(s.unknown is not None for s in e):
        return None
    return "".join(s.text for s in e)


def _parse_int(text: str) -> int | None:
    text = text.strip()
    try:
        if re.fullmatch(r"[+-]?0[xX][0-9a-fA-F]+", text):
            return int(text, 16)
        if re.fullmatch(r"[+-]?0[0-7]+", text):
            return int(text, 8)
        if _INT.match(text):
            return int(text)
        m = re.fullmatch(r"(\d+)#([0-9a-zA-Z@_]+)", text)
        if m:
            return int(m.group(2), int(m.group(1)))
    except ValueError:
        return None
    return None


def _binop(op: str, x: int, y: int) -> int | None:
    try:
        if op == "+":
            return x + y
        if op == "-":
            return x - y
        if op == "*":
            return x * y
        if op == "/":
            if y == 0:
                return None
            q = abs(x) // abs(y)
            return q if (x >= 0) == (y >= 0) else -q
        if op == "%":
            if y == 0:
                return None
            r = abs(x) % abs(y)
            return r if x >= 0 else -r
        if op == "**":
            return x ** y if 0 <= y < 256 else None
        if op == "<<":
            return x << y if 0 <= y < 256 else None
        if op == ">>":
            return x >> y if y >= 0 else None
        cmp = {"<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y, "==": x == y, "!=": x != y,
               "&&": bool(x and y), "||": bool(x or y)}
        if op in cmp:
            return int(cmp[op])
        if op == "&":
            return x & y
        if op == "|":
            return x | y
        if op == "^":
            return x ^ y
    except (OverflowError, ValueError):
        return None
    return None


def _pattern_op(value: str, op: str, pat: str, operand, f) -> str | None:
    import fnmatch as fm

    if op in ("#", "##", "%", "%%"):
        if not pat:
            return value
        rng = range(len(value) + 1)
        if op in ("#", "##"):
            cands = [i for i in rng if fm.fnmatchcase(value[:i], pat)]
            if not cands:
                return value
            return value[(max(cands) if op == "##" else min(cands)):]
        cands = [i for i in rng if fm.fnmatchcase(value[i:], pat)]
        if not cands:
            return value
        return value[:(min(cands) if op == "%%" else max(cands))]
    if op in ("^^", ",,", "^", ","):
        return {"^^": value.upper(), ",,": value.lower(), "^": value[:1].upper() + value[1:],
                ",": value[:1].lower() + value[1:]}[op]
    return None
