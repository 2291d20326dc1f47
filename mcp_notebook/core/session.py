"""The MCP client session: lifecycle, requests, notifications and server→client requests.

One session runs on one asyncio loop over one transport. It speaks raw protocol
dicts; typed results and argument checks live a layer up.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import inspect
import itertools
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import EllipsisType
from typing import Any, Protocol

from .. import __version__
from ..errors import (
    ArgumentError,
    MCPError,
    MessageTooLarge,
    NotConnected,
    ProtocolError,
    RequestCancelled,
    RequestTimeout,
    RPCError,
)
from .messages import clean_entry, excerpt, malformed
from .protocol import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    LATEST_PROTOCOL_VERSION,
    METHOD_NOT_FOUND,
    SUPPORTED_PROTOCOL_VERSIONS,
)
from .transports.base import Transport

JSON = dict[str, Any]
ProgressCallback = Callable[[float, "float | None", "str | None"], Any]
NotificationListener = Callable[[str, JSON], Any]
# A handler takes the request's params and returns the result (or an awaitable of it).
Handler = Callable[[JSON], "JSON | Awaitable[JSON]"]

CLIENT_INFO = {"name": "mcp-notebook", "version": __version__}
LOG_SIZE = 1000  # log messages kept per server (%mcp logs)
# The server whose request a handler is answering (handlers take only the params).
current_server: contextvars.ContextVar[str] = contextvars.ContextVar("current_server", default="")

_LISTINGS = {
    "tools": ("tools/list", "notifications/tools/list_changed"),
    "resources": ("resources/list", "notifications/resources/list_changed"),
    "resourceTemplates": ("resources/templates/list", "notifications/resources/list_changed"),
    "prompts": ("prompts/list", "notifications/prompts/list_changed"),
}


class Waker(Protocol):
    """What a blocking request serves while it waits (see request_blocking)."""

    cancel: Callable[[], None]

    def fileno(self) -> int: ...

    def interval(self) -> float | None:
        """At most this many seconds between serves, or None."""
        ...

    def serve(self) -> None: ...


@dataclass
class Handlers:
    """Answers to server→client requests. A capability is declared only for a set handler.

    A handler may carry a ``capability`` attribute (a dict) to declare more than ``{}``.
    """

    elicitation: Handler | None = None
    sampling: Handler | None = None
    roots: Handler | None = None


class _Pending:
    __slots__ = ("deadline", "future", "method", "on_progress", "settled", "timeout", "watched")

    def __init__(self, future: Any, method: str, timeout: float | None) -> None:
        self.future = future  # an asyncio.Future, or an _Answer for blocking calls
        self.method = method
        self.timeout = timeout
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.on_progress: ProgressCallback | None = None
        self.settled = False  # cheaper to poll than future.done(), which takes a lock
        self.watched = False  # a blocking call whose reader the loop abandons at the deadline

    def is_settled(self) -> bool:
        return self.settled


class _Answer:
    """A blocking request's outcome. Lighter than a concurrent.futures.Future (no lock,
    no condition): usually the waiting thread reads the reply itself, so an Event is made
    only when another thread has to wake it."""

    __slots__ = ("_done", "_error", "_event", "_result")

    def __init__(self) -> None:
        self._done = False
        self._result: Any = None
        self._error: BaseException | None = None
        self._event: threading.Event | None = None

    def done(self) -> bool:
        return self._done

    def set_result(self, result: Any) -> None:
        self._result = result
        self._finish()

    def set_exception(self, error: BaseException) -> None:
        self._error = error
        self._finish()

    def _finish(self) -> None:
        self._done = True
        event = self._event  # read after _done: a waiter that made it later sees _done
        if event is not None:
            event.set()

    def result(self, timeout: float | None = None) -> Any:
        if not self._done:
            if self._event is None:
                self._event = threading.Event()
            if not self._done and not self._event.wait(timeout):
                raise concurrent.futures.TimeoutError
        if self._error is not None:
            raise self._error
        return self._result


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
    ) -> None:
        self.name = name
        self.transport = transport
        self.handlers = handlers or Handlers()
        self.request_timeout = request_timeout
        self.client_info = client_info or CLIENT_INFO
        self.protocol_version: str | None = None
        self.server_info: JSON = {}
        self.server_capabilities: JSON = {}
        self.declared_capabilities: JSON = {}  # what this client declared at initialize
        self.instructions: str | None = None
        self.logs: deque[JSON] = deque(maxlen=log_size)  # notifications/message params
        self.diagnostics: deque[str] = deque(maxlen=100)
        self.closed_error: MCPError | None = None
        self._closed = False
        self._ids = itertools.count(1)
        self._pending: dict[int | str, _Pending] = {}
        self._incoming: dict[int | str, asyncio.Task[None]] = {}
        self._listeners: list[NotificationListener] = []
        self._cache: dict[str, list[JSON]] = {}
        self._fetching: dict[str, asyncio.Future[list[JSON]]] = {}  # listings in flight, shared
        self._generation: dict[str, int] = dict.fromkeys(_LISTINGS, 0)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._sweep_at: float | None = None
        # A transport with send_nowait can run a blocking request on the caller's thread;
        # stdio's never blocks, so the loop uses it too (HTTP's does network I/O: it cannot).
        self._send_nowait: Callable[..., None] | None = getattr(transport, "send_nowait", None)
        self._send_on_loop = self._send_nowait if getattr(transport, "nonblocking_send", True) else None
        # Its pump may read past the deadline (HTTP: a stream of keep-alive comments):
        # the loop then abandons the read when the deadline passes.
        self._pump_needs_watch = bool(getattr(transport, "pump_needs_watch", False))
        self._sweep_timer: asyncio.TimerHandle | None = None
        self._background: set[asyncio.Future[Any]] = set()

    def __repr__(self) -> str:
        state = "closed" if self._closed else (self.protocol_version or "starting")
        return f"<ClientSession {self.name!r} {state}>"

    # -- lifecycle ---------------------------------------------------------------------

    def capabilities(self) -> JSON:
        caps: JSON = {}
        for key in ("roots", "sampling", "elicitation"):
            handler = getattr(self.handlers, key)
            if handler is not None:
                default = {"listChanged": True} if key == "roots" else {}
                caps[key] = dict(getattr(handler, "capability", default))
        return caps

    async def start(self, timeout: float | None = None) -> JSON:
        """Start the transport and run the initialize handshake."""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        await self.transport.start(self)
        self.declared_capabilities = self.capabilities()
        params = {
            "protocolVersion": LATEST_PROTOCOL_VERSION,
            "capabilities": self.declared_capabilities,
            "clientInfo": self.client_info,
        }
        result = await self.request("initialize", params, timeout=timeout)
        version = result.get("protocolVersion")
        if version not in SUPPORTED_PROTOCOL_VERSIONS:
            raise ProtocolError(
                f"server {self.name!r} answered with protocol version {version!r}; "
                f"mcp-notebook speaks {', '.join(SUPPORTED_PROTOCOL_VERSIONS)}: "
                "upgrade the server or mcp-notebook"
            )
        self.protocol_version = version
        self.server_info = result.get("serverInfo") or {}
        self.server_capabilities = result.get("capabilities") or {}
        self.instructions = result.get("instructions")
        initialized = getattr(self.transport, "on_initialized", None)
        if initialized is not None:  # HTTP: the version goes on every later request
            initialized(version)
        await self.notify("notifications/initialized")
        return result

    async def close(self) -> None:
        if not self._closed:
            self._fail_all(None)
        await self.transport.close()

    @property
    def closed(self) -> bool:
        return self._closed

    # -- sending -----------------------------------------------------------------------

    def _begin(
        self,
        method: str,
        params: JSON | None,
        timeout: float | EllipsisType | None,
        on_progress: ProgressCallback | None,
        future: Any,
    ) -> tuple[int, JSON, _Pending]:
        if self._closed:
            raise self.closed_exception()
        rid = next(self._ids)  # atomic: blocking calls come from any thread
        pending = _Pending(future, method, self.request_timeout if timeout is ... else timeout)
        message: JSON = {"jsonrpc": "2.0", "id": rid, "method": method}
        if on_progress is not None:
            params = dict(params or {})
            params["_meta"] = {**params.get("_meta", {}), "progressToken": rid}
            pending.on_progress = on_progress
        if params is not None:
            message["params"] = params
        self._pending[rid] = pending
        return rid, message, pending

    async def request(
        self,
        method: str,
        params: JSON | None = None,
        *,
        timeout: float | EllipsisType | None = ...,  # ...: the session's request_timeout
        on_progress: ProgressCallback | None = None,
    ) -> JSON:
        """Send a request and wait for its result.

        ``timeout`` (seconds, None for no limit) restarts whenever the server reports
        progress. On timeout or cancellation the server gets ``notifications/cancelled``.
        """
        loop = self._loop or asyncio.get_running_loop()
        rid, message, pending = self._begin(method, params, timeout, on_progress, loop.create_future())
        if pending.deadline is not None:
            self._watch_deadline(loop, pending.deadline)
        try:
            try:
                if self._send_on_loop is not None:
                    self._send_on_loop(message)  # one coroutine frame fewer on the hot path
                else:
                    await self.transport.send(message)
            except TypeError as e:
                raise _not_json(method, e) from None
            result: JSON = await pending.future
            return result
        except asyncio.CancelledError:
            self.transport.abandon(rid)  # its reply stream closes now, not when the server ends it
            await self._cancel_on_server(rid, "cancelled by the user")
            raise
        except RequestTimeout:
            self.transport.abandon(rid)
            await self._cancel_on_server(rid, f"timed out after {pending.timeout:g} s")
            raise
        finally:
            self._pending.pop(rid, None)

    @property
    def can_block(self) -> bool:
        """Whether ``request_blocking`` works: the transport can send from any thread."""
        return self._send_nowait is not None

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
        waits) is served on this thread whenever its pipe is written to."""
        send = self.transport.send_nowait  # type: ignore[attr-defined]
        rid, message, pending = self._begin(method, params, timeout, on_progress, _Answer())
        future = pending.future
        pump = getattr(self.transport, "pump", None)
        wake_fd = None
        if waker is not None:
            wake_fd = waker.fileno()
            waker.cancel = lambda: self._cancel_blocking(rid)
        try:
            try:
                send(message, pending.timeout)
            except TypeError as e:
                raise _not_json(method, e) from None
            if self._pump_needs_watch and pending.deadline is not None and not pending.settled:
                pending.watched = True
                loop = self._loop
                assert loop is not None
                loop.call_soon_threadsafe(self._watch_deadline, loop, pending.deadline)
            while True:
                remaining = None if pending.deadline is None else pending.deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise self._timeout_error(pending)
                step = remaining if waker is None else _shortest(remaining, waker.interval())
                # Read the reply on this thread if nobody else is reading; else wait for it.
                if not pending.settled and pump is not None and pump(pending.is_settled, step, wake_fd):
                    if waker is not None and not pending.settled:
                        waker.serve()  # woken: the server asked something, or time to poll
                    continue
                try:
                    return future.result(step if waker is None else _shortest(step, 0.05))  # type: ignore[no-any-return]
                except concurrent.futures.TimeoutError:
                    if future.done():
                        raise  # the server's own answer was a timeout error
                    if waker is not None:
                        waker.serve()
                    # else: progress may have moved the deadline; look again
        except KeyboardInterrupt:
            self.transport.abandon(rid)
            self._cancel_from_thread(rid, "cancelled by the user")
            raise
        except RequestTimeout:
            self.transport.abandon(rid)
            self._cancel_from_thread(rid, f"timed out after {pending.timeout:g} s")
            raise
        finally:
            self._pending.pop(rid, None)

    def _cancel_blocking(self, rid: int | str) -> None:
        """A person's Cancel (from any thread): the call ends now, the server is told."""
        pending = self._pending.get(rid)
        if pending is not None and not pending.settled:
            self._cancel_from_thread(rid, "cancelled by the user")
            self._settle(
                pending, error=RequestCancelled(f"{pending.method} to {self.name!r} was cancelled; the server was told")
            )

    async def notify(self, method: str, params: JSON | None = None) -> None:
        message: JSON = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        await self.transport.send(message)

    async def ping(self, timeout: float | EllipsisType | None = ...) -> None:
        await self.request("ping", timeout=timeout)

    def _timeout_error(self, pending: _Pending) -> RequestTimeout:
        return RequestTimeout(
            f"{pending.method} to server {self.name!r} got no answer in {pending.timeout:g} s; "
            "the request was cancelled: raise the timeout or check the server's logs"
        )

    def _watch_deadline(self, loop: asyncio.AbstractEventLoop, deadline: float) -> None:
        # One timer for all requests, at the earliest deadline, rather than a timer per
        # request: deadlines move (progress) and mostly grow, so this rarely reschedules.
        if self._sweep_at is not None and self._sweep_at <= deadline:
            return
        if self._sweep_timer is not None:
            self._sweep_timer.cancel()
        self._sweep_at = deadline
        self._sweep_timer = loop.call_at(deadline, self._sweep, loop)  # loop.time() is time.monotonic()

    def _sweep(self, loop: asyncio.AbstractEventLoop) -> None:
        self._sweep_at = self._sweep_timer = None
        now = time.monotonic()
        later: float | None = None
        for rid, pending in list(self._pending.items()):
            if pending.deadline is None:
                continue
            if not isinstance(pending.future, asyncio.Future):
                # Blocking calls keep their own time; a watched one is read where only a cut
                # stream wakes its reader: cut it, and the caller raises the timeout.
                if not pending.watched:
                    continue
                if pending.deadline <= now:
                    pending.watched = False
                    self.transport.abandon(rid)
                    continue
            elif pending.deadline <= now:
                self._settle(pending, error=self._timeout_error(pending))
                continue
            if later is None or pending.deadline < later:
                later = pending.deadline
        if later is not None:
            self._watch_deadline(loop, later)

    def _cancel_message(self, rid: int | str, reason: str) -> JSON | None:
        pending = self._pending.get(rid)
        if self._closed or pending is None or pending.method == "initialize":
            return None  # nothing to cancel; and the spec forbids cancelling initialize
        return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid, "reason": reason}}

    async def _cancel_on_server(self, rid: int | str, reason: str) -> None:
        message = self._cancel_message(rid, reason)
        if message is not None:
            try:
                await self.transport.send(message)
            except MCPError:
                pass

    def _cancel_from_thread(self, rid: int | str, reason: str) -> None:
        message = self._cancel_message(rid, reason)
        if message is not None:
            try:
                self.transport.send_nowait(message)  # type: ignore[attr-defined]
            except MCPError:
                pass

    # -- receiving (called by the transport, on the loop) ------------------------------

    def on_message(self, message: JSON) -> None:
        try:
            # Checked here, once, for every transport: what passes has the types dispatch reads.
            problem = malformed(message)
            if problem is not None:
                self._malformed(message, problem)
                return
            method = message.get("method")
            if method is not None:
                if "id" in message:
                    self._on_request(message)
                else:
                    self._on_notification(method, message.get("params") or {})
                return
            pending = self._pending.get(message["id"])
            if pending is None or pending.future.done():
                self.diagnostics.append(f"response to unknown or finished request id {message['id']!r}")
            elif "error" in message:
                self._settle(pending, error=_rpc_error(message["error"]))
            else:
                self._settle(pending, result=message["result"])
        except Exception as e:  # nothing may reach the transport's reader: it has more to read
            self.diagnostics.append(f"handling {excerpt(message, 80)} failed: {type(e).__name__}: {e}")

    def _malformed(self, message: Any, problem: str) -> None:
        """Skip a malformed message, noting it; whoever waits on it hears why at once."""
        self.diagnostics.append(f"skipped a malformed message ({problem}): {excerpt(message)}")
        rid = message.get("id") if isinstance(message, dict) else None
        if isinstance(rid, bool) or not isinstance(rid, (int, str)):
            return
        if "method" in message:  # a request: the server gets an error rather than silence
            reply = {"jsonrpc": "2.0", "id": rid, "error": _error_object(INVALID_REQUEST, f"malformed: {problem}")}
            self._spawn(self._reply(reply))
            return
        pending = self._pending.get(rid)
        if pending is not None and not pending.settled:
            error = ProtocolError(f"server {self.name!r} answered {pending.method} with {problem}")
            self._settle(pending, error=error)

    def _settle(self, pending: _Pending, result: JSON | None = None, error: MCPError | None = None) -> None:
        """Complete a request's future. Responses may be read on a blocking caller's
        thread (see PipeReader.pump): an asyncio future is then settled on its loop."""
        future = pending.future
        if isinstance(future, asyncio.Future) and threading.get_ident() != self._loop_thread:
            future.get_loop().call_soon_threadsafe(self._settle, pending, result, error)
            return
        if future.done():
            return
        pending.settled = True
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def on_too_large(self, request_id: int | str | None, size: int) -> None:
        limit = self.transport.max_message_size
        pending = self._pending.get(request_id) if request_id is not None else None
        text = (
            f"a {size / 2**20:.1f} MiB message from server {self.name!r} is over the "
            f"{limit / 2**20:.1f} MiB limit and was dropped; raise max_message_size to accept it"
        )
        if pending is not None and not pending.future.done():
            self._settle(pending, error=MessageTooLarge(f"{pending.method}: {text}"))
        else:
            self.diagnostics.append(text)

    def fail_request(self, request_id: int | str, error: MCPError) -> None:
        """The transport knows this request cannot be answered (a cut stream, a bad reply)."""
        pending = self._pending.get(request_id)
        if pending is not None and not pending.settled:
            self._settle(pending, error=error)

    def on_closed(self, error: MCPError | None) -> None:
        self._fail_all(error)

    def _fail_all(self, error: MCPError | None) -> None:
        self._closed = True
        self.closed_error = error
        if self._sweep_timer is not None:  # the loop would hold this session (and all it holds) until then
            self._sweep_timer.cancel()
            self._sweep_timer = self._sweep_at = None
        for pending in list(self._pending.values()):
            self._settle(pending, error=self.closed_exception(pending.method))
        for task in self._incoming.values():
            task.cancel()
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
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _on_notification(self, method: str, params: JSON) -> None:
        if method == "notifications/progress":
            pending = self._pending.get(params.get("progressToken"))  # type: ignore[arg-type]
            if pending is not None:
                if pending.timeout is not None:  # progress restarts the clock
                    pending.deadline = time.monotonic() + pending.timeout
                if pending.on_progress is not None:
                    self.call_safely(
                        pending.on_progress, params.get("progress", 0), params.get("total"), params.get("message")
                    )
        elif method == "notifications/message":
            self.logs.append(params)
        elif method == "notifications/cancelled":
            task = self._incoming.get(params.get("requestId"))  # type: ignore[arg-type]
            if task is not None:
                task.cancel()
        elif method.endswith("/list_changed"):
            for key, (list_method, changed) in _LISTINGS.items():
                if changed == method:
                    self._generation[key] += 1
                    if self._cache.pop(key, None) is not None:
                        # Someone looked at this listing: keep it fresh for them.
                        self._spawn(self._refresh(key, list_method))
        self._emit(method, params)

    def _emit(self, method: str, params: JSON) -> None:
        for listener in list(self._listeners):
            self.call_safely(listener, method, params)

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

    async def _refresh(self, key: str, method: str) -> None:
        try:
            await self.list_all(key, refresh=True)
        except MCPError as e:
            self.diagnostics.append(f"refreshing {method} failed: {e}")

    # -- server→client requests --------------------------------------------------------

    def _on_request(self, message: JSON) -> None:
        rid = message["id"]
        self._incoming[rid] = asyncio.ensure_future(self._answer(rid, message["method"], message.get("params") or {}))

    async def _answer(self, rid: int | str, method: str, params: JSON) -> None:
        current_server.set(self.name)  # this task's own context
        try:
            handler = self._handler_for(method)
            if handler is None:
                raise RPCError(METHOD_NOT_FOUND, f"mcp-notebook has no handler for {method}")
            result = handler(params)
            if inspect.isawaitable(result):
                result = await result
            reply: JSON = {"jsonrpc": "2.0", "id": rid, "result": result or {}}
        except asyncio.CancelledError:
            return  # the server cancelled it: the spec says send nothing
        except RPCError as e:
            reply = {"jsonrpc": "2.0", "id": rid, "error": _error_object(e.code, e.message, e.data)}
        except Exception as e:
            reply = {"jsonrpc": "2.0", "id": rid, "error": _error_object(INTERNAL_ERROR, f"{type(e).__name__}: {e}")}
        finally:
            self._incoming.pop(rid, None)
        await self._reply(reply)

    async def _reply(self, reply: JSON) -> None:
        if not self._closed:
            try:
                await self.transport.send(reply)
            except MCPError:
                pass

    def _handler_for(self, method: str) -> Handler | None:
        if method == "ping":
            return lambda params: {}
        if method == "roots/list":
            return self.handlers.roots
        if method == "sampling/createMessage":
            return self.handlers.sampling
        if method == "elicitation/create":
            return self.handlers.elicitation
        return None

    # -- listings ----------------------------------------------------------------------

    def cached(self, key: str) -> list[JSON] | None:
        """The cached listing, or None when it was never fetched or has changed since."""
        return self._cache.get(key)

    async def list_all(self, key: str, *, refresh: bool = False) -> list[JSON]:
        """Every item of a listing (``tools``, ``resources``, ``resourceTemplates``,
        ``prompts``), following ``nextCursor`` to the end; cached until list_changed."""
        if not refresh and key in self._cache:
            return self._cache[key]
        # Callers that miss the cache together (calls gathered right after connecting)
        # share one fetch rather than each listing everything.
        fetch = None if refresh else self._fetching.get(key)
        if fetch is None:
            fetch = self._fetching[key] = asyncio.ensure_future(self._fetch_all(key))
            fetch.add_done_callback(lambda done: self._fetched(key, done))
        return await asyncio.shield(fetch)  # one caller's cancel does not stop the others'

    def _fetched(self, key: str, fetch: asyncio.Future[list[JSON]]) -> None:
        if self._fetching.get(key) is fetch:
            del self._fetching[key]
        if not fetch.cancelled():
            fetch.exception()  # retrieved here: every caller gets it through the shield

    async def _fetch_all(self, key: str) -> list[JSON]:
        method = _LISTINGS[key][0]
        generation = self._generation[key]
        items: list[JSON] = []
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            try:
                result = await self.request(method, {"cursor": cursor} if cursor else None)
            except RPCError as e:
                if e.code == METHOD_NOT_FOUND:
                    break  # the server has no such feature: an empty listing
                raise
            page = result.get(key) or []
            if not isinstance(page, list):
                raise ProtocolError(f"server {self.name!r} sent a {method} result whose {key!r} is not a list")
            for entry in page:
                usable, problem = clean_entry(key, entry)
                if usable is not None:
                    items.append(usable)
                if problem is not None:
                    self.diagnostics.append(problem if usable is not None else f"skipped {problem}: {excerpt(entry)}")
            cursor = result.get("nextCursor")
            if not cursor:
                break
            if not isinstance(cursor, str):
                raise ProtocolError(f"server {self.name!r} sent a {method} cursor that is not a string")
            if cursor in seen:
                raise ProtocolError(f"server {self.name!r} repeated the {method} cursor {cursor!r}: pagination loops")
            seen.add(cursor)
        if self._generation[key] == generation:
            self._cache[key] = items
        return items


def _shortest(a: float | None, b: float | None) -> float | None:
    return b if a is None else a if b is None else min(a, b)


def _error_object(code: int, message: str, data: Any = None) -> JSON:
    error: JSON = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return error


def _not_json(method: str, error: TypeError) -> ArgumentError:
    """A value the JSON encoder cannot take (sent unchecked): nothing was sent."""
    return ArgumentError(f"{method}: {error}; nothing was sent: give text, numbers, booleans, None, lists or dicts")


def _rpc_error(error: JSON) -> MCPError:
    return RPCError(error["code"], error.get("message", ""), error.get("data"))


__all__ = ["LOG_SIZE", "ClientSession", "Handlers"]
