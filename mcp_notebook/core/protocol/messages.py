"""The shape of a message from a server, checked once where it enters the session.

Everything a server sends is untrusted. A field of the wrong type would otherwise fail
deep inside dispatch (a dict as an id is unhashable, a list as params has no ``.get``),
or later in a card or a listing. ``malformed`` says what is wrong in a few words, or
None; only the fields the client reads are checked, and a response costs a few lookups.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from ...errors import ArgumentError

_IDS = (int, str)  # by exact type: a bool is not an id (True == 1 would match request 1)


def malformed(message: Any) -> str | None:
    """What makes ``message`` (a decoded JSON-RPC message) unusable, or None."""
    if type(message) is not dict:
        return f"a {_kind(message)}, not an object"
    if message.get("jsonrpc") != "2.0":
        return "jsonrpc is not '2.0'"
    if "method" not in message:  # a response: the hot path
        if type(message.get("id")) not in _IDS:
            return f"a response whose id is {_kind(message.get('id'))}"
        if "error" in message:
            return _error_problem(message)
        if type(message.get("result")) is not dict:
            return "a response with no result object" if "result" not in message else "a result that is not an object"
        return None
    method = message["method"]
    if type(method) is not str:
        return f"a method that is {_kind(method)}"
    if "id" in message and type(message["id"]) not in _IDS:
        return f"a {method} request whose id is {_kind(message['id'])}"
    params = message.get("params")
    if params is None:
        params = {}
    elif type(params) is not dict:
        return f"{method} params that are {_kind(params)}, not an object"
    check = _PARAMS.get(method) if "id" not in message else None
    return None if check is None else check(params)


# What names an entry of each listing: an entry without it cannot be shown or used.
_ENTRY_KEYS = {"tools": "name", "resources": "uri", "resourceTemplates": "uriTemplate", "prompts": "name"}


# Optional fields the client reads, by the type they must have; one of another type is dropped.
_ENTRY_FIELDS: dict[str, tuple[type, ...]] = {
    "title": (str,),
    "description": (str,),
    "name": (str,),
    "mimeType": (str,),
    "size": (int,),
    "inputSchema": (dict,),
    "outputSchema": (dict,),
    "annotations": (dict,),
    "arguments": (list,),
}


def clean_entry(listing: str, entry: Any) -> tuple[dict[str, Any] | None, str | None]:
    """One entry of a listing (``tools``, ``resources``, …) as the client can use it, and
    what was wrong with it: None for an entry with nothing to name it by; a copy without
    the optional fields of the wrong type (a list as annotations) otherwise."""
    if type(entry) is not dict:
        return None, f"a {listing} entry that is {_kind(entry)}, not an object"
    key = _ENTRY_KEYS[listing]
    if type(entry.get(key)) is not str or not entry[key]:
        return None, f"a {listing} entry whose {key} is {_kind(entry.get(key))}, not a string"
    wrong = [k for k, kinds in _ENTRY_FIELDS.items() if entry.get(k) is not None and type(entry[k]) not in kinds]
    arguments = entry["arguments"] if type(entry.get("arguments")) is list else []
    named = [a for a in arguments if type(a) is dict and type(a.get("name")) is str]
    if not wrong and len(named) == len(arguments):
        return entry, None
    cleaned = {k: v for k, v in entry.items() if k not in wrong}
    dropped = [f"{k} (not {' or '.join(t.__name__ for t in _ENTRY_FIELDS[k])})" for k in wrong]
    if len(named) != len(arguments):
        cleaned["arguments"] = named
        dropped.append(f"{len(arguments) - len(named)} argument(s) without a name")
    return cleaned, f"{listing} entry {entry[key][:80]!r}: dropped {', '.join(dropped)}"


def excerpt(message: Any, width: int = 200) -> str:
    """A short, escaped rendering of an untrusted message for diagnostics."""
    try:
        text = json.dumps(message, default=repr)  # ASCII: control characters come out escaped
    except (ValueError, RecursionError):
        text = repr(message)
    return text if len(text) <= width else text[: width - 1] + "…"


def _error_problem(message: dict[str, Any]) -> str | None:
    if "result" in message:
        return "a response with both result and error"
    error = message["error"]
    if type(error) is not dict:
        return f"an error that is {_kind(error)}, not an object"
    if type(error.get("code")) is not int:
        return f"an error whose code is {_kind(error.get('code'))}"
    if type(error.get("message", "")) is not str:
        return f"an error whose message is {_kind(error.get('message'))}"
    return None


def _kind(value: Any) -> str:
    """A JSON value's type in words (the value itself may be huge or hostile)."""
    if value is None:
        return "missing or null"
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def _is_number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def _progress(params: dict[str, Any]) -> str | None:
    if type(params.get("progressToken")) not in _IDS:
        return f"a progress token that is {_kind(params.get('progressToken'))}"
    if not _is_number(params.get("progress")):
        return f"progress that is {_kind(params.get('progress'))}, not a number"
    total = params.get("total")
    if total is not None and not _is_number(total):
        return f"a progress total that is {_kind(total)}, not a number"
    if type(params.get("message", "")) not in (str, type(None)):
        return f"a progress message that is {_kind(params.get('message'))}"
    return None


def _log(params: dict[str, Any]) -> str | None:
    # A level outside the spec's list ("warn") is kept: servers get it wrong and the line is
    # still worth showing; only a level that is not text is unusable.
    level = params.get("level")
    if type(level) is not str:
        return f"a log level that is {_kind(level)}, not a string"
    if type(params.get("logger", "")) not in (str, type(None)):
        return f"a logger name that is {_kind(params.get('logger'))}"
    return None


def _cancelled(params: dict[str, Any]) -> str | None:
    # The request id may be absent (2025-11-25: a task's cancel names none).
    if "requestId" in params and type(params["requestId"]) not in _IDS:
        return f"a cancelled request id that is {_kind(params['requestId'])}"
    return None


def _string_field(name: str) -> Callable[[dict[str, Any]], str | None]:
    def check(params: dict[str, Any]) -> str | None:
        if type(params.get(name)) is not str:
            return f"a {name} that is {_kind(params.get(name))}, not a string"
        return None

    return check


# The notifications whose params the client reads; others are passed on as objects.
_PARAMS: dict[str, Callable[[dict[str, Any]], str | None]] = {
    "notifications/progress": _progress,
    "notifications/message": _log,
    "notifications/cancelled": _cancelled,
    "notifications/resources/updated": _string_field("uri"),
    "notifications/elicitation/complete": _string_field("elicitationId"),
}


def not_json(method: str, error: TypeError) -> ArgumentError:
    """A value the JSON encoder cannot take (sent unchecked): nothing was sent."""
    return ArgumentError(f"{method}: {error}; nothing was sent: give text, numbers, booleans, None, lists or dicts")


__all__ = ["clean_entry", "excerpt", "malformed", "not_json"]
