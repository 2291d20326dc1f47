"""Streamable HTTP (protocol 2025-03-26 and later), the loop's side, over httpx.

Every message is POSTed; a request's reply comes as JSON or on an event stream opened for
it; a GET stream carries what the server starts on its own. One POST is one exchange: this
module makes it on the loop (``send``); streamable.py adds the same exchange made on a blocking
caller's own thread (the fast path).

The modern era (2026-07-28) is sessionless: no session id, no GET stream, no resumption;
its headers mirror the body (headers.py). A request whose answer breaks off (a stream, or a
JSON body, on either path) is sent again with a new id, except a tool call, which may have
run, and a subscription, which is opened afresh instead.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

import httpx

from ....errors import MCPError, ProtocolError, SessionExpired, TransportError
from ...protocol import jsonline
from ...protocol.era import is_modern
from ...protocol.headers import ToolHeaders, param_headers, standard_headers
from ...protocol.subscriptions import LISTEN
from ..base import MessageSink
from .replies import ReplyBody, call_lost, message_version, reply_lost, rpc_error_page
from .shared import (
    AuthChallenge,
    Cursor,
    HttpStatusError,
    HttpTransport,
    redirect_error,
    retry_after,
    short_body,
    unreachable,
    unsendable,
)

_ACCEPT = "application/json, text/event-stream"
_DEFAULT_RETRY = 1.0  # seconds before reconnecting a stream whose server named no `retry`
_MAX_RETRY = 30.0
_MAX_RESUMES = 5  # reconnections in a row that bring nothing new before giving up
_MAX_REISSUES = 2  # times a modern request whose reply stream broke is sent again

# What a POST's answer holds: nothing to read (202), an error page, the reply as JSON, or
# an event stream that carries it.
AnswerKind = Literal["", "error", "application/json", "text/event-stream"]


class StreamableHttpLoop(HttpTransport):
    """POST every message; replies come as JSON or on an SSE stream; a GET stream carries
    what the server starts on its own (all on the loop)."""

    session_id: str | None = None
    tool_headers: ToolHeaders | None = None  # a tool's x-mcp-header arguments (set by the tools listing)

    async def start(self, sink: MessageSink) -> None:
        self._bind(sink)
        self._open_client()

    def on_initialized(self, protocol_version: str) -> None:
        """After the handshake: the version goes on every request; listen for the server
        (legacy: a modern server has no GET stream; subscriptions/listen replaces it)."""
        super().on_initialized(protocol_version)
        if not self.modern:
            self._spawn(self._listen())

    @property
    def modern(self) -> bool:
        """Whether this transport speaks the modern (sessionless) era."""
        return is_modern(self.protocol_version)

    @property
    def mirrors_params(self) -> bool:
        """Whether tool arguments marked x-mcp-header go in headers (modern only)."""
        return self.modern

    # -- one exchange: POST a message, take its answer ---------------------------------

    def _request_headers(
        self, auth: dict[str, str] | None = None, message: dict[str, Any] | None = None
    ) -> dict[str, str]:
        headers = {"Accept": _ACCEPT, "Content-Type": "application/json"}
        if self.session_id and not self.modern:
            headers["Mcp-Session-Id"] = self.session_id
        # A modern request says its version in _meta; the header must say the same.
        version = message_version(message) or self.protocol_version
        if version:
            headers["MCP-Protocol-Version"] = version
        if message is not None and is_modern(version):
            headers.update(standard_headers(message))
            headers.update(self._param_headers(message))
        if auth:
            headers.update(auth)
        return headers

    def _param_headers(self, message: dict[str, Any]) -> dict[str, str]:
        """A tool call's ``Mcp-Param-*`` headers, from what the tools listing said."""
        params = message.get("params")
        if message.get("method") != "tools/call" or self.tool_headers is None or not isinstance(params, dict):
            return {}
        name = params.get("name")
        header_map = self.tool_headers(name) if isinstance(name, str) else None
        return param_headers(name, header_map, params.get("arguments")) if name and header_map else {}

    def _answer(self, message: dict[str, Any], response: httpx.Response) -> AnswerKind:
        """What the answer to a POST holds (an error page is read, then ``_raise_status``).
        A redirect, or an answer that is not MCP, raises."""
        redirect = redirect_error(self.shown, response)
        if redirect is not None:
            raise redirect
        session = response.headers.get("mcp-session-id")
        if message.get("method") == "initialize" and session and not self.modern:
            why = unsendable(session)
            if why is not None:
                # It goes back on every request: one httpx cannot encode, or one too long for
                # the server's own header limit, would break each of them. Refused here, once.
                raise ProtocolError(
                    f"{self.shown} sent an MCP-Session-Id that cannot be sent back: it {why}; "
                    "the server is broken: tell its maintainers"
                )
            self.session_id = session
        if response.status_code == 202:
            return ""
        if response.status_code >= 400:
            return "error"
        kind = response.headers.get("content-type", "").split(";")[0].strip()
        if kind == "text/event-stream":
            return "text/event-stream"
        if kind == "application/json":
            return "application/json"
        raise TransportError(f"{self.shown} answered with {kind or 'no content type'}, not JSON or an event stream")

    def _raise_status(self, response: httpx.Response, sent_session: str | None) -> None:
        status = response.status_code
        if status == 404 and sent_session:
            # The spec: a 404 on a session means it is over; a new one must be started.
            raise SessionExpired(f"{self.shown} ended the session (HTTP 404)")
        answer = rpc_error_page(response)
        if answer is not None:
            raise answer  # a JSON-RPC error sent as an error page (a modern server's way)
        hint = {401: "it needs authorization", 403: "access is forbidden", 404: "wrong URL"}
        why = hint.get(status, response.reason_phrase)
        cls = AuthChallenge if self.auth is not None and status in (401, 403) else HttpStatusError
        raise cls(
            f"{self.shown} answered HTTP {status} ({why}) with {short_body(response)}",
            status,
            retry_after=retry_after(response),
        )

    # -- the loop's side ---------------------------------------------------------------

    async def send(self, message: dict[str, Any]) -> bytes | None:
        if self._client is None or self._closed:
            raise self._gone()
        # The POST runs on its own: a server that never answers must not hold the session
        # (the request's timeout then ends the wait, and abandons it); its failures end
        # that request. Encoded here: a value JSON cannot hold is the caller's error, at once.
        body = jsonline.encode(message)
        rid = message.get("id") if "method" in message else None
        if message.get("method") == "notifications/initialized":
            # In order, as over legacy HTTP+SSE: the session's first request must not overtake
            # it (server-everything registers tools on it: behind a gateway it listed fewer).
            # Bounded: its answer is an empty 202 that comes at once.
            try:
                await asyncio.wait_for(self._post(message, None, body), self.timeout)
            except asyncio.TimeoutError:
                self.diagnostics.append(f"{message['method']}: no answer to its POST in {self.timeout:g} s")
            return body
        self._spawn(self._post(message, rid, body), rid)
        return body

    async def _post(self, message: dict[str, Any], rid: int | str | None, body: bytes | None = None) -> None:
        try:
            await self._exchange(message, rid, body)
        except MCPError as e:
            if rid is None:
                self.diagnostics.append(f"sending {message.get('method', 'a reply')} failed: {e}")
            else:
                self._fail(rid, e)

    async def _exchange(self, message: dict[str, Any], rid: int | str | None, body: bytes | None = None) -> None:
        """POST one message (``body``: as encoded already) and take its answer: a request's
        reply (JSON, or a stream read right here, in the task ``abandon`` cancels). A 401
        logs in and sends it again."""
        client = self._client
        assert client is not None
        if body is None:
            body = jsonline.encode(message)
        tries = 0
        while True:
            sent_session = self.session_id
            headers = self._request_headers(await self.auth.header("POST", self.url) if self.auth else None, message)
            try:
                request = client.build_request("POST", self.url, content=body, headers=headers)
                response = await client.send(request, stream=True)
            except httpx.HTTPError as e:
                raise unreachable(self.shown, e) from None
            try:
                if await self._authorized(response, headers, tries):
                    break
            except BaseException:
                await response.aclose()
                raise
            tries += 1
        try:
            answer = self._answer(message, response)
            if answer == "error":
                await self._status_error(response, sent_session)
            elif answer == "text/event-stream":
                await self._follow(rid, Cursor(), response, message)
            elif answer == "application/json":
                reply = ReplyBody(self.max_message_size)
                try:
                    async for chunk in response.aiter_bytes():
                        if not reply.add(chunk):
                            break
                except httpx.HTTPError:
                    first = self._resendable(rid)
                    await response.aclose()
                    await self._reissue(message, first)  # cut off mid-answer: a modern request goes again
                    return
                if reply.size:
                    self._deliver(b"".join(reply.chunks), rid, reply.limit)
        finally:
            await response.aclose()  # whatever happened, even a cancel: the socket goes back or away

    def _resendable(self, rid: int | str | None) -> int | str:
        """A JSON reply cut off mid-answer: a modern request may go again (``_reissue``
        decides; ``rid`` is returned); a legacy one fails, said in one line."""
        if rid is None or not self.modern:
            raise reply_lost(self.shown)
        return rid

    async def _authorized(self, response: httpx.Response, sent: dict[str, str], tries: int) -> bool:
        """False when a 401 (log in, or refresh) or a 403 ``insufficient_scope`` (log in for
        more) was dealt with and the request should go again; True to carry on (and, after
        a few tries, let the error show rather than loop)."""
        status = response.status_code
        if self.auth is None or status not in (401, 403) or tries >= self.auth.max_tries:
            return True
        challenge = response.headers.get("www-authenticate", "")
        if status == 403 and "insufficient_scope" not in challenge:
            return True  # a plain 403: say so
        await response.aread()
        await response.aclose()
        if status == 401:
            await self.auth.unauthorized(challenge, sent, response.headers.get("dpop-nonce"))
        else:
            await self.auth.insufficient_scope(challenge)
        return False

    async def _status_error(self, response: httpx.Response, sent_session: str | None) -> None:
        await response.aread()
        await response.aclose()
        self._raise_status(response, sent_session)

    async def _follow(
        self,
        rid: int | str | None,
        cursor: Cursor,
        response: httpx.Response | None = None,
        message: dict[str, Any] | None = None,
    ) -> None:
        """Read a request's reply stream to its end; if it drops before the reply and the
        server made it resumable (event ids), wait as it asked and resume it with GET +
        Last-Event-ID. No ``response``: a blocking caller's read dropped it; resume. A modern
        request's stream is not resumable: the request goes again (``_reissue``)."""
        idle, resumed = 0, response is None
        if self.modern and message is not None and rid is not None:
            if response is not None:
                try:
                    await self._read_events(response, cursor, rid=rid)
                except (httpx.HTTPError, MCPError) as e:
                    self.diagnostics.append(f"event stream ended: {type(e).__name__}: {e}")
                finally:
                    await response.aclose()
            if not (cursor.answered or self._closed or self._sink is None):
                await self._reissue(message, rid)
            return
        while True:
            if response is not None:
                seen = cursor.last_id
                try:
                    await self._read_events(response, cursor, rid=rid, until_reply=resumed)
                except (httpx.HTTPError, MCPError) as e:
                    self.diagnostics.append(f"event stream ended: {type(e).__name__}: {e}")
                finally:
                    await response.aclose()
                if cursor.answered or rid is None or self._closed or self._sink is None:
                    return
                idle = 0 if cursor.last_id != seen else idle + 1
            if cursor.last_id is None or idle >= _MAX_RESUMES:
                # Not resumable: the reply is lost (a tools/call is never re-sent on its
                # own), so say so now rather than time out.
                self._fail(rid, reply_lost(self.shown, cursor))
                return
            await asyncio.sleep(cursor.retry if cursor.retry is not None else _DEFAULT_RETRY * 2**idle)
            try:
                response = await self._get_stream(cursor.last_id)
            except MCPError as e:
                self._fail(rid, e)
                return
            if response is None:  # 405: the server cannot resume streams after all
                self._fail(
                    rid,
                    TransportError(f"{self.shown} dropped the reply stream and cannot resume it; run the call again"),
                )
                return
            resumed = True

    async def _reissue(self, message: dict[str, Any], rid: int | str) -> None:
        """A modern request whose answer was cut off: send it again with a new id (the
        server saw the first one end: a cancel). Never a tool call: it may have run. Never
        a subscription: the server tags what it sends with the new id, which the session
        does not know; failed, it is opened afresh (runtime/listening.py)."""
        method = message.get("method")
        if method == "tools/call":
            self._fail(rid, call_lost(self.shown))
            return
        if method == LISTEN:
            self._fail(rid, TransportError(f"{self.shown} closed the stream of a subscription"))
            return
        found = None if self._closed else self.alias(rid, _MAX_REISSUES)
        if found is None:
            self._fail(rid, reply_lost(self.shown))
            return
        first, again = found
        self.diagnostics.append(f"the reply stream of request {first} broke: sent again as {again!r}")
        try:
            await self._exchange({**message, "id": again}, again)
        except MCPError as e:
            self._fail(again, e)

    async def _get_stream(self, last_event_id: str | None) -> httpx.Response | None:
        """Open the GET event stream (resuming after ``last_event_id``). None: the server
        offers none (405); other refusals raise."""
        client = self._client
        if client is None or self._closed:
            raise self._gone()
        headers = self._request_headers(await self.auth.header("GET", self.url) if self.auth is not None else None)
        del headers["Content-Type"]
        headers["Accept"] = "text/event-stream"
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        sent_session = self.session_id
        try:
            response = await client.send(client.build_request("GET", self.url, headers=headers), stream=True)
        except httpx.HTTPError as e:
            raise unreachable(self.shown, e) from None
        if response.status_code == 405:
            await response.aclose()
            return None
        redirect = redirect_error(self.shown, response)
        if redirect is not None:
            await response.aclose()
            raise redirect
        if response.status_code >= 400:
            await self._status_error(response, sent_session)
        return response

    async def _listen(self) -> None:
        """The server's own stream (its requests and notifications), kept open: when it
        drops, reconnect after the server's ``retry`` (resuming after the last event)."""
        cursor, idle, refreshed = Cursor(), 0, False
        while not self._closed:
            seen = cursor.last_id
            try:
                response = await self._get_stream(cursor.last_id)
                refreshed = False
            except AuthChallenge as e:
                # An expired token: refresh it and listen again. A login needs a person,
                # and this stream has no cell: the next call's login reopens it.
                if e.status == 401 and self.auth is not None and not refreshed and await self.auth.try_refresh():
                    refreshed = True  # once: a token the server still refuses is not refreshed in a loop
                    continue
                self.diagnostics.append(f"server stream: {e}")
                return
            except MCPError as e:
                self.diagnostics.append(f"server stream: {e}")
                return  # refused (an expired session shows on the next request)
            if response is None:
                return  # the server offers no stream of its own: fine
            try:
                await self._read_events(response, cursor)
            except (httpx.HTTPError, MCPError) as e:
                self.diagnostics.append(f"server stream ended: {type(e).__name__}")
            finally:
                await response.aclose()
            idle = 0 if cursor.last_id != seen else idle + 1
            if cursor.retry is not None and idle <= 1:
                await asyncio.sleep(cursor.retry)
            else:
                await asyncio.sleep(min(_DEFAULT_RETRY * 2**idle, _MAX_RETRY))

    # -- ending ------------------------------------------------------------------------

    async def close(self) -> None:
        client, session_id, closed = self._client, self.session_id, self._closed
        self._closed = True  # first: the streams must not reconnect while closing
        self._stop_readers()
        if client is not None and session_id and not closed:
            try:
                headers = {
                    "Mcp-Session-Id": session_id,
                    **(self.auth.header_now("DELETE", self.url) if self.auth else {}),
                }
                await client.delete(self.url, headers=headers, timeout=2)
            except httpx.HTTPError:
                pass
        await super().close()

    def _stop_readers(self) -> None:
        """What reads on other threads ends here, as the transport closes (none by default)."""


__all__ = ["AnswerKind", "StreamableHttpLoop"]
