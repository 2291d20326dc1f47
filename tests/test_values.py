"""numpy, pandas and other Python values as tool and prompt arguments: they reach real
servers as their JSON values, from the magics and from the Python API."""

from __future__ import annotations

import asyncio
import datetime
import decimal
import pathlib
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from support.shells import run

from mcp_notebook import ArgumentError, Client
from mcp_notebook.core.arguments.values import to_json

NAN = float("nan")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (np.int64(3), 3),
        (np.int32(-2), -2),
        (np.float64(2.5), 2.5),
        (np.float32(0.5), 0.5),
        (np.bool_(True), True),
        (np.str_("Gentoo"), "Gentoo"),
        (np.array([1, 2, 3]), [1, 2, 3]),
        (np.array([[1.0, np.nan]]), [[1.0, None]]),
        (np.datetime64("2024-01-02"), "2024-01-02"),
        (np.datetime64("2024-01-02T03:04:05.123456789"), "2024-01-02T03:04:05.123456789"),
        (np.array(["2024-01-02", "NaT"], dtype="datetime64[ns]"), ["2024-01-02T00:00:00.000000000", None]),
        (np.datetime64("NaT"), None),
        (pd.Series([1, 2]), [1, 2]),
        (pd.Series([1, None], dtype="Int64"), [1, None]),
        (pd.Series(pd.to_datetime(["2024-01-02", None])), ["2024-01-02T00:00:00", None]),
        (pd.Index(["a", "b"]), ["a", "b"]),
        (pd.DataFrame({"a": [1, 2], "b": ["x", None]}), [{"a": 1, "b": "x"}, {"a": 2, "b": None}]),
        (pd.Timestamp("2024-01-02 03:04:05"), "2024-01-02T03:04:05"),
        (pd.Timestamp("2024-01-02", tz="UTC"), "2024-01-02T00:00:00+00:00"),
        (pd.NaT, None),
        (pd.NA, None),
        (NAN, None),
        (np.nan, None),
        (decimal.Decimal("3"), 3),
        (decimal.Decimal("3.50"), 3.5),
        (decimal.Decimal("NaN"), None),
        (datetime.datetime(2024, 1, 2, 3, 4, 5), "2024-01-02T03:04:05"),
        (datetime.date(2024, 1, 2), "2024-01-02"),
        (datetime.time(3, 4), "03:04:00"),
        (pathlib.Path("/data/penguins.csv"), "/data/penguins.csv"),
        ((1, "a"), [1, "a"]),
        ({3}, [3]),
        ({"a": np.int64(1), "b": [np.float64(1.5), {"c": pd.NA}]}, {"a": 1, "b": [1.5, {"c": None}]}),
        ({np.int64(1): "x"}, {1: "x"}),
        ("text", "text"),
        (7, 7),
        (1.25, 1.25),
        (False, False),
        (None, None),
    ],
)
def test_to_json_table(value: Any, expected: Any) -> None:
    converted = to_json(value)
    assert converted == expected
    assert type(converted) is type(expected)  # np.int64(3) == 3 too: the type is the point


def test_to_json_leaves_plain_values_and_unknown_objects_alone() -> None:
    plain = {"message": "hi", "n": 3, "x": 1.5, "tags": ["a", "b"], "nested": {"ok": True}}
    assert to_json(plain) is plain  # nothing to change: not even copied
    mixed = {"n": np.int64(3), "keep": "me"}
    assert to_json(mixed) == {"n": 3, "keep": "me"} and type(mixed["n"]) is np.int64  # the caller's dict stays
    thing = object()
    assert to_json({"x": thing})["x"] is thing
    assert type(to_json(np.timedelta64(5, "s"))) is np.timedelta64  # no JSON form: validation names it


def test_numpy_numbers_to_server_everything(everything: Any) -> None:
    result = everything.call_tool("get-sum", {"a": np.int64(2), "b": np.float64(40.5)})
    assert not result.is_error and result.text == "The sum of 2 and 40.5 is 42.5."
    awaited = asyncio.run(everything.acall_tool("get-sum", {"a": np.int32(1), "b": np.float32(0.5)}))
    assert awaited.text == "The sum of 1 and 0.5 is 1.5."
    unchecked = everything.call_tool("get-sum", {"a": np.int64(2), "b": np.int64(3)}, validate=False)
    assert unchecked.text == "The sum of 2 and 3 is 5."


@pytest.fixture(scope="module")
def demo(module_client: Client) -> Any:
    return module_client.add("demo", sys.executable, ["-m", "mcp_notebook.demo"])


def test_python_api_values_from_a_dataframe(demo: Any) -> None:
    frame = pd.DataFrame({"species": ["Gentoo", np.nan], "limit": [2, 3]})
    first, second = frame.to_dict(orient="records")
    result = demo.call_tool("query_penguins", first)  # limit is np.int64 here
    assert result.structured["count"] == 124 and len(result.structured["rows"]) == 2
    everyone = demo.call_tool("query_penguins", second)  # NaN: no species filter
    assert everyone.structured["count"] == 344 and len(everyone.structured["rows"]) == 3
    row = frame.iloc[0]
    by_row = asyncio.run(demo.acall_tool("query_penguins", {"species": row["species"], "limit": row["limit"]}))
    assert len(by_row.structured["rows"]) == 2


def test_a_value_with_no_json_form_is_a_one_line_error(demo: Any) -> None:
    with pytest.raises(ArgumentError, match=r"limit: .* is not of type 'integer'"):
        demo.call_tool("query_penguins", {"limit": object()})
    with pytest.raises(ArgumentError, match="not JSON serializable; nothing was sent") as info:
        demo.call_tool("query_penguins", {"limit": object()}, validate=False)
    assert "\n" not in str(info.value)
    with pytest.raises(ArgumentError, match="not JSON serializable"):
        asyncio.run(demo.acall_tool("query_penguins", {"limit": object()}, validate=False))
    assert demo.call_tool("query_penguins", {"limit": 1}).structured["count"] == 344  # still usable


def test_prompt_arguments_from_numpy_and_pandas(demo: Any) -> None:
    when = pd.Timestamp("2024-01-02 03:04")
    result = demo.get_prompt("explore", {"question": when, "species": np.str_("Gentoo")})
    assert "answer: 2024-01-02T03:04:00\nFocus on Gentoo." in result.text
    missing = asyncio.run(demo.aget_prompt("explore", {"question": np.int64(3), "species": np.nan}))
    assert "answer: 3\nFocus on any species." in missing.text  # NaN: the argument is not given
    with pytest.raises(ArgumentError, match="missing required argument 'question'"):
        demo.get_prompt("explore", {"question": pd.NA})


def test_resource_uri_must_be_text(demo: Any) -> None:
    assert demo.read_resource(np.str_("penguins://data.csv")).uri == "penguins://data.csv"
    with pytest.raises(ArgumentError, match="a resource URI is a string, not NoneType"):
        demo.read_resource(None)  # type: ignore[arg-type]


# -- through the magics ------------------------------------------------------------------


@pytest.fixture(scope="module")
def ip() -> Iterator[InteractiveShell]:
    shell = InteractiveShell.instance()
    run(shell, "%load_ext mcp_notebook")
    run(shell, f"%mcp add demo -- {sys.executable} -m mcp_notebook.demo")
    yield shell
    run(shell, "%mcp remove demo")
    run(shell, "%unload_ext mcp_notebook")


def test_magic_call_with_numpy_values(ip: InteractiveShell) -> None:
    ip.user_ns.update(n=np.int64(3), kind=np.str_("Adelie"), np=np)
    checked = run(ip, "%mcp call demo.query_penguins species=$kind limit=$n")
    assert checked.structured["count"] == 152 and len(checked.structured["rows"]) == 3
    unchecked = run(ip, "%mcp call demo.query_penguins limit=$n --no-validate")
    assert len(unchecked.structured["rows"]) == 3
    expression = run(ip, "%mcp call demo.query_penguins limit={np.int64(2) * 2}")
    assert len(expression.structured["rows"]) == 4
    body = run(ip, "%%mcp_call demo.query_penguins --no-validate\ndict(limit=n, species=kind)")
    assert len(body.structured["rows"]) == 3


def test_magic_prompt_with_numpy_and_pandas_values(ip: InteractiveShell) -> None:
    ip.user_ns.update(when=pd.Timestamp("2024-01-02"), n=np.int64(3))
    result = run(ip, "%mcp prompt demo.explore question=$when species=$n")
    assert "answer: 2024-01-02T00:00:00\nFocus on 3." in result.text


def test_magic_value_with_no_json_form_is_a_usage_error(ip: InteractiveShell) -> None:
    ip.user_ns["thing"] = object()
    with pytest.raises(UsageError, match="not JSON serializable; nothing was sent"):
        run(ip, "%mcp call demo.query_penguins limit=$thing --no-validate")
    assert len(run(ip, "%mcp call demo.query_penguins limit=1").structured["rows"]) == 1


def test_magic_validation_error_names_its_own_option(ip: InteractiveShell) -> None:
    """A value the schema refuses: the message says what sends it anyway from a magic."""
    message = "tool 'query_penguins': limit: 0 is less than the minimum of 1 (minimum); fix the argument or "
    for cell in ("%mcp call demo.query_penguins limit=0", "%%mcp_call demo.query_penguins\ndict(limit=0)"):
        with pytest.raises(UsageError) as info:
            run(ip, cell)
        assert str(info.value) == message + "add --no-validate to send it anyway"


def test_a_message_that_contains_itself_is_refused_not_a_crash() -> None:
    """A cycle in a message (server.request's params, a handler's reply) is a ValueError, even
    where a notebook raised the recursion limit (the C encoder would otherwise overflow the stack)."""
    code = (
        "import sys\nsys.setrecursionlimit(100_000)\n"
        "from mcp_notebook.core.protocol.jsonline import encode\n"
        "d = {}\nd['self'] = d\n"
        "try:\n    encode({'params': d})\nexcept ValueError as e:\n    print('refused:', e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("refused: Circular reference"), done
