"""Subcommands that use a server: read, call (and %%mcp_call's call_cell), prompt,
roots, subscribe, unsubscribe."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ..core.arguments.uritemplates import variables
from ..core.types import Status
from ..errors import ArgumentError, InvalidArguments
from ..runtime.client import root_entry
from .base import Context, Deferred, command, server_named
from .parsing import Parser, body_arguments, key_values, seconds, split, target
from .steps import Taker

__all__ = ["call", "call_cell", "prompt", "read", "roots"]


@command(
    "read SERVER URI [NAME=VALUE ...] [--timeout S] [--refresh]",
    "read a resource (a template's, filled from NAME=VALUE)",
    """
The result shows itself (a table for CSV and JSON records, images inline) and has .text,
.bytes, .mime_type, .contents and .to_frame() (CSV, TSV, JSON records, JSON Lines, Parquet
with pyarrow, Excel .xlsx with openpyxl). A resource template (%mcp templates) is read with
a value for each of its variables, typed as key=value ($name and {expr} too); a missing or
unknown one is an error naming the template's variables. A resource bigger than
%config MCPMagics.max_message_size (32 MiB) is refused: raise it and read again.
A 2026-07-28 server may say the contents stay fresh for a while (ttlMs): read again within
it, they come from the cache (until an update of a subscribed URI); --refresh reads them
from the server.
  df = %mcp read demo penguins://data.csv
  df.to_frame()
  %mcp read demo penguins://species/{species}.csv species=Gentoo
  %mcp read demo penguins://data.csv --refresh
""",
)
def read(ctx: Context, tokens: list[str]) -> Any:
    parser = Parser("read")
    parser.add_argument("server")
    parser.add_argument("uri")
    parser.add_argument("values", nargs="*")
    parser.add_argument("--timeout", type=seconds)
    parser.add_argument("--refresh", action="store_true")
    opts = parser.parse(tokens)
    kwargs: dict[str, Any] = {} if opts.timeout is None else {"timeout": opts.timeout}
    if opts.refresh:
        kwargs["refresh"] = True
    # A template's variables are text: 007 stays 007 (its values are checked by read_resource).
    names = {name: {"type": "string"} for name in variables(opts.uri)}
    values = key_values(opts.values, ctx.names, {"properties": names})
    if {"timeout", "refresh"} & set(values):  # read_resource's own keywords, not a variable's
        raise ArgumentError("%mcp read: use --timeout S and --refresh, not timeout= or refresh=")
    kwargs.update(values)
    server = server_named(ctx, opts.server)
    return Deferred(lambda: server.read_resource(opts.uri, **kwargs), lambda: server.aread_resource(opts.uri, **kwargs))


@dataclass
class _CallOptions:
    target: str
    timeout: float | None = None
    no_validate: bool = False
    output: str | None = None
    task: bool | None = None  # --task: as a task where the tool allows it


def _call_options(tokens: list[str], what: str) -> tuple[_CallOptions, list[str]]:
    """SERVER.TOOL, --timeout S, --no-validate (and -o VAR for the cell magic) apart from
    the key=value arguments. By hand: argparse would cost more than the call itself."""
    if not tokens or tokens[0].startswith("-"):
        raise ArgumentError(f"%{what}: give SERVER.TOOL first; see %mcp help call")
    opts, arguments = _CallOptions(tokens[0]), []
    rest = iter(tokens[1:])
    for token in rest:
        if token == "--timeout":
            value = next(rest, "")
            try:
                opts.timeout = seconds(value)
            except ValueError as e:
                raise ArgumentError(f"%{what}: --timeout {e}") from None
        elif token == "--no-validate":
            opts.no_validate = True
        elif token == "--task":
            opts.task = True
        elif token in ("-o", "--output") and what == "mcp_call":
            opts.output = next(rest, "")
        elif token.startswith("-") and "=" not in token:
            raise ArgumentError(f"%{what}: unknown option {token!r}; see %mcp help call")
        else:
            arguments.append(token)
    return opts, arguments


def _call(ctx: Context, server_name: str, tool: str, arguments: dict[str, Any], opts: Any) -> Deferred:
    kwargs: dict[str, Any] = {}
    if opts.timeout is not None:
        kwargs["timeout"] = opts.timeout
    if opts.no_validate:
        kwargs["validate"] = False
    if opts.task:
        kwargs["task"] = True
    server = server_named(ctx, server_name)
    deferred = Deferred(
        lambda: server.call_tool(tool, arguments, **kwargs), lambda: server.acall_tool(tool, arguments, **kwargs)
    )

    async def checked(taker: Taker) -> Any:
        try:
            return await taker.take(deferred)
        except InvalidArguments as e:  # validation says "pass validate=False": here it is an option
            raise e.unchecked_by("add --no-validate") from None

    return Deferred.of(checked)


def _tool_schema(ctx: Context, server_name: str, tool: str) -> dict[str, Any] | None:
    server = server_named(ctx, server_name)
    return server.get_tool(tool).input_schema if server.status is Status.CONNECTED else None


@command(
    "call SERVER.TOOL [key=value …] [--timeout S] [--no-validate] [--task]",
    "call a tool",
    """
A value is JSON when it parses as JSON (3, true, [1,2], {"a":1}), else a string; for a
string parameter the text typed is kept (zip=02139). $name takes a variable from the
notebook, {expr} evaluates a Python expression; quote values with spaces: msg="a b".
Arguments are checked against the tool's schema first (--no-validate sends them as they
are). The result shows itself and has .content, .text, .structured, .is_error and .to_frame().
A call the server runs as a task (a tool that requires it; an optional one with --task; a
2026-07-28 server that decides to) is followed until it ends: its status shows with Cancel,
and %mcp tasks lists it.
  %mcp call everything.echo message="hello there"
  r = %mcp call demo.query_penguins species=Gentoo limit=5
  %mcp call everything.get-sum a=$x b={x * 2}
""",
)
def call(ctx: Context, tokens: list[str]) -> Any:
    opts, arguments = _call_options(tokens, "mcp call")
    server_name, tool = target(opts.target)
    schema = _tool_schema(ctx, server_name, tool)
    return _call(ctx, server_name, tool, key_values(arguments, ctx.names, schema), opts)


def call_cell(ctx: Context, line: str, body: str) -> Any:
    """%%mcp_call SERVER.TOOL [-o VAR] [--timeout S] [--no-validate] with the arguments in the body."""
    opts, extra = _call_options(split(line), "mcp_call")
    if extra:
        raise ArgumentError(f"%%mcp_call: arguments go in the cell body, not on the line: {' '.join(extra)}")
    server_name, tool = target(opts.target)
    deferred = _call(ctx, server_name, tool, body_arguments(body, ctx.names), opts)
    if opts.output and not opts.output.isidentifier():
        raise ArgumentError(f"-o {opts.output!r}: not a Python variable name")

    async def stored(taker: Taker) -> Any:
        result = await taker.take(deferred)
        if opts.output:
            ctx.namespace[opts.output] = result
        return result

    return Deferred.of(stored)


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
        raise ArgumentError("%mcp prompt: give SERVER.PROMPT; see %mcp help prompt")
    server_name, name = target(tokens[0], "PROMPT")
    arguments = key_values(tokens[1:], ctx.names)  # the server's side makes them text
    server = server_named(ctx, server_name)
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
            raise ArgumentError("%mcp roots: use %mcp roots, %mcp roots add PATH or %mcp roots remove PATH")
        action, path = tokens
        root = root_entry(path)
        current = [r for r in ctx.client.roots if r["uri"] != root["uri"]]
        if action == "add":
            if "://" not in path and not os.path.isdir(os.path.expanduser(path)):
                raise ArgumentError(f"%mcp roots add: {path!r} is not a folder")
            current.append(root)
        elif len(current) == len(ctx.client.roots):
            raise ArgumentError(f"%mcp roots remove: {path!r} is not a root; %mcp roots lists them")
        ctx.client.set_roots(current)
        done = f"{'added' if action == 'add' else 'removed'} root {root['uri']}"
        unaware = [s.name for s in ctx.client if s.status is Status.CONNECTED and "roots" not in s.client_capabilities]
        aware = [s.name for s in ctx.client if s.status is Status.CONNECTED and s.name not in unaware]
        told = f"; told {', '.join(aware)}" if aware else ""
        ctx.out(f"✓ {done}{told}")
        if unaware:
            restarts = "; ".join(f"%mcp restart {name}" for name in unaware)
            ctx.out(f"  {', '.join(unaware)} connected before any root was offered and cannot see it until restarted: "
                    f"{restarts}")  # fmt: skip
    elif not ctx.client.roots:
        ctx.out("no roots are offered; %mcp roots add PATH offers one")
    from .tables import roots_frame

    return roots_frame(ctx.client.roots)
