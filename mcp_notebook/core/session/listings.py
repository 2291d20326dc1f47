"""A session's listings (tools, resources, resource templates, prompts): fetched whole,
following ``nextCursor``; cached until the server says the list changed, then fetched again
for whoever looked; one fetch shared by the callers that miss the cache together. A modern
server's caching hints also apply (caching.py): a listing is served from the cache only
while fresh, and a private one only in the authorization context that fetched it."""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from ...errors import MCPError, ProtocolError, RPCError
from ..protocol.caching import CacheOwner, Freshness, freshness
from ..protocol.constants import METHOD_NOT_FOUND
from ..protocol.headers import HeaderMap, HeaderRouted, screen_tools
from ..protocol.messages import clean_entry, excerpt

JSON = dict[str, Any]

# key: (the request that lists it, the notification that says it changed)
LISTINGS = {
    "tools": ("tools/list", "notifications/tools/list_changed"),
    "resources": ("resources/list", "notifications/resources/list_changed"),
    "resourceTemplates": ("resources/templates/list", "notifications/resources/list_changed"),
    "prompts": ("prompts/list", "notifications/prompts/list_changed"),
}


class Listings:
    """``request(method, params)`` sends a request; what is skipped goes to ``diagnostics``;
    ``spawn`` runs a refresh in the background (on the session's loop). ``transport``: when
    it mirrors tool arguments into headers (modern HTTP), the tools listing tells it how,
    and leaves out the tools whose ``x-mcp-header`` annotations are invalid."""

    def __init__(
        self,
        name: str,
        request: Callable[[str, JSON | None], Awaitable[JSON]],
        diagnostics: deque[str],
        spawn: Callable[[Awaitable[Any]], None],
        owner: CacheOwner,
        transport: object = None,
    ) -> None:
        self.name = name
        self._owner = owner
        self._request = request
        self._diagnostics = diagnostics
        self._spawn = spawn
        self._cache: dict[str, list[JSON]] = {}
        self.version = 0  # moves whenever a cached listing is replaced or dropped: look again
        self._fresh: dict[str, Freshness] = {}
        self._fetching: dict[str, asyncio.Future[list[JSON]]] = {}  # listings in flight, shared
        self._generation: dict[str, int] = dict.fromkeys(LISTINGS, 0)
        self._header_maps: dict[str, HeaderMap] = {}  # tool -> its x-mcp-header arguments
        self.dropped_tools: dict[str, str] = {}  # tool -> why the last listing left it out
        self._dropped_said = True
        self._routed = transport if isinstance(transport, HeaderRouted) else None
        if self._routed is not None:
            self._routed.tool_headers = self.tool_headers

    def tool_headers(self, tool: str) -> HeaderMap | None:
        """The arguments of ``tool`` that go in headers (the transport's ``ToolHeaders``)."""
        return self._header_maps.get(tool)

    def dropped_notice(self) -> str | None:
        """Once per listing that left tools out: how many, and why (one line)."""
        if self._dropped_said or not self.dropped_tools:
            return None
        self._dropped_said = True
        name, why = next(iter(self.dropped_tools.items()))
        count = len(self.dropped_tools)
        return (
            f"server {self.name!r}: {count} tool{'s' if count > 1 else ''} left out for invalid x-mcp-header "
            f"annotations (e.g. {name!r}: {why})"
        )

    def cached(self, key: str) -> list[JSON] | None:
        """The cached listing, or None when it was never fetched, has changed since, or
        is private to another authorization context. (Past its ttl too: a look at what
        is known, for checks; ``list_all`` is what fetches a stale listing again.)"""
        items = self._cache.get(key)
        fresh = self._fresh.get(key)
        if items is not None and fresh is not None and fresh.context is not None:
            if fresh.context != self._owner.auth_context():
                return None  # private to whoever fetched it
        return items

    def changed(self, notification: str) -> None:
        """A ``…/list_changed`` notification: the listings it names are stale."""
        for key, (method, changed) in LISTINGS.items():
            if changed == notification:
                self._generation[key] += 1
                self.version += 1
                if self._cache.pop(key, None) is not None:
                    # Someone looked at this listing: keep it fresh for them.
                    self._spawn(self._refresh(key, method))

    async def _refresh(self, key: str, method: str) -> None:
        try:
            await self.list_all(key, refresh=True)
        except MCPError as e:
            self._diagnostics.append(f"refreshing {method} failed: {e}")

    async def list_all(self, key: str, *, refresh: bool = False) -> list[JSON]:
        """Every item of a listing (``tools``, ``resources``, ``resourceTemplates``,
        ``prompts``), following ``nextCursor`` to the end; cached until list_changed."""
        if not refresh and key in self._cache and self._fresh[key].serves(time.monotonic(), self._owner.auth_context()):
            return self._cache[key]
        # Callers that miss the cache together (calls gathered right after connecting)
        # share one fetch rather than each listing everything.
        fetch = None if refresh else self._fetching.get(key)
        if fetch is None:
            fetch = self._fetching[key] = asyncio.ensure_future(self._fetch_all(key))
            fetch.add_done_callback(lambda done: self._fetched(key, done))
        return await asyncio.shield(fetch)  # one caller's cancel does not stop the others'

    def _fetched(self, key: str, fetch: asyncio.Future[list[JSON]]) -> None:
        if self._fetching.get(key) is fetch:
            del self._fetching[key]
        if not fetch.cancelled():
            fetch.exception()  # retrieved here: every caller gets it through the shield

    async def _fetch_all(self, key: str) -> list[JSON]:
        method = LISTINGS[key][0]
        generation = self._generation[key]
        fresh: Freshness | None = None  # the listing's: its stalest page's
        owner = self._owner
        items: list[JSON] = []
        cursor: str | None = None
        seen: set[str] = set()
        while True:
            try:
                result = await self._request(method, {"cursor": cursor} if cursor else None)
            except RPCError as e:
                if e.code == METHOD_NOT_FOUND:
                    break  # the server has no such feature: an empty listing
                raise
            page_fresh = freshness(result, modern=owner.modern, now=time.monotonic(), context=owner.auth_context())
            fresh = page_fresh if fresh is None else fresh.and_(page_fresh)
            page = result.get(key) or []
            if not isinstance(page, list):
                raise ProtocolError(f"server {self.name!r} sent a {method} result whose {key!r} is not a list")
            for entry in page:
                usable, problem = clean_entry(key, entry)
                if usable is not None:
                    items.append(usable)
                if problem is not None:
                    self._diagnostics.append(problem if usable is not None else f"skipped {problem}: {excerpt(entry)}")
            cursor = result.get("nextCursor")
            if not cursor:
                break
            if not isinstance(cursor, str):
                raise ProtocolError(f"server {self.name!r} sent a {method} cursor that is not a string")
            if cursor in seen:
                raise ProtocolError(f"server {self.name!r} repeated the {method} cursor {cursor!r}: pagination loops")
            seen.add(cursor)
        if key == "tools" and self._routed is not None and self._routed.mirrors_params:
            items = self._screen(items)
        if self._generation[key] == generation:
            self._cache[key] = items
            self.version += 1
            self._fresh[key] = fresh or freshness({}, modern=owner.modern, now=time.monotonic(), context="")
        return items

    def _screen(self, tools: list[JSON]) -> list[JSON]:
        """Leave out the tools whose x-mcp-header annotations are invalid (the spec's rule for
        HTTP: one bad tool must not cost the others); keep the rest's header maps."""
        kept, self._header_maps, dropped = screen_tools(tools)
        for name, why in dropped.items():
            self._diagnostics.append(f"left out tool {name!r}: {why}")
        if dropped != self.dropped_tools:
            self.dropped_tools, self._dropped_said = dropped, False
        return kept


__all__ = ["LISTINGS", "Listings"]
