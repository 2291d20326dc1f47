"""Qualified tool names: ``mcp__<server>__<tool>``, safe for any LLM tool-name rule.

Names match ``^[a-zA-Z0-9_-]+$`` and are at most 64 characters. A name that had to be
changed (characters replaced, ``__`` inside the server name, or too long) gets a stable
8-hex-digit suffix hashed from the original pair, so different pairs never share a name.
"""

from __future__ import annotations

import hashlib
import re

MAX_LENGTH = 64
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def _digest(server: str, tool: str) -> str:
    return hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]


def qualified_name(server: str, tool: str) -> str:
    s, t = _UNSAFE.sub("_", server), _UNSAFE.sub("_", tool)
    name = f"mcp__{s}__{t}"
    # Without "__" in the server part the first "__" after the prefix ends it: such a
    # name decodes to exactly one pair, so only lossy names need the suffix.
    lossless = s == server and t == tool and "__" not in server and server and len(name) <= MAX_LENGTH
    if lossless:
        return name
    suffix = "_" + _digest(server, tool)
    return name[: MAX_LENGTH - len(suffix)] + suffix


def split_qualified_name(name: str) -> tuple[str, str] | None:
    """The (server, tool) of a lossless qualified name, or None (ask a ToolNames)."""
    if not name.startswith("mcp__"):
        return None
    server, sep, tool = name[5:].partition("__")
    return (server, tool) if sep and server and tool else None


class ToolNames:
    """Qualified names of the tools we know, resolvable back to (server, tool)."""

    def __init__(self) -> None:
        self._by_name: dict[str, tuple[str, str]] = {}

    def add(self, server: str, tool: str) -> str:
        name = qualified_name(server, tool)
        other = self._by_name.get(name)
        if other is not None and other != (server, tool):
            # A hash collision in 8 hex digits: astronomically rare, but never ambiguous.
            name = name[: MAX_LENGTH - 17] + "_" + hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:16]
        self._by_name[name] = (server, tool)
        return name

    def resolve(self, name: str) -> tuple[str, str]:
        found = self._by_name.get(name)
        if found is None:
            found = split_qualified_name(name)
        if found is None:
            raise KeyError(name)
        return found

    def forget_server(self, server: str) -> None:
        for name in [n for n, (s, _) in self._by_name.items() if s == server]:
            del self._by_name[name]
