"""A hostile HTTP MCP server: what a broken or malicious remote server may send on purpose.

    python tests/servers/hostile_http.py PORT [ELSEWHERE]

ELSEWHERE (another origin, e.g. a second copy of this server on another port) is where the
redirects point. Every request but GET /counts is counted: a copy that stands for
"elsewhere" proves that nothing reached it.

Streamable HTTP, at /NAME/mcp:
  endless   initialize, tools/list and ping answer normally; tools/call ``keepalive`` opens
            a reply stream that sends only keep-alive comments, forever; ``hang`` never
            answers at all (no headers); ``tail`` answers, then keeps the stream open with
            keep-alive comments; ``echo`` answers on a stream that then ends; ``badid``
            sends an event whose id cannot go in a Last-Event-ID header, then ends the
            stream before answering.
  sid-nonascii, sid-huge, sid-crlf   initialize answers with that MCP-Session-Id
            (a non-ASCII character; 100 KB; a bare CR inside).
  redirect  every POST and GET answers 307 to ELSEWHERE/mcp.
  redirect-later   initialize answers; every later request answers 307 to
            ELSEWHERE/mcp?token=hostile-secret.
Legacy HTTP+SSE:
  /redirect-sse/sse        the GET answers 307 to ELSEWHERE/sse.
  /redirect-post/sse       the stream names /redirect-post/messages, which answers 307.
  /cross-sse/sse           the stream names an endpoint on ELSEWHERE.
  /hang-post/sse           the endpoint answers initialize (on the stream), then never
                           answers a POST again.
  /no-endpoint/sse         the stream ends without naming an endpoint.
GET /counts: {"requests": how many requests came, "open": reply streams open now}.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from typing import Any

from httpbase import QuietHandler

ELSEWHERE = sys.argv[2] if len(sys.argv) > 2 else "http://127.0.0.1:9"
TOOLS = [{"name": n, "inputSchema": {"type": "object"}} for n in ("echo", "keepalive", "hang", "tail", "badid")]
LOCK = threading.Lock()
COUNTS = {"requests": 0, "open": 0}
LEGACY: dict[str, Any] = {}  # path prefix -> the open legacy stream's write function
# Header values are written as latin-1 by http.server: these are the raw bytes on the wire.
SESSION_IDS = {
    "sid-nonascii": "s-caf\u00e9".encode().decode("latin-1"),
    "sid-huge": "s" * 100_000,
    "sid-crlf": "s-1\rx",
}


def _count(key: str, by: int) -> None:
    with LOCK:
        COUNTS[key] += by


class Handler(QuietHandler):
    def _redirect(self, to: str) -> None:
        self.send_response(307)
        self.send_header("Location", to)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _open_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _keep_alive(self) -> None:
        """Keep-alive comments until the client goes away."""
        _count("open", 1)
        try:
            while True:
                self.wfile.write(b": keep-alive\n\n")
                self.wfile.flush()
                time.sleep(0.05)
        except OSError:
            pass
        finally:
            _count("open", -1)

    def do_GET(self) -> None:
        if self.path == "/counts":
            with LOCK:
                return self.reply(200, "application/json", json.dumps(COUNTS).encode())
        _count("requests", 1)
        prefix = self.path.split("/")[1]
        if prefix in ("redirect", "redirect-sse"):
            return self._redirect(f"{ELSEWHERE}/{'mcp' if prefix == 'redirect' else 'sse'}")
        if prefix == "no-endpoint":
            return self._open_stream()
        if prefix in ("redirect-post", "cross-sse", "hang-post"):
            endpoint = f"{ELSEWHERE}/messages" if prefix == "cross-sse" else f"/{prefix}/messages"
            self._open_stream()
            lock = threading.Lock()

            def write(event: str, data: str) -> None:
                with lock:
                    self.wfile.write(f"event: {event}\ndata: {data}\n\n".encode())
                    self.wfile.flush()

            LEGACY[prefix] = write
            write("endpoint", endpoint)
            return self._keep_alive()
        self.reply(405, "text/plain", b"no stream here")

    def do_DELETE(self) -> None:
        _count("requests", 1)
        self.reply(200, "text/plain", b"")

    def do_POST(self) -> None:
        _count("requests", 1)
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        prefix = self.path.split("/")[1]
        method, rid = message.get("method"), message.get("id")
        if prefix == "redirect":
            return self._redirect(f"{ELSEWHERE}/mcp")
        if prefix == "redirect-later" and method != "initialize" and rid is not None:
            return self._redirect(f"{ELSEWHERE}/mcp?token=hostile-secret")
        if prefix == "redirect-post":
            return self._redirect(f"{ELSEWHERE}/messages")
        result: dict[str, Any] = {}
        if method == "initialize":
            info = {"name": "hostile-http", "version": "0"}
            version = message["params"]["protocolVersion"]
            result = {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info}
        elif method == "tools/list":
            result = {"tools": TOOLS}
        if prefix == "hang-post":
            if method == "initialize":
                LEGACY[prefix]("message", json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}))
                return self.reply(202, "text/plain", b"")
            if rid is None:
                return self.reply(202, "text/plain", b"")
            time.sleep(3600)
        if rid is None:
            return self.reply(202, "text/plain", b"")
        reply = json.dumps({"jsonrpc": "2.0", "id": rid, "result": result})
        if method == "initialize":
            session = SESSION_IDS.get(prefix, "s-1")
            return self.reply(200, "application/json", reply.encode(), {"Mcp-Session-Id": session})
        name = (message.get("params") or {}).get("name")
        if method == "tools/call" and name == "hang":
            time.sleep(3600)
        self._open_stream()
        if method == "tools/call" and name == "keepalive":
            return self._keep_alive()
        if method == "tools/call" and name == "badid":
            self.wfile.write("id: caf\u00e9-1\nretry: 10\ndata: \n\n".encode())
            return
        if method == "tools/call":
            reply = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": name}]}})
        self.wfile.write(f"event: message\ndata: {reply}\n\n".encode())
        self.wfile.flush()
        if method == "tools/call" and name == "tail":
            self._keep_alive()


class Server(ThreadingHTTPServer):
    daemon_threads = True


if __name__ == "__main__":
    Server(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
