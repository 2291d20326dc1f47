"""A real MCP server built on the official SDK's low-level Server, over stdio.

It pages every listing (PAGE items a page), can add a tool at run time and announce it
with notifications/tools/list_changed (and change ``tool_000``'s schema: call it with x=3),
and answers a slow tool with progress.
Run: python tests/servers/paged_server.py [N_TOOLS [PAGE_SIZE]]
"""

from __future__ import annotations

import sys

import anyio
from mcp import types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server

N = int(sys.argv[1]) if len(sys.argv) > 1 else 25
PAGE = int(sys.argv[2]) if len(sys.argv) > 2 else 10
tools = [
    types.Tool(
        name=f"tool_{i:03d}",
        description=f"Tool number {i}",
        input_schema={"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
    )
    for i in range(N)
]
resources = [types.Resource(uri=f"paged://item/{i}", name=f"item {i}", mime_type="text/plain") for i in range(23)]
prompts = [types.Prompt(name=f"prompt_{i}", description=f"Prompt {i}") for i in range(12)]


def page(items: list, params: types.PaginatedRequestParams | None) -> tuple[list, str | None]:
    start = int(params.cursor) if params and params.cursor else 0
    end = start + PAGE
    return items[start:end], (str(end) if end < len(items) else None)


async def list_tools(ctx, params):  # type: ignore[no-untyped-def]
    items, cursor = page(tools, params)
    return types.ListToolsResult(tools=items, next_cursor=cursor)


async def list_resources(ctx, params):  # type: ignore[no-untyped-def]
    items, cursor = page(resources, params)
    return types.ListResourcesResult(resources=items, next_cursor=cursor)


async def list_prompts(ctx, params):  # type: ignore[no-untyped-def]
    items, cursor = page(prompts, params)
    return types.ListPromptsResult(prompts=items, next_cursor=cursor)


async def read_resource(ctx, params):  # type: ignore[no-untyped-def]
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=params.uri, text=f"contents of {params.uri}", mime_type="text/plain")]
    )


async def call_tool(ctx, params):  # type: ignore[no-untyped-def]
    if params.name == "add_tool":
        tools.append(types.Tool(name="added_later", input_schema={"type": "object"}))
        await ctx.session.send_tool_list_changed()
        return types.CallToolResult(content=[types.TextContent(type="text", text="added")])
    x = (params.arguments or {}).get("x")
    if params.name == "tool_000" and x == 3:
        # Its schema changes under a caller mid-map: from now on it also needs "y".
        tools[0] = types.Tool(
            name="tool_000",
            description="Tool number 0, changed",
            input_schema={
                "type": "object",
                "properties": {"x": {"type": "integer"}, "y": {"type": "string"}},
                "required": ["x", "y"],
            },
        )
        await ctx.session.send_tool_list_changed()
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"{params.name}({x})")])


tools.append(types.Tool(name="add_tool", input_schema={"type": "object"}))

server = Server(
    "paged-server",
    version="1.0.0",
    on_list_tools=list_tools,
    on_call_tool=call_tool,
    on_list_resources=list_resources,
    on_read_resource=read_resource,
    on_list_prompts=list_prompts,
)


async def main() -> None:
    async with stdio_server() as (read, write):
        options = server.create_initialization_options(NotificationOptions(tools_changed=True))
        await server.run(read, write, options)


if __name__ == "__main__":
    anyio.run(main)
