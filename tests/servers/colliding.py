"""A stdio MCP server whose tools have exactly the names it is given, to collide with
another server's qualified names (or with the names Python and IPython use).

    python tests/servers/colliding.py LABEL TOOL [TOOL...]

A TOOL starting with ``{`` is a whole tool definition in JSON (its own inputSchema, even a
broken one). Each tool answers "LABEL:TOOL", so a test sees which server a call reached,
and the arguments it got as its structured result. A plain JSON-RPC loop: it starts fast
and does exactly this.
"""

from __future__ import annotations

import json
import sys


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def serve(label: str, names: list[str]) -> None:
    tools = [
        json.loads(name) if name.startswith("{") else {"name": name, "inputSchema": {"type": "object"}}
        for name in names
    ]
    for line in sys.stdin:
        msg = json.loads(line)
        method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
        if method == "initialize":
            info = {"name": label, "version": "0"}
            result = {"protocolVersion": params["protocolVersion"], "capabilities": {"tools": {}}, "serverInfo": info}
        elif method == "tools/list":
            result = {"tools": tools}
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": f"{label}:{params.get('name')}"}]}
            if params.get("arguments"):
                result["structuredContent"] = {"arguments": params["arguments"]}
        elif method == "ping":
            result = {}
        elif rid is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no method {method}"}})
            continue
        else:
            continue
        send({"jsonrpc": "2.0", "id": rid, "result": result})


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2:])
