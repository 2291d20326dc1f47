"""The %mcp subcommands: one plain function each, ``fn(ctx, tokens) -> value``, with its
help beside it (``@command``; docs/magics.md is written from that help).

A value is what ``x = %mcp …`` assigns and what a cell shows; a function that only acts
prints one line and returns None. By area: servers.py (add, load, list, status, logs,
loglevel, restart, login, logout, remove), listings.py (tools, resources, templates,
prompts), skills.py (skills, skill), compare.py (snapshot, diff), using.py (read, call,
prompt, roots, subscribe, unsubscribe), bulk.py (map), form.py (form), tasks.py (tasks),
history.py (history, transcript).
"""

from __future__ import annotations

from IPython.core.error import UsageError

from .base import COMMANDS, Command, Context, Deferred, command

# The areas register their subcommands as they are imported, in the order help lists them.
# isort: off
from . import servers, listings, skills, compare, using, bulk, form, tasks, history

# isort: on
from .using import call_cell

__all__ = [
    "COMMANDS",
    "Command",
    "Context",
    "Deferred",
    "bulk",
    "call_cell",
    "command",
    "compare",
    "form",
    "help_",
    "history",
    "listings",
    "overview",
    "servers",
    "skills",
    "tasks",
    "using",
]


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
