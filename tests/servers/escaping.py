"""A stdio MCP server that starts processes meant to outlive it, then serves `echo`.

    python tests/servers/escaping.py PIDFILE

A child that calls setsid() (a session of its own: no process-group kill reaches it) and
keeps the server's pipes, and a daemon (a double fork: its parent exits, so it is an
orphan) that closes them. Both ignore SIGTERM. It appends "server PID", "setsid PID" and
"daemon PID" lines to PIDFILE.
"""

from __future__ import annotations

import os
import signal
import sys

from colliding import serve


def record(pidfile: str, what: str) -> None:
    with open(pidfile, "a") as f:
        f.write(f"{what} {os.getpid()}\n")


def linger(pidfile: str, what: str) -> None:
    """Ignore SIGTERM, say who we are, and stay until killed."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    record(pidfile, what)
    while True:
        signal.pause()


def escape(pidfile: str) -> None:
    record(pidfile, "server")
    if os.fork() == 0:
        os.setsid()
        linger(pidfile, "setsid")
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            linger(pidfile, "daemon")
        os._exit(0)
    os.wait()  # the daemon's first parent, so that the daemon is an orphan


if __name__ == "__main__":
    escape(sys.argv[1])
    serve("escaping", ["echo"])
