"""The %mcp subcommands: one plain function each, ``fn(ctx, tokens) -> value``.

A value is what ``x = %mcp …`` assigns and what a cell shows; a function that only acts
prints one line and returns None.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from IPython.core.error import UsageError

from ..core.config import ServerConfig
from ..core.scopes import SCOPES, check_scope, load_servers, looked_in, remove_saved, save_server
from ..core.types import Status
from ..errors import ConfigError, ConfigWarning
from ..runtime import Server
from ..runtime.client import Client, root_entry
from . import display
from .parsing import Parser, body_arguments, expand_text, key_value_option, key_values, split, target

# .tables (pandas, about half a second) is imported where a table is made, not at %load_ext.


@dataclass
class Context:
    client: Client
    namespace: dict[str, Any]
    out: Callable[[str], None] = print


@dataclass
class Deferred:
    """A call that may ask a person: run blocking, or awaited (an awaiting cell gets
    widget clicks on ipykernel 7; see transform.py)."""

    run: Callable[[], Any]
    arun: Callable[[], Any]


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


def _server(ctx: Context, name: str) -> Server:
    if name not in ctx.client:
        known = ", ".join(sorted(s.name for s in ctx.client)) or "none yet"
        raise UsageError(f"no server named {name!r} (known: {known}); add one with %mcp add {name} -- COMMAND")
    return ctx.client[name]


def _servers(ctx: Context, name: str | None) -> list[Server]:
    if name:
        server = _server(ctx, name)
        if server.status is not Status.CONNECTED:
            why = f": {server.error}" if server.error else f" ({server.status.value})"
            raise UsageError(f"server {name!r} is not connected{why}; %mcp restart {name}")
        return [server]
    servers = [s for s in ctx.client if s.status is Status.CONNECTED]
    if not servers and not len(ctx.client):
        raise UsageError("no servers yet: add one with %mcp add NAME -- COMMAND [ARGS…] or %mcp load")
    return servers


def _positional(sub: str, tokens: list[str], *names: str) -> Any:
    """Parse a subcommand that takes only these positional arguments."""
    parser = Parser(sub)
    for name in names:
        parser.add_argument(name)
    return parser.parse(tokens)


def _counts(server: Server) -> dict[str, int | None]:
    """How many tools, resources and prompts a connected server offers (None: not offered)."""
    if server.status is not Status.CONNECTED:
        return {"tools": None, "resources": None, "prompts": None}
    caps = server.capabilities
    return {
        "tools": len(server.list_tools()) if "tools" in caps else None,
        "resources": len(server.list_resources()) if "resources" in caps else None,
        "prompts": len(server.list_prompts()) if "prompts" in caps else None,
    }


def _report(ctx: Context, server: Server) -> None:
    ctx.out(display.summary_line(server, _counts(server)))


# -- servers ---------------------------------------------------------------------------------


@command(
    "add NAME -- COMMAND [ARGS…] | add NAME URL",
    "add a server and connect to it",
    """
Options (before the -- for a stdio server):
  --env K=V           an environment variable for the server (repeatable)
  --cwd DIR           its working directory
  --timeout S         seconds to wait for it to start (default: %config MCPMagics.startup_timeout)
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
Adding a name that exists replaces that server. Examples:
  %mcp add everything -- npx -y @modelcontextprotocol/server-everything
  %mcp add demo --env LOG=debug -- python -m mcp_notebook.demo
  %mcp add files -- npx -y @modelcontextprotocol/server-filesystem {data_dir}   ($name, {expr} too)
  %mcp add remote https://example.com/mcp --bearer-env EXAMPLE_TOKEN
  %mcp add remote $url
  %mcp add demo --save -- python -m mcp_notebook.demo
  %mcp add remote https://example.com/mcp --bearer-env EXAMPLE_TOKEN --save user
""",
)
def add(ctx: Context, tokens: list[str]) -> Deferred:
    if "--" in tokens:
        at = tokens.index("--")
        head, command_line = tokens[:at], tokens[at + 1 :]
        if not command_line:
            raise UsageError("%mcp add: nothing after --; give the server's command")
        parser = Parser("add")
        parser.add_argument("name")
        parser.add_argument("--env", action="append", metavar="K=V")
        parser.add_argument("--cwd")
        parser.add_argument("--timeout", type=float)
        _save_option(parser)
        opts = parser.parse(head)
        env = key_value_option(opts.env, "--env")
        command_line = [expand_text(word, ctx.namespace) for word in command_line]
        config = _config(
            opts.name,
            command=command_line[0],
            args=command_line[1:],
            env=env,
            cwd=opts.cwd,
            startup_timeout=opts.timeout,
            source=opts.save or "kernel",
        )
        return _connect(ctx, config, opts.save)
    parser = Parser("add")
    parser.add_argument("name")
    parser.add_argument("url")
    parser.add_argument("--transport", choices=["http", "sse"])
    parser.add_argument("--header", action="append", metavar="K=V")
    parser.add_argument("--bearer-env", metavar="VAR")
    parser.add_argument("--client-id")
    parser.add_argument("--client-secret-env", metavar="VAR")
    parser.add_argument("--client-metadata-url")
    parser.add_argument("--scopes")
    parser.add_argument("--redirect-port", type=int)
    parser.add_argument("--timeout", type=float)
    _save_option(parser)
    opts = parser.parse(tokens)
    opts.url = expand_text(opts.url, ctx.namespace)  # $url and {expr} work here too
    if "://" not in opts.url:
        raise UsageError(
            f"%mcp add: {opts.url!r} is not a URL; for a local server put its command after --: "
            f"%mcp add {opts.name} -- {opts.url}"
        )
    headers = key_value_option(opts.header, "--header")
    # How values from environment variables are saved: as references to them.
    refs: dict[str, str] = {}
    if opts.bearer_env:
        token = os.environ.get(opts.bearer_env)
        if not token:
            raise UsageError(f"--bearer-env {opts.bearer_env}: that environment variable is not set")
        headers["Authorization"] = f"Bearer {token}"
        refs["headers.Authorization"] = f"Bearer ${{{opts.bearer_env}}}"
    oauth: dict[str, Any] = {}
    if opts.client_secret_env:
        secret = os.environ.get(opts.client_secret_env)
        if not secret:
            raise UsageError(f"--client-secret-env {opts.client_secret_env}: that environment variable is not set")
        oauth["client_secret"] = secret
        refs["oauth.client_secret"] = f"${{{opts.client_secret_env}}}"
    for key in ("client_id", "client_metadata_url", "scopes", "redirect_port"):
        if getattr(opts, key) is not None:
            oauth[key] = getattr(opts, key)
    config = _config(
        opts.name,
        transport=opts.transport or "auto",
        url=opts.url,
        headers=headers,
        oauth=oauth,
        startup_timeout=opts.timeout,
        source=opts.save or "kernel",
    )
    return _connect(ctx, config, opts.save, refs)


def _save_option(parser: Parser) -> None:
    parser.add_argument("--save", nargs="?", const="project", choices=SCOPES, metavar="SCOPE")


def _config(name: str, **fields: Any) -> ServerConfig:
    try:
        return ServerConfig(name=name, **fields)
    except ConfigError as e:
        raise UsageError(str(e)) from None


def _connect(ctx: Context, config: ServerConfig, save: str | None, refs: dict[str, str] | None = None) -> Deferred:
    """Connecting may ask a person (an OAuth login): deferred like a call. Saving comes
    after the attempt, whatever its outcome: by then "auto" is known to be http or sse."""
    server = ctx.client.add_config(config, connect=False)
    after = (lambda: _save(ctx, server, save, refs)) if save else None
    return _reporting(ctx, server, server.connect, server.aconnect, after)


def _save(ctx: Context, server: Server, scope: str, refs: dict[str, str] | None) -> None:
    config = server.config
    if config.transport == "auto" and server.transport_name in ("http", "sse"):
        config = dataclasses.replace(config, transport=server.transport_name)
    try:
        saved = save_server(config, scope, refs=refs)
    except ConfigError as e:
        raise UsageError(str(e)) from None
    ctx.out(f"saved {saved.name} to {saved.path} ({scope} scope)")
    if saved.variables:
        names = ", ".join(saved.variables)
        ctx.out(f"note: secrets were saved as ${{VAR}} references, not values: set {names} before %mcp load")


def _reporting(
    ctx: Context, server: Any, run: Callable[[], Any], arun: Callable[[], Any], after: Callable[[], None] | None = None
) -> Deferred:
    def report() -> None:
        if server.status is Status.CONNECTED:
            _report(ctx, server)
        if after is not None:
            after()

    def blocking() -> None:
        try:
            run()
        finally:
            report()

    async def awaiting() -> None:
        try:
            await arun()
        finally:
            report()

    return Deferred(blocking, awaiting)


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
    "load [PATH]",
    "add the saved servers, or every server of a .mcp.json or VS Code mcp.json",
    """
With no PATH: the servers saved in every scope (see %mcp add --save): user, then project
(./.mcp.json), then local; a name in several scopes takes local over project over user.
Servers connect concurrently; each gets one line, ✓ or ✗; one with "disabled": true is
registered but not connected (%mcp restart NAME connects it). A key that is not supported is
ignored with a ⚠ line naming it. %mcp list shows where each server came from.
  %mcp load
  %mcp load .vscode/mcp.json
""",
)
def load(ctx: Context, tokens: list[str]) -> None:
    parser = Parser("load")
    parser.add_argument("path", nargs="?")
    opts = parser.parse(tokens)
    with _config_warnings(ctx):
        configs = load_servers(opts.path)  # a ConfigError becomes a one-line UsageError
    if not configs:
        ctx.out(f"{opts.path}: no servers" if opts.path else f"no saved servers; looked in {looked_in()}")
        return
    for server in ctx.client.add_configs(configs.values()):
        _report(ctx, server)


@command(
    "list",
    "a table of the servers: status, source, versions, counts, errors",
    """
source: kernel (added here, not saved), user, project, local (the scope it was saved in or
loaded from), or the path of the config file it was loaded from.
  servers = %mcp list
""",
)
def list_(ctx: Context, tokens: list[str]) -> Any:
    Parser("list").parse(tokens)
    rows = []
    for server, row in zip(ctx.client, ctx.client.status(), strict=True):
        rows.append({**row, **_counts(server)})
    from .tables import servers_frame

    return servers_frame(rows)


@command("status SERVER", "a server's capabilities, instructions, protocol and pid", "  %mcp status everything")
def status(ctx: Context, tokens: list[str]) -> Any:
    return display.ServerStatus(_server(ctx, _positional("status", tokens, "server").server))


@command(
    "logs SERVER [--lines N]",
    "a server's stderr and its log messages",
    "Log messages arrive at the level set with %mcp loglevel (the server's default otherwise).\n  %mcp logs everything",
)
def logs(ctx: Context, tokens: list[str]) -> Any:
    parser = Parser("logs")
    parser.add_argument("server")
    parser.add_argument("--lines", type=int, default=200)
    opts = parser.parse(tokens)
    return display.ServerLogs(_server(ctx, opts.server), opts.lines)


@command("loglevel SERVER LEVEL", "ask a server to send log messages from LEVEL up", "  %mcp loglevel everything debug")
def loglevel(ctx: Context, tokens: list[str]) -> None:
    opts = _positional("loglevel", tokens, "server", "level")
    _server(ctx, opts.server).set_log_level(opts.level)
    ctx.out(f"{opts.server}: log level {opts.level}")


@command("restart SERVER", "reconnect (a stdio server is started again)", "  %mcp restart everything")
def restart(ctx: Context, tokens: list[str]) -> Deferred:
    server = _server(ctx, _positional("restart", tokens, "server").server)
    return _reporting(ctx, server, server.restart, server.arestart)


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
    server = _server(ctx, opts.server)
    return _reporting(ctx, server, lambda: server.login(opts.scopes), lambda: server.alogin(opts.scopes))


@command("logout SERVER", "forget a remote server's tokens and client registration", "  %mcp logout github")
def logout(ctx: Context, tokens: list[str]) -> None:
    name = _positional("logout", tokens, "server").server
    _server(ctx, name).logout()
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
    server = ctx.client.servers.get(name)
    if opts.save is None:
        _server(ctx, name)
        ctx.client.remove(name)
        ctx.out(f"removed {name}")
        return
    if opts.save:
        check_scope(opts.save)  # a ConfigError becomes a one-line UsageError
    elif server is None:
        _server(ctx, name)  # says it is unknown
    where = opts.save or (server.config.source if server else "kernel")
    if where == "kernel":
        raise UsageError(
            f"{name} was added in this kernel, not saved; to delete a saved one name its scope: "
            f"%mcp remove {name} --save project|user|local"
        )
    path = remove_saved(name, where)  # first: if the file cannot be changed, nothing is lost
    if server is not None:
        ctx.client.remove(name)
    scope = f" ({where} scope)" if where in SCOPES else ""
    ctx.out(f"removed {name}" + (" from this kernel and" if server is not None else "") + f" from {path}{scope}")


# -- listings --------------------------------------------------------------------------------


def _listing(sub: str, tokens: list[str], search: bool = False) -> Any:
    parser = Parser(sub)
    parser.add_argument("server", nargs="?")
    parser.add_argument("--refresh", action="store_true")
    if search:
        parser.add_argument("--search")
    return parser.parse(tokens)


def _gather(ctx: Context, opts: Any, capability: str, fetch: Callable[[Server, bool], list[Any]]) -> list[Any]:
    # A server that did not declare the capability is not asked (the spec's rule).
    return [i for s in _servers(ctx, opts.server) if capability in s.capabilities for i in fetch(s, opts.refresh)]


@command(
    "tools [SERVER] [--search TEXT] [--refresh]",
    "a table of tools (all connected servers, or one)",
    """
Columns: server, name, title, description, arguments (required ones end in *), read_only,
destructive, idempotent, open_world (the server's hints, untrusted; <NA> when not given),
qualified_name. --search keeps tools whose name, title or description contains TEXT
(or matches it as a glob: 'get-*').
  tools = %mcp tools
  %mcp tools everything --search sum
""",
)
def tools(ctx: Context, tokens: list[str]) -> Any:
    opts = _listing("tools", tokens, search=True)
    found = _gather(ctx, opts, "tools", lambda s, refresh: s.list_tools(refresh=refresh))
    if opts.search:
        needle = opts.search.lower()
        found = [
            t
            for t in found
            if needle in f"{t.name}\n{t.title or ''}\n{t.description or ''}".lower()
            or fnmatch.fnmatch(t.name.lower(), needle)
        ]
    from .tables import tools_frame

    return tools_frame(found)


@command("resources [SERVER] [--refresh]", "a table of resources", "  %mcp resources everything")
def resources(ctx: Context, tokens: list[str]) -> Any:
    opts = _listing("resources", tokens)
    from .tables import resources_frame

    return resources_frame(_gather(ctx, opts, "resources", lambda s, r: s.list_resources(refresh=r)))


@command("templates [SERVER] [--refresh]", "a table of resource templates", "  %mcp templates everything")
def templates(ctx: Context, tokens: list[str]) -> Any:
    opts = _listing("templates", tokens)
    from .tables import templates_frame

    return templates_frame(_gather(ctx, opts, "resources", lambda s, r: s.list_resource_templates(refresh=r)))


@command("prompts [SERVER] [--refresh]", "a table of prompts", "  %mcp prompts everything")
def prompts(ctx: Context, tokens: list[str]) -> Any:
    opts = _listing("prompts", tokens)
    from .tables import prompts_frame

    return prompts_frame(_gather(ctx, opts, "prompts", lambda s, r: s.list_prompts(refresh=r)))


# -- using -----------------------------------------------------------------------------------


@command(
    "read SERVER URI",
    "read a resource",
    """
The result shows itself (a table for CSV and JSON records, images inline) and has .text,
.bytes, .mime_type, .contents and .to_frame().
  df = %mcp read demo penguins://data.csv
  df.to_frame()
""",
)
def read(ctx: Context, tokens: list[str]) -> Any:
    parser = Parser("read")
    parser.add_argument("server")
    parser.add_argument("uri")
    parser.add_argument("--timeout", type=float)
    opts = parser.parse(tokens)
    kwargs = {} if opts.timeout is None else {"timeout": opts.timeout}
    server = _server(ctx, opts.server)
    return Deferred(lambda: server.read_resource(opts.uri, **kwargs), lambda: server.aread_resource(opts.uri, **kwargs))


@dataclass
class _CallOptions:
    target: str
    timeout: float | None = None
    no_validate: bool = False
    output: str | None = None


def _call_options(tokens: list[str], what: str) -> tuple[_CallOptions, list[str]]:
    """SERVER.TOOL, --timeout S, --no-validate (and -o VAR for the cell magic) apart from
    the key=value arguments. By hand: argparse would cost more than the call itself."""
    if not tokens or tokens[0].startswith("-"):
        raise UsageError(f"%{what}: give SERVER.TOOL first; see %mcp help call")
    opts, arguments = _CallOptions(tokens[0]), []
    rest = iter(tokens[1:])
    for token in rest:
        if token == "--timeout":
            value = next(rest, "")
            try:
                opts.timeout = float(value)
            except ValueError:
                raise UsageError(f"%{what}: --timeout takes seconds, not {value!r}") from None
        elif token == "--no-validate":
            opts.no_validate = True
        elif token in ("-o", "--output") and what == "mcp_call":
            opts.output = next(rest, "")
        elif token.startswith("-") and "=" not in token:
            raise UsageError(f"%{what}: unknown option {token!r}; see %mcp help call")
        else:
            arguments.append(token)
    return opts, arguments


def _call(ctx: Context, server_name: str, tool: str, arguments: dict[str, Any], opts: Any) -> Deferred:
    kwargs: dict[str, Any] = {}
    if opts.timeout is not None:
        kwargs["timeout"] = opts.timeout
    if opts.no_validate:
        kwargs["validate"] = False
    server = _server(ctx, server_name)
    return Deferred(
        lambda: server.call_tool(tool, arguments, **kwargs), lambda: server.acall_tool(tool, arguments, **kwargs)
    )


def _tool_schema(ctx: Context, server_name: str, tool: str) -> dict[str, Any] | None:
    server = _server(ctx, server_name)
    return server.get_tool(tool).input_schema if server.status is Status.CONNECTED else None


@command(
    "call SERVER.TOOL [key=value …] [--timeout S] [--no-validate]",
    "call a tool",
    """
A value is JSON when it parses as JSON (3, true, [1,2], {"a":1}), else a string; for a
string parameter the text typed is kept (zip=02139). $name takes a variable from the
notebook, {expr} evaluates a Python expression; quote values with spaces: msg="a b".
Arguments are checked against the tool's schema first (--no-validate sends them as they
are). The result shows itself and has .content, .text, .structured, .is_error and .to_frame().
  %mcp call everything.echo message="hello there"
  r = %mcp call demo.query_penguins species=Gentoo limit=5
  %mcp call everything.get-sum a=$x b={x * 2}
""",
)
def call(ctx: Context, tokens: list[str]) -> Any:
    opts, arguments = _call_options(tokens, "mcp call")
    server_name, tool = target(opts.target)
    schema = _tool_schema(ctx, server_name, tool)
    return _call(ctx, server_name, tool, key_values(arguments, ctx.namespace, schema), opts)


def call_cell(ctx: Context, line: str, body: str) -> Any:
    """%%mcp_call SERVER.TOOL [-o VAR] [--timeout S] [--no-validate] with the arguments in the body."""
    opts, extra = _call_options(split(line), "mcp_call")
    if extra:
        raise UsageError(f"%%mcp_call: arguments go in the cell body, not on the line: {' '.join(extra)}")
    server_name, tool = target(opts.target)
    deferred = _call(ctx, server_name, tool, body_arguments(body, ctx.namespace), opts)
    if opts.output and not opts.output.isidentifier():
        raise UsageError(f"-o {opts.output!r}: not a Python variable name")

    def store(result: Any) -> Any:
        if opts.output:
            ctx.namespace[opts.output] = result
        return result

    async def arun() -> Any:
        return store(await deferred.arun())

    return Deferred(lambda: store(deferred.run()), arun)


@command(
    "prompt SERVER.PROMPT [key=value …]",
    "get a prompt's messages",
    """
Values as for call. Prompt arguments are strings: other values go as their JSON text
(3, true, [1,2]); a missing one (None, NaN) is left out. They are checked against the
prompt's listing first: a missing required argument or one the prompt does not take is named.
  %mcp prompt everything.args-prompt city=Paris
""",
)
def prompt(ctx: Context, tokens: list[str]) -> Any:
    if not tokens:
        raise UsageError("%mcp prompt: give SERVER.PROMPT; see %mcp help prompt")
    server_name, name = target(tokens[0], "PROMPT")
    arguments = key_values(tokens[1:], ctx.namespace)  # the server's side makes them text
    server = _server(ctx, server_name)
    return Deferred(lambda: server.get_prompt(name, arguments), lambda: server.aget_prompt(name, arguments))


@command(
    "roots [add PATH | remove PATH]",
    "the folders offered to servers as roots (none until you add one)",
    """
Servers that ask (roots/list) get these; connected servers are told when they change. None
are offered by default: a server offered roots may use them in place of the folders its own
arguments name (the filesystem server does). Capabilities are fixed when a server connects:
one connected before any root was added is not offered them until %mcp restart.
%config MCPMagics.roots = ['~/data'] sets them from IPython's config.
  %mcp roots
  %mcp roots add ~/data
  %mcp roots remove ~/data
""",
)
def roots(ctx: Context, tokens: list[str]) -> Any:
    if tokens:
        if len(tokens) != 2 or tokens[0] not in ("add", "remove"):
            raise UsageError("%mcp roots: use %mcp roots, %mcp roots add PATH or %mcp roots remove PATH")
        action, path = tokens
        root = root_entry(path)
        current = [r for r in ctx.client.roots if r["uri"] != root["uri"]]
        if action == "add":
            if "://" not in path and not os.path.isdir(os.path.expanduser(path)):
                raise UsageError(f"%mcp roots add: {path!r} is not a folder")
            current.append(root)
        elif len(current) == len(ctx.client.roots):
            raise UsageError(f"%mcp roots remove: {path!r} is not a root; %mcp roots lists them")
        ctx.client.set_roots(current)
        unaware = [s.name for s in ctx.client if s.status is Status.CONNECTED and "roots" not in s.client_capabilities]
        if unaware:
            names = ", ".join(unaware)
            ctx.out(f"not offered to {names} (connected before roots were offered): %mcp restart {unaware[0]}")
    elif not ctx.client.roots:
        ctx.out("no roots are offered; %mcp roots add PATH offers one")
    from .tables import roots_frame

    return roots_frame(ctx.client.roots)


@command(
    "subscribe SERVER URI",
    "follow a resource: updates show in this cell (or go to a callback from the Python API)",
    """
  %mcp subscribe everything demo://resource/static/document/architecture.md
  %mcp unsubscribe everything demo://resource/static/document/architecture.md
""",
)
def subscribe(ctx: Context, tokens: list[str]) -> Any:
    opts = _positional("subscribe", tokens, "server", "uri")
    server = _server(ctx, opts.server)
    if not (server.capabilities.get("resources") or {}).get("subscribe"):
        raise UsageError(f"{opts.server} does not offer resource subscriptions")
    from .cards import SubscriptionView

    view = SubscriptionView(opts.server, opts.uri)
    server.subscribe(opts.uri, view.updated)
    return view


@command("unsubscribe SERVER URI", "stop following a resource", "  %mcp unsubscribe everything URI")
def unsubscribe(ctx: Context, tokens: list[str]) -> None:
    opts = _positional("unsubscribe", tokens, "server", "uri")
    _server(ctx, opts.server).unsubscribe(opts.uri)
    ctx.out(f"{opts.server}: no longer following {opts.uri}")


@command("help [SUBCOMMAND]", "this help, or one subcommand's", "  %mcp help call")
def help_(ctx: Context, tokens: list[str]) -> None:
    if not tokens:
        ctx.out(overview())
        return
    name = tokens[0]
    entry = COMMANDS.get(name)
    if entry is None:
        raise UsageError(f"no subcommand {name!r}; subcommands: {', '.join(COMMANDS)}")
    ctx.out(f"%mcp {entry.usage}\n  {entry.summary}\n{entry.details}".rstrip())


def overview() -> str:
    width = max(len(c.usage.split(" | ")[0]) for c in COMMANDS.values())
    lines = ["%mcp SUBCOMMAND … — use MCP servers from the notebook.", ""]
    lines += [f"  %mcp {c.usage.split(' | ')[0]:{width}}  {c.summary}" for c in COMMANDS.values()]
    lines += [
        "",
        "  %%mcp_call SERVER.TOOL [-o VAR]   call a tool with the cell body (JSON or a Python dict) as arguments",
        "",
        "x = %mcp … assigns the value; a trailing ; shows nothing. %mcp help SUBCOMMAND explains one.",
        "Settings: %config MCPMagics (timeouts, validation, output limits, table rows).",
    ]
    return "\n".join(lines)
