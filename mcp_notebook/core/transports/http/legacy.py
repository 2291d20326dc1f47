"""The legacy HTTP+SSE transport (protocol 2024-11-05): one GET event stream carries every
message from the server; it names an ``endpoint`` to which each message is POSTed."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from ....errors import MCPError, ProtocolError, ServerExited, SessionExpired, StartupError
from ...protocol import jsonline
from ...safety.redact import redact_url
from ..base import MessageSink
from .shared import Cursor, HttpStatusError, HttpTransport, redirect_error, retry_after, short_body, unreachable


class SseTransport(HttpTransport):
    """Legacy HTTP+SSE: GET the stream, wait for the ``endpoint`` event, POST there."""

    endpoint = ""

    async def start(self, sink: MessageSink) -> None:
        self._bind(sink)
        client = self._open_client()
        endpoint: asyncio.Future[str] = asyncio.get_running_loop().create_future()

        def on_endpoint(path: str) -> None:
            if endpoint.done():
                return
            url = urljoin(self.url, path)
            if urlsplit(url)[:2] != urlsplit(self.url)[:2]:  # headers (tokens) must not go elsewhere
                endpoint.set_exception(ProtocolError(f"{self.shown} named an endpoint on another origin; refused"))
            else:
                endpoint.set_result(url)

        async def run() -> None:
            try:
                headers = {
                    "Accept": "text/event-stream",
                    **(await self.auth.header("GET", self.url) if self.auth else {}),
                }
                async with client.stream("GET", self.url, headers=headers) as response:
                    redirect = redirect_error(self.shown, response)
                    if redirect is not None:
                        raise redirect
                    if response.status_code >= 400:
                        await response.aread()
                        raise HttpStatusError(
                            f"{self.shown} answered HTTP {response.status_code} with {short_body(response)}",
                            response.status_code,
                            retry_after=retry_after(response),
                        )
                    await self._read_events(response, Cursor(), on_endpoint)
                if endpoint.done():
                    error: MCPError = ServerExited(f"{self.shown} closed its event stream")
                else:
                    error = ServerExited(
                        f"{self.shown} closed its event stream without naming an endpoint: "
                        "check the URL (a legacy HTTP+SSE server's stream, often …/sse)"
                    )
            except MCPError as e:
                error = e
            except httpx.HTTPError as e:
                error = unreachable(self.shown, e)
            if not endpoint.done():
                endpoint.set_exception(error)
            elif not self._closed and self._sink is not None:
                # A legacy session lives as long as its stream: the next use opens a new
                # stream, which is a new session.
                self._sink.on_closed(SessionExpired(f"{error}; it will reconnect"))

        self._spawn(run())
        try:
            self.endpoint = await asyncio.wait_for(endpoint, self.timeout)
        except asyncio.TimeoutError:
            raise StartupError(f"{self.shown} sent no endpoint event within {self.timeout:g} s") from None

    async def send(self, message: dict[str, Any]) -> bytes | None:
        if self._client is None or self._closed:
            raise self._gone()
        body = jsonline.encode(message)  # here: a value JSON cannot hold is the caller's error, at once
        if "method" in message and "id" in message:
            # A request's POST runs on its own, as over Streamable HTTP: a server that never
            # answers it must not hold the caller past its timeout (which abandons it).
            self._spawn(self._post_request(message, body), message["id"])
        else:
            # In order (a request sent next must not overtake notifications/initialized), and
            # bounded: the answer to these is an empty 202 that comes at once.
            await self._post(body, httpx.Timeout(self.timeout))
        return body

    async def _post_request(self, message: dict[str, Any], body: bytes) -> None:
        try:
            await self._post(body)
        except MCPError as e:
            self._fail(message["id"], e)

    async def _post(self, body: bytes, timeout: Any = httpx.USE_CLIENT_DEFAULT) -> None:
        client = self._client
        if client is None or self._closed:
            raise self._gone()
        shown = redact_url(self.endpoint, paths=True)
        try:
            auth = await self.auth.header("POST", self.endpoint) if self.auth else {}
            headers = {"Content-Type": "application/json", **auth}
            response = await client.post(self.endpoint, content=body, headers=headers, timeout=timeout)
        except httpx.HTTPError as e:
            raise unreachable(shown, e) from None
        redirect = redirect_error(shown, response)
        if redirect is not None:
            raise redirect
        if response.status_code == 404:
            raise SessionExpired(f"{self.shown} ended the session (HTTP 404)")
        if response.status_code >= 400:
            raise HttpStatusError(
                f"{shown} answered HTTP {response.status_code} with {short_body(response)}",
                response.status_code,
                retry_after=retry_after(response),  # a busy 503 says when to come back
            )


__all__ = ["SseTransport"]
