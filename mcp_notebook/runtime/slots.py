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
        given, started = timeout, time.monotonic()
        await self._turn(free, timeout if bounded else None)
        self.in_flight += 1
        try:
            if bounded:
                timeout -= time.monotonic() - started
                if timeout <= 0:  # its turn came with no time left: not sent
                    raise self._late(given)
            return await send(timeout)
        finally:
            self.in_flight -= 1
            free.release()

    async def _turn(self, free: asyncio.Semaphore, timeout: float | None) -> None:
        """A slot, within ``timeout``. Not ``wait_for``: before Python 3.12 it can return a
        slot to a caller cancelled in the same turn, whose call would then be sent."""
        self.waiting += 1
        acquiring = asyncio.ensure_future(free.acquire())
        try:
            done, _ = await asyncio.wait({acquiring}, timeout=timeout)
        except BaseException:  # cancelled while waiting: give back a slot taken meanwhile
            if acquiring.done() and not acquiring.cancelled():
                free.release()
            acquiring.cancel()
            raise
        finally:
            self.waiting -= 1
        if not done:
            acquiring.cancel()
            raise self._late(timeout)

    def _late(self, timeout: Any) -> RequestTimeout:
        return RequestTimeout(
            f"{self.server}: no tool call could start within {timeout:g} s: {self.limit} already in flight "
            f"(its maxConcurrency); raise the timeout or the limit (%mcp add … --max-concurrency N)"
        )


__all__ = ["CallSlots"]
