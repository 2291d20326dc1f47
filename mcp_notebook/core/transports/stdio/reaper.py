"""A watchdog process that kills our servers' process groups if this process dies.

Used where servers do not run under the launcher (launcher.py, Linux only), which does
more: it also takes processes that left the group.

A server started by a wrapper (``npx``, ``uvx``, a shell script) has grandchildren that a
parent-death signal on the direct child does not reach, and SIGKILL of the kernel runs no
cleanup code. So one small process per interpreter holds the read end of a pipe; we tell it
each group we start and stop. When the pipe reaches EOF (we are gone, however we died), it
sends SIGTERM, then SIGKILL, to every group still registered.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import threading

# Run with ``python -S -c``: no site import, so it starts in a few milliseconds.
_SOURCE = r"""
import os, signal, sys, time
groups = set()
for line in sys.stdin:
    line = line.strip()
    if line[:1] == "+": groups.add(int(line[1:]))
    elif line[:1] == "-": groups.discard(int(line[1:]))
def alive(g):
    try:
        os.killpg(g, 0)
        return True
    except OSError:
        return False
for sig in (signal.SIGTERM, signal.SIGKILL):
    for g in list(groups):
        try: os.killpg(g, sig)
        except OSError: groups.discard(g)
    deadline = time.monotonic() + 2
    while groups and time.monotonic() < deadline:
        groups = {g for g in groups if alive(g)}
        time.sleep(0.05)
"""

_lock = threading.Lock()
_proc: subprocess.Popen[bytes] | None = None


def _send(line: str) -> None:
    global _proc
    if os.name != "posix":
        return
    with _lock:
        if _proc is None or _proc.poll() is not None:
            _proc = subprocess.Popen(
                [sys.executable, "-S", "-c", _SOURCE],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # a Ctrl-C sent to our group must not reach it
            )
        assert _proc.stdin is not None
        try:
            _proc.stdin.write(line.encode() + b"\n")
            _proc.stdin.flush()
        except OSError:
            pass


def _exit() -> None:
    # Registered at import, so it runs after the runtime's own exit handler (atexit is
    # last-in, first-out) has closed the servers: by now the watchdog guards nothing.
    with _lock:
        if _proc is not None and _proc.stdin is not None:
            try:
                _proc.stdin.close()
                _proc.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                pass


atexit.register(_exit)


def watch(pgid: int) -> None:
    _send(f"+{pgid}")


def unwatch(pgid: int) -> None:
    _send(f"-{pgid}")
