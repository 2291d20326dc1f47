"""The Python API: connect to a real MCP server from Python and use it.

    .venv/bin/python examples/python_api.py   # against @modelcontextprotocol/server-everything

It shows the server, its tools, a tool call, a resource, a prompt and progress reports.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from mcp_notebook import get_client

ROOT = Path(__file__).resolve().parent.parent
EVERYTHING = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"


def main() -> int:
    node = shutil.which("node")
    if node is None or not EVERYTHING.exists():
        print("quickstart: needs Node.js and `npm ci` (scripts/setup does both)", file=sys.stderr)
        return 1
    client = get_client()
    server = client.add("everything", node, [str(EVERYTHING), "stdio"])
    info = server.server_info
    print(f"connected to {info['name']} {info['version']} (protocol {server.protocol_version})\n")

    tools = server.list_tools()
    print(f"{len(tools)} tools:")
    for tool in tools:
        flags = "read-only" if tool.read_only else ("destructive" if tool.destructive else "")
        print(f"  {tool.qualified_name:48} {flags}")

    print("\necho:", server.call_tool("echo", {"message": "hello from mcp-notebook"}).text)
    print("get-sum 2 + 40:", server.call_tool("get-sum", {"a": 2, "b": 40}).text)

    resource = server.list_resources()[0]
    text = server.read_resource(resource.uri).text
    print(f"\nresource {resource.uri} ({resource.mime_type}): {text.splitlines()[0]}")

    prompt = server.get_prompt("args-prompt", {"city": "Lisbon"})
    print("prompt args-prompt:", prompt.text)

    def progress(done: float, total: float | None, message: str | None) -> None:
        print(f"  progress {done:g}/{total:g}" if total else f"  progress {done:g}")

    print("\na slow tool that reports progress:")
    print(server.call_tool("trigger-long-running-operation", {"duration": 1, "steps": 3}, on_progress=progress).text)
    client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
