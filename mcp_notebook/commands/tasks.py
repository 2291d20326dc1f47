"""``%mcp tasks``: the tasks seen in this kernel (calls a server ran as tasks)."""

from __future__ import annotations

from typing import Any

from .base import Context, command, server_named
from .parsing import Parser

__all__ = ["tasks"]


@command(
    "tasks [SERVER]",
    "a table of the tasks seen in this kernel (all servers, or one)",
    """
A call the server runs as a task (see call) is listed here, newest last, with its last
known state. Columns: id, server, tool, status (working, input_required, completed,
failed, cancelled), created (the server's time), message (the server's last status
message, untrusted).
  %mcp tasks
  %mcp tasks everything
""",
)
def tasks(ctx: Context, tokens: list[str]) -> Any:
    parser = Parser("tasks")
    parser.add_argument("server", nargs="?")
    opts = parser.parse(tokens)
    if opts.server:
        server_named(ctx, opts.server)  # a name that is not known is a mistake, not an empty table
    from .tables import tasks_frame

    return tasks_frame(ctx.client.runtime.tasks.records(opts.server))
