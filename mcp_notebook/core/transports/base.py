"""What a transport is: it moves JSON-RPC messages and reports what it sees to a sink."""

from __future__ import annotations

from typing import Any, Protocol

from ...errors import MCPError


class MessageSink(Protocol):
    """The receiving side of a transport (a ClientSession)."""

    def on_message(self, message: dict[str, Any]) -> None: ...

    def on_too_large(self, request_id: int | str | None, size: int) -> None: ...

    def on_closed(self, error: MCPError | None) -> None: ...

    def fail_request(self, request_id: int | str, error: MCPError) -> None: ...


class Transport(Protocol):
    max_message_size: int

    async def start(self, sink: MessageSink) -> None: ...

    async def send(self, message: dict[str, Any]) -> None: ...

    async def close(self) -> None: ...

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
