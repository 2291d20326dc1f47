"""Real dtypes for a table read from a server's text: numbers, booleans, dates.

A table read from text (CSV, Markdown, a Python literal, JSON) often arrives as columns of
strings, or as floats because a value was missing. ``typed`` gives each column the dtype its
values have, by these rules, column by column:

- strings that are all numbers: ``int64`` (``Int64`` where values are missing) or ``float64``;
- strings that are all ``true``/``false`` (any case), or Python booleans: ``bool`` (``boolean``
  where values are missing);
- strings that are all ISO dates or date-times (``2024-05-01``, ``2024-05-01T10:00:00Z``):
  ``datetime64`` (in UTC when they carry an offset; left as text when some of the first
  values do and some don't, or when a later one is no ISO date);
- in a column that becomes numbers, booleans or dates, ``NA``, ``N/A``, ``null``, ``None``,
  ``NaN`` and the like are missing values, and then in the table's text columns too (the
  table writes missing values so); otherwise they stay text (``NA`` is Namibia's code);
- text that only looks like a number stays text: a leading zero (``01234``), a leading
  ``+`` (``+15551234567``);
- Python ints with missing values: ``Int64``; floats with missing values whose other values
  are all whole numbers below 2**53 (how pandas holds an integer column with gaps; CSV text
  with bigger ones is read again as text, so they come here exact): ``Int64`` too; numeric
  text beyond ``int64`` and within ``uint64``: ``uint64`` (``UInt64`` with gaps);
  ``Decimal`` values: ``float64``; ``date`` and ``datetime`` values, and zoned ``datetime64``
  columns: ``datetime64`` (in UTC when they carry a time zone, one fixed offset too);
- anything else (text, mixed values, nested lists, ``time`` values) is left as it is.

A column of text is judged on its first values before the whole of it is looked at, and the
whole-column steps run in C (pandas' parsers; pyarrow's compute functions where pandas holds
the strings in Arrow, as pandas 3 does with pyarrow installed): no Python per cell, so a
column of text or of numbers costs next to nothing. A column with every value missing is
left as it is. pandas is imported by the caller's frame already; importing this module
costs nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CODE", "EXACT", "MISSING", "typed"]

# ISO 8601 as servers write it: a date, optionally a time (T or space), optionally an offset.
ISO_DATETIME = r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?"
_OFFSET = re.compile(r"\d:\d{2}(?:[.,:\d]*)(?:Z|[+-]\d{2}(?::?\d{2})?)$")  # after a time: not a date's "-01"
CODE = r"\s*(?:[+]|[-]?0\d)"
"""Text that only looks like a number: "01234", "+15551234567" (matched at a value's start)."""
MISSING = frozenset({"NA", "N/A", "n/a", "#N/A", "NaN", "nan", "NULL", "null", "None", "<NA>"})
"""Words for a missing value beside numbers, booleans or dates (pandas' own, mostly)."""
_SAMPLE = 64  # values looked at first: a column of text is ruled out before the whole of it is parsed
EXACT = 2**53
"""Floats this big or bigger are not all exact integers (a float64 has 53 bits of mantissa)."""


def typed(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each column in the dtype its values have (see the module's rules).
    The frame given is not changed; it is returned as it is when no column changes."""
    import pandas as pd

    changed = {}
    for i in range(frame.shape[1]):
        column = _typed_column(frame.iloc[:, i])
        if column is not None:
            changed[i] = column
    # The words the table used for a missing number, boolean or date are missing in its text too.
    markers: set[str] = set()
    for i in changed:
        original = frame.iloc[:, i]
        if original.dtype == object or isinstance(original.dtype, pd.StringDtype):
            markers.update(original[original.isin(MISSING)].unique())
    for i in range(frame.shape[1]) if markers else ():
        column = frame.iloc[:, i]
        if i not in changed and (column.dtype == object or isinstance(column.dtype, pd.StringDtype)):
            blank = column.isin(markers)
            if blank.any():
                changed[i] = column.where(~blank)
    if not changed:
        return frame
    frame = frame.copy(deep=False)
    for i, column in changed.items():
        frame.isetitem(i, column.array)  # by position: a table read from text may repeat a column name
    return frame


def _typed_column(column: pd.Series) -> pd.Series | None:
    import pandas as pd

    if column.dtype.kind == "f":
        return _whole(column)
    if isinstance(column.dtype, pd.StringDtype):
        return _from_text(column)
    if column.dtype.kind == "M" and column.dt.tz is not None and str(column.dt.tz) != "UTC":
        utc: pd.Series = column.dt.tz_convert("UTC")  # pandas keeps one fixed offset (UTC+02:00) as it came
        return utc
    if column.dtype != object:
        return None  # already numbers, booleans, dates or categories
    try:
        values = column.dropna()  # a signalling NaN Decimal raises here (InvalidOperation)
        if values.empty:
            return None
        missing = len(values) < len(column)
        kind = pd.api.types.infer_dtype(values, skipna=False)
        if kind == "boolean":
            return column.astype("boolean" if missing else bool)
        if kind == "integer":
            return column.astype("Int64" if missing else "int64")
        if kind in ("floating", "mixed-integer-float", "decimal"):
            floats = column.astype("float64")
            whole = _whole(floats) if missing else None
            return floats if whole is None else whole
        if kind in ("datetime", "datetime64", "date"):
            try:
                stamps = pd.to_datetime(column)
            except ValueError:  # several time zones: pandas wants them in UTC
                return pd.to_datetime(column, utc=True)
            return stamps if stamps.dt.tz is None else stamps.dt.tz_convert("UTC")  # as zoned ISO text becomes
        if kind == "string":
            return _from_text(column)
    except (ValueError, TypeError, ArithmeticError):
        return None  # e.g. integers beyond int64, or naive and zoned datetimes mixed: left as they came
    return None


def _from_text(column: pd.Series) -> pd.Series | None:
    """Numbers, booleans or dates from a column of strings, else None. The first values
    decide what to try; the whole column must then read as that, or stays text."""
    import pandas as pd

    values = column.dropna()
    sample = values.iloc[:_SAMPLE].astype(object)  # a few Python strings: one engine for the checks
    sample = sample[~sample.isin(MISSING)]
    if sample.empty:
        return None
    numbers = pd.to_numeric(sample, errors="coerce").notna().all() and not sample.str.match(CODE).any()
    flags = not numbers and sample.str.lower().isin(("true", "false")).all()
    dates = not numbers and not flags and sample.str.fullmatch(ISO_DATETIME).all()
    if not (numbers or flags or dates):
        return None
    blank = values.isin(MISSING)
    if blank.any():
        values = values[~blank]
    missing = len(values) < len(column)
    try:
        if numbers:
            return _numbers(values, missing, column.index)
        if flags:
            lowered = values.str.lower()
            if not lowered.isin(("true", "false")).all():
                return None
            result = (lowered == "true").reindex(column.index)
            return result.astype("boolean") if missing else result.astype(bool)
        zoned = sample.str.contains(_OFFSET)
        if zoned.any() and not zoned.all():
            return None
        return _dates(values, bool(zoned.all())).reindex(column.index)
    except (ValueError, TypeError, ArithmeticError):
        return None  # a later value is not one (pandas' and pyarrow's parsers raise): the column stays text


def _numbers(values: pd.Series, missing: bool, index: pd.Index) -> pd.Series | None:
    import pandas as pd

    if _matches(values, CODE):
        return None  # a code further down: "01234" is not 1234
    numbers = pd.to_numeric(values.astype(object))
    if numbers.dtype.kind not in "iuf":
        return None
    if numbers.dtype.kind == "u":  # beyond int64's range, within uint64's
        numbers = numbers.astype("UInt64" if missing else "uint64")
    elif numbers.dtype.kind == "i":
        numbers = numbers.astype("Int64" if missing else "int64")
    return numbers.reindex(index)  # missing values come back as NaN / <NA>


def _dates(values: pd.Series, zoned: bool) -> pd.Series:
    """ISO dates (and date-times) parsed: by pyarrow when it can (in C++, ten times pandas'
    speed), else or when pyarrow refuses a value, by pandas' ISO parser; pandas' unit."""
    import pandas as pd

    parsed = pd.to_datetime(values.iloc[:_SAMPLE].astype(object), format="ISO8601", utc=zoned)
    try:
        import pyarrow as pa
    except ImportError:
        pa = None
    if pa is not None:
        unit = parsed.dt.unit
        try:
            stamps = values.astype(pd.ArrowDtype(pa.timestamp(unit, tz="UTC" if zoned else None)))
            return stamps.astype(parsed.dtype)
        except (ValueError, TypeError, NotImplementedError, pa.ArrowException):
            pass  # e.g. a comma before the fraction, or a value more precise than the sample's unit
    return pd.to_datetime(values, format="ISO8601", utc=zoned)


def _matches(values: pd.Series, pattern: str) -> bool:
    """Whether any string matches ``pattern`` at its start: pyarrow's regex engine when
    pyarrow is installed (a Python call a value otherwise)."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:
        return bool(values.astype(object).str.match(pattern).any())
    strings: Any = pa.array(values.astype(object)) if values.dtype == object else pa.array(values)
    return bool(pc.any(pc.match_substring_regex(strings, "^" + pattern)).as_py())


def _whole(column: pd.Series) -> pd.Series | None:
    """An integer column with gaps (floats, NaN where missing) as ``Int64``."""
    import numpy as np

    values = column.to_numpy(dtype="float64", na_value=np.nan)
    gaps = np.isnan(values)
    if not gaps.any() or gaps.all():
        return None  # no gaps: pandas would have made it int64 were it integers
    present = values[~gaps]
    if not (np.abs(present) < EXACT).all() or not (present == np.floor(present)).all():
        return None
    return column.astype("Int64")
