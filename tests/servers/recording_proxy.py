"""A reverse proxy that records what an HTTP MCP client sends, and cuts reply streams on cue.

    python tests/servers/recording_proxy.py PORT UPSTREAM_URL LOG [--cut METHOD]...

Every request (GET, POST, DELETE) is written to LOG as one JSON line (its HTTP method, its
headers, its JSON body) before it is passed on to UPSTREAM_URL, so a client that has its
answer finds the request logged. ``--cut METHOD``: the first POST of that JSON-RPC method
gets a 200 event stream that closes before any event (a reply stream broken in transit);
later ones pass.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx

UPSTREAM = ""
LOG = ""
CUT: set[str] = set()
LOCK = threading.Lock()
HOP = {"host", "content-length", "connection", "transfer-encoding", "keep-alive"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def _handle(self) -> None:
        size = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(size) if size else b""
        try:
            message = json.loads(body) if body else None
        except ValueError:
            message = None
        record = {"http": self.command, "headers": dict(self.headers.items()), "body": message}
        with LOCK:
            with open(LOG, "a", encoding="utf-8") as log:
                log.write(json.dumps(record) + "\n")
            method = message.get("method") if isinstance(message, dict) else None
            cut = self.command == "POST" and method in CUT
            if cut:
                CUT.discard(method)
        if cut:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b": the stream breaks here\n\n")
            self.wfile.flush()
            self.close_connection = True
            return
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        with httpx.Client(timeout=httpx.Timeout(10.0, read=None)) as client:
            request = client.build_request(self.command, UPSTREAM, headers=headers, content=body)
            response = client.send(request, stream=True)
            try:
                self.send_response(response.status_code)
                for key, value in response.headers.items():
                    if key.lower() not in HOP:
                        self.send_header(key, value)
                self.send_header("Connection", "close")  # the body ends when the socket does
                self.end_headers()
                for chunk in response.iter_raw():
                    self.wfile.write(chunk)
                    self.wfile.flush()
            except OSError:
                pass  # the client went away
            finally:
                response.close()
        self.close_connection = True

    do_GET = do_POST = do_DELETE = _handle


def main() -> None:
    global UPSTREAM, LOG
    args = sys.argv[1:]
    port, UPSTREAM, LOG = int(args[0]), args[1], args[2]
    rest = args[3:]
    while rest:
        flag, value, *rest = rest
        if flag == "--cut":
            CUT.add(value)
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
