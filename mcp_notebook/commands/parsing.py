"""Parsing magic lines: options, ``key=value`` arguments, ``$name`` and ``{expr}`` values."""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Mapping
from typing import Any, NoReturn

from ..core.config.schema import is_seconds
from ..errors import ArgumentError

__all__ = [
    "MAX_DEPTH",
    "BadSeconds",
    "Parser",
    "body_arguments",
    "expand_text",
    "json_value",
    "key_value_option",
    "key_values",
    "resolve_value",
    "seconds",
    "split",
    "target",
]

_NAME = re.compile(r"^\$([A-Za-z_][A-Za-z0-9_]*)$")
_EXPR = re.compile(r"^\{(.+)\}$", re.DOTALL)
_INLINE_NAME = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
# Deeper than this, a value typed as JSON is refused: what walks it (validation, conversion,
# display) recurses, and Python's recursion limit (1000 frames) is reached well before 1000
# levels. A real tool's arguments are a few levels deep.
MAX_DEPTH = 100


class Parser(argparse.ArgumentParser):
    """argparse that raises a one-line ArgumentError instead of exiting."""

    def __init__(self, prog: str, **kwargs: Any) -> None:
        super().__init__(prog=f"%mcp {prog}", add_help=False, allow_abbrev=False, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise ArgumentError(f"{self.prog}: {message}; see %mcp help {self.prog.split()[-1]}")

    def parse(self, tokens: list[str]) -> argparse.Namespace:
        return self.parse_args(tokens)


class BadSeconds(argparse.ArgumentTypeError, ValueError):
    """A timeout option's value that is no deadline (argparse words it as it is)."""


def seconds(text: str) -> float:
    """A timeout option's value (argparse's ``type=``): a number of seconds above 0, finite;
    BadSeconds (a ValueError) for anything else, NaN, infinity and negatives included."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not is_seconds(value):
        raise BadSeconds(f"takes seconds, not {text!r} (a number above 0, finite)")
    return value


def json_value(raw: str, what: str) -> Any:
    """``raw`` as JSON (ValueError if it is not), ArgumentError if nested deeper than MAX_DEPTH."""
    try:
        value = json.loads(raw)
    except RecursionError:
        value = None  # deeper than the decoder goes: deeper than MAX_DEPTH too
    else:
        if _depth_within(value, MAX_DEPTH):
            return value
    raise ArgumentError(f"{what} is nested too deeply (over {MAX_DEPTH} levels of arrays or objects); flatten it")


def _depth_within(value: Any, limit: int) -> bool:
    """True if ``value`` has at most ``limit`` levels of lists and dicts (walked without recursing)."""
    level: list[Any] = [value]
    for _ in range(limit + 1):
        inner: list[Any] = []
        for v in level:
            if isinstance(v, dict):
                inner.append(v.values())
            elif isinstance(v, list):
                inner.append(v)
        if not inner:
            return True
        level = [item for items in inner for item in items]
    return False


def split(line: str) -> list[str]:
    """Split like a shell (quotes group, backslash escapes), except that ``{expr}`` is
    one piece kept verbatim, spaces and quotes included: ``n={len(xs) * 2}``."""
    if not any(c in line for c in "\"'{\\"):
        return line.split()  # the common case, ten times faster
    tokens: list[str] = []
    piece: list[str] = []
    started = False  # a token is open, even if empty so far ("")
    quote: str | None = None
    depth = 0
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == quote:
                quote = None
            elif c == "\\" and quote == '"' and line[i + 1 : i + 2] in ('"', "\\"):
                i += 1
                piece.append(line[i])
            else:
                piece.append(c)
        elif depth:
            piece.append(c)
            depth += {"{": 1, "}": -1}.get(c, 0)
        elif c.isspace():
            if started:
                tokens.append("".join(piece))
                piece, started = [], False
        else:
            started = True
            if c in "\"'":
                quote = c
            elif c == "{":
                depth = 1
                piece.append(c)
            elif c == "\\" and i + 1 < len(line):
                i += 1
                piece.append(line[i])
            else:
                piece.append(c)
        i += 1
    if quote:
        raise ArgumentError(f"cannot parse {line!r}: no closing {quote}")
    if depth:
        raise ArgumentError(f"cannot parse {line!r}: a {{ is not closed")
    if started:
        tokens.append("".join(piece))
    return tokens


def target(text: str, what: str = "TOOL") -> tuple[str, str]:
    """``SERVER.NAME`` → (server, name); the name may itself contain dots."""
    server, dot, name = text.partition(".")
    if not dot or not server or not name:
        raise ArgumentError(f"expected SERVER.{what}, got {text!r} (for example: everything.echo)")
    return server, name


def resolve_value(raw: str, namespace: Mapping[str, Any] | None) -> tuple[Any, bool]:
    """A value from the user: ``$name`` or ``{expr}`` from the namespace (typed), else JSON
    when it parses, else the string. Returns (value, literal) where literal means "the
    user typed it" (so a string-typed parameter may keep the raw text). With no namespace
    (the command line) ``$name`` and ``{expr}`` are text: nothing is looked up or run."""
    if namespace is None:
        try:
            return json_value(raw, "a value"), True
        except ArgumentError:
            raise
        except ValueError:
            return raw, True
    match = _NAME.match(raw)
    if match:
        name = match.group(1)
        if name not in namespace:
            raise ArgumentError(f"${name}: no variable {name!r} in the notebook's namespace")
        return namespace[name], False
    match = _EXPR.match(raw)
    if match and not _is_json_object(raw):
        try:
            return eval(match.group(1), dict(namespace)), False  # the user's own expression
        except Exception as e:
            raise ArgumentError(f"{raw}: {type(e).__name__}: {e}") from None
    if "$" in raw:
        raw = _INLINE_NAME.sub(lambda m: str(namespace.get(m.group(1), m.group(0))), raw)
    try:
        return json_value(raw, "a value"), True
    except ArgumentError:
        raise
    except ValueError:
        return raw, True


def expand_text(raw: str, namespace: Mapping[str, Any] | None) -> str:
    """A command-line word with ``$name`` and ``{expr}`` from the notebook, as text.
    Unknown ``$NAME`` is left alone (it may be meant for the server, like ``$HOME``); with no
    namespace (the command line) the word is as typed."""
    if namespace is None:
        return raw
    if _EXPR.match(raw) and not _is_json_object(raw):
        return str(resolve_value(raw, namespace)[0])
    return _INLINE_NAME.sub(lambda m: str(namespace.get(m.group(1), m.group(0))), raw)


def _is_json_object(raw: str) -> bool:
    try:
        return isinstance(json.loads(raw), dict)
    except RecursionError:
        return True  # JSON nested too deeply: json_value says so
    except ValueError:
        return False


def key_values(
    tokens: list[str], namespace: Mapping[str, Any] | None, schema: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``key=value`` tokens → arguments. With the tool's inputSchema, a value typed
    literally for a string parameter stays the text typed (``zip=02139``, ``id=42``)."""
    properties = (schema or {}).get("properties") or {}
    out: dict[str, Any] = {}
    for token in tokens:
        key, eq, raw = token.partition("=")
        if not eq or not key:
            raise ArgumentError(f'expected key=value, got {token!r} (quote values with spaces: key="a b")')
        value, literal = resolve_value(raw, namespace)
        if literal and _wants_string(properties.get(key)) and not isinstance(value, str):
            value = raw
        out[key] = value
    return out


def _wants_string(prop: Any) -> bool:
    if not isinstance(prop, dict):
        return False
    kind = prop.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    return "string" in kinds and not ({"number", "integer", "boolean", "array", "object"} & set(kinds))


def body_arguments(body: str, namespace: Mapping[str, Any] | None) -> dict[str, Any]:
    """The body of %%mcp_call: a JSON object, or a Python dict expression (not with no
    namespace: then only JSON)."""
    text = body.strip()
    if not text:
        return {}
    try:
        value = json_value(text, "the arguments")
    except ArgumentError:
        raise
    except ValueError:
        if namespace is None:
            raise ArgumentError("the arguments are not a JSON object") from None
        try:
            value = eval(text, dict(namespace))
        except SyntaxError as e:
            raise ArgumentError(
                f"the cell body is neither JSON nor a Python expression: {e.msg} (line {e.lineno})"
            ) from None
        except Exception as e:
            raise ArgumentError(f"evaluating the cell body failed: {type(e).__name__}: {e}") from None
    if not isinstance(value, dict):
        raise ArgumentError(f"the cell body must be an object of arguments, not {type(value).__name__}")
    return value


def key_value_option(items: list[str] | None, what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        key, eq, value = item.partition("=")
        if not eq or not key:
            # Not the word itself: a header's value is often a secret (Authorization: Bearer …).
            raise ArgumentError(f"{what} expects K=V, and one of its values has no '=' (its text is not shown)")
        out[key] = value
    return out
