"""A server built on the official MCP SDK (``mcp.server.mcpserver.MCPServer``), dual-era as
the SDK makes it, or modern-only (2026-07-28) with ``--modern-only``: a middleware answers
``initialize`` with -32022, as a server that dropped the legacy era would.

    python tests/servers/sdk_modern.py [--modern-only] [--http PORT]

Tools: ``echo``, ``add``; ``book_table`` asks for a name and a party size through an
elicitation (``Resolve``/``Elicit``: an input-required round at 2026-07-28,
``elicitation/create`` before); ``ask_model`` samples the client; ``list_my_roots`` asks for
its roots; ``ask_the_old_way`` asks with ``ctx.elicit`` (a server-initiated request, which
the SDK cannot send at 2026-07-28); ``grow_tools`` adds a tool and says the tool list changed (to listeners on
``subscriptions/listen``); ``log_twice`` logs two lines. A resource ``memo://cached`` comes
with caching hints. ``--header-tools`` adds ``route`` (an x-mcp-header argument) and
``spoiled`` (listed with an invalid one). ``meet`` counts the calls in flight at once.
"""

from __future__ import annotations

import argparse
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp.shared.exceptions import MCPError
from mcp_types import ErrorData, SamplingMessage, TextContent
from pydantic import BaseModel, Field
from serving import serve

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
async def ask_the_old_way(ctx: Context) -> str:
    """Asks with ``ctx.elicit`` (a server-initiated request): at 2026-07-28 the SDK cannot send it."""
    answer = await ctx.elicit("Who is the table for?", Booking)
    return f"asked: {answer.action}"


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


# -- headers (helper "http"): with --header-tools, a tool whose argument goes in a header
# (x-mcp-header: the SDK checks the client's Mcp-Param-Region against the body, -32020 when
# it is missing or wrong) and one whose annotation was spoiled after registration (the SDK
# refuses an invalid one at registration; a broken server lists it anyway).


def route(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})], note: str = "") -> str:
    """Route by region (the region goes in the Mcp-Param-Region header)."""
    return f"routed to {region}{' ' + note if note else ''}"


def spoiled(value: str) -> str:
    """Listed with an invalid x-mcp-header (a space in the header name)."""
    return value


def add_header_tools() -> None:
    server.add_tool(route)
    server.add_tool(spoiled)
    schema = server._tool_manager.get_tool("spoiled").parameters  # a broken server, on purpose
    schema["properties"]["value"]["x-mcp-header"] = "Bad Name"


# -- subscriptions, logging and caching hints (tests/test_modern_features.py) -------------
# ``request_count(method)`` says how many requests of ``method`` the server got (a cached
# listing is one it did not get); ``touch_memo`` says memo://cached was updated (to those
# subscribed through subscriptions/listen or resources/subscribe); ``--ttl-ms N`` puts
# ``ttlMs: N`` on listings and reads (public listings, private reads).

REQUESTS: dict[str, int] = {}


def count_requests(ctx: Any, call_next: Any) -> Any:
    REQUESTS[ctx.method] = REQUESTS.get(ctx.method, 0) + 1
    return call_next(ctx)


server.middleware.append(count_requests)


@server.tool()
def request_count(method: str) -> int:
    """How many requests of ``method`` this server got."""
    return REQUESTS.get(method, 0)


@server.tool()
async def touch_memo(ctx: Context) -> str:
    """Say memo://cached was updated."""
    await ctx.notify_resource_updated("memo://cached")
    return "touched"


def cache_for(ttl_ms: int) -> None:
    from mcp.server.caching import CacheHint

    hints = server._lowlevel_server.cache_hints  # (MCPServer takes them only when built)
    for method in ("tools/list", "prompts/list", "resources/list", "resources/templates/list"):
        hints[method] = CacheHint(ttl_ms=ttl_ms, scope="public")
    hints["resources/read"] = CacheHint(ttl_ms=ttl_ms, scope="private")


# -- end of subscriptions, logging and caching hints -------------------------------------


# -- calls in flight (a client's maxConcurrency) -------------------------------------------
# ``meet(together)`` waits (20 s at most) until ``together`` calls of it are in flight at
# once, reporting progress as it starts; it says whether they met and the most ever in flight.

ROOM: dict[str, Any] = {"now": 0, "peak": 0, "gate": None}


@server.tool()
async def meet(together: int, ctx: Context) -> dict[str, Any]:
    """Wait until ``together`` calls of meet are in flight at once (20 s at most)."""
    import asyncio

    ROOM["now"] += 1
    ROOM["peak"] = max(ROOM["peak"], ROOM["now"])
    gate = ROOM["gate"] = ROOM["gate"] or asyncio.Event()
    if ROOM["now"] >= together:
        gate.set()  # everyone waiting at this gate goes; later calls wait at a new one
        ROOM["gate"] = None
    try:
        await ctx.report_progress(ROOM["now"], None, "in flight")
        try:
            await asyncio.wait_for(gate.wait(), 20)
            met = True
        except asyncio.TimeoutError:
            met = False
    finally:
        ROOM["now"] -= 1
    return {"met": met, "peak": ROOM["peak"]}


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
    parser.add_argument("--header-tools", action="store_true")
    parser.add_argument("--ttl-ms", type=int, default=None)
    opts = parser.parse_args()
    if opts.header_tools:
        add_header_tools()
    if opts.ttl_ms is not None:
        cache_for(opts.ttl_ms)
    if opts.modern_only:
        server.middleware.append(modern_only)
    serve(server, opts.http)


if __name__ == "__main__":
    main()
