"""``#SBATCH`` header lines: Slurm reads them before the first command, as literal text.

sbatch(1): "#SBATCH directives are read directly by Slurm, so shell-specific syntax including
variable names will be read as literal text. Once the first non-comment, non-whitespace line has been
reached in the script, no more #SBATCH directives will be processed." Several options may share a
line (``#SBATCH -t 0:30:00 --exclusive --ntasks-per-node=8``).
"""

from __future__ import annotations

import re

from netlint.located import Scalar

# sbatch(1) short options → long names.
SHORT = {"N": "nodes", "n": "ntasks", "c": "cpus-per-task", "t": "time", "p": "partition",
         "A": "account", "J": "job-name", "o": "output", "e": "error", "G": "gpus", "w": "nodelist",
         "x": "exclude", "C": "constraint", "q": "qos", "D": "chdir", "a": "array", "d": "dependency",
         "m": "distribution", "i": "input", "b": "begin", "L": "licenses", "M": "clusters",
         "F": "nodefile", "S": "core-spec", "W": "wait", "s": "oversubscribe", "O": "overcommit",
         "H": "hold", "I": "immediate", "k": "no-kill", "Q": "quiet", "v": "verbose", "h": "help",
         "V": "version"}
# Options that take no argument (a value only in the --opt=value form).
NO_ARG = {"exclusive", "overcommit", "hold", "requeue", "no-requeue", "contiguous", "wait",
          "test-only", "parsable", "spread-job", "use-min-nodes", "oversubscribe", "no-kill",
          "ignore-pbs", "quiet", "verbose", "help", "usage", "version", "immediate", "reboot",
          "nvmps", "exclusive-user", "get-user-env"}
_TOKEN = re.compile(r"""(?:[^\s"']+|"[^"]*"|'[^']*')+""")


def _tokens(line: str, base: int):
    for m in _TOKEN.finditer(line):
        yield m.group(0), base + m.start(), base + m.end()


def parse_sbatch_header(pt) -> dict[str, Scalar]:
    """``{long option name: Scalar(value)}`` from the header of ``pt`` (a ProvText); flags map to
    ``Scalar(True)``. Spans are those of the value tokens (of the option for flags)."""
    text = pt.text
    out: dict[str, Scalar] = {}
    pos = 0
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line = text[pos:end]
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            break
        if stripped.startswith("#SBATCH"):
            start = pos + line.index("#SBATCH") + len("#SBATCH")
            body = text[start:end]
            cut = re.search(r"\s#", body)
            if cut:
                body = body[:cut.start()]
            toks = list(_tokens(body, start))
            i = 0
            while i < len(toks):
                tok, a, b = toks[i]
                i += 1
                name, value, vspan = None, None, None
                if tok.startswith("--"):
                    if "=" in tok:
                        name, value = tok[2:].split("=", 1)
                        va = a + tok.index("=") + 1
                        vspan = (va, b)
                    else:
                        name = tok[2:]
                        if name not in NO_ARG and i < len(toks) and not toks[i][0].startswith("-"):
                            value, va, vb = toks[i]
                            vspan = (va, vb)
                            i += 1
                elif tok.startswith("-") and len(tok) >= 2:
                    name = SHORT.get(tok[1], tok[1])
                    if len(tok) > 2:
                        value = tok[2:].lstrip("=")
                        vspan = (b - len(value), b)
                    elif name not in NO_ARG and i < len(toks) and not toks[i][0].startswith("-"):
                        value, va, vb = toks[i]
                        vspan = (va, vb)
                        i += 1
                if name is None:
                    continue
                if value is None:
                    out[name] = Scalar(True, pt.span(a, b), tok)
                else:
                    value = value.strip("\"'")
                    out[name] = Scalar(value, pt.span(*vspan), value)
        pos = end + 1
    return out
