"""A misbehaving Streamable HTTP MCP server: faults real servers do not produce on cue.

    python tests/servers/faulty_http.py PORT

/ok/mcp serves initialize, tools/list and tools/call; the tool decides the fault:
echo (fine), big (an SSE event far over any limit), cut (an SSE reply stream that closes
before the reply), garbage (200 application/json that is not JSON), hang (never answers).
/html/mcp answers everything with an HTML 500 page; /auth/mcp with 401.
"""

from __future__ import annotations

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOOLS = [{"name": n, "inputSchema": {"type": "object"}} for n in ("echo", "big", "cut", "garbage", "hang")]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, status: int, kind: str, body: bytes, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self._send(405, "text/plain", b"no stream here")

    def do_DELETE(self) -> None:
        self._send(200, "text/plain", b"")

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        if self.path.startswith("/html"):
            return self._send(500, "text/html", b"<html><body><h1>Internal Server Error</h1></body></html>")
        if self.path.startswith("/auth"):
            return self._send(401, "text/plain", b"missing token", {"WWW-Authenticate": "Bearer"})
        method, rid = message.get("method"), message.get("id")
        if rid is None:
            return self._send(202, "text/plain", b"")

        def reply(result: dict) -> None:
            body = json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode()
            self._send(200, "application/json", body, {"Mcp-Session-Id": "s-1"})

        if method == "initialize":
            return reply({"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                          "serverInfo": {"name": "faulty-http", "version": "0"}})  # fmt: skip
        if method == "tools/list":
            return reply({"tools": TOOLS})
        name = message["params"]["name"]
        if name == "echo":
            return reply({"content": [{"type": "text", "text": "fine"}]})
        if name == "garbage":
            return self._send(200, "application/json", b"{this is not json")
        if name == "hang":
            time.sleep(30)
            return None
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        if name == "big":
            data = json.dumps(
                {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "x" * 3_000_000}]}}
            )
            self.wfile.write(f"event: message\ndata: {data}\n\n".encode())
        self.wfile.flush()  # "cut": headers, then the stream ends with no reply
        self.close_connection = True


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
