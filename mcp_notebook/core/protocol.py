"""Protocol constants: versions we speak and JSON-RPC error codes."""

from __future__ import annotations

LATEST_PROTOCOL_VERSION = "2025-11-25"
# Newest first; what we offer is the first, what we accept is any of them.
SUPPORTED_PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800  # used for our own cancels; never sent on the wire
URL_ELICITATION_REQUIRED = -32042

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
