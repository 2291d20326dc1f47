"""The stdio line codec (core/protocol/jsonline.py): orjson for the common case, the json module for
what orjson would read or write differently. What a line decodes to, and what a message
encodes to, is what the json module gives."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import subprocess
import sys
from typing import Any

import pytest

from mcp_notebook.core.protocol import jsonline


class Code(enum.IntEnum):
    OK = 1


class Text(str):
    pass


@dataclasses.dataclass
class Point:
    x: int


LINES = [
    b'{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Echo: row 1"}]}}',
    b'{"id":1,"result":{"n":123456789012345678901234567890}}',  # past 64 bits: exact
    b'{"id":1,"result":{"n":-9223372036854775809,"m":18446744073709551616}}',
    b'{"id":1,"result":{"n":9007199254740993}}',  # past 2**53, within 64 bits
    b'{"id":1,"result":{"x":NaN,"y":Infinity,"z":-Infinity}}',  # not JSON, but the json module reads it
    b'{"id":1,"result":{"s":"\\ud800"}}',  # a lone surrogate
    b'{"a":1,"a":2}',
    b'  {"padded": true}  ',
    b'{"f":1.0000000000000002,"g":1e400,"h":-0}',
    b"[" * 600 + b"]" * 600,  # deeper than orjson reads
    b'{"a":[1234567890,1234567890,-12345.6789]}',  # many digits, no long number
    '{"t":"caf\u00e9 \u2028 \U0001f600"}'.encode(),
]


@pytest.mark.parametrize("line", LINES, ids=range(len(LINES)))
def test_a_line_decodes_as_the_json_module_reads_it(line: bytes) -> None:
    expected = json.loads(line)
    got = jsonline.decode(bytearray(line))
    assert repr(got) == repr(expected)  # repr: NaN compares unequal, and 1 == 1.0
    if isinstance(expected, dict) and isinstance(expected.get("result"), dict):
        for key, value in expected["result"].items():
            assert type(got["result"][key]) is type(value)  # an integer stays an int, however big


@pytest.mark.parametrize(
    "line",
    [b"\xef\xbb\xbf{}", b"{not json}", b'{"id":1} trailing', b'{"id":1,"result":"\xff"}', b""],
    ids=["bom", "garbage", "trailing", "not-utf8", "empty"],
)
def test_a_line_the_json_module_refuses_is_a_value_error(line: bytes) -> None:
    with pytest.raises(ValueError):
        json.loads(line.decode())
    with pytest.raises(ValueError):
        jsonline.decode(bytearray(line))


MESSAGES: list[Any] = [
    {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "row 3"}}},
    {"n": 2**70, "m": -(2**64), "k": 2**63},
    {1: "int key", "s": Text("sub"), "c": Code.OK, "t": (1, 2)},
    {"u": "caf\u00e9 \u2028 \U0001f600", "ctl": '\x00\x1f\n\t"\\'},
    {"f": 0.1, "big": 1e16, "small": 1e-7, "neg": -0.0},
    {"deep": json.loads("[" * 300 + "1" + "]" * 300)},  # deeper than orjson writes
]


@pytest.mark.parametrize("message", MESSAGES, ids=range(len(MESSAGES)))
def test_a_message_encodes_to_what_the_json_module_reads_back_the_same(message: Any) -> None:
    line = jsonline.encode(message)
    compact = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
    assert b"\n" not in line and len(line) <= len(compact)  # one line, compact (orjson: 1e16 for 1e+16)
    expected = json.loads(json.dumps(message))
    assert repr(json.loads(line)) == repr(expected)


def test_what_json_cannot_hold_is_refused_as_the_json_module_refuses_it() -> None:
    for value in (object(), datetime.datetime(2026, 1, 2), datetime.date(2026, 1, 2), Point(1), {1j: 2}):
        with pytest.raises(TypeError):
            json.dumps(value)
        with pytest.raises(TypeError):
            jsonline.encode({"v": value})
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate has no UTF-8
        jsonline.encode({"s": "\ud800"})


def test_a_float_json_has_no_token_for_is_sent_as_null() -> None:
    """JSON has no NaN or Infinity; the json module would write tokens a server cannot parse."""
    assert json.loads(jsonline.encode({"x": float("nan"), "y": float("inf")})) == {"x": None, "y": None}


def test_without_orjson_the_json_module_does_it_all() -> None:
    """A platform without orjson's wheel: the same lines, by the json module alone."""
    code = (
        "import sys\nsys.modules['orjson'] = None\n"
        "from mcp_notebook.core.protocol import jsonline\n"
        "assert jsonline.orjson is None\n"
        "line = jsonline.encode({'id': 1, 'result': {'n': 2**70, 't': 'caf\\u00e9'}})\n"
        "assert jsonline.decode(bytearray(line)) == {'id': 1, 'result': {'n': 2**70, 't': 'caf\\u00e9'}}\n"
        "print(line.decode())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == '{"id":1,"result":{"n":1180591620717411303424,"t":"café"}}'
