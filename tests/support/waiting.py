"""Waiting on a condition with a deadline, never on time alone."""

from __future__ import annotations

import time
from collections.abc import Callable

WAIT = 20.0  # seconds a server's answer or a process's end may take on a busy machine


def wait_for(predicate: Callable[[], object], timeout: float = WAIT) -> bool:
    """Poll a condition with a deadline, for facts nothing signals (a dead pid, a server's
    stderr arriving on its own pipe); whether it came true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())
