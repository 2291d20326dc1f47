"""DataFrames of listings and results. The only module that imports pandas.

A listing's text (names, titles, descriptions) is the server's, and pandas prints strings
as they are in a terminal: listings hold it printable (core/text.py). A result's table
(``to_frame()``) is data and is never changed."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable, Iterable
from typing import Any

import pandas as pd

from ..core.text import printable
from ..core.types import CallResult, Prompt, ReadResult, Resource, ResourceTemplate, Tool

SERVER_COLUMNS = [
    "name",
    "transport",
    "status",
    "source",
    "server",
    "version",
    "protocol",
    "tools",
    "resources",
    "prompts",
    "error",
]
TOOL_COLUMNS = [
    "server",
    "name",
    "title",
    "description",
    "arguments",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "qualified_name",
]
RESOURCE_COLUMNS = ["server", "uri", "name", "title", "mime_type", "size", "description"]
TEMPLATE_COLUMNS = ["server", "uri_template", "name", "title", "mime_type", "description"]
PROMPT_COLUMNS = ["server", "name", "title", "description", "arguments"]
_HINTS = {
    "read_only": "readOnlyHint",
    "destructive": "destructiveHint",
    "idempotent": "idempotentHint",
    "open_world": "openWorldHint",
}


def _frame(rows: list[dict[str, Any]], columns: list[str]) -> pd.DataFrame:
    """A listing's table."""
    rows = [{k: printable(v) if isinstance(v, str) else v for k, v in row.items()} for row in rows]
    return pd.DataFrame.from_records(rows, columns=columns) if rows else pd.DataFrame(columns=columns)


def servers_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    frame = _frame(rows, SERVER_COLUMNS)
    for column in ("tools", "resources", "prompts"):
        frame[column] = frame[column].astype("Int64")
    return frame


def tool_arguments(tool: Tool) -> str:
    """``a*, b`` — the argument names, required ones marked with ``*``."""
    required = set(tool.required_arguments)
    names = list((tool.input_schema.get("properties") or {}).keys())
    return ", ".join(f"{n}*" if n in required else n for n in names)


def tools_frame(tools: Iterable[Tool]) -> pd.DataFrame:
    # The annotation columns hold the server's hints as sent (untrusted), <NA> when absent.
    rows = [
        {
            "server": t.server,
            "name": t.name,
            "title": t.title,
            "description": t.description,
            "arguments": tool_arguments(t),
            **{column: t.annotations.get(hint) for column, hint in _HINTS.items()},
            "qualified_name": t.qualified_name,
        }
        for t in tools
    ]
    frame = _frame(rows, TOOL_COLUMNS)
    for column in _HINTS:
        frame[column] = frame[column].astype("boolean")
    return frame


def _fields_frame(items: Iterable[Any], columns: list[str], **computed: Callable[[Any], Any]) -> pd.DataFrame:
    """Columns named like the items' attributes; ``computed`` ones from a function."""
    rows = [{c: computed[c](i) if c in computed else getattr(i, c) for c in columns} for i in items]
    return _frame(rows, columns)


def resources_frame(resources: Iterable[Resource]) -> pd.DataFrame:
    frame = _fields_frame(resources, RESOURCE_COLUMNS)
    frame["size"] = frame["size"].astype("Int64")
    return frame


def templates_frame(templates: Iterable[ResourceTemplate]) -> pd.DataFrame:
    return _fields_frame(templates, TEMPLATE_COLUMNS)


def prompt_arguments(prompt: Prompt) -> str:
    return ", ".join(f"{a.get('name')}*" if a.get("required") else str(a.get("name")) for a in prompt.arguments)


def prompts_frame(prompts: Iterable[Prompt]) -> pd.DataFrame:
    return _fields_frame(prompts, PROMPT_COLUMNS, arguments=prompt_arguments)


def roots_frame(roots: list[dict[str, Any]]) -> pd.DataFrame:
    return _frame([{"uri": r.get("uri"), "name": r.get("name")} for r in roots], ["uri", "name"])


# -- results -----------------------------------------------------------------------------


def records_of(value: Any) -> list[dict[str, Any]] | None:
    """The list of records in a structured value: the value itself, or the one list of
    records in an object (``{"count": 3, "rows": [...]}``, ``{"result": [...]}``)."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return value
    if isinstance(value, dict):
        lists = [v for v in value.values() if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)]
        if len(lists) == 1:
            return lists[0]
    return None


def call_result_frame(result: CallResult) -> pd.DataFrame:
    """A table from a tool's result: its structuredContent, else JSON in its text."""
    candidates = [result.structured]
    if result.structured is None and result.text:
        try:
            candidates.append(json.loads(result.text))
        except ValueError:
            pass
    for value in candidates:
        records = records_of(value)
        if records is not None:
            return pd.DataFrame.from_records(records)
        if isinstance(value, dict) and value:
            return pd.DataFrame([value])
    raise ValueError(
        f"the result of {result.tool!r} holds no table (no structuredContent records, no JSON text); "
        "use .content or .text"
    )


_READERS = {
    "text/csv": lambda data: pd.read_csv(io.BytesIO(data)),
    "text/tab-separated-values": lambda data: pd.read_csv(io.BytesIO(data), sep="\t"),
    "application/json": lambda data: _json_frame(json.loads(data)),
    "application/x-ndjson": lambda data: pd.read_json(io.BytesIO(data), lines=True),
    "application/jsonl": lambda data: pd.read_json(io.BytesIO(data), lines=True),
    "application/vnd.apache.parquet": lambda data: pd.read_parquet(io.BytesIO(data)),
}
_SUFFIXES = {
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".json": "application/json",
    ".jsonl": "application/jsonl",
    ".ndjson": "application/x-ndjson",
    ".parquet": "application/vnd.apache.parquet",
}


def _json_frame(value: Any) -> pd.DataFrame:
    records = records_of(value)
    if records is None:
        raise ValueError("the JSON is not a list of records (or an object holding one)")
    return pd.DataFrame.from_records(records)


def read_result_frame(result: ReadResult) -> pd.DataFrame:
    """A table from a resource: CSV, TSV, JSON records, JSON Lines or Parquet, by its
    MIME type (or, failing that, the URI's suffix)."""
    if not result.contents:
        raise ValueError(f"{result.uri} has no contents")
    item = result.contents[0]
    mime = (item.get("mimeType") or "").split(";")[0].strip().lower()
    if mime not in _READERS:
        path = str(item.get("uri") or result.uri).split("?")[0].lower()
        mime = next((m for s, m in _SUFFIXES.items() if path.endswith(s)), mime)
    reader = _READERS.get(mime)
    if reader is None:
        raise ValueError(
            f"{result.uri} is {mime or 'of no stated type'}; to_frame() reads CSV, TSV, JSON records, "
            "JSON Lines and Parquet"
        )
    data = base64.b64decode(item["blob"]) if "blob" in item else str(item.get("text", "")).encode()
    try:
        return reader(data)
    except ImportError as e:
        raise ValueError(f"reading {mime} needs an extra package: {e}") from None
