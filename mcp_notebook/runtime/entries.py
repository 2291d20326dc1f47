"""A server's tools and prompts by name: the listing entry a call, a map or a prompt needs.

An entry comes from the cached listing when there is one (the tools' indexed once per
listing, and safe from any thread: a map looks its tool up again as rows go), else from
listing again: a name not listed yet, or a listing gone stale (a server that forgot
``list_changed``). A name the server does not list is an ``UnknownTool`` or
``UnknownPrompt`` naming the close ones.
"""

from __future__ import annotations

from typing import Any

from ..core.safety.text import printable
from ..errors import UnknownPrompt, UnknownTool
from .connection import Connection
from .params import did_you_mean, named

JSON = dict[str, Any]


class Entries:
    """One connection's tool and prompt entries, by name (``Server`` looks them up here)."""

    __slots__ = ("_index", "connection")

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self._index: tuple[Any, dict[str, JSON]] = (None, {})  # the tools listing indexed, and its index

    def __repr__(self) -> str:
        return printable(f"<Entries of {self.connection.name!r}>")

    def cached_tool(self, name: str) -> JSON | None:
        """The tool's listing entry if the listing is cached (safe from any thread)."""
        raws = self.connection.cached("tools")
        if raws is None:
            return None
        key, index = self._index
        if key is not raws:
            index = {raw["name"]: raw for raw in raws if isinstance(raw.get("name"), str)}
            self._index = (raws, index)
        return index.get(name)

    async def find_tool(self, name: str, required: bool) -> JSON | None:
        """The tool's listing entry; UnknownTool if it is required and not there (on the loop)."""
        tool = self.cached_tool(name)
        if tool is not None:
            return tool
        # Not listed yet, or the listing is stale (a server that forgot list_changed).
        raws = await self.connection.listing("tools", None)
        tool = self.cached_tool(name) or named(raws, name)
        if tool is None and required:
            where = self.connection.name
            raise UnknownTool(f"server {where!r} has no tool {name!r}{did_you_mean(raws, name, 'list_tools()')}")
        return tool

    def cached_prompt(self, name: str) -> JSON | None:
        """The prompt's entry in the cached listing, if both are there."""
        return named(self.connection.cached("prompts") or [], name)

    async def find_prompt(self, name: str) -> JSON:
        """The prompt's listing entry, refetched: the listing may be stale (on the loop)."""
        raws = await self.connection.listing("prompts", None)
        prompt = named(raws, name)
        if prompt is None:
            hint = did_you_mean(raws, name, "list_prompts() shows them")
            raise UnknownPrompt(f"server {self.connection.name!r} has no prompt {name!r}{hint}")
        return prompt


__all__ = ["Entries"]
