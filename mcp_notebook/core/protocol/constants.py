"""Protocol constants: versions we speak and JSON-RPC error codes."""

from __future__ import annotations

LATEST_PROTOCOL_VERSION = "2025-11-25"  # the newest legacy version: what initialize offers
# The legacy era (an initialize handshake, then a session), newest first: what we offer is
# the first, what we accept is any of them.
SUPPORTED_PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
LEGACY_PROTOCOL_VERSIONS = SUPPORTED_PROTOCOL_VERSIONS
# The modern era (stateless: every request carries its version in _meta), newest first.
MODERN_PROTOCOL_VERSIONS = ("2026-07-28",)
LATEST_MODERN_VERSION = MODERN_PROTOCOL_VERSIONS[0]
# What a server's "protocol" setting may say: auto (probe, prefer modern), legacy
# (initialize only), or one dated version.
PROTOCOL_CHOICES = ("auto", "legacy", *MODERN_PROTOCOL_VERSIONS, *LEGACY_PROTOCOL_VERSIONS)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800  # used for our own cancels; never sent on the wire
URL_ELICITATION_REQUIRED = -32042
# 2026-07-28 (modern era) errors
HEADER_MISMATCH = -32020  # an HTTP header disagrees with the body (e.g. a stale tool list)
MISSING_CLIENT_CAPABILITY = -32021  # the request needs a capability the client did not declare
UNSUPPORTED_PROTOCOL_VERSION = -32022  # data: {"supported": [...], "requested": ...}
MODERN_ERRORS = (HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION)

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
