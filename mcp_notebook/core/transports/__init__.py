"""Transports: how JSON-RPC messages reach a server.

base.py declares what a transport is (the seams: Transport, BlockingTransport); inbox.py
hands what they read to the session, from the loop or a blocking caller's thread. stdio/
runs a local server (pipes.py: its fast path). http/ speaks Streamable HTTP (exchange.py on
the loop, streamable.py its fast path) and the 2024-11-05 HTTP+SSE transport (legacy.py),
sharing shared.py; eventstream.py parses event streams.
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
