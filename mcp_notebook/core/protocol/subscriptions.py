"""Subscriptions of the modern era (2026-07-28), sans-IO: what a ``subscriptions/listen``
request asks for, and which notifications belong to the one that is live.

One long-lived ``subscriptions/listen`` request replaces the legacy GET stream and
``resources/subscribe``: it names the notifications wanted (the list changes the server's
capabilities offer, updates of the subscribed URIs). The server acknowledges it, then tags
everything it sends on it with the request's id. When the subscribed URIs change, a new
request is made and, once acknowledged, the old one is ended; so one subscription is live
at a time, and what is tagged for another is dropped. Requests are numbered as they are
made: an acknowledgement that arrives after a newer one's ends its own request rather than
undo the newer (the server may answer two in either order). A modern server sends list
changes and resource updates only on a listen stream, tagged: untagged ones are dropped.
The connection does the I/O (runtime/listening.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .era import META_SUBSCRIPTION_ID

JSON = dict[str, Any]

LISTEN = "subscriptions/listen"
ACKNOWLEDGED = "notifications/subscriptions/acknowledged"
UPDATED = "notifications/resources/updated"
# capability -> the filter's flag for its list changes
LIST_CHANGES = {"tools": "toolsListChanged", "prompts": "promptsListChanged", "resources": "resourcesListChanged"}
URIS = "resourceSubscriptions"
_numbers = itertools.count(1)  # the order listen requests are made in (any session: only their order counts)


def listen_scoped(method: str) -> bool:
    """Whether a modern server sends ``method`` only on a listen stream (tagged)."""
    return method == UPDATED or (method.startswith("notifications/") and method.endswith("/list_changed"))


def listen_filter(capabilities: JSON, uris: Iterable[str]) -> JSON:
    """What to listen for: each list change the server says it announces, and updates of
    ``uris`` when it offers resource subscriptions. Empty: nothing to listen for."""
    wanted: JSON = {}
    for capability, flag in LIST_CHANGES.items():
        offered = capabilities.get(capability)
        if isinstance(offered, dict) and offered.get("listChanged") is True:
            wanted[flag] = True
    resources = capabilities.get("resources")
    subscribed = sorted(set(uris))
    if subscribed and isinstance(resources, dict) and resources.get("subscribe") is True:
        wanted[URIS] = subscribed
    return wanted


def subscription_id(params: JSON) -> Any:
    """The subscription a notification is tagged with (None: untagged; a tag that is not
    an id matches none of ours)."""
    meta = params.get("_meta")
    if not isinstance(meta, dict) or META_SUBSCRIPTION_ID not in meta:
        return None
    tag = meta[META_SUBSCRIPTION_ID]
    return tag if isinstance(tag, (int, str)) and not isinstance(tag, bool) else "?"


@dataclass(eq=False)
class Listen:
    """One ``subscriptions/listen`` request: what it asks for, its id once sent, what the
    server agreed to (its acknowledgement; None until then), and its number (a later
    request has a higher one)."""

    wanted: JSON
    id: int | str | None = None
    agreed: JSON | None = None
    number: int = field(default_factory=lambda: next(_numbers))

    def __repr__(self) -> str:
        state = "acknowledged" if self.agreed is not None else "waiting"
        return f"<Listen {self.id!r} {state}>"

    def uris(self) -> list[str]:
        """The URIs the server agreed to send updates of."""
        agreed = (self.agreed or {}).get(URIS)
        return [u for u in agreed if isinstance(u, str)] if isinstance(agreed, list) else []


@dataclass
class Subscriptions:
    """One session's listen requests: the live one (acknowledged, not replaced) and
    those waiting for their acknowledgement, by id."""

    live: Listen | None = None
    waiting: dict[Any, Listen] = field(default_factory=dict)

    def sent(self, listen: Listen, rid: int | str) -> None:
        listen.id = rid
        self.waiting[rid] = listen

    def acknowledged(self, params: JSON) -> tuple[Listen, Listen | None] | None:
        """An acknowledgement: the listen it answers and the one to end now. That is the
        one it replaces, when it becomes live; or itself, when a newer one is live already
        (acknowledged first: it asks for what is wanted now). None: not one of ours (or
        not waiting)."""
        listen = self.waiting.pop(subscription_id(params), None)
        if listen is None:
            return None
        agreed = params.get("notifications")
        listen.agreed = agreed if isinstance(agreed, dict) else {}
        if self.live is not None and self.live.number > listen.number:
            return listen, listen
        replaced, self.live = self.live, listen
        return listen, replaced

    def ended(self, listen: Listen) -> bool:
        """The request ended (answered, failed, cancelled); whether it was the live one."""
        if listen.id is not None:
            self.waiting.pop(listen.id, None)
        if self.live is listen:
            self.live = None
            return True
        return False

    def accepts(self, method: str, params: JSON, *, modern: bool = False) -> bool:
        """Whether a notification is for us: untagged ones are (request-scoped: progress,
        logs), except, from a ``modern`` server, those it may send only on a listen
        stream; a tagged one only for the live subscription, or the acknowledgement of
        one that waits for it."""
        tag = subscription_id(params)
        if tag is None:
            return not (modern and listen_scoped(method))
        if method == ACKNOWLEDGED:
            return tag in self.waiting
        return self.live is not None and self.live.id == tag

    def owns(self, rid: Any) -> Listen | None:
        """The listen request with id ``rid`` (live or waiting), if any."""
        if self.live is not None and self.live.id == rid:
            return self.live
        return self.waiting.get(rid)


__all__ = [
    "ACKNOWLEDGED",
    "LISTEN",
    "LIST_CHANGES",
    "UPDATED",
    "URIS",
    "Listen",
    "Subscriptions",
    "listen_filter",
    "listen_scoped",
    "subscription_id",
]
