"""The loopback listener an OAuth login's browser redirect lands on (127.0.0.1 only)."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>mcp-notebook</title></head>"
    "<body style='font-family:sans-serif;margin:3em'><h2>Login complete</h2>"
    "<p>You can close this tab and go back to your notebook.</p></body></html>"
)


class Callback:
    """Listens on the redirect URI's port; ``wait()`` returns the full URL landed on."""

    def __init__(self, redirect_uri: str) -> None:
        parts = urlsplit(redirect_uri)
        self.host, self.port, self.path = "127.0.0.1", parts.port or 80, parts.path or "/"
        self.redirect_uri = redirect_uri
        self._landed: asyncio.Future[str] | None = None
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._landed = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, self.host, self.port)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = (await asyncio.wait_for(reader.readline(), 10)).decode("latin-1")
            while (await asyncio.wait_for(reader.readline(), 10)).strip():
                pass  # the headers: not needed
            target = [*line.split(" "), "", ""][1]
            if urlsplit(target).path != self.path:
                writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            body = _PAGE.encode()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                         b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))  # fmt: skip
            if self._landed is not None and not self._landed.done():
                self._landed.set_result(f"http://{self.host}:{self.port}{target}")
        except (asyncio.TimeoutError, ConnectionError, UnicodeDecodeError):
            pass
        finally:
            try:
                await writer.drain()
                writer.close()
            except ConnectionError:
                pass

    def result(self) -> str | None:
        """The URL landed on, if the browser has come back."""
        landed = self._landed
        return landed.result() if landed is not None and landed.done() else None

    async def wait(self, timeout: float = 300.0) -> str:
        assert self._landed is not None
        try:
            return await asyncio.wait_for(asyncio.shield(self._landed), timeout)
        finally:
            self.close()

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
