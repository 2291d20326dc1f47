"""Remote transports over httpx: Streamable HTTP (2025-03-26 and later) and the legacy
HTTP+SSE transport (2024-11-05)."""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin

import httpx
from httpx_sse import EventSource

from ...errors import MCPError, ProtocolError, ServerExited, StartupError, TransportError
from .base import MessageSink

DEFAULT_MAX_MESSAGE_SIZE = 32 * 1024 * 1024
_ACCEPT = "application/json, text/event-stream"


class HttpStatusError(TransportError):
    """An HTTP error answer; ``status`` tells which (400/404/405 mean: try legacy SSE)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def _short_body(response: httpx.Response) -> str:
    text = response.text.strip().replace("\n", " ")
    if response.headers.get("content-type", "").startswith("text/html"):
        return "an HTML page"
    return repr(text[:200]) if text else "no body"


class _HttpBase:
    def __init__(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        max_message_size: int = DEFAULT_MAX_MESSAGE_SIZE,
        timeout: float = 30.0,
        verify: bool | str = True,
    ) -> None:
        self.url = url
        self.headers = dict(headers or {})  # may hold secrets: never shown
        self.max_message_size = max_message_size
        self.timeout = timeout
        self.verify = verify
        self.diagnostics: deque[str] = deque(maxlen=100)
        self.pid = None
        self.protocol_version: str | None = None
        self._sink: MessageSink | None = None
        self._client: httpx.AsyncClient | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False

    def describe(self) -> str:
        return self.url

    def failure_detail(self) -> str:
        return ""

    def stderr_text(self) -> str:
        return ""

    def _open_client(self) -> httpx.AsyncClient:
        timeout = httpx.Timeout(self.timeout, read=None)  # streams stay open; requests time out in the session
        self._client = httpx.AsyncClient(headers=self.headers, timeout=timeout, verify=self.verify)
        return self._client

    def _spawn(self, coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _deliver(self, data: str | bytes, rid: int | str | None = None) -> None:
        """Hand over one JSON-RPC message (or batch). ``rid``: the request whose reply this
        should be (a POST's own reply), so that a bad one fails that request at once."""
        assert self._sink is not None
        if len(data) > self.max_message_size:
            self._sink.on_too_large(rid, len(data))
            return
        try:
            message = json.loads(data)
        except ValueError:
            self.diagnostics.append(str(data)[:2000])
            if rid is not None:
                self._sink.fail_request(
                    rid, ProtocolError(f"{self.url} replied with something that is not JSON: {str(data)[:80]!r}")
                )
            return
        assert self._sink is not None
        for item in message if isinstance(message, list) else [message]:
            if isinstance(item, dict):
                self._sink.on_message(item)

    async def _read_events(
        self, response: httpx.Response, on_endpoint: Any = None, rid: int | str | None = None
    ) -> str | None:
        """Deliver each SSE ``message``; returns the last event id (for resumption)."""
        last_id = None
        async for event in EventSource(response).aiter_sse():
            if event.id:
                last_id = event.id
            if event.event == "endpoint" and on_endpoint is not None:
                on_endpoint(event.data)
            elif event.event in ("message", "") and event.data:
                self._deliver(event.data, rid)
        return last_id

    async def _shutdown(self) -> None:
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        if self._client is not None:
            await self._client.aclose()


class StreamableHttpTransport(_HttpBase):
    """POST every message; replies come as JSON or on an SSE stream; a GET stream carries
    what the server starts on its own."""

    session_id: str | None = None

    async def start(self, sink: MessageSink) -> None:
        self._sink = sink
        self._open_client()

    def _request_headers(self) -> dict[str, str]:
        headers = {"Accept": _ACCEPT, "Content-Type": "application/json"}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        if self.protocol_version:
            headers["MCP-Protocol-Version"] = self.protocol_version
        return headers

    async def send(self, message: dict[str, Any]) -> None:
        if self._client is None or self._closed:
            raise ServerExited(f"the connection to {self.url} is closed")
        # The POST runs on its own: a server that never answers must not hold the session
        # (the request's timeout then ends the wait); its failures end that request.
        self._spawn(self._post(message))

    async def _post(self, message: dict[str, Any]) -> None:
        rid = message.get("id") if "method" in message else None
        try:
            await self._exchange(message, rid)
        except MCPError as e:
            if rid is not None and self._sink is not None:
                self._sink.fail_request(rid, e)
            else:
                self.diagnostics.append(f"sending {message.get('method', 'a reply')} failed: {e}")

    async def _exchange(self, message: dict[str, Any], rid: int | str | None) -> None:
        client = self._client
        assert client is not None
        body = json.dumps(message, separators=(",", ":"))
        try:
            request = client.build_request("POST", self.url, content=body, headers=self._request_headers())
            response = await client.send(request, stream=True)
        except httpx.HTTPError as e:
            raise TransportError(f"cannot reach {self.url}: {type(e).__name__}: {e}") from None
        if message.get("method") == "initialize" and response.headers.get("mcp-session-id"):
            self.session_id = response.headers["mcp-session-id"]
        if response.status_code == 202:
            await response.aclose()
            return
        if response.status_code >= 400:
            await response.aread()
            await response.aclose()
            status = response.status_code
            hint = {401: "it needs authorization", 403: "access is forbidden", 404: "wrong URL or expired session"}
            why = hint.get(status, response.reason_phrase)
            raise HttpStatusError(f"{self.url} answered HTTP {status} ({why}) with {_short_body(response)}", status)
        kind = response.headers.get("content-type", "").split(";")[0].strip()
        if kind == "text/event-stream":
            self._spawn(self._stream(response, rid))
        elif kind == "application/json":
            data = await response.aread()
            await response.aclose()
            if data:
                self._deliver(data, rid)
        else:
            await response.aread()
            await response.aclose()
            raise TransportError(f"{self.url} answered with {kind or 'no content type'}, not JSON or an event stream")

    async def _stream(self, response: httpx.Response, rid: int | str | None) -> None:
        try:
            await self._read_events(response, rid=rid)
        except (httpx.HTTPError, MCPError) as e:
            self.diagnostics.append(f"event stream ended: {type(e).__name__}: {e}")
        finally:
            await response.aclose()
        if rid is not None and self._sink is not None and not self._closed:
            # The stream ended; if it never carried the reply, that request is lost (a
            # tools/call is never re-sent on its own): say so now rather than time out.
            self._sink.fail_request(
                rid, TransportError(f"{self.url} closed the reply stream before answering; run the call again")
            )

    def on_initialized(self, protocol_version: str) -> None:
        """After the handshake: the version goes on every request; listen for the server."""
        self.protocol_version = protocol_version
        self._spawn(self._listen())

    async def _listen(self) -> None:
        client = self._client
        if client is None:
            return
        headers = {k: v for k, v in self._request_headers().items() if k != "Content-Type"}
        headers["Accept"] = "text/event-stream"
        try:
            async with client.stream("GET", self.url, headers=headers) as response:
                if response.status_code == 405 or response.status_code >= 400:
                    return  # the server offers no stream of its own: fine
                await self._read_events(response)
        except httpx.HTTPError as e:
            self.diagnostics.append(f"server stream ended: {type(e).__name__}")

    async def close(self) -> None:
        client, session_id = self._client, self.session_id
        if client is not None and session_id and not self._closed:
            try:
                await client.delete(self.url, headers={"Mcp-Session-Id": session_id}, timeout=2)
            except httpx.HTTPError:
                pass
        await self._shutdown()
        if self._sink is not None:
            self._sink.on_closed(None)


class SseTransport(_HttpBase):
    """Legacy HTTP+SSE: GET the stream, wait for the ``endpoint`` event, POST there."""

    async def start(self, sink: MessageSink) -> None:
        self._sink = sink
        client = self._open_client()
        endpoint: asyncio.Future[str] = asyncio.get_running_loop().create_future()

        def on_endpoint(path: str) -> None:
            if not endpoint.done():
                endpoint.set_result(urljoin(self.url, path))

        async def run() -> None:
            try:
                async with client.stream("GET", self.url, headers={"Accept": "text/event-stream"}) as response:
                    if response.status_code >= 400:
                        await response.aread()
                        raise HttpStatusError(
                            f"{self.url} answered HTTP {response.status_code} with {_short_body(response)}",
                            response.status_code,
                        )
                    await self._read_events(response, on_endpoint)
                error: MCPError = ServerExited(f"{self.url} closed its event stream")
            except MCPError as e:
                error = e
            except httpx.HTTPError as e:
                error = TransportError(f"cannot reach {self.url}: {type(e).__name__}: {e}")
            if not endpoint.done():
                endpoint.set_exception(error)
            elif not self._closed and self._sink is not None:
                self._sink.on_closed(error)

        self._spawn(run())
        try:
            self.endpoint = await asyncio.wait_for(endpoint, self.timeout)
        except asyncio.TimeoutError:
            raise StartupError(f"{self.url} sent no endpoint event within {self.timeout:g} s") from None

    async def send(self, message: dict[str, Any]) -> None:
        client = self._client
        if client is None or self._closed:
            raise ServerExited(f"the connection to {self.url} is closed")
        try:
            response = await client.post(
                self.endpoint, content=json.dumps(message), headers={"Content-Type": "application/json"}
            )
        except httpx.HTTPError as e:
            raise TransportError(f"cannot reach {self.endpoint}: {type(e).__name__}: {e}") from None
        if response.status_code >= 400:
            raise HttpStatusError(
                f"{self.endpoint} answered HTTP {response.status_code} with {_short_body(response)}",
                response.status_code,
            )

    def on_initialized(self, protocol_version: str) -> None:
        self.protocol_version = protocol_version

    async def close(self) -> None:
        await self._shutdown()
        if self._sink is not None:
            self._sink.on_closed(None)


__all__ = ["HttpStatusError", "SseTransport", "StreamableHttpTransport"]
