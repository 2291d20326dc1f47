"""Who hears a session's notifications: plain listeners, ``fn(method, params)``, and
tagged ones, ``fn(method, params, tag)``, which also learn what the request a notification
came with was tagged (``pending.REQUEST_TAG``: a map's row), so that one of many calls in
flight can be named. Each runs through the session's ``call_safely``: a listener that
raises never breaks the connection."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

JSON = dict[str, Any]
NotificationListener = Callable[[str, JSON], Any]
TaggedListener = Callable[[str, JSON, "str | None"], Any]


class Listeners:
    __slots__ = ("_call", "_plain", "_tagged")

    def __init__(self, call_safely: Callable[..., None]) -> None:
        self._call = call_safely
        self._plain: list[NotificationListener] = []
        self._tagged: list[TaggedListener] = []

    def __repr__(self) -> str:
        return f"<Listeners {len(self._plain)} plain, {len(self._tagged)} tagged>"

    def add(self, listener: NotificationListener) -> Callable[[], None]:
        """Add a plain listener; returns what removes it."""
        self._plain.append(listener)
        return lambda: self._plain.remove(listener) if listener in self._plain else None

    def add_tagged(self, listener: TaggedListener) -> None:
        self._tagged.append(listener)

    def emit(self, method: str, params: JSON, tag: Callable[[], str | None]) -> None:
        """Tell every listener; ``tag()`` is asked only when a tagged one listens."""
        for listener in list(self._plain):
            self._call(listener, method, params)
        if self._tagged:
            found = tag()
            for tagged in list(self._tagged):
                self._call(tagged, method, params, found)


__all__ = ["Listeners", "NotificationListener", "TaggedListener"]
