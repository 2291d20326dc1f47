"""The event-stream reader: the WHATWG format however the bytes are split, and the size
limit enforced while reading."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from mcp_notebook.core.transports.http.eventstream import Event, EventTooLarge, events

STREAM = (
    b": keep-alive\r\n"
    b"id: 1\r\nretry: 500\r\ndata: \r\n\r\n"  # a priming event: an id and an empty data line
    b'event: message\ndata: {"a":\ndata: 1}\n\n'  # two data lines join with a newline
    b"event: endpoint\rdata: /messages?s=x\r\r"  # CR alone ends lines too
    b"data: caf\xc3\xa9\n\n"
)
EXPECTED = [
    Event("message", "", "1", 500),
    Event("message", '{"a":\n1}', "1", None),
    Event("endpoint", "/messages?s=x", "1", None),
    Event("message", "café", "1", None),
]


async def _chunks(data: bytes, size: int) -> AsyncIterator[bytes]:
    for i in range(0, len(data), size):
        yield data[i : i + size]


def _read(data: bytes, size: int, limit: int = 1 << 20) -> list[Event]:
    async def main() -> list[Event]:
        return [e async for e in events(_chunks(data, size), limit)]

    return asyncio.run(main())


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
def test_events_whatever_the_chunking(size: int) -> None:
    assert _read(STREAM, size) == EXPECTED


def test_an_event_over_the_limit_is_refused_while_reading() -> None:
    big = b"data: " + b"x" * 5000 + b"\n\n"
    with pytest.raises(EventTooLarge):
        _read(big, 100, limit=1000)
    assert _read(b"data: ok\n\n" * 50, 100, limit=1000) == [Event("message", "ok")] * 50  # small ones pass
