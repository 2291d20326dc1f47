"""A server written for the 2025-11-25 era on fastmcp 4 (a third-party framework on the
official SDK): its tool asks the person with ``ctx.elicit`` mid-call, a request of the
server's own, which a 2026-07-28 connection cannot carry.

    python tests/servers/fastmcp_asker.py
"""

from __future__ import annotations

from fastmcp import Context, FastMCP

server = FastMCP("fastmcp-asker")


@server.tool
async def book_table(ctx: Context, day: str = "today") -> str:
    """Book a table: asks who it is for."""
    answer = await ctx.elicit("Who is the table for?", response_type=str)
    if answer.action != "accept":
        return f"not booked ({answer.action})"
    return f"booked for {answer.data} {day}"


if __name__ == "__main__":
    server.run(show_banner=False)
