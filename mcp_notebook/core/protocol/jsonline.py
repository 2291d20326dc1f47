"""JSON for one message a line, on the stdio hot path (every request and reply).

orjson does the common case (a small message: a fifth of the json module's time); what it
would read or write differently from the json module goes to the json module, so that the
result is the same either way: an integer past 64 bits (orjson reads it as a float), a
``NaN`` token, a byte-order mark, a lone surrogate, deep nesting, a dict key that is not
a string, a subclass of str/int/dict/list, a datetime or a dataclass (which the json module
refuses). The json module's path calls its C encoder and scanner directly: ``json.dumps``
and ``json.loads`` run some twenty lines of Python around them on every call. orjson's own
conversions that remain: a non-finite float is sent as ``null`` (the json module writes
``NaN``, which is not JSON), a ``UUID`` as its text, an ``Enum`` as its value.
"""

from __future__ import annotations

import json
import re
import sys
from json import encoder as _encoder
from json import scanner as _scanner
from typing import Any

try:
    import orjson
except ImportError:  # a platform without its wheel: the json module alone
    orjson = None  # type: ignore[assignment]

# Where orjson is not the json module (see the module's docstring): those go to the json module.
_OR_OPTIONS = (
    0
    if orjson is None
    else (orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS)
)
_LONG_NUMBER = re.compile(rb"\d{19}")  # may be an integer past 64 bits: orjson would make it a float
_DIGITS = b"0123456789"

_plain = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
_c_make_encoder = getattr(_encoder, "c_make_encoder", None)
# typeshed types the scanner's context as a scanner; any object with a decoder's attributes will do.
_scan = _scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]


# One encoder for every message, without the circular-reference check (its markers dict
# costs as much as the encoding of a small message): a message with a cycle ends in
# RecursionError, and is then encoded again with the check, to fail as json.dumps does.
# Before Python 3.12 the C encoder's depth is bounded by the recursion limit alone: past this
# limit (a notebook may raise it) a cycle could crash the process instead, so the check stays on.
_SAFE_DEPTH = 1_000_000 if sys.version_info >= (3, 12) else 10_000
_fast = (
    _c_make_encoder(None, _plain.default, _encoder.encode_basestring, None, ":", ",", False, False, True)
    if _c_make_encoder is not None
    else None
)


def encode(message: Any) -> bytes:
    """Compact UTF-8 JSON, without the newline."""
    if orjson is not None:
        try:
            return orjson.dumps(message, option=_OR_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError: a case for the json module (which may refuse it too)
            pass
    if _fast is None or _c_make_encoder is None:
        return _plain.encode(message).encode()
    if sys.getrecursionlimit() > _SAFE_DEPTH:  # a cycle would overflow the C stack before RecursionError
        return _plain.encode(message).encode()
    try:
        return "".join(_fast(message, 0)).encode()
    except RecursionError:
        pass
    # A fresh markers dict: the circular-reference check says what is wrong (or it is just too deep).
    chunks = _c_make_encoder({}, _plain.default, _encoder.encode_basestring, None, ":", ",", False, False, True)(
        message, 0
    )
    return "".join(chunks).encode()


def decode(line: bytes | bytearray) -> Any:
    """One JSON value from a line; ValueError when it is not UTF-8 JSON."""
    # Counting the digits first: a line with fewer than 19 has no long number, and the
    # count costs a fifth of the search.
    if orjson is not None and (len(line) - len(line.translate(None, _DIGITS)) < 19 or not _LONG_NUMBER.search(line)):
        try:
            return orjson.loads(line)
        except ValueError:  # orjson.JSONDecodeError: the json module reads it, or says why not
            pass
    text = line.decode()  # UnicodeDecodeError is a ValueError
    try:
        value, end = _scan(text, 0)
    except StopIteration:
        return json.loads(text)  # leading whitespace or not JSON: the full parser says which
    if end != len(text) and not text[end:].isspace():
        raise ValueError(f"extra data after the JSON value at character {end}")
    return value
