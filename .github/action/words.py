"""Split an action input into words the way a POSIX shell would, without running a shell.

    python -I words.py args  NAME   # the value of $NAME as plain words
    python -I words.py paths NAME   # the same, each word tagged L (literal) or G (glob pattern)

Words are written NUL-terminated to stdout for ``mapfile -d ''``. Rules: blanks and newlines
separate words (so a multi-line ``args:`` keeps every line); '...' keeps text as is; "..." keeps
text, with \\ escaping \\, ", $ and `; a backslash outside quotes escapes the next character and
backslash-newline joins lines; # at the start of a word comments out the rest of the line. Nothing
is expanded: $VAR, $(...) and ~ stay as written (an input is data, never code).

For ``paths`` a word with an unquoted *, ? or [ is a glob: it is written as a bash pattern (quoted
glob characters escaped with a backslash) for the caller to expand with globstar and nullglob.
Exit 2 with a message on an unterminated quote.
"""

from __future__ import annotations

import os
import sys

GLOB = "*?[]"
SPECIAL_IN_PATTERN = "*?[]\\"


def split(text: str) -> list[tuple[str, str]]:
    """(word, pattern) pairs; pattern is "" when the word has no unquoted glob character."""
    words: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " \t\r\n":
            i += 1
            continue
        if ch == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        word: list[str] = []
        pattern: list[str] = []
        is_glob = False
        while i < n and text[i] not in " \t\r\n":
            ch = text[i]
            if ch == "'":
                end = text.find("'", i + 1)
                if end < 0:
                    raise ValueError("unterminated single quote")
                _quoted(text[i + 1:end], word, pattern)
                i = end + 1
            elif ch == '"':
                i += 1
                chunk: list[str] = []
                while True:
                    if i >= n:
                        raise ValueError("unterminated double quote")
                    c = text[i]
                    if c == '"':
                        i += 1
                        break
                    if c == "\\" and i + 1 < n and text[i + 1] in '\\"$`\n':
                        if text[i + 1] != "\n":
                            chunk.append(text[i + 1])
                        i += 2
                        continue
                    chunk.append(c)
                    i += 1
                _quoted("".join(chunk), word, pattern)
            elif ch == "\\":
                if i + 1 < n and text[i + 1] != "\n":
                    _quoted(text[i + 1], word, pattern)
                i += 2
            else:
                word.append(ch)
                pattern.append(ch)
                is_glob = is_glob or ch in GLOB
                i += 1
        words.append(("".join(word), "".join(pattern) if is_glob else ""))
    return words


def _quoted(text: str, word: list[str], pattern: list[str]) -> None:
    word.append(text)
    pattern.extend("\\" + c if c in SPECIAL_IN_PATTERN else c for c in text)


def main(argv: list[str]) -> int:
    if len(argv) != 3 or argv[1] not in ("args", "paths"):
        sys.stderr.write("usage: words.py args|paths ENV_NAME\n")
        return 2
    mode, name = argv[1], argv[2]
    try:
        words = split(os.environ.get(name, ""))
    except ValueError as exc:
        sys.stderr.write(f"::error title=netlint action::input {mode}: {exc}\n")
        return 2
    out = sys.stdout.buffer
    for word, pattern in words:
        item = word if mode == "args" else (f"G{pattern}" if pattern else f"L{word}")
        out.write(item.encode("utf-8", "surrogateescape") + b"\0")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
