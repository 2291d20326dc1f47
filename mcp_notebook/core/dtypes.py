"""Real dtypes for a table read from a server's text: numbers, booleans, dates.

A table read from text (CSV, Markdown, a Python literal, JSON) often arrives as columns of
strings, or as floats because a value was missing. ``typed`` gives each column the dtype its
values have, by these rules, column by column and vectorised (no Python per cell):

- strings that are all numbers: ``int64`` (``Int64`` where values are missing) or ``float64``;
- strings that are all ``true``/``false`` (any case), or Python booleans: ``bool`` (``boolean``
  where values are missing);
- strings that are all ISO dates or date-times (``2024-05-01``, ``2024-05-01T10:00:00Z``):
  ``datetime64`` (in UTC when they carry an offset; left as text when some of the first
  values do and some don't, or when pandas' ISO parser refuses a later one);
- Python ints with missing values: ``Int64``; floats with missing values whose other values
  are all whole numbers (how pandas holds an integer column with gaps): ``Int64`` too;
- anything else (text, mixed values, nested lists) is left as it is.

A column with every value missing is left as it is. pandas is imported by the caller's frame
already; importing this module costs nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["typed"]

# ISO 8601 as servers write it: a date, optionally a time (T or space), optionally an offset.
ISO_DATETIME = r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?"
_OFFSET = re.compile(r"\d:\d{2}(?:[.,:\d]*)(?:Z|[+-]\d{2}(?::?\d{2})?)$")  # after a time: not a date's "-01"
_CODE = r"\s*(?:[+]|[-]?0\d)"  # "01234", "+15551234567": text that only looks like a number
_SAMPLE = 64  # values looked at first: a column of text is ruled out before the whole of it is parsed
_EXACT = 2**53  # floats beyond this are not exact integers


def typed(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with each column in the dtype its values have (see the module's rules).
    The frame given is not changed; it is returned as it is when no column changes."""
    changed = {}
    for i in range(frame.shape[1]):
        column = _typed_column(frame.iloc[:, i])
        if column is not None:
            changed[i] = column
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
    if not (column.dtype == object or isinstance(column.dtype, pd.StringDtype)):
        return None  # already numbers, booleans, dates or categories
    values = column.dropna()
    if values.empty:
        return None
    missing = len(values) < len(column)
    kind = pd.api.types.infer_dtype(values, skipna=False)
    try:
        if kind == "boolean":
            return column.astype("boolean" if missing else bool)
        if kind == "integer":
            return column.astype("Int64" if missing else "int64")
        if kind in ("floating", "mixed-integer-float", "decimal"):
            floats = column.astype("float64")
            whole = _whole(floats) if missing else None
            return floats if whole is None else whole
        if kind in ("datetime", "datetime64", "date"):
            return pd.to_datetime(column, utc=True)
        if kind == "string":
            return _from_text(column, values, missing)
    except (ValueError, TypeError, OverflowError):
        return None  # e.g. integers beyond int64, or mixed time zones: left as they came
    return None


def _from_text(column: pd.Series, values: pd.Series, missing: bool) -> pd.Series | None:
    import pandas as pd

    values = values.astype(object)  # one string engine for the checks below, whatever pandas' default
    sample = values.iloc[:_SAMPLE]
    # A code, not a number: a ZIP code's or an id's leading zero, a phone number's "+".
    if pd.to_numeric(sample, errors="coerce").notna().all() and not values.str.match(_CODE).any():
        try:
            numbers = pd.to_numeric(values)
        except (ValueError, TypeError):
            numbers = None
        if numbers is not None and numbers.dtype.kind in "iuf":
            if numbers.dtype.kind in "iu":
                numbers = numbers.astype("Int64" if missing else "int64")
            return numbers.reindex(column.index)  # missing values come back as NaN / <NA>
    if sample.str.lower().isin(("true", "false")).all():
        lowered = values.str.lower()
        if lowered.isin(("true", "false")).all():
            flags = (lowered == "true").reindex(column.index)
            return flags.astype("boolean") if missing else flags.astype(bool)
    if sample.str.fullmatch(ISO_DATETIME).all():
        # The sample decides; pandas' ISO parser (in C) checks the rest and raises on a value that
        # is no ISO date, or on offsets and none mixed: then the column stays text.
        zoned = sample.str.contains(_OFFSET)
        if zoned.all() or not zoned.any():
            return pd.to_datetime(column, format="ISO8601", utc=bool(zoned.all()))
    return None


def _whole(column: pd.Series) -> pd.Series | None:
    """An integer column with gaps (floats, NaN where missing) as ``Int64``."""
    import numpy as np

    values = column.to_numpy(dtype="float64", na_value=np.nan)
    gaps = np.isnan(values)
    if not gaps.any() or gaps.all():
        return None  # no gaps: pandas would have made it int64 were it integers
    present = values[~gaps]
    if not (np.abs(present) < _EXACT).all() or not (present == np.floor(present)).all():
        return None
    return column.astype("Int64")
