"""When a failed call goes again, and after how long.

A bulk map retries a row whose call failed for a reason that may pass: the server said it
is busy (HTTP 429 or 503, honouring ``Retry-After``), or the request was never sent (the
connection was refused, the name did not resolve). A call that may have reached the server
(its reply was lost, it timed out, a 5xx) could have run: it goes again only when the tool
says repeating it is harmless (``idempotentHint``) or the user said so (``retry_unsafe``).
A permanent answer (HTTP 400, 401, 403, 404 …) is never retried, nor a server process that
exited: nothing would change.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from ..errors import NotSent, RequestTimeout, RPCError, ServerExited, TransportError

__all__ = ["Backoff", "refused", "retryable"]

BUSY = (429, 503)


def refused(error: BaseException) -> bool:
    """The server answered that it is busy: the call did not run (an HTTP error, or a
    JSON-RPC error sent with that HTTP status)."""
    if isinstance(error, RPCError):
        return error.http_status in BUSY
    return isinstance(error, TransportError) and getattr(error, "status", None) in BUSY


def retryable(error: BaseException, *, may_repeat: bool) -> bool:
    """Whether ``error`` may pass if the call goes again; ``may_repeat``: running the call
    twice is harmless (an idempotent tool, or the user's say-so)."""
    if refused(error) or isinstance(error, NotSent):
        return True
    if isinstance(error, ServerExited):
        return False
    status = getattr(error, "status", None)
    if isinstance(status, int) and status < 500:
        return False  # a permanent answer (a bad request, no authorization, a wrong URL): the same again
    return may_repeat and isinstance(error, (TransportError, RequestTimeout))


@dataclass
class Backoff:
    """Exponential backoff with full jitter: attempt ``n`` (0-based) waits a random time up
    to ``base * 2**n`` (at most ``cap``), or what the server asked (``Retry-After``, at most
    ``cap``). ``rng`` and ``sleep`` are the randomness and the wait (a test's own, say)."""

    base: float = 0.5
    cap: float = 30.0
    rng: Callable[[], float] = field(default=random.random, repr=False)
    sleep: Callable[[float], Awaitable[object]] = field(default=asyncio.sleep, repr=False)

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.cap)
        return self.rng() * min(self.cap, self.base * 2.0**attempt)

    async def wait(self, attempt: int, retry_after: float | None = None) -> None:
        """Wait before attempt ``attempt + 1``."""
        await self.sleep(self.delay(attempt, retry_after))
