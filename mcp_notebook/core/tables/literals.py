"""A Python literal as Python database servers print their rows: ``str()`` of a list of dicts.

``ast.literal_eval`` refuses calls, and such rows hold a few: ``datetime.date(2024, 5, 1)``,
``datetime.datetime(2024, 5, 1, 10, 0, tzinfo=datetime.timezone.utc)``,
``datetime.time(10, 0)``, ``Decimal('12.50')``, ``UUID('…')``. ``literal`` walks the syntax
tree and accepts exactly those constructors (as ``datetime.date`` or ``date``, and so on),
with literal arguments, besides what ``literal_eval`` accepts; a datetime's or time's
``tzinfo=`` may be ``datetime.timezone.utc`` or ``datetime.timezone(datetime.timedelta(...))``
(with a name after the offset, as ``repr()`` prints a named one). Nothing is evaluated: any
other call, name or expression is refused, and so are arguments no value can be made of
(``date(10**20, 1, 1)``, ``Decimal('abc')``). A ``UUID`` becomes its text (pandas has no UUID
dtype; the text is what a join or a filter wants); so does an integer beyond 64 bits (no
integer dtype holds it, and past 4300 digits Python cannot even print it); a signalling
``Decimal('sNaN')`` becomes a quiet NaN (a signalling one raises when compared or hashed).
"""

from __future__ import annotations

import ast
import datetime as dt
import decimal
import uuid
from collections.abc import Callable
from typing import Any

__all__ = ["WIDE", "literal", "wide"]

WIDE = 2**64
"""Integers this wide or wider (either sign) are kept as text: no integer dtype holds them."""
# How a constructor refuses its arguments (OverflowError and InvalidOperation are ArithmeticErrors).
_MADE = (ArithmeticError, ValueError, TypeError)


def _uuid(text: str) -> str:
    return str(uuid.UUID(text))


# Each constructor by the names a repr() uses for it (module-qualified, or imported by name).
_CONSTRUCTORS: dict[str, Callable[..., Any]] = {
    "datetime.date": dt.date,
    "date": dt.date,
    "datetime.datetime": dt.datetime,
    "datetime": dt.datetime,
    "datetime.time": dt.time,
    "time": dt.time,
    "decimal.Decimal": decimal.Decimal,
    "Decimal": decimal.Decimal,
    "uuid.UUID": _uuid,
    "UUID": _uuid,
}
_ZONES = {"datetime.timezone", "timezone"}  # only as a tzinfo= value
_UTC = {"datetime.timezone.utc", "timezone.utc"}
_DELTAS = {"datetime.timedelta", "timedelta"}  # only inside timezone(...)


def literal(text: str) -> Any:
    """The value of a Python literal (with the calls above). Raises ``ValueError``,
    ``SyntaxError``, ``TypeError`` or ``RecursionError`` as ``ast.literal_eval`` does."""
    return _value(ast.parse(text.strip(), mode="eval").body)


def _value(node: ast.AST) -> Any:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [_value(n) for n in node.elts]
        return items if isinstance(node, ast.List) else tuple(items) if isinstance(node, ast.Tuple) else set(items)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise ValueError("a ** in a dict is not a literal")
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[arg-type]
    if isinstance(node, ast.Call):
        return _call(node)
    value = ast.literal_eval(node)  # a constant, -1, 1+2j; anything else raises ValueError
    return wide(value) if type(value) is int else value


def wide(value: int | str) -> int | str:
    """An integer (or its digits, as JSON's ``parse_int`` gives them) as an ``int``, or as
    text when it is ``WIDE`` or wider: decimal digits, or hex past Python's printing limit."""
    number = int(value) if isinstance(value, str) else value
    if -WIDE < number < WIDE:
        return number
    if isinstance(value, str):
        return value
    try:
        return str(number)
    except ValueError:  # over sys.get_int_max_str_digits(): only a hex (or octal) literal gets here
        return hex(number)


def _call(node: ast.Call) -> Any:
    name = _dotted(node.func)
    make = _CONSTRUCTORS.get(name)
    if make is None:
        raise ValueError(f"{name or 'a call'}(...) is not a literal")
    args = [ast.literal_eval(a) for a in node.args]  # literal arguments only, no nested calls
    kwargs: dict[str, Any] = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise ValueError("a ** in a call is not a literal")
        if keyword.arg == "tzinfo" and make in (dt.datetime, dt.time):
            kwargs["tzinfo"] = _zone(keyword.value)
        else:
            kwargs[keyword.arg] = ast.literal_eval(keyword.value)
    try:
        value = make(*args, **kwargs)
    except _MADE:
        raise ValueError(f"{name}(...) with these arguments makes no value") from None
    if isinstance(value, decimal.Decimal) and value.is_snan():
        return decimal.Decimal("-NaN" if value.is_signed() else "NaN")
    return value


def _zone(node: ast.AST) -> dt.tzinfo | None:
    if isinstance(node, ast.Constant) and node.value is None:
        return None
    if _dotted(node) in _UTC:
        return dt.timezone.utc
    if isinstance(node, ast.Call) and _dotted(node.func) in _ZONES and len(node.args) in (1, 2) and not node.keywords:
        delta, *named = node.args
        name = [ast.literal_eval(n) for n in named]  # repr() of a named offset: timezone(timedelta(...), 'CET')
        if isinstance(delta, ast.Call) and _dotted(delta.func) in _DELTAS and all(k.arg for k in delta.keywords):
            args = [ast.literal_eval(a) for a in delta.args]
            kwargs = {str(k.arg): ast.literal_eval(k.value) for k in delta.keywords}
            try:
                return dt.timezone(dt.timedelta(*args, **kwargs), *name)
            except _MADE:
                raise ValueError("timezone(timedelta(...)) with these arguments makes no time zone") from None
    raise ValueError("a tzinfo other than timezone.utc or timezone(timedelta(...)) is not a literal")


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for a chain of names and attributes; "" for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return ""
    parts.append(node.id)
    return ".".join(reversed(parts))
