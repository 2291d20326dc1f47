"""The Streamable HTTP transport: the loop's side (exchange.py) and the fast path.

The fast path: a blocking caller (``ClientSession.request_blocking``, through the
``BlockingTransport`` seam) POSTs from its own thread with a blocking httpx client and reads
its reply there, with no hop to the background loop and back. What holds it together:

- Who reads: a request's reply stream is read by the thread that POSTed it (``pump``), or,
  once that thread gives up or the stream drops, by the loop (``_follow`` resumes or reports
  it lost). One reader at a time: ``_pumped`` holds the streams a caller's thread reads, so
  that the loop can cut them (``abandon``, ``close``).
- Order: what the server sends besides the reply (its requests, notifications) always goes
  to the loop, in order, through the inbox; a reply read on the caller's thread waits behind
  anything the loop has not handled yet (inbox.py).
- Deadlines: a blocking read of a stream that keeps sending keep-alive comments never times
  out, so the loop cuts it at the request's deadline (``pump_needs_watch``); after the reply,
  the stream is cut ``REPLY_TAIL`` later, if the server keeps it open.
- A reply cut off mid-answer is sent again by the loop, as when its own read is cut.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import httpx

from ...protocol import jsonline
from ..base import BlockingTransport
from .eventstream import EventTooLarge, iter_events
from .exchange import StreamableHttpLoop
from .replies import ReplyBody, cut_response, timed_out
from .shared import REPLY_TAIL, Cursor, unreachable


class StreamableHttpTransport(StreamableHttpLoop, BlockingTransport):
    """Streamable HTTP, for the loop and for blocking callers alike (see the module's notes)."""

    nonblocking_send = False  # send_nowait does network I/O: the loop must not call it
    # pump cannot wait with a deadline (a blocking read of a stream that keeps sending
    # keep-alive comments never times out): the session's loop abandons it at the deadline.
    pump_needs_watch = True

    def __init__(self, url: str, **options: Any) -> None:
        super().__init__(url, **options)
        self._sync_client: httpx.Client | None = None  # the blocking callers', made on first use
        self._sync_lock = threading.Lock()
        self._local = threading.local()  # a blocking caller's open reply stream
        self._pumped: dict[int | str, httpx.Response] = {}  # blocking callers' reply streams, by request

    # -- a blocking caller's side (its own thread) -------------------------------------

    def _sync(self) -> httpx.Client:
        with self._sync_lock:
            if self._sync_client is None:
                self._sync_client = httpx.Client(
                    headers=self.headers, timeout=self._timeouts(self.read_timeout), verify=self._verify()
                )
            return self._sync_client

    def send_nowait(self, message: dict[str, Any], timeout: float | None = None) -> bytes | None:
        """POST from this thread. A request's reply is read here too: at once when it is
        JSON, by ``pump`` when it is a stream. ``timeout``: silence that ends the wait."""
        if self._closed:
            raise self._gone()
        rid = message.get("id") if "method" in message else None
        if rid is None and self._inbox.on_loop():
            self._spawn(self._post(message, None))  # a notification sent from the loop itself
            return None
        stale = self._local.__dict__.pop("stream", None)
        if stale is not None:  # a stream its caller gave up on before reading (a timeout)
            self._pumped.pop(stale[1], None)
            stale[0].close()
        client = self._sync()
        body = jsonline.encode(message)
        sent_session = self.session_id
        read = timeout if timeout is not None else self.read_timeout
        headers = self._request_headers(self.auth.header_now("POST", self.url) if self.auth else None, message)
        try:
            timeouts = self._timeouts(read)
            request = client.build_request("POST", self.url, content=body, headers=headers, timeout=timeouts)
            response = client.send(request, stream=True)
        except httpx.TimeoutException:
            raise timed_out(str(message.get("method")), self.shown, read) from None
        except httpx.HTTPError as e:
            raise unreachable(self.shown, e) from None
        handed_on = False
        try:
            if rid is None:
                return None  # a notification from a thread (a cancel): its answer is an empty 202
            answer = self._answer(message, response)
            if answer == "error":
                response.read()
                self._raise_status(response, sent_session)
            elif answer == "text/event-stream":
                self._local.stream = (response, rid, message, read)
                self._pumped[rid] = response  # where abandon finds it, from the loop
                handed_on = True  # pump reads it
            elif answer == "application/json":
                reply = ReplyBody(self.max_message_size)
                try:
                    for chunk in response.iter_bytes():
                        if not reply.add(chunk):
                            break
                except httpx.TimeoutException:
                    raise timed_out(str(message.get("method")), self.shown, read) from None
                except httpx.HTTPError:
                    # Cut off mid-answer: the loop sends it again, as when its own read is cut.
                    self._inbox.call(self._spawn, self._reissue(message, self._resendable(rid)), rid)
                    return None
                if reply.size:
                    self._deliver(b"".join(reply.chunks), rid, reply.limit)
        finally:
            if not handed_on:
                response.close()
        return body  # as written: the history keeps it rather than the dict

    def pump(self, done: Callable[[], bool], timeout: float | None, wake_fd: int | None = None) -> bool:
        """Read this thread's reply stream to its end (see send_nowait), or until it is cut
        (``abandon``; ``REPLY_TAIL`` after the reply). False when there is nothing to read
        here: the reply then comes by the loop."""
        state = self._local.__dict__.pop("stream", None)
        if state is None:
            return False
        response, rid, message, read = state
        method = message.get("method")
        cursor = Cursor()
        try:
            for event in iter_events(response.iter_bytes(), self.limit):
                if self._on_event(event, cursor, rid):
                    self._inbox.call(self._cut_later, rid)
        except EventTooLarge as e:
            self._event_too_large(cursor, rid, e)
        except httpx.TimeoutException:
            if rid in self._pumped:
                raise timed_out(method, self.shown, read) from None
        except httpx.HTTPError as e:
            if rid in self._pumped:
                self.diagnostics.append(f"event stream ended: {type(e).__name__}: {e}")
        finally:
            cut = self._pumped.pop(rid, None) is None  # abandoned, or cut after its reply
            response.close()
        if not cursor.answered and not cut and not self._closed:
            # Dropped before the reply: the loop resumes it if it can, or says it is lost.
            self._inbox.call(self._spawn, self._follow(rid, cursor, None, message), rid)
        return cursor.answered or cut

    def _cut_later(self, rid: int | str) -> None:
        asyncio.get_running_loop().call_later(REPLY_TAIL, self._cut_pumped, rid)

    def _cut_pumped(self, rid: int | str) -> None:
        """End a blocking caller's read of this request's stream (any thread)."""
        response = self._pumped.pop(rid, None)
        if response is not None:
            cut_response(response)

    def abandon(self, request_id: int | str) -> None:
        self._cut_pumped(request_id)  # a blocking caller's stream, read on another thread
        super().abandon(request_id)  # the loop's: the POST and its stream, or a resumption

    def _stop_readers(self) -> None:
        for rid in list(self._pumped):
            self._cut_pumped(rid)  # a blocking caller reading a stream that would not end
        if self._sync_client is not None:
            self._sync_client.close()


__all__ = ["StreamableHttpTransport"]
