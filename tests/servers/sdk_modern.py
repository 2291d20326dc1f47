"""A server built on the official MCP SDK (``mcp.server.mcpserver.MCPServer``), dual-era as
the SDK makes it, or modern-only (2026-07-28) with ``--modern-only``: a middleware answers
``initialize`` with -32022, as a server that dropped the legacy era would.

    python tests/servers/sdk_modern.py [--modern-only] [--http PORT]

Tools: ``echo``, ``add``; ``book_table`` asks for a name and a party size through an
elicitation (``Resolve``/``Elicit``: an input-required round at 2026-07-28,
``elicitation/create`` before); ``ask_model`` samples the client; ``list_my_roots`` asks for
its roots; ``grow_tools`` adds a tool and says the tool list changed (to listeners on
``subscriptions/listen``); ``log_twice`` logs two lines. A resource ``memo://cached`` comes
with caching hints.
"""

from __future__ import annotations

import argparse
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp.shared.exceptions import MCPError
from mcp_types import ErrorData, SamplingMessage, TextContent
from pydantic import BaseModel

server = MCPServer("sdk-modern", version="2.0.0", instructions="A test server built on the official SDK.")


class Booking(BaseModel):
    name: str
    party: int = 2


def ask_booking() -> Elicit[Booking]:
    return Elicit("Who is the table for?", Booking)


def ask_model() -> Sample:
    return Sample([SamplingMessage(role="user", content=TextContent(type="text", text="Say hi"))], max_tokens=20)


def ask_roots() -> ListRoots:
    return ListRoots()


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def book_table(booking: Annotated[Booking, Resolve(ask_booking)], day: str = "today") -> str:
    """Book a table: asks who it is for."""
    return f"booked {booking.party} for {booking.name} {day}"


@server.tool()
def ask_llm(answer: Annotated[Any, Resolve(ask_model)]) -> str:
    """Ask the client's model to say hi."""
    content = getattr(answer, "content", None)
    return f"model said: {getattr(content, 'text', content)}"


@server.tool()
def list_my_roots(roots: Annotated[Any, Resolve(ask_roots)]) -> str:
    """Ask the client for its roots."""
    return "roots: " + ", ".join(str(r.uri) for r in getattr(roots, "roots", []))


@server.tool()
async def grow_tools(ctx: Context) -> str:
    """Add a tool named ``grown`` and say the tool list changed."""

    def grown() -> str:
        """A tool added at run time."""
        return "grown"

    server.add_tool(grown)
    await ctx.notify_tools_changed()
    return "added grown"


@server.tool()
async def log_twice(ctx: Context) -> str:
    """Log two lines (info, warning)."""
    await ctx.info("first line")
    await ctx.warning("second line")
    return "logged"


@server.resource("memo://cached", mime_type="text/plain")
def cached() -> str:
    """A memo with caching hints."""
    return "a memo"


# -- input-required rounds (mrtr): a form whose every field has a default ----------------


class Guest(BaseModel):
    name: str = "Guest"
    party: int = 2


def ask_guest() -> Elicit[Guest]:
    return Elicit("Who is coming?", Guest)


@server.tool()
def book_default(guest: Annotated[Guest, Resolve(ask_guest)]) -> str:
    """Book a table: asks who is coming (every field has a default)."""
    return f"booked {guest.party} for {guest.name}"


# -- end of mrtr's block ----------------------------------------------------------------


def modern_only(ctx: Any, call_next: Any) -> Any:
    if ctx.method == "initialize":
        raise MCPError.from_error_data(
            ErrorData(code=-32022, message="Unsupported protocol version", data={"supported": ["2026-07-28"]})
        )
    return call_next(ctx)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--modern-only", action="store_true")
    parser.add_argument("--http", type=int, metavar="PORT")
    opts = parser.parse_args()
    if opts.modern_only:
        server.middleware.append(modern_only)
    if opts.http is not None:
        server.run("streamable-http", host="127.0.0.1", port=opts.http)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
