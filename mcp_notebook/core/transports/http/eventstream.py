"""The event-stream parser (the WHATWG ``text/event-stream`` format that server-sent events
use), with a size limit. The transports that read such streams are streamable.py (with exchange.py) and legacy.py.

It reads bytes, not text lines, so that one event cannot grow past the limit in memory
before it is refused, and it costs little per event. ``events`` reads an async byte
stream, ``iter_events`` a blocking one.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass

from ..base import Limit, as_limit


@dataclass
class Event:
    event: str = "message"
    data: str = ""
    id: str | None = None
    retry: int | None = None  # milliseconds


class EventTooLarge(Exception):
    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


class EventParser:
    """Bytes in, complete events out. EventTooLarge once a pending event passes ``max_size``
    (asked per chunk: a stream open for the whole connection follows a changed setting)."""

    def __init__(self, max_size: int | Limit) -> None:
        self.max_size = as_limit(max_size)
        self._buffer = bytearray()
        self._scanned = 0  # the buffer holds no line end before this offset
        self._data: list[bytes] = []
        self._size = 0
        self._kind = b""
        self._id: str | None = None  # the last event id lasts across events
        self._retry: int | None = None
        self._fields = False  # a field came since the last event

    def feed(self, chunk: bytes) -> list[Event]:
        buffer = self._buffer
        buffer += chunk
        if len(buffer) + self._size > self.max_size():
            raise EventTooLarge(len(buffer) + self._size)
        out: list[Event] = []
        start = 0
        while True:
            end = _line_end(buffer, max(start, self._scanned))
            if end is None:
                break
            line = bytes(buffer[start : end[0]])
            start = self._scanned = end[1]
            if line:
                self._field(line)
            elif self._fields:  # a blank line dispatches the event
                text = b"\n".join(self._data).decode("utf-8", "replace")
                out.append(Event(self._kind.decode("utf-8", "replace") or "message", text, self._id, self._retry))
                self._data, self._size, self._kind, self._retry, self._fields = [], 0, b"", None, False
        del buffer[:start]
        self._scanned = max(len(buffer) - 1, 0)  # a trailing CR may still become CRLF: look at it again
        return out

    def _field(self, line: bytes) -> None:
        if line.startswith(b":"):
            return  # a comment (keep-alive)
        self._fields = True
        name, _, value = line.partition(b":")
        if value.startswith(b" "):
            value = value[1:]
        if name == b"data":
            self._data.append(value)
            self._size += len(value) + 1
        elif name == b"event":
            self._kind = value
        elif name == b"id" and b"\0" not in value:
            self._id = value.decode("utf-8", "replace")
        elif name == b"retry" and value.isdigit():
            self._retry = int(value)


async def events(chunks: AsyncIterable[bytes], max_size: int | Limit) -> AsyncIterator[Event]:
    parser = EventParser(max_size)
    async for chunk in chunks:
        for event in parser.feed(chunk):
            yield event


def iter_events(chunks: Iterable[bytes], max_size: int | Limit) -> Iterator[Event]:
    parser = EventParser(max_size)
    for chunk in chunks:
        yield from parser.feed(chunk)


def _line_end(buffer: bytearray, start: int) -> tuple[int, int] | None:
    """Where the first line end at or after ``start`` is and where the next line begins
    (CRLF, LF or CR), or None."""
    lf = buffer.find(b"\n", start)
    cr = buffer.find(b"\r", start, lf if lf >= 0 else len(buffer))
    if cr >= 0:
        if cr + 1 == len(buffer):
            return None  # a CR at the end may be the first half of CRLF: wait for more
        return (cr, cr + 2) if buffer[cr + 1 : cr + 2] == b"\n" else (cr, cr + 1)
    return None if lf < 0 else (lf, lf + 1)


__all__ = ["Event", "EventParser", "EventTooLarge", "events", "iter_events"]
