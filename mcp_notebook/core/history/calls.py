"""The kernel's history of requests (``%mcp history``) and each server's JSON-RPC
transcript (``%mcp transcript``): bounded rings, recorded cheaply, read lazily.

Recording sits on every request's path (the bulk map's too), so it keeps what is already
there: an answer as the line or body it was read in (the session hands it to its call,
``answered``, before the caller hears it), a request as the line or body written.
Redaction, elision, sizes and text are worked out when the history is viewed or exported.
Lines rather than dicts: a map's last 1,000 rows kept as two small objects each, not two
trees of dicts, leave the memory its next rows use warm (bench_history: a map row's
recording costs a third of what it did). A big message (over ``HEAVY_AT`` bytes as read: a
resource, a file) is the exception: it is kept as it is shown, elided, so that the history
never holds a big payload the caller has let go; a big request is kept as its dict (a
reference: the caller's arguments, which the runtime does not copy deeply).
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import deque
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol

from ...errors import RequestCancelled
from ..loggers import Once
from ..protocol.rounds import INPUT_REQUIRED
from ..safety.redact import redact_url, shown
from ..safety.text import clipped, printable
from .rows import VIEWING, row_or_note, size

if TYPE_CHECKING:
    from ..transports.base import Raw

JSON = dict[str, Any]
HISTORY_SIZE = 1000  # requests kept per kernel, and messages per server in its transcript
HEAVY_AT = 1 << 16  # bytes: a message read bigger than this is kept elided, never whole
NAMED = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri", "resources/subscribe": "uri"}
REPLAYED = ("tools/call", "prompts/get", "resources/read")  # what an exported script redoes


class Recorder(Protocol):
    """What a session tells about its traffic (see ClientSession): each message it sends,
    each it receives, and each request's end (called while its outcome is in flight)."""

    def sent(self, message: JSON) -> Call | None: ...

    def retried(self, message: JSON) -> None:
        """A request sent again under a new id (an input-required round): the same call."""
        ...

    def received(self, message: JSON, raw: Raw | None = None) -> None:
        """A message from the server; ``raw``: as read, when the transport read it alone."""
        ...

    def answered(self, call: Call | None, message: JSON, raw: Raw | None) -> None:
        """``message`` (already ``received``; ``raw`` as read, if known) answers the request
        ``call`` was recorded for, before that request's caller hears it."""
        ...

    def unmatched(self, message: JSON, raw: Raw | None = None) -> None:
        """A response (already ``received``) that no request waits for: one that came after
        its request timed out or was cancelled, or a second answer."""
        ...

    def done(self, call: Call | None, future: Any, line: bytes | None = None) -> None:
        """``call``'s request has ended (``future``: its outcome); ``line``: the request as
        written (a stdio line, an HTTP body; None: not whole)."""
        ...


class NotRecording:
    """The recorder of a session nobody records (history_size 0, or a bare session)."""

    def sent(self, message: JSON) -> Call | None:
        return None

    def retried(self, message: JSON) -> None:
        pass

    def received(self, message: JSON, raw: Raw | None = None) -> None:
        pass

    def answered(self, call: Call | None, message: JSON, raw: Raw | None) -> None:
        pass

    def unmatched(self, message: JSON, raw: Raw | None = None) -> None:
        pass

    def done(self, call: Call | None, future: Any, line: bytes | None = None) -> None:
        pass


NOT_RECORDING = NotRecording()


class Call:
    """One request: what was sent, when, and (once done) how it ended."""

    __slots__ = (
        "_message",
        "answer",
        "duration",
        "error",
        "note",
        "raw_out",
        "rid",
        "server",
        "size_in",
        "started",
        "time",
    )

    def __init__(self, server: str, message: JSON) -> None:
        self.server = server
        self._message: JSON | None = message  # dropped when it ends, if ``raw_out`` holds it
        self.rid = message.get("id")
        self.raw_out: bytes | None = None  # the request as written (a line, a body), once it ends: see ``done``
        self.time = time.time()
        self.started = time.monotonic()
        self.duration: float | None = None  # None: still in flight
        # How it failed, as text: not the exception, whose traceback would keep every frame
        # it passed through alive (a removed server's session among them) while it is here.
        self.error: str | None = None
        # The result: the line it came in (decoded when viewed; from ``answered``), else the
        # result as received; a big one (see HEAVY_AT) as shown, with its size as read.
        self.answer: Any = None
        self.size_in: int | None = None
        # A refusal the client expected (a legacy server's answer to the era probe, which
        # the handshake notes here): the outcome shown, and not a failure.
        self.note: str | None = None

    def __repr__(self) -> str:
        return f"<Call {self.server}.{printable(self.method)} {clipped(self.outcome, 60)}>"

    @property
    def message(self) -> JSON:
        """The request as sent."""
        message = self._message
        if message is not None:
            return message
        # Kept as its line: read again each time it is looked at (rarely; kept, the dicts would
        # be held beside the line).
        read = _read(self.raw_out)
        return read if isinstance(read, dict) else {"jsonrpc": "2.0", "id": self.rid, "method": "?"}

    @property
    def method(self) -> str:
        return str(self.message.get("method", ""))

    @property
    def params(self) -> JSON:
        params = self.message.get("params")
        return params if isinstance(params, dict) else {}

    @property
    def name(self) -> str | None:
        """The tool, prompt or resource the request is about."""
        key = NAMED.get(self.method)
        value = self.params.get(key) if key else None
        return value if isinstance(value, str) else None

    @property
    def arguments(self) -> Any:
        """What the request carried beyond its name (no ``_meta``), as sent."""
        params = self.params
        if "arguments" in params:
            return params["arguments"]
        return {k: v for k, v in params.items() if k != "_meta" and k != NAMED.get(self.method)}

    @property
    def outcome(self) -> str:
        """``ok``, ``cancelled``, ``in flight``, the error's text, ``tool error: …`` (a
        tool's result that says it failed), or what an expected refusal was (not a failure)."""
        if self.duration is None:
            return "in flight"
        if self.note is not None:
            return self.note
        if self.error is not None:
            return self.error
        result = self._answer()
        if isinstance(result, dict) and result.get("isError") is True:
            content = result.get("content")
            first = content[0] if isinstance(content, list) and content else None
            text = first.get("text") if isinstance(first, dict) else None
            return f"tool error: {text[:300]}" if isinstance(text, str) else "tool error"
        return "ok"

    @property
    def ok(self) -> bool:
        """Whether it ended well (a tool's error result did not)."""
        return self.outcome == "ok"

    @property
    def failed(self) -> bool:
        return self.duration is not None and self.note is None and not self.ok

    def _answer(self) -> Any:
        if self.error is not None:
            return None
        answer = self.answer
        if isinstance(answer, (bytes, bytearray, str)):  # the line it came in
            message = _read(answer)
            return message.get("result") if isinstance(message, dict) else f"unreadable answer ({len(answer)} bytes)"
        return answer

    @property
    def result(self) -> Any:
        """The result as received (None unless it ended well)."""
        return self._answer() if self.ok else None

    def reply(self) -> tuple[JSON, int | None] | None:
        """The server's answer as the transcript shows it, and its size when it was kept
        as shown (a big one); None while in flight or when it failed (a failure's reply, if
        the server sent one, is in the transcript's own ring)."""
        if self.duration is None or self.error is not None:
            return None
        result = self._answer()
        if result is None:
            return None
        return {"jsonrpc": "2.0", "id": self.rid, "result": result}, self.size_in

    @property
    def bytes_out(self) -> int:
        """The request's size as compact JSON (as written: a stdio line less its newline, a body)."""
        raw = self.raw_out
        return len(raw) - raw.endswith(b"\n") if raw is not None else size(self.message)

    @property
    def bytes_in(self) -> int | None:
        if self.size_in is not None:
            return self.size_in
        answer = self.answer
        if isinstance(answer, (bytes, bytearray)) and self.error is None:
            return len(answer)
        if isinstance(answer, str) and self.error is None:
            return len(answer.encode())
        result = self._answer()
        return None if result is None else size({"jsonrpc": "2.0", "id": self.rid, "result": result})

    def row(self) -> JSON:
        """The call as one row of ``%mcp history``: redacted, big values elided (a row that
        cannot be shown says so; the others show)."""
        try:
            return self._row()
        except Exception as e:
            VIEWING.failed(e)
            return {
                "time": self.time, "server": self.server, "method": self.method, "name": None, "arguments": None,
                "duration": self.duration, "outcome": f"(not shown: {type(e).__name__})", "bytes_out": 0,
                "bytes_in": None,
            }  # fmt: skip

    def _row(self) -> JSON:
        return {
            "time": self.time,
            "server": self.server,
            "method": self.method,
            "name": None if self.name is None else printable(redact_url(self.name)),  # a URI's ?api_key=
            "arguments": shown(self.arguments),
            "duration": self.duration,
            "outcome": printable(self.outcome),  # an error's text is the server's: untrusted
            "bytes_out": self.bytes_out,
            "bytes_in": self.bytes_in,
        }


def _read(raw: Raw | None) -> Any:
    """A kept line as JSON, as the transport read it (``json.loads`` takes a BOM, UTF-16…);
    None when it cannot be read now (a view never raises)."""
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def _answer_of_a_call(message: JSON) -> bool:
    """A response that ends a request (not an error, not an input-required round)."""
    result = message.get("result")
    return type(result) is dict and result.get("resultType") != INPUT_REQUIRED


def ended(error: BaseException) -> str:
    """A request's failure as the history says it."""
    if isinstance(error, (KeyboardInterrupt, asyncio.CancelledError, RequestCancelled)):
        return "cancelled"
    return f"{type(error).__name__}: {error}"


class ServerRecorder:
    """A session's recorder: its calls go to the kernel's history, its messages to the
    server's transcript."""

    __slots__ = ("_history", "server")

    def __init__(self, history: History, server: str) -> None:
        self._history = history
        self.server = server

    def __repr__(self) -> str:
        return f"<ServerRecorder {self.server!r}>"

    def sent(self, message: JSON) -> Call | None:
        if "id" not in message or "method" not in message:  # a notification or a reply to the server
            self._history.transcripts[self.server].append(("out", time.time(), message, None))
            return None
        # A request: its call is its place in the transcript too (History.transcript), so
        # that a call costs one record, not three (a bulk map's rows are many).
        call = Call(self.server, message)
        self._history.calls.append(call)
        return call

    def retried(self, message: JSON) -> None:
        self._history.transcripts[self.server].append(("out", time.time(), message, None))

    def received(self, message: JSON, raw: Raw | None = None) -> None:
        if "method" not in message:
            result = message.get("result")  # _answer_of_a_call, inline: every reply comes here
            if type(result) is dict and result.get("resultType") != INPUT_REQUIRED:
                return  # its call keeps it (answered), or the transcript does (unmatched)
        self._keep(message, raw)  # the server's requests and notifications, errors, input-required rounds

    def answered(self, call: Call | None, message: JSON, raw: Raw | None) -> None:
        if call is None:
            return
        if raw is not None and len(raw) > HEAVY_AT:  # kept as shown, never whole: bounded work, whatever the size
            call.answer, call.size_in = self._shown(message.get("result")), len(raw)
        else:
            call.answer = raw

    def unmatched(self, message: JSON, raw: Raw | None = None) -> None:
        if _answer_of_a_call(message):  # (anything else, received() kept)
            self._keep(message, raw)

    def _keep(self, message: JSON, raw: Raw | None) -> None:
        """In the transcript's own ring: a big message as shown, with its size as read."""
        if raw is not None and len(raw) > HEAVY_AT:
            self._history.transcripts[self.server].append(("in", time.time(), self._shown(message), len(raw)))
        else:
            self._history.transcripts[self.server].append(("in", time.time(), message, None))

    def _shown(self, value: Any) -> Any:
        """A big message kept as shown; one that cannot be is kept as a note, said once: the
        message itself goes on to whoever waits for it."""
        try:
            return shown(value)
        except Exception as e:
            self._history.recording.failed(e)
            return f"(not kept: {type(e).__name__})"

    def done(self, call: Call | None, future: Any, line: bytes | None = None) -> None:
        """``future``: an asyncio.Future or an Answer (a blocking request's), never waited on here.
        ``line``: kept instead of the request's dicts, unless it is big (its arguments are the
        caller's: a copy would be held here alone)."""
        if call is not None:
            call.duration = time.monotonic() - call.started
            if line is not None and len(line) <= HEAVY_AT:
                call.raw_out = line
                call._message = None  # its line holds it: the dicts go now, while their memory is warm
            # An answered future says it ended well, whatever sys.exc_info() says: a request
            # sent inside an except block (a -32020 retry, a caller's handler) sees the
            # error handled there, not one of its own.
            if not future.done() or future.cancelled() or future.exception() is not None:
                error = sys.exc_info()[1]  # called from a finally: the exception on its way out
                call.error = "no answer" if error is None else ended(error)
                call.answer = None
                return  # its future holds the exception (and so its traceback): not kept
            if call.answer is None:  # not read as a line (HTTP's JSON body, a blocking call's)
                call.answer = future.result()


class History:
    """The kernel's requests (all servers) and each server's transcript, ``size`` each."""

    def __init__(self, size: int = HISTORY_SIZE) -> None:
        self._size = size
        self.calls: deque[Call] = deque(maxlen=size)
        # Looked up per message, so that a resize reaches the sessions already recording.
        # (direction, time, message, size): size None for a message kept whole (worked out
        # when shown), else its size as read, the message kept as shown (see HEAVY_AT).
        self.transcripts: dict[str, deque[tuple[str, float, JSON, int | None]]] = {}
        self.recording = Once("recording a message in the transcript")

    def __repr__(self) -> str:
        return f"<History calls={len(self.calls)} size={self._size}>"

    @property
    def size(self) -> int:
        return self._size

    @size.setter
    def size(self, size: int) -> None:
        if size == self._size:
            return
        self._size = size
        self.calls = deque(self.calls, maxlen=size)
        for name, ring in list(self.transcripts.items()):
            self.transcripts[name] = deque(ring, maxlen=size)

    def recorder(self, server: str) -> Recorder:
        """What a new session of ``server`` records with (nothing when the size is 0)."""
        if self._size <= 0:
            return NOT_RECORDING
        if server not in self.transcripts:
            self.transcripts[server] = deque(maxlen=self._size)
        return ServerRecorder(self, server)

    def records(self, server: str | None = None, last: int | None = None, errors: bool = False) -> list[Call]:
        """The calls, oldest first: one server's or all, only those that failed, the last N."""
        calls = [c for c in list(self.calls) if (server is None or c.server == server) and (not errors or c.failed)]
        return calls[-last:] if last else calls

    def transcript(self, server: str, last: int | None = None) -> list[JSON]:
        """``server``'s messages both ways, oldest first, as rows (redacted, elided): its
        calls still in the history (each request and its answer) and the other messages,
        in the order they came: the last ``size`` (or ``last``) of them."""
        messages = [(t, d, m, n) for d, t, m, n in list(self.transcripts.get(server, ()))]
        for call in list(self.calls):
            if call.server != server:
                continue
            messages.append((call.time, "out", call.message, None))
            reply = call.reply()
            if reply is not None and call.duration is not None:
                messages.append((call.time + call.duration, "in", *reply))
        messages.sort(key=lambda m: m[0])  # stable: a call's request before what it was sent with
        messages = messages[-min(last or self._size, self._size) :]  # the last ``size`` at most
        return [row_or_note(d, t, m, n) for t, d, m, n in messages]

    def clear(self) -> None:
        self.calls.clear()
        for ring in self.transcripts.values():
            ring.clear()


def successful(calls: list[Call]) -> Iterator[Call]:
    """The calls a script can replay: the ones that ended well and act on a server."""
    return (c for c in calls if c.ok and c.method in REPLAYED)


__all__ = [
    "HISTORY_SIZE",
    "NOT_RECORDING",
    "Call",
    "History",
    "NotRecording",
    "Recorder",
    "ServerRecorder",
    "shown",
    "successful",
]
