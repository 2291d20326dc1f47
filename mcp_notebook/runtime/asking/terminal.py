"""Reading a person's answers on a terminal's stdin.

A question is read on the thread that waits for the work, never on the background loop's
(a read there would stop every connection, a login's browser redirect included). A wait
that can also end another way (the browser came back) selects on stdin and a ``Wake``,
so that nothing is left reading stdin afterwards: a pending read would take the next line
typed at the prompt. End of input ends the question (``StdinEnded``); the caller says what
that means (deny, cancel, decline) in one line.
"""

from __future__ import annotations

import os
import select
import sys
import threading
from typing import Any

from ...core.safety.text import printable
from ..loop import on_loop_thread


class StdinEnded(Exception):
    """stdin is at its end, or closed: nobody can answer there."""


def stdin_is_terminal() -> bool:
    """A person can type answers: stdin is an open terminal (not a pipe, a file, /dev/null)."""
    stdin = sys.stdin
    try:
        return stdin is not None and not stdin.closed and stdin.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def can_wake() -> bool:
    """``read_line`` can end on a ``Wake`` here (POSIX, stdin a terminal); else it waits for Enter."""
    if os.name != "posix" or not stdin_is_terminal():
        return False
    try:
        sys.stdin.fileno()
    except (AttributeError, ValueError, OSError):
        return False
    return True


class Wake:
    """Ends a ``read_line`` waiting on another thread: ``set()`` from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fds: tuple[int, int] | None = os.pipe()
        self._set = False

    def set(self) -> None:
        with self._lock:  # never writes to a closed (perhaps reused) descriptor
            if self._set:
                return
            self._set = True
            if self._fds is not None:
                os.write(self._fds[1], b"!")

    def is_set(self) -> bool:
        return self._set

    def fileno(self) -> int:
        assert self._fds is not None, "a closed Wake"
        return self._fds[0]

    def close(self) -> None:
        with self._lock:
            fds, self._fds = self._fds, None
        for fd in fds or ():
            os.close(fd)

    def __enter__(self) -> Wake:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Wake {'set' if self._set else 'waiting'}>"


def read_line(prompt: str = "", wake: Wake | None = None) -> str | None:
    """One line typed on stdin, without its line end; ``None`` if ``wake`` was set first
    (then nothing is left reading stdin). ``StdinEnded`` at end of input. Where stdin
    cannot be selected on (Windows, a kernel's stdin) this is ``input()``, and the wake
    is not seen: the person presses Enter."""
    if on_loop_thread():
        # A read here would block every connection until the person answers (a bug).
        raise RuntimeError("mcp-notebook asked a question on its background loop's thread; please report this bug")
    if wake is None or not can_wake():
        try:
            return input(prompt)  # in a kernel, its input(): the frontend asks
        except EOFError:
            raise StdinEnded("stdin ended") from None
        except (ValueError, RuntimeError):
            if sys.stdin is None or sys.stdin.closed:  # "lost sys.stdin", "I/O operation on closed file"
                raise StdinEnded("stdin is closed") from None
            raise
    stdin = sys.stdin
    if wake.is_set():
        return None
    if prompt:
        print(prompt, end="", flush=True)
    while True:
        ready, _, _ = select.select([stdin, wake], [], [])
        if wake in ready:
            return None
        # A terminal hands over one line per read (canonical mode): nothing more is taken.
        line = stdin.readline()
        if not line:
            raise StdinEnded("stdin ended")
        return line.rstrip("\r\n")


def ask_login(request: Any, wake: Wake | None) -> str | None:
    """The terminal's side of an OAuth login (``request`` a core.oauth.LoginRequest): the
    address the person pasted, or ``None`` (the browser came back to the listener, which
    has the address; or, where a wake cannot be seen, Enter alone before it came back).
    The caller sets ``wake`` when the listener gets the browser or the login ends."""
    print(printable(f"{request.server} needs you to log in at {request.issuer}. Open this address in a browser:"))
    print(f"  {printable(request.url)}", flush=True)
    callback = request.callback
    if wake is None or not can_wake() or callback is None:
        answer = (read_line("Then press Enter (or paste the address the browser landed on): ", wake) or "").strip()
        return answer or (callback.result() if callback is not None else None)
    print("Waiting for the browser to come back (or paste the address it landed on, then Enter):", flush=True)
    while True:
        line = read_line("", wake)
        if line is None or line.strip():
            return line.strip() if line else None
        # Enter alone before the browser came back: keep waiting for it.


__all__ = ["StdinEnded", "Wake", "ask_login", "can_wake", "read_line", "stdin_is_terminal"]
