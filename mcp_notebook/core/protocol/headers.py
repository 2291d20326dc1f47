"""The HTTP headers a modern (2026-07-28) request mirrors from its body (sans-IO).

``Mcp-Method`` names the method; ``Mcp-Name`` the tool, prompt or resource a request is
about; ``Mcp-Param-{Name}`` the tool arguments whose schema says ``x-mcp-header``, so that
a proxy can route on them without reading the body. A value that is not plain visible
ASCII goes Base64-encoded between the spec's sentinels (``=?base64?…?=``).

A tool whose ``x-mcp-header`` annotations break the spec's rules is not usable over HTTP
(``tool_header_map`` says why): the listing drops it.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from ...errors import ArgumentError

JSON = dict[str, Any]
HeaderMap = dict[tuple[str, ...], str]  # an argument's path (properties keys) -> its header's name part

ANNOTATION = "x-mcp-header"
PARAM_PREFIX = "Mcp-Param-"
# What Mcp-Name mirrors (the tasks extension names its task the same way).
NAMED = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}
PRIMITIVES = ("string", "integer", "boolean")
SAFE_INTEGER = 2**53 - 1  # the spec bounds mirrored integers to what JavaScript holds exactly
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # RFC 9110 tchar
_SENTINEL = re.compile(r"=\?base64\?.*\?=", re.DOTALL)
# Keywords whose value is a map of names to schemas, and those whose value is data.
_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})
_DATA = frozenset({"enum", "const", "default", "examples", "example", "required", "description", "title"})


class ToolHeaders(Protocol):
    """The seam between a listing and the HTTP transport: a tool's header map (what the
    listing saw), or None when the tool is not listed (nothing to mirror)."""

    def __call__(self, tool: str) -> HeaderMap | None: ...


@runtime_checkable
class HeaderRouted(Protocol):
    """A transport that mirrors tool arguments into headers (modern Streamable HTTP): the
    tools listing sets its ``tool_headers``."""

    tool_headers: ToolHeaders | None

    @property
    def mirrors_params(self) -> bool:
        """Whether it mirrors them now (it speaks a modern version)."""
        ...


class InvalidToolHeaders(ValueError):
    """A tool's ``x-mcp-header`` annotations break the spec's rules (the message says how)."""


def encode_value(text: str) -> str:
    """A header value for ``text``: as is when it is plain visible ASCII (spaces inside),
    else Base64 between the sentinels (also a value that looks like the sentinel)."""
    plain = all(" " <= c <= "~" for c in text) and text == text.strip(" ") and not _SENTINEL.fullmatch(text)
    if plain:
        return text
    return "=?base64?" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "?="


def decode_value(value: str) -> str:
    """The text a header value carries (the sentinel form decoded)."""
    if _SENTINEL.fullmatch(value):
        try:
            return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
        except ValueError:
            return value
    return value


def standard_headers(message: Mapping[str, Any]) -> dict[str, str]:
    """A modern request's ``Mcp-Method``, and ``Mcp-Name`` (the tool's or prompt's name,
    the resource's URI) for the methods the spec names."""
    method = message.get("method")
    if not isinstance(method, str):
        return {}
    headers = {"Mcp-Method": encode_value(method)}
    params = message.get("params")
    key = NAMED.get(method)
    value = params.get(key) if key and isinstance(params, dict) else None
    if isinstance(value, str):
        headers["Mcp-Name"] = encode_value(value)
    return headers


def _type_ok(schema: JSON) -> bool:
    kind = schema.get("type")
    if isinstance(kind, list):  # ["string", "null"]: a nullable primitive (null is omitted)
        kinds = [k for k in kind if k != "null"]
        return len(kinds) == 1 and kinds[0] in PRIMITIVES
    return kind in PRIMITIVES


def _count_annotations(node: Any) -> int:
    """Every ``x-mcp-header`` anywhere in a schema (data keywords aside)."""
    if isinstance(node, list):
        return sum(_count_annotations(item) for item in node)
    if not isinstance(node, dict):
        return 0
    count = 1 if ANNOTATION in node else 0
    for key, value in node.items():
        if key in _DATA or key == ANNOTATION:
            continue
        if key in _NAME_MAPS and isinstance(value, dict):
            count += sum(_count_annotations(sub) for sub in value.values())
        else:
            count += _count_annotations(value)
    return count


def tool_header_map(tool: Mapping[str, Any]) -> HeaderMap:
    """The arguments a tool mirrors into headers, by path; InvalidToolHeaders when its
    annotations break a rule (empty, not a token, repeated, not on a string, integer or
    boolean, or not reachable from the root through ``properties`` alone)."""
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict):
        return {}
    found: HeaderMap = {}
    seen: dict[str, str] = {}

    def walk(node: JSON, path: tuple[str, ...]) -> None:
        properties = node.get("properties")
        if not isinstance(properties, dict):
            return
        for key, sub in properties.items():
            if not isinstance(sub, dict):
                continue
            here = (*path, key)
            where = ".".join(here)
            if ANNOTATION in sub:
                name = sub[ANNOTATION]
                if not isinstance(name, str) or not name:
                    raise InvalidToolHeaders(f"parameter {where!r} has an empty {ANNOTATION}")
                if not _TOKEN.fullmatch(name):
                    raise InvalidToolHeaders(f"parameter {where!r} has {ANNOTATION} {name!r}, not a header name")
                if name.lower() in seen:
                    raise InvalidToolHeaders(f"parameters {seen[name.lower()]!r} and {where!r} share header {name!r}")
                if not _type_ok(sub):
                    raise InvalidToolHeaders(
                        f"parameter {where!r} has {ANNOTATION} but is not a string, integer or boolean"
                    )
                seen[name.lower()] = where
                found[here] = name
            walk(sub, here)

    walk(schema, ())
    if _count_annotations(schema) != len(found):
        raise InvalidToolHeaders(f"an {ANNOTATION} is not reachable through properties alone")
    return found


def header_text(value: Any) -> str | None:
    """A mirrored argument as header text (encoded); None when it is null. ValueError for a
    value that is not a string, integer or boolean, or an integer out of the safe range."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        if abs(value) > SAFE_INTEGER:
            raise ValueError(f"{value} is beyond the integers a header may carry (±2^53-1)")
        return str(value)
    if isinstance(value, str):
        return encode_value(value)
    raise ValueError(f"a {type(value).__name__} cannot go in a header (a string, integer or boolean can)")


def param_headers(tool: str, header_map: HeaderMap, arguments: Any) -> dict[str, str]:
    """The ``Mcp-Param-*`` headers of a call to ``tool``: each annotated argument present
    (and not null) at its path. ArgumentError for one a header cannot carry."""
    headers: dict[str, str] = {}
    for path, name in header_map.items():
        value: Any = arguments
        for key in path:
            value = value.get(key) if isinstance(value, dict) else None
        try:
            text = header_text(value)
        except ValueError as e:
            raise ArgumentError(f"tool {tool!r}: argument {'.'.join(path)!r} goes in header {name!r}: {e}") from None
        if text is not None:
            headers[PARAM_PREFIX + name] = text
    return headers


def screen_tools(tools: list[JSON]) -> tuple[list[JSON], dict[str, HeaderMap], dict[str, str]]:
    """Split a tools listing: the usable tools, their header maps (those with any), and the
    dropped ones' reasons, by name."""
    kept: list[JSON] = []
    maps: dict[str, HeaderMap] = {}
    dropped: dict[str, str] = {}
    for tool in tools:
        name = str(tool.get("name", ""))
        try:
            header_map = tool_header_map(tool)
        except InvalidToolHeaders as e:
            dropped[name] = str(e)
            continue
        kept.append(tool)
        if header_map:
            maps[name] = header_map
    return kept, maps, dropped


__all__ = [
    "NAMED",
    "HeaderMap",
    "HeaderRouted",
    "InvalidToolHeaders",
    "ToolHeaders",
    "decode_value",
    "encode_value",
    "header_text",
    "param_headers",
    "screen_tools",
    "standard_headers",
    "tool_header_map",
]
