"""Ready-made answers to a server's elicitation requests."""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]


def schema_defaults(params: JSON) -> JSON:
    """The ``default`` of every field of a form elicitation's ``requestedSchema``."""
    properties = (params.get("requestedSchema") or {}).get("properties") or {}
    return {name: f["default"] for name, f in properties.items() if isinstance(f, dict) and "default" in f}


def accept_defaults(params: JSON) -> JSON:
    """An elicitation handler that accepts every form with its defaults (and declines a
    form that has required fields without one): for scripts and unattended runs.

        Client(handlers=Handlers(elicitation=accept_defaults))
    """
    content = schema_defaults(params)
    required = (params.get("requestedSchema") or {}).get("required") or []
    if params.get("mode") == "url" or any(name not in content for name in required):
        return {"action": "decline"}
    return {"action": "accept", "content": content}


__all__ = ["accept_defaults", "schema_defaults"]
