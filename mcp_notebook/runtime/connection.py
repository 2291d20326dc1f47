"""One server's connection: its transport and session, and keeping them alive.

A ``Connection`` builds the transport its config names (stdio, Streamable HTTP, legacy
SSE; ``auto`` tries the first HTTP one, then the other), wires OAuth for a remote server,
words startup failures, opens a new session when a remote server ends one, fans the
server's notifications out, keeps the subscriptions going across sessions (listening.py),
keeps fresh resource reads (reads.py) and chooses how a blocking request is sent: on the
calling thread (the fast path) or on the background loop. Its status says where it stands.
Everything here that awaits runs on the background loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from ..core.auth.oauth import LoginRequest, OAuth, OAuthSettings
from ..core.config.servers import ServerConfig
from ..core.loggers import RUNTIME as LOG
from ..core.protocol.constants import UNSUPPORTED_PROTOCOL_VERSION
from ..core.protocol.era import is_modern, legacy_sse_answer
from ..core.protocol.subscriptions import UPDATED
from ..core.protocol.tasks import EXTENSION as TASKS_EXTENSION
from ..core.safety.text import printable
from ..core.session.session import ClientSession, ProgressCallback
from ..core.transports import (
    AuthChallenge,
    HttpStatusError,
    SseTransport,
    StdioParameters,
    StdioTransport,
    StreamableHttpTransport,
    ca_context,
)
from ..core.types import Status
from ..errors import (
    LoginRequired,
    MCPError,
    NotConnected,
    RequestTimeout,
    RPCError,
    ServerExited,
    SessionExpired,
    StartupError,
)
from .context import DEFAULT, Runtime
from .listening import Listener, Listening
from .reads import Reads
from .sessionlink import SessionLink
from .slots import CallSlots

T = TypeVar("T")
JSON = dict[str, Any]
AnyTransport = StdioTransport | StreamableHttpTransport | SseTransport


DEFAULT_LOG_LEVEL = "info"


class Connection:
    """The live link to one configured server (see the module's docstring)."""

    def __init__(self, runtime: Runtime, config: ServerConfig, *, startup_timeout: float | None = None) -> None:
        self.runtime = runtime
        self.config = config
        self.status = Status.DISABLED if config.disabled else Status.CLOSED
        self.error: str | None = None
        self.startup_timeout = startup_timeout  # overrides the config's and the Settings' when given
        self.session: ClientSession | None = None
        self.transport: AnyTransport | None = None
        self.transport_name = config.transport  # what is in use (auto resolves to http or sse)
        self.auth: OAuth | None = None  # OAuth for a remote server (made on first connect)
        self.listeners: list[Listener] = []  # fn(method, params) for each notification
        self.protocol_seen: str | None = None  # the version the last session settled on
        # A modern server's requests carry it (%mcp loglevel). It logs nothing for a request
        # without one; info keeps what a legacy server sends by default showing in the cell.
        self.log_level: str | None = DEFAULT_LOG_LEVEL
        self.listening = Listening(self)  # the URIs followed, and how the server is told
        self.reads = Reads(self._authorization)  # resources/read results a modern server said stay fresh
        self._renewing: asyncio.Lock | None = None
        self._renew_task: asyncio.Future[None] | None = None
        limit = config.max_concurrency  # (a restart in another era keeps it)
        self.slots = None if limit is None else CallSlots(config.name, limit)  # its tool calls in flight

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def remote(self) -> bool:
        """Its sessions can end, and are renewed (HTTP; stdio's never end): as its
        transport declares, or by its kind before one is built."""
        transport = self.transport
        return transport.remote if transport is not None else self.transport_name != "stdio"

    def __repr__(self) -> str:
        return f"<Connection {self.name!r} {self.transport_name} {self.status.value}>"

    @property
    def request_timeout(self) -> float | None:
        """The default for this server's requests: its config's, else the Settings'."""
        own = self.config.request_timeout
        return own if own is not None else self.runtime.settings.request_timeout

    def max_message_size(self) -> int:
        """The Settings' limit now: the transports ask it where they check a size, so that
        raising it reaches this connection at once (no restart)."""
        return self.runtime.settings.max_message_size

    def connected(self) -> ClientSession:
        """The open session, or the error that says why there is none and what to do."""
        session = self.session
        if session is not None and session.closed and isinstance(session.closed_error, SessionExpired):
            raise session.closed_exception()  # a new session is opened by with_session
        if session is None or self.status is not Status.CONNECTED or session.closed:
            if self.status is Status.FAILED:
                raise NotConnected(f"server {self.name!r} is not connected: {self.error}; restart it")
            if self.status is Status.NEEDS_AUTH:
                raise NotConnected(f"server {self.name!r} needs a login: %mcp login {self.name} (or server.login())")
            raise NotConnected(f"server {self.name!r} is {self.status.value}; connect or restart it")
        return session

    # -- lifecycle ---------------------------------------------------------------------

    async def connect(self) -> None:
        if self.session is not None and not self.session.closed:
            await self.close()
        if self.config.transport == "auto":
            # The spec's backwards compatibility: Streamable HTTP first; an initialize
            # answered 400, 404 or 405 means a legacy HTTP+SSE server.
            try:
                return await self._connect_with("http")
            except (HttpStatusError, RPCError) as e:
                if not legacy_sse_answer(e):
                    raise
                refused = self.session.found.initialize_call if self.session is not None else None
                if refused is not None and refused.error is not None:
                    # Expected, as the era probe's refusal is: the history says what it meant.
                    status = e.http_status if isinstance(e, RPCError) else e.status
                    refused.note = f"legacy HTTP+SSE server (initialize got HTTP {status})"
            return await self._connect_with("sse")
        return await self._connect_with(self.config.transport)

    async def _connect_with(self, kind: str) -> None:
        settings, config = self.runtime.settings, self.config
        self.status, self.error = Status.CONNECTING, None
        transport: AnyTransport
        if kind == "stdio":
            assert config.executable is not None
            transport = StdioTransport(
                StdioParameters(config.executable, config.args, config.env, config.cwd),
                max_message_size=self.max_message_size,
            )
        else:
            assert config.url is not None
            cls = StreamableHttpTransport if kind == "http" else SseTransport
            transport = cls(
                config.url,
                headers=config.headers,
                max_message_size=self.max_message_size,
                timeout=settings.connect_timeout,
                read_timeout=settings.read_timeout,
                verify=settings.tls_verify,
                auth=self.oauth(),
            )
        self.transport_name = kind
        session = ClientSession(
            transport,
            name=self.name,
            handlers=self.runtime.handlers,
            request_timeout=self.request_timeout,
            extensions={TASKS_EXTENSION: {}},  # the runtime follows tasks (handle.call_tool)
        )
        self.transport, self.session = transport, session
        session.recorder = self.runtime.recorder(self.name)  # %mcp history / transcript
        session.add_tagged_listener(self._on_notification)
        session.log_level = self.log_level
        session.auth_context = self.reads.context
        self.listening.began(session)
        self.reads.clear()
        timeout = self._startup_timeout()
        try:
            try:
                await session.start(timeout=timeout, protocol=self._protocol_for(kind))
            except RPCError as e:
                if e.code != UNSUPPORTED_PROTOCOL_VERSION or self.protocol_seen is None:
                    raise
                # It spoke legacy last time, and no longer does (upgraded): probe afresh.
                self.protocol_seen = None
                await session.close()
                return await self._connect_with(kind)
        except BaseException as e:
            error = self._startup_error(e, timeout, transport)
            LOG.info("%s: could not connect: %s", self.name, error or "cancelled")
            await session.close()
            self.fail(str(error) if error else "cancelled while connecting")
            if isinstance(error, LoginRequired):
                self.status = Status.NEEDS_AUTH
            if error is None:
                raise
            raise error from None
        self.protocol_seen = session.protocol_version
        self.status = Status.CONNECTED
        LOG.info("%s: connected over %s (%s), protocol %s (%s)", self.name, kind, transport.describe(),
                 session.protocol_version, printable(str(session.found.era_note)))  # fmt: skip
        await self.listening.resubscribe(session, timeout)

    def _protocol_for(self, kind: str) -> str:
        """What the session is told to speak: the config's pin; else legacy on SSE (it has
        no modern form) or for a server seen speaking legacy (a legacy server pays the
        probe once, not per reconnect); else auto."""
        pinned = self.config.protocol
        if pinned != "auto":
            return pinned
        if kind == "sse" or (self.protocol_seen is not None and not is_modern(self.protocol_seen)):
            return "legacy"
        return "auto"

    def _startup_timeout(self) -> float:
        for value in (self.startup_timeout, self.config.startup_timeout):
            if value is not None:
                return value
        return self.runtime.settings.startup_timeout

    def oauth(self) -> OAuth | None:
        """OAuth for a remote server, kept across reconnections; none when the config
        brings its own Authorization header (a token the person manages)."""
        if self.auth is None and not any(k.lower() == "authorization" for k in self.config.headers):
            assert self.config.url is not None
            runtime = self.runtime
            verify = runtime.settings.tls_verify
            self.auth = OAuth(self.name, self.config.url, runtime.token_store, self._login,
                              OAuthSettings(**self.config.oauth), can_login=runtime.can_login,
                              verify=verify if isinstance(verify, bool) else ca_context(verify))  # fmt: skip
        return self.auth

    async def _login(self, request: LoginRequest) -> str:
        """A person logs in: meanwhile the session's clocks stand still, so that the request
        behind the login (the era's probe, a call) does not time out and start another."""
        session = self.session
        if session is None:
            return await self.runtime.login(request)
        with session.clocks.stopped():
            return await self.runtime.login(request)

    def _startup_error(self, e: BaseException, timeout: float, transport: AnyTransport) -> MCPError | None:
        what = f"server {self.name!r} ({transport.describe()})"
        remote = self.remote  # a remote server does not exit: its connection fails
        if isinstance(e, RequestTimeout):
            check = "check the URL and that the server is up" if remote else "check the command"
            return StartupError(
                f"{what} did not answer within {timeout:g} s{transport.failure_detail()}; "
                f"{check}, or raise startup_timeout"
            )
        if isinstance(e, ServerExited):
            if remote:
                return StartupError(f"server {self.name!r} could not connect: {e}")
            code = "" if e.returncode is None else f" with code {e.returncode}"
            return StartupError(f"{what} exited during startup{code}{transport.failure_detail()}")
        if isinstance(e, MCPError):
            return e
        if isinstance(e, Exception):
            return StartupError(f"{what} failed to {'connect' if remote else 'start'}: {type(e).__name__}: {e}")
        return None

    def fail(self, reason: str) -> None:
        self.status, self.error = Status.FAILED, reason

    async def close(self) -> None:
        session, self.session = self.session, None
        if not (self.status is Status.DISABLED and session is None):
            self.status = Status.CLOSED  # a disabled server that never connected stays disabled
        self.error = None
        if session is not None:
            await session.close()

    async def restart(self, protocol: str | None = None) -> None:
        """Close and connect again; ``protocol``: in that era from now on (this kernel)."""
        if protocol is not None:
            self.config = dataclasses.replace(self.config, protocol=protocol)  # checked as any config is
        await self.close()
        await self.connect()

    async def login(self, scopes: str | None) -> None:
        """Log in now (OAuth), then connect if not connected."""
        if self.config.url is None:
            raise NotConnected(f"server {self.name!r} runs locally (stdio): it has no login")
        auth = self.oauth()
        if auth is None:
            raise NotConnected(
                f"server {self.name!r} sends its own Authorization header: there is nothing to log in to"
            )
        await auth.ensure_login(scopes)
        if self.status is not Status.CONNECTED:
            await self.connect()

    def logout(self) -> None:
        """Forget the server's tokens and client registration (here and in the store)."""
        auth = self.auth or (self.oauth() if self.config.url is not None else None)
        if auth is not None:
            auth.forget()

    # -- notifications -----------------------------------------------------------------

    def _on_notification(self, method: str, params: JSON, tag: str | None) -> None:
        if method == "$/closed":
            session = self.session
            if session is not None and isinstance(session.closed_error, SessionExpired):
                # A legacy event stream dropped: reconnect now, not on the next call.
                self._renew_task = asyncio.ensure_future(self._renew_quietly(session))
            else:
                self.fail(params["error"])
            return
        session = self.session
        if session is None:
            return
        if method == UPDATED and isinstance(uri := params.get("uri"), str):
            self.reads.drop(uri)  # before its callbacks, which may read it again
        self.listening.notified(session, method, params)
        for listener in list(self.listeners):
            session.call_safely(listener, method, params)
        for hook in list(self.runtime.notification_listeners):
            session.call_safely(hook, self.name, method, params)
        for tagged in list(self.runtime.tagged_listeners):
            session.call_safely(tagged, self.name, method, params, tag)

    async def notify(self, method: str, params: JSON | None = None) -> None:
        await self.connected().notify(method, params)

    async def subscribe(self, uri: str, callback: Listener | None) -> None:
        """Follow ``uri`` (listening.py): ``callback(uri, params)`` on each update."""
        await self.listening.subscribe(uri, callback)

    async def unsubscribe(self, uri: str) -> None:
        await self.listening.unsubscribe(uri)

    @property
    def subscriptions(self) -> dict[str, list[Listener]]:
        """The URIs followed: uri -> fn(uri, params)."""
        return self.listening.subscriptions

    # -- requests ----------------------------------------------------------------------

    def request(
        self, method: str, params: JSON | None, timeout: Any = DEFAULT, on_progress: ProgressCallback | None = None
    ) -> Coroutine[Any, Any, JSON]:
        """The request, as a coroutine for the background loop."""
        if timeout is DEFAULT:
            timeout = self.request_timeout
        slots = self.slots
        if slots is not None and method == "tools/call":
            return slots.call(lambda left: self._request(method, params, left, on_progress), timeout)
        return self._request(method, params, timeout, on_progress)

    def _request(
        self, method: str, params: JSON | None, timeout: Any, on_progress: ProgressCallback | None
    ) -> Coroutine[Any, Any, JSON]:
        if not self.remote:  # stdio: sessions never end; the session's own coroutine (one frame fewer)
            return self.connected().request(method, params, timeout=timeout, on_progress=on_progress)
        return self.with_session(lambda s: s.request(method, params, timeout=timeout, on_progress=on_progress), method)

    def steady(self) -> Connection | SessionLink:
        """What many requests in a row go through (a bulk map's rows, on the loop): over
        stdio the open session itself, checked once here, since its sessions never end
        (one that closes fails the next request with why); a remote connection, whose
        sessions are renewed, is itself, and so is one with no open session (an exited
        server): each row's request then fails with why, and the map keeps its frame. A
        connection whose tool calls are limited is itself too: each row takes a slot."""
        if self.remote or self.slots is not None:
            return self
        try:
            session = self.connected()
        except MCPError:
            return self
        return SessionLink(self.name, session, self.request_timeout)

    def request_blocking(
        self, method: str, params: JSON | None, timeout: Any = DEFAULT, on_progress: ProgressCallback | None = None
    ) -> JSON:
        """The request, waited for on the calling thread: read right here when the session
        can (the fast path, no hop to the loop), else run on the loop."""
        if timeout is DEFAULT:
            timeout = self.request_timeout
        runtime, session = self.runtime, self.session
        limited = self.slots is not None and method == "tools/call"  # it waits for its turn on the loop
        if limited or session is None or not session.can_block or runtime.loop.in_loop_thread():
            return runtime.run(self.request(method, params, timeout, on_progress), self.name)
        interaction = runtime.interaction
        if not self.remote:
            session = self.connected()
            if not interaction.services_prompts:
                return session.request_blocking(method, params, timeout=timeout, on_progress=on_progress)
            # With a person to ask (a notebook) it also serves the interaction, so that
            # the server's questions are answered in this cell; an interaction that can
            # answer only while it waits (no waker) gets its wait on the loop's path.
            with interaction.blocking(self.name) as waker:
                if waker is not None:
                    return session.request_blocking(
                        method, params, timeout=timeout, on_progress=on_progress, waker=waker
                    )
            return runtime.run(self.request(method, params, timeout, on_progress), self.name)
        if (
            not interaction.services_prompts
            and self.status is Status.CONNECTED
            and not session.closed
            and (self.auth is None or self.auth.fresh())  # a refresh is due: the loop's path does it
        ):
            # A remote reply is read on this thread, which cannot also serve a person's
            # prompts: only where nobody is asked. An ended session is renewed on the loop.
            try:
                return session.request_blocking(method, params, timeout=timeout, on_progress=on_progress)
            except (SessionExpired, NotConnected, AuthChallenge):
                pass  # the loop's path renews the session, or logs in, and tries again
        return runtime.run(self.request(method, params, timeout, on_progress), self.name)

    async def with_session(self, op: Callable[[ClientSession], Coroutine[Any, Any, T]], method: str) -> T:
        """``op(session)``; when the server ended the session, open a new one and run it
        again, except a tool call: that is never sent twice (the person decides)."""
        if self._renew_task is not None and not self._renew_task.done():
            await asyncio.shield(self._renew_task)  # reconnecting after a dropped stream: wait for it
        elif self._renewing is not None and self._renewing.locked():
            async with self._renewing:  # another call is opening a new session: use that one
                pass
        session = self.session
        try:
            return await op(self.connected())
        except LoginRequired:
            self.status = Status.NEEDS_AUTH  # the tokens stopped working and nobody can log in here
            raise
        except (SessionExpired, NotConnected) as e:
            renewing = self._renewing is not None and self._renewing.locked()
            if isinstance(e, NotConnected) and not renewing and self.session in (session, None):
                raise  # really closed, not being replaced by a new session under this request
            await self._renew(session)
            if method == "tools/call":
                why = e if isinstance(e, SessionExpired) else "the server ended the session"
                raise SessionExpired(
                    f"server {self.name!r}: {why}; a new session is open, but the call was not sent again: "
                    "run it again if it should run"
                ) from None
        return await op(self.connected())

    async def _renew(self, old: ClientSession | None) -> None:
        """A new session in place of one the server ended (once, however many callers)."""
        if self._renewing is None:
            self._renewing = asyncio.Lock()
        async with self._renewing:
            current = self.session
            if current is not old and current is not None and not current.closed:
                return  # another caller renewed it already
            if old is not None:
                await old.close()
            LOG.info("%s: reconnecting (%s)", self.name, "the server ended the session" if old else "not connected")
            await self._connect_with(self.transport_name)  # it subscribes again

    async def _renew_quietly(self, old: ClientSession) -> None:
        """Reconnect in the background, trying a few times over ~15 s (a server that is
        restarting); the status says why if it never comes back."""
        for delay in (0.0, 0.5, 1.0, 2.0, 4.0, 8.0):
            await asyncio.sleep(delay)
            current = self.session
            if self.status is Status.CLOSED or (current not in (None, old) and not current.closed):
                return  # closed by the user, or renewed by a call in the meantime
            try:
                await self._renew(current)
                return
            except MCPError:
                pass

    # -- listings ----------------------------------------------------------------------

    async def listing(self, kind: str, refresh: bool | None) -> list[JSON]:
        """A whole listing; ``refresh=None``: refetch only if one is cached (it may be stale)."""

        def op(s: ClientSession) -> Coroutine[Any, Any, list[JSON]]:
            listings = s.listings
            return listings.list_all(kind, refresh=listings.cached(kind) is not None if refresh is None else refresh)

        return await self.with_session(op, f"{kind}/list")

    def cached(self, kind: str) -> list[JSON] | None:
        """The cached listing, if there is one (safe from any thread)."""
        session = self.session
        return session.listings.cached(kind) if session else None

    # -- caching hints (modern) --------------------------------------------------------

    def _authorization(self) -> str | None:
        """The Authorization header requests go with now (the config's, else OAuth's), if any."""
        header = next((v for k, v in self.config.headers.items() if k.lower() == "authorization"), None)
        if header is None and self.auth is not None:
            header = self.auth.header_now().get("Authorization")
        return header


__all__ = ["Connection"]
