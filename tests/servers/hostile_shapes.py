"""A stdio MCP server (raw JSON-RPC, no SDK) whose names and values are shaped to mislead
a listing, a prompt, a Markdown page or an exported test.

    python tests/servers/hostile_shapes.py

Tools:
- ``ec\\x1b[mho`` (destructive): a name that a terminal (and a stripped colour sequence) shows
  as ``echo``; ``sp\\u200bace`` (a zero-width space in it); ``e\\u034fcho`` (a combining
  grapheme joiner, which Python counts as printable, yet shows nothing). All return "ran".
- ``deep``: a structured result nested ``depth`` levels (default 300) deep.
- ``links``: a table (structured rows) whose cells hold raw HTML, Markdown links to
  ``javascript:`` and ``data:`` addresses, a plain ``http:`` address on the network, pipes,
  newlines, and one ``https:`` link.
- ``big``: ``lines`` lines of text (default 100,000: about 2.8 MB).
"""

from __future__ import annotations

import json
import sys

SNEAKY = "ec\x1b[mho"
INVISIBLE = "sp\u200bace"
IGNORABLE = "e\u034fcho"  # U+034F: printable to Python, invisible on a screen
DEEP = 300
ROWS = [
    {"name": "<img src=x onerror=alert(1)>", "link": "[click](javascript:alert(1))", "note": "a|b\nc & <b>d</b>"},
    {"name": "auto", "link": "<javascript:alert(2)>", "note": "see http://example.com/x and data:text/html,<b>x</b>"},
    {"name": "fine", "link": "[docs](https://docs.example/a)", "note": "local http://127.0.0.1:8000/ is fine"},
]


def nested(depth: int) -> object:
    value: object = "bottom"
    for level in range(depth):
        value = {"level": depth - level, "inner": value} if level % 2 else [value]
    return value


def tool(name: str, **extra: object) -> dict[str, object]:
    return {"name": name, "inputSchema": {"type": "object"}, **extra}


TOOLS = [
    tool(SNEAKY, annotations={"destructiveHint": True, "readOnlyHint": False}),
    tool(INVISIBLE, annotations={"destructiveHint": True, "readOnlyHint": False}),
    tool(IGNORABLE, annotations={"destructiveHint": True, "readOnlyHint": False}),
    tool("deep", inputSchema={"type": "object", "properties": {"depth": {"type": "integer"}}}),
    tool("links"),
    tool("big", inputSchema={"type": "object", "properties": {"lines": {"type": "integer"}}}),
]


def send(message: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def result(rid: object, value: dict[str, object]) -> None:
    send({"jsonrpc": "2.0", "id": rid, "result": value})


def call(rid: object, name: object, arguments: dict[str, object]) -> None:
    if name in (SNEAKY, INVISIBLE, IGNORABLE):
        result(rid, {"content": [{"type": "text", "text": "ran"}]})
    elif name == "deep":
        value = {"value": nested(int(arguments.get("depth", DEEP)))}  # type: ignore[call-overload]
        result(rid, {"content": [{"type": "text", "text": "deep"}], "structuredContent": value})
    elif name == "links":
        rows = {"rows": ROWS}
        result(rid, {"content": [{"type": "text", "text": json.dumps(rows)}], "structuredContent": rows})
    elif name == "big":
        lines = int(arguments.get("lines", 100_000))  # type: ignore[call-overload]
        text = "".join(f"line {i:07d} of the big text\n" for i in range(lines))
        result(rid, {"content": [{"type": "text", "text": text}]})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": "no such tool"}})


def main() -> None:
    for line in sys.stdin:
        msg = json.loads(line)
        method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
        if method == "initialize":
            info = {"name": "hostile-shapes", "version": "0"}
            answer = {"protocolVersion": params["protocolVersion"], "capabilities": {"tools": {}}, "serverInfo": info}
            result(rid, answer)
        elif method == "tools/list":
            result(rid, {"tools": TOOLS})
        elif method == "tools/call":
            call(rid, params.get("name"), params.get("arguments") or {})
        elif rid is not None and method == "ping":
            result(rid, {})
        elif rid is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no method {method}"}})


if __name__ == "__main__":
    main()
