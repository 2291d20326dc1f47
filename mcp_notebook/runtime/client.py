"""The kernel-wide registry of named servers."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast, overload

from ..core.approval import ApprovalPolicy
from ..core.auth.tokens import TokenStore
from ..core.config.clients import read_client, startable
from ..core.config.scopes import load_scopes, trust_project
from ..core.config.servers import ServerConfig, check_server_name, load_config
from ..core.history.calls import Call
from ..core.listings.compare import Change, compare
from ..core.listings.snapshot import read_snapshot, snapshot_of, write_snapshot
from ..core.session.session import Handlers
from ..core.types import CallResult, Status
from ..errors import UnknownServer, UnknownTool
from .asking.interaction import Interaction
from .calls import CallEvent
from .context import DEFAULT, Runtime, Settings
from .handle import Server
from .loop import LoopThread
from .steps import Steps, awaitable, blocking

if TYPE_CHECKING:
    import pandas as pd

JSON = dict[str, Any]
V = TypeVar("V")


class Shared(Generic[V]):
    """A client attribute that is its runtime's, shared with every server (settable)."""

    def __init__(self, doc: str) -> None:
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, client: None, owner: type) -> Shared[V]: ...
    @overload
    def __get__(self, client: Client, owner: type | None = None) -> V: ...
    def __get__(self, client: Client | None, owner: type | None = None) -> V | Shared[V]:
        return self if client is None else cast(V, getattr(client.runtime, self.name))

    def __set__(self, client: Client, value: V) -> None:
        setattr(client.runtime, self.name, value)


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
        # What this client's servers share with it (each Server holds the same one).
        self.runtime = Runtime(
            handlers=handlers, settings=settings, approval=approval, interaction=interaction, loop=loop
        )
        self._roots: list[JSON] = []
        self._servers: dict[str, Server] = {}
        self.runtime.loop.call_at_exit(self._close_all)

    def __repr__(self) -> str:
        connected = sum(s.status is Status.CONNECTED for s in self._servers.values())
        return f"<Client servers={len(self._servers)} connected={connected}>"

    # -- the shared runtime, as attributes of the client ---------------------------------

    handlers = Shared[Handlers]("Answers to the servers' questions (elicitation, sampling, roots).")
    settings = Shared[Settings]("Defaults for this client's servers (timeouts, limits, validation).")
    approval = Shared[ApprovalPolicy]("Which tool calls ask a person first.")
    interaction = Shared[Interaction]("How a person is asked (a terminal by default; cards in a notebook).")
    notification_listeners = Shared[list[Callable[[str, str, JSON], Any]]](
        "Called as fn(server_name, method, params) for every server's notifications."
    )
    tagged_listeners = Shared[list[Callable[[str, str, JSON, "str | None"], Any]]](
        "Called as fn(server_name, method, params, tag): tag is what the request a notification "
        "came with was tagged (mcp_notebook.core.session.pending.REQUEST_TAG: a map's row), else None."
    )
    token_store = Shared[TokenStore]("Where OAuth tokens live (see mcp_notebook.core.auth.tokens).")

    def on_call(self, hook: Callable[[CallEvent], Any]) -> Callable[[], None]:
        """Call ``hook(event)`` after every tool call of every server, however it ended (a
        map: once per row): a ``CallEvent`` with the server, the tool, the arguments (secret-
        looking values hidden), ``duration_s``, ``outcome`` (``ok``, ``tool error``,
        ``failed``, ``cancelled``) and ``error``. For a log, MLflow or W&B. It runs where
        the call ended (the calling thread, or the background loop for awaited calls and
        maps): keep it quick. A hook that raises is logged, and the call is unaffected.
        Returns a function that removes it."""
        hooks = self.runtime.call_hooks
        hooks.append(hook)
        return lambda: hooks.remove(hook) if hook in hooks else None

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
        handlers = self.runtime.handlers
        if handlers.roots is None:
            handlers.roots = lambda params: {"roots": self.roots}
        for server in self:
            if server.status is Status.CONNECTED and "roots" in server.client_capabilities:
                self.runtime.loop.run(server.connection.notify("notifications/roots/list_changed"))

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
            server, tool = self.runtime.tool_names.resolve(qualified_name)
        except KeyError:
            raise UnknownTool(f"no known tool is named {qualified_name!r}; list_tools() names them") from None
        return self[server], tool

    def status(self) -> list[JSON]:
        """One row per server: name, transport, status, source, server, version, protocol,
        login, error. ``source``: kernel (added here), user, project, local, or a config file's
        path; ``login``: how it is authorized (ServerConfig.login), None for stdio."""
        return [
            {
                "name": s.name,
                "transport": s.transport_name,
                "status": s.status.value,
                "source": s.config.source,
                "server": s.server_info.get("name"),
                "version": s.server_info.get("version"),
                "protocol": s.protocol_version,
                "login": s.config.login(),
                "error": s.error,
            }
            for s in self._servers.values()
        ]

    # -- adding and removing -----------------------------------------------------------
    # Each operation is written once, taking steps (see steps.py): ``x`` blocks, ``ax`` is awaitable.

    async def _add(
        self,
        steps: Steps,
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
        protocol: str = "auto",
        enabled_tools: Sequence[str] | None = None,
        disabled_tools: Sequence[str] = (),
        max_concurrency: int | None = None,
        connect: bool = True,
    ) -> Server:
        """Register a server (replacing one of the same name) and connect to it.

        A stdio server takes ``command`` and ``args``; a remote one takes ``url`` (and
        ``oauth``: ``client_id``, ``client_secret``, ``client_metadata_url``, ``scopes``,
        ``redirect_port``, when its login needs them; ``grant="client_credentials"`` with a
        ``client_secret``, ``private_key`` or ``private_key_file`` for a login with no
        person). If the connection fails the server stays registered with status
        ``failed`` (or ``needs_auth``) and the error is raised; ``restart`` tries again.
        ``python`` as the command means this Python (``sys.executable``).
        ``startup_timeout`` and ``request_timeout`` (seconds) override the Settings for this
        server. ``protocol``: ``auto`` (ask the server, prefer 2026-07-28), ``legacy`` (the
        initialize handshake) or one dated version.
        ``enabled_tools`` (only these are used; None: all) and ``disabled_tools`` (never
        these): tool names or globs (``"get-*"``); a tool left out is not listed, not in
        ``server.tools``, ``tool_schemas()`` or a map, and calling it raises ToolExcluded.
        ``max_concurrency``: at most this many tool calls in flight at once (gathered
        calls, a map's rows); more wait their turn, within their timeout.
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
            protocol=protocol,
            enabled_tools=None if enabled_tools is None else list(enabled_tools),
            disabled_tools=list(disabled_tools),
            max_concurrency=max_concurrency,
        )
        return await self._add_config(steps, config, connect=connect)

    async def _add_config(
        self, steps: Steps, config: ServerConfig, *, startup_timeout: float | None = None, connect: bool = True
    ) -> Server:
        """Register a server from its config (replacing one of the same name) and connect,
        unless the config is ``disabled`` (``restart`` connects it then)."""
        old = self._servers.get(config.name)
        if old is not None:
            await steps.run(old.connection.close(), old.name)
            self.runtime.tool_names.forget_server(config.name)
        server = Server(self.runtime, config, startup_timeout=startup_timeout)
        self._servers[config.name] = server
        if connect and not config.disabled:
            await steps.run(server.connection.connect(), server.name)
        return server

    async def _load(
        self, steps: Steps, path: str | os.PathLike[str] | None = None, *, connect: bool = True, trust: bool = False
    ) -> list[Server]:
        """Add every server of a ``.mcp.json`` or VS Code ``mcp.json`` file, or with no path
        the saved servers of every scope (user, project ``./.mcp.json``, local; see
        mcp_notebook.core.config.scopes), connecting them concurrently. A server that fails to
        connect is kept with status ``failed``; a ``disabled`` one is registered, not connected.
        The project's servers are used only in a folder the person trusts (a ConfigWarning
        names those left out); ``trust=True`` trusts this folder's ``.mcp.json`` as it is
        now, as ``trust_folder()`` does."""
        # Read here, not on the loop: a file's warnings reach this thread's warning filters.
        configs = load_config(path) if path is not None else load_scopes(trusting=trust)
        return await self._add_configs(steps, configs.values(), connect=connect)

    def trust_folder(self, folder: str | os.PathLike[str] | None = None) -> Path | None:
        """Trust the servers of a folder's ``.mcp.json`` (default: the current folder's) as
        the file is now, remembered for this user (see docs/security.md); ``load()`` then
        starts them. The file trusted; None if the folder has none."""
        return trust_project(folder)

    async def _add_configs(
        self, steps: Steps, configs: Iterable[ServerConfig], *, connect: bool = True
    ) -> list[Server]:
        """Register these servers, then connect them concurrently (not the disabled ones)."""
        servers = [await self._add_config(steps, c, connect=False) for c in list(configs)]
        if connect:
            connecting = [s.connection.connect() for s in servers if not s.config.disabled]
            await steps.run(_gather_quietly(connecting), None)
        return servers

    async def _remove(self, steps: Steps, name: str) -> None:
        """Close a server's connection and forget it."""
        server = self[name]
        del self._servers[name]
        self.runtime.tool_names.forget_server(name)
        await steps.run(server.connection.close(), name)

    async def _restart(self, steps: Steps, name: str) -> Server:
        """Close a server's connection and connect again."""
        server = self[name]
        await steps.run(server.connection.restart(), name)
        return server

    async def _close(self, steps: Steps) -> None:
        """Close every connection (servers stay registered; ``restart`` reconnects)."""
        await steps.run(self._close_all(), None)

    async def _close_all(self) -> None:
        await _gather_quietly([s.connection.close() for s in self._servers.values()])

    add, aadd = blocking(_add), awaitable(_add)
    add_config, aadd_config = blocking(_add_config), awaitable(_add_config)
    load, aload = blocking(_load), awaitable(_load)

    async def _load_from(
        self,
        steps: Steps,
        client: str,
        *,
        project: str | os.PathLike[str] | None = None,
        connect: bool = True,
        trust: bool = False,
    ) -> list[Server]:
        """Add the servers another MCP client has configured: ``claude-desktop``,
        ``claude-code``, ``cursor``, ``vscode``, ``windsurf``, ``gemini`` or ``codex``, from
        the files it documents (its user file for this OS; the project's, in ``project`` or
        the current folder), local over project over user; connected as ``load`` does. A
        project file's servers start only in a folder the person trusts (a ConfigWarning
        names those left out); ``trust=True`` trusts that file as it is now."""
        # Read here: its warnings reach this thread.
        configs = startable(read_client(client, project=project, trusting=trust))
        return await self._add_configs(steps, configs, connect=connect)

    load_from, aload_from = blocking(_load_from), awaitable(_load_from)
    add_configs, aadd_configs = blocking(_add_configs), awaitable(_add_configs)
    remove, aremove = blocking(_remove), awaitable(_remove)
    restart, arestart = blocking(_restart), awaitable(_restart)
    close, aclose = blocking(_close), awaitable(_close)

    # -- the history (core/history/calls.py) ---------------------------------------------------

    def history(self, server: str | None = None, last: int | None = None, errors: bool = False) -> pd.DataFrame:
        """The requests this client sent, oldest first, as a DataFrame: all servers or one,
        the ``last`` N, only those that failed (``errors``). Arguments redacted and elided."""
        from ..core.history.tables import calls_frame

        return calls_frame(self.calls(server, last, errors))

    def calls(self, server: str | None = None, last: int | None = None, errors: bool = False) -> list[Call]:
        """The history's records themselves (see ``history``)."""
        return self.runtime.history.records(server, last, errors)

    def clear_history(self) -> None:
        """Forget the recorded requests and transcripts (and the results they hold)."""
        self.runtime.history.clear()

    def transcript(self, server: str, last: int | None = None) -> pd.DataFrame:
        """``server``'s JSON-RPC messages both ways, in order, as a DataFrame (redacted, elided)."""
        from ..core.history.tables import transcript_frame

        return transcript_frame(self.runtime.history.transcript(self[server].name, last))

    def export_history(
        self,
        path: str | os.PathLike[str] | None = None,
        server: str | None = None,
        *,
        pytest: bool = False,
        exact: bool = False,
        volatile: Sequence[str] = (),
    ) -> str:
        """A Python script replaying the successful calls in order (written to ``path`` if
        given): servers added from their configs, secrets read from environment variables.
        ``pytest``: a pytest module instead, a test per call asserting it ends well and fits
        its tool's output schema; ``exact``: and that its result is the recorded one, the
        fields named in ``volatile`` (times, ids) left out."""
        from ..core.history.replay import pytest_module, script

        configs = {s.name: s.config for s in self._servers.values()}
        if pytest:
            text = pytest_module(self.calls(server), configs, exact=exact, volatile=volatile)
        else:
            text = script(self.calls(server), configs)
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    # -- listings kept and compared --------------------------------------------------------

    def snapshot(self, server: str, path: str | os.PathLike[str] | None = None) -> JSON:
        """``server``'s listings now (tools, resources, templates, prompts, each listed
        afresh and kept as sent, schemas included), as a snapshot to compare with later;
        also written to ``path`` as JSON when given."""
        handle = self[server]
        listings = self.runtime.run(_listings(handle), handle.name)
        data = snapshot_of(handle.name, handle.server_info, handle.protocol_version, listings)
        if path is not None:
            write_snapshot(path, data)
        return data

    def diff(self, old: str | os.PathLike[str] | JSON, new: str | os.PathLike[str] | JSON) -> list[Change]:
        """What changed from ``old`` to ``new``, each a server's name (its listings now), a
        snapshot's path, or a snapshot: entries added, removed, renamed and changed (a
        schema's change as the paths that changed), those that break a caller of ``old``
        marked ``breaking``."""
        return compare(self._listings_of(old), self._listings_of(new))

    def _listings_of(self, what: str | os.PathLike[str] | JSON) -> JSON:
        if isinstance(what, dict):
            return what
        if isinstance(what, str) and what in self:
            return self.snapshot(what)
        return read_snapshot(what)

    # -- calls by qualified name ---------------------------------------------------------

    def call_tool(
        self, qualified_name: str, arguments: JSON | None = None, *, timeout: float | None = DEFAULT, **kwargs: Any
    ) -> CallResult:
        """Call a tool by its qualified name (``mcp__server__tool``); see ``Server.call_tool``."""
        server, tool = self.resolve_tool(qualified_name)
        return server.call_tool(tool, arguments, timeout=timeout, **kwargs)

    async def acall_tool(
        self, qualified_name: str, arguments: JSON | None = None, *, timeout: float | None = DEFAULT, **kwargs: Any
    ) -> CallResult:
        """Call a tool by its qualified name (``mcp__server__tool``); see ``Server.acall_tool``."""
        server, tool = self.resolve_tool(qualified_name)
        return await server.acall_tool(tool, arguments, timeout=timeout, **kwargs)


async def _gather_quietly(coros: list[Any]) -> None:
    """Run these together; each one's failure is its own server's status, not raised here."""
    await asyncio.gather(*coros, return_exceptions=True)


async def _listings(server: Server) -> dict[str, list[JSON]]:
    """Every listing the server declares, fetched afresh (on the loop)."""
    out: dict[str, list[JSON]] = {}
    capabilities = server.capabilities
    for kind, capability in (("tools", "tools"), ("resources", "resources"),
                             ("resourceTemplates", "resources"), ("prompts", "prompts")):  # fmt: skip
        if capability in capabilities:
            out[kind] = await server.connection.listing(kind, True)
    return out


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
