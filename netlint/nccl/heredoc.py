"""``nccl.conf`` written by a here-document in a shell script, read the way NCCL reads the file.

The forms: ``cat > /etc/nccl.conf <<EOF``, ``cat <<EOF > ~/.nccl.conf`` (also ``>>``), ``tee [-a]
…/nccl.conf <<EOF``, the same behind ``sudo``, and ``bash -c "cat > /etc/nccl.conf" <<'EOF'`` (the
target is inside the string: the evaluator parses it, and its ``cat`` is a command whose ``parent`` is
the ``bash`` that received the here-document). A target counts when its file name is an nccl.conf name
(:func:`netlint.loaders.nccl_conf.is_conf_name`) or it is the script's own ``$NCCL_CONF_FILE``.

The body is the text the file receives: verbatim for a quoted delimiter (``<<'EOF'``), expanded
otherwise (an expansion netlint cannot resolve makes that value Unknown). It is parsed by
:func:`netlint.loaders.nccl_conf.parse_conf` (NCCL's own rules: name up to the first ``=``, value
verbatim, ``#`` only in column 0), with every span mapped into the script, and never as shell.
"""

from __future__ import annotations

import posixpath
from typing import Any

# Commands whose standard input becomes the file: `cat` (no file operand) and `tee FILE…`.
_WRITERS = ("cat", "tee")


class BodyIndex:
    """Offsets in a here-document body's text → spans in the script (the body is a shell Word)."""

    def __init__(self, word: Any):
        self.word = word
        self.text = word.text

    def span(self, start: int, end: int):
        return self.word.span_of(start, end)

    def scalar(self, value: str, start: int, end: int, quoted: bool = False):
        from netlint.located import Scalar

        sub = self.word.slice(start, end)
        return Scalar(value, sub.span, sub.raw or value, quoted)

    def unknown(self, start: int, end: int) -> str | None:
        sub = self.word.slice(start, end)
        u = next((p.unknown for p in sub.parts if p.unknown is not None), None)
        return None if u is None else str(u.reason)


def _name(word: Any) -> str:
    v = word.value
    return posixpath.basename(v) if isinstance(v, str) else ""


def _unwrap(argv: list) -> list:
    """argv without a leading ``sudo [-E] [-u user]`` (the command it runs reads the same stdin)."""
    if argv and _name(argv[0]) == "sudo":
        i = 1
        while i < len(argv) and isinstance(argv[i].value, str) and argv[i].value.startswith("-"):
            i += 2 if argv[i].value in ("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U") else 1
        return argv[i:]
    return argv


def _targets(argv: list, redirects: list) -> list:
    """The files a ``cat``/``tee`` command line writes its standard input to."""
    argv = _unwrap(argv)
    if not argv or _name(argv[0]) not in _WRITERS:
        return []
    operands = [w for w in argv[1:] if not (isinstance(w.value, str) and w.value.startswith("-"))]
    out = [w for op, w in redirects if op in (">", ">>", ">|", "&>")]
    if _name(argv[0]) == "tee":
        return out + operands
    return out if all(w.value == "-" for w in operands) else []


def _is_conf_target(word: Any, conf_file: str | None) -> bool:
    from netlint.loaders.nccl_conf import is_conf_name

    text = word.text
    if "ld.so.conf.d/" in text:  # the dynamic linker's search path list (ldconfig(8)), not NCCL's file
        return False
    return is_conf_name(posixpath.basename(text)) or (conf_file is not None and word.value == conf_file)


def conf_heredocs(script: Any) -> list[tuple[Any, Any]]:
    """``(here-document, target Word)`` for every here-document of ``script`` that writes an nccl.conf."""
    conf_file = script.value_of("NCCL_CONF_FILE")
    conf_file = conf_file.value if conf_file is not None and isinstance(getattr(conf_file, "value", None), str) \
        else None
    children: dict[int, list] = {}
    for c in script.commands:
        if c.parent is not None:
            children.setdefault(id(c.parent), []).append(c)
    out = []
    for hd in script.heredocs:
        cmd = hd.command
        if cmd is None:
            continue
        cands = _targets(cmd.argv, cmd.redirects)
        for child in children.get(id(cmd), ()):   # bash -c "cat > /etc/nccl.conf" <<EOF
            cands += _targets(child.argv, child.redirects)
        target = next((w for w in cands if _is_conf_target(w, conf_file)), None)
        if target is not None:
            out.append((hd, target))
    return out


def conf_envs(file: str, confs: list[tuple[Any, Any]]) -> list[Any]:
    """One ``nccl.conf`` :class:`~netlint.models.nccl.NcclEnv` per ``(here-document, target)`` of
    :func:`conf_heredocs`; the env's ``file`` is the script evaluated (``file``; a here-document of a
    sourced file keeps its own spans), its ``scope`` names the target."""
    from netlint.loaders.nccl_conf import parse_conf

    envs = []
    for hd, target in confs:
        index = BodyIndex(hd.body)
        envs.append(parse_conf(file, index.text, index, scope=f"here-document > {target.text}"))
    return envs
