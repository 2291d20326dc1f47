"""``%mcp history`` and ``%mcp transcript``: the requests this kernel sent, and one server's
JSON-RPC messages both ways (recorded by core/history/calls.py)."""

from __future__ import annotations

from typing import Any

from ..errors import ArgumentError
from .base import Context, command, server_named
from .parsing import Parser

__all__ = ["history", "transcript"]


def _last(parser: Parser) -> None:
    parser.add_argument("--last", type=int, metavar="N")


def _checked_last(name: str, last: int | None) -> int | None:
    if last is not None and last < 1:
        raise ArgumentError(f"%mcp {name}: --last takes a number of rows above 0, not {last}")
    return last


@command(
    "history [SERVER] [--last N] [--errors] | history [SERVER] --export PATH.py [--pytest [--exact] "
    "[--volatile A,B]] | history --clear",
    "a table of the requests this kernel sent (all servers, or one), or a script or tests replaying them",
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
--pytest writes a pytest module instead: a test per call, each asserting the call ends well
and its structured content fits the tool's outputSchema; --exact also that its result is
the recorded one, leaving out the fields --volatile names (times, ids), at any depth. It
needs only mcp-notebook and pytest; a failure names the call and shows where the results
differ, what was expected and what came.
The history holds the messages themselves (one read over 64 KiB only as shown, long values
cut, so a big result you let go of is freed): --clear forgets them all.
  %mcp history
  %mcp history demo --last 5 --errors
  %mcp history --export replay.py
  %mcp history demo --export test_demo.py --pytest --exact --volatile elapsed_s
""",
)
def history(ctx: Context, tokens: list[str]) -> Any:
    parser = Parser("history")
    parser.add_argument("server", nargs="?")
    _last(parser)
    parser.add_argument("--errors", action="store_true")
    parser.add_argument("--export", metavar="PATH")
    parser.add_argument("--pytest", action="store_true")
    parser.add_argument("--exact", action="store_true")
    parser.add_argument("--volatile", metavar="A,B")
    parser.add_argument("--clear", action="store_true")
    opts = parser.parse(tokens)
    last = _checked_last("history", opts.last)
    if opts.clear:
        if opts.server or last is not None or opts.errors or opts.export:
            raise ArgumentError("%mcp history: --clear forgets every server's history; give it alone")
        ctx.client.clear_history()
        ctx.out("history cleared")
        return None
    if opts.server:
        server_named(ctx, opts.server)  # a name that is not known is a mistake, not an empty table
    if opts.export:
        if last is not None or opts.errors:
            raise ArgumentError("%mcp history: --export replays every successful call; drop --last and --errors")
        if (opts.exact or opts.volatile) and not opts.pytest:
            raise ArgumentError("%mcp history: --exact and --volatile go with --export PATH --pytest")
        volatile = [v.strip() for v in (opts.volatile or "").split(",") if v.strip()]
        try:
            text = ctx.client.export_history(
                opts.export, opts.server, pytest=opts.pytest, exact=opts.exact, volatile=volatile
            )
        except OSError as e:
            raise ArgumentError(f"%mcp history: cannot write {opts.export!r}: {e.strerror or e}") from None
        calls = text.count("result = ")
        plural = "s" if calls != 1 else ""
        how = f"pytest {opts.export}" if opts.pytest else f"python {opts.export}"
        ctx.out(f"wrote {opts.export}: {calls} call{plural} to {'test' if opts.pytest else 'replay'} ({how})")
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
