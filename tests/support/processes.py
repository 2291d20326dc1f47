"""Servers in subprocesses, each on a port the OS gave: started, waited for until they
listen, stopped. No fixed port anywhere, so that test runs side by side (pytest-xdist's
workers, another checkout's run) never meet."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest

# A server's start on a busy machine (2 cores running several workers, each starting
# kernels and servers): a Python server importing its stack took over 20 s under load.
# Only a deadline: the wait ends as soon as the port listens.
STARTUP = 60.0


def free_port() -> int:
    """A port nothing listens on, picked by the OS (bound to port 0, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], what: str, seconds: float = STARTUP) -> None:
    """Until something listens on ``port``; the test fails (and ``proc`` is killed) if
    ``proc`` ends first or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            ended = proc.poll() is not None
            if ended or time.monotonic() > deadline:
                proc.kill()
                why = f"ended ({proc.returncode})" if ended else f"did not listen within {seconds:.0f} s"
                pytest.fail(f"{what} {why} on port {port}", pytrace=False)
            time.sleep(0.05)


def serve(command: list[str], port: int, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """``command`` started (its output discarded) and listening on ``port``."""
    proc = subprocess.Popen(command, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    wait_for_port(port, proc, " ".join(command))
    return proc


@contextlib.contextmanager
def running(command: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """A server listening on ``port`` for the duration; killed after."""
    proc = serve(command, port, env)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Terminate a server, killed if it has not ended within 10 s."""
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
