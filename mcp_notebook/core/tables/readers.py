"""Tables in a tool's result, whatever shape the server chose.

Most servers put their rows in text, not in ``structuredContent``. ``result_frame`` (behind
``CallResult.to_frame()``) reads, in this order, the first that holds a table:

1. ``records``: the structuredContent: a list of records, or an object holding one (under
   ``rows``/``data``/``results``/``items`` first), or columns and rows; any other object is one
   row (an object with several lists of records: a table each);
2. each text block, by the first of these that reads it:
   ``json`` (an array of objects, an object of arrays, an array of arrays under a header
   row, or an object holding one of those), ``jsonl`` (JSON Lines), ``csv`` (CSV or TSV:
   the delimiter sniffed, the header detected), ``markdown`` (pipe tables), ``python`` (a
   Python literal of records, parsed by walking its syntax tree (core/tables/literals.py: also
   ``datetime.date(...)``, ``Decimal('...')``, ``UUID('...')`` and the like, as database
   servers print rows) or, when it is JSON-shaped, by the JSON parser; never evaluated);
3. ``resource``: each embedded resource block, by its MIME type (core/tables/frames.py), or by the
   text readers when that type is not a table's.

Several blocks that are each a table make one table when their columns agree; otherwise
``result_tables`` (``CallResult.tables()``) has them all and the error says so. Every table
gets real dtypes (core/tables/dtypes.py). ``format=`` names one reader and forces it. A text block
that repeats the structuredContent as JSON (as the spec asks servers to) is not a second table.

Text readers are strict where a guess would mislead: prose is not a one-column CSV, and a
bracketed text is JSON or Python, never CSV. pandas is imported inside the functions.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...errors import ArgumentError
from ..safety.text import clipped
from .delimited import csv_frame
from .dtypes import typed
from .frames import ROW_KEYS, contents_frame, records_frame
from .literals import literal, wide

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FORMATS",
    "MAX_GUESSED_LITERAL",
    "MAX_LITERAL",
    "NotATable",
    "result_frame",
    "result_tables",
    "text_tables",
    "value_table",
    "value_tables",
]

JSON = dict[str, Any]

MAX_LITERAL = 10_000_000
"""The longest text (characters) parsed as a Python literal when ``format="python"`` asks
for it: its syntax tree takes many times the text's size."""
MAX_GUESSED_LITERAL = 1_000_000
"""The same, when the reader is only being tried (10 MB of tuples took 25 s and 2.9 GB)."""

_SAMPLE_LINES = 50  # a CSV's delimiter and width are judged on its first lines
_SAMPLE_CHARS = 65_536
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")  # a Markdown table's |---|---|
_CELL = re.compile(r"(?<!\\)\|")
_WIDE_DIGITS = re.compile(r"\d{20}")  # as many digits as 2**64 has: an integer literal may be WIDE
_NAME = re.compile(r"[^\W\d]\w*(?:[.-]\w+)*")  # a column name as a header row alone may hold: id, unit_price
_MARKED = re.compile(r"[_.\d-]|[a-z][A-Z]")  # only an identifier has these: unit_price, createdAt, q1


class NotATable(ValueError):
    """Why one reader does not read a text (the reason is short and names no data)."""


# -- values: structuredContent, JSON, Python literals -------------------------------------


def value_table(value: Any) -> pd.DataFrame:
    """The table in a parsed value: a list of records, a list of rows under a header row,
    an object of equal-length arrays, ``{"columns": [...], "rows"|"data": [[...]]}``, an
    object holding one of those (its ``ROW_KEYS`` first), else an object as one row."""
    import pandas as pd

    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, list):
        if not value:
            return pd.DataFrame()
        if all(isinstance(v, dict) for v in value):
            return records_frame(value)
        header = value[0]
        if (
            isinstance(header, (list, tuple))
            and header
            and all(isinstance(h, str) for h in header)
            and all(isinstance(row, (list, tuple)) and len(row) == len(header) for row in value[1:])
        ):
            return pd.DataFrame([list(row) for row in value[1:]], columns=list(header))
        raise NotATable("a list, but not of records, nor of rows under a header row")
    if not isinstance(value, dict) or not value:
        raise NotATable(f"a {type(value).__name__}, not records")
    columns = value.get("columns")
    if isinstance(columns, list) and all(isinstance(c, str) for c in columns):
        for key in ("rows", "data", "values"):
            rows = value.get(key)
            if isinstance(rows, list) and all(isinstance(r, (list, tuple)) and len(r) == len(columns) for r in rows):
                return pd.DataFrame([list(r) for r in rows], columns=columns)
    for key in (*ROW_KEYS, "result"):  # "result": how SDK servers wrap a tool's list
        inner = value.get(key)
        if isinstance(inner, list):
            try:
                return value_table(inner)
            except NotATable:
                pass
    lists = _record_lists(value)
    if len(lists) == 1:
        return records_frame(lists[0])
    if lists:
        raise NotATable("several lists of records")  # value_tables has them all
    arrays = list(value.values())
    if all(isinstance(a, list) for a in arrays) and len({len(a) for a in arrays}) == 1 and arrays[0]:
        return pd.DataFrame(value)  # an object of columns
    return records_frame([value])


def value_tables(value: Any) -> list[pd.DataFrame]:
    """``value_table``'s table, or each list's of an object holding several lists of records
    (``{"users": [...], "groups": [...]}``) and none under ``ROW_KEYS``."""
    try:
        return [value_table(value)]
    except NotATable:
        lists = _record_lists(value) if isinstance(value, dict) else []
        if len(lists) < 2:
            raise
        return [records_frame(records) for records in lists]


def _record_lists(value: JSON) -> list[list[JSON]]:
    return [v for v in value.values() if isinstance(v, list) and v and all(isinstance(x, dict) for x in v)]


# -- text readers ---------------------------------------------------------------------------


def read_json(text: str, forced: bool = False) -> list[pd.DataFrame]:
    if text.lstrip()[:1] not in ("[", "{"):
        raise NotATable("not a JSON array or object")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise NotATable("not valid JSON") from None
    return value_tables(value)


def read_jsonl(text: str, forced: bool = False) -> list[pd.DataFrame]:
    if not text.lstrip().startswith("{"):  # before splitting: a 30 MB CSV took 0.2 s to be refused
        raise NotATable("its first line is not a JSON object")
    lines = [line for line in text.strip().splitlines() if line.strip()]
    if len(lines) < 2 and not forced:
        raise NotATable("one line")  # one object is JSON's to read
    try:
        values = json.loads("[" + ",".join(lines) + "]")  # one parse, not one a line
    except (ValueError, RecursionError):
        raise NotATable("a line is not JSON") from None
    if not all(isinstance(v, dict) for v in values):
        raise NotATable("a line is not a JSON object")
    return [records_frame(values)]


def read_csv(text: str, forced: bool = False, sep: str | None = None) -> list[pd.DataFrame]:
    import pandas as pd

    body = text.strip("\r\n")
    start = body.lstrip()[:1]
    if not start:
        raise NotATable("no text")
    if start in ("[", "{", "(") and not forced:
        raise NotATable("bracketed: JSON or Python, not CSV")
    sample = body[:_SAMPLE_CHARS]
    lines = sample.splitlines()[:_SAMPLE_LINES]
    if len(sample) < len(body) and len(lines) > 1:
        lines = lines[:-1]  # the last line of a cut sample may be cut too
    alone = len(lines) < 2  # one line: only a header row (an empty table) or nothing
    if alone and not forced and not text.endswith(("\n", "\r")):
        raise NotATable("one line")  # a CSV writer ends its header row with a line break; prose need not
    if not forced and any("|" in line and _SEPARATOR.match(line) for line in lines[:3]):
        raise NotATable("a Markdown table")
    sniffer = csv.Sniffer()
    if sep is None:
        try:
            sep = sniffer.sniff("\n".join(lines), delimiters=",\t;|").delimiter
        except csv.Error:
            if not forced:
                raise NotATable("no delimiter") from None
            sep = ","
    rows = [row for row in csv.reader(io.StringIO("\n".join(lines)), delimiter=sep) if row]  # quoted newlines too
    widths = {len(row) for row in rows}
    if len(widths) > 1:
        raise NotATable("its lines have different numbers of fields")
    if widths == {1} and not forced:
        raise NotATable("one column: prose, not a table")
    if not forced and any(_prose(name) for name in rows[0]):
        raise NotATable("its first line reads as prose, not column names")
    if alone and not forced and not _names(rows[0]):
        raise NotATable("one line")  # a header row alone is names (id,name,total), not words ("Paris, France")
    if alone and forced and not all(_named(name) for name in rows[0]):
        raise NotATable("one line, and not a header row")  # e.g. a Python literal: no table to give
    try:
        numbers = any(_number(name) for name in rows[0])
        header = not numbers if alone else sniffer.has_header("\n".join(lines)) or not numbers
    except csv.Error:
        header = True
    try:
        # As a CSV resource is read (the same path), keeping what reads as a number but is
        # not one ("01234", "+1555…", "NA" in text).
        frame = csv_frame(body.encode(), sep, header)
    except (ValueError, pd.errors.ParserError) as e:
        raise NotATable(f"not CSV ({str(e).splitlines()[0][:80]})") from None
    return [frame]


def read_tsv(text: str, forced: bool = False) -> list[pd.DataFrame]:
    return read_csv(text, forced, sep="\t")


def read_markdown(text: str, forced: bool = False) -> list[pd.DataFrame]:
    """Every pipe table in the text (a header row, a ``|---|`` row, the rows under them)."""
    import pandas as pd

    if "|" not in text or "-" not in text:
        raise NotATable("no pipe table")
    lines = text.splitlines()
    frames = []
    i = 0
    while i + 1 < len(lines):
        if "|" in lines[i] and "|" in lines[i + 1] and _SEPARATOR.match(lines[i + 1]):
            header = _cells(lines[i])
            rows = []
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                cells = _cells(lines[i])
                rows.append((cells + [None] * len(header))[: len(header)])  # short rows padded, as GFM does
                i += 1
            frames.append(pd.DataFrame(rows, columns=header))
        else:
            i += 1
    if not frames:
        raise NotATable("no pipe table")
    return frames


def _cells(line: str) -> list[str | None]:
    line = line.strip()
    line = line[1:] if line.startswith("|") else line
    line = line[:-1] if line.endswith("|") and not line.endswith("\\|") else line
    return [cell.strip().replace("\\|", "|") or None for cell in _CELL.split(line)]


def read_python(text: str, forced: bool = False) -> list[pd.DataFrame]:
    body = text.strip()
    if body[:1] not in ("[", "{", "("):
        raise NotATable("not a Python list, dict or tuple")
    value = _json_shaped(body)
    if value is None:
        limit = MAX_LITERAL if forced else MAX_GUESSED_LITERAL
        if len(body) > limit:
            more = "" if forced else f' (format="python" reads up to {MAX_LITERAL:,})'
            raise NotATable(f"over {limit:,} characters: not parsed as a Python literal{more}")
        try:
            value = literal(body)  # literals and a few constructors (core/tables/literals.py): nothing is run
        except (ValueError, TypeError, ArithmeticError, SyntaxError, MemoryError, RecursionError):
            raise NotATable("not a Python literal") from None
    return value_tables(value)


def _json_shaped(body: str) -> Any:
    """A Python literal that is JSON but for its quotes and None/True/False, read by the JSON
    parser (ast.parse takes seconds and a gigabyte for a few MB); None when it is not one.

    Only when the text has no double quote, backslash or NUL: then every string is ``'...'``
    with no quote inside, so splitting on ``'`` separates strings from the rest exactly, and
    the words are translated outside strings only. Anything JSON then refuses (tuples, sets,
    bytes, ``nan``, non-string keys, calls) goes to ``literal``. Integers are as ``literal``
    gives them: text when ``WIDE`` or wider (the hook only where 20 digits in a row occur)."""
    if '"' in body or "\\" in body or "\x00" in body:
        return None
    parts = body.split("'")
    if len(parts) % 2 == 0:
        return None  # an unclosed string
    outside = "\x00".join(parts[0::2]).replace("None", "null").replace("True", "true").replace("False", "false")
    parts[0::2] = outside.split("\x00")
    try:
        return json.loads('"'.join(parts), parse_int=wide if _WIDE_DIGITS.search(outside) else None)
    except (ValueError, RecursionError):
        return None


def _prose(name: str) -> bool:
    """Whether a would-be column name reads as words of a sentence ("Title: X", "It rained.")."""
    name = name.strip()
    return len(name) > 80 or len(name.split()) > 6 or ": " in name or name.endswith((".", "!", "?"))


def _names(row: list[str]) -> bool:
    """Whether a lone line, unasked, is a header row: names with no space around them, each
    like an identifier, three or more of them or one with an identifier's marks (``user_id,
    name``); two plain words are as likely a reply ("ok;saved")."""
    if len(row) < 2 or not all(_NAME.fullmatch(name) for name in row):
        return False  # fullmatch: " world" (a space after the delimiter) is prose's
    return len(row) > 2 or any(_MARKED.search(name) for name in row)


def _named(name: str) -> bool:
    """Whether a forced CSV's lone line can be a column name ("order id", not "[{'a': 1")."""
    name = name.strip()
    return bool(name) and not _prose(name) and not any(c in name for c in "[]{}()'\"")


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


TEXT_READERS: dict[str, Callable[..., list[pd.DataFrame]]] = {
    "json": read_json,
    "jsonl": read_jsonl,
    "csv": read_csv,
    "tsv": read_tsv,
    "markdown": read_markdown,
    "python": read_python,
}
AUTO = ("json", "jsonl", "csv", "markdown", "python")  # csv sniffs a tab too: tsv is for forcing it
FORMATS = ("records", "json", "jsonl", "csv", "tsv", "markdown", "python", "resource")
_TRIED = "JSON, JSON Lines, CSV/TSV, Markdown tables, a Python literal"


def text_tables(text: str, format: str | None = None) -> list[pd.DataFrame]:
    """The tables in one text by the first reader of ``AUTO`` that reads it (or by
    ``format``'s, which raises ``NotATable`` saying why not); untyped."""
    if format is not None:
        return TEXT_READERS[format](text, True)
    for name in AUTO:
        try:
            return TEXT_READERS[name](text)
        except NotATable:
            continue
    return []


# -- a tool's result ------------------------------------------------------------------------


def result_tables(structured: Any, content: list[JSON], tool: str, format: str | None = None) -> list[pd.DataFrame]:
    """Every table in a tool's result, typed: the structuredContent's first, then each
    content block's in order. With ``format``, only that reader's."""
    _check(format)
    found = []
    if structured is not None and format in (None, "records"):
        try:
            found += [typed(f) for f in value_tables(structured)]
        except NotATable:
            pass
    if format != "records":
        found += [typed(f) for f in _block_tables(structured, content, format, [])]
    return found


def result_frame(structured: Any, content: list[JSON], tool: str, format: str | None = None) -> pd.DataFrame:
    """The table of a tool's result, by the readers in the module's order (or ``format``'s)."""
    import pandas as pd

    _check(format)
    if format == "records" and structured is None:
        raise ValueError(f"the result of {tool!r} has no structuredContent; read its text with format='json' or others")
    tables: list[pd.DataFrame] = []
    if structured is not None and format in (None, "records"):
        try:
            tables = [typed(f) for f in value_tables(structured)]
        except NotATable as e:
            if format == "records":
                raise ValueError(f"the structuredContent of {tool!r} holds no table: {e}") from None
    reasons: list[str] = []
    if not tables:
        tables = [typed(f) for f in _block_tables(structured, content, format, reasons)]
    if len(tables) == 1:
        return tables[0]
    if tables:
        columns = [list(t.columns) for t in tables]
        if all(c == columns[0] for c in columns):
            return pd.concat(tables, ignore_index=True)
        shown = "; ".join(f"[{i}] {', '.join(map(str, c))}"[:60] for i, c in enumerate(columns[:4]))
        raise ValueError(
            f"the result of {tool!r} holds {len(tables)} tables with different columns ({clipped(shown, 200)}); "
            "pick one: .tables()[i]"
        )
    raise ValueError(_nothing(structured, content, tool, format, reasons))


def _block_tables(structured: Any, content: list[JSON], format: str | None, reasons: list[str]) -> list[pd.DataFrame]:
    found: list[pd.DataFrame] = []
    for block in content:
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str) and format != "resource":
            if structured is not None and format is None and _repeats(block["text"], structured):
                continue
            found += _read(block["text"], format, reasons)
        elif kind == "resource" and isinstance(block.get("resource"), dict):
            resource = block["resource"]
            if format in (None, "resource"):
                try:
                    found.append(contents_frame([resource], str(resource.get("uri") or "")))
                    continue
                except (ValueError, KeyError) as e:
                    reasons.append(str(e))
            if isinstance(resource.get("text"), str) and format != "resource":
                found += _read(resource["text"], format, reasons)
    return found


def _read(text: str, format: str | None, reasons: list[str]) -> list[pd.DataFrame]:
    try:
        return text_tables(text, format)
    except NotATable as e:
        reasons.append(str(e))
        return []


def _repeats(text: str, structured: Any) -> bool:
    """Whether a text block is the structuredContent again, as JSON."""
    if text.lstrip()[:1] not in ("[", "{"):
        return False
    try:
        return bool(json.loads(text) == structured)
    except (ValueError, RecursionError):
        return False


def _check(format: str | None) -> None:
    if format is not None and format not in FORMATS:
        raise ArgumentError(f"format={format!r} is not a reader: use one of {', '.join(FORMATS)} (or None for all)")


def _nothing(structured: Any, content: list[JSON], tool: str, format: str | None, reasons: list[str]) -> str:
    texts = [b["text"] for b in content if isinstance(b.get("text"), str)]
    texts += [b["resource"]["text"] for b in content if isinstance((b.get("resource") or {}).get("text"), str)]
    start = next((t.lstrip() for t in texts if t.strip()), "")
    shown = f"its text starts with '{clipped(start, 60)}'" if start else "it has no text"
    if format is not None:
        why = f": {reasons[0]}" if reasons else ""
        return f"the result of {tool!r} holds no {format} table{why}; {shown}"
    tried = (["structuredContent"] if structured is not None else []) + [_TRIED]
    if any(b.get("type") == "resource" for b in content):
        tried.append("embedded resources")
    big = next((f"; {r}" for r in reasons if r.startswith("over ")), "")  # a limit, not a shape: say so
    return (
        f"the result of {tool!r} holds no table (tried {', '.join(tried)}){big}; {shown}; "
        "use .content or .text, or to_frame(format=...) to force a reader"
    )
