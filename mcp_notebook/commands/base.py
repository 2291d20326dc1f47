"""The subcommands' registry (``@command``) and what they share: the context a subcommand
runs in, a deferred call, finding servers by name (and, on the command line, starting them
on first mention: ``Source``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Sized
from dataclasses import dataclass
from typing import Any, Protocol

from ..core.config.scopes import Saved
from ..core.config.servers import ServerConfig
from ..core.types import Status
from ..errors import ArgumentError
from ..runtime import Client, Server
from ..runtime.steps import drive
from . import serverdisplay
from .parsing import Parser
from .steps import AWAITING, BLOCKING, Taker

__all__ = [
    "COMMANDS",
    "Command",
    "Context",
    "Deferred",
    "Source",
    "all_servers",
    "command",
    "connected_servers",
    "counts",
    "positional",
    "report",
    "report_saved",
    "server_named",
]


class Source(Protocol):
    """Where servers not yet added come from. A notebook has none: a server is added with
    %mcp add or %mcp load first. The command line starts each saved server (or the one given
    on its line) when a subcommand first names it."""

    def provide(self, client: Client, name: str | None) -> None:
        """Add the server ``name`` to ``client`` if this source knows it (None: every server
        it knows); a name it does not know is left for the caller to report."""
        ...

    def untrusted(self) -> dict[str, ServerConfig]:
        """The servers it knows and may not start: a folder's project servers the person
        has not trusted (listed, never started)."""
        ...


@dataclass
class Context:
    """What a subcommand runs with: the client; the namespace ``$name`` and ``{expr}`` read
    and ``-o VAR`` writes; where its notes go; where servers not yet added come from;
    ``literal``: words are taken as typed, no ``$name`` or ``{expr}`` (the command line, where
    the shell has expanded them already and a ``{…}`` is data, never code to run); and
    ``server_text``: how what a server sent (its error, its name) shows inside a line of ours
    (a notebook breaks the addresses the link policy refuses, since JupyterLab makes links
    of them in text; what the person typed stays as typed)."""

    client: Client
    namespace: dict[str, Any]
    out: Callable[[str], None] = print
    source: Source | None = None
    literal: bool = False
    server_text: Callable[[str], str] = serverdisplay.as_said

    @property
    def names(self) -> dict[str, Any] | None:
        """What ``$name`` and ``{expr}`` read; None: they are text like any other."""
        return None if self.literal else self.namespace


@dataclass
class Deferred:
    """A call that may ask a person: run blocking, or awaited (an awaiting cell gets
    widget clicks on ipykernel 7; see notebook/transform.py). A step (steps.py)."""

    run: Callable[[], Any]
    arun: Callable[[], Awaitable[Any]]

    @classmethod
    def of(cls, logic: Callable[[Taker], Coroutine[Any, Any, Any]]) -> Deferred:
        """Logic written once around other deferred calls (it takes them), run either way."""
        return cls(lambda: drive(logic(BLOCKING)), lambda: logic(AWAITING))


@dataclass
class Command:
    run: Callable[[Context, list[str]], Any]
    usage: str
    summary: str
    details: str


COMMANDS: dict[str, Command] = {}


def command(usage: str, summary: str, details: str = "") -> Callable[[Callable[[Context, list[str]], Any]], Any]:
    def register(fn: Callable[[Context, list[str]], Any]) -> Callable[[Context, list[str]], Any]:
        COMMANDS[usage.split()[0]] = Command(fn, usage, summary, details.strip("\n"))
        return fn

    return register


def server_named(ctx: Context, name: str) -> Server:
    if name not in ctx.client and ctx.source is not None:
        ctx.source.provide(ctx.client, name)
    if name not in ctx.client:
        known = ", ".join(sorted(s.name for s in ctx.client)) or "none yet"
        if ctx.source is not None:
            raise ArgumentError(
                f"no saved server named {name!r}; give its command after -- (or --url URL), or save it first: "
                f"mcp-notebook add {name} --save -- COMMAND"
            )
        raise ArgumentError(f"no server named {name!r} (known: {known}); add one with %mcp add {name} -- COMMAND")
    return ctx.client[name]


def connected_servers(ctx: Context, name: str | None) -> list[Server]:
    if name:
        server = server_named(ctx, name)
        if server.status is not Status.CONNECTED:
            why = f": {server.error}" if server.error else f" ({server.status.value})"
            raise ArgumentError(f"server {name!r} is not connected{why}; %mcp restart {name}")
        return [server]
    servers = [s for s in all_servers(ctx) if s.status is Status.CONNECTED]
    if not servers and not len(ctx.client):
        raise ArgumentError("no servers yet: add one with %mcp add NAME -- COMMAND [ARGS…] or %mcp load")
    return servers


def all_servers(ctx: Context) -> list[Server]:
    """Every server: those added, and on the command line those its source knows."""
    if ctx.source is not None:
        ctx.source.provide(ctx.client, None)
    return list(ctx.client)


def positional(sub: str, tokens: list[str], *names: str) -> Any:
    """Parse a subcommand that takes only these positional arguments."""
    parser = Parser(sub)
    for name in names:
        parser.add_argument(name)
    return parser.parse(tokens)


def counts(server: Server, *, fetch: bool = True) -> dict[str, int | None]:
    """How many tools, resources and prompts a connected server offers (None: not offered).
    ``fetch=False``: from the listings already fetched (None where there is none): an
    overview must not ask the server, which may mean a login or a slow answer."""
    if server.status is not Status.CONNECTED:
        return {"tools": None, "resources": None, "prompts": None}
    caps = server.capabilities
    listings: dict[str, Callable[[], Sized]] = {
        "tools": server.list_tools,
        "resources": server.list_resources,
        "prompts": server.list_prompts,
    }
    out: dict[str, int | None] = {}
    for kind, listing in listings.items():
        if kind not in caps:
            out[kind] = None
        elif fetch:
            out[kind] = len(listing())
        else:
            cached = server.connection.cached(kind)
            out[kind] = None if cached is None else len(cached)
    return out


def report(ctx: Context, server: Server) -> None:
    ctx.out(serverdisplay.summary_line(server, counts(server), ctx.server_text))


def report_saved(ctx: Context, saved: Saved) -> None:
    """The lines after a server is saved: where, and which variables its
    secrets now refer to."""
    ctx.out(f"saved {saved.name} to {saved.path} ({saved.scope} scope)")
    if saved.written is not None:
        ctx.out(f"note: {saved.path} is a symbolic link: written through to {saved.written}, the link kept")
    if not saved.trusted:
        ctx.out(f"note: {saved.path} is in a folder you have not trusted; %mcp load asks before it starts its servers")
    for name, where in saved.variables:  # one line per secret (entries.Variable: where it was)
        said = f"{where} of {saved.name} is saved as ${{{name}}}, not its secret value"
        ctx.out(f"note: set {name} before %mcp load: {said}")
