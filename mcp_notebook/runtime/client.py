"""The kernel-wide registry of named servers."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ..core.approval import ApprovalPolicy
from ..core.config import ServerConfig, check_server_name
from ..core.naming import ToolNames
from ..core.oauth import LoginRequest
from ..core.scopes import load_servers
from ..core.session import Handlers
from ..core.tokens import TokenStore, default_store
from ..core.types import CallResult, Status
from ..errors import UnknownServer, UnknownTool
from .interaction import ConsoleInteraction, Interaction
from .loop import LoopThread, default_loop
from .server import _DEFAULT, Server, Settings

JSON = dict[str, Any]
T = TypeVar("T")


class Client:
    """Named MCP servers that live as long as the kernel.

    >>> client = Client()
    >>> everything = client.add("everything", "npx", ["-y", "@modelcontextprotocol/server-everything"])
    >>> everything.call_tool("echo", {"message": "hi"}).text
    'Echo: hi'

    Every method has an awaitable twin with an ``a`` prefix (``await client.aadd(...)``).
    """

    def __init__(
        self,
        *,
        handlers: Handlers | None = None,
        settings: Settings | None = None,
        approval: ApprovalPolicy | None = None,
        interaction: Interaction | None = None,
        loop: LoopThread | None = None,
    ) -> None:
        self.handlers = handlers or Handlers()
        self.settings = settings or Settings()
        self.approval = approval or ApprovalPolicy()
        self.interaction: Interaction = interaction or ConsoleInteraction()
        self._roots: list[JSON] = []
        # Called as fn(server_name, method, params) for every server's notifications.
        self.notification_listeners: list[Callable[[str, str, JSON], Any]] = []
        self._loop_thread = loop or default_loop()
        self._servers: dict[str, Server] = {}
        self._tool_names = ToolNames()
        self._loop_thread.call_at_exit(self.aclose)
        self._token_store: TokenStore | None = None

    @property
    def token_store(self) -> TokenStore:
        """Where OAuth tokens live (see mcp_notebook.core.tokens); settable."""
        if self._token_store is None:
            self._token_store = default_store()
        return self._token_store

    @token_store.setter
    def token_store(self, store: TokenStore) -> None:
        self._token_store = store

    def _can_login(self) -> bool:
        return self.interaction.can_login()

    async def _login(self, request: LoginRequest) -> str:
        """A server needs a person to log in: the interaction shows how (a card in the
        cell, a terminal prompt); where nobody can, LoginRequired says what to do."""
        return await self.interaction.alogin(request)

    def __repr__(self) -> str:
        connected = sum(s.status is Status.CONNECTED for s in self._servers.values())
        return f"<Client servers={len(self._servers)} connected={connected}>"

    # -- waiting -----------------------------------------------------------------------

    def _run(self, coro: Coroutine[Any, Any, T], server: str | None = None) -> T:
        """Block for ``coro`` (run on the background loop), answering prompts meanwhile;
        ``server`` is the one it talks to (its log messages show while it waits)."""
        loop = self._loop_thread
        if not self.interaction.services_prompts or loop.in_loop_thread():
            return loop.run(coro)
        # The interaction starts it, so that it listens before the server can ask anything.
        return self.interaction.wait(lambda: loop.submit(coro), server)

    def _awaitable(self, coro: Coroutine[Any, Any, T], server: str | None = None) -> Coroutine[Any, Any, T]:
        """``coro`` made awaitable from any event loop, answering prompts meanwhile."""
        loop = self._loop_thread
        if not self.interaction.services_prompts or loop.in_loop_thread():
            return loop.wrap(coro)
        return self.interaction.await_(lambda: loop.submit(coro), server)

    # -- roots ---------------------------------------------------------------------------

    @property
    def roots(self) -> list[JSON]:
        """The roots offered to servers (``{"uri": "file://…", "name": …}``)."""
        return list(self._roots)

    def set_roots(self, roots: Sequence[str | os.PathLike[str] | JSON]) -> None:
        """Offer these folders (paths or ``file://`` URIs) to servers; connected servers are
        told (``notifications/roots/list_changed``). Servers connected from now on see the
        roots capability. None are offered until this is called: a server offered roots may
        take them in place of the folders its own arguments name."""
        self._roots = [root_entry(r) for r in roots]
        if self.handlers.roots is None:
            self.handlers.roots = lambda params: {"roots": self.roots}
        for server in self:
            if server.status is Status.CONNECTED and "roots" in server.client_capabilities:
                self._loop_thread.run(server._notify("notifications/roots/list_changed"))

    # -- the registry ------------------------------------------------------------------

    def __getitem__(self, name: str) -> Server:
        server = self._servers.get(name)
        if server is None:
            known = ", ".join(sorted(self._servers)) or "none yet"
            raise UnknownServer(f"no server named {name!r} (known: {known}); add it first")
        return server

    def __contains__(self, name: object) -> bool:
        return name in self._servers

    def __iter__(self) -> Iterator[Server]:
        return iter(list(self._servers.values()))

    def __len__(self) -> int:
        return len(self._servers)

    @property
    def servers(self) -> dict[str, Server]:
        return dict(self._servers)

    def resolve_tool(self, qualified_name: str) -> tuple[Server, str]:
        """The server and tool behind a qualified name (``mcp__server__tool``)."""
        try:
            server, tool = self._tool_names.resolve(qualified_name)
        except KeyError:
            raise UnknownTool(f"no known tool is named {qualified_name!r}; list_tools() names them") from None
        return self[server], tool

    # -- adding and removing -----------------------------------------------------------

    async def aadd(
        self,
        name: str,
        command: str | None = None,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        url: str | None = None,
        transport: str | None = None,
        headers: Mapping[str, str] | None = None,
        oauth: Mapping[str, Any] | None = None,
        startup_timeout: float | None = None,
        request_timeout: float | None = None,
        connect: bool = True,
    ) -> Server:
        """Register a server (replacing one of the same name) and connect to it.

        A stdio server takes ``command`` and ``args``; a remote one takes ``url`` (and
        ``oauth``: ``client_id``, ``client_secret``, ``client_metadata_url``, ``scopes``,
        ``redirect_port``, when its login needs them). If the connection fails the server
        stays registered with status ``failed`` (or ``needs_auth``) and the error is
        raised; ``restart`` tries again. ``python`` as the command means this Python
        (``sys.executable``). ``startup_timeout`` and ``request_timeout`` (seconds) override
        the Settings for this server.
        """
        check_server_name(name)
        config = ServerConfig(
            name=name,
            transport=transport or ("stdio" if command else "auto"),
            command=command,
            args=[str(a) for a in args],
            env=dict(env or {}),
            cwd=os.fspath(cwd) if cwd is not None else None,
            url=url,
            headers=dict(headers or {}),
            oauth=dict(oauth or {}),
            startup_timeout=startup_timeout,
            request_timeout=request_timeout,
        )
        return await self.aadd_config(config, connect=connect)

    async def aadd_config(
        self, config: ServerConfig, *, startup_timeout: float | None = None, connect: bool = True
    ) -> Server:
        """Register a server from its config (replacing one of the same name) and connect,
        unless the config is ``disabled`` (``restart`` connects it then)."""
        old = self._servers.get(config.name)
        if old is not None:
            await old.aclose()
            self._tool_names.forget_server(config.name)
        server = Server(self, config, startup_timeout=startup_timeout)
        self._servers[config.name] = server
        if connect and not config.disabled:
            await server.aconnect()
        return server

    async def aload(self, path: str | os.PathLike[str] | None = None, *, connect: bool = True) -> list[Server]:
        """Add every server of a ``.mcp.json`` or VS Code ``mcp.json`` file, or with no path
        the saved servers of every scope (user, project ``./.mcp.json``, local; see
        mcp_notebook.core.scopes), connecting them concurrently. A server that fails to
        connect is kept with status ``failed``; a ``disabled`` one is registered, not connected."""
        return await self.aadd_configs(load_servers(path).values(), connect=connect)

    async def aadd_configs(self, configs: Iterable[ServerConfig], *, connect: bool = True) -> list[Server]:
        """Register these servers, then connect them concurrently (not the disabled ones)."""
        servers = [await self.aadd_config(c, connect=False) for c in configs]
        if connect:
            await asyncio.gather(*(s.aconnect() for s in servers if not s.config.disabled), return_exceptions=True)
        return servers

    async def aremove(self, name: str) -> None:
        server = self[name]
        del self._servers[name]
        self._tool_names.forget_server(name)
        await server.aclose()

    async def arestart(self, name: str) -> Server:
        return await self[name].arestart()

    async def aclose(self) -> None:
        """Close every connection (servers stay registered; ``restart`` reconnects)."""
        await asyncio.gather(*(s.aclose() for s in self._servers.values()), return_exceptions=True)

    async def acall_tool(
        self, qualified_name: str, arguments: JSON | None = None, *, timeout: float | None = _DEFAULT, **kwargs: Any
    ) -> CallResult:
        """Call a tool by its qualified name (``mcp__server__tool``)."""
        server, tool = self.resolve_tool(qualified_name)
        return await server.acall_tool(tool, arguments, timeout=timeout, **kwargs)

    # -- blocking twins ----------------------------------------------------------------

    def add(
        self,
        name: str,
        command: str | None = None,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        url: str | None = None,
        transport: str | None = None,
        headers: Mapping[str, str] | None = None,
        oauth: Mapping[str, Any] | None = None,
        startup_timeout: float | None = None,
        request_timeout: float | None = None,
        connect: bool = True,
    ) -> Server:
        return self._run(
            self.aadd(
                name,
                command,
                args,
                env=env,
                cwd=cwd,
                url=url,
                transport=transport,
                headers=headers,
                oauth=oauth,
                startup_timeout=startup_timeout,
                request_timeout=request_timeout,
                connect=connect,
            )
        )

    def add_config(self, config: ServerConfig, *, startup_timeout: float | None = None, connect: bool = True) -> Server:
        return self._run(self.aadd_config(config, startup_timeout=startup_timeout, connect=connect))

    def load(self, path: str | os.PathLike[str] | None = None, *, connect: bool = True) -> list[Server]:
        # Read here, not on the loop: a file's warnings reach this thread's warning filters.
        return self.add_configs(load_servers(path).values(), connect=connect)

    def add_configs(self, configs: Iterable[ServerConfig], *, connect: bool = True) -> list[Server]:
        return self._run(self.aadd_configs(list(configs), connect=connect))

    def remove(self, name: str) -> None:
        self._run(self.aremove(name))

    def restart(self, name: str) -> Server:
        return self._run(self.arestart(name))

    def close(self) -> None:
        self._run(self.aclose())

    def call_tool(
        self, qualified_name: str, arguments: JSON | None = None, *, timeout: float | None = _DEFAULT, **kwargs: Any
    ) -> CallResult:
        server, tool = self.resolve_tool(qualified_name)
        return server.call_tool(tool, arguments, timeout=timeout, **kwargs)

    def status(self) -> list[JSON]:
        """One row per server: name, transport, status, source, server, version, protocol,
        error. ``source``: kernel (added here), user, project, local, or a config file's path."""
        return [
            {
                "name": s.name,
                "transport": s.transport_name,
                "status": s.status.value,
                "source": s.config.source,
                "server": s.server_info.get("name"),
                "version": s.server_info.get("version"),
                "protocol": s.protocol_version,
                "error": s.error,
            }
            for s in self._servers.values()
        ]


def root_entry(value: str | os.PathLike[str] | JSON) -> JSON:
    """A roots/list entry from a folder path, a ``file://`` URI or an entry."""
    if isinstance(value, dict):
        return dict(value)
    text = os.fspath(value)
    if "://" in text:
        return {"uri": text, "name": text.rstrip("/").rsplit("/", 1)[-1] or text}
    path = Path(text).expanduser().resolve()
    return {"uri": path.as_uri(), "name": path.name or str(path)}


_default_client: Client | None = None
_lock = threading.Lock()


def get_client() -> Client:
    """The kernel-wide Client that the magics use too."""
    global _default_client
    if _default_client is None:
        with _lock:
            if _default_client is None:
                _default_client = Client()
    return _default_client


__all__ = ["Client", "get_client"]
