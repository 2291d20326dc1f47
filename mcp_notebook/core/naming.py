"""Qualified tool names: ``mcp__<server>__<tool>``, safe for any LLM tool-name rule.

Names match ``^[a-zA-Z0-9_-]+$`` and are at most 64 characters. A name is a function of its
(server, tool) pair alone, never of what else is registered or of the order servers are
listed in: adding a server cannot change the name of another server's tool.

A pair gets the plain name ``mcp__<server>__<tool>`` only when that name decodes back to
exactly this pair (see ``is_plain``): the first ``__`` after ``mcp__`` ends the server part.
Every other pair gets a hashed name: the name with unsafe characters replaced by ``_``,
shortened if need be, then ``_`` and 16 hex digits of a SHA-256 of the pair. Plain names
never end like that, so a plain name and a hashed name are never equal.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading

__all__ = ["MAX_LENGTH", "ToolNames", "is_plain", "qualified_name", "split_qualified_name"]

MAX_LENGTH = 64
PREFIX = "mcp__"
DIGITS = 16  # 64 bits: finding a pair that hashes like another's is out of reach
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")
_SAFE = re.compile(r"[a-zA-Z0-9_-]+")
# What a hashed name ends with (16 digits, or 32 in ToolNames' fallback).
_HASHED_TAIL = re.compile(r"_[0-9a-f]{16,}$")


def _digest(server: str, tool: str, digits: int = DIGITS) -> str:
    # JSON keeps the pair unambiguous (no separator a name could contain) and encodes any
    # str, lone surrogates included.
    return hashlib.sha256(json.dumps([server, tool]).encode()).hexdigest()[:digits]


def is_plain(server: str, tool: str) -> bool:
    """Whether ``mcp__<server>__<tool>`` decodes to exactly this pair and to no other.

    Both parts are non-empty and already safe; the server has no ``__`` and does not end in
    ``_`` (so the first ``__`` after the prefix is the separator: ``h``/``_t`` is plain,
    ``h_``/``t`` is not); the name fits in 64 characters; and it does not end like a
    hashed name.
    """
    name = f"{PREFIX}{server}__{tool}"
    return (
        bool(_SAFE.fullmatch(server))
        and bool(_SAFE.fullmatch(tool))
        and "__" not in server
        and not server.endswith("_")
        and len(name) <= MAX_LENGTH
        and not _HASHED_TAIL.search(name)
    )


def _hashed(server: str, tool: str, digits: int) -> str:
    name = f"{PREFIX}{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"
    return name[: MAX_LENGTH - digits - 1] + "_" + _digest(server, tool, digits)


def qualified_name(server: str, tool: str) -> str:
    """The qualified name of a server's tool (the same in every session)."""
    if is_plain(server, tool):
        return f"{PREFIX}{server}__{tool}"
    return _hashed(server, tool, DIGITS)


def split_qualified_name(name: str) -> tuple[str, str] | None:
    """The (server, tool) of a plain qualified name, or None (a hashed name: ask a ToolNames)."""
    if not name.startswith(PREFIX):
        return None
    server, _, tool = name[len(PREFIX) :].partition("__")
    return (server, tool) if is_plain(server, tool) else None


class ToolNames:
    """Qualified names of the tools we know, resolvable back to (server, tool). Safe from
    any thread: listings add names on the callers' threads."""

    def __init__(self) -> None:
        self._by_name: dict[str, tuple[str, str]] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<ToolNames {len(self._by_name)}>"

    def add(self, server: str, tool: str) -> str:
        pair = (server, tool)
        name = qualified_name(server, tool)
        with self._lock:
            return self._add(pair, name)

    def _add(self, pair: tuple[str, str], name: str) -> str:
        server, tool = pair
        holder = self._by_name.setdefault(name, pair)
        if holder == pair:
            return name
        # Two pairs with the same 64-bit hash: nobody finds one on purpose, but if it ever
        # happens a name once given keeps its meaning: the pair that came second gets 32 digits.
        name = _hashed(server, tool, 2 * DIGITS)
        holder = self._by_name.setdefault(name, pair)
        if holder != pair:
            raise ValueError(f"tool {tool!r} of server {server!r} has no free qualified name")
        return name

    def resolve(self, name: str) -> tuple[str, str]:
        found = self._by_name.get(name) or split_qualified_name(name)
        if found is None:
            raise KeyError(name)
        return found

    def forget_server(self, server: str) -> None:
        with self._lock:
            for name in [n for n, (s, _) in self._by_name.items() if s == server]:
                del self._by_name[name]
