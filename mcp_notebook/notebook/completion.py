"""Tab completion for %mcp and %%mcp_call: subcommands, servers, SERVER.tool and
SERVER.prompt names, argument names from a tool's schema, and resource URIs.

Completion never starts a server or waits on one: it uses listings already fetched, or
fetches one from a connected server (a cached round trip).
"""

from __future__ import annotations

from typing import Any

from ..commands import COMMANDS
from ..core.types import Status
from ..errors import MCPError
from ..runtime.client import Client

__all__ = ["candidates", "make_completer"]

_SERVER_FIRST = {
    "status",
    "logs",
    "loglevel",
    "restart",
    "remove",
    "tools",
    "resources",
    "templates",
    "prompts",
    "read",
}


def _connected(client: Client, name: str) -> Any:
    server = client.servers.get(name)
    return server if server is not None and server.status is Status.CONNECTED else None


def candidates(client: Client, line: str) -> list[str]:
    """Whole-token candidates for the token under the cursor at the end of ``line``."""
    words = line.split()
    if line.endswith((" ", "\t")) or not words:
        words.append("")
    current = words[-1]
    magic, args = words[0], words[1:]
    if magic.startswith("%%"):  # %%mcp_call SERVER.TOOL
        return _targets(client, current, "tools") if len(args) == 1 else []
    if len(args) == 1:
        return [c for c in COMMANDS if c.startswith(current)]
    sub, position = args[0], len(args) - 1
    try:
        if sub in _SERVER_FIRST and position == 1:
            return [s.name for s in client if s.name.startswith(current)]
        if sub == "read" and position == 2:
            return _uris(client, args[1], current)
        if sub == "call":
            if position == 1:
                return _targets(client, current, "tools")
            return _argument_names(client, args[1], current, args[2:-1])
        if sub == "prompt":
            if position == 1:
                return _targets(client, current, "prompts")
            return _prompt_arguments(client, args[1], current)
        if sub == "help" and position == 1:
            return [c for c in COMMANDS if c.startswith(current)]
    except MCPError:
        return []
    return []


def _targets(client: Client, current: str, kind: str) -> list[str]:
    if "." not in current:
        return [f"{s.name}." for s in client if s.name.startswith(current)]
    name, _, prefix = current.partition(".")
    server = _connected(client, name)
    if server is None:
        return []
    items = server.list_tools() if kind == "tools" else server.list_prompts()
    return [f"{name}.{item.name}" for item in items if item.name.startswith(prefix)]


def _argument_names(client: Client, target: str, current: str, given: list[str]) -> list[str]:
    if "=" in current:
        return []
    name, _, tool = target.partition(".")
    server = _connected(client, name)
    if server is None:
        return []
    schema: dict[str, Any] = next((t.input_schema for t in server.list_tools() if t.name == tool), {})
    used = {g.split("=", 1)[0] for g in given}
    names = list((schema.get("properties") or {}).keys())
    return [f"{n}=" for n in names if n.startswith(current) and n not in used]


def _prompt_arguments(client: Client, target: str, current: str) -> list[str]:
    name, _, prompt = target.partition(".")
    server = _connected(client, name)
    if server is None or "=" in current:
        return []
    found = next((p for p in server.list_prompts() if p.name == prompt), None)
    names = [str(a.get("name")) for a in (found.arguments if found else [])]
    return [f"{n}=" for n in names if n.startswith(current)]


def _uris(client: Client, name: str, current: str) -> list[str]:
    server = _connected(client, name)
    if server is None or "resources" not in server.capabilities:
        return []
    uris = [r.uri for r in server.list_resources()] + [t.uri_template for t in server.list_resource_templates()]
    return [u for u in uris if u.startswith(current)]


def make_completer(client_getter: Any) -> Any:
    """An IPython ``complete_command`` hook. IPython replaces only the part of the token
    after its own delimiters (``:``, ``/``, ``=`` …), so each whole-token candidate is cut
    to match what IPython calls the symbol."""

    def complete(_shell: Any, event: Any) -> list[str]:
        line = event.text_until_cursor.lstrip()
        whole = line.split()[-1] if line and not line.endswith((" ", "\t")) else ""
        cut = len(whole) - len(event.symbol)
        return [c[cut:] for c in candidates(client_getter(), line) if c.startswith(whole)]

    return complete
