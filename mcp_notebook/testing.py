"""Assertions for the tests a notebook's calls become (``%mcp history --export PATH
--pytest``): a call ended well, its structured content fits the tool's output schema, and
(``--exact``) its result is the one recorded, fields marked volatile left out. A failure
says which call, where the results differ, what was expected and what came, in one line.

    from mcp_notebook.testing import expect_ok, expect_same
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

__all__ = ["comparable", "expect_ok", "expect_same"]

_SHOWN = 120  # characters of a value a failure shows


def comparable(method: str, raw: Any) -> Any:
    """The part of a result a test compares: a tool call's structured content (else its
    content), a read's contents, a prompt's messages."""
    if not isinstance(raw, dict):
        return raw
    if method == "tools/call":
        return raw["structuredContent"] if "structuredContent" in raw else raw.get("content")
    if method == "resources/read":
        return raw.get("contents")
    return raw.get("messages")


def expect_ok(result: Any, call: str) -> None:
    """AssertionError unless ``result`` ended well: not a tool error, and structured content
    that fits the tool's output schema (as the client checked it)."""
    if getattr(result, "is_error", False):
        raise AssertionError(f"{call}: the tool returned an error: {_short(getattr(result, 'text', ''))}")
    broken = getattr(result, "output_error", None)
    if broken:
        raise AssertionError(f"{call}: its structured content does not fit the tool's outputSchema: {_short(broken)}")


def expect_same(result: Any, method: str, expected: Any, call: str, volatile: Iterable[str] = ()) -> None:
    """AssertionError unless ``result``'s comparable part equals ``expected`` (the recorded
    one), leaving out every field named in ``volatile``, at any depth."""
    skip = frozenset(volatile)
    received = _without(comparable(method, result.raw), skip)
    wanted = _without(expected, skip)
    where = _first_difference(wanted, received, "")
    if where is not None:
        path, a, b = where
        raise AssertionError(
            f"{call}: the result differs from the recorded one at {path or 'the top'}: "
            f"expected {_short(a)}, received {_short(b)}"
        )


def _without(value: Any, skip: frozenset[str]) -> Any:
    if isinstance(value, dict):
        return {k: _without(v, skip) for k, v in value.items() if k not in skip}
    if isinstance(value, list):
        return [_without(v, skip) for v in value]
    return value


def _first_difference(a: Any, b: Any, path: str) -> tuple[str, Any, Any] | None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            if key not in a or key not in b:
                return f"{path}.{key}".lstrip("."), a.get(key, "(missing)"), b.get(key, "(missing)")
            found = _first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):  # lengths: below
            found = _first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path} (length)".lstrip("."), len(a), len(b)
        return None
    return None if _same(a, b) else (path.lstrip("."), a, b)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: 1 is not true, and NaN is NaN."""
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    text = "".join(c if c.isprintable() else " " for c in text)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"
