"""Caching hints of the modern era (2026-07-28), sans-IO: how long a result stays fresh
(``ttlMs``) and who may be served it (``cacheScope``).

A modern server puts both on its ``server/discover``, listing and ``resources/read``
results. A result is fresh for ``ttlMs`` after it arrived (absent or not a positive
integer: stale at once); a ``private`` one (the default) is served only in the
authorization context it was fetched in (the same token), a ``public`` one in any. A
legacy server's results carry no hints: its listings stay cached until it says they
changed, as before. Results of a request retried with answers (an input-required round)
are never cached: they depend on the answers (the session strips their hints: ``uncached``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

JSON = dict[str, Any]

MAX_TTL_MS = 24 * 60 * 60 * 1000  # a longer hint is taken as a day
HINTS = ("ttlMs", "cacheScope")


@dataclass(frozen=True)
class Freshness:
    """Until when a cached result may be served (monotonic seconds; None: until the server
    says it changed), and to whom (an authorization context; None: anyone)."""

    until: float | None
    context: str | None = None

    def serves(self, now: float, context: str) -> bool:
        if self.context is not None and self.context != context:
            return False
        return self.until is None or now < self.until

    def and_(self, other: Freshness) -> Freshness:
        """A whole made of two parts (pages of a listing): fresh while both are; its
        scope is the first's (the spec: the same for every page)."""
        if other.until is None or (self.until is not None and self.until <= other.until):
            return self
        return Freshness(other.until, self.context)


class CacheOwner(Protocol):
    """What decides how a session's results are cached: its era, and who is asking."""

    @property
    def modern(self) -> bool: ...

    auth_context: Callable[[], str]


UNTIL_CHANGED = Freshness(None)  # the legacy era's rule: fresh until list_changed


def ttl_ms(result: JSON) -> int:
    """The result's ``ttlMs``; 0 (stale at once) when absent, negative or not an integer."""
    ttl = result.get("ttlMs")
    if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl <= 0:
        return 0
    return min(ttl, MAX_TTL_MS)


def freshness(result: JSON, *, modern: bool, now: float, context: str) -> Freshness:
    """How long ``result`` may be served, and to whom (see the module's docstring)."""
    if not modern:
        return UNTIL_CHANGED
    scope = None if result.get("cacheScope") == "public" else context
    return Freshness(now + ttl_ms(result) / 1000, scope)


def uncached(result: JSON) -> JSON:
    """``result`` without its caching hints: what a request retried through input-required
    rounds returns depends on the answers, which no cache key holds (the spec: it MUST NOT
    be cached). Without ``ttlMs`` it is stale at once: nothing keeps it."""
    if not any(key in result for key in HINTS):
        return result
    return {k: v for k, v in result.items() if k not in HINTS}


def auth_context(authorization: str | None) -> str:
    """An authorization context from the Authorization header a request goes with (a
    digest: the cache does not hold the token); "" without one."""
    if not authorization:
        return ""
    return hashlib.sha256(authorization.encode()).hexdigest()[:32]


class ResultCache:
    """Results kept by (method, key), with their freshness (resources/read: by URI)."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], tuple[JSON, Freshness]] = {}

    def __repr__(self) -> str:
        return f"<ResultCache {len(self._entries)} entries>"

    def get(self, method: str, key: str, *, now: float, context: str) -> JSON | None:
        entry = self._entries.get((method, key))
        if entry is None or not entry[1].serves(now, context):
            return None
        return entry[0]

    def put(self, method: str, key: str, result: JSON, fresh: Freshness, *, now: float) -> None:
        """Keep ``result`` while it is fresh (a hint that says so: ttlMs > 0); else forget the key."""
        if fresh.until is not None and fresh.until > now:
            self._entries[(method, key)] = (result, fresh)
        else:
            self._entries.pop((method, key), None)

    def drop(self, method: str, key: str) -> None:
        self._entries.pop((method, key), None)

    def clear(self) -> None:
        self._entries.clear()


__all__ = [
    "MAX_TTL_MS",
    "UNTIL_CHANGED",
    "CacheOwner",
    "Freshness",
    "ResultCache",
    "auth_context",
    "freshness",
    "ttl_ms",
    "uncached",
]
