"""JSON for one message a line: encode and decode through the json module's C parts.

``json.dumps`` and ``json.loads`` run some twenty lines of Python around their C cores
on every call; on the stdio hot path that was a fifth of a call's own cost. These call
the C encoder and scanner directly and fall back to the plain functions where the C
parts are missing or the input is unusual.
"""

from __future__ import annotations

import json
import sys
from json import encoder as _encoder
from json import scanner as _scanner
from typing import Any

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
    text = line.decode()  # UnicodeDecodeError is a ValueError
    try:
        value, end = _scan(text, 0)
    except StopIteration:
        return json.loads(text)  # leading whitespace or not JSON: the full parser says which
    if end != len(text) and not text[end:].isspace():
        raise ValueError(f"extra data after the JSON value at character {end}")
    return value
