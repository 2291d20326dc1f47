"""What the test servers' HTTP handlers share: HTTP/1.1 (keep-alive, as real servers do),
no request log on stderr, and one way to send a whole reply."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler


class QuietHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def reply(
        self, status: int, kind: str | None = None, body: bytes = b"", extra: dict[str, str] | None = None
    ) -> None:
        """A whole reply: ``body`` of type ``kind`` (no Content-Type if None), with its length
        and the ``extra`` headers."""
        self.send_response(status)
        if kind is not None:
            self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)
