"""Transports: how JSON-RPC messages reach a server."""

from .base import MessageSink, Transport
from .http import AuthChallenge, HttpStatusError, SseTransport, StreamableHttpTransport, ca_context
from .stdio import DEFAULT_MAX_MESSAGE_SIZE, StdioParameters, StdioTransport

__all__ = [
    "DEFAULT_MAX_MESSAGE_SIZE",
    "AuthChallenge",
    "HttpStatusError",
    "MessageSink",
    "SseTransport",
    "StdioParameters",
    "StdioTransport",
    "StreamableHttpTransport",
    "Transport",
    "ca_context",
]
