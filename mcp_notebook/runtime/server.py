"""One named server: its config, its connection, its status and every operation on it.

Each operation is one async method (``a``-prefixed, awaitable from any event loop) and a
thin blocking wrapper of the same name without the prefix.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from ..core.config import ServerConfig
from ..core.links import linkable
from ..core.oauth import OAuth, OAuthSettings
from ..core.protocol import LOG_LEVELS, URL_ELICITATION_REQUIRED
from ..core.session import ClientSession, ProgressCallback
from ..core.text import printable
from ..core.transports import (
    DEFAULT_MAX_MESSAGE_SIZE,
    AuthChallenge,
    HttpStatusError,
    SseTransport,
    StdioParameters,
    StdioTransport,
    StreamableHttpTransport,
    ca_context,
)
from ..core.types import CallResult, Prompt, PromptResult, ReadResult, Resource, ResourceTemplate, Status, Tool
from ..core.validation import check_prompt_arguments, check_structured_output, validate_arguments
from ..core.values import to_json
from ..errors import (
    ArgumentError,
    LoginRequired,
    MCPError,
    NotConnected,
    ProtocolError,
    RequestTimeout,
    RPCError,
    ServerExited,
    SessionExpired,
    StartupError,
    ToolDenied,
    UnknownPrompt,
    UnknownTool,
)
from .interaction import ApprovalRequest
from .loop import LoopThread

if TYPE_CHECKING:
    from .client import Client

T = TypeVar("T")
JSON = dict[str, Any]
_DEFAULT: Any = object()  # "use the configured default" (None means "no limit")
F = TypeVar("F", bound=Callable[..., Coroutine[Any, Any, Any]])
P = ParamSpec("P")


def _on_loop(fn: F) -> F:
    """Run the coroutine method on the background loop, whatever loop awaits it. Its
    blocking twin goes through ``Server._block`` (the plain coroutine, ``__wrapped__``)."""

    @functools.wraps(fn)
    def wrapper(self: Server, *args: Any, **kwargs: Any) -> Any:
        # Returns the coroutine itself on the loop's own thread: one frame fewer there.
        return self._client._awaitable(fn(self, *args, **kwargs), self.name)

    if hasattr(inspect, "markcoroutinefunction"):  # Python >= 3.12
        inspect.markcoroutinefunction(wrapper)
    return wrapper  # type: ignore[return-value]


class Settings:
    """Defaults a Client gives its servers; each can be changed at any time."""

    def __init__(
        self,
        *,
        startup_timeout: float = 30.0,
        request_timeout: float | None = 60.0,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        validate: bool = True,
        connect_timeout: float = 30.0,
        read_timeout: float | None = None,
        tls_verify: bool | str = True,
    ) -> None:
        self.startup_timeout = startup_timeout
        self.request_timeout = request_timeout
        self.max_message_size = max_message_size  # a stdio line, an HTTP body, an SSE event
        self.validate = validate
        # Remote servers: connecting (and waiting for an answer to begin); silence on an
        # open stream (None: wait, the request timeout decides); certificate checks
        # (True, False, or the path of a CA bundle).
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.tls_verify = tls_verify

    def __repr__(self) -> str:
        return (
            f"Settings(startup_timeout={self.startup_timeout}, request_timeout={self.request_timeout}, "
            f"max_message_size={self.max_message_size}, validate={self.validate}, "
            f"connect_timeout={self.connect_timeout}, read_timeout={self.read_timeout}, "
            f"tls_verify={self.tls_verify!r})"
        )


class Server:
    """A named MCP server. Get one from ``Client.add`` / ``Client.load`` / ``client[name]``."""

    def __init__(self, client: Client, config: ServerConfig, *, startup_timeout: float | None = None) -> None:
        self._client = client
        self.config = config
        self.status = Status.DISABLED if config.disabled else Status.CLOSED
        self.error: str | None = None
        self.startup_timeout = startup_timeout  # overrides the config's and the Settings' when given
        self._session: ClientSession | None = None
        self._transport: Any = None
        self.transport_name = config.transport  # what is in use (auto resolves to http or sse)
        self._listeners: list[Callable[[str, JSON], Any]] = []
        self._subscriptions: dict[str, list[Callable[[str, JSON], Any]]] = {}
        self._tool_index: tuple[Any, dict[str, JSON]] = (None, {})
        self._renewing: asyncio.Lock | None = None
        self._renew_task: asyncio.Future[None] | None = None
        self.auth: OAuth | None = None  # OAuth for a remote server (made on first connect)

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def _loop(self) -> LoopThread:
        return self._client._loop_thread

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return self._client._run(coro, self.name)

    def _block(self, method: Callable[P, Coroutine[Any, Any, T]], *args: P.args, **kwargs: P.kwargs) -> T:
        """The blocking twin of an ``@_on_loop`` method. Its plain coroutine runs on the loop
        and this thread waits, answering prompts: the decorated method would wait (and ask)
        on the loop's own thread, blocking it (and a login's browser redirect with it)."""
        plain: Callable[..., Coroutine[Any, Any, T]] = method.__wrapped__  # type: ignore[attr-defined]
        return self._run(plain(self, *args, **kwargs))  # (__wrapped__: set by functools.wraps in _on_loop)

    def __repr__(self) -> str:
        detail = f" {self.server_info.get('name')} {self.server_info.get('version')}" if self.server_info else ""
        why = f" ({self.error})" if self.error and self.status is Status.FAILED else ""
        return printable(f"<Server {self.name!r} {self.transport_name} {self.status.value}{detail}{why}>")

    # -- facts about the connection ----------------------------------------------------

    @property
    def server_info(self) -> JSON:
        return self._session.server_info if self._session else {}

    @property
    def capabilities(self) -> JSON:
        return self._session.server_capabilities if self._session else {}

    @property
    def client_capabilities(self) -> JSON:
        """What this client declared to the server when it connected (fixed until it reconnects)."""
        return self._session.declared_capabilities if self._session else {}

    @property
    def instructions(self) -> str | None:
        return self._session.instructions if self._session else None

    @property
    def protocol_version(self) -> str | None:
        return self._session.protocol_version if self._session else None

    @property
    def request_timeout(self) -> float | None:
        """The default for this server's requests: its config's, else the Settings'."""
        own = self.config.request_timeout
        return own if own is not None else self._client.settings.request_timeout

    def _startup_timeout(self, settings: Settings) -> float:
        for value in (self.startup_timeout, self.config.startup_timeout):
            if value is not None:
                return value
        return settings.startup_timeout

    @property
    def pid(self) -> int | None:
        return self._transport.pid if self._transport else None

    @property
    def stderr(self) -> str:
        """What the server wrote to stderr (the last 500 lines)."""
        return self._transport.stderr_text() if self._transport else ""

    @property
    def logs(self) -> list[JSON]:
        """``notifications/message`` params received, oldest first."""
        return list(self._session.logs) if self._session else []

    @property
    def diagnostics(self) -> list[str]:
        """Non-protocol lines on stdout and protocol oddities, for debugging a server."""
        out: list[str] = list(self._transport.diagnostics) if self._transport else []
        if self._session:
            out.extend(self._session.diagnostics)
        return out

    def _connected(self) -> ClientSession:
        session = self._session
        if session is not None and session.closed and isinstance(session.closed_error, SessionExpired):
            raise session.closed_exception()  # a new session is opened by _with_session
        if session is None or self.status is not Status.CONNECTED or session.closed:
            if self.status is Status.FAILED:
                raise NotConnected(f"server {self.name!r} is not connected: {self.error}; restart it")
            if self.status is Status.NEEDS_AUTH:
                raise NotConnected(f"server {self.name!r} needs a login: %mcp login {self.name} (or server.login())")
            raise NotConnected(f"server {self.name!r} is {self.status.value}; connect or restart it")
        return session

    # -- lifecycle ---------------------------------------------------------------------

    @_on_loop
    async def aconnect(self) -> Server:
        if self._session is not None and not self._session.closed:
            await self.aclose()
        settings = self._client.settings
        config = self.config
        if config.transport == "auto":
            # The spec's backwards compatibility: Streamable HTTP first; an initialize
            # answered 400, 404 or 405 means a legacy HTTP+SSE server.
            try:
                return await self._connect_with("http", settings)
            except HttpStatusError as e:
                if e.status not in (400, 404, 405):
                    raise
            return await self._connect_with("sse", settings)
        return await self._connect_with(config.transport, settings)

    async def _connect_with(self, kind: str, settings: Settings) -> Server:
        config = self.config
        self.status, self.error = Status.CONNECTING, None
        transport: Any
        if kind == "stdio":
            assert config.executable is not None
            transport = StdioTransport(
                StdioParameters(config.executable, config.args, config.env, config.cwd),
                max_message_size=settings.max_message_size,
            )
        else:
            assert config.url is not None
            cls = StreamableHttpTransport if kind == "http" else SseTransport
            transport = cls(
                config.url,
                headers=config.headers,
                max_message_size=settings.max_message_size,
                timeout=settings.connect_timeout,
                read_timeout=settings.read_timeout,
                verify=settings.tls_verify,
                auth=self._oauth(),
            )
        self.transport_name = kind
        session = ClientSession(
            transport,
            name=self.name,
            handlers=self._client.handlers,
            request_timeout=self.request_timeout,
        )
        self._transport, self._session = transport, session
        session.add_listener(self._on_notification)
        timeout = self._startup_timeout(settings)
        try:
            await session.start(timeout=timeout)
        except BaseException as e:
            error = self._startup_error(e, timeout, transport)
            await session.close()
            self._fail(str(error) if error else "cancelled while connecting")
            if isinstance(error, LoginRequired):
                self.status = Status.NEEDS_AUTH
            if error is None:
                raise
            raise error from None
        self.status = Status.CONNECTED
        return self

    def _oauth(self) -> OAuth | None:
        """OAuth for a remote server, kept across reconnections; none when the config
        brings its own Authorization header (a token the person manages)."""
        if self.auth is None and not any(k.lower() == "authorization" for k in self.config.headers):
            assert self.config.url is not None
            settings = OAuthSettings(**self.config.oauth)
            client = self._client
            verify = client.settings.tls_verify
            self.auth = OAuth(self.name, self.config.url, client.token_store, client._login, settings,
                              can_login=client._can_login,
                              verify=verify if isinstance(verify, bool) else ca_context(verify))  # fmt: skip
        return self.auth

    def _startup_error(self, e: BaseException, timeout: float, transport: Any) -> MCPError | None:
        what = f"server {self.name!r} ({transport.describe()})"
        remote = self._remote  # a remote server does not exit: its connection fails
        if isinstance(e, RequestTimeout):
            check = "check the URL and that the server is up" if remote else "check the command"
            return StartupError(
                f"{what} did not answer initialize within {timeout:g} s{transport.failure_detail()}; "
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

    def _fail(self, reason: str) -> None:
        self.status, self.error = Status.FAILED, reason

    @_on_loop
    async def aclose(self) -> None:
        session, self._session = self._session, None
        if not (self.status is Status.DISABLED and session is None):
            self.status = Status.CLOSED  # a disabled server that never connected stays disabled
        self.error = None
        if session is not None:
            await session.close()

    @_on_loop
    async def arestart(self) -> Server:
        await self.aclose()
        return await self.aconnect()

    def connect(self) -> Server:
        return self._block(self.aconnect)

    def close(self) -> None:
        self._block(self.aclose)

    def restart(self) -> Server:
        return self._block(self.arestart)

    # -- OAuth -------------------------------------------------------------------------

    @_on_loop
    async def alogin(self, scopes: str | None = None) -> Server:
        """Log in now (OAuth), then connect if not connected: the login card (or terminal
        prompt) shows here. ``scopes``: ask for these."""
        if self.config.url is None:
            raise NotConnected(f"server {self.name!r} runs locally (stdio): it has no login")
        auth = self._oauth()
        if auth is None:
            raise NotConnected(
                f"server {self.name!r} sends its own Authorization header: there is nothing to log in to"
            )
        await auth.ensure_login(scopes)
        if self.status is not Status.CONNECTED:
            await self.aconnect()
        return self

    def login(self, scopes: str | None = None) -> Server:
        return self._block(self.alogin, scopes)

    def logout(self) -> None:
        """Forget this server's tokens and client registration (here and in the store)."""
        if self.auth is not None:
            self.auth.forget()
        elif self.config.url is not None and (auth := self._oauth()) is not None:
            auth.forget()

    # -- notifications -----------------------------------------------------------------

    def on_notification(self, callback: Callable[[str, JSON], Any]) -> Callable[[], None]:
        """Call ``callback(method, params)`` for every notification from this server.

        It runs on the background loop: keep it quick and use only the async API there.
        Returns a function that removes it.
        """
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    def _on_notification(self, method: str, params: JSON) -> None:
        if method == "$/closed":
            session = self._session
            if session is not None and isinstance(session.closed_error, SessionExpired):
                # A legacy event stream dropped: reconnect now, not on the next call.
                self._renew_task = asyncio.ensure_future(self._renew_quietly(session))
            else:
                self._fail(params["error"])
            return
        session = self._session
        if session is None:
            return
        if method == "notifications/resources/updated":
            for callback in self._subscriptions.get(params.get("uri", ""), []):
                session.call_safely(callback, params.get("uri"), params)
        for listener in list(self._listeners):
            session.call_safely(listener, method, params)
        for hook in list(self._client.notification_listeners):
            session.call_safely(hook, self.name, method, params)

    # -- operations --------------------------------------------------------------------
    # Each has an awaitable twin (a-prefixed) that runs on the background loop, and a
    # blocking one. Single requests take the blocking fast path (no hop to the loop).

    def _request(self, method: str, params: JSON | None, timeout: Any = _DEFAULT, on_progress: Any = None) -> JSON:
        if timeout is _DEFAULT:
            timeout = self.request_timeout
        session = self._session
        if session is None or not session.can_block or self._loop.in_loop_thread():
            return self._run(self._arequest(method, params, timeout, on_progress))
        # The fast path waits right here, with no hop to the loop.
        interaction = self._client.interaction
        if not self._remote:
            session = self._connected()
            if not interaction.services_prompts:
                return session.request_blocking(method, params, timeout=timeout, on_progress=on_progress)
            # With a person to ask (a notebook) it also serves the interaction, so that
            # the server's questions are answered in this cell.
            with interaction.blocking(self.name) as waker:
                return session.request_blocking(method, params, timeout=timeout, on_progress=on_progress, waker=waker)
        elif (
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
        return self._run(self._arequest(method, params, timeout, on_progress))

    @property
    def _remote(self) -> bool:
        return bool(getattr(self._transport, "remote", False))

    def _arequest(
        self, method: str, params: JSON | None, timeout: Any = _DEFAULT, on_progress: Any = None
    ) -> Coroutine[Any, Any, JSON]:
        if timeout is _DEFAULT:
            timeout = self.request_timeout
        if not self._remote:  # stdio: sessions never expire
            return self._connected().request(method, params, timeout=timeout, on_progress=on_progress)
        return self._with_session(lambda s: s.request(method, params, timeout=timeout, on_progress=on_progress), method)

    async def _with_session(self, op: Callable[[ClientSession], Coroutine[Any, Any, T]], method: str) -> T:
        """``op(session)``; when the server ended the session, open a new one and run it
        again, except a tool call: that is never sent twice (the person decides)."""
        if self._renew_task is not None and not self._renew_task.done():
            await asyncio.shield(self._renew_task)  # reconnecting after a dropped stream: wait for it
        elif self._renewing is not None and self._renewing.locked():
            async with self._renewing:  # another call is opening a new session: use that one
                pass
        session = self._session
        try:
            return await op(self._connected())
        except LoginRequired:
            self.status = Status.NEEDS_AUTH  # the tokens stopped working and nobody can log in here
            raise
        except (SessionExpired, NotConnected) as e:
            renewing = self._renewing is not None and self._renewing.locked()
            if isinstance(e, NotConnected) and not renewing and self._session in (session, None):
                raise  # really closed, not being replaced by a new session under this request
            await self._renew(session)
            if method == "tools/call":
                why = e if isinstance(e, SessionExpired) else "the server ended the session"
                raise SessionExpired(
                    f"server {self.name!r}: {why}; a new session is open, but the call was not sent again: "
                    "run it again if it should run"
                ) from None
        return await op(self._connected())

    async def _list(self, kind: str, refresh: bool | None) -> list[JSON]:
        """A whole listing; ``refresh=None``: refetch only if one is cached (it may be stale)."""

        def op(s: ClientSession) -> Coroutine[Any, Any, list[JSON]]:
            return s.list_all(kind, refresh=s.cached(kind) is not None if refresh is None else refresh)

        return await self._with_session(op, f"{kind}/list")

    async def _renew(self, old: ClientSession | None) -> None:
        """A new session in place of one the server ended (once, however many callers)."""
        if self._renewing is None:
            self._renewing = asyncio.Lock()
        async with self._renewing:
            current = self._session
            if current is not old and current is not None and not current.closed:
                return  # another caller renewed it already
            if old is not None:
                await old.close()
            await self._connect_with(self.transport_name, self._client.settings)
            assert self._session is not None
            for uri in list(self._subscriptions):
                await self._session.request("resources/subscribe", {"uri": uri})

    async def _renew_quietly(self, old: ClientSession) -> None:
        """Reconnect in the background, trying a few times over ~15 s (a server that is
        restarting); the status says why if it never comes back."""
        for delay in (0.0, 0.5, 1.0, 2.0, 4.0, 8.0):
            await asyncio.sleep(delay)
            current = self._session
            if self.status is Status.CLOSED or (current not in (None, old) and not current.closed):
                return  # closed by the user, or renewed by a call in the meantime
            try:
                await self._renew(current)
                return
            except MCPError:
                pass

    async def _notify(self, method: str, params: JSON | None = None) -> None:
        await self._connected().notify(method, params)

    @_on_loop
    async def aping(self) -> None:
        await self._arequest("ping", None)

    def ping(self) -> None:
        self._request("ping", None)

    @_on_loop
    async def alist_tools(self, *, refresh: bool = False) -> list[Tool]:
        raws = await self._list("tools", refresh)
        names = self._client._tool_names
        return [Tool.from_raw(self.name, names.add(self.name, raw.get("name", "")), raw) for raw in raws]

    def list_tools(self, *, refresh: bool = False) -> list[Tool]:
        return self._block(self.alist_tools, refresh=refresh)

    @_on_loop
    async def alist_resources(self, *, refresh: bool = False) -> list[Resource]:
        raws = await self._list("resources", refresh)
        return [Resource.from_raw(self.name, raw) for raw in raws]

    def list_resources(self, *, refresh: bool = False) -> list[Resource]:
        return self._block(self.alist_resources, refresh=refresh)

    @_on_loop
    async def alist_resource_templates(self, *, refresh: bool = False) -> list[ResourceTemplate]:
        raws = await self._list("resourceTemplates", refresh)
        return [ResourceTemplate.from_raw(self.name, raw) for raw in raws]

    def list_resource_templates(self, *, refresh: bool = False) -> list[ResourceTemplate]:
        return self._block(self.alist_resource_templates, refresh=refresh)

    @_on_loop
    async def alist_prompts(self, *, refresh: bool = False) -> list[Prompt]:
        raws = await self._list("prompts", refresh)
        return [Prompt.from_raw(self.name, raw) for raw in raws]

    def list_prompts(self, *, refresh: bool = False) -> list[Prompt]:
        return self._block(self.alist_prompts, refresh=refresh)

    def _cached_tool(self, name: str) -> JSON | None:
        """The tool's listing entry if the listing is cached (safe from any thread)."""
        session = self._session
        raws = session.cached("tools") if session else None
        if raws is None:
            return None
        key, index = self._tool_index
        if key is not raws:
            index = {raw["name"]: raw for raw in raws if isinstance(raw.get("name"), str)}
            self._tool_index = (raws, index)
        return index.get(name)

    async def _tool(self, name: str) -> JSON:
        tool = await self._find_tool(name, required=True)
        assert tool is not None
        return tool

    async def _find_tool(self, name: str, required: bool) -> JSON | None:
        """The tool's listing entry; UnknownTool if it is required and not there."""
        tool = self._cached_tool(name)
        if tool is not None:
            return tool
        # Not listed yet, or the listing is stale (a server that forgot list_changed).
        raws = await self._list("tools", None)
        tool = self._cached_tool(name) or _named(raws, name)
        if tool is None and required:
            raise UnknownTool(f"server {self.name!r} has no tool {name!r}{_did_you_mean(raws, name, 'list_tools()')}")
        return tool

    def _cached_prompt(self, name: str) -> JSON | None:
        session = self._session
        return _named(session.cached("prompts") or [], name) if session else None

    def _checks_prompts(self) -> bool:
        return self._client.settings.validate and "prompts" in self.capabilities

    async def _find_prompt(self, name: str) -> JSON:
        """The prompt's listing entry (refetched when missing: the listing may be stale)."""
        raws = await self._list("prompts", None)
        prompt = _named(raws, name)
        if prompt is None:
            hint = _did_you_mean(raws, name, "list_prompts() shows them")
            raise UnknownPrompt(f"server {self.name!r} has no prompt {name!r}{hint}")
        return prompt

    def get_tool(self, name: str) -> Tool:
        """One tool, from the cached listing when there is one; UnknownTool if none."""
        raw = self._cached_tool(name) or self._run(self._tool(name))
        return Tool.from_raw(self.name, self._client._tool_names.add(self.name, name), raw)

    def _check_call(self, name: str, arguments: Any, validate: bool | None) -> tuple[JSON, bool]:
        # numpy, pandas, datetime... values become their JSON values here, before they are
        # checked and sent: one place for the magics, the blocking and the awaitable API.
        converted = {} if arguments is None else to_json(arguments)
        if not isinstance(converted, dict):
            raise ArgumentError(f"tool {name!r}: arguments must be a dict, not {type(arguments).__name__}")
        return converted, self._client.settings.validate if validate is None else validate

    def _call_result(self, name: str, tool: JSON | None, raw: JSON) -> CallResult:
        output_error = check_structured_output(tool, raw.get("structuredContent")) if tool else None
        return CallResult.from_raw(self.name, name, raw, output_error)

    async def acall_tool(
        self,
        name: str,
        arguments: JSON | None = None,
        *,
        timeout: float | None = _DEFAULT,
        validate: bool | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> CallResult:
        """Call a tool. Arguments are checked against its inputSchema first unless
        ``validate=False``; the approval policy may ask a person first (ToolDenied if they
        say no: nothing is sent); ``timeout`` restarts whenever the server reports progress;
        ``on_progress(progress, total, message)`` runs on the background loop."""
        arguments, check = self._check_call(name, arguments, validate)
        tool = self._cached_tool(name)
        if tool is None and (check or self._client.approval.mode != "never"):
            tool = await self._client._awaitable(self._find_tool(name, required=check), self.name)
        if check and tool is not None:
            validate_arguments(tool, arguments)
        request = self._approval_request(name, tool, arguments)
        if request is not None:
            self._answer_approval(request, await self._client.interaction.aapprove(request))
        progress = self._progress(name, on_progress)
        try:
            raw = await self._client._awaitable(
                self._arequest("tools/call", _call_params(name, arguments), timeout, progress), self.name
            )
        except RPCError as e:
            raise self._url_required(e) from None
        return self._call_result(name, tool, raw)

    def call_tool(
        self,
        name: str,
        arguments: JSON | None = None,
        *,
        timeout: float | None = _DEFAULT,
        validate: bool | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> CallResult:
        arguments, check = self._check_call(name, arguments, validate)
        tool = self._cached_tool(name)
        if tool is None and (check or self._client.approval.mode != "never"):
            tool = self._run(self._find_tool(name, required=check))
        if check and tool is not None:
            validate_arguments(tool, arguments)
        request = self._approval_request(name, tool, arguments)
        if request is not None:
            self._answer_approval(request, self._client.interaction.approve(request))
        progress = self._progress(name, on_progress)
        try:
            raw = self._request("tools/call", _call_params(name, arguments), timeout, progress)
        except RPCError as e:
            raise self._url_required(e) from None
        return self._call_result(name, tool, raw)

    def _approval_request(self, name: str, tool: JSON | None, arguments: JSON) -> ApprovalRequest | None:
        """None when the policy lets the call through; ToolDenied when it forbids it."""
        annotations = (tool or {}).get("annotations") or {}
        decision = self._client.approval.decide(self.name, name, annotations)
        if decision == "allow":
            return None
        if decision == "deny":
            raise ToolDenied(f"{self.name}.{name} is on the deny list; nothing was sent")
        title = (tool or {}).get("title") or annotations.get("title")
        return ApprovalRequest(self.name, name, title, annotations, arguments)

    def _answer_approval(self, request: ApprovalRequest, answer: str) -> None:
        if answer == "always":
            self._client.approval.always_allowed.add((request.server, request.tool))
        elif answer != "approve":
            raise ToolDenied(f"{request.server}.{request.tool} was denied; nothing was sent")

    def _url_required(self, error: RPCError) -> RPCError:
        """-32042: the server needs the person to visit a page first. Show it (where a
        person can see it) and say to run the call again afterwards."""
        if error.code != URL_ELICITATION_REQUIRED:
            return error
        listed = error.data.get("elicitations") if isinstance(error.data, dict) else None
        elicitations = [e for e in listed if isinstance(e, dict)] if isinstance(listed, list) else []
        if elicitations:
            self._client.interaction.show_urls(self.name, elicitations)
        urls = ", ".join(
            f"{e.get('url')}{'' if linkable(e.get('url')) else ' (not a web address to open)'}" for e in elicitations
        )
        return RPCError(
            error.code,
            f"{self.name} needs you to complete a step in your browser first ({urls}); then call again",
            error.data,
        )

    def _progress(self, tool: str, on_progress: ProgressCallback | None) -> ProgressCallback | None:
        """The caller's progress callback, plus the interaction's (a progress bar)."""
        interaction = self._client.interaction
        if not interaction.shows_progress:
            return on_progress
        show = interaction.progress

        def both(progress: float, total: float | None, message: str | None) -> None:
            show(self.name, tool, progress, total, message)
            if on_progress is not None:
                on_progress(progress, total, message)

        return both

    @_on_loop
    async def aread_resource(self, uri: str, *, timeout: float | None = _DEFAULT) -> ReadResult:
        uri = _resource_uri(uri)
        return ReadResult.from_raw(self.name, uri, await self._arequest("resources/read", {"uri": uri}, timeout))

    def read_resource(self, uri: str, *, timeout: float | None = _DEFAULT) -> ReadResult:
        uri = _resource_uri(uri)
        return ReadResult.from_raw(self.name, uri, self._request("resources/read", {"uri": uri}, timeout))

    @_on_loop
    async def aget_prompt(self, name: str, arguments: dict[str, Any] | None = None) -> PromptResult:
        """A prompt's messages. Its arguments are checked against its listing first (unless
        validation is off): a missing required one or an unknown one is an ArgumentError."""
        params = _prompt_params(name, arguments)  # converted first: a missing value counts as not given
        if self._checks_prompts():
            check_prompt_arguments(
                self._cached_prompt(name) or await self._find_prompt(name), params.get("arguments", {})
            )
        return PromptResult.from_raw(self.name, name, await self._arequest("prompts/get", params))

    def get_prompt(self, name: str, arguments: dict[str, Any] | None = None) -> PromptResult:
        params = _prompt_params(name, arguments)
        if self._checks_prompts():
            check_prompt_arguments(
                self._cached_prompt(name) or self._run(self._find_prompt(name)), params.get("arguments", {})
            )
        return PromptResult.from_raw(self.name, name, self._request("prompts/get", params))

    @_on_loop
    async def acomplete(
        self, ref: JSON, argument: str, value: str = "", context: dict[str, str] | None = None
    ) -> list[str]:
        """Completion values for one argument of a prompt (``{"type": "ref/prompt",
        "name": …}``) or a resource template (``{"type": "ref/resource", "uri": …}``)."""
        raw = await self._arequest("completion/complete", _complete_params(ref, argument, value, context))
        return self._completion_values(raw)

    def complete(self, ref: JSON, argument: str, value: str = "", context: dict[str, str] | None = None) -> list[str]:
        return self._completion_values(
            self._request("completion/complete", _complete_params(ref, argument, value, context))
        )

    def _completion_values(self, raw: JSON) -> list[str]:
        values = (raw.get("completion") or {}).get("values")
        if not isinstance(values, list):
            raise ProtocolError(f"server {self.name!r} sent a completion result without values")
        return [str(v) for v in values]

    @_on_loop
    async def aset_log_level(self, level: str) -> None:
        await self._arequest("logging/setLevel", _log_level_params(level))

    def set_log_level(self, level: str) -> None:
        self._request("logging/setLevel", _log_level_params(level))

    @_on_loop
    async def asubscribe(self, uri: str, callback: Callable[[str, JSON], Any] | None = None) -> None:
        """Ask for ``notifications/resources/updated`` on ``uri``; ``callback(uri, params)``
        runs on each (on the background loop)."""
        uri = _resource_uri(uri)
        await self._arequest("resources/subscribe", {"uri": uri})
        callbacks = self._subscriptions.setdefault(uri, [])
        if callback is not None:
            callbacks.append(callback)

    def subscribe(self, uri: str, callback: Callable[[str, JSON], Any] | None = None) -> None:
        self._block(self.asubscribe, uri, callback)

    @_on_loop
    async def aunsubscribe(self, uri: str) -> None:
        uri = _resource_uri(uri)
        await self._arequest("resources/unsubscribe", {"uri": uri})
        self._subscriptions.pop(uri, None)

    def unsubscribe(self, uri: str) -> None:
        self._block(self.aunsubscribe, uri)

    @_on_loop
    async def arequest(self, method: str, params: JSON | None = None, *, timeout: float | None = _DEFAULT) -> JSON:
        """Send any request and return the raw result (for methods without a helper)."""
        return await self._arequest(method, params, timeout)

    def request(self, method: str, params: JSON | None = None, *, timeout: float | None = _DEFAULT) -> JSON:
        return self._request(method, params, timeout)


def _named(raws: list[JSON], name: str) -> JSON | None:
    return next((r for r in raws if r.get("name") == name), None)


def _did_you_mean(raws: list[JSON], name: str, otherwise: str) -> str:
    low = name.lower()
    close = [str(r.get("name")) for r in raws if low in str(r.get("name")).lower()]
    return f"; did you mean {', '.join(map(repr, close[:3]))}?" if close else f"; {otherwise}"


def _call_params(name: str, arguments: JSON) -> JSON:
    return {"name": name, "arguments": arguments}


def _prompt_params(name: str, arguments: dict[str, Any] | None) -> JSON:
    # Prompt arguments are strings by the spec: other values go as their JSON text
    # (3, true, [1, 2]); a missing one (None, NaN, NA) is left out, as if not given.
    converted = {} if arguments is None else to_json(arguments)
    if not isinstance(converted, dict):
        raise ArgumentError(f"prompt {name!r}: arguments must be a dict, not {type(arguments).__name__}")
    texts = {str(k): _prompt_text(v) for k, v in converted.items() if v is not None}
    return {"name": name, "arguments": texts} if texts else {"name": name}


def _prompt_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)  # no JSON form (a timedelta, say): its own text


def _resource_uri(uri: Any) -> str:
    text = to_json(uri)
    if not isinstance(text, str):
        raise ArgumentError(f"a resource URI is a string, not {type(uri).__name__}")
    return text


def _complete_params(ref: JSON, argument: str, value: str, context: dict[str, str] | None) -> JSON:
    params: JSON = {"ref": ref, "argument": {"name": argument, "value": value}}
    if context:
        params["context"] = {"arguments": context}
    return params


def _log_level_params(level: str) -> JSON:
    if level not in LOG_LEVELS:
        raise ArgumentError(f"unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
    return {"level": level}


__all__ = ["Server", "Settings"]
