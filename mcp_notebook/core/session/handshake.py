"""Opening a session: which era the server speaks (era.py), then ``server/discover``
adopted or the legacy ``initialize`` handshake run. The session does the sending, through
the ``Peer`` seam; what the opening found goes into a ``Found`` the session keeps (filled as
it goes, so that a failed opening still says how far it got)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from types import EllipsisType
from typing import Any, Protocol

from ...errors import ProtocolError, RequestTimeout, RPCError
from ..history.calls import Call
from ..protocol import era
from ..protocol.constants import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    LATEST_MODERN_VERSION,
    LATEST_PROTOCOL_VERSION,
    METHOD_NOT_FOUND,
    MODERN_PROTOCOL_VERSIONS,
    SUPPORTED_PROTOCOL_VERSIONS,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from ..safety.text import clipped
from ..transports.http.shared import AuthChallenge, HttpStatusError
from .pending import ProgressCallback

JSON = dict[str, Any]


class Clocks(Protocol):
    @property
    def stopped_for(self) -> float:
        """Seconds the session's clocks stood still (a person logging in)."""
        ...


class Peer(Protocol):
    """What opening a session needs of the session."""

    @property
    def name(self) -> str: ...
    @property
    def client_info(self) -> JSON: ...
    @property
    def declared_capabilities(self) -> JSON: ...
    @property
    def modern_capabilities(self) -> JSON: ...
    @property
    def clocks(self) -> Clocks: ...

    async def request(
        self,
        method: str,
        params: JSON | None = None,
        *,
        timeout: float | EllipsisType | None = ...,
        on_progress: ProgressCallback | None = None,
        on_start: Callable[[int | str, Call | None], None] | None = None,
    ) -> JSON: ...

    def adopt(self, version: str, result: JSON) -> None:
        """Speak modern ``version`` from now on."""
        ...

    async def initialized(self, version: str, result: JSON) -> None:
        """The legacy handshake's end: speak ``version``."""
        ...


@dataclass
class Found:
    """What opening a session found: how its era was chosen (``%mcp status``), and its
    ``initialize`` in the history (a legacy HTTP+SSE server refuses it: the runtime notes it)."""

    era_note: str | None = None
    initialize_call: Call | None = None


# How long auto waits for a server/discover answer before taking silence for a legacy
# server (at most half the startup timeout). Known legacy servers answer with an error at
# once; a dual-era server too slow to start answers the initialize that follows with
# -32022, and is probed again.
PROBE_TIMEOUT = 3.0
# What a legacy server answers the probe, a method it does not know (-32022 too: one that
# names only legacy versions): an expected refusal. Another error (-32603) is a failure.
LEGACY_REFUSALS = (INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, UNSUPPORTED_PROTOCOL_VERSION)


async def open_session(session: Peer, timeout: float | None, protocol: str, found: Found) -> JSON:
    """``auto`` probes with ``server/discover`` and falls back to ``initialize``;
    ``legacy`` or a legacy version runs ``initialize`` only; a modern version is spoken as
    given (an error if the server does not). The whole start keeps within ``timeout``."""
    if protocol == "legacy" or protocol in SUPPORTED_PROTOCOL_VERSIONS:
        found.era_note = f"{protocol} asked: initialize, no probe"
        try:
            return await initialize(session, timeout, None if protocol == "legacy" else protocol, found)
        except RPCError as e:
            raise _legacy_refused(session.name, protocol, e) from None
    pinned = protocol != "auto"
    version = protocol if pinned else LATEST_MODERN_VERSION
    deadline = None if timeout is None else _now(session) + timeout
    before = ""  # what a second attempt follows, for the note
    probe: list[Call | None] = []  # the probe's entry in the history, handed back as it starts
    for attempt in (0, 1):
        wait = _left(deadline, session)
        if not pinned and wait is not None:
            wait = min(wait / 2, PROBE_TIMEOUT)
        probe.clear()
        refused = expected = False
        try:
            result = await discover(session, version, wait, lambda _, call: probe.append(call))
        except RPCError as e:
            verdict = era.after_probe_error(e, version, session.name, first=attempt == 0)
            heard = f"server/discover answered {e.code}"
            if pinned and verdict.era != "modern":
                raise _not_spoken(session.name, version, e) from None
            refused, expected = True, verdict.era != "legacy" or _legacy_refusal(e.code, e.http_status)
        except (RequestTimeout, HttpStatusError) as e:
            if pinned or isinstance(e, AuthChallenge):
                raise
            verdict, refused = era.LEGACY, True  # silence, or an HTTP error with no JSON-RPC answer in it
            if isinstance(e, HttpStatusError):
                heard = f"server/discover got HTTP {e.status}"
                expected = _legacy_refusal(None, e.status)
            else:
                heard = f"no answer to server/discover in {wait or 0:.1f} s"
                expected = True  # a legacy server may ignore a request before initialize
        else:
            verdict = era.after_discover(result, session.name)
            heard = "server/discover answered"
            if verdict.era == "modern":
                found.era_note = f"{before}{heard}: modern"
                session.adopt(verdict.version or version, result)
                return result
            if pinned:
                raise _not_spoken(session.name, version, None)
        if refused and probe and (call := probe[0]) is not None:
            # The user sent no probe, and its refusal is how the era is told: what it
            # meant is its outcome in the history, not an error (the transcript keeps it whole).
            # Another error (-32603, HTTP 503) stays one, saying what the handshake made of it.
            if expected:
                call.note = _probe_outcome(verdict, heard)
            elif call.error is not None:
                call.error = f"{call.error}; taken for a {_probe_outcome(verdict, heard)}"
        if verdict.era == "retry" and verdict.version:
            version, before = verdict.version, f"{heard} naming {verdict.version}; "
            continue
        found.era_note = f"{before}{heard}: {verdict.era}"
        if verdict.era == "modern":
            session.adopt(verdict.version or version, {})
            return {}
        try:
            return await initialize(session, _left(deadline, session), None, found)
        except RPCError as e:
            # A probe that timed out here but reached a slow starter locked it modern: its
            # -32022 names the versions; probe once more.
            shared = [v for v in MODERN_PROTOCOL_VERSIONS if v in era.supported_versions(e)]
            if e.code != UNSUPPORTED_PROTOCOL_VERSION or not shared or attempt:
                raise
            version, before = shared[0], f"{found.era_note}; initialize answered {e.code}; "
    raise ProtocolError(f"server {session.name!r} did not settle on a protocol version")  # pragma: no cover


async def discover(
    session: Peer,
    version: str,
    timeout: float | None,
    on_start: Callable[[int | str, Call | None], None] | None = None,
) -> JSON:
    """``server/discover`` at ``version`` (its _meta says so, whatever the session's era)."""
    meta = era.request_meta(version, session.modern_capabilities, session.client_info)
    return await session.request("server/discover", {"_meta": meta}, timeout=timeout, on_start=on_start)


def _legacy_refusal(code: int | None, status: int | None) -> bool:
    """Whether a probe's error is a legacy server's refusal: one of LEGACY_REFUSALS, or an
    HTTP 400/404/405 (a legacy HTTP server's answer to a request outside its session)."""
    return code in LEGACY_REFUSALS or status in (400, 404, 405)


def _probe_outcome(verdict: era.Verdict, heard: str) -> str:
    """What a refused probe meant, as the history says it."""
    if verdict.era == "retry":
        return f"probed again at {verdict.version} ({heard})"
    return f"{verdict.era} server ({heard})"


async def initialize(session: Peer, timeout: float | None, version: str | None, found: Found | None = None) -> JSON:
    """The legacy handshake, offering ``version`` (default: the newest legacy one)."""
    params = {
        "protocolVersion": version or LATEST_PROTOCOL_VERSION,
        "capabilities": session.declared_capabilities,
        "clientInfo": session.client_info,
    }

    def started(_: int | str, call: Call | None) -> None:
        if found is not None:
            found.initialize_call = call

    result = await session.request("initialize", params, timeout=timeout, on_start=started)
    answered = result.get("protocolVersion")
    if not isinstance(answered, str) or answered not in SUPPORTED_PROTOCOL_VERSIONS:
        raise ProtocolError(
            f"server {session.name!r} answered with protocol version {answered!r}; "
            f"mcp-notebook speaks {', '.join((*MODERN_PROTOCOL_VERSIONS, *SUPPORTED_PROTOCOL_VERSIONS))}: "
            "upgrade the server or mcp-notebook"
        )
    if version is not None and answered != version:
        raise ProtocolError(
            f"server {session.name!r} answered initialize with protocol {answered}, not the {version} asked for; "
            "use protocol auto to let mcp-notebook choose"
        )
    await session.initialized(answered, result)
    return result


def _not_spoken(server: str, version: str, error: RPCError | None) -> ProtocolError:
    why = f" ({clipped(error.message)})" if error is not None and error.message else ""
    return ProtocolError(
        f"server {server!r} does not speak protocol {version}{why}; use protocol auto to let mcp-notebook choose"
    )


def _legacy_refused(server: str, protocol: str, error: RPCError) -> RPCError:
    """-32022 to an initialize: a modern-only server. The same error (a connection that
    saw it legacy before probes afresh on its code), saying what to do."""
    if error.code != UNSUPPORTED_PROTOCOL_VERSION:
        return error
    speaks = ", ".join(clipped(v, 40) for v in era.supported_versions(error)[:6]) or "a newer protocol"
    message = f"server {server!r} speaks {speaks}, not {protocol}; use protocol auto to let mcp-notebook choose"
    return RPCError(error.code, message, error.data, http_status=error.http_status)


def _now(session: Peer) -> float:
    """The session's time: it stands still while a person logs in (pending.py)."""
    return time.monotonic() - session.clocks.stopped_for


def _left(deadline: float | None, session: Peer) -> float | None:
    return None if deadline is None else max(deadline - _now(session), 0.001)


__all__ = ["PROBE_TIMEOUT", "Found", "Peer", "discover", "initialize", "open_session"]
