"""Python values as the JSON values they stand for, before they are checked and sent.

numpy and pandas values are recognised by what they can do (``.item()``, ``.tolist()``,
``.isoformat()``), so that this module imports neither.
"""

from __future__ import annotations

import datetime
import decimal
import os
from collections.abc import Mapping
from typing import Any

__all__ = ["to_json"]

# Sent as they are, and the common case: one set lookup each.
_SAME = frozenset({str, int, bool, type(None)})


def to_json(value: Any) -> Any:
    """``value`` as JSON: numpy scalars and arrays, pandas Series, DataFrames (a list of
    records) and Timestamps, missing values (NaN, ``NA``, ``NaT`` become None),
    ``Decimal``, ``datetime``/``date``/``time`` (ISO 8601), paths, tuples and sets, in
    dicts and lists at any depth. Anything else is returned unchanged (validation or the
    encoder says what it is). What needs no change is returned as the same object."""
    kind = type(value)
    if kind in _SAME:
        return value
    if kind is float:
        return value if value == value else None  # NaN: missing
    if kind is dict:
        return _dict(value)
    if kind is list:
        return _list(value)
    return _other(value)


def _dict(value: dict[Any, Any]) -> dict[Any, Any]:
    for key, item in value.items():
        if type(item) in _SAME and type(key) is str:
            continue
        new = to_json(item)
        if new is not item or type(key) is not str:
            break
    else:
        return value
    # Something changes: a new dict (the caller's is left alone); `new` is not made twice.
    return {k if type(k) is str else to_json(k): new if k is key else to_json(v) for k, v in value.items()}


def _list(value: list[Any]) -> list[Any]:
    for item in value:
        if type(item) in _SAME:
            continue
        new = to_json(item)
        if new is not item:
            return [new if v is item else to_json(v) for v in value]
    return value


def _other(value: Any) -> Any:
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, (str, int)) and not hasattr(value, "dtype"):
        return value  # a subclass (an enum, say): json sends it as its base type
    if isinstance(value, float):
        return float(value) if value == value else None
    dtype = getattr(value, "dtype", None)
    if dtype is not None and hasattr(value, "tolist"):
        return _numpy(value, dtype)  # numpy scalars and arrays, pandas Series and Index
    if isinstance(value, (datetime.date, datetime.time)):
        # pandas Timestamp is a datetime; NaT (missing) is one that is not equal to itself.
        return value.isoformat() if value == value else None
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return None if value.is_nan() else float(value)
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Mapping):
        return {k if type(k) is str else to_json(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (tuple, set, frozenset)):
        return [to_json(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if hasattr(value, "to_dict") and hasattr(value, "columns"):
        return to_json(value.to_dict(orient="records"))  # a DataFrame: its rows
    if type(value).__name__ == "NAType":
        return None  # pandas.NA: missing
    return value


def _numpy(value: Any, dtype: Any) -> Any:
    if getattr(value, "ndim", 0) != 0:
        if getattr(dtype, "kind", None) in ("M", "m"):
            return [to_json(v) for v in value]  # .tolist() gives ns datetimes as plain ints
        return to_json(value.tolist())
    item = value.item()
    kind = getattr(dtype, "kind", None)
    if kind == "m":
        return value  # a duration has no JSON form: left for validation to name
    if kind == "M" and isinstance(item, int):
        return str(value)  # finer than microseconds: no datetime holds it; numpy's ISO 8601 text does
    return to_json(item)
