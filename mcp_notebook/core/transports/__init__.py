"""Transports: how JSON-RPC messages reach a server."""

from .base import MessageSink, Transport
from .stdio import StdioParameters, StdioTransport

__all__ = ["MessageSink", "Transport", "StdioParameters", "StdioTransport"]
