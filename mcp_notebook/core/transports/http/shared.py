"""What the two HTTP transports share (Streamable HTTP in exchange.py and streamable.py, the legacy HTTP+SSE
transport in legacy.py): their options, the httpx client, the tasks that serve requests,
reading an event stream, handing its messages over, and the errors an HTTP answer makes."""

from __future__ import annotations

import asyncio
import datetime
import email.utils
import functools
import json
import os
import ssl
import threading
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote, urljoin

import httpx

from ....errors import MCPError, NotSent, ProtocolError, ServerExited, StartupError, TransportError
from ...auth.oauth import OAuth
from ...safety.detect import mask_secrets
from ...safety.redact import redact_url, sent_secrets
from ..base import DEFAULT_MAX_MESSAGE_SIZE, Limit, MessageSink, Transport, as_limit
from ..inbox import Inbox
from .eventstream import Event, EventTooLarge, events

MAX_ECHOED = 4096  # characters of a value a server hands over to be sent back in a header
# Seconds a reply stream may stay open after its reply: normally it ends at once, and a
# server that keeps it open (keep-alive comments) must not hold a socket, or a blocking
# caller, for ever. Cutting one too early costs only the connection's reuse.
REPLY_TAIL = 0.5


class HttpStatusError(TransportError):
    """An HTTP error answer; ``status`` tells which (400/404/405 mean: try legacy SSE)."""

    def __init__(self, message: str, status: int, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after  # seconds the server asked to wait (Retry-After), if it said


def retry_after(response: httpx.Response) -> float | None:
    """The seconds a ``Retry-After`` header asks for (a number or an HTTP date), else None."""
    value = response.headers.get("retry-after", "").strip()
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, (when - datetime.datetime.now(datetime.timezone.utc)).total_seconds())


class AuthChallenge(HttpStatusError):
    """A 401 or 403 on the blocking path: the loop's path logs in and tries again."""


def short_body(response: httpx.Response) -> str:
    """What an error answer said, in a few words (it has been read), with any secret the
    request sent masked: a server may quote the request's headers back. Only its start is
    masked (a page may be megabytes), then cut to what is shown."""
    if response.headers.get("content-type", "").startswith("text/html"):
        return "an HTML page"
    text = response.text.lstrip()[:2000].strip().replace("\n", " ")
    sent = response.request
    text = sent_secrets([*sent.headers.items(), *sent.url.params.multi_items()], [sent.url.password or ""])(
        mask_secrets(text)
    )
    return repr(text[:200]) if text else "no body"


def unreachable(shown: str, error: httpx.HTTPError) -> TransportError:
    # A connection never made (refused, no such host, a failed handshake) sent nothing: a
    # map may send it again whatever the tool; any other failure may have reached the server.
    cls = NotSent if isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout)) else TransportError
    return cls(f"cannot reach {shown}: {type(error).__name__}: {error}")


def unsendable(value: str) -> str | None:
    """Why a value a server handed over (a session id, an event id) cannot go back in a
    request header, or None: only visible ASCII (0x21-0x7E) and a bounded length."""
    if len(value) > MAX_ECHOED:
        return f"is {len(value):,} characters long (at most {MAX_ECHOED:,} are sent back)"
    bad = next((c for c in value if not "!" <= c <= "~"), None)
    if bad is None:
        return None
    kind = "a space" if bad == " " else "a non-ASCII character" if ord(bad) > 127 else "a control character"
    return f"holds {kind} (a header carries visible ASCII only)"


def _shown_url(url: str) -> str:
    """A URL a server named, fit for a one-line message: anything but visible ASCII
    percent-encoded, secrets hidden, and not too long."""
    shown = redact_url(quote(url, safe="!#$%&'()*+,/:;=?@[]~"), paths=True)
    return shown if len(shown) <= 200 else shown[:200] + "…"


def redirect_error(where: str, response: httpx.Response) -> HttpStatusError | None:
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


def ca_context(path: str) -> ssl.SSLContext:
    """Certificates checked against the CA bundle (a file) or folder at ``path``."""
    try:
        if os.path.isdir(path):
            return ssl.create_default_context(capath=path)
        return ssl.create_default_context(cafile=path)
    except (OSError, ssl.SSLError) as e:
        raise StartupError(f"cannot use the CA bundle {path!r}: {e}") from None


class Cursor:
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
            self.bad_id = unsendable(event.id) if event.id else None
            self.last_id = event.id if event.id and self.bad_id is None else None
        if event.retry is not None:
            self.retry = event.retry / 1000


class HttpTransport(Transport):
    """The shared half of an HTTP transport. Its messages reach the sink through an
    ``Inbox``, from the loop or from a blocking caller's thread alike."""

    remote = True  # sessions can end (HTTP 404, a dropped legacy stream) and are renewed

    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        max_message_size: int | Limit = DEFAULT_MAX_MESSAGE_SIZE,
        timeout: float = 30.0,
        read_timeout: float | None = None,
        verify: bool | str = True,
        auth: OAuth | None = None,
    ) -> None:
        self.auth = auth  # OAuth for this server, or None
        self.url = url  # may hold a secret (?api_key=…): messages use self.shown
        self.shown = redact_url(url, paths=True)
        self.headers = dict(headers or {})  # may hold secrets: never shown
        self.limit = as_limit(max_message_size)
        self.timeout = timeout  # connecting, and waiting for an answer to start
        self.read_timeout = read_timeout  # silence on an open stream; None: wait
        self.verify = verify  # True, False, or the path of a CA bundle
        self.diagnostics: deque[str] = deque(maxlen=100)
        self.pid: int | None = None
        self.protocol_version: str | None = None
        self._sink: MessageSink | None = None
        self._inbox = Inbox()
        self._client: httpx.AsyncClient | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._requests: dict[int | str, asyncio.Task[Any]] = {}  # a request's POST and reply stream
        # A request sent again under a new id -> its first id. Added on the loop, read and
        # settled on any thread (a blocking caller's reply): only under the lock.
        self._aliases: dict[int | str, int | str] = {}
        self._aliases_lock = threading.Lock()
        self._closed = False

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.shown}>"

    @property
    def max_message_size(self) -> int:
        return self.limit()

    def _bind(self, sink: MessageSink) -> None:
        self._sink = sink
        self._inbox.bind(sink)

    def describe(self) -> str:
        return self.shown

    def failure_detail(self) -> str:
        return ""

    def stderr_text(self) -> str:
        return ""

    def on_initialized(self, protocol_version: str) -> None:
        self.protocol_version = protocol_version

    def _gone(self) -> ServerExited:
        return ServerExited(f"the connection to {self.shown} is closed")

    def _timeouts(self, read: float | None) -> httpx.Timeout:
        # Streams stay open for as long as a call runs: the session's request timeout ends
        # a wait, not the socket's read timeout (unless one is set).
        return httpx.Timeout(self.timeout, read=read)

    def _verify(self) -> bool | ssl.SSLContext:
        return self.verify if isinstance(self.verify, bool) else ca_context(self.verify)

    def _open_client(self) -> httpx.AsyncClient:
        self._client = httpx.AsyncClient(
            headers=self.headers, timeout=self._timeouts(self.read_timeout), verify=self._verify()
        )
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
        if self._inbox.loop is None:
            return
        if not self._inbox.on_loop():
            try:
                self._inbox.call(self.abandon, request_id)
            except RuntimeError:
                pass  # the loop is closed, and its tasks with it
            return
        task = self._requests.pop(request_id, None)
        if task is not None:
            task.cancel()  # its finally clauses close the response
        self._settled(request_id)  # its other ids, if it was sent again, are forgotten

    # -- what comes back (any thread) ---------------------------------------------------

    def first_id(self, rid: int | str) -> int | str:
        """The id the session gave a request this transport sent again under another."""
        with self._aliases_lock:
            return self._aliases.get(rid, rid)

    def alias(self, rid: int | str, limit: int) -> tuple[int | str, str] | None:
        """A new id for request ``rid`` (or one of its ids) to be sent again under: its
        first id and the new one. None once it has been sent again ``limit`` times."""
        with self._aliases_lock:
            first = self._aliases.get(rid, rid)
            tries = sum(1 for f in self._aliases.values() if f == first)
            if tries >= limit:
                return None
            again = f"{first}.{tries + 1}"  # a string: never one of the session's own (integer) ids
            self._aliases[again] = first
            return first, again

    def _settled(self, rid: int | str) -> int | str:
        """A request answered, failed or given up: forget its other ids; its first one."""
        with self._aliases_lock:
            first = self._aliases.get(rid, rid)
            for alias in [a for a, f in self._aliases.items() if f == first]:
                del self._aliases[alias]
            return first

    def _deliver(self, data: str | bytes, rid: int | str | None = None, limit: int | None = None) -> bool:
        """Hand over one JSON-RPC message (or batch). ``rid``: the request whose reply this
        should be (a POST's own reply), so that a bad one fails that request at once.
        ``limit``: the one a body was read (and cut) under, if it was read (default: now's).
        Returns whether that reply was in it."""
        if len(data) > (self.max_message_size if limit is None else limit):
            self._too_large(rid, len(data))
            return rid is not None
        try:
            message = json.loads(data)
        except (ValueError, RecursionError):  # RecursionError: nested too deep to parse
            error = self._unreadable(data, rid)
            if error is not None and rid is not None:
                self._fail(rid, error)
            return error is not None
        answered = False
        raw = None if isinstance(message, list) else data  # a batch's items: not read alone
        for item in message if isinstance(message, list) else [message]:
            if isinstance(item, dict):
                if "method" in item:
                    # What comes on a request's own stream before its reply is about that request.
                    self._inbox.deliver(item, raw, None if rid is None else self.first_id(rid))
                    continue
                if rid is not None and item.get("id") == rid:
                    answered = True
                if isinstance(item.get("id"), str):
                    item["id"] = self._settled(item["id"])  # the session knows it by its first id
                self._inbox.deliver(item, raw)
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

    def _on_event(
        self, event: Event, cursor: Cursor, rid: int | str | None, on_endpoint: Callable[[str], None] | None = None
    ) -> bool:
        """One event of a stream, read by the loop or by a blocking caller: the cursor
        keeps up (for resumption), a message is delivered. True when it brought the reply."""
        cursor.see(event)
        if event.event == "endpoint" and on_endpoint is not None:
            on_endpoint(event.data)
        elif event.event == "message" and event.data:
            if self._deliver(event.data, rid) and not cursor.answered:
                cursor.answered = True
                return True
        return False

    def _event_too_large(self, cursor: Cursor, rid: int | str | None, error: EventTooLarge) -> None:
        self._too_large(rid, error.size)
        cursor.answered = rid is not None  # that request has failed: nothing to resume

    def _fail(self, rid: int | str | None, error: MCPError) -> None:
        if rid is None:
            self.diagnostics.append(str(error))
        elif self._sink is not None:
            self._sink.fail_request(self._settled(rid), error)

    def _too_large(self, rid: int | str | None, size: int) -> None:
        if self._sink is not None:
            self._sink.on_too_large(rid, size)

    async def _read_events(
        self,
        response: httpx.Response,
        cursor: Cursor,
        on_endpoint: Callable[[str], None] | None = None,
        rid: int | str | None = None,
        until_reply: bool = False,
    ) -> None:
        """Read an event stream on the loop. A POST's stream is read to its end (the server
        ends it after the reply), which keeps the connection reusable, for at most
        ``REPLY_TAIL`` seconds after the reply; a resumed GET stream only until the reply."""
        stream = events(response.aiter_bytes(), self.limit).__aiter__()
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
                if self._on_event(event, cursor, rid, on_endpoint):
                    if until_reply:
                        return
                    tail_ends = loop.time() + REPLY_TAIL
        except EventTooLarge as e:
            self._event_too_large(cursor, rid, e)

    # -- ending ------------------------------------------------------------------------

    async def close(self) -> None:
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        if self._client is not None:
            await self._client.aclose()
        if self._sink is not None:
            self._sink.on_closed(None)


__all__ = [
    "REPLY_TAIL",
    "AuthChallenge",
    "Cursor",
    "HttpStatusError",
    "HttpTransport",
    "ca_context",
    "redirect_error",
    "retry_after",
    "short_body",
    "unreachable",
    "unsendable",
]
