"""A transcript's rows, worked out when it is viewed: what each message is (its kind, a
summary line, its size) and its payload as shown (redacted, elided). Viewing only watches:
a row that cannot be shown (a value the redaction cannot read) says so, said once in the
process (``VIEWING``), and the other rows show."""

from __future__ import annotations

from typing import Any

from ..loggers import Once
from ..protocol import jsonline
from ..safety.redact import redact_url, shown
from ..safety.text import printable

JSON = dict[str, Any]
VIEWING = Once("showing a row of the history or a transcript")


def size(message: Any) -> int:
    try:
        return len(jsonline.encode(message))
    except (TypeError, ValueError):
        return 0


def kind(message: JSON) -> str:
    if "method" in message:
        return "request" if "id" in message else "notification"
    return "error" if "error" in message else "response"


def summary(message: JSON) -> str:
    """A short line saying what the message is about (untrusted text: escaped where shown)."""
    if "method" in message:
        params = message.get("params")
        params = params if isinstance(params, dict) else {}
        about = next((params[k] for k in ("name", "uri", "level") if isinstance(params.get(k), str)), None)
        return f"{message['method']} {redact_url(about)}" if about else str(message["method"])
    error = message.get("error")
    if isinstance(error, dict):
        return f"error {error.get('code')}: {str(error.get('message', ''))[:120]}"
    result = message.get("result")
    if isinstance(result, dict):
        return "result: " + ", ".join(str(k) for k in list(result)[:6])
    return "result"


def message_row(direction: str, at: float, message: JSON, read: int | None = None) -> JSON:
    """One row of a transcript; ``read``: the size of a message kept as shown (elided)."""
    rid, method = message.get("id"), message.get("method")
    return {  # every string the server chose made printable (the payload: where it is shown)
        "direction": "→ sent" if direction == "out" else "← received",
        "time": at,
        "id": None if rid is None else printable(str(rid)),
        "method": printable(method) if isinstance(method, str) else None,
        "kind": kind(message),
        "summary": printable(summary(message)),
        "bytes": size(message) if read is None else read,
        "payload": shown(message) if read is None else message,
    }


def row_or_note(direction: str, at: float, message: JSON, read: int | None) -> JSON:
    """``message_row``, or a row saying it cannot be shown (said once): the others show."""
    try:
        return message_row(direction, at, message, read)
    except Exception as e:
        VIEWING.failed(e)
        row = message_row(direction, at, {}, 0)
        row.update(kind="?", summary=f"(not shown: {type(e).__name__})", payload=None)
        return row


__all__ = ["VIEWING", "kind", "message_row", "row_or_note", "size", "summary"]
