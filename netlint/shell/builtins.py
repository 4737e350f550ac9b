"""What the bash evaluator does after recording a command: ``env`` prefixes moved to the command's
environment, and the builtins that change evaluation (``source``, ``exit``, ``return``, ``eval``, ``unset``,
function calls, ``bash -c`` strings, ``sbatch <<EOF`` bodies). A mixin of
:class:`netlint.shell.evaluator.Evaluator`."""

from __future__ import annotations

import posixpath

from netlint.shell.model import Assignment, Command, Seg
from netlint.shell.values import MAX_DEPTH, SHELLS, Frame, _Exit, _NAME, _Return


class Builtins:
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
                                 command=cmd, nested=self.nested, branch=self.branch)
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
            self._source(argv[1], f, cmd.env)
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
                and self.depth < MAX_DEPTH and self._stdin_is_script(cmd):
            self._nested(list(cmd.heredoc.body.parts), f, cmd, child=True, header=True,
                         at=cmd.heredoc.span)

    def depth_in_function(self) -> bool:
        return False
