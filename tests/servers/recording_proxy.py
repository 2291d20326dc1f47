"""A reverse proxy that records what an HTTP MCP client sends, and cuts reply streams on cue.

    python tests/servers/recording_proxy.py PORT UPSTREAM_URL LOG [--cut METHOD]... [--break METHOD]...
                                            [--cut-json METHOD]... [--hang METHOD]...

Every request (GET, POST, DELETE) is written to LOG as one JSON line (its HTTP method, its
headers, its JSON body) before it is passed on to UPSTREAM_URL, so a client that has its
answer finds the request logged. Each fault hits the first POST of that JSON-RPC method only
(later ones pass), in the order given:
``--cut METHOD``: a 200 event stream that closes before any event (a reply stream broken in
transit). ``--break METHOD``: passed on, and its answer closed right after its first event
(a subscription's stream that breaks after its acknowledgement). ``--cut-json METHOD``: a
200 JSON answer that closes after a few of the bytes it announced. ``--hang METHOD``: never
answered (until the client goes away).
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import ThreadingHTTPServer

import httpx
from httpbase import QuietHandler

UPSTREAM = ""
LOG = ""
FAULTS: list[tuple[str, str]] = []  # (fault, method), each used once
LOCK = threading.Lock()
HOP = {"host", "content-length", "connection", "transfer-encoding", "keep-alive"}


class Handler(QuietHandler):
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
            fault = next((f for f in FAULTS if f[1] == method), None) if self.command == "POST" else None
            if fault is not None:
                FAULTS.remove(fault)
        kind = fault[0] if fault is not None else ""
        if kind == "--hang":
            self.rfile.read(1)  # returns when the client closes the connection
            self.close_connection = True
            return
        if kind == "--cut-json":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b'{"jsonrpc": "2.0", "id"')
            self.wfile.flush()
            self.close_connection = True
            return
        if kind == "--cut":
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
                seen = b""
                for chunk in response.iter_raw():
                    if kind == "--break":
                        seen += chunk
                        end = seen.replace(b"\r\n", b"\n").find(b"\n\n")
                        if end >= 0:  # the first event is whole: pass it on, then close
                            self.wfile.write(seen.replace(b"\r\n", b"\n")[: end + 2])
                            break
                        continue
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
        FAULTS.append((flag, value))
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
