"""CSV and TSV into a DataFrame with real dtypes: one path for a CSV resource and a tool
result's CSV text, so the same text gives the same table whichever way it came.

pandas' C parser reads the bytes and infers numbers and booleans itself (a cell's text is
never made a Python string first: that took 10x the parse on a 30 MB CSV); ``typed`` then
does what the parser does not (ISO dates, integers with gaps, ``NA`` beside numbers). Two
things the parser would get wrong are put right after it:

- a code that only looks like a number (``01234``, ``+15551234567``) must stay text: a scan
  of the bytes (numpy, no Python per cell) finds the columns holding a field that starts
  like one, and only those are read again as text and checked;
- a column whose first chunk read as numbers and a later one as text comes back as a mix
  of ints and strings: it is read again as text;
- integers with gaps come as floats, which hold integers exactly only below 2**53: a column
  with gaps and a value that big is read again as text (``typed`` makes it ``Int64``).

pandas and numpy are imported inside the functions.
"""

from __future__ import annotations

import io
import re
import warnings
from typing import TYPE_CHECKING

from .dtypes import CODE, EXACT, typed

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["csv_frame"]

# Spaces, a tab, a quote or a sign may come before a code's first character in its field; past
_LEAD_MAX = 4  # this many of them the scan takes every numeric column for a suspect
_CODE_AT_START = re.compile(rb'[ \t"-]*(?:\+|0\d)')  # the text's first field has no delimiter before it
_BLOCK = 1 << 18
_MAX_FOUND = 1000  # fields that start like codes, each placed in its column by counting delimiters


def csv_frame(data: bytes, sep: str = ",", header: bool = True) -> pd.DataFrame:
    """The table in CSV bytes (``sep`` one ASCII character), typed; only an empty cell is
    missing at first (``typed`` makes ``NA`` and the like missing beside numbers, not in text).
    Raises pandas' ``ParserError`` or ``ValueError`` when the bytes are not CSV."""
    import pandas as pd

    options = {"sep": sep, "header": 0 if header else None, "keep_default_na": False, "na_values": [""]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pd.errors.DtypeWarning)  # the mixed columns it warns of are put right below
        frame = pd.read_csv(io.BytesIO(data), **options)  # type: ignore[call-overload]
    numeric = [i for i, dtype in enumerate(frame.dtypes) if dtype.kind in "iuf"]
    suspects = _code_columns(data, sep, numeric) if numeric else set()
    mixed = {i for i in range(frame.shape[1]) if str(frame.dtypes.iloc[i]) == "object" and _mixed(frame.iloc[:, i])}
    rounded = {i for i in numeric if frame.dtypes.iloc[i].kind == "f" and _rounded(frame.iloc[:, i])}
    again = sorted(suspects | mixed | rounded)
    if again:
        text = pd.read_csv(io.BytesIO(data), usecols=again, dtype=str, **options)  # type: ignore[call-overload]
        changed = False
        for k, i in enumerate(again):
            column = text.iloc[:, k]
            if i in mixed or i in rounded or column.dropna().str.match(CODE).any():
                frame = frame if changed else frame.copy(deep=False)
                frame.isetitem(i, column.array)
                changed = True
    return typed(frame)


def _mixed(column: pd.Series) -> bool:
    import pandas as pd

    return pd.api.types.infer_dtype(column, skipna=True) in ("mixed", "mixed-integer", "mixed-integer-float")


def _rounded(column: pd.Series) -> bool:
    """Whether a float column has gaps and a value beyond 2**53 (may be a rounded integer)."""
    import numpy as np

    values = column.to_numpy(dtype="float64")
    gaps = np.isnan(values)
    return bool(gaps.any()) and bool((np.abs(values[~gaps]) >= EXACT).any())


def _code_columns(data: bytes, sep: str, numeric: list[int]) -> set[int]:
    """Which of the ``numeric`` columns may hold a code: a field starting with ``+``, or with
    ``0`` and another digit, maybe after spaces, a tab, a quote or a sign. The bytes are
    scanned in blocks that fit a CPU cache (three times faster than the whole at once on
    30 MB); a line ends at ``\n`` or ``\r`` (pandas reads CR-only text too). Such a field's
    column is the delimiters counted from its line's start (the fields in order, each line's
    start searched for back to the previous field only); where a quote on that line could
    hide a delimiter, or there are too many such fields, every numeric column is named (each
    is then checked on its text)."""
    import numpy as np

    a = np.frombuffer(data, dtype=np.uint8)
    delimiter = ord(sep)
    found: list[int] = [0] if _CODE_AT_START.match(data) else []
    for low in range(0, a.size, _BLOCK):
        block = a[max(low - _LEAD_MAX - 1, 0) : low + _BLOCK + 2]
        # before[i]: byte i ends what comes before a field's value, so byte i + 1 may start a code
        before = (block == delimiter) | (block == 10) | (block == 13)
        leading = (block == 32) | (block == 34) | (block == 45) | (block == 9)  # np.isin is four times slower
        for _ in range(_LEAD_MAX):
            more = before[:-1] & leading[1:] & ~before[1:]
            if not more.any():
                break
            before[1:] |= more
        else:
            return set(numeric)  # a value with more leading spaces than that: count on nothing
        after = block[2:]
        code = before[:-2] & ((block[1:-1] == ord("+")) | ((block[1:-1] == ord("0")) & (after >= 48) & (after <= 57)))
        if code.any():
            found += (np.flatnonzero(code) + 1 + max(low - _LEAD_MAX - 1, 0)).tolist()[: _MAX_FOUND + 1]
        if len(found) > _MAX_FOUND:
            return set(numeric)
    suspects = set()
    separator = sep.encode()
    start = column = previous = 0
    for at in sorted(set(found)):
        # Only the bytes since the previous field found are searched: linear however long the text.
        end = max(data.rfind(b"\n", previous, at), data.rfind(b"\r", previous, at))
        if end >= 0:  # a new line: count from its start
            start, column = end + 1, data.count(separator, end + 1, at)
        else:  # the same line as the previous field: count on from it
            column += data.count(separator, previous, at)
        if data.find(b'"', max(start, previous), at) >= 0:  # the line's bytes before previous were searched
            return set(numeric)
        suspects.add(column)
        previous = at
    return suspects & set(numeric)
