"""What a request sends, made from Python values, and the names a listing knows.

Values from numpy, pandas, datetime... become their JSON values here (``to_json``),
before they are checked and sent: one place for the magics and both Python APIs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..core.arguments.uritemplates import expand, variables
from ..core.arguments.values import to_json
from ..core.protocol.constants import LOG_LEVELS
from ..errors import ArgumentError

JSON = dict[str, Any]


def tool_arguments(name: str, arguments: Any) -> JSON:
    converted = {} if arguments is None else to_json(arguments)
    if not isinstance(converted, dict):
        raise ArgumentError(f"tool {name!r}: arguments must be a dict, not {type(arguments).__name__}")
    return converted


def prompt_params(name: str, arguments: dict[str, Any] | None) -> JSON:
    # Prompt arguments are strings by the spec: other values go as their JSON text
    # (3, true, [1, 2]); a missing one (None, NaN, NA) is left out, as if not given.
    converted = {} if arguments is None else to_json(arguments)
    if not isinstance(converted, dict):
        raise ArgumentError(f"prompt {name!r}: arguments must be a dict, not {type(arguments).__name__}")
    texts = {str(k): _prompt_text(v) for k, v in converted.items() if v is not None}
    return {"name": name, "arguments": texts} if texts else {"name": name}


def _prompt_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)  # no JSON form (a timedelta, say): its own text


def resource_uri(uri: Any, values: Mapping[str, Any] | None = None) -> str:
    """The URI to read: ``uri`` itself, or a resource template filled from ``values``
    (each of its variables given, no other)."""
    text = to_json(uri)
    if not isinstance(text, str):
        raise ArgumentError(f"a resource URI is a string, not {type(uri).__name__}")
    names = variables(text)
    if not names and not values:
        return text
    if not names:
        raise ArgumentError(f"{text} is not a template (it names no {{variables}}); give no values to read it")
    given = {str(k): to_json(v) for k, v in (values or {}).items()}
    unknown = [k for k in given if k not in names]
    missing = [k for k in names if given.get(k) is None]
    if unknown or missing:
        wrong = f"unknown {', '.join(unknown)}" if unknown else f"no value for {', '.join(missing)}"
        example = " ".join(f"{n}=..." for n in names)
        raise ArgumentError(f"template {text}: {wrong}; give its variables {', '.join(names)} ({example})")
    for name, value in given.items():
        if isinstance(value, (dict, list)):
            raise ArgumentError(f"template {text}: {name} takes a single value, not a {type(value).__name__}")
    return expand(text, given)


def complete_params(ref: JSON, argument: str, value: str, context: dict[str, str] | None) -> JSON:
    params: JSON = {"ref": ref, "argument": {"name": argument, "value": value}}
    if context:
        params["context"] = {"arguments": context}
    return params


def log_level_params(level: str) -> JSON:
    if level not in LOG_LEVELS:
        raise ArgumentError(f"unknown log level {level!r}; use one of {', '.join(LOG_LEVELS)}")
    return {"level": level}


def named(raws: list[JSON], name: str) -> JSON | None:
    """The listing entry called ``name``, if any."""
    return next((r for r in raws if r.get("name") == name), None)


def did_you_mean(raws: list[JSON], name: str, otherwise: str) -> str:
    """The end of an unknown-name error: close names from the listing, else ``otherwise``."""
    low = name.lower()
    close = [str(r.get("name")) for r in raws if low in str(r.get("name")).lower()]
    return f"; did you mean {', '.join(map(repr, close[:3]))}?" if close else f"; {otherwise}"


__all__ = [
    "complete_params",
    "did_you_mean",
    "log_level_params",
    "named",
    "prompt_params",
    "resource_uri",
    "tool_arguments",
]
