"""A connection's subscriptions: the resource URIs followed, and how a server is told.

A legacy server is sent ``resources/subscribe`` and ``resources/unsubscribe``. A modern one
has one ``subscriptions/listen`` request open at a time, naming what is wanted now (list
changes, the subscribed URIs; core/protocol/subscriptions.py is the sans-IO part): a change opens a
new one, which replaces the live one once the server acknowledges it (an older one
acknowledged after it is ended instead). A new session follows
what the last one did; a listen the server ends is opened again, a few times.
Everything here that awaits runs on the background loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from ..core.protocol.subscriptions import (
    ACKNOWLEDGED,
    LISTEN,
    UPDATED,
    Listen,
    Subscriptions,
    listen_filter,
    subscription_id,
)
from ..core.session.session import ClientSession
from ..errors import MCPError, NotConnected, ProtocolError, RequestTimeout

JSON = dict[str, Any]
Listener = Callable[[str, JSON], Any]


class Owner(Protocol):
    """What the listening needs of its connection (runtime/connection.py)."""

    @property
    def name(self) -> str: ...

    @property
    def session(self) -> ClientSession | None: ...

    @property
    def request_timeout(self) -> float | None: ...

    def connected(self) -> ClientSession:
        """The open session, or the error that says why there is none."""
        ...

    def request(self, method: str, params: JSON | None) -> Coroutine[Any, Any, JSON]:
        """The request, renewing an ended session (a coroutine for the loop)."""
        ...


class Listening:
    """One connection's subscriptions (see the module's docstring)."""

    def __init__(self, owner: Owner) -> None:
        self.owner = owner
        self.subscriptions: dict[str, list[Listener]] = {}  # uri -> fn(uri, params)
        self.listens = Subscriptions()  # the session's subscriptions/listen requests (modern)
        self._listening: dict[Listen, tuple[asyncio.Future[JSON], asyncio.Future[JSON]]] = {}  # (request, ack)
        self._relistens = 0  # subscriptions the server ended, opened again since the last asked for
        self._relisten_task: asyncio.Future[None] | None = None
        self._noted_untagged = False  # the session's diagnostics say once that untagged ones are dropped

    def __repr__(self) -> str:
        return f"<Listening {self.owner.name!r} {len(self.subscriptions)} URIs>"

    def began(self, session: ClientSession) -> None:
        """A new session (not started yet): its listens start afresh, and it drops what is
        tagged for a subscription that is not live (and, modern, what must be tagged and is not)."""
        self.listens = Subscriptions()
        self._noted_untagged = False
        session.accepts = lambda method, params: self._accepts(session, method, params)

    def _accepts(self, session: ClientSession, method: str, params: JSON) -> bool:
        if self.listens.accepts(method, params, modern=session.modern):
            return True
        if subscription_id(params) is None and not self._noted_untagged:
            self._noted_untagged = True
            session.diagnostics.append(
                f"dropped {method} without a subscription id (a {session.protocol_version} server sends it "
                f"only on {LISTEN}); further ones are dropped too"
            )
        return False

    def notified(self, session: ClientSession, method: str, params: JSON) -> None:
        """A notification of ``session``'s: acknowledgements, a modern server ending a
        subscription, resource updates (to their callbacks)."""
        if method == ACKNOWLEDGED:
            self._acknowledged(params)
        elif method == "notifications/cancelled" and session.modern:
            # A modern server ends a subscription this way (it sends no other cancel).
            listen = self.listens.owns(params.get("requestId"))
            if listen is not None and listen.id is not None:
                session.fail_request(listen.id, NotConnected(f"server {self.owner.name!r} ended the subscription"))
        if method == UPDATED:
            uri = params.get("uri")
            for callback in self.subscriptions.get(uri if isinstance(uri, str) else "", []):
                session.call_safely(callback, uri, params)

    async def subscribe(self, uri: str, callback: Listener | None) -> None:
        """Follow ``uri``: ``resources/subscribe`` (legacy), or a new subscriptions/listen
        naming it, acknowledged, in place of the live one (modern)."""
        owner = self.owner
        session = owner.connected()
        if not session.modern:
            await owner.request("resources/subscribe", {"uri": uri})
        elif uri not in self.subscriptions or uri not in self._live_uris():
            added = uri not in self.subscriptions
            self.subscriptions.setdefault(uri, [])
            try:
                await self._listen(session, owner.request_timeout)
                if uri not in self._live_uris():
                    offered = (session.server_capabilities.get("resources") or {}).get("subscribe") is True
                    raise ProtocolError(
                        f"server {owner.name!r} did not agree to send updates of {uri}"
                        if offered
                        else f"server {owner.name!r} does not offer resource subscriptions"
                    )
            except BaseException:
                if added:
                    self.subscriptions.pop(uri, None)
                raise
        callbacks = self.subscriptions.setdefault(uri, [])
        if callback is not None:
            callbacks.append(callback)

    async def unsubscribe(self, uri: str) -> None:
        owner = self.owner
        session = owner.connected()
        if not session.modern:
            await owner.request("resources/unsubscribe", {"uri": uri})
            self.subscriptions.pop(uri, None)
            return
        if self.subscriptions.pop(uri, None) is not None:
            await self._listen(session, owner.request_timeout)  # the same, without it

    def _live_uris(self) -> list[str]:
        live = self.listens.live
        return live.uris() if live is not None else []

    async def resubscribe(self, session: ClientSession, timeout: float | None) -> None:
        """A new session follows what the last one did: a modern one listens (list changes,
        the subscribed URIs); a legacy one subscribes to the URIs again. Failures are noted
        in the diagnostics: the connection works without them."""
        self._relistens = 0
        try:
            if session.modern:
                await self._listen(session, timeout)
            else:
                for uri in list(self.subscriptions):
                    await session.request("resources/subscribe", {"uri": uri})
        except MCPError as e:
            session.diagnostics.append(f"subscribing again failed: {e}")

    # -- subscriptions/listen (modern) ---------------------------------------------------

    async def _listen(self, session: ClientSession, timeout: float | None) -> Listen | None:
        """Open a subscription for what is wanted now and wait (up to ``timeout``) for the
        server's acknowledgement, which ends the one it replaces. None: nothing to listen
        for (and the live one, if any, is ended)."""
        wanted = listen_filter(session.server_capabilities, self.subscriptions)
        if not wanted:
            if self.listens.live is not None:
                self._end(self.listens.live)
            return None
        listen = Listen(wanted)
        loop = asyncio.get_running_loop()
        ack: asyncio.Future[JSON] = loop.create_future()
        # Long-lived: no timeout (it is nobody's call to wait on); over HTTP its reply stream stays open.
        params = {"notifications": wanted}
        request = asyncio.ensure_future(
            session.request(LISTEN, params, timeout=None, on_start=lambda rid, _: self.listens.sent(listen, rid))
        )
        self._listening[listen] = (request, ack)
        request.add_done_callback(lambda done: self._listen_ended(session, listen, done))
        try:
            await asyncio.wait((request, ack), timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            self._end(listen)
            raise
        if ack.done():
            return listen
        name = self.owner.name
        if request.done():
            if not request.cancelled() and request.exception() is not None:
                raise request.exception()  # type: ignore[misc]
            raise ProtocolError(f"server {name!r} ended {LISTEN} before acknowledging it")
        self._end(listen)
        raise RequestTimeout(f"server {name!r} did not acknowledge {LISTEN} within {timeout:g} s")

    def _acknowledged(self, params: JSON) -> None:
        found = self.listens.acknowledged(params)
        if found is None:
            return
        listen, ended = found
        _, ack = self._listening.get(listen, (None, None))
        if ack is not None and not ack.done():
            ack.set_result(listen.agreed or {})
        if ended is not None:
            # The one replaced, ended only now (no update is missed in between); or this
            # one, older than the live one, which asks for what is wanted now.
            self._end(ended)

    def _end(self, listen: Listen) -> None:
        """End a subscription of ours (its request is cancelled: the server is told)."""
        self.listens.ended(listen)
        request, _ = self._listening.get(listen, (None, None))
        if request is not None:
            request.cancel()

    def _listen_ended(self, session: ClientSession, listen: Listen, request: asyncio.Future[JSON]) -> None:
        self._listening.pop(listen, None)
        live = self.listens.ended(listen)
        if request.cancelled():
            return  # ended by us
        error = request.exception()
        if live and session is self.owner.session and not session.closed and self._relistens < 3:
            # The server ended the live one (or its stream dropped): listen again, after a
            # pause, a few times; a new session does it anyway.
            self._relistens += 1
            why = f": {error}" if error is not None else ""
            session.diagnostics.append(f"{LISTEN} ended by the server{why}; listening again")
            self._relisten_task = asyncio.ensure_future(self._relisten(session, 2.0 ** (self._relistens - 1)))

    async def _relisten(self, session: ClientSession, delay: float) -> None:
        await asyncio.sleep(delay)  # a pause before asking a server that just ended it
        if session is self.owner.session and not session.closed and self.listens.live is None:
            try:
                await self._listen(session, self.owner.request_timeout)
            except MCPError as e:
                session.diagnostics.append(f"{LISTEN} again failed: {e}")


__all__ = ["Listener", "Listening", "Owner"]
