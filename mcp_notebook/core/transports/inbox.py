"""Handing incoming messages to the session, in order, from whichever thread read them.

The loop reads by default; a blocking caller may read its own reply on its thread (the fast
path). Requests and notifications are always handled on the loop. A response read on a
caller's thread is settled right there, unless something the loop still has to handle came
before it (progress before the result): then it follows the same way, in order. Likewise what
the loop reads itself waits behind what a caller's thread handed it and the loop has not yet
handled (the loop's read was due before that thread read, but ran after it).
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from .base import MessageSink, Raw


class Inbox:
    """Where a transport hands what it read. ``bind`` on the loop, then ``deliver`` from
    any thread."""

    __slots__ = ("_forwarded", "_processed", "_queued", "_queued_done", "loop", "loop_thread", "sink")

    def __init__(self) -> None:
        self.sink: MessageSink | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.loop_thread: int | None = None
        # Messages a reading thread handed to the loop, and those the loop has handled; then
        # messages the loop read and queued behind them, and those it has handled. Each
        # counter is written by one side only.
        self._forwarded = 0
        self._processed = 0
        self._queued = 0
        self._queued_done = 0

    def bind(self, sink: MessageSink) -> None:
        """Deliver to ``sink``, on the running loop."""
        self.sink = sink
        self.loop = asyncio.get_running_loop()
        self.loop_thread = threading.get_ident()

    def on_loop(self) -> bool:
        return threading.get_ident() == self.loop_thread

    def deliver(self, message: dict[str, Any], raw: Raw | None = None, related: int | str | None = None) -> bool:
        """Hand over one message (``related``: see MessageSink.on_message). False when it
        was passed on to the loop rather than handled here: a response then waits there,
        and the reading thread with it."""
        sink = self.sink
        assert sink is not None
        if threading.get_ident() == self.loop_thread:
            if self._forwarded == self._processed and self._queued == self._queued_done:
                sink.on_message(message, raw, related)
            else:  # a caller's thread handed over messages read before this one: after them
                self._queued += 1
                self.call(self._deliver_queued, message, raw, related)
            return True
        if "method" in message or self._forwarded != self._processed or self._queued != self._queued_done:
            self._forwarded += 1
            self.call(self._deliver_on_loop, message, raw, related)
            return False
        sink.on_message(message, raw)  # a response on a blocking caller's thread: settled here
        return True

    # Counted once handled (not before): a response read meanwhile waits until it is.
    def _deliver_on_loop(self, message: dict[str, Any], raw: Raw | None, related: int | str | None) -> None:
        assert self.sink is not None
        try:
            self.sink.on_message(message, raw, related)
        finally:
            self._processed += 1

    def _deliver_queued(self, message: dict[str, Any], raw: Raw | None, related: int | str | None) -> None:
        assert self.sink is not None
        try:
            self.sink.on_message(message, raw, related)
        finally:
            self._queued_done += 1

    def call(self, fn: Any, *args: Any) -> None:
        """Run ``fn(*args)`` on the loop (from any thread)."""
        assert self.loop is not None
        self.loop.call_soon_threadsafe(fn, *args)


__all__ = ["Inbox"]
