"""A misbehaving Streamable HTTP MCP server: faults real servers do not produce on cue.

    python tests/servers/faulty_http.py PORT [CERT KEY]   (with CERT and KEY: over HTTPS)

/ok/mcp serves initialize, tools/list and tools/call; the tool decides the fault:
echo (fine), big (an SSE event far over any limit), bigjson (a JSON body far over it), cut
(an SSE reply stream that closes before the reply), garbage (200 application/json that is
not JSON), hang (never answers), resumable (a reply stream that closes after an event id
and a retry field; GET with that Last-Event-ID brings the reply), forget (answers, then
forgets every session: later requests on them get 404), bom (a JSON body with a UTF-8
byte-order mark). GET /ok/counts says how many
times each tool was called.
/html/mcp answers everything with an HTML 500 page; /auth/mcp with 401; /forbidden/mcp
with 403; /down/mcp with a plain-text 503; /silent/mcp never answers initialize;
/unknown/mcp answers every POST as a modern server answers a method it does not know: HTTP
404 with a JSON-RPC -32601 error. /busy/mcp serves as /ok does, but answers the first
tools/call of each ``key`` argument with a plain-text HTTP 503 and ``Retry-After: 7``, the
second with HTTP 429 carrying a JSON-RPC error and ``Retry-After: 5`` (counted as busy:KEY;
the waits are long so that a test shows it was asked for them without waiting them).
Legacy HTTP+SSE at /busy-sse/sse: its endpoint answers on the stream, but the first
tools/call of each ``key`` with a plain-text HTTP 503 and ``Retry-After: 7`` (busy-sse:KEY).
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from http.server import ThreadingHTTPServer

from httpbase import QuietHandler

NAMES = ("echo", "big", "bigjson", "cut", "garbage", "hang", "resumable", "forget", "bom")
TOOLS = [{"name": n, "inputSchema": {"type": "object"}} for n in NAMES]
SESSIONS: set[str] = set()
COUNTS: dict[str, int] = {}
HELD: dict[str, int] = {}  # Last-Event-ID -> the request id whose reply it resumes
LEGACY: list[Callable[[dict], None]] = []  # the open legacy stream's writer (the latest)


class Handler(QuietHandler):
    def do_GET(self) -> None:
        if self.path == "/ok/counts":
            return self.reply(200, "application/json", json.dumps(COUNTS).encode())
        if self.path == "/busy-sse/sse":
            return self._legacy_stream()
        rid = HELD.pop(self.headers.get("Last-Event-ID", ""), None)
        if rid is None:
            return self.reply(405, "text/plain", b"no stream here")
        reply = {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "resumed"}]}}
        self.reply(200, "text/event-stream", f"id: r-2\ndata: {json.dumps(reply)}\n\n".encode())

    def do_DELETE(self) -> None:
        self.reply(200, "text/plain", b"")

    def _legacy_stream(self) -> None:
        """A legacy event stream: it names the endpoint, carries the replies, and stays open."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        lock = threading.Lock()
        gone = threading.Event()

        def write(text: str) -> None:
            with lock:
                try:
                    self.wfile.write(text.encode())
                    self.wfile.flush()
                except OSError:
                    gone.set()

        LEGACY.append(lambda message: write(f"event: message\ndata: {json.dumps(message)}\n\n"))
        write("event: endpoint\ndata: /busy-sse/messages\n\n")
        while not gone.wait(0.5):
            write(": keep-alive\n\n")  # a failed write: the client went away

    def _legacy_post(self, message: dict) -> None:
        method, rid = message.get("method"), message.get("id")
        if method == "tools/call":
            key = f"busy-sse:{message['params'].get('arguments', {}).get('key')}"
            COUNTS[key] = COUNTS.get(key, 0) + 1
            if COUNTS[key] == 1:
                return self.reply(503, "text/plain", b"busy, try again", {"Retry-After": "7"})
        self.reply(202, "text/plain", b"")
        if rid is None:
            return
        result: dict = {"content": [{"type": "text", "text": "fine"}]}
        if method == "initialize":
            info = {"name": "faulty-http", "version": "0"}
            result = {"protocolVersion": "2024-11-05", "capabilities": {"tools": {}}, "serverInfo": info}
        elif method == "tools/list":
            result = {"tools": TOOLS}
        LEGACY[-1]({"jsonrpc": "2.0", "id": rid, "result": result})

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        if self.path == "/busy-sse/messages":
            return self._legacy_post(message)
        if self.path.startswith("/html"):
            return self.reply(500, "text/html", b"<html><body><h1>Internal Server Error</h1></body></html>")
        if self.path.startswith("/auth"):
            return self.reply(401, "text/plain", b"missing token", {"WWW-Authenticate": "Bearer"})
        if self.path.startswith("/forbidden"):
            return self.reply(403, "text/plain", b"not for you")
        if self.path.startswith("/down"):
            return self.reply(503, "text/plain", b"upstream unavailable, try later")
        if self.path.startswith("/silent"):
            time.sleep(3600)
        if self.path.startswith("/unknown"):
            error = {"code": -32601, "message": f"Method not found: {message.get('method')}"}
            body = json.dumps({"jsonrpc": "2.0", "id": message.get("id"), "error": error}).encode()
            return self.reply(404, "application/json", body)
        method, rid = message.get("method"), message.get("id")
        session = self.headers.get("Mcp-Session-Id")
        if method != "initialize" and session not in SESSIONS:
            body = b'{"jsonrpc": "2.0", "error": {"code": -32001, "message": "no such session"}}'
            return self.reply(404, "application/json", body)
        if rid is None:
            return self.reply(202, "text/plain", b"")

        def reply(result: dict, extra: dict[str, str] | None = None) -> None:
            body = json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode()
            self.reply(200, "application/json", body, extra)

        if method == "initialize":
            session = f"s-{len(SESSIONS) + 1}-{time.monotonic_ns()}"
            SESSIONS.add(session)
            info = {"name": "faulty-http", "version": "0"}
            version = message["params"]["protocolVersion"]
            result = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
            return reply(result, {"Mcp-Session-Id": session})
        if method == "tools/list":
            return reply({"tools": TOOLS})
        name = message["params"]["name"]
        if self.path.startswith("/busy"):
            key = f"busy:{message['params'].get('arguments', {}).get('key')}"
            COUNTS[key] = COUNTS.get(key, 0) + 1
            if COUNTS[key] == 1:
                return self.reply(503, "text/plain", b"busy, try again", {"Retry-After": "7"})
            if COUNTS[key] == 2:
                error = {"code": -32000, "message": "rate limited"}
                body = json.dumps({"jsonrpc": "2.0", "id": rid, "error": error}).encode()
                return self.reply(429, "application/json", body, {"Retry-After": "5"})
        COUNTS[name] = COUNTS.get(name, 0) + 1
        if name == "echo":
            return reply({"content": [{"type": "text", "text": "fine"}]})
        if name == "bom":  # JSON with a UTF-8 byte-order mark, which JSON readers take
            body = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "café"}]}})
            return self.reply(200, "application/json", b"\xef\xbb\xbf" + body.encode())
        if name == "forget":
            SESSIONS.clear()
            return reply({"content": [{"type": "text", "text": "forgotten"}]})
        if name == "bigjson":
            return reply({"content": [{"type": "text", "text": "x" * 3_000_000}]})
        if name == "garbage":
            return self.reply(200, "application/json", b"{this is not json")
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
        if name == "resumable":
            HELD["r-1"] = rid
            self.wfile.write(b"id: r-1\nretry: 100\ndata: \n\n")
        self.wfile.flush()  # "cut": headers, then the stream ends with no reply
        self.close_connection = True


if __name__ == "__main__":
    httpd = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    if len(sys.argv) > 3:  # PORT CERT KEY: serve HTTPS with that certificate
        import ssl

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[2], sys.argv[3])
        httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    httpd.serve_forever()
