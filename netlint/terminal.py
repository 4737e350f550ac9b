"""Terminal habits: whether to colour the text report, and a progress line for long runs.

Colour follows the conventions users already set for other tools: ``--color always|never`` wins;
with ``auto`` (the default) ``NO_COLOR`` (any non-empty value, https://no-color.org) turns it off,
``FORCE_COLOR`` (non-empty, as Node and pytest read it) turns it on, otherwise colour only when the
report goes to a terminal (never into ``-o FILE`` or a pipe).
"""

from __future__ import annotations

import os
import threading
import time
from typing import Callable, TextIO

RESET = "\033[0m"
STYLES = {"error": "\033[1;31m", "warning": "\033[33m", "info": "\033[36m", "path": "\033[1m",
          "code": "\033[1;31m", "dim": "\033[2m", "ok": "\033[32m"}


def use_color(choice: str | None, stream: TextIO | None, env: dict | None = None) -> bool:
    env = os.environ if env is None else env
    if choice == "always":
        return True
    if choice == "never":
        return False
    if env.get("NO_COLOR"):
        return False
    if env.get("FORCE_COLOR"):
        return True
    return is_tty(stream) and env.get("TERM") != "dumb"


def is_tty(stream: TextIO | None) -> bool:
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError, OSError):  # a closed or replaced stream
        return False


# Held while the progress line is written. ``--jobs`` forks loader processes while the progress thread
# runs: taking it around fork means no write (and no stream lock) is half done in the child.
_WRITING = threading.Lock()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_WRITING.acquire, after_in_parent=_WRITING.release,
                        after_in_child=_WRITING.release)


def paint(text: str, style: str, on: bool) -> str:
    return f"{STYLES[style]}{text}{RESET}" if on and text else text


class Progress:
    """``netlint: checking... 3 s`` on ``stream`` (stderr), rewritten in place, once a run has lasted
    ``delay`` seconds, and erased when it ends. Nothing at all unless ``stream`` is a terminal: a CI
    log or a redirected stderr must stay clean. ``tick(now)`` draws; a daemon thread calls it."""

    def __init__(self, stream: TextIO, delay: float = 2.0, interval: float = 0.5,
                 clock: Callable[[], float] = time.monotonic, enabled: bool | None = None):
        self.stream, self.delay, self.interval, self.clock = stream, delay, interval, clock
        self.enabled = is_tty(stream) if enabled is None else enabled
        self.started = clock()
        self.drawn = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def tick(self, now: float | None = None) -> None:
        elapsed = (self.clock() if now is None else now) - self.started
        if not self.enabled or elapsed < self.delay:
            return
        with _WRITING:
            self.stream.write(f"\r\033[Knetlint: checking... {int(elapsed)} s")
            self.stream.flush()
        self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            with _WRITING:
                self.stream.write("\r\033[K")
                self.stream.flush()
            self.drawn = False

    def __enter__(self) -> "Progress":
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="netlint-progress", daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.tick()

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.clear()
