"""A server's limit on tool calls in flight (``maxConcurrency``): calls past it wait their
turn, first come first served, on the background loop.

Every tool call of the server takes a slot, however it was made (awaited, gathered, a map's
row, a blocking call: that one waits on the loop's path while the limit is set). Waiting
counts against the call's timeout, so no call waits longer than the person said; a call
cancelled while it waits (Ctrl-C, Cancel, a map stopped) leaves the queue and sends nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

from ..errors import RequestTimeout

JSON = dict[str, Any]
Send = Callable[[Any], Coroutine[Any, Any, JSON]]  # timeout -> the request


class CallSlots:
    """At most ``limit`` tool calls of server ``server`` in flight at once."""

    def __init__(self, server: str, limit: int) -> None:
        self.server, self.limit = server, limit
        self.in_flight = 0  # what a progress line or a status shows
        self.waiting = 0
        self._free: asyncio.Semaphore | None = None  # made on the loop, at the first call

    def __repr__(self) -> str:
        return f"<CallSlots {self.server!r} {self.in_flight}/{self.limit} in flight, {self.waiting} waiting>"

    async def call(self, send: Send, timeout: Any) -> JSON:
        """``send(timeout)`` once a slot is free; its timeout is what is left of ``timeout``
        after the wait (None, or not a number: no limit on either)."""
        free = self._free
        if free is None:
            free = self._free = asyncio.Semaphore(self.limit)
        bounded = isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
        started = time.monotonic()
        self.waiting += 1
        try:
            if bounded:
                await asyncio.wait_for(free.acquire(), timeout)
            else:
                await free.acquire()
        except asyncio.TimeoutError:
            raise RequestTimeout(
                f"{self.server}: no tool call could start within {timeout:g} s: {self.limit} already in flight "
                f"(its maxConcurrency); raise the timeout or the limit (%mcp add … --max-concurrency N)"
            ) from None
        finally:
            self.waiting -= 1
        self.in_flight += 1
        try:
            if bounded:
                timeout = max(timeout - (time.monotonic() - started), 0.001)
            return await send(timeout)
        finally:
            self.in_flight -= 1
            free.release()


__all__ = ["CallSlots"]
