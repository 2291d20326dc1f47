"""A server-sent events reader (the WHATWG event-stream format) with a size limit.

It reads bytes, not text lines, so that one event cannot grow past the limit in memory
before it is refused, and it costs little per event.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass


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


async def events(chunks: AsyncIterable[bytes], max_size: int) -> AsyncIterator[Event]:
    """The events in a byte stream. EventTooLarge once a pending event passes ``max_size``."""
    buffer = bytearray()
    scanned = 0  # the buffer holds no line end before this offset
    data: list[bytes] = []
    size = 0
    kind, event_id, retry = b"", None, None
    async for chunk in chunks:
        buffer += chunk
        if len(buffer) + size > max_size:
            raise EventTooLarge(len(buffer) + size)
        start = 0
        while True:
            end = _line_end(buffer, max(start, scanned))
            if end is None:
                break
            line = bytes(buffer[start : end[0]])
            start = scanned = end[1]
            if not line:  # a blank line dispatches the event
                if data or kind or event_id is not None or retry is not None:
                    text = b"\n".join(data).decode("utf-8", "replace")
                    yield Event(kind.decode("utf-8", "replace") or "message", text, event_id, retry)
                data, size, kind, retry = [], 0, b"", None
                continue
            if line.startswith(b":"):
                continue  # a comment (keep-alive)
            name, _, value = line.partition(b":")
            if value.startswith(b" "):
                value = value[1:]
            if name == b"data":
                data.append(value)
                size += len(value) + 1
            elif name == b"event":
                kind = value
            elif name == b"id" and b"\0" not in value:
                event_id = value.decode("utf-8", "replace")
            elif name == b"retry" and value.isdigit():
                retry = int(value)
        del buffer[:start]
        scanned = max(len(buffer) - 1, 0)  # a trailing CR may still become CRLF: look at it again


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
