"""The subcommands of ``%mcp`` and of the ``mcp-notebook`` command: one plain function
each, ``fn(ctx, tokens) -> value``, with its help beside it (``@command``; docs/magics.md
and ``mcp-notebook --help`` are written from that help).

A value is what ``x = %mcp …`` assigns, what a cell shows and what the command line prints;
a function that only acts prints one line and returns None. A user's mistake raises
ArgumentError (the magic shows it as IPython's UsageError, the command line exits 2). By
area: servers.py (add, load, list, status, logs, loglevel, restart, login, logout, remove;
serverconfig.py reads add's words, for the command line's own server too),
listings.py (tools, resources, templates, prompts), skills.py (skills, skill), compare.py
(snapshot, diff), using.py (read, call, prompt, roots), bulk.py (map), tasks.py (tasks),
history.py (history, transcript). The notebook adds those that need widgets (form,
subscribe, unsubscribe: notebook/subcommands.py). Beside them: parsing.py (the grammar),
steps.py (logic run blocking or awaited), tables.py (the only module importing pandas),
display.py (how results look as text and HTML) and serverdisplay.py (how a server looks:
its summary line, status and logs).
"""

from __future__ import annotations

from ..errors import ArgumentError
from .base import COMMANDS, Command, Context, Deferred, command

# The areas register their subcommands as they are imported, in the order help lists them.
# isort: off
from . import servers, listings, skills, compare, using, bulk, tasks, history

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
    "help_",
    "history",
    "listed",
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
        raise ArgumentError(f"no subcommand {name!r}; subcommands: {', '.join(COMMANDS)}")
    ctx.out(f"%mcp {entry.usage}\n  {entry.summary}\n{entry.details}".rstrip())


def listed() -> list[Command]:
    """The subcommands in the order help lists them: as registered (the notebook's own
    after these), help last."""
    return sorted(COMMANDS.values(), key=lambda c: c.run is help_)


def overview() -> str:
    width = max(len(c.usage.split(" | ")[0]) for c in COMMANDS.values())
    lines = ["%mcp SUBCOMMAND … — use MCP servers from the notebook.", ""]
    lines += [f"  %mcp {c.usage.split(' | ')[0]:{width}}  {c.summary}" for c in listed()]
    lines += [
        "",
        "  %%mcp_call SERVER.TOOL [-o VAR]   call a tool with the cell body (JSON or a Python dict) as arguments",
        "",
        "x = %mcp … assigns the value; a trailing ; shows nothing. %mcp help SUBCOMMAND explains one.",
        "Settings: %config MCPMagics (timeouts, validation, output limits, table rows).",
    ]
    return "\n".join(lines)
