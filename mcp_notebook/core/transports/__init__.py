"""Transports: how JSON-RPC messages reach a server.

base.py declares what a transport is; stdio.py (with pipes.py, its fast path) runs a local
server; exchange.py speaks Streamable HTTP on the loop and http.py adds its fast path;
legacy.py speaks the 2024-11-05 HTTP+SSE transport; the HTTP ones share httpbase.py;
eventstream.py parses event streams; inbox.py hands what they read to the session, from
the loop or a blocking caller's thread.
"""

from .base import DEFAULT_MAX_MESSAGE_SIZE, BlockingTransport, Limit, MessageSink, Transport
from .http.legacy import SseTransport
from .http.shared import AuthChallenge, HttpStatusError, ca_context
from .http.streamable import StreamableHttpTransport
from .stdio.transport import StdioParameters, StdioTransport

__all__ = [
    "DEFAULT_MAX_MESSAGE_SIZE",
    "AuthChallenge",
    "BlockingTransport",
    "HttpStatusError",
    "Limit",
    "MessageSink",
    "SseTransport",
    "StdioParameters",
    "StdioTransport",
    "StreamableHttpTransport",
    "Transport",
    "ca_context",
]
