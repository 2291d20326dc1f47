"""Big resources into pandas: a raw stdio server's generated table read as CSV text, a
Parquet blob and an Excel blob; templates filled from arguments (the demo server); a
resource over ``max_message_size`` refused in one line, the connection usable after, and
the same read answered once the setting is raised (no restart)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator

import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell
from support.peers import SERVERS

from mcp_notebook import ArgumentError, Client, MessageTooLarge, Settings, Status
from mcp_notebook.core.transports import DEFAULT_MAX_MESSAGE_SIZE

TABLE = str(SERVERS / "tables_raw.py")


@pytest.fixture(scope="module")
def demo() -> Iterator[object]:
    client = Client()
    try:
        yield client.add("demo", sys.executable, ["-m", "mcp_notebook.demo"])
    finally:
        client.close()


def test_template_filled_from_values(demo) -> None:  # type: ignore[no-untyped-def]
    gentoo = demo.read_resource("penguins://species/{species}.csv", species="Gentoo")
    assert gentoo.uri == "penguins://species/Gentoo.csv"
    frame = gentoo.to_frame()
    assert len(frame) == 124 and set(frame["species"]) == {"Gentoo"}
    adelie = asyncio.run(demo.aread_resource("penguins://species/{species}.csv", species="Adelie"))
    assert set(adelie.to_frame()["species"]) == {"Adelie"}


def test_a_csv_resource_gets_the_dtypes_a_tool_result_gets(demo) -> None:  # type: ignore[no-untyped-def]
    # One path for CSV: the species resource (NA where a value is missing) and the same rows
    # from the query tool (structured records) give the same dtypes; ISO dates are dates.
    resource = demo.read_resource("penguins://species/{species}.csv", species="Gentoo").to_frame()
    tool = demo.call_tool("query_penguins", {"species": "Gentoo", "limit": 344}).to_frame()
    assert str(resource["body_mass_g"].dtype) == "Int64" and resource["body_mass_g"].isna().sum() == 1
    pd.testing.assert_frame_equal(resource, tool)  # "NA" in the CSV's sex column too: missing, as None is
    client = Client()
    try:
        table = client.add("tables", sys.executable, [TABLE, "0.1"]).read_resource("table://data.csv").to_frame()
        assert table["day"].dtype.kind == "M" and table["day"][0] == pd.Timestamp("2026-01-01")
    finally:
        client.close()


@pytest.mark.parametrize(
    ("uri", "values", "expected"),
    [
        ("penguins://species/{species}.csv", {}, r"no value for species; give its variables species \(species="),
        ("penguins://species/{species}.csv", {"kind": "x"}, r"unknown kind; give its variables species"),
        ("penguins://species/{species}.csv", {"species": None}, r"no value for species"),
        ("penguins://species/{species}.csv", {"species": ["a"]}, r"species takes a single value"),
        ("penguins://data.csv", {"species": "Gentoo"}, r"penguins://data.csv is not a template"),
    ],
)
def test_template_values_checked_before_sending(demo, uri: str, values: dict, expected: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ArgumentError, match=expected) as info:
        demo.read_resource(uri, **values)
    assert "\n" not in str(info.value)
    assert demo.read_resource("penguins://species/{species}.csv", species="Chinstrap").to_frame().shape == (68, 8)


def test_csv_parquet_and_excel_blobs_give_the_same_table() -> None:
    client = Client()
    try:
        server = client.add("tables", sys.executable, [TABLE, "0.2"])
        csv = server.read_resource("table://data.csv").to_frame()
        assert list(csv.columns) == ["id", "x", "name", "flag", "day"] and len(csv) > 4000
        assert csv["id"].dtype.kind == "i" and csv["x"].dtype.kind == "f" and csv["flag"].dtype == bool
        pytest.importorskip("pyarrow")
        pd.testing.assert_frame_equal(server.read_resource("table://data.parquet").to_frame(), csv)
        pytest.importorskip("openpyxl")
        excel = server.read_resource("table://data.xlsx").to_frame()
        pd.testing.assert_frame_equal(excel, csv.head(50), check_dtype=False)
    finally:
        client.close()


@pytest.mark.parametrize(("uri", "package"), [("table://data.parquet", "pyarrow"), ("table://data.xlsx", "openpyxl")])
def test_a_missing_package_is_one_line_naming_it(uri: str, package: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip(package)  # the server makes the blob with it
    client = Client()
    try:
        result = client.add("tables", sys.executable, [TABLE, "0.1"]).read_resource(uri)
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            monkeypatch.delitem(sys.modules, name)
        monkeypatch.setitem(sys.modules, package, None)  # as if not installed: importing it fails
        with pytest.raises(ValueError, match=rf"^reading {uri} \(.*\) needs {package}: pip install {package}$"):
            result.to_frame()
    finally:
        client.close()


def test_resource_over_the_limit_is_one_line_naming_the_setting_and_the_connection_stays() -> None:
    client = Client(settings=Settings(max_message_size=1 << 20))
    try:
        server = client.add("tables", sys.executable, [TABLE, "3"])  # a 3 MiB CSV resource, a 1 MiB limit
        with pytest.raises(MessageTooLarge) as info:
            server.read_resource("table://data.csv")
        message = str(info.value)
        assert "\n" not in message
        assert "over the 1.0 MiB limit" in message and "max_message_size" in message
        assert "client.settings.max_message_size = " in message and "%config MCPMagics.max_message_size" in message
        assert server.read_resource("table://small.csv").to_frame()["id"].tolist() == [0, 1, 2]
        assert len(server.read_resource("table://small.csv").to_frame()) == 3
        # Doing what the message says is enough: the live connection takes the new limit.
        client.settings.max_message_size = 8 << 20
        assert len(server.read_resource("table://data.csv").text) > 1 << 20
        assert server.pid is not None and server.status is Status.CONNECTED
    finally:
        client.close()


def test_a_limit_raised_in_config_reaches_the_live_connection() -> None:
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mcp_notebook")
    shell.run_line_magic("config", "MCPMagics.max_message_size = 1048576")
    shell.run_line_magic("mcp", f"add tables -- {sys.executable} {TABLE} 3")
    try:
        with pytest.raises(MessageTooLarge, match=r"%config MCPMagics\.max_message_size="):
            shell.run_line_magic("mcp", "read tables table://data.csv")
        shell.run_line_magic("config", "MCPMagics.max_message_size = 8388608")
        assert len(shell.run_line_magic("mcp", "read tables table://data.csv").text) > 1 << 20
    finally:
        shell.run_line_magic("mcp", "remove tables")
        shell.run_line_magic("config", f"MCPMagics.max_message_size = {DEFAULT_MAX_MESSAGE_SIZE}")
        shell.run_line_magic("unload_ext", "mcp_notebook")
