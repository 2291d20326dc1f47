"""What a transport is, as the session and the runtime see it: it moves JSON-RPC messages and
reports what it sees to a sink. ``BlockingTransport`` adds the fast path: a caller's own
thread sends and reads its reply, with no hop to the event loop."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from ...errors import MCPError

DEFAULT_MAX_MESSAGE_SIZE = 32 * 1024 * 1024  # bytes: a stdio line, an HTTP body, an event

# A size limit, asked where it is checked: the runtime gives its setting's current value, so
# that raising it reaches a live connection (its long-lived streams too), not only the next.
Limit = Callable[[], int]
Raw = bytes | bytearray | str  # a message as read (a stdio line, an HTTP body, an event's data)


def as_limit(value: int | Limit) -> Limit:
    """``value`` as a Limit: a callable as it is, a number as one that never changes."""
    return value if callable(value) else lambda: value


class MessageSink(Protocol):
    """The receiving side of a transport (a ClientSession)."""

    def on_message(self, message: dict[str, Any], raw: Raw | None = None, related: int | str | None = None) -> None:
        """One message from the server; ``raw``: the message as read, when the transport
        read it alone (None: it did not, e.g. a batch's items). Its size tells a big one,
        which is not kept whole for a history; a history keeps a small one instead of the dict.
        ``related``: the id of the request whose own reply stream brought it (Streamable
        HTTP); None where nothing says (stdio, a standalone stream)."""
        ...

    def on_too_large(self, request_id: int | str | None, size: int) -> None: ...

    def on_closed(self, error: MCPError | None) -> None: ...

    def fail_request(self, request_id: int | str, error: MCPError) -> None: ...


@runtime_checkable
class Transport(Protocol):
    """Every member the session and the runtime use. ``start``, ``send``, ``close`` and
    ``on_initialized`` run on the event loop; the rest may be called from any thread."""

    @property
    def max_message_size(self) -> int:
        """The limit now (see Limit): a message bigger than this is refused."""
        ...

    remote: bool  # its sessions can end (HTTP 404, a dropped legacy stream) and are renewed
    pid: int | None  # the server's process, when it is ours
    diagnostics: deque[str]  # what it skipped or noticed, for ``%mcp logs``

    async def start(self, sink: MessageSink) -> None: ...

    async def send(self, message: dict[str, Any]) -> bytes | None:
        """Send ``message``; what was written, when it went whole as one line or body (the
        history keeps it rather than the message's dicts), else None."""
        ...

    async def close(self) -> None: ...

    def on_initialized(self, protocol_version: str) -> None:
        """The handshake is done (HTTP: the version goes on every later request)."""
        ...

    def abandon(self, request_id: int | str) -> None:
        """Its caller gave up on this request (a timeout, a cancel): stop reading its reply
        and free what it holds (an HTTP reply stream). Any thread; a no-op when nothing is
        held for one request."""
        ...

    def describe(self) -> str:
        """A short, secret-free description for errors and reprs."""
        ...

    def failure_detail(self) -> str:
        """Extra context for an error message (e.g. the last stderr lines), or ''."""
        ...

    def stderr_text(self) -> str:
        """What the server wrote on stderr (kept lines), or ''."""
        ...


@runtime_checkable
class BlockingTransport(Transport, Protocol):
    """A transport a waiting thread can use itself (``ClientSession.request_blocking``)."""

    # The send never blocks (a pipe write; the rest queued): the loop uses send_nowait too.
    nonblocking_send: bool
    # pump may read past the deadline (HTTP: a stream of keep-alive comments): the session's
    # loop then abandons the request when the deadline passes, which ends the read.
    pump_needs_watch: bool

    def send_nowait(self, message: dict[str, Any], timeout: float | None = None) -> bytes | None:
        """Send from this thread (any thread). ``timeout``: silence that ends the wait for
        an answer, for a transport that reads it during the send. Returns the message as
        written when it is written as such (a stdio line), else None."""
        ...

    def pump(self, done: Callable[[], bool], timeout: float | None, wake_fd: int | None = None) -> bool:
        """Read replies on this thread until ``done()``, ``timeout`` seconds, or ``wake_fd``
        becomes readable. False when there is nothing this thread can read (another reader
        has it, or it ended): the reply then comes by the loop."""
        ...


__all__ = ["DEFAULT_MAX_MESSAGE_SIZE", "BlockingTransport", "Limit", "MessageSink", "Raw", "Transport", "as_limit"]
