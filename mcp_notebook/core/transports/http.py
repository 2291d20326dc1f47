"""Remote transports over httpx: Streamable HTTP (2025-03-26 and later) and the legacy
HTTP+SSE transport (2024-11-05)."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import socket
import ssl
import threading
from collections import deque
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

import httpx

from ...errors import (
    MCPError,
    ProtocolError,
    RequestTimeout,
    ServerExited,
    SessionExpired,
    StartupError,
    TransportError,
)
from ..oauth import OAuth
from ..redact import redact_url
from .base import MessageSink
from .sse import Event, EventTooLarge, events, iter_events

DEFAULT_MAX_MESSAGE_SIZE = 32 * 1024 * 1024
_ACCEPT = "application/json, text/event-stream"
_DEFAULT_RETRY = 1.0  # seconds before reconnecting a stream whose server named no `retry`
_MAX_RETRY = 30.0
_MAX_RESUMES = 5  # reconnections in a row that bring nothing new before giving up
_MAX_ECHOED = 4096  # characters of a value a server hands over to be sent back in a header
# Seconds a reply stream may stay open after its reply: normally it ends at once, and a
# server that keeps it open (keep-alive comments) must not hold a socket, or a blocking
# caller, for ever. Cutting one too early costs only the connection's reuse.
_TAIL = 0.5


class HttpStatusError(TransportError):
    """An HTTP error answer; ``status`` tells which (400/404/405 mean: try legacy SSE)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class AuthChallenge(HttpStatusError):
    """A 401 or 403 on the blocking path: the loop's path logs in and tries again."""


def _short_body(response: httpx.Response) -> str:
    text = response.text.strip().replace("\n", " ")
    if response.headers.get("content-type", "").startswith("text/html"):
        return "an HTML page"
    return repr(text[:200]) if text else "no body"


def _lost(shown: str, cursor: _Cursor | None = None) -> TransportError:
    if cursor is not None and cursor.bad_id is not None:
        return TransportError(
            f"{shown} closed the reply stream before answering and it cannot be resumed: its last event id "
            f"{cursor.bad_id}; run the call again"
        )
    return TransportError(f"{shown} closed the reply stream before answering; run the call again")


def _unresumable(shown: str) -> TransportError:
    return TransportError(f"{shown} dropped the reply stream and cannot resume it; run the call again")


def _not_mcp(shown: str, kind: str) -> TransportError:
    return TransportError(f"{shown} answered with {kind or 'no content type'}, not JSON or an event stream")


def _unsendable(value: str) -> str | None:
    """Why a value a server handed over (a session id, an event id) cannot go back in a
    request header, or None: only visible ASCII (0x21-0x7E) and a bounded length."""
    if len(value) > _MAX_ECHOED:
        return f"is {len(value):,} characters long (at most {_MAX_ECHOED:,} are sent back)"
    bad = next((c for c in value if not "!" <= c <= "~"), None)
    if bad is None:
        return None
    kind = "a space" if bad == " " else "a non-ASCII character" if ord(bad) > 127 else "a control character"
    return f"holds {kind} (a header carries visible ASCII only)"


def _shown_url(url: str) -> str:
    """A URL a server named, fit for a one-line message: anything but visible ASCII
    percent-encoded, secrets hidden, and not too long."""
    shown = redact_url(quote(url, safe="!#$%&'()*+,/:;=?@[]~"))
    return shown if len(shown) <= 200 else shown[:200] + "…"


def _redirect_error(where: str, response: httpx.Response) -> HttpStatusError | None:
    """A 3xx answer, which is never followed (headers, tokens among them, must not go where
    the user did not point): say where it leads. None for any other answer."""
    status = response.status_code
    if not 300 <= status < 400:
        return None
    location = response.headers.get("location")
    if not location:
        return HttpStatusError(f"{where} answered HTTP {status} with no Location: check the URL", status)
    try:
        target = urljoin(str(response.request.url), location)
    except ValueError:
        target = location
    return HttpStatusError(
        f"{where} redirects to {_shown_url(target)} (HTTP {status}), which is not followed: "
        "add that URL if you trust it",
        status,
    )


def _cut(response: httpx.Response) -> None:
    """End a blocking read of ``response`` from another thread. Closing the socket would not
    wake the reader: shutting it down does, and the reader then closes the response."""
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if isinstance(sock, socket.socket):
        try:
            # The plain socket's shutdown: an SSLSocket's own drops its TLS state under the reader.
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        except OSError:
            pass  # already closed


def _timed_out(method: str, shown: str, seconds: float | None) -> RequestTimeout:
    return RequestTimeout(
        f"{method} to {shown} got no answer in {seconds:g} s; the request was cancelled: "
        "raise the timeout or check the server's logs"
    )


def _bounded(chunks: Any, limit: int, on_too_large: Any) -> Any:
    """The chunks, until they add up to more than ``limit``: then ``on_too_large(size)``
    and no more."""
    size = 0
    for chunk in chunks:
        size += len(chunk)
        if size > limit:
            on_too_large(size)
            return
        yield chunk


def ca_context(path: str) -> ssl.SSLContext:
    """Certificates checked against the CA bundle (a file) or folder at ``path``."""
    try:
        if os.path.isdir(path):
            return ssl.create_default_context(capath=path)
        return ssl.create_default_context(cafile=path)
    except (OSError, ssl.SSLError) as e:
        raise StartupError(f"cannot use the CA bundle {path!r}: {e}") from None


class _Cursor:
    """Where an event stream stands: its last event id, and how long the server asked the
    client to wait before reconnecting (the SSE ``retry`` field)."""

    __slots__ = ("answered", "bad_id", "last_id", "retry")

    def __init__(self) -> None:
        self.last_id: str | None = None
        self.retry: float | None = None
        self.answered = False  # the reply this stream was opened for has come
        self.bad_id: str | None = None  # why the last event id cannot be sent back, if it cannot

    def see(self, event: Event) -> None:
        if event.id is not None:
            # The id goes back in a Last-Event-ID header: one that cannot makes the stream
            # unresumable (said when it drops), not a broken request.
            self.bad_id = _unsendable(event.id) if event.id else None
            self.last_id = event.id if event.id and self.bad_id is None else None
        if event.retry is not None:
            self.retry = event.retry / 1000


class _HttpBase:
    remote = True  # sessions can end (HTTP 404, a dropped legacy stream) and are renewed

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        timeout: float = 30.0,
        read_timeout: float | None = None,
        verify: bool | str = True,
        auth: OAuth | None = None,
    ) -> None:
        self.auth = auth  # OAuth for this server, or None
        self.url = url  # may hold a secret (?api_key=…): messages use self.shown
        self.shown = redact_url(url)
        self.headers = dict(headers or {})  # may hold secrets: never shown
        self.max_message_size = max_message_size
        self.timeout = timeout  # connecting, and waiting for an answer to start
        self.read_timeout = read_timeout  # silence on an open stream; None: wait
        self.verify = verify  # True, False, or the path of a CA bundle
        self.diagnostics: deque[str] = deque(maxlen=100)
        self.pid = None
        self.protocol_version: str | None = None
        self._sink: MessageSink | None = None
        self._client: httpx.AsyncClient | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._requests: dict[int | str, asyncio.Task[Any]] = {}  # a request's POST and reply stream
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._closed = False

    def _bind(self, sink: MessageSink) -> None:
        self._sink = sink
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()

    def describe(self) -> str:
        return self.shown

    def failure_detail(self) -> str:
        return ""

    def stderr_text(self) -> str:
        return ""

    def _verify(self) -> bool | ssl.SSLContext:
        return self.verify if isinstance(self.verify, bool) else ca_context(self.verify)

    def _open_client(self) -> httpx.AsyncClient:
        # Streams stay open for as long as a call runs: the session's request timeout ends
        # a wait, not the socket's read timeout (unless one is set).
        timeout = httpx.Timeout(self.timeout, read=self.read_timeout)
        self._client = httpx.AsyncClient(headers=self.headers, timeout=timeout, verify=self._verify())
        return self._client

    def _spawn(self, coro: Any, rid: int | str | None = None) -> None:
        """Run ``coro`` on its own; ``rid``: it serves that request (``abandon`` ends it)."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        if rid is not None:
            self._requests[rid] = task
            task.add_done_callback(functools.partial(self._served, rid))

    def _served(self, rid: int | str, task: asyncio.Task[Any]) -> None:
        if self._requests.get(rid) is task:
            del self._requests[rid]

    def abandon(self, request_id: int | str) -> None:
        """Its caller gave up on this request (a timeout, a cancel): stop reading its reply
        now and free its socket. Any thread."""
        loop = self._loop
        if loop is None:
            return
        if threading.get_ident() != self._loop_thread:
            try:
                loop.call_soon_threadsafe(self.abandon, request_id)
            except RuntimeError:
                pass  # the loop is closed, and its tasks with it
            return
        task = self._requests.pop(request_id, None)
        if task is not None:
            task.cancel()  # its finally clauses close the response

    def _deliver(self, data: str | bytes, rid: int | str | None = None) -> bool:
        """Hand over one JSON-RPC message (or batch). ``rid``: the request whose reply this
        should be (a POST's own reply), so that a bad one fails that request at once.
        Returns whether that reply was in it."""
        assert self._sink is not None
        if len(data) > self.max_message_size:
            self._sink.on_too_large(rid, len(data))
            return rid is not None
        try:
            message = json.loads(data)
        except (ValueError, RecursionError):  # RecursionError: nested too deep to parse
            error = self._unreadable(data, rid)
            if error is not None and rid is not None:
                self._sink.fail_request(rid, error)
            return error is not None
        answered = False
        for item in message if isinstance(message, list) else [message]:
            if isinstance(item, dict):
                if rid is not None and item.get("id") == rid and "method" not in item:
                    answered = True
                self._sink.on_message(item)
        return answered

    def _unreadable(self, data: str | bytes, rid: int | str | None) -> ProtocolError | None:
        """Note a body or event that is not JSON; the error for request ``rid`` when it was
        meant as its reply. One that names a method is the server's own message (a broken
        notification): the reply may still come, and if not, the stream's end says so."""
        self.diagnostics.append(str(data)[:2000])
        names_method = b'"method"' in data if isinstance(data, bytes) else '"method"' in data
        if rid is None or names_method:
            return None
        return ProtocolError(f"{self.shown} replied with something that is not JSON: {str(data)[:80]!r}")

    async def _read_body(self, response: httpx.Response, rid: int | str | None) -> bytes | None:
        """The whole body, or None (and the request failed) once it passes the size limit."""
        chunks, size = [], 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > self.max_message_size:
                assert self._sink is not None
                self._sink.on_too_large(rid, size)
                return None
            chunks.append(chunk)
        return b"".join(chunks)

    async def _read_events(
        self,
        response: httpx.Response,
        cursor: _Cursor,
        on_endpoint: Any = None,
        rid: int | str | None = None,
        until_reply: bool = False,
    ) -> None:
        """Deliver each SSE ``message``, keeping the cursor up to date (for resumption).
        A POST's stream is read to its end (the server ends it after the reply), which
        keeps the connection reusable, for at most ``_TAIL`` seconds after the reply; a
        resumed GET stream only until the reply."""
        stream = events(response.aiter_bytes(), self.max_message_size).__aiter__()
        tail_ends: float | None = None
        loop = asyncio.get_running_loop()
        try:
            while True:
                try:
                    if tail_ends is None:
                        event = await stream.__anext__()
                    else:
                        event = await asyncio.wait_for(stream.__anext__(), tail_ends - loop.time())
                except (StopAsyncIteration, asyncio.TimeoutError):
                    return  # the end; or a stream kept open after its reply, which the caller closes
                cursor.see(event)
                if event.event == "endpoint" and on_endpoint is not None:
                    on_endpoint(event.data)
                elif event.event == "message" and event.data:
                    if self._deliver(event.data, rid) and not cursor.answered:
                        cursor.answered = True
                        if until_reply:
                            return
                        tail_ends = loop.time() + _TAIL
        except EventTooLarge as e:
            assert self._sink is not None
            self._sink.on_too_large(rid, e.size)
            cursor.answered = rid is not None  # that request has failed: nothing to resume

    async def _shutdown(self) -> None:
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        if self._client is not None:
            await self._client.aclose()


class StreamableHttpTransport(_HttpBase):
    """POST every message; replies come as JSON or on an SSE stream; a GET stream carries
    what the server starts on its own.

    A blocking caller (``ClientSession.request_blocking``) POSTs from its own thread with a
    blocking httpx client and reads its reply there (``send_nowait`` + ``pump``): no hop to
    the background loop and back. What the server sends besides the reply (its requests,
    notifications) still goes to the loop, in order.
    """

    session_id: str | None = None
    nonblocking_send = False  # send_nowait does network I/O: the loop must not call it
    # pump cannot wait with a deadline (a blocking read of a stream that keeps sending
    # keep-alive comments never times out): the session's loop abandons it at the deadline.
    pump_needs_watch = True

    async def start(self, sink: MessageSink) -> None:
        self._bind(sink)
        self._open_client()
        self._sync_client: httpx.Client | None = None
        self._sync_lock = threading.Lock()
        self._local = threading.local()  # a blocking caller's open reply stream
        self._pumped: dict[int | str, httpx.Response] = {}  # blocking callers' reply streams, by request
        self._forwarded = self._processed = 0  # messages handed to the loop, and handled there

    # -- the blocking path (a caller's own thread) -------------------------------------

    def _sync(self) -> httpx.Client:
        with self._sync_lock:
            if self._sync_client is None:
                timeout = httpx.Timeout(self.timeout, read=self.read_timeout)
                self._sync_client = httpx.Client(headers=self.headers, timeout=timeout, verify=self._verify())
            return self._sync_client

    def send_nowait(self, message: dict[str, Any], timeout: float | None = None) -> None:
        """POST from this thread. A request's reply is read here too: at once when it is
        JSON, by ``pump`` when it is a stream. ``timeout``: silence that ends the wait."""
        if self._closed:
            raise ServerExited(f"the connection to {self.shown} is closed")
        if "method" not in message or "id" not in message:
            if threading.get_ident() == self._loop_thread:
                self._spawn(self._post(message))  # a notification sent from the loop itself
                return
        stale = self._local.__dict__.pop("stream", None)
        if stale is not None:  # a stream its caller gave up on before reading (a timeout)
            self._pumped.pop(stale[1], None)
            stale[0].close()
        client = self._sync()
        rid = message.get("id") if "method" in message else None
        body = json.dumps(message, separators=(",", ":"))
        sent_session = self.session_id
        read = timeout if timeout is not None else self.read_timeout
        headers = self._request_headers()
        if self.auth is not None:
            headers.update(self.auth.header_now())
        try:
            request = client.build_request(
                "POST", self.url, content=body, headers=headers,
                timeout=httpx.Timeout(self.timeout, read=read),
            )  # fmt: skip
            response = client.send(request, stream=True)
        except httpx.TimeoutException:
            raise _timed_out(str(message.get("method")), self.shown, read) from None
        except httpx.HTTPError as e:
            raise TransportError(f"cannot reach {self.shown}: {type(e).__name__}: {e}") from None
        handed_on = False
        try:
            if response.status_code == 202 or rid is None:
                return
            redirect = _redirect_error(self.shown, response)
            if redirect is not None:
                raise redirect
            if response.status_code >= 400:
                response.read()
                self._raise_status(response, sent_session)
            kind = response.headers.get("content-type", "").split(";")[0].strip()
            if kind == "text/event-stream":
                self._local.stream = (response, rid, message.get("method"), read)
                self._pumped[rid] = response  # where abandon finds it, from the loop
                handed_on = True  # pump reads it
            elif kind == "application/json":
                data = b"".join(
                    _bounded(response.iter_bytes(), self.max_message_size, lambda n: self._too_large(rid, n))
                )
                if data:
                    self._deliver_here(data, rid)
            else:
                raise _not_mcp(self.shown, kind)
        finally:
            if not handed_on:
                response.close()

    def pump(self, done: Any, timeout: float | None, wake_fd: int | None = None) -> bool:
        """Read this thread's reply stream to its end (see send_nowait), or until it is cut
        (``abandon``; ``_TAIL`` after the reply). False when there is nothing to read here:
        the reply then comes by the loop."""
        state = self._local.__dict__.pop("stream", None)
        if state is None:
            return False
        response, rid, method, read = state
        cursor = _Cursor()
        try:
            for event in iter_events(response.iter_bytes(), self.max_message_size):
                cursor.see(event)
                if event.event == "message" and event.data and self._deliver_here(event.data, rid):
                    if not cursor.answered:
                        cursor.answered = True
                        loop = self._loop
                        assert loop is not None
                        loop.call_soon_threadsafe(loop.call_later, _TAIL, self._cut_pumped, rid)
        except EventTooLarge as e:
            self._too_large(rid, e.size)
            cursor.answered = True  # that request has failed
        except httpx.TimeoutException:
            if rid in self._pumped:
                raise _timed_out(method, self.shown, read) from None
        except httpx.HTTPError as e:
            if rid in self._pumped:
                self.diagnostics.append(f"event stream ended: {type(e).__name__}: {e}")
        finally:
            cut = self._pumped.pop(rid, None) is None  # abandoned, or cut after its reply
            response.close()
        if not cursor.answered and not cut and not self._closed:
            # Dropped before the reply: the loop resumes it if it can, or says it is lost.
            self._call_on_loop(self._spawn, self._resume(cursor, rid), rid)
        return cursor.answered or cut

    def _cut_pumped(self, rid: int | str) -> None:
        """End a blocking caller's read of this request's stream (any thread)."""
        response = self._pumped.pop(rid, None)
        if response is not None:
            _cut(response)

    def abandon(self, request_id: int | str) -> None:
        self._cut_pumped(request_id)  # a blocking caller's stream, read on another thread
        super().abandon(request_id)  # the loop's: the POST and its stream, or a resumption

    def _deliver_here(self, data: bytes | str, rid: int | str) -> bool:
        """``_deliver`` for a blocking caller's thread: the reply is settled here unless
        something the loop still has to handle came before it (progress before the
        result); the rest goes to the loop, in order."""
        if len(data) > self.max_message_size:
            self._too_large(rid, len(data))
            return True
        try:
            message = json.loads(data)
        except (ValueError, RecursionError):  # RecursionError: nested too deep to parse
            error = self._unreadable(data, rid)
            if error is not None:
                self._call_on_loop(self._fail, rid, error)
            return error is not None
        answered = False
        for item in message if isinstance(message, list) else [message]:
            if not isinstance(item, dict):
                continue
            reply = item.get("id") == rid and "method" not in item
            answered = answered or reply
            if reply and self._forwarded == self._processed:
                assert self._sink is not None
                self._sink.on_message(item)  # the blocking caller's future, settled right here
            else:
                self._forwarded += 1
                self._call_on_loop(self._deliver_on_loop, item)
        return answered

    def _deliver_on_loop(self, item: dict[str, Any]) -> None:
        self._processed += 1
        if self._sink is not None:
            self._sink.on_message(item)

    def _fail(self, rid: int | str, error: MCPError) -> None:
        if self._sink is not None:
            self._sink.fail_request(rid, error)

    def _too_large(self, rid: int | str | None, size: int) -> None:
        if self._sink is not None:
            self._sink.on_too_large(rid, size)

    def _call_on_loop(self, fn: Any, *args: Any) -> None:
        assert self._loop is not None
        self._loop.call_soon_threadsafe(fn, *args)

    async def _resume(self, cursor: _Cursor, rid: int | str) -> None:
        """A blocking caller's reply stream dropped before its reply: resume it on the loop."""
        if cursor.last_id is None:
            self._fail(rid, _lost(self.shown, cursor))
            return
        await asyncio.sleep(cursor.retry if cursor.retry is not None else _DEFAULT_RETRY)
        try:
            response = await self._get_stream(cursor.last_id)
        except MCPError as e:
            self._fail(rid, e)
            return
        if response is None:
            self._fail(rid, _unresumable(self.shown))
            return
        await self._stream(response, rid, resumed=True, cursor=cursor)

    def _request_headers(self) -> dict[str, str]:
        headers = {"Accept": _ACCEPT, "Content-Type": "application/json"}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        if self.protocol_version:
            headers["MCP-Protocol-Version"] = self.protocol_version
        return headers

    async def send(self, message: dict[str, Any]) -> None:
        if self._client is None or self._closed:
            raise ServerExited(f"the connection to {self.shown} is closed")
        # The POST runs on its own: a server that never answers must not hold the session
        # (the request's timeout then ends the wait, and abandons it); its failures end
        # that request.
        rid = message.get("id") if "method" in message else None
        self._spawn(self._post(message), rid)

    async def _post(self, message: dict[str, Any]) -> None:
        rid = message.get("id") if "method" in message else None
        try:
            await self._exchange(message, rid)
        except MCPError as e:
            if rid is not None and self._sink is not None:
                self._sink.fail_request(rid, e)
            else:
                self.diagnostics.append(f"sending {message.get('method', 'a reply')} failed: {e}")

    async def _exchange(self, message: dict[str, Any], rid: int | str | None) -> None:
        """POST one message and take its answer: a request's reply (JSON, or a stream read
        right here, in the task ``abandon`` cancels)."""
        client = self._client
        assert client is not None
        body = json.dumps(message, separators=(",", ":"))
        tries = 0
        while True:
            sent_session = self.session_id
            headers = self._request_headers()
            if self.auth is not None:
                headers.update(await self.auth.header())
            try:
                request = client.build_request("POST", self.url, content=body, headers=headers)
                response = await client.send(request, stream=True)
            except httpx.HTTPError as e:
                raise TransportError(f"cannot reach {self.shown}: {type(e).__name__}: {e}") from None
            try:
                if not await self._authorized(response, headers, tries):
                    tries += 1
                    continue
            except BaseException:
                await response.aclose()
                raise
            break
        try:
            await self._answered(message, response, rid, sent_session)
        finally:
            await response.aclose()  # whatever happened, even a cancel: the socket goes back or away

    async def _answered(
        self, message: dict[str, Any], response: httpx.Response, rid: int | str | None, sent_session: str | None
    ) -> None:
        redirect = _redirect_error(self.shown, response)
        if redirect is not None:
            raise redirect
        session = response.headers.get("mcp-session-id")
        if message.get("method") == "initialize" and session:
            why = _unsendable(session)
            if why is not None:
                # It goes back on every request: one httpx cannot encode, or one too long for
                # the server's own header limit, would break each of them. Refused here, once.
                raise ProtocolError(
                    f"{self.shown} sent an MCP-Session-Id that cannot be sent back: it {why}; "
                    "the server is broken: tell its maintainers"
                )
            self.session_id = session
        if response.status_code == 202:
            return
        if response.status_code >= 400:
            await self._status_error(response, sent_session)
        kind = response.headers.get("content-type", "").split(";")[0].strip()
        if kind == "text/event-stream":
            await self._stream(response, rid)
        elif kind == "application/json":
            data = await self._read_body(response, rid)
            if data:
                self._deliver(data, rid)
        else:
            await response.aread()
            raise _not_mcp(self.shown, kind)

    async def _authorized(self, response: httpx.Response, sent: dict[str, str], tries: int) -> bool:
        """False when a 401 (log in, or refresh) or a 403 ``insufficient_scope`` (log in for
        more) was dealt with and the request should go again; True to carry on (and, after
        a few tries, let the error show rather than loop)."""
        status = response.status_code
        if self.auth is None or status not in (401, 403) or tries >= self.auth.max_tries:
            return True
        challenge = response.headers.get("www-authenticate", "")
        if status == 403 and "insufficient_scope" not in challenge:
            return True  # a plain 403: say so
        await response.aread()
        await response.aclose()
        if status == 401:
            await self.auth.unauthorized(challenge, sent)
        else:
            await self.auth.insufficient_scope(challenge)
        return False

    async def _status_error(self, response: httpx.Response, sent_session: str | None) -> None:
        await response.aread()
        await response.aclose()
        self._raise_status(response, sent_session)

    def _raise_status(self, response: httpx.Response, sent_session: str | None) -> None:
        status = response.status_code
        if status == 404 and sent_session:
            # The spec: a 404 on a session means it is over; a new one must be started.
            raise SessionExpired(f"{self.shown} ended the session (HTTP 404)")
        hint = {401: "it needs authorization", 403: "access is forbidden", 404: "wrong URL"}
        why = hint.get(status, response.reason_phrase)
        cls = AuthChallenge if self.auth is not None and status in (401, 403) else HttpStatusError
        raise cls(f"{self.shown} answered HTTP {status} ({why}) with {_short_body(response)}", status)

    async def _stream(
        self, response: httpx.Response, rid: int | str | None, resumed: bool = False, cursor: _Cursor | None = None
    ) -> None:
        """Read a reply stream to its end; if it drops before the reply and the server made
        it resumable (event ids), wait as it asked and resume it with GET + Last-Event-ID."""
        cursor, idle = cursor or _Cursor(), 0
        while True:
            seen = cursor.last_id
            try:
                await self._read_events(response, cursor, rid=rid, until_reply=resumed)
            except (httpx.HTTPError, MCPError) as e:
                self.diagnostics.append(f"event stream ended: {type(e).__name__}: {e}")
            finally:
                await response.aclose()
            if cursor.answered or rid is None or self._closed or self._sink is None:
                return
            idle = 0 if cursor.last_id != seen else idle + 1
            if cursor.last_id is None or idle >= _MAX_RESUMES:
                # Not resumable: the reply is lost (a tools/call is never re-sent on its
                # own), so say so now rather than time out.
                self._sink.fail_request(rid, _lost(self.shown, cursor))
                return
            await asyncio.sleep(cursor.retry if cursor.retry is not None else _DEFAULT_RETRY * 2**idle)
            try:
                again = await self._get_stream(cursor.last_id)
            except MCPError as e:
                self._sink.fail_request(rid, e)
                return
            if again is None:  # 405: the server cannot resume streams after all
                self._sink.fail_request(rid, _unresumable(self.shown))
                return
            response, resumed = again, True

    async def _get_stream(self, last_event_id: str | None) -> httpx.Response | None:
        """Open the GET event stream (resuming after ``last_event_id``). None: the server
        offers none (405); other refusals raise."""
        client = self._client
        if client is None or self._closed:
            raise ServerExited(f"the connection to {self.shown} is closed")
        headers = {k: v for k, v in self._request_headers().items() if k != "Content-Type"}
        headers["Accept"] = "text/event-stream"
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        if self.auth is not None:
            headers.update(await self.auth.header())
        sent_session = self.session_id
        try:
            response = await client.send(client.build_request("GET", self.url, headers=headers), stream=True)
        except httpx.HTTPError as e:
            raise TransportError(f"cannot reach {self.shown}: {type(e).__name__}: {e}") from None
        if response.status_code == 405:
            await response.aclose()
            return None
        redirect = _redirect_error(self.shown, response)
        if redirect is not None:
            await response.aclose()
            raise redirect
        if response.status_code >= 400:
            await self._status_error(response, sent_session)
        return response

    def on_initialized(self, protocol_version: str) -> None:
        """After the handshake: the version goes on every request; listen for the server."""
        self.protocol_version = protocol_version
        self._spawn(self._listen())

    async def _listen(self) -> None:
        """The server's own stream (its requests and notifications), kept open: when it
        drops, reconnect after the server's ``retry`` (resuming after the last event)."""
        cursor, idle, refreshed = _Cursor(), 0, False
        while not self._closed:
            seen = cursor.last_id
            try:
                response = await self._get_stream(cursor.last_id)
                refreshed = False
            except AuthChallenge as e:
                # An expired token: refresh it and listen again. A login needs a person,
                # and this stream has no cell: the next call's login reopens it.
                if e.status == 401 and self.auth is not None and not refreshed and await self.auth.try_refresh():
                    refreshed = True  # once: a token the server still refuses is not refreshed in a loop
                    continue
                self.diagnostics.append(f"server stream: {e}")
                return
            except MCPError as e:
                self.diagnostics.append(f"server stream: {e}")
                return  # refused (an expired session shows on the next request)
            if response is None:
                return  # the server offers no stream of its own: fine
            try:
                await self._read_events(response, cursor)
            except (httpx.HTTPError, MCPError) as e:
                self.diagnostics.append(f"server stream ended: {type(e).__name__}")
            finally:
                await response.aclose()
            idle = 0 if cursor.last_id != seen else idle + 1
            if cursor.retry is not None and idle <= 1:
                await asyncio.sleep(cursor.retry)
            else:
                await asyncio.sleep(min(_DEFAULT_RETRY * 2**idle, _MAX_RETRY))

    async def close(self) -> None:
        client, session_id, closed = self._client, self.session_id, self._closed
        self._closed = True  # first: the streams must not reconnect while closing
        for rid in list(getattr(self, "_pumped", ())):
            self._cut_pumped(rid)  # a blocking caller reading a stream that would not end
        sync_client = getattr(self, "_sync_client", None)
        if sync_client is not None:
            sync_client.close()
        if client is not None and session_id and not closed:
            try:
                headers = {"Mcp-Session-Id": session_id, **(self.auth.header_now() if self.auth else {})}
                await client.delete(self.url, headers=headers, timeout=2)
            except httpx.HTTPError:
                pass
        await self._shutdown()
        if self._sink is not None:
            self._sink.on_closed(None)


class SseTransport(_HttpBase):
    """Legacy HTTP+SSE: GET the stream, wait for the ``endpoint`` event, POST there."""

    async def start(self, sink: MessageSink) -> None:
        self._bind(sink)
        client = self._open_client()
        endpoint: asyncio.Future[str] = asyncio.get_running_loop().create_future()

        def on_endpoint(path: str) -> None:
            if endpoint.done():
                return
            url = urljoin(self.url, path)
            if urlsplit(url)[:2] != urlsplit(self.url)[:2]:  # headers (tokens) must not go elsewhere
                endpoint.set_exception(ProtocolError(f"{self.shown} named an endpoint on another origin; refused"))
            else:
                endpoint.set_result(url)

        async def run() -> None:
            try:
                headers = {"Accept": "text/event-stream", **(await self.auth.header() if self.auth else {})}
                async with client.stream("GET", self.url, headers=headers) as response:
                    redirect = _redirect_error(self.shown, response)
                    if redirect is not None:
                        raise redirect
                    if response.status_code >= 400:
                        await response.aread()
                        raise HttpStatusError(
                            f"{self.shown} answered HTTP {response.status_code} with {_short_body(response)}",
                            response.status_code,
                        )
                    await self._read_events(response, _Cursor(), on_endpoint)
                if endpoint.done():
                    error: MCPError = ServerExited(f"{self.shown} closed its event stream")
                else:
                    error = ServerExited(
                        f"{self.shown} closed its event stream without naming an endpoint: "
                        "check the URL (a legacy HTTP+SSE server's stream, often …/sse)"
                    )
            except MCPError as e:
                error = e
            except httpx.HTTPError as e:
                error = TransportError(f"cannot reach {self.shown}: {type(e).__name__}: {e}")
            if not endpoint.done():
                endpoint.set_exception(error)
            elif not self._closed and self._sink is not None:
                # A legacy session lives as long as its stream: the next use opens a new
                # stream, which is a new session.
                self._sink.on_closed(SessionExpired(f"{error}; it will reconnect"))

        self._spawn(run())
        try:
            self.endpoint = await asyncio.wait_for(endpoint, self.timeout)
        except asyncio.TimeoutError:
            raise StartupError(f"{self.shown} sent no endpoint event within {self.timeout:g} s") from None

    async def send(self, message: dict[str, Any]) -> None:
        if self._client is None or self._closed:
            raise ServerExited(f"the connection to {self.shown} is closed")
        if "method" in message and "id" in message:
            # A request's POST runs on its own, as over Streamable HTTP: a server that never
            # answers it must not hold the caller past its timeout (which abandons it).
            self._spawn(self._post_request(message), message["id"])
        else:
            # In order (a request sent next must not overtake notifications/initialized), and
            # bounded: the answer to these is an empty 202 that comes at once.
            await self._post(message, httpx.Timeout(self.timeout))

    async def _post_request(self, message: dict[str, Any]) -> None:
        try:
            await self._post(message)
        except MCPError as e:
            if self._sink is not None:
                self._sink.fail_request(message["id"], e)

    async def _post(self, message: dict[str, Any], timeout: Any = httpx.USE_CLIENT_DEFAULT) -> None:
        client = self._client
        if client is None or self._closed:
            raise ServerExited(f"the connection to {self.shown} is closed")
        shown = redact_url(self.endpoint)
        try:
            headers = {"Content-Type": "application/json", **(await self.auth.header() if self.auth else {})}
            response = await client.post(self.endpoint, content=json.dumps(message), headers=headers, timeout=timeout)
        except httpx.HTTPError as e:
            raise TransportError(f"cannot reach {shown}: {type(e).__name__}: {e}") from None
        redirect = _redirect_error(shown, response)
        if redirect is not None:
            raise redirect
        if response.status_code == 404:
            raise SessionExpired(f"{self.shown} ended the session (HTTP 404)")
        if response.status_code >= 400:
            raise HttpStatusError(
                f"{shown} answered HTTP {response.status_code} with {_short_body(response)}", response.status_code
            )

    def on_initialized(self, protocol_version: str) -> None:
        self.protocol_version = protocol_version

    async def close(self) -> None:
        await self._shutdown()
        if self._sink is not None:
            self._sink.on_closed(None)


__all__ = ["AuthChallenge", "HttpStatusError", "SseTransport", "StreamableHttpTransport"]
