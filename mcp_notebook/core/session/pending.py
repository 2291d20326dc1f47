"""A session's requests in flight: each one's future and deadline, settling them from any
thread, and the one timer that ends those whose deadline has passed.

An awaited request waits on an asyncio future; a blocking one (the fast path) on an
``Answer``, which its own thread usually settles itself, reading the reply.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import itertools
import math
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from ...errors import MCPError, RequestTimeout
from ..protocol.rounds import Rounds

JSON = dict[str, Any]
ProgressCallback = Callable[[float, "float | None", "str | None"], Any]

# What the requests sent in this context are tagged with (a map's row: "row 3"). A
# notification that came with one of them (on its own reply stream) reaches tagged
# listeners with the tag: a log line can say which of many calls in flight it is about.
REQUEST_TAG: contextvars.ContextVar[str | None] = contextvars.ContextVar("mcp_request_tag", default=None)


# A transport's read on a blocking caller's thread (BlockingTransport.pump): reads until
# ``done()`` or ``timeout``, waking early when ``wake_fd`` is written to; False: nothing to read here.
Pump = Callable[[Callable[[], bool], "float | None", "int | None"], bool]


def _shortest(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else min(a, b)


class Waker(Protocol):
    """What a blocking request serves while it waits (see ClientSession.request_blocking)."""

    cancel: Callable[[], None]

    def fileno(self) -> int: ...

    def interval(self) -> float | None:
        """At most this many seconds between serves, or None."""
        ...

    def serve(self) -> None: ...


class Pending:
    """One request awaiting its reply."""

    __slots__ = (
        "call",
        "deadline",
        "future",
        "method",
        "on_progress",
        "params",
        "rid",
        "rounds",
        "settled",
        "span",
        "tag",
        "timeout",
        "watched",
    )

    def __init__(self, future: Any, method: str, timeout: float | None, rid: int | str | None = None) -> None:
        self.future = future  # an asyncio.Future, or an Answer for blocking calls
        self.method = method
        # The id on the wire: a new one per input-required round (rounds.py), None between
        # rounds (nothing in flight while the answers are gathered).
        self.rid = rid
        self.params: JSON | None = None  # as sent: a round's retry resends them
        self.rounds: Rounds | None = None  # once the server asked for input
        if timeout is not None and not 0 < timeout < math.inf:  # (every request's timeout passes here)
            if timeout != math.inf:
                # NaN would be no deadline at all, and a negative one a request never waited for.
                raise ValueError(f"timeout must be a number of seconds above 0 (None: no limit), not {timeout!r}")
            timeout = None  # no limit, as None says (a wait cannot count down from infinity)
        self.timeout = timeout
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.on_progress: ProgressCallback | None = None
        self.settled = False  # cheaper to poll than future.done(), which takes a lock
        self.watched = False  # a blocking call whose reader the loop abandons at the deadline
        self.call: Any = None  # its entry in the history (history/calls.py), if recorded
        self.tag: str | None = None  # REQUEST_TAG where it was sent
        self.span: Any = None  # its OpenTelemetry span, when tracing (tracing.py)

    def is_settled(self) -> bool:
        return self.settled

    def settled_or_asked(self) -> bool:
        return self.settled or self.rounds is not None

    def restart_clock(self) -> None:
        """The server reported progress: the timeout counts from now."""
        if self.timeout is not None:
            self.deadline = time.monotonic() + self.timeout


class Answer:
    """A blocking request's outcome. Lighter than a concurrent.futures.Future (no lock,
    no condition): usually the waiting thread reads the reply itself, so an Event is made
    only when another thread has to wake it."""

    __slots__ = ("_done", "_error", "_event", "_result")

    def __init__(self) -> None:
        self._done = False
        self._result: Any = None
        self._error: BaseException | None = None
        self._event: threading.Event | None = None

    def done(self) -> bool:
        return self._done

    def cancelled(self) -> bool:
        return False  # a cancelled blocking request fails (RequestCancelled): as asyncio.Future's, for the history

    def exception(self) -> BaseException | None:
        """Its error, once done (None: it has a result)."""
        return self._error

    def set_result(self, result: Any) -> None:
        self._result = result
        self._finish()

    def set_exception(self, error: BaseException) -> None:
        self._error = error
        self._finish()

    def _finish(self) -> None:
        self._done = True
        event = self._event  # read after _done: a waiter that made it later sees _done
        if event is not None:
            event.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Whether it is done, waiting up to ``timeout`` seconds for it."""
        if not self._done:
            if self._event is None:
                self._event = threading.Event()
            if not self._done:
                self._event.wait(timeout)
        return self._done

    def result(self, timeout: float | None = None) -> Any:
        if not self.wait(timeout):
            raise concurrent.futures.TimeoutError
        if self._error is not None:
            raise self._error
        return self._result


class PendingRequests:
    """The requests in flight, by id (``by_id``). ``on_overdue(id)``: a blocking request
    whose reader must be cut at its deadline (see ``Pending.watched``) has reached it."""

    def __init__(self, name: str, on_overdue: Callable[[int | str], None]) -> None:
        self.name = name
        self.by_id: dict[int | str, Pending] = {}
        self.loop_thread: int | None = None  # where asyncio futures are settled
        self._ids = itertools.count(1)
        self._on_overdue = on_overdue
        self._sweep_at: float | None = None
        self._sweep_timer: asyncio.TimerHandle | None = None
        self.holds = 0  # inside ``stopped()``: no request times out
        self.stopped_for = 0.0  # seconds the clocks stood still, all told

    @contextlib.contextmanager
    def stopped(self) -> Iterator[None]:
        """The clocks stand still (on the loop) while a person is asked, to log in: a
        request waiting behind the login keeps the time it had left for the server's answer,
        and ``stopped_for`` grows by the pause (the handshake's deadline follows it)."""
        self.holds += 1
        since = time.monotonic()
        try:
            yield
        finally:
            self.holds -= 1
            paused = time.monotonic() - since
            self.stopped_for += paused
            deadlines = []
            for pending in list(self.by_id.values()):  # a blocking call may add or remove one meanwhile
                if pending.deadline is not None:
                    pending.deadline += paused
                    if isinstance(pending.future, asyncio.Future) or pending.watched:
                        deadlines.append(pending.deadline)
            if deadlines and not self.holds:
                self._sweep_at = None  # a sweep that came meanwhile did nothing: plan anew
                self.watch(asyncio.get_running_loop(), min(deadlines))

    def tag_of(self, rid: int | str | None) -> str | None:
        """The REQUEST_TAG of request ``rid`` if it is in flight, else None."""
        pending = None if rid is None else self.by_id.get(rid)
        return None if pending is None else pending.tag

    def new_id(self) -> int:
        return next(self._ids)  # atomic: blocking calls come from any thread

    def add(self, rid: int, method: str, timeout: float | None, future: Any) -> Pending:
        pending = self.by_id[rid] = Pending(future, method, timeout, rid)
        return pending

    def remap(self, pending: Pending, rid: int, loop: asyncio.AbstractEventLoop) -> None:
        """A retry (an input-required round) under a new id: the same Pending waits for it,
        and its clock restarts (on the loop)."""
        self.by_id[rid], pending.rid = pending, rid
        pending.restart_clock()
        if pending.deadline is not None and isinstance(pending.future, asyncio.Future):
            self.watch(loop, pending.deadline)

    def settle(self, pending: Pending, result: JSON | None = None, error: MCPError | None = None) -> None:
        """Complete a request's future. Responses may be read on a blocking caller's
        thread (see PipeReader.pump): an asyncio future is then settled on its loop."""
        future = pending.future
        if isinstance(future, asyncio.Future) and threading.get_ident() != self.loop_thread:
            future.get_loop().call_soon_threadsafe(self.settle, pending, result, error)
            return
        if future.done():
            return
        pending.settled = True
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def fail_all(self, error_for: Callable[[str], MCPError]) -> None:
        """The connection is over: every request fails with ``error_for(method)``."""
        if self._sweep_timer is not None:  # the loop would hold the session (and all it holds) until then
            self._sweep_timer.cancel()
            self._sweep_timer = self._sweep_at = None
        for pending in list(self.by_id.values()):
            self.settle(pending, error=error_for(pending.method))

    def timeout_error(self, pending: Pending) -> RequestTimeout:
        return RequestTimeout(
            f"{pending.method} to server {self.name!r} got no answer in {pending.timeout:g} s; "
            "the request was cancelled: raise the timeout or check the server's logs"
        )

    def wait_here(
        self, pending: Pending, pump: Pump, waker: Waker | None, watcher: asyncio.AbstractEventLoop | None
    ) -> JSON:
        """A blocking request's wait, on its caller's thread: read the reply here (``pump``,
        the transport's) when nobody else is reading it, else wait for whoever is. A waker
        is served whenever it is woken. ``watcher``: the loop that cuts the read at the
        deadline, for a transport whose pump cannot wait with one (HTTP streams)."""
        future = pending.future
        wake_fd = None if waker is None else waker.fileno()
        if watcher is not None and pending.deadline is not None and not pending.settled:
            pending.watched = True
            watcher.call_soon_threadsafe(self.watch, watcher, pending.deadline)
        while True:
            remaining = None if pending.deadline is None else pending.deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise self.timeout_error(pending)
            step = remaining if waker is None else _shortest(remaining, waker.interval())
            if pending.rounds is not None:  # the clock restarts with each retry (on the loop): look again soon
                step = _shortest(step, 0.1)
            # A pump that reads the server's question stops there: the loop answers it and may
            # settle the request, which wakes no pump (it went on to wait out the whole timeout).
            done = pending.is_settled if pending.rounds is not None else pending.settled_or_asked
            if not pending.settled and pump(done, step, wake_fd):
                if waker is not None and not pending.settled:
                    waker.serve()  # woken: the server asked something, or time to poll
                continue
            # Whether it is done, not result()'s TimeoutError: an answer that lands just as
            # the wait times out, or an error the answer itself is, must not be taken for one.
            if future.wait(step if waker is None else _shortest(step, 0.05)):
                return future.result()  # type: ignore[no-any-return]
            if waker is not None:
                waker.serve()
            # else: progress may have moved the deadline; look again

    def watch(self, loop: asyncio.AbstractEventLoop, deadline: float) -> None:
        # One timer for all requests, at the earliest deadline, rather than a timer per
        # request: deadlines move (progress) and mostly grow, so this rarely reschedules.
        if self._sweep_at is not None and self._sweep_at <= deadline:
            return
        if self._sweep_timer is not None:
            self._sweep_timer.cancel()
        self._sweep_at = deadline
        self._sweep_timer = loop.call_at(deadline, self._sweep, loop)  # loop.time() is time.monotonic()

    def _sweep(self, loop: asyncio.AbstractEventLoop) -> None:
        self._sweep_at = self._sweep_timer = None
        if self.holds:
            return  # the clocks stand still; ``stopped`` plans the next sweep
        now = time.monotonic()
        later: float | None = None
        for rid, pending in list(self.by_id.items()):
            if pending.deadline is None:
                continue
            if not isinstance(pending.future, asyncio.Future):
                # Blocking calls keep their own time; a watched one is read where only a cut
                # stream wakes its reader: cut it, and the caller raises the timeout.
                if not pending.watched:
                    continue
                if pending.deadline <= now:
                    pending.watched = False
                    self._on_overdue(rid)
                    continue
            elif pending.deadline <= now:
                self.settle(pending, error=self.timeout_error(pending))
                continue
            if later is None or pending.deadline < later:
                later = pending.deadline
        if later is not None:
            self.watch(loop, later)


__all__ = ["REQUEST_TAG", "Answer", "Pending", "PendingRequests", "ProgressCallback", "Waker"]
