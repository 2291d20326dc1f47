"""DataFrames from plain data: the tables a result's ``to_frame()`` makes.

Everything here takes what a server sent (records, a resource's contents; a tool's result is
core/tables/readers.py's) and imports pandas inside the function that needs it: importing this
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

from .delimited import csv_frame
from .dtypes import typed

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
    """A table from a resource's first content: CSV, TSV, JSON records, JSON Lines, Parquet
    or Excel, by its MIME type (or, failing that, the URI's suffix).

    Each step once: a blob base64-decoded, text encoded to UTF-8 for pandas's parsers (they
    read bytes; given a str they encode it chunk by chunk, a third slower on a 30 MB CSV),
    JSON parsed from the str itself. A CSV gets the dtypes a tool result's CSV text gets
    (core/tables/delimited.py: the same path)."""
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
            f"{uri} is {mime or 'of no stated type'}; to_frame() reads CSV, TSV, JSON records, JSON Lines, "
            "Parquet and Excel (.xlsx)"
        )
    blob = item.get("blob")
    data: str | bytes = base64.b64decode(blob) if isinstance(blob, str) else str(item.get("text", ""))
    try:
        return reader(data)
    except ImportError as e:  # Parquet needs pyarrow (or fastparquet), Excel openpyxl
        package = _PACKAGES.get(mime, getattr(e, "name", None) or "")
        raise ValueError(f"reading {uri} ({mime}) needs {package}: pip install {package}") from None


def _source(data: str | bytes) -> io.BytesIO:
    return io.BytesIO(data.encode() if isinstance(data, str) else data)


def _csv(data: str | bytes, sep: str = ",") -> pd.DataFrame:
    return csv_frame(data.encode() if isinstance(data, str) else data, sep)


def _json_lines(data: str | bytes) -> pd.DataFrame:
    import pandas as pd

    return typed(pd.read_json(_source(data), lines=True))


def _parquet(data: str | bytes) -> pd.DataFrame:
    import pandas as pd

    return pd.read_parquet(_source(data))


def _excel(data: str | bytes) -> pd.DataFrame:
    import pandas as pd

    return pd.read_excel(_source(data))


def _json_records(data: str | bytes) -> pd.DataFrame:
    records = records_of(json.loads(data))  # parsed once; the records go to pandas as they are
    if records is None:
        raise ValueError("the JSON is not a list of records (or an object holding one)")
    return typed(records_frame(records))  # JSON has no dates and no integer with a gap: as a result's table


_XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
_READERS: dict[str, Callable[[str | bytes], pd.DataFrame]] = {
    "text/csv": _csv,
    "application/csv": _csv,
    "text/tab-separated-values": lambda data: _csv(data, sep="\t"),
    "application/json": _json_records,
    "application/x-ndjson": _json_lines,
    "application/jsonl": _json_lines,
    "application/x-jsonlines": _json_lines,
    "application/vnd.apache.parquet": _parquet,
    "application/x-parquet": _parquet,
    _XLSX: _excel,
}
_SUFFIXES = {
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".json": "application/json",
    ".jsonl": "application/jsonl",
    ".ndjson": "application/x-ndjson",
    ".parquet": "application/vnd.apache.parquet",
    ".xlsx": _XLSX,
}
# The package a reader needs beyond pandas: named in the error when it is missing.
_PACKAGES = {"application/vnd.apache.parquet": "pyarrow", "application/x-parquet": "pyarrow", _XLSX: "openpyxl"}
