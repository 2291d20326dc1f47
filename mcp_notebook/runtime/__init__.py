"""The runtime: one background event loop owning every connection, and the Python API.

- loop.py: the background thread and its asyncio loop;
- context.py: ``Runtime``, what a Client and its servers share (``Settings`` too);
- steps.py: how one operation runs blocking or awaited (its steps);
- params.py: a request's parameters from Python values, and names looked up in listings;
- connection.py: one server's transport and session, kept alive;
- listening.py: a connection's subscriptions (resources/subscribe, subscriptions/listen);
- handle.py: ``Server``, the client's handle to one server, with its operations;
- client.py: ``Client``, the registry of named servers;
- interaction.py, terminal.py, login.py: how a person is asked (a login: login.py).
"""

from .client import Client, get_client
from .context import Runtime, Settings
from .handle import Server
from .loop import LoopThread

__all__ = ["Client", "LoopThread", "Runtime", "Server", "Settings", "get_client"]
