"""A tool's result as a table, whatever shape the server chose (``CallResult.to_frame()``,
``.tables()``), with real dtypes.

The acceptance is real servers: the reference SQLite MCP server (``mcp-server-sqlite``
2025.4.25 from PyPI, in the legacy venv scripts/setup makes: it pins mcp<2), whose
``read_query`` answers with the text of a Python list of dicts; the bundled demo server
(structuredContent, and the same as JSON text); server-everything (text that is no table).
Below them, each reader on literal results (pure functions).
"""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from support.peers import EVERYTHING, ROOT, node

from mcp_notebook import ArgumentError, CallResult, Client, Server

SQLITE = ROOT / ".kernels" / "legacy-servers" / "bin" / "mcp-server-sqlite"


def dtypes(frame: pd.DataFrame) -> dict[str, str]:
    """Each column's dtype; "text" for strings and datetimes without their unit, whichever
    way this pandas holds them."""
    return {str(name): _dtype(column) for name, column in frame.items()}


def _dtype(column: pd.Series) -> str:
    values = column.dropna()
    if str(column.dtype) == "str" or (column.dtype == object and len(values) and values.map(type).eq(str).all()):
        return "text"  # pandas 3's str, pandas 2's object
    if column.dtype.kind == "M":
        return "datetime64" + (f" {column.dt.tz}" if column.dt.tz else "")  # the unit: us in pandas 3, ns in 2
    return str(column.dtype)


# -- a real database server --------------------------------------------------------------------


@pytest.fixture(scope="module")
def sqlite(module_client: Client, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    if not SQLITE.exists():
        pytest.fail(
            f"{SQLITE} is missing: run scripts/setup (it installs mcp-server-sqlite in .kernels/legacy-servers)"
        )
    db = tmp_path_factory.mktemp("sqlite") / "shop.db"
    server = module_client.add("sqlite", command=str(SQLITE), args=["--db-path", str(db)])
    server.call_tool(
        "create_table",
        {"query": "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT, total REAL, placed DATE, units INT)"},
    )
    server.call_tool(
        "write_query",
        {
            "query": "INSERT INTO orders (customer, total, placed, units) VALUES "
            "('ada', 12.5, '2024-05-01', 3), ('bob', 7.25, '2024-05-02', NULL), ('cy', NULL, '2024-05-03', 1)"
        },
    )
    yield server
    module_client.remove("sqlite")


def test_database_rows_come_with_their_columns_and_numeric_dtypes(sqlite: Server) -> None:
    result = sqlite.call_tool("read_query", {"query": "SELECT * FROM orders ORDER BY id"})
    assert result.structured is None and result.text.startswith("[{'id': 1, ")  # a Python literal, not JSON
    frame = result.to_frame()
    assert list(frame.columns) == ["id", "customer", "total", "placed", "units"]
    assert dtypes(frame) == {
        "id": "int64",
        "customer": "text",
        "total": "float64",
        "placed": "datetime64",
        "units": "Int64",  # a missing value: nullable integers, not floats
    }
    assert frame["total"].sum() == 19.75 and frame["units"].isna().tolist() == [False, True, False]
    assert frame["placed"].dt.day.tolist() == [1, 2, 3]
    assert [len(t) for t in result.tables()] == [3]


def test_database_aggregates_and_empty_results(sqlite: Server) -> None:
    result = sqlite.call_tool(
        "read_query", {"query": "SELECT customer, COUNT(*) AS n, AVG(total) AS mean FROM orders GROUP BY customer"}
    )
    assert dtypes(result.to_frame()) == {"customer": "text", "n": "int64", "mean": "float64"}
    empty = sqlite.call_tool("read_query", {"query": "SELECT * FROM orders WHERE id > 99"}).to_frame()
    assert empty.empty
    described = sqlite.call_tool("describe_table", {"table_name": "orders"}).to_frame()
    assert described["name"].tolist() == ["id", "customer", "total", "placed", "units"]
    assert described["pk"].dtype == "int64"


# -- the demo server and server-everything ---------------------------------------------------


@pytest.fixture(scope="module")
def demo(module_client: Client) -> Iterator[Server]:
    yield module_client.add("demo", command=sys.executable, args=["-m", "mcp_notebook.demo"])
    module_client.remove("demo")


def test_demo_structured_rows_and_their_json_text_read_alike(demo: Server) -> None:
    result = demo.call_tool("query_penguins", {"limit": 344})
    frame = result.to_frame()
    assert frame.shape == (344, 8)
    assert dtypes(frame)["body_mass_g"] == "Int64" and frame["body_mass_g"].isna().sum() == 2
    assert dtypes(frame)["bill_length_mm"] == "float64" and dtypes(frame)["year"] == "int64"
    assert len(result.tables()) == 1  # the text block repeats structuredContent: not a second table
    assert result.to_frame(format="json").equals(frame)
    summary = demo.call_tool("summarize_penguins", {"measure": "flipper_length_mm"}).to_frame()
    assert summary["group"].tolist() == ["Adelie", "Chinstrap", "Gentoo"] and summary["count"].dtype == "int64"


@pytest.fixture(scope="module")
def everything(module_client: Client) -> Iterator[Server]:
    if not EVERYTHING.exists():
        pytest.fail(f"{EVERYTHING} is missing: run `npm ci` in {ROOT} first")
    yield module_client.add("everything", command=node(), args=[str(EVERYTHING), "stdio"])
    module_client.remove("everything")


def test_text_that_is_no_table_says_what_was_tried_in_one_line(everything: Server) -> None:
    with pytest.raises(ValueError) as caught:
        everything.call_tool("get-sum", {"a": 1, "b": 2}).to_frame()
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("the result of 'get-sum' holds no table (tried JSON, JSON Lines, CSV/TSV, Markdown")
    assert "its text starts with 'The sum of 1 and 2 is 3.'" in message
    with pytest.raises(ValueError, match=r"embedded resources\); its text starts with 'Returning resource"):
        everything.call_tool("get-resource-reference", {}).to_frame()  # a text/plain resource: no table
    assert everything.call_tool("echo", {"message": "hi"}).tables() == []


def test_everything_structured_and_forced_csv_text(everything: Server) -> None:
    weather = everything.call_tool("get-structured-content", {"location": "Chicago"}).to_frame()
    assert weather.shape == (1, 3) and weather["humidity"].dtype == "int64"
    echoed = everything.call_tool("echo", {"message": "n,ok\n1,true\n2,false"})
    with pytest.raises(ValueError, match="holds no table"):
        echoed.to_frame()  # "Echo: n" reads as prose, not a column name
    frame = echoed.to_frame(format="csv")  # unless asked
    assert list(frame.columns) == ["Echo: n", "ok"] and dtypes(frame) == {"Echo: n": "int64", "ok": "bool"}


def test_a_wrong_format_lists_the_readers(everything: Server) -> None:
    result = everything.call_tool("echo", {"message": "hi"})
    with pytest.raises(ArgumentError, match=r"format='xml' is not a reader: use one of records, json, jsonl, csv"):
        result.to_frame(format="xml")
    with pytest.raises(
        ValueError, match=r"holds no json table: not a JSON array or object; its text starts with 'Echo"
    ):
        result.to_frame(format="json")


# -- each reader on literal results --------------------------------------------------------------


def call(*blocks: str | dict, structured: object = None) -> CallResult:
    content = [{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks]
    raw: dict = {"content": content}
    if structured is not None:
        raw["structuredContent"] = structured
    return CallResult.from_raw("s", "t", raw)


ROWS = [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(ROWS),
        json.dumps({"a": [1, 2], "b": ["x", "y"]}),  # an object of arrays
        json.dumps([["a", "b"], [1, "x"], [2, "y"]]),  # rows under a header row
        json.dumps({"columns": ["a", "b"], "data": [[1, "x"], [2, "y"]]}),  # pandas' "split"
        json.dumps({"count": 2, "results": ROWS}),
        "\n".join(json.dumps(r) for r in ROWS),  # JSON Lines
        "a,b\n1,x\n2,y\n",
        "a\tb\n1\tx\n2\ty",
        "a;b\r\n1;x\r\n2;y\r\n",
        "Found 2 rows:\n\n| a | b |\n|---:|:--|\n| 1 | x |\n| 2 | y |\n\nDone.",
        "a | b\n--|--\n1 | x\n2 | y",  # a pipe table without its outer pipes: Markdown's, not CSV's
        "[{'a': 1, 'b': 'x'}, {'a': 2, 'b': 'y'}]",  # a Python literal
        "[{'a': 1,\n  'b': 'x'},\n {'a': 2,\n  'b': 'y'}]",  # pretty-printed: never taken for CSV
        "({'a': 1, 'b': 'x'}, {'a': 2, 'b': 'y'})",
    ],
)
def test_each_shape_of_text_reads_as_the_same_table(text: str) -> None:
    frame = call(text).to_frame()
    assert frame.to_dict("records") == ROWS
    assert dtypes(frame) == {"a": "int64", "b": "text"}


def test_csv_fields_may_hold_quoted_newlines_and_delimiters() -> None:
    frame = call('id,note\n1,"two\nlines, one comma"\n2,plain\n').to_frame()
    assert frame.to_dict("records") == [{"id": 1, "note": "two\nlines, one comma"}, {"id": 2, "note": "plain"}]


def test_named_row_keys_win_over_other_lists() -> None:
    structured = {"warnings": [{"code": 1}], "rows": ROWS, "pages": [{"n": 1}]}
    assert call(structured=structured).to_frame().to_dict("records") == ROWS
    assert call(json.dumps(structured)).to_frame().to_dict("records") == ROWS


def test_several_lists_of_records_are_several_tables() -> None:
    structured = {"users": [{"id": 1}, {"id": 2}], "groups": [{"name": "a"}]}
    result = call(json.dumps(structured), structured=structured)
    with pytest.raises(ValueError, match=r"holds 2 tables with different columns \(\[0\] id; \[1\] name\); pick one"):
        result.to_frame()
    assert [t.columns.tolist() for t in result.tables()] == [["id"], ["name"]]  # the JSON text repeats them
    assert [len(t) for t in call(repr(structured)).tables()] == [2, 1]


def test_dtypes_are_real_never_numeric_strings() -> None:
    text = (
        "| id | price | ok | day | at | note |\n|---|---|---|---|---|---|\n"
        "| 1 | 2.5 | true | 2024-01-31 | 2024-01-31T10:00:00Z | a |\n"
        "| 2 |  | FALSE | 2024-02-01 | 2024-02-01T11:30:00+02:00 | 3 |\n"
        "|  | 1e3 |  |  |  |  |\n"
    )
    frame = call(text).to_frame()
    assert dtypes(frame) == {
        "id": "Int64",
        "price": "float64",
        "ok": "boolean",
        "day": "datetime64",
        "at": "datetime64 UTC",
        "note": "text",  # "a" and "3": text, left as text
    }
    assert frame["at"][1] == pd.Timestamp("2024-02-01T09:30:00Z")
    records = call("[{'n': 1, 'flag': True, 'x': None}, {'n': None, 'flag': None, 'x': None}]").to_frame()
    assert dtypes(records) == {"n": "Int64", "flag": "boolean", "x": "object"}


def test_prose_is_not_a_table() -> None:
    for text in (
        "Hello there.\nThis is a note about the weather.",
        "The query ran, and returned nothing useful; try again later, perhaps with a filter.\nThanks, bye.",
        "Just one line, with a comma",
        "- a list\n- of items\n---\n",
        "Title: Tides, url: https://a.example\nTitle: Moons, url: https://b.example",
        "It rained, then it stopped.\nWe left, and came back.",
        "Name: Bob\nAge: 12",
    ):
        with pytest.raises(ValueError, match="holds no table"):
            call(text).to_frame()


def test_several_blocks_concatenate_when_their_columns_agree() -> None:
    rows = call("Page 1:", json.dumps(ROWS[:1]), json.dumps(ROWS[1:]))
    assert rows.to_frame().to_dict("records") == ROWS
    mixed = call("a,b\n1,x\n2,y", "| n |\n|---|\n| 7 |")
    with pytest.raises(ValueError, match=r"holds 2 tables with different columns \(\[0\] a, b; \[1\] n\); pick one"):
        mixed.to_frame()
    first, second = mixed.tables()
    assert first.to_dict("records") == ROWS and second["n"].tolist() == [7]


def test_embedded_resources_by_mime_type() -> None:
    csv_block = {"type": "resource", "resource": {"uri": "r://t", "mimeType": "text/csv", "text": "a,b\n1,x\n2,y\n"}}
    assert call("Here you are:", csv_block).to_frame().to_dict("records") == ROWS
    plain = {"type": "resource", "resource": {"uri": "r://t", "mimeType": "text/plain", "text": json.dumps(ROWS)}}
    assert call(plain).to_frame().to_dict("records") == ROWS  # not a table's type: its text is read
    assert call("a,b\n1,x", csv_block).to_frame(format="resource").to_dict("records") == ROWS


def test_forcing_a_reader() -> None:
    assert call("n\n1\n2").to_frame(format="csv")["n"].tolist() == [1, 2]  # one column: only when asked
    result = call("[{'a': 1}]", structured={"a": 9})
    assert result.to_frame().to_dict("records") == [{"a": 9}]
    assert result.to_frame(format="python").to_dict("records") == [{"a": 1}]
    assert result.to_frame(format="records").to_dict("records") == [{"a": 9}]
    with pytest.raises(ValueError, match=r"'t' has no structuredContent"):
        call("x").to_frame(format="records")


def test_python_literals_keep_their_strings() -> None:
    # JSON-shaped literals take the JSON parser; these words inside strings stay as they are.
    frame = call("[{'a': 'None of it, True', 'b': None, 'c': False}, {'a': 'x', 'b': 2.5, 'c': True}]").to_frame()
    assert frame["a"].tolist() == ["None of it, True", "x"] and frame["c"].tolist() == [False, True]
    assert frame["b"].isna().tolist() == [True, False]
    quoted = call("""[{'n': "O'Brien", 'v': b'raw', 'w': (1, 2)}]""").to_frame()  # literal_eval's
    assert quoted.to_dict("records") == [{"n": "O'Brien", "v": b"raw", "w": (1, 2)}]


def test_a_python_literal_is_parsed_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    text = f"[{{'a': __import__('pathlib').Path({str(marker)!r}).touch()}}]"
    with pytest.raises(ValueError, match="holds no table"):
        call(text).to_frame()
    with pytest.raises(ValueError, match="not a Python literal"):
        call(text).to_frame(format="python")
    assert not marker.exists()
    with pytest.raises(ValueError, match="over 10,000,000 characters"):
        call("[" + "1," * 5_000_001 + "]").to_frame(format="python")


def test_the_error_shows_server_text_safely() -> None:
    with pytest.raises(ValueError) as caught:
        call("\x1b]52;c;ZXZpbA==\x07 is not\na table " + "x" * 200).to_frame()
    message = str(caught.value)
    assert "\x1b" not in message and "\x07" not in message and "\n" not in message
    assert "starts with '\\x1b]52;c;ZXZpbA==\\x07 is not\\na table xxx" in message and "x" * 80 not in message


def _text_result(text: str) -> CallResult:
    return CallResult.from_raw("s", "t", {"content": [{"type": "text", "text": text}]})


def test_codes_that_look_like_numbers_stay_text() -> None:
    # A ZIP code's leading zero, a phone number's "+", a country code "NA": kept as sent,
    # in CSV, Markdown and JSON alike; the real numbers beside them still become numbers.
    csv_text = "zip,n,phone,country\n01234,1,+15551234567,NA\n12345,2,+15551234568,US\n"
    markdown = "| zip | n |\n|---|---|\n| 01234 | 1.5 |\n| 99999 | 2 |\n"
    json_text = json.dumps([{"zip": "01234", "n": 1}, {"zip": "12345", "n": 2}])
    for text in (csv_text, markdown, json_text):
        frame = _text_result(text).to_frame()
        assert frame["zip"].tolist() == ["01234", "12345" if text != markdown else "99999"], text
        assert frame["n"].dtype.kind in "if", text
    frame = _text_result(csv_text).to_frame()
    assert frame["phone"].tolist() == ["+15551234567", "+15551234568"] and frame["country"].tolist() == ["NA", "US"]


def test_a_big_python_literal_is_read_only_when_asked() -> None:
    # ast.literal_eval takes seconds and gigabytes for a few MB: a guess does not try past 1 MB.
    text = "[" + ", ".join(f"{{'a': ({i}, {i})}}" for i in range(80_000)) + "]"  # tuples: not JSON-shaped
    assert len(text) > 1_000_000
    with pytest.raises(ValueError, match=r"holds no table.*format="):
        _text_result(text).to_frame()


def test_codes_far_down_a_big_csv_stay_text() -> None:
    # pandas' parser reads the numbers; a scan of the bytes finds the columns where a code
    # hides (after thousands of numbers, quoted, or after a "+"), and those stay text.
    rows = "".join(f"{10000 + i},{i},{i * 7},x{i}\n" for i in range(5000))
    frame = _text_result("zip,n,phone,name\n" + rows + "01234,1,+4915,y\n" + rows).to_frame()
    assert dtypes(frame) == {"zip": "text", "n": "int64", "phone": "text", "name": "text"}
    assert frame["zip"][5000] == "01234" and frame["phone"][5000] == "+4915" and frame["zip"][0] == "10000"
    quoted = "".join(f'{10000 + i},{i},"a, b"\n' for i in range(3000))
    frame = _text_result("zip,n,note\n" + quoted + '"01234",1,"c"\n').to_frame()
    assert dtypes(frame) == {"zip": "text", "n": "int64", "note": "text"} and frame["zip"].iloc[-1] == "01234"
    times = _text_result("id,at\n" + "".join(f"{i},09:{i % 60:02d}\n" for i in range(200))).to_frame()
    assert dtypes(times) == {"id": "int64", "at": "text"}  # "09:…" starts like a code, in a column of text


def test_codes_after_a_tab_or_on_cr_only_lines_stay_text() -> None:
    for text in ("zip,n\r01234,1\r02345,2\r", "n,zip\r1,01234\r2,02345\r", "n,zip\n1,\t01234\n2,5\n"):
        frame = _text_result(text).to_frame()
        assert dtypes(frame) == {"zip": "text", "n": "int64"}, repr(text)
        assert frame["zip"][0].strip() == "01234", repr(text)


def test_integers_beyond_2_53_with_gaps_stay_exact() -> None:
    # pandas gives an integer column with gaps as floats, which round past 2**53: two ids
    # would become one number. Such a column is read again as text, and becomes Int64.
    text = "id,name\n1234567890123456789,a\n,b\n1234567890123456788,c\n"
    resource = {"type": "resource", "resource": {"uri": "r://t", "mimeType": "text/csv", "text": text}}
    for result in (_text_result(text), call(resource)):
        frame = result.to_frame()
        assert dtypes(frame) == {"id": "Int64", "name": "text"}
        assert frame["id"].tolist() == [1234567890123456789, pd.NA, 1234567890123456788]
    assert _text_result("x,n\n1.5e300,a\n,b\n").to_frame()["x"].dtype == "float64"  # a float stays one
    unsigned = _text_result("| a | b |\n|---|---|\n| 18446744073709551615 | x |\n|  | y |\n").to_frame()
    assert dtypes(unsigned) == {"a": "UInt64", "b": "text"} and unsigned["a"][0] == 2**64 - 1


def test_a_column_that_turns_to_text_far_down_is_text() -> None:
    # pandas reads a big CSV in chunks: numbers in one, text in a later one gave a mix of both.
    frame = _text_result("a,b\n" + "1,x\n" * 300_000 + "y,2\n").to_frame()
    assert dtypes(frame) == {"a": "text", "b": "text"} and frame["a"].iloc[0] == "1"


def test_na_words_beside_numbers_booleans_and_dates_are_missing() -> None:
    frame = _text_result("a,b,c,d,e\n1,NA,true,2024-01-01,NA\nNA,2.5,null,N/A,US\n3,,false,2024-01-03,FR\n").to_frame()
    assert dtypes(frame) == {"a": "Int64", "b": "float64", "c": "boolean", "d": "datetime64", "e": "text"}
    assert frame["a"].isna().tolist() == [False, True, False]
    # The table writes a missing value "NA": so it is in its text too; without that, "NA" is text.
    assert frame["e"].isna().tolist() == [True, False, False]
    assert _text_result("e,n\nNA,1\nUS,2\n").to_frame()["e"].tolist() == ["NA", "US"]


def test_without_pyarrow_the_same_table() -> None:
    # pyarrow (when installed) parses dates and matches codes in C++; pandas alone (a fresh
    # interpreter where importing pyarrow fails, as if not installed) gives the same table.
    script = """
import json, sys
sys.modules["pyarrow"] = None
from mcp_notebook import CallResult
rows = "".join(
    f"{i},{'0' if i == 150 else '1'}{i:04d},2024-01-{i % 28 + 1:02d}T10:00:00+02:00,2024-02-{i % 28 + 1:02d},{i}.5\\n"
    for i in range(200)
)
frame = CallResult.from_raw("s", "t", {"content": [{"type": "text", "text": "id,zip,at,day,n\\n" + rows}]}).to_frame()
print(json.dumps([{c: str(t) for c, t in frame.dtypes.items()}, frame.astype(str).values.tolist()]))
"""
    runs = [
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
        for code in (script, script.replace('sys.modules["pyarrow"] = None', ""))
    ]
    assert json.loads(runs[0]) == json.loads(runs[1])
    kinds, values = json.loads(runs[0])
    assert kinds["id"] == "int64" and kinds["n"] == "float64" and kinds["day"].startswith("datetime64[")
    assert kinds["at"].startswith("datetime64[") and kinds["at"].endswith(", UTC]")
    assert values[150][1] == "00150" and values[0][2] == "2024-01-01 08:00:00+00:00"


def test_a_header_row_alone_is_an_empty_table_with_its_columns() -> None:
    for header in ("id,name,total\n", "user_id;createdAt\n"):
        empty = _text_result(header).to_frame()
        assert empty.empty and list(empty.columns) == header.strip().replace(";", ",").split(",")
    # Prose ending in a line break is no header row unless asked: a space after the
    # delimiter, or two plain words.
    prose = ("id,name,total", "Just one line, with a comma\n", "Hello, world\n", "yes, done\n", "ok;saved\n")
    for text in (*prose, "Paris, France\n"):
        with pytest.raises(ValueError, match="holds no table"):
            _text_result(text).to_frame()
    assert list(_text_result("order id,total\n").to_frame(format="csv").columns) == ["order id", "total"]
    assert list(_text_result("ok;saved\n").to_frame(format="csv").columns) == ["ok", "saved"]


def test_a_forced_reader_that_finds_no_table_says_so() -> None:
    with pytest.raises(ValueError) as caught:
        _text_result("[{'a': 1, 'b': 'x'}, {'a': 2, 'b': 'y'}]").to_frame(format="csv")
    assert str(caught.value).startswith("the result of 't' holds no csv table: one line, and not a header row; ")
    assert "\n" not in str(caught.value)


def test_python_rows_with_dates_decimals_and_uuids() -> None:
    # str() of a list of dict rows, as Python database servers print them: the constructors
    # are read from the syntax tree, never run.
    text = (
        "[{'id': UUID('12345678-1234-5678-1234-567812345678'), 'day': datetime.date(2024, 5, 1), "
        "'at': datetime.datetime(2024, 5, 1, 10, 0, tzinfo=datetime.timezone.utc), 'opens': datetime.time(9, 30), "
        "'price': Decimal('12.50')}, {'id': UUID('12345678-1234-5678-1234-567812345679'), 'day': date(2024, 5, 2), "
        "'at': datetime.datetime(2024, 5, 1, 12, 0, tzinfo=datetime.timezone(datetime.timedelta(seconds=7200))), "
        "'opens': datetime.time(10, 0), 'price': Decimal('7.25')}]"
    )
    frame = _text_result(text).to_frame()
    assert dtypes(frame) == {
        "id": "text",
        "day": "datetime64",
        "at": "datetime64 UTC",
        "opens": "object",  # pandas has no time-of-day dtype: datetime.time values
        "price": "float64",
    }
    assert frame["id"][0] == "12345678-1234-5678-1234-567812345678" and frame["price"].sum() == 19.75
    assert frame["at"][0] == frame["at"][1] == pd.Timestamp("2024-05-01T10:00:00Z")
    assert frame["opens"][0] == datetime.time(9, 30)
    # One fixed offset (named, as repr() prints it, or not) is in UTC too, as in CSV text.
    zone = "datetime.timezone(datetime.timedelta(seconds=7200)"
    for named in (zone + ")", zone + ", 'CEST')"):
        at = _text_result(f"[{{'at': datetime.datetime(2024, 5, 1, 12, 0, tzinfo={named})}}]").to_frame()["at"]
        assert dtypes(at.to_frame()) == {"at": "datetime64 UTC"} and at[0] == pd.Timestamp("2024-05-01T10:00:00Z")


def test_python_values_no_dtype_holds() -> None:
    # A signalling NaN is a missing value; integers beyond 64 bits are their text (a hex one
    # past Python's 4300-digit printing limit too), whichever parser reads the literal.
    signalling = _text_result("[{'a': Decimal('sNaN')}, {'a': Decimal('1.5')}]").to_frame()
    assert signalling["a"].isna().tolist() == [True, False]
    huge = _text_result("[{'a': 0x" + "f" * 4000 + "}, {'a': 1}]").to_frame()
    assert huge["a"][0].startswith("0xfff") and huge["a"][1] == 1 and "0xfff" in repr(huge)
    wide = "123456789012345678901234567890"
    for text in (f"[{{'a': {wide}}}, {{'a': -{wide}}}]", f"[{{'a': {wide}, 'b': (1,)}}, {{'a': -{wide}, 'b': (2,)}}]"):
        assert _text_result(text).to_frame()["a"].tolist() == [wide, "-" + wide], text  # JSON-shaped, then not


@pytest.mark.parametrize(
    "value",
    [
        "date(99999999999999999999, 1, 1)",
        "time(99999999999999999999)",
        "datetime(2024, 1, 1, tzinfo=timezone(timedelta(1e300)))",
        "datetime(2024, 1, 1, tzinfo=timezone(timedelta(seconds=1e400)))",
        "Decimal((0, (1,), 99999999999999999999))",
        "Decimal('abc')",
        "Decimal('1e99999999999999999999')",
        "UUID('zz')",
    ],
)
def test_constructor_arguments_that_make_no_value_are_no_table(value: str) -> None:
    result = _text_result(f"[{{'a': {value}}}]")
    with pytest.raises(ValueError, match=r"holds no table \(tried"):
        result.to_frame()
    with pytest.raises(ValueError, match="holds no python table: not a Python literal"):
        result.to_frame(format="python")


@pytest.mark.parametrize(
    "call",
    [
        "os.system('touch x')",
        "datetime.date(2024, 5, int('1'))",
        "Decimal(x)",
        "datetime.datetime(2024, 1, 1, tzinfo=zoneinfo.ZoneInfo(key='UTC'))",
        "datetime.date(**{'year': 2024})",
        "__import__('os')",
    ],
)
def test_other_calls_in_a_python_literal_are_refused(call: str) -> None:
    with pytest.raises(ValueError, match="holds no python table: not a Python literal"):
        _text_result(f"[{{'a': {call}}}]").to_frame(format="python")
