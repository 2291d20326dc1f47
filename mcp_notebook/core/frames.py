"""DataFrames from plain data: the tables a result's ``to_frame()`` makes.

Everything here takes what a server sent (records, a resource's contents; a tool's result is
core/readers.py's) and imports pandas inside the function that needs it: importing this
module (and so core/types.py) costs nothing, and a script gets a table without IPython. The notebook
layer's listing tables (``%mcp tools`` ...) build on ``records_frame``. A result's table is
data and is never changed.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeGuard

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ROW_KEYS", "contents_frame", "records_frame", "records_of"]

JSON = dict[str, Any]


ROW_KEYS = ("rows", "data", "results", "items")
"""Keys whose list of records is the table, whatever other lists sit beside them."""


def records_of(value: Any) -> list[dict[str, Any]] | None:
    """The list of records in a structured value: the value itself, the list under one of
    ``ROW_KEYS`` (``{"count": 3, "rows": [...], "warnings": [...]}``), or the one list of
    records in an object (``{"result": [...]}``)."""
    if _records(value):
        return value
    if isinstance(value, dict):
        for key in ROW_KEYS:
            if _records(value.get(key)):
                return value[key]
        lists = [v for v in value.values() if _records(v)]
        if len(lists) == 1:
            return lists[0]
    return None


def _records(value: Any) -> TypeGuard[list[dict[str, Any]]]:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def records_frame(rows: Sequence[Mapping[str, Any]], columns: list[str] | None = None) -> pd.DataFrame:
    """A table of ``rows``; with ``columns``, those columns in that order (an empty table
    still has them)."""
    import pandas as pd

    if not rows:
        return pd.DataFrame(columns=columns)
    return pd.DataFrame.from_records(list(rows), columns=columns)


def contents_frame(contents: list[JSON], uri: str) -> pd.DataFrame:
    """A table from a resource's first content: CSV, TSV, JSON records, JSON Lines or
    Parquet, by its MIME type (or, failing that, the URI's suffix)."""
    if not contents:
        raise ValueError(f"{uri} has no contents")
    item = contents[0]
    mime = str(item.get("mimeType") or "").split(";")[0].strip().lower()
    if mime not in _READERS:
        path = str(item.get("uri") or uri).split("?")[0].lower()
        mime = next((m for s, m in _SUFFIXES.items() if path.endswith(s)), mime)
    reader = _READERS.get(mime)
    if reader is None:
        raise ValueError(
            f"{uri} is {mime or 'of no stated type'}; to_frame() reads CSV, TSV, JSON records, JSON Lines and Parquet"
        )
    data = base64.b64decode(item["blob"]) if "blob" in item else str(item.get("text", "")).encode()
    try:
        return reader(data)
    except ImportError as e:  # Parquet needs pyarrow or fastparquet
        raise ValueError(f"reading {mime} needs an extra package: {e}") from None


def _csv(data: bytes, sep: str = ",") -> pd.DataFrame:
    import pandas as pd

    return pd.read_csv(io.BytesIO(data), sep=sep)


def _json_lines(data: bytes) -> pd.DataFrame:
    import pandas as pd

    return pd.read_json(io.BytesIO(data), lines=True)


def _parquet(data: bytes) -> pd.DataFrame:
    import pandas as pd

    return pd.read_parquet(io.BytesIO(data))


def _json_records(data: bytes) -> pd.DataFrame:
    records = records_of(json.loads(data))
    if records is None:
        raise ValueError("the JSON is not a list of records (or an object holding one)")
    return records_frame(records)


_READERS: dict[str, Callable[[bytes], pd.DataFrame]] = {
    "text/csv": _csv,
    "text/tab-separated-values": lambda data: _csv(data, sep="\t"),
    "application/json": _json_records,
    "application/x-ndjson": _json_lines,
    "application/jsonl": _json_lines,
    "application/vnd.apache.parquet": _parquet,
}
_SUFFIXES = {
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".json": "application/json",
    ".jsonl": "application/jsonl",
    ".ndjson": "application/x-ndjson",
    ".parquet": "application/vnd.apache.parquet",
}
