"""The runtime: one background event loop owning every connection, and the Python API."""

from .client import Client, get_client
from .loop import LoopThread
from .server import Server, Settings

__all__ = ["Client", "LoopThread", "Server", "Settings", "get_client"]
