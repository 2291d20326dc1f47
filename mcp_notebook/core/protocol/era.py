"""The two eras of MCP, and telling which one a server speaks (sans-IO).

Legacy (2024-11-05 … 2025-11-25): an ``initialize`` handshake opens a session, and the
session carries the version and the capabilities. Modern (2026-07-28): no handshake and no
session; every request carries its protocol version, the client's capabilities and its
identity in ``_meta``, and ``server/discover`` says what a server speaks.

A client that speaks both probes with ``server/discover`` first: a discover result, or an
error only a modern server sends (``-32020``, ``-32021``, ``-32022``), means modern; any
other error, or silence, means legacy, and ``initialize`` follows. The session does the
I/O (session.py); what each answer means is decided here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...errors import ProtocolError, RPCError
from ..safety.text import clipped
from .constants import (
    LATEST_MODERN_VERSION,
    LEGACY_PROTOCOL_VERSIONS,
    METHOD_NOT_FOUND,
    MODERN_ERRORS,
    MODERN_PROTOCOL_VERSIONS,
    UNSUPPORTED_PROTOCOL_VERSION,
)

JSON = dict[str, Any]

# Reserved _meta keys of the modern era.
META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"

# Methods a modern server no longer has: never sent to one.
REMOVED_IN_MODERN = frozenset(
    {"initialize", "notifications/initialized", "ping", "logging/setLevel", "notifications/roots/list_changed"}
)


def modern_method(method: str, version: str, server: str) -> str:
    """What a modern server is sent for ``method``: ``ping`` becomes ``server/discover``
    (it answers the same question); the rest of what 2026-07-28 removed is an error."""
    if method == "ping":
        return "server/discover"
    if method in REMOVED_IN_MODERN:
        raise ProtocolError(f"{method}: server {server!r} speaks protocol {version}, which has no {method}")
    return method


def is_modern(version: str | None) -> bool:
    """Whether ``version`` is a modern-era (stateless) protocol version."""
    return version in MODERN_PROTOCOL_VERSIONS


def with_extensions(capabilities: JSON, extensions: JSON) -> JSON:
    """A modern client's capabilities: ``capabilities`` plus the ``extensions`` it follows."""
    if not extensions:
        return capabilities
    out = dict(capabilities)
    known = out.get("extensions")
    out["extensions"] = {**(known if isinstance(known, dict) else {}), **extensions}
    return out


def request_meta(version: str, capabilities: JSON, client_info: JSON, log_level: str | None = None) -> JSON:
    """The ``_meta`` every modern request carries."""
    meta: JSON = {
        META_PROTOCOL_VERSION: version,
        META_CLIENT_CAPABILITIES: capabilities,
        META_CLIENT_INFO: client_info,
    }
    if log_level is not None:
        meta[META_LOG_LEVEL] = log_level
    return meta


def with_meta(params: JSON | None, meta: JSON) -> JSON:
    """``params`` with ``meta`` merged into its ``_meta`` (the caller's own keys, such as a
    progress token, kept). The caller's dict is not changed."""
    out = dict(params or {})
    own = out.get("_meta")
    out["_meta"] = {**own, **meta} if isinstance(own, dict) else dict(meta)
    return out


def with_log_level(meta: JSON, level: str | None) -> JSON:
    """A modern request's ``_meta`` (a copy) asking the server to log at ``level`` (None: not at all)."""
    out = {k: v for k, v in meta.items() if k != META_LOG_LEVEL}
    if level is not None:
        out[META_LOG_LEVEL] = level
    return out


@dataclass(frozen=True)
class Verdict:
    """What a probe's answer means: ``modern`` at ``version``; ``retry`` the probe at
    ``version`` (the server named one we share); or ``legacy`` (initialize)."""

    era: str
    version: str | None = None


LEGACY = Verdict("legacy")


def after_discover(result: Any, server: str) -> Verdict:
    """A ``server/discover`` result: modern at the newest version both sides speak; a
    result naming only legacy versions (or none we can read) is a legacy advertisement."""
    supported = result.get("supportedVersions") if isinstance(result, dict) else None
    if not isinstance(supported, list):
        return LEGACY
    for version in MODERN_PROTOCOL_VERSIONS:
        if version in supported:
            return Verdict("modern", version)
    return LEGACY


def after_probe_error(error: RPCError, tried: str, server: str, *, first: bool) -> Verdict:
    """A probe answered with an error. -32022 naming a modern version we speak: probe again
    at it (once, even the one tried); naming only versions we do not speak: a clear error. Another modern
    error code (-32020, -32021): modern at ``tried``. Anything else, -32601 too: legacy."""
    if error.code == UNSUPPORTED_PROTOCOL_VERSION:
        supported = supported_versions(error)
        shared = [v for v in MODERN_PROTOCOL_VERSIONS if v in supported]
        if shared and first:
            # Also the version just tried: a modern server may refuse one request (a version
            # it was switching to, the conformance suite's probe) and accept it again.
            return Verdict("retry", shared[0])
        if supported and not any(v in LEGACY_PROTOCOL_VERSIONS for v in supported) and not shared:
            raise incompatible(server, supported)
        return LEGACY
    if error.code in MODERN_ERRORS:
        return Verdict("modern", tried)
    # Not modern_error's 404 rule: every modern server has server/discover, so "method not
    # found" for it is a legacy server's answer, whatever the HTTP status (a gateway such as
    # supergateway answers 404 with -32601); the spec's "any error that is not a recognized
    # modern error", as the official SDK reads it.
    return LEGACY


def modern_error(error: RPCError) -> bool:
    """Whether an error is one only a modern server sends: a modern error code, or an
    unknown method answered HTTP 404 (a modern HTTP server's way; for ``initialize``, which
    it does not have: never for ``server/discover``, which it does, see after_probe_error)."""
    return error.code in MODERN_ERRORS or (error.code == METHOD_NOT_FOUND and error.http_status == 404)


def legacy_sse_answer(error: Exception) -> bool:
    """Whether an HTTP answer to ``initialize`` means a legacy HTTP+SSE server is there
    instead (the spec's fallback): a 400, 404 or 405 that is not a modern server's error."""
    status = getattr(error, "status", None) if not isinstance(error, RPCError) else error.http_status
    if status not in (400, 404, 405):
        return False
    return not (isinstance(error, RPCError) and modern_error(error))


def supported_versions(error: RPCError) -> list[str]:
    """The versions a -32022 error says the server speaks (strings only)."""
    data = error.data if isinstance(error.data, dict) else {}
    supported = data.get("supported")
    return [v for v in supported if isinstance(v, str)] if isinstance(supported, list) else []


def incompatible(server: str, supported: list[str]) -> ProtocolError:
    ours = ", ".join((*MODERN_PROTOCOL_VERSIONS, *LEGACY_PROTOCOL_VERSIONS))
    theirs = ", ".join(clipped(v, 40) for v in supported[:6]) or "nothing"
    return ProtocolError(
        f"server {server!r} speaks protocol {theirs}; mcp-notebook speaks {ours}: upgrade the server or mcp-notebook"
    )


def discovered_info(result: JSON) -> JSON:
    """The server's name and version from a discover result (or any modern result)."""
    meta = result.get("_meta")
    info = meta.get(META_SERVER_INFO) if isinstance(meta, dict) else None
    return info if isinstance(info, dict) else {}


__all__ = [
    "LATEST_MODERN_VERSION",
    "LEGACY",
    "META_CLIENT_CAPABILITIES",
    "META_CLIENT_INFO",
    "META_LOG_LEVEL",
    "META_PROTOCOL_VERSION",
    "META_SERVER_INFO",
    "META_SUBSCRIPTION_ID",
    "REMOVED_IN_MODERN",
    "Verdict",
    "after_discover",
    "after_probe_error",
    "discovered_info",
    "incompatible",
    "is_modern",
    "legacy_sse_answer",
    "modern_error",
    "modern_method",
    "request_meta",
    "supported_versions",
    "with_extensions",
    "with_meta",
]
