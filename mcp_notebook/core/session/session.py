"""The MCP client session: lifecycle, the one pipeline every request goes through, and
what the server sends (responses, notifications, its own requests).

One session runs on one asyncio loop over one transport. It speaks raw protocol dicts;
typed results and argument checks live a layer up. Beside it: pending.py keeps the
requests in flight, listings.py the cached listings, incoming.py answers the server's
requests, roundtrips.py a modern server's input-required rounds.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections import deque
from collections.abc import Awaitable, Callable
from types import EllipsisType
from typing import Any

from ...errors import MCPError, MessageTooLarge, NotConnected, ProtocolError, RequestCancelled, RequestTimeout, RPCError
from ...version import __version__
from ..history.calls import NOT_RECORDING, Call, Recorder
from ..loggers import CORE as LOG
from ..loggers import DEBUG, Once, wire
from ..protocol import caching, era, rounds
from ..protocol.constants import INVALID_REQUEST
from ..protocol.messages import excerpt, malformed, not_json
from ..transports.base import BlockingTransport, Raw, Transport
from . import handshake, tracing
from .incoming import Handlers, Incoming, current_server, error_object
from .listeners import Listeners, NotificationListener, TaggedListener
from .listings import Listings
from .pending import REQUEST_TAG, Answer, Pending, PendingRequests, ProgressCallback, Waker
from .roundtrips import InputRounds

JSON = dict[str, Any]

CLIENT_INFO = {"name": "mcp-notebook", "version": __version__}
LOG_SIZE = 1000  # log messages kept per server (%mcp logs)


class ClientSession:
    def __init__(
        self,
        transport: Transport,
        *,
        name: str = "server",
        handlers: Handlers | None = None,
        request_timeout: float | None = 60.0,
        client_info: JSON | None = None,
        log_size: int = LOG_SIZE,
        extensions: JSON | None = None,
    ) -> None:
        self.name = name
        self.transport = transport
        self.handlers = handlers or Handlers()
        self.request_timeout = request_timeout
        self.client_info = client_info or CLIENT_INFO
        self.protocol_version: str | None = None
        self.found = handshake.Found()  # how the era was chosen, its initialize (handshake.py)
        self._meta: JSON | None = None  # modern era: what every request carries in _meta
        self._log_level: str | None = None
        self.server_info: JSON = {}
        self.server_capabilities: JSON = {}
        # The extensions this client follows (what the runtime above it implements, e.g. tasks),
        # declared to a modern server; the legacy era's initialize has no place for them.
        self.extensions: JSON = dict(extensions or {})
        self.declared_capabilities: JSON = {}  # what this client declared (initialize, or every modern request)
        self.modern_capabilities: JSON = {}  # declared to a modern server: the probe and every request alike
        self.instructions: str | None = None
        self.logs: deque[JSON] = deque(maxlen=log_size)  # notifications/message params
        self.diagnostics: deque[str] = deque(maxlen=100)
        self._logging = Once(f"logging a message of server {name!r}")  # DEBUG lines: said once if they fail
        self.closed_error: MCPError | None = None
        self.closed = False  # set when it ends (an attribute: every request of a bulk map reads it)
        self._requests = self.clocks = PendingRequests(name, transport.abandon)  # clocks: stopped for a login
        self._pending = self._requests.by_id
        # Who is asking (caching.py): set by the connection when requests carry a token.
        self.auth_context: Callable[[], str] = lambda: ""
        # Whether a notification is for us (subscriptions.py): one tagged for a
        # subscription that is not live is dropped before anything sees it.
        self.accepts: Callable[[str, JSON], bool] | None = None
        self.listings = Listings(name, self.request, self.diagnostics, self._spawn, self, transport)
        self._incoming = Incoming(name, self.handlers, self._send_quietly)
        self._rounds = InputRounds(self, self._requests)
        self._listeners = Listeners(self.call_safely)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._background: set[asyncio.Future[Any]] = set()
        # The fast path, chosen once from what the transport declares: a BlockingTransport
        # lets a waiting thread send and read its reply itself (request_blocking); when its
        # send never blocks (stdio), the loop sends that way too.
        self._blocking = transport if isinstance(transport, BlockingTransport) else None
        blocking = self._blocking
        self._send_on_loop = blocking.send_nowait if blocking is not None and blocking.nonblocking_send else None
        self._pump_needs_watch = blocking is not None and blocking.pump_needs_watch
        self.recorder: Recorder = NOT_RECORDING  # the history's (history.py), set by the runtime

    def __repr__(self) -> str:
        state = "closed" if self.closed else (self.protocol_version or "starting")
        return f"<ClientSession {self.name!r} {state}>"

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self, timeout: float | None = None, protocol: str = "auto") -> JSON:
        """Start the transport and find the protocol era (era.py): ``auto`` probes with
        ``server/discover`` and falls back to ``initialize``; ``legacy`` or a legacy version
        runs ``initialize`` only; a modern version is spoken as given."""
        self._loop = asyncio.get_running_loop()
        self._requests.loop_thread = threading.get_ident()
        await self.transport.start(self)
        self.declared_capabilities = self.handlers.capabilities()
        self.modern_capabilities = era.with_extensions(self.declared_capabilities, self.extensions)
        return await handshake.open_session(self, timeout, protocol, self.found)

    def adopt(self, version: str, result: JSON) -> None:
        """Speak modern ``version`` from now on (every request carries the _meta), with
        what the discover ``result`` says of the server."""
        self.protocol_version = version
        self.declared_capabilities = self.modern_capabilities  # as the probe declared them
        self._meta = era.request_meta(version, self.modern_capabilities, self.client_info, self._log_level)
        self.server_info = era.discovered_info(result)
        capabilities = result.get("capabilities")
        self.server_capabilities = capabilities if isinstance(capabilities, dict) else {}
        instructions = result.get("instructions")
        self.instructions = instructions if isinstance(instructions, str) else None
        self.transport.on_initialized(version)

    async def initialized(self, version: str, result: JSON) -> None:
        """The legacy handshake's end: speak ``version`` in this session."""
        self.protocol_version = version
        self.server_info = result.get("serverInfo") or {}
        self.server_capabilities = result.get("capabilities") or {}
        self.instructions = result.get("instructions")
        self.transport.on_initialized(version)
        await self.notify("notifications/initialized")

    @property
    def modern(self) -> bool:
        """Whether this session speaks the modern (stateless, 2026-07-28) era."""
        return self._meta is not None

    @property
    def log_level(self) -> str | None:
        """The level a modern server logs each request at (``_meta``); None: no logs."""
        return self._log_level

    @log_level.setter
    def log_level(self, level: str | None) -> None:
        self._log_level = level
        if self._meta is not None:
            self._meta = era.with_log_level(self._meta, level)

    async def close(self) -> None:
        if not self.closed:
            self._fail_all(None)
        await self.transport.close()

    # -- requests: prepare, send and wait (two ways), finish ---------------------------

    def _begin(
        self,
        method: str,
        params: JSON | None,
        timeout: float | EllipsisType | None,
        on_progress: ProgressCallback | None,
        future: Any,
    ) -> tuple[JSON, Pending]:
        """Prepare a request: its id, its message, its place among those in flight."""
        if self.closed:
            raise self.closed_exception()
        if self._meta is not None and method in era.REMOVED_IN_MODERN:
            method = era.modern_method(method, self._meta[era.META_PROTOCOL_VERSION], self.name)
        rid = self._requests.new_id()
        message: JSON = {"jsonrpc": "2.0", "id": rid, "method": method}
        if on_progress is not None:
            params = dict(params or {})
            params["_meta"] = {**params.get("_meta", {}), "progressToken": rid}
        if self._meta is not None:
            params = era.with_meta(params, self._meta)
        span, params = tracing.begin(method, params, rid, self.protocol_version, not self.transport.remote)
        if params is not None:
            message["params"] = params
        pending = self._requests.add(rid, method, self.request_timeout if timeout is ... else timeout, future)
        pending.on_progress, pending.params, pending.tag, pending.span = on_progress, params, REQUEST_TAG.get(), span
        pending.call = self._sent(message)  # history: references only, read lazily
        return message, pending

    def _give_up(self, pending: Pending, error: BaseException | None) -> JSON | None:
        """Finish a request its caller gave up on (a cancel, a timeout), on either path: its
        reply stream is dropped now (and its rounds end), and the notice that tells the
        server is returned, to be sent the caller's way. None: nothing to tell (closed;
        between rounds; or initialize, which the spec forbids cancelling)."""
        if pending.rounds is not None:
            pending.rounds.end()  # no retry is sent; its questions are withdrawn
        # Read after end(): a retry already under a new id is told; a later one is never sent.
        rid = pending.rid
        if rid is None:
            return None
        self.transport.abandon(rid)
        if self.closed or pending.method == "initialize":
            return None
        reason = "cancelled by the user"
        if isinstance(error, RequestTimeout):
            reason = "timed out" if pending.timeout is None else f"timed out after {pending.timeout:g} s"
        return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid, "reason": reason}}

    async def request(
        self,
        method: str,
        params: JSON | None = None,
        *,
        timeout: float | EllipsisType | None = ...,  # ...: the session's request_timeout
        on_progress: ProgressCallback | None = None,
        on_start: Callable[[int | str, Call | None], None] | None = None,
    ) -> JSON:
        """Send a request and wait for its result, on the loop.

        ``timeout`` (seconds, None for no limit) restarts whenever the server reports
        progress. On timeout or cancellation the server gets ``notifications/cancelled``.
        ``on_start(id, call)`` runs before it is sent: what the server tags with its id is
        known, and ``call`` is its entry in the history (None: not recorded).
        """
        loop = self._loop or asyncio.get_running_loop()
        message, pending = self._begin(method, params, timeout, on_progress, loop.create_future())
        if on_start is not None and pending.rid is not None:
            on_start(pending.rid, pending.call)
        if pending.deadline is not None:
            self._requests.watch(loop, pending.deadline)
        line = None  # as written (a line, a body): the history keeps it rather than the message's dicts
        try:
            try:
                if self._send_on_loop is not None:
                    line = self._send_on_loop(message)  # one coroutine frame fewer on the hot path
                else:
                    line = await self.transport.send(message)
            except TypeError as e:
                raise not_json(method, e) from None
            result: JSON = await pending.future
            return result
        except (asyncio.CancelledError, RequestTimeout) as e:
            notice = self._give_up(pending, e)
            if notice is not None:
                await self._send_quietly(notice)
            raise
        finally:
            self._pending.pop(pending.rid, None)  # type: ignore[arg-type]
            self.recorder.done(pending.call, pending.future, line)  # the outcome, as it ends
            if pending.span is not None:
                tracing.end(pending.span, pending.future)

    @property
    def can_block(self) -> bool:
        """Whether ``request_blocking`` works: the transport can send from any thread."""
        return self._blocking is not None

    def request_blocking(
        self,
        method: str,
        params: JSON | None = None,
        *,
        timeout: float | EllipsisType | None = ...,  # ...: the session's request_timeout
        on_progress: ProgressCallback | None = None,
        waker: Waker | None = None,
    ) -> JSON:
        """``request`` for a thread other than the loop's: it sends and waits right here,
        saving two thread hops per call. Ctrl-C cancels the request on the server.

        A ``waker`` (a notebook cell that must answer the server's questions while it
        waits) is served on this thread whenever its pipe is written to; its ``cancel``
        is set to end the request (see ``cancel``)."""
        transport = self._blocking
        if transport is None:
            raise RuntimeError(f"{self.transport.describe()} cannot send from this thread: use request()")
        message, pending = self._begin(method, params, timeout, on_progress, Answer())
        if waker is not None:
            waker.cancel = lambda: self.cancel(pending)
        line = None
        try:
            try:
                line = transport.send_nowait(message, pending.timeout)
            except TypeError as e:
                raise not_json(method, e) from None
            return self._requests.wait_here(
                pending, transport.pump, waker, self._loop if self._pump_needs_watch else None
            )
        except (KeyboardInterrupt, RequestTimeout) as e:
            notice = self._give_up(pending, e)
            if notice is not None:
                self._send_quietly_now(notice)
            raise
        finally:
            self._pending.pop(pending.rid, None)  # type: ignore[arg-type]
            self.recorder.done(pending.call, pending.future, line)  # the outcome, as it ends
            if pending.span is not None:
                tracing.end(pending.span, pending.future)

    def cancel(self, pending: Pending) -> None:
        """A person's Cancel (from any thread): the request ends now with RequestCancelled,
        and the server is told (under the id it is in flight with)."""
        if pending.settled:
            return
        notice = self._give_up(pending, None)
        if notice is not None:
            self._send_quietly_now(notice)
        error = RequestCancelled(f"{pending.method} to server {self.name!r} was cancelled; the server was told")
        self._requests.settle(pending, error=error)

    def _sent(self, message: JSON) -> Call | None:
        """A message about to go: into the history, and the log (its entry in the history)."""
        if LOG.isEnabledFor(DEBUG):
            wire(self.name, "→", message, self._logging)
        return self.recorder.sent(message)

    async def _send_quietly(self, message: JSON) -> None:
        """Send a notice or a reply on the loop; a connection that is gone is not an error here."""
        if not self.closed:
            self._sent(message)
            try:
                await self.transport.send(message)
            except MCPError:
                pass

    def _send_quietly_now(self, message: JSON) -> None:
        """``_send_quietly`` from any thread, without waiting for the loop."""
        if self.closed:
            return
        if self._blocking is not None:
            self._sent(message)  # (the other way, _send_quietly records it)
            try:
                self._blocking.send_nowait(message)
            except MCPError:
                pass
        elif self._loop is not None:
            self._loop.call_soon_threadsafe(self._spawn, self._send_quietly(message))

    async def notify(self, method: str, params: JSON | None = None) -> None:
        if self._meta is not None and method in era.REMOVED_IN_MODERN:
            return  # e.g. roots/list_changed: a modern server asks for roots with each request
        message: JSON = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._sent(message)
        await self.transport.send(message)

    async def ping(self, timeout: float | EllipsisType | None = ...) -> None:
        """Whether the server answers (``server/discover`` on a modern server: it has no ping)."""
        await self.request("ping", timeout=timeout)

    # -- receiving (called by the transport: on the loop, or a response on a blocking
    # caller's thread) -------------------------------------------------------------------

    def on_message(self, message: JSON, raw: Raw | None = None, related: int | str | None = None) -> None:
        self.recorder.received(message, raw)  # the history: the line as read (a big one elided), decoded on view
        if LOG.isEnabledFor(DEBUG):
            wire(self.name, "←", message, self._logging)
        try:
            # Checked here, once, for every transport: what passes has the types dispatch reads.
            problem = malformed(message)
            if problem is not None:
                self._malformed(message, problem)
                return
            method = message.get("method")
            if method is not None:
                if "id" in message:
                    self._incoming.start(message)
                else:
                    self._on_notification(method, message.get("params") or {}, related)
                return
            pending = self._pending.get(message["id"])
            if pending is None or pending.future.done():
                self.diagnostics.append(f"response to unknown or finished request id {message['id']!r}")
                self.recorder.unmatched(message, raw)  # a late answer (its call timed out): the transcript shows it
            elif "error" in message:
                error = message["error"]
                rpc_error = RPCError(error["code"], error.get("message", ""), error.get("data"))
                self._requests.settle(pending, error=rounds.missing_capability(rpc_error, pending.method, self.name))
            elif self._meta is not None and rounds.asks(pending.method, message["result"]):
                self._rounds.asked(pending, message["result"], self._loop)  # the caller keeps waiting
            else:
                self.recorder.answered(pending.call, message, raw)  # before its caller can end it
                result = message["result"]  # (a round's depends on the answers: never cached)
                self._requests.settle(pending, result=result if pending.rounds is None else caching.uncached(result))
        except Exception as e:  # nothing may reach the transport's reader: it has more to read
            self.diagnostics.append(f"handling {excerpt(message, 80)} failed: {type(e).__name__}: {e}")

    def _malformed(self, message: Any, problem: str) -> None:
        """Skip a malformed message, noting it; whoever waits on it hears why at once."""
        self.diagnostics.append(f"skipped a malformed message ({problem}): {excerpt(message)}")
        rid = message.get("id") if isinstance(message, dict) else None
        if isinstance(rid, bool) or not isinstance(rid, (int, str)):
            return
        if "method" in message:  # a request: the server gets an error rather than silence
            reply = {"jsonrpc": "2.0", "id": rid, "error": error_object(INVALID_REQUEST, f"malformed: {problem}")}
            self._spawn(self._send_quietly(reply))
            return
        pending = self._pending.get(rid)
        if pending is not None and not pending.settled:
            error = ProtocolError(f"server {self.name!r} answered {pending.method} with {problem}")
            self._requests.settle(pending, error=error)

    def on_too_large(self, request_id: int | str | None, size: int) -> None:
        limit = self.transport.max_message_size
        pending = self._pending.get(request_id) if request_id is not None else None
        text = (
            f"a {size / 2**20:.1f} MiB message from server {self.name!r} is over the "
            f"{limit / 2**20:.1f} MiB limit and was dropped; raise max_message_size and ask again "
            "(client.settings.max_message_size = ..., %config MCPMagics.max_message_size=...)"
        )
        if pending is not None and not pending.future.done():
            self._requests.settle(pending, error=MessageTooLarge(f"{pending.method}: {text}"))
        else:
            self.diagnostics.append(text)

    def fail_request(self, request_id: int | str, error: MCPError) -> None:
        """The transport knows this request cannot be answered (a cut stream, a bad reply)."""
        pending = self._pending.get(request_id)
        if pending is not None and not pending.settled:
            self._requests.settle(pending, error=error)

    def on_closed(self, error: MCPError | None) -> None:
        self._fail_all(error)

    def _fail_all(self, error: MCPError | None) -> None:
        self.closed = True
        self.closed_error = error
        self._requests.fail_all(self.closed_exception)
        self._incoming.cancel_all()
        if error is not None:
            self._emit("$/closed", {"error": str(error)})

    def closed_exception(self, method: str | None = None) -> MCPError:
        if self.closed_error is not None:
            exc = self.closed_error
            if method:
                # A fresh instance per caller: the same exception raised in many tasks
                # would collect their tracebacks.
                clone = type(exc).__new__(type(exc))
                clone.__dict__.update(exc.__dict__)
                clone.args = (f"{method}: {exc.args[0]}",)
                return clone
            return exc
        return NotConnected(f"the connection to server {self.name!r} is closed; reconnect (restart) it")

    # -- notifications -----------------------------------------------------------------

    def add_listener(self, listener: NotificationListener) -> Callable[[], None]:
        """Call ``listener(method, params)`` on every notification (on the loop thread)."""
        return self._listeners.add(listener)

    def add_tagged_listener(self, listener: TaggedListener) -> None:
        """Likewise ``listener(method, params, tag)``: see listeners.py."""
        self._listeners.add_tagged(listener)

    def _on_notification(self, method: str, params: JSON, related: int | str | None = None) -> None:
        if self.accepts is not None and not self.accepts(method, params):
            return
        if method == "notifications/progress":
            pending = self._pending.get(params.get("progressToken"))  # type: ignore[arg-type]
            if pending is not None:
                pending.restart_clock()  # progress restarts the clock
                if pending.on_progress is not None:
                    self.call_safely(
                        pending.on_progress, params.get("progress", 0), params.get("total"), params.get("message")
                    )
        elif method == "notifications/message":
            self.logs.append(params)
        elif method == "notifications/cancelled":
            self._incoming.cancel(params.get("requestId"))
        elif method.endswith("/list_changed"):
            self.listings.changed(method)
        self._emit(method, params, related)

    def _emit(self, method: str, params: JSON, related: int | str | None = None) -> None:
        self._listeners.emit(method, params, lambda: self._requests.tag_of(related))

    def call_safely(self, fn: Callable[..., Any], *args: Any) -> None:
        try:
            result = fn(*args)
            if inspect.isawaitable(result):
                self._spawn(result)
        except Exception as e:  # a user callback must not break the connection
            self.diagnostics.append(f"callback {getattr(fn, '__name__', fn)!r} raised {e!r}")

    def _spawn(self, awaitable: Awaitable[Any]) -> None:
        # The loop keeps only weak references to tasks: hold them until they finish.
        task = asyncio.ensure_future(awaitable)
        self._background.add(task)
        task.add_done_callback(self._background.discard)


__all__ = [
    "CLIENT_INFO",
    "LOG_SIZE",
    "ClientSession",
    "Handlers",
    "ProgressCallback",
    "Waker",
    "current_server",
]
