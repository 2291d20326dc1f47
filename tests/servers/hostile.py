"""A hostile MCP server: messages that no well-behaved server sends, on cue.

    python tests/servers/hostile.py               (stdio)
    python tests/servers/hostile.py --http PORT   (Streamable HTTP on 127.0.0.1:PORT/mcp)

Tools: ``echo`` answers normally; ``bad`` with ``{"kind": K}`` sends the malformed message
``BAD[K]`` immediately before its reply, in the same write (stdio) or the same reply stream
(HTTP); ``bad_reply`` with ``{"kind": K}`` answers with ``BAD_REPLIES[K]``, a broken reply.
Over HTTP the server's own stream (GET) sends every ``BAD`` message, then a log message
"still listening". ``bracketed`` returns a resource link to ``BRACKETED``, an address with
brackets that hold no IP address (Python's URL parsing raises on it); the one resource
listed has it too.

To add a kind, add an entry to ``BAD`` or ``BAD_REPLIES``: a function of the call's request
id and progress token that returns the raw line (without the newline).
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Line = Callable[[Any, Any], bytes]


def _json(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()


def _note(method: str, params: Any) -> bytes:
    return _json({"jsonrpc": "2.0", "method": method, "params": params})


def _progress(token: Any, **params: Any) -> bytes:
    return _note("notifications/progress", {"progressToken": token, **params})


# Malformed messages, each sent just before a good reply.
BAD: dict[str, Line] = {
    "progress-params-string": lambda rid, token: _note("notifications/progress", "half done"),
    "progress-params-list": lambda rid, token: _note("notifications/progress", [token, 1]),
    "log-params-list": lambda rid, token: _note("notifications/message", ["error", "disk full"]),
    "log-params-string": lambda rid, token: _note("notifications/message", "disk full"),
    "log-level-not-text": lambda rid, token: _note("notifications/message", {"level": ["loud"], "data": "x"}),
    "cancelled-params-string": lambda rid, token: _note("notifications/cancelled", "s1"),
    "cancelled-id-object": lambda rid, token: _note("notifications/cancelled", {"requestId": {"id": 1}}),
    "progress-token-object": lambda rid, token: _progress({"token": token}, progress=1),
    "progress-token-list": lambda rid, token: _progress([token], progress=1),
    "progress-total-string": lambda rid, token: _progress(token, progress=1, total="xyz"),
    "progress-string": lambda rid, token: _progress(token, progress="half"),
    "updated-uri-number": lambda rid, token: _note("notifications/resources/updated", {"uri": 7}),
    "request-id-object": lambda rid, token: _json({"jsonrpc": "2.0", "id": {"n": 1}, "method": "ping"}),
    "request-id-list": lambda rid, token: _json({"jsonrpc": "2.0", "id": [1], "method": "ping"}),
    "request-params-string": lambda rid, token: _json({"jsonrpc": "2.0", "id": "p1", "method": "ping", "params": "x"}),
    "response-id-object": lambda rid, token: _json({"jsonrpc": "2.0", "id": {"n": rid}, "result": {}}),
    "method-number": lambda rid, token: _json({"jsonrpc": "2.0", "method": 42, "params": {}}),
    "not-jsonrpc-2": lambda rid, token: _json({"jsonrpc": "1.0", "method": "notifications/message", "params": {}}),
    "nested-too-deep": lambda rid, token: (
        b'{"jsonrpc":"2.0","method":"notifications/message","params":'
        b'{"level":"info","data":' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
    ),
    "undecodable-notification": lambda rid, token: (
        b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"caf\xe9"}}'
    ),
}

# Broken replies to the call itself. LATIN1 is a result with a Latin-1 "é": not UTF-8.
LATIN1 = b'{"content":[{"type":"text","text":"caf\xe9"}]}'
BAD_REPLIES: dict[str, Line] = {
    "undecodable": lambda rid, token: b'{"jsonrpc":"2.0","id":%s,"result":%s}' % (json.dumps(rid).encode(), LATIN1),
    "undecodable-id-last": lambda rid, token: (
        b'{"result":%s,"jsonrpc":"2.0","id":%s}' % (LATIN1, json.dumps(rid).encode())
    ),
    "truncated": lambda rid, token: (
        b'{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"te' % json.dumps(rid).encode()
    ),
}

# Brackets that hold no IP address: Python's URL parsing raises on it.
BRACKETED = "https://[x]/?api_key=s3cret-value"

TOOLS = [
    {"name": "echo", "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}}},
    {"name": "bad", "inputSchema": {"type": "object", "properties": {"kind": {"enum": sorted(BAD)}}}},
    {"name": "bad_reply", "inputSchema": {"type": "object", "properties": {"kind": {"enum": sorted(BAD_REPLIES)}}}},
    {"name": "log", "inputSchema": {"type": "object"}},  # sends its arguments as a log message's params
    {"name": "bracketed", "inputSchema": {"type": "object"}},  # a resource link to BRACKETED
]


PROMPTS = [
    5,
    {"name": 7},
    {"name": "mangled", "title": ["not", "text"], "arguments": [{"name": "a", "required": True}, "junk", {"b": 1}]},
]


def _reply(rid: Any, result: dict[str, Any]) -> bytes:
    return _json({"jsonrpc": "2.0", "id": rid, "result": result})


def _text(rid: Any, text: str) -> bytes:
    return _reply(rid, {"content": [{"type": "text", "text": text}]})


def answer(message: dict[str, Any]) -> list[bytes]:
    """The lines to send for one message from the client (none for a notification)."""
    method, rid, params = message.get("method"), message.get("id"), message.get("params") or {}
    if method is None or rid is None:
        return []
    if method == "initialize":
        info = {"name": "hostile", "version": "0"}
        caps = {"tools": {}, "logging": {}, "resources": {"subscribe": True}, "prompts": {}}
        return [_reply(rid, {"protocolVersion": params["protocolVersion"], "capabilities": caps, "serverInfo": info})]
    if method == "tools/list":
        return [_reply(rid, {"tools": TOOLS})]
    if method == "prompts/list":  # entries a listing cannot use, and one with mistyped fields
        return [_reply(rid, {"prompts": PROMPTS})]
    if method == "resources/list":  # an address with brackets that is no IP address
        return [_reply(rid, {"resources": [{"uri": BRACKETED, "name": "bracketed"}]})]
    if method == "resources/read":
        return [_reply(rid, {"contents": [{"uri": params.get("uri"), "text": "read"}]})]
    if method == "prompts/get":
        return [_reply(rid, {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]})]
    if method == "ping":
        return [_reply(rid, {})]
    if method == "tools/call":
        name, arguments = params.get("name"), params.get("arguments") or {}
        token = (params.get("_meta") or {}).get("progressToken", rid)
        if name == "echo":
            return [_text(rid, arguments.get("message", ""))]
        if name == "bad":
            return [BAD[arguments["kind"]](rid, token), _text(rid, f"after {arguments['kind']}")]
        if name == "bad_reply":
            return [BAD_REPLIES[arguments["kind"]](rid, token)]
        if name == "bracketed":
            return [_reply(rid, {"content": [{"type": "resource_link", "uri": BRACKETED, "name": "bracketed"}]})]
        if name == "log":
            return [_note("notifications/message", arguments), _text(rid, "logged")]
    return [_json({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no method {method}"}})]


def serve_stdio() -> None:
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        message = json.loads(raw)
        if isinstance(message, dict) and "method" not in message:
            sys.stderr.write(f"reply to {message.get('id')}: {json.dumps(message)}\n")
            sys.stderr.flush()
            continue
        lines = answer(message)
        if lines:
            out.write(b"".join(line + b"\n" for line in lines))  # one write: one buffer for the client
            out.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def _stream(self, lines: list[bytes], extra: dict[str, str] | None = None) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(b"".join(b"event: message\ndata: " + line + b"\n\n" for line in lines))
        self.wfile.flush()
        self.close_connection = True

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        lines = answer(message)
        if not lines:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self._stream(lines, {"Mcp-Session-Id": "hostile-1"} if message.get("method") == "initialize" else None)

    def do_GET(self) -> None:
        still = _note("notifications/message", {"level": "info", "data": "still listening"})
        self._stream([line(0, 0) for line in BAD.values()] + [still])
        threading.Event().wait()  # the client keeps the stream: do not make it reconnect

    def do_DELETE(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:
        ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()
    else:
        serve_stdio()
