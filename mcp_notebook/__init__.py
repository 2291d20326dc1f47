"""mcp-notebook: explore and use Model Context Protocol servers from Python and Jupyter.

    >>> from mcp_notebook import get_client
    >>> everything = get_client().add("everything", "npx", ["-y", "@modelcontextprotocol/server-everything"])
    >>> everything.call_tool("echo", {"message": "hi"}).text

In IPython or Jupyter: ``%load_ext mcp_notebook``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .core.views import use as use_views
from .errors import (
    ArgumentError,
    AuthError,
    ConfigError,
    ConfigWarning,
    LoginRequired,
    MCPError,
    MessageTooLarge,
    NotConnected,
    NotSent,
    ProtocolError,
    RequestCancelled,
    RequestTimeout,
    RPCError,
    ServerExited,
    SessionExpired,
    StartupError,
    ToolDenied,
    ToolExcluded,
    TransportError,
    UnknownPrompt,
    UnknownServer,
    UnknownTool,
)
from .version import __version__ as __version__

# Imported on first use: `import mcp_notebook` must stay cheap.
_LAZY = {
    "Client": "runtime.client",
    "get_client": "runtime.client",
    "Server": "runtime",
    "Settings": "runtime",
    "Handlers": "core.session.session",
    "accept_defaults": "core.protocol.elicitation",
    "ApprovalPolicy": "core.approval",
    "ApprovalRequest": "runtime.asking.interaction",
    "Interaction": "runtime.asking.interaction",
    "ConsoleInteraction": "runtime.asking.interaction",
    "ServerConfig": "core.config.servers",
    "load_config": "core.config.servers",
    "qualified_name": "core.naming",
    "Status": "core.types",
    "Tool": "core.types",
    "Resource": "core.types",
    "ResourceTemplate": "core.types",
    "Prompt": "core.types",
    "CallResult": "core.types",
    "CallEvent": "runtime.calls",
    "Skill": "core.protocol.skills",
    "SkillDocument": "runtime.skills",
    "ReadResult": "core.types",
    "PromptResult": "core.types",
}

__all__ = [
    "accept_defaults",
    "ApprovalPolicy",
    "ApprovalRequest",
    "CallEvent",
    "CallResult",
    "Skill",
    "SkillDocument",
    "Client",
    "ConsoleInteraction",
    "Handlers",
    "Interaction",
    "Prompt",
    "PromptResult",
    "ReadResult",
    "Resource",
    "ResourceTemplate",
    "Server",
    "ServerConfig",
    "Settings",
    "Status",
    "Tool",
    "get_client",
    "load_config",
    "qualified_name",
    "MCPError",
    "LoginRequired",
    "ArgumentError",
    "AuthError",
    "ConfigError",
    "ConfigWarning",
    "MessageTooLarge",
    "NotConnected",
    "NotSent",
    "ProtocolError",
    "RequestTimeout",
    "RequestCancelled",
    "RPCError",
    "ServerExited",
    "SessionExpired",
    "StartupError",
    "ToolDenied",
    "ToolExcluded",
    "TransportError",
    "UnknownServer",
    "UnknownTool",
    "UnknownPrompt",
]

if TYPE_CHECKING:
    from .core.approval import ApprovalPolicy
    from .core.config.servers import ServerConfig, load_config
    from .core.naming import qualified_name
    from .core.protocol.elicitation import accept_defaults
    from .core.protocol.skills import Skill
    from .core.session.session import Handlers
    from .core.types import CallResult, Prompt, PromptResult, ReadResult, Resource, ResourceTemplate, Status, Tool
    from .runtime import Server, Settings
    from .runtime.asking.interaction import ApprovalRequest, ConsoleInteraction, Interaction
    from .runtime.calls import CallEvent
    from .runtime.client import Client, get_client
    from .runtime.skills import SkillDocument


def _notebook_views() -> Any:
    # The notebook layer renders results and makes their DataFrames (core/views.py).
    from .notebook import views

    return views


use_views(_notebook_views)  # results show themselves, with or without %load_ext
del use_views


def load_ipython_extension(shell: Any) -> None:
    """``%load_ext mcp_notebook``: the %mcp and %%mcp_call magics, rich results, completion."""
    from .notebook import load_ipython_extension as load

    load(shell)


def unload_ipython_extension(shell: Any) -> None:
    """``%unload_ext mcp_notebook``: remove what load_ipython_extension added."""
    from .notebook import unload_ipython_extension as unload

    unload(shell)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mcp_notebook' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
