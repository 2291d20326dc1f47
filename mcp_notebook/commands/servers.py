"""Subcommands about the servers themselves: add, load, list, status, logs, loglevel,
restart, login, logout, remove."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..core.config.scopes import SCOPES, check_scope, load_servers, looked_in, read_scopes, remove_saved, save_server
from ..core.config.servers import ServerConfig
from ..core.protocol.constants import PROTOCOL_CHOICES
from ..core.types import Status
from ..errors import ArgumentError, ConfigError, ConfigWarning
from ..runtime import Server
from . import serverdisplay
from .base import Context, Deferred, all_servers, command, counts, positional, report, report_saved, server_named
from .clients import load_from
from .options import save_option
from .parsing import Parser
from .serverconfig import server_config
from .steps import Taker
from .trusting import offer_trust, untrusted_rows

__all__ = [
    "add",
    "list_",
    "load",
    "loglevel",
    "login",
    "logout",
    "logs",
    "remove",
    "restart",
    "status",
    "use",
]


@command(
    "add NAME -- COMMAND [ARGS…] | add NAME URL",
    "add a server and connect to it",
    """
Options (before the -- for a stdio server):
  --env K=V           an environment variable for the server (repeatable)
  --cwd DIR           its working directory
  --timeout S         seconds to wait for it to start (default: %config MCPMagics.startup_timeout)
  --protocol P        the protocol era: auto (default: ask with server/discover, prefer
                      2026-07-28, else the initialize handshake), legacy (initialize only), or
                      one version: 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05
  --tools A,B         use only these tools (names or globs: 'get-*'); the others are left out
  --exclude-tools C   never use these (names or globs); %mcp tools NAME --all shows what is left out
  --allow-tools D     these run without asking, though destructive (names or globs; "alwaysAllow")
  --max-concurrency N at most N tool calls in flight at once (gathered calls, maps); more wait
  --save [SCOPE]      also save it, to load in later kernels with %mcp load: project (default:
                      ./.mcp.json, shared with the project), user (yours, every project) or
                      local (yours, this project only). Secrets are saved as ${VAR} references.
                      (A remote server: after the URL, or --save=SCOPE.)
python or python3 as the COMMAND is this kernel's Python (sys.executable), as for %pip.
Remote servers (after the URL):
  --transport http|sse   the transport (default: try Streamable HTTP, then SSE)
  --header K=V           an HTTP header (repeatable); never shown
  --bearer-env VAR       send 'Authorization: Bearer $VAR'; the token is never shown
OAuth (a server that answers 401 gets a login card in the cell):
  --client-id ID         a client registered with its authorization server beforehand
  --client-secret-env VAR   that client's secret, from an environment variable
  --client-metadata-url URL an https Client ID Metadata Document to use as the client id
  --scopes "A B"         ask for these scopes instead of what the server suggests
  --redirect-port N      a fixed loopback port for the login's redirect (default: any)
Logins without a person (a scheduled notebook, CI): the client authenticates as itself
  --grant client_credentials   with --client-id and --client-secret-env VAR, or a key:
  --private-key-file PATH      its PEM private key (private_key_jwt; implies the grant)
  --private-key-env VAR        the same, from an environment variable (never shown)
  --signing-alg ALG            sign with ALG (default: the key's own: ES256, RS256, …)
  --assertion-file PATH        workload identity: the platform's JWT (re-read each time; or
                               --assertion-env VAR), sent as the grant (jwt_bearer)
  --id-token-file PATH         enterprise: the identity provider's ID token (or --id-token-env
                               VAR), exchanged at --idp-token-endpoint URL for an ID-JAG (id_jag;
                               --idp-client-id ID, --idp-client-secret-env VAR if it wants them)
Adding a name that exists replaces that server. Examples:
  %mcp add everything -- npx -y @modelcontextprotocol/server-everything
  %mcp add demo --env LOG=debug -- python -m mcp_notebook.demo
  %mcp add files -- npx -y @modelcontextprotocol/server-filesystem {data_dir}   ($name, {expr} too)
  %mcp add remote https://example.com/mcp --bearer-env EXAMPLE_TOKEN
  %mcp add remote $url
  %mcp add demo --save -- python -m mcp_notebook.demo
  %mcp add remote https://example.com/mcp --bearer-env EXAMPLE_TOKEN --save user
  %mcp add api https://example.com/mcp --grant client_credentials --client-id ci --client-secret-env API_SECRET
  %mcp add time --protocol legacy -- mcp-server-time
  %mcp add everything --tools 'get-*,echo' --exclude-tools get-env -- npx -y @modelcontextprotocol/server-everything
""",
)
def add(ctx: Context, tokens: list[str]) -> Deferred:
    config, save, refs = server_config(ctx, tokens)  # its options, as this help names them
    return _connect(ctx, config, save, refs)


def _connect(ctx: Context, config: ServerConfig, save: str | None, refs: dict[str, str]) -> Deferred:
    """Connecting may ask a person (an OAuth login): deferred like a call. Saving comes
    after the attempt, whatever its outcome: by then "auto" is known to be http or sse."""
    server = ctx.client.add_config(config, connect=False)
    after = (lambda: _save(ctx, server, save, refs)) if save else None
    return _reporting(ctx, server, Deferred(server.connect, server.aconnect), after)


def _save(ctx: Context, server: Server, scope: str, refs: dict[str, str] | None) -> None:
    config = server.config
    if config.transport == "auto" and server.transport_name in ("http", "sse"):
        config = dataclasses.replace(config, transport=server.transport_name)
    try:
        saved = save_server(config, scope, refs=refs)
    except ConfigError as e:
        raise ArgumentError(str(e)) from None
    report_saved(ctx, saved)


def _reporting(ctx: Context, server: Server, call: Deferred, after: Callable[[], None] | None = None) -> Deferred:
    """``call``, then the server's summary line (if it connected) and ``after``, whatever the outcome."""

    async def logic(taker: Taker) -> None:
        try:
            await taker.take(call)
        finally:
            if server.status is Status.CONNECTED:
                report(ctx, server)
            if after is not None:
                after()

    return Deferred.of(logic)


@contextmanager
def _config_warnings(ctx: Context) -> Iterator[None]:
    """A config file's ConfigWarnings as one line each in the cell; other warnings pass on."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConfigWarning)
        try:
            yield
        finally:
            others = []
            for w in caught:
                if issubclass(w.category, ConfigWarning):
                    ctx.out(f"⚠ {w.message}")
                else:
                    others.append(w)
    for w in others:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


@command(
    "load [--trust] | load PATH | load --from [CLIENT] [--dry-run] [--save [SCOPE]] [--trust]",
    "add the saved servers, every server of a config file, or those another MCP client has",
    """
With no PATH: the servers saved in every scope (see %mcp add --save): user, then project
(./.mcp.json), then local; a name in several scopes takes local over project over user.
The project's servers (a cloned repository's) start once you trust the folder, in a card or
at a prompt; until then they are listed as untrusted, not started, no ${VAR} expanded.
--trust trusts the folder as it is now: ./.mcp.json and the other clients' project files in it
(.cursor/mcp.json, .vscode/mcp.json …); a changed file asks again (docs/security.md).
Servers connect concurrently; each gets one line, ✓ or ✗; one with "disabled": true is
registered but not connected (%mcp restart NAME connects it). A key that is not supported is
ignored with a ⚠ line naming it. %mcp list shows where each server came from.
--from CLIENT: the servers configured in claude-desktop, claude-code, cursor, vscode,
windsurf, gemini or codex, from the files that client documents (its user file for this
OS, the project's in this folder; local over project over user). --dry-run: a table of what
was found (name, transport, command or URL, file), nothing started; --save [SCOPE]: copy
them into one of our scopes (project by default), secrets as ${VAR} references. A project
file of that client (.cursor/mcp.json …) is used once trusted, as ./.mcp.json is; --trust
trusts it as it is now. --from alone: a table of those clients' files, which exist, how many
servers each holds, whether trusted.
  %mcp load
  %mcp load .vscode/mcp.json
  %mcp load --from cursor --dry-run
  %mcp load --from codex --save user
""",
)
def load(ctx: Context, tokens: list[str]) -> Any:
    parser = Parser("load")
    parser.add_argument("path", nargs="?")
    parser.add_argument("--from", dest="client", nargs="?", const="", metavar="CLIENT")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--trust", action="store_true")
    save_option(parser)
    opts = parser.parse(tokens)
    if opts.trust and opts.path:
        raise ArgumentError("%mcp load: --trust goes with --from CLIENT or no PATH (a file you name is used as is)")
    if opts.client is not None:
        if opts.path:
            raise ArgumentError("%mcp load: give a PATH or --from CLIENT, not both")
        with _config_warnings(ctx):
            return load_from(ctx, opts.client, opts.dry_run, opts.save, trust=opts.trust)
    if opts.dry_run or opts.save:
        raise ArgumentError("%mcp load: --dry-run and --save go with --from CLIENT")
    with _config_warnings(ctx):  # a ConfigError becomes a one-line ArgumentError
        found = None if opts.path else read_scopes(trusting=opts.trust)
        configs = load_servers(opts.path) if found is None else found.servers
    if not configs and (found is None or found.question is None):
        ctx.out(f"{opts.path}: no servers" if opts.path else f"no saved servers; looked in {looked_in()}")
        return
    for server in ctx.client.add_configs(configs.values()):
        report(ctx, server)
    offer_trust(ctx, found)
    return None


@command(
    "list",
    "a table of the servers: status, source, versions, counts, errors",
    """
source: kernel (added here, not saved), user, project, local (the scope it was saved in or
loaded from), or the path of the config file it was loaded from. protocol: the version a
connected server speaks (2026-07-28 is the modern era), else its --protocol setting.
  servers = %mcp list
""",
)
def list_(ctx: Context, tokens: list[str]) -> Any:
    Parser("list").parse(tokens)
    all_servers(ctx)
    rows = []
    for server, row in zip(ctx.client, ctx.client.status(), strict=True):
        # Not connected: what it is set to speak (auto, legacy or a pinned version).
        protocol = row["protocol"] or server.config.protocol
        rows.append({**row, "protocol": protocol, **counts(server, fetch=False)})
    rows += untrusted_rows(ctx)
    from .tables import servers_frame

    return servers_frame(rows)


@command(
    "status SERVER",
    "a server's capabilities, instructions, protocol and pid",
    """
protocol: the version and its era, 2026-07-28 (modern, stateless) or an older one (legacy
session); chosen: how auto settled on it (what server/discover answered), or the pin.
  %mcp status everything
""",
)
def status(ctx: Context, tokens: list[str]) -> Any:
    return serverdisplay.ServerStatus(server_named(ctx, positional("status", tokens, "server").server))


@command(
    "use SERVER",
    "the server's Python handle, its tools as functions",
    """
Returns the Server (the same object as mcp_notebook.get_client()[SERVER]), so a notebook
needs no import: server.tools.NAME(...) calls tool NAME with the tool's own signature
(help() and ? show its parameters; Tab completes the names); await server.tools.NAME.acall(...)
awaits it (on ipykernel >= 7.4 a tool that asks for approval shows its card only when awaited).
  demo = %mcp use demo
  demo.tools.query_penguins(species="Gentoo", limit=5)
""",
)
def use(ctx: Context, tokens: list[str]) -> Server:
    return server_named(ctx, positional("use", tokens, "server").server)


@command(
    "logs SERVER [--lines N]",
    "a server's stderr and its log messages",
    "Log messages arrive at the level set with %mcp loglevel (the server's default otherwise;\n"
    "a 2026-07-28 server is asked for info and above on every request until you set a level).\n"
    "  %mcp logs everything",
)
def logs(ctx: Context, tokens: list[str]) -> Any:
    parser = Parser("logs")
    parser.add_argument("server")
    parser.add_argument("--lines", type=int, default=200)
    opts = parser.parse(tokens)
    return serverdisplay.ServerLogs(server_named(ctx, opts.server), opts.lines)


@command(
    "loglevel SERVER LEVEL",
    "ask a server to send log messages from LEVEL up",
    "A 2026-07-28 server is told on every request (info and above until you set a level).\n"
    "  %mcp loglevel everything debug",
)
def loglevel(ctx: Context, tokens: list[str]) -> None:
    opts = positional("loglevel", tokens, "server", "level")
    server_named(ctx, opts.server).set_log_level(opts.level)
    ctx.out(f"{opts.server}: log level {opts.level}")


@command(
    "restart SERVER [--protocol P]",
    "reconnect (a stdio server is started again)",
    """
--protocol P connects it in that era from now on (this kernel; %mcp add … --save keeps it):
legacy (initialize only), auto, or one version. A tool that asks mid-call in the 2025-11-25
way (ctx.elicit in an older server) needs legacy: its error says so.
  %mcp restart everything
  %mcp restart booking --protocol legacy
""",
)
def restart(ctx: Context, tokens: list[str]) -> Deferred:
    parser = Parser("restart")
    parser.add_argument("server")
    parser.add_argument("--protocol", choices=PROTOCOL_CHOICES, metavar="P")
    opts = parser.parse(tokens)
    server = server_named(ctx, opts.server)
    protocol = opts.protocol
    return _reporting(ctx, server, Deferred(lambda: server.restart(protocol), lambda: server.arestart(protocol)))


@command(
    'login SERVER [--scopes "A B"]',
    "log in to a remote server (OAuth) now, before it asks",
    """
The login card shows in this cell: 'Log in' opens the authorization page in a new tab; the
browser comes back to a listener on this machine. On a remote kernel (Binder, JupyterHub,
Colab) paste the address the tab landed on into the card. Tokens are kept (the OS keyring,
else a private file) and refreshed on their own.
  %mcp login github
  %mcp login github --scopes "repo read:org"
""",
)
def login(ctx: Context, tokens: list[str]) -> Deferred:
    parser = Parser("login")
    parser.add_argument("server")
    parser.add_argument("--scopes")
    opts = parser.parse(tokens)
    server = server_named(ctx, opts.server)
    call = Deferred(lambda: server.login(opts.scopes), lambda: server.alogin(opts.scopes))
    return _reporting(ctx, server, call)


@command("logout SERVER", "forget a remote server's tokens and client registration", "  %mcp logout github")
def logout(ctx: Context, tokens: list[str]) -> None:
    name = positional("logout", tokens, "server").server
    server_named(ctx, name).logout()
    ctx.out(f"{name}: logged out (tokens and client registration removed)")


@command(
    "remove SERVER [--save [SCOPE]]",
    "disconnect and forget a server; --save also deletes it from where it was saved",
    """
--save alone deletes it from the file it came from (its source in %mcp list); --save SCOPE
(user, project or local) from that scope's file, also for a server not in this kernel.
  %mcp remove everything
  %mcp remove demo --save
  %mcp remove demo --save user
""",
)
def remove(ctx: Context, tokens: list[str]) -> None:
    parser = Parser("remove")
    parser.add_argument("server")
    parser.add_argument("--save", nargs="?", const="", metavar="SCOPE")
    opts = parser.parse(tokens)
    name = opts.server
    if ctx.source is not None and opts.save is None:
        raise ArgumentError(f"remove {name}: on the command line it deletes a saved server: add --save [SCOPE]")
    if ctx.source is not None and not opts.save:
        server_named(ctx, name)  # where it was saved: the command line has not added it yet
    server = ctx.client.servers.get(name)
    if opts.save is None:
        server_named(ctx, name)
        ctx.client.remove(name)
        ctx.out(f"removed {name}")
        return
    if opts.save:
        check_scope(opts.save)  # a ConfigError becomes a one-line ArgumentError
    elif server is None:
        server_named(ctx, name)  # says it is unknown
    where = opts.save or (server.config.source if server else "kernel")
    if where == "kernel":
        raise ArgumentError(
            f"{name} was added in this kernel, not saved; to delete a saved one name its scope: "
            f"%mcp remove {name} --save project|user|local"
        )
    path = remove_saved(name, where)  # first: if the file cannot be changed, nothing is lost
    if server is not None:
        ctx.client.remove(name)
    scope = f" ({where} scope)" if where in SCOPES else ""
    ctx.out(f"removed {name}" + (" from this kernel and" if server is not None else "") + f" from {path}{scope}")
