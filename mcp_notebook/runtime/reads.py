"""A connection's cache of ``resources/read`` results: those a modern server said stay
fresh for a while (``ttlMs`` > 0; core/protocol/caching.py has the rules), kept per authorization
context for a private one, dropped when the resource is updated or a session begins.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..core.protocol.caching import ResultCache, auth_context, freshness

JSON = dict[str, Any]
READ = "resources/read"


class Reads:
    """Fresh ``resources/read`` results by URI. ``authorization()`` is the Authorization
    header requests go with now (None without one): whose cached results are served."""

    def __init__(self, authorization: Callable[[], str | None]) -> None:
        self._authorization = authorization
        self._cache = ResultCache()

    def __repr__(self) -> str:
        return f"<Reads {self._cache!r}>"

    def context(self) -> str:
        """Who requests go as, for private cached results: a digest of their Authorization."""
        return auth_context(self._authorization())

    def get(self, uri: str) -> JSON | None:
        """A result still fresh for this caller, if one is kept."""
        return self._cache.get(READ, uri, now=time.monotonic(), context=self.context())

    def keep(self, uri: str, result: JSON, *, modern: bool) -> None:
        """Keep a result when a ``modern`` server said it stays fresh (a legacy one says nothing)."""
        if modern:
            now = time.monotonic()
            self._cache.put(READ, uri, result, freshness(result, modern=True, now=now, context=self.context()), now=now)

    def drop(self, uri: str) -> None:
        """The resource was updated: read it again next time."""
        self._cache.drop(READ, uri)

    def clear(self) -> None:
        self._cache.clear()


__all__ = ["Reads"]
