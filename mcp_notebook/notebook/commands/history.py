"""``%mcp history`` and ``%mcp transcript``: the requests this kernel sent, and one server's
JSON-RPC messages both ways (recorded by core/history/calls.py)."""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError

from ..parsing import Parser
from .base import Context, command, server_named

__all__ = ["history", "transcript"]


def _last(parser: Parser) -> None:
    parser.add_argument("--last", type=int, metavar="N")


def _checked_last(name: str, last: int | None) -> int | None:
    if last is not None and last < 1:
        raise UsageError(f"%mcp {name}: --last takes a number of rows above 0, not {last}")
    return last


@command(
    "history [SERVER] [--last N] [--errors] | history [SERVER] --export PATH.py | history --clear",
    "a table of the requests this kernel sent (all servers, or one), or a script replaying them",
    """
Every request is recorded, newest last: time, server, method, name (tool, prompt or
resource), arguments (secret-looking keys hidden, long values cut), duration (seconds),
outcome (ok, cancelled, or the error), bytes out and in. --errors keeps the failures
(not the era probe a legacy server refuses: -32600/-32601/-32602, HTTP 400/404/405 or
silence; its outcome says "legacy server (…)"; any other error to it is a failure).
The ring holds %config MCPMagics.history_size requests (0 turns recording off).
--export writes a plain Python script (the Python API, no notebook needed) that replays
the successful tool calls, resource reads and prompts in order; servers are added from
their configs, and secrets (tokens, secret-looking env values and headers) are read from
environment variables the script names at its top, never written into it.
The history holds the messages themselves (one read over 64 KiB only as shown, long values
cut, so a big result you let go of is freed): --clear forgets them all.
  %mcp history
  %mcp history demo --last 5 --errors
  %mcp history --export replay.py
""",
)
def history(ctx: Context, tokens: list[str]) -> Any:
    parser = Parser("history")
    parser.add_argument("server", nargs="?")
    _last(parser)
    parser.add_argument("--errors", action="store_true")
    parser.add_argument("--export", metavar="PATH")
    parser.add_argument("--clear", action="store_true")
    opts = parser.parse(tokens)
    last = _checked_last("history", opts.last)
    if opts.clear:
        if opts.server or last is not None or opts.errors or opts.export:
            raise UsageError("%mcp history: --clear forgets every server's history; give it alone")
        ctx.client.clear_history()
        ctx.out("history cleared")
        return None
    if opts.server:
        server_named(ctx, opts.server)  # a name that is not known is a mistake, not an empty table
    if opts.export:
        if last is not None or opts.errors:
            raise UsageError("%mcp history: --export replays every successful call; drop --last and --errors")
        try:
            text = ctx.client.export_history(opts.export, opts.server)
        except OSError as e:
            raise UsageError(f"%mcp history: cannot write {opts.export!r}: {e.strerror or e}") from None
        calls = text.count("\nresult = ")
        ctx.out(f"wrote {opts.export}: {calls} call{'s' if calls != 1 else ''} to replay (python {opts.export})")
        return None
    return ctx.client.history(opts.server, last, opts.errors)


@command(
    "transcript SERVER [--last N]",
    "a server's JSON-RPC messages both ways, in order",
    """
As the MCP Inspector's protocol view shows them: time, direction (sent, received), kind
(request, response, notification, error), id, method, a short summary, size, and the
payload as JSON (secret-looking keys hidden, long values cut). The server's own requests
and notifications sit among the replies in the order they came. Holds the last
%config MCPMagics.history_size messages per server.
  %mcp transcript demo --last 20
""",
)
def transcript(ctx: Context, tokens: list[str]) -> Any:
    parser = Parser("transcript")
    parser.add_argument("server")
    _last(parser)
    opts = parser.parse(tokens)
    last = _checked_last("transcript", opts.last)
    return ctx.client.transcript(server_named(ctx, opts.server).name, last)
