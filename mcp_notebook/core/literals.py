"""A Python literal as Python database servers print their rows: ``str()`` of a list of dicts.

``ast.literal_eval`` refuses calls, and such rows hold a few: ``datetime.date(2024, 5, 1)``,
``datetime.datetime(2024, 5, 1, 10, 0, tzinfo=datetime.timezone.utc)``,
``datetime.time(10, 0)``, ``Decimal('12.50')``, ``UUID('…')``. ``literal`` walks the syntax
tree and accepts exactly those constructors (as ``datetime.date`` or ``date``, and so on),
with literal arguments, besides what ``literal_eval`` accepts; a datetime's or time's
``tzinfo=`` may be ``datetime.timezone.utc`` or ``datetime.timezone(datetime.timedelta(...))``.
Nothing is evaluated: any other call, name or expression is refused. A ``UUID`` becomes its
text (pandas has no UUID dtype; the text is what a join or a filter wants).
"""

from __future__ import annotations

import ast
import datetime as dt
import decimal
import uuid
from collections.abc import Callable
from typing import Any

__all__ = ["literal"]


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
    return ast.literal_eval(node)  # a constant, -1, 1+2j; anything else raises ValueError


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
    return make(*args, **kwargs)


def _zone(node: ast.AST) -> dt.tzinfo | None:
    if isinstance(node, ast.Constant) and node.value is None:
        return None
    if _dotted(node) in _UTC:
        return dt.timezone.utc
    if isinstance(node, ast.Call) and _dotted(node.func) in _ZONES and len(node.args) == 1 and not node.keywords:
        delta = node.args[0]
        if isinstance(delta, ast.Call) and _dotted(delta.func) in _DELTAS and all(k.arg for k in delta.keywords):
            args = [ast.literal_eval(a) for a in delta.args]
            return dt.timezone(dt.timedelta(*args, **{str(k.arg): ast.literal_eval(k.value) for k in delta.keywords}))
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
