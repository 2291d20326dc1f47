"""Subcommands that list what the servers offer: tools, resources, templates, prompts
(DataFrames; tables.py imports pandas where a table is made, not at %load_ext)."""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from typing import Any

from ..runtime import Server
from .base import Context, command, connected_servers
from .parsing import Parser

__all__ = ["prompts", "resources", "templates", "tools"]


def _listing(sub: str, tokens: list[str], search: bool = False) -> Any:
    parser = Parser(sub)
    parser.add_argument("server", nargs="?")
    parser.add_argument("--refresh", action="store_true")
    if search:  # tools
        parser.add_argument("--search")
        parser.add_argument("--all", action="store_true")
    return parser.parse(tokens)


def _gather(
    ctx: Context, opts: Any, capability: str, fetch: Callable[[Server, bool], list[Any]], what: str | None = None
) -> list[Any]:
    # A server that did not declare the capability is not asked (the spec's rule); an empty
    # listing says why, as a note (stderr on the command line): not an empty table alone.
    servers = connected_servers(ctx, opts.server)
    found = [i for s in servers if capability in s.capabilities for i in fetch(s, opts.refresh)]
    if not found:
        for server in servers:
            if capability not in server.capabilities:
                why = f"it declared no {capability!r} capability"
                ctx.out(f"server {server.name!r} offers no {what or capability} ({why})")
    return found


@command(
    "tools [SERVER] [--search TEXT] [--all] [--refresh]",
    "a table of tools (all connected servers, or one)",
    """
Columns: server, name, title, description, arguments (required ones end in *), read_only,
destructive, idempotent, open_world (the server's hints, untrusted; <NA> when not given),
qualified_name. --search keeps tools whose name, title or description, or one of whose
arguments' names or descriptions, contains TEXT (or whose name matches it as a glob: 'get-*').
--all also lists the tools a server's tool lists leave out (%mcp add --tools/--exclude-tools,
enabledTools/disabledTools in a config file), with an "excluded" column saying which setting.
  tools = %mcp tools
  %mcp tools everything --search sum
  %mcp tools demo --search body
""",
)
def tools(ctx: Context, tokens: list[str]) -> Any:
    opts = _listing("tools", tokens, search=True)
    found = _gather(ctx, opts, "tools", lambda s, refresh: s.list_tools(refresh=refresh, all=opts.all))
    for server in connected_servers(ctx, opts.server):
        notice = server.dropped_tools_notice()
        if notice:
            ctx.out(f"⚠ {notice}")  # once: the next listing that drops tools says it again
    if opts.search:
        needle = opts.search.lower()
        found = [t for t in found if needle in _searched(t) or fnmatch.fnmatch(t.name.lower(), needle)]
    from .tables import tools_frame

    frame = tools_frame(found)
    if opts.all:
        frame["excluded"] = [t.excluded for t in found]
    return frame


def _searched(tool: Any) -> str:
    """What --search looks in: the tool's name, title and description, and each argument's
    name, title and description (``body`` finds ``min_body_mass_g``)."""
    parts = [tool.name, tool.title or "", tool.description or ""]
    properties = tool.input_schema.get("properties")
    for name, schema in properties.items() if isinstance(properties, dict) else ():
        parts.append(str(name))
        if isinstance(schema, dict):
            parts += [str(schema.get("title") or ""), str(schema.get("description") or "")]
    return "\n".join(parts).lower()


@command("resources [SERVER] [--refresh]", "a table of resources", "  %mcp resources everything")
def resources(ctx: Context, tokens: list[str]) -> Any:
    opts = _listing("resources", tokens)
    from .tables import resources_frame

    return resources_frame(_gather(ctx, opts, "resources", lambda s, r: s.list_resources(refresh=r)))


@command("templates [SERVER] [--refresh]", "a table of resource templates", "  %mcp templates everything")
def templates(ctx: Context, tokens: list[str]) -> Any:
    opts = _listing("templates", tokens)
    from .tables import templates_frame

    found = _gather(ctx, opts, "resources", lambda s, r: s.list_resource_templates(refresh=r), "resource templates")
    return templates_frame(found)


@command("prompts [SERVER] [--refresh]", "a table of prompts", "  %mcp prompts everything")
def prompts(ctx: Context, tokens: list[str]) -> Any:
    opts = _listing("prompts", tokens)
    from .tables import prompts_frame

    return prompts_frame(_gather(ctx, opts, "prompts", lambda s, r: s.list_prompts(refresh=r)))
