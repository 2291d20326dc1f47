"""What the answer to a Streamable HTTP POST means: a JSON-RPC error sent as an error page,
a reply body read within its limit, the errors a lost or silent reply makes, and cutting a
reply stream another thread is reading."""

from __future__ import annotations

import json
import socket
from typing import Any

import httpx

from ....errors import RequestTimeout, RPCError, TransportError
from ...protocol.era import META_PROTOCOL_VERSION
from .shared import Cursor, retry_after


def message_version(message: dict[str, Any] | None) -> str | None:
    """The protocol version a modern request's _meta names."""
    params = message.get("params") if message else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get(META_PROTOCOL_VERSION) if isinstance(meta, dict) else None
    return version if isinstance(version, str) else None


def rpc_error_page(response: httpx.Response) -> RPCError | None:
    """The JSON-RPC error an HTTP error page carries, if it is one (a 4xx from a modern
    server: -32020 header mismatch, -32022 unsupported version …)."""
    if response.status_code in (401, 403) or response.status_code >= 500:
        return None
    try:
        body = json.loads(response.content[:65536])
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict) or isinstance(error.get("code"), bool) or not isinstance(error.get("code"), int):
        return None
    text = error.get("message")
    return RPCError(
        error["code"],
        text if isinstance(text, str) else "",
        error.get("data"),
        http_status=response.status_code,
        retry_after=retry_after(response),  # a 429 says when to come back
    )


def call_lost(shown: str) -> TransportError:
    return TransportError(
        f"{shown} closed the reply stream before answering; the call may have run, so it was not sent "
        "again: run it again if it should run"
    )


def reply_lost(shown: str, cursor: Cursor | None = None) -> TransportError:
    if cursor is not None and cursor.bad_id is not None:
        return TransportError(
            f"{shown} closed the reply stream before answering and it cannot be resumed: its last event id "
            f"{cursor.bad_id}; run the call again"
        )
    return TransportError(f"{shown} closed the reply stream before answering; run the call again")


def timed_out(method: str, shown: str, seconds: float | None) -> RequestTimeout:
    return RequestTimeout(
        f"{method} to {shown} got no answer in {seconds:g} s; the request was cancelled: "
        "raise the timeout or check the server's logs"
    )


def cut_response(response: httpx.Response) -> None:
    """End a blocking read of ``response`` from another thread. Closing the socket would not
    wake the reader: shutting it down does, and the reader then closes the response."""
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if isinstance(sock, socket.socket):
        try:
            # The plain socket's shutdown: an SSLSocket's own drops its TLS state under the reader.
            socket.socket.shutdown(sock, socket.SHUT_RDWR)
        except OSError:
            pass  # already closed


class ReplyBody:
    """A JSON answer's bytes as they come; ``add`` says False once they pass the limit (the
    answer is then refused as too large, by ``_deliver``, given this ``limit``: one raised
    meanwhile must not pass the cut bytes on as an unreadable answer)."""

    __slots__ = ("chunks", "limit", "size")

    def __init__(self, limit: int) -> None:
        self.chunks: list[bytes] = []
        self.limit = limit
        self.size = 0

    def add(self, chunk: bytes) -> bool:
        self.chunks.append(chunk)
        self.size += len(chunk)
        return self.size <= self.limit


__all__ = [
    "ReplyBody",
    "call_lost",
    "cut_response",
    "message_version",
    "reply_lost",
    "rpc_error_page",
    "timed_out",
]
