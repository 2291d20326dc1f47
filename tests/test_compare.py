"""Listings kept and compared: ``%mcp snapshot`` writes a server's listings to a file and
``%mcp diff`` (``client.diff``) says what changed between two servers or a server and a
snapshot, breaking changes marked. Against the demo and its next version
(tests/servers/demo_changed.py: one tool renamed, one argument made required)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from IPython.core.error import UsageError
from support.peers import SERVERS
from support.shells import extension_loaded, line

from mcp_notebook.core.listings.compare import compare
from mcp_notebook.runtime.client import get_client


def test_the_demos_next_version_differs_by_exactly_its_rename_and_its_new_required_argument(tmp_path: Path) -> None:
    path = tmp_path / "demo-1.0.json"
    with extension_loaded() as ip:
        client = get_client()
        client.add("demo", sys.executable, ["-m", "mcp_notebook.demo"])
        client.add("next", sys.executable, [str(SERVERS / "demo_changed.py"), "--listing"])
        try:
            line(ip, f"snapshot demo {path}")
            saved = json.loads(path.read_text())
            assert saved["server"] == "demo" and saved["serverInfo"]["name"] == "penguins"
            assert len(saved["tools"]) == 7 and saved["tools"][0]["inputSchema"]  # schemas kept
            frame = line(ip, f"diff {path} next")
            assert isinstance(frame, pd.DataFrame)
            assert frame.astype(object).where(frame.notna(), None).to_dict("records") == [
                {"kind": "tool", "name": "summarize_penguins → summarise_penguins", "change": "renamed",
                 "path": None, "before": "summarize_penguins", "after": "summarise_penguins", "breaking": True},
                {"kind": "tool", "name": "query_penguins", "change": "changed", "path": "inputSchema.required",
                 "before": None, "after": "species", "breaking": True},
            ]  # fmt: skip
            assert line(ip, "diff demo next").equals(frame)  # two servers: the same
            assert line(ip, f"diff demo {path}").empty  # the demo is still what was saved
            with pytest.raises(UsageError, match=r"nope\.json: no such snapshot; write one with %mcp snapshot"):
                line(ip, f"diff {tmp_path / 'nope.json'} demo")
            (tmp_path / "other.json").write_text('{"tools": []}')
            with pytest.raises(UsageError, match="not an mcp-notebook snapshot"):
                line(ip, f"diff {tmp_path / 'other.json'} demo")
            deep = '{"type": "object", "properties": {"a": ' * 900 + "{}" + "}}" * 900
            (tmp_path / "deep.json").write_text(f'{{"tools": [{{"name": "t", "inputSchema": {deep}}}]}}')
            with pytest.raises(UsageError, match=r"deep\.json: not a snapshot \(nested too deep to read\)$"):
                line(ip, f"diff {tmp_path / 'deep.json'} demo")
        finally:
            client.remove("demo")
            client.remove("next")


def tool(name: str, properties: dict[str, Any], required: list[str] | None = None, **more: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        schema["required"] = required
    return {"name": name, "inputSchema": schema, **more}


def rows(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, str, str | None, bool]]:
    return [(c.name, c.change, c.path, c.breaking) for c in compare(old, new)]


def test_which_changes_break_a_caller() -> None:
    species = {"type": "string", "enum": ["Adelie", "Gentoo", "Chinstrap"]}
    old = {
        "tools": [
            tool("query", {"species": species, "limit": {"type": "integer"}, "sex": {"type": "string"}}, ["limit"],
                 outputSchema={"type": "object",
                               "properties": {"rows": {"type": "array"}, "count": {"type": "integer"}}},
                 description="Query."),
            tool("gone", {}),
        ],
        "prompts": [{"name": "explore", "arguments": [{"name": "question", "required": False}]}],
        "resources": [{"uri": "penguins://data.csv", "name": "csv", "mimeType": "text/csv"}],
    }  # fmt: skip
    new = {
        "tools": [
            tool("query", {"species": {"type": "string", "enum": ["Adelie", "Gentoo", "Emperor"]},
                           "limit": {"type": "string"}, "island": {"type": "string"}}, [],
                 outputSchema={"type": "object", "properties": {"rows": {"type": "array"}}},
                 description="Query the penguins."),
            tool("added", {"x": {"type": "string"}}),  # not the same as gone: no rename
        ],
        "prompts": [{"name": "explore", "arguments": [{"name": "question", "required": True}]}],
        "resources": [{"uri": "penguins://data.csv", "name": "csv", "mimeType": "application/json"}],
    }  # fmt: skip
    assert rows(old, new) == [
        ("gone", "removed", None, True),
        ("added", "added", None, False),
        ("query", "changed", "description", False),
        ("query", "changed", "inputSchema.required", False),  # limit no longer required: fine
        ("query", "changed", "inputSchema.properties.island", False),  # a new optional argument
        ("query", "changed", "inputSchema.properties.limit.type", True),
        ("query", "changed", "inputSchema.properties.sex", True),  # an argument callers send, gone
        ("query", "changed", "inputSchema.properties.species.enum", True),  # Chinstrap removed
        ("query", "changed", "inputSchema.properties.species.enum", False),  # Emperor added
        ("query", "changed", "outputSchema.properties.count", True),  # a field callers read, gone
        ("explore", "changed", "arguments.question.required", True),
        ("penguins://data.csv", "changed", "mimeType", True),
    ]
    assert compare(old, old) == []


def test_malformed_listings_are_compared_without_failing() -> None:
    odd = {"tools": [{"name": "a", "inputSchema": {"properties": [1], "required": [{}]}}, "not an entry"],
           "prompts": [{"name": "p", "arguments": [{"name": ["x"]}, 3]}]}  # fmt: skip
    fine = {"tools": [{"name": "a", "inputSchema": {"properties": {"x": {}}, "required": ["x"]}}],
            "prompts": [{"name": "p", "arguments": [{"name": "q", "required": True}]}]}  # fmt: skip
    assert rows(odd, fine) == [
        ("a", "changed", "inputSchema.required", True),
        ("a", "changed", "inputSchema.properties.x", False),
        ("p", "changed", "arguments.q", True),
    ]
    nested = tool("n", {"o": {"type": "object", "properties": {"k": {"type": "string"}}}})
    stricter = tool("n", {"o": {"type": "object", "properties": {"k": {"type": "string"}}, "required": ["k"]}})
    assert rows({"tools": [nested]}, {"tools": [stricter]}) == [
        ("n", "changed", "inputSchema.properties.o.required", True)
    ]


def test_an_official_sdk_servers_rename_is_found_and_its_narrowed_literal_is_breaking(tmp_path: Path) -> None:
    # The SDK titles a tool's schemas after it (forecastArguments) and a one-value Literal
    # is a const: the rename must still be found, and enum -> const is a narrowing.
    from mcp_notebook import Client

    path = tmp_path / "forecast-1.0.json"
    client = Client()
    try:
        client.add("v1", sys.executable, [str(SERVERS / "sdk_forecast.py")])
        client.add("v2", sys.executable, [str(SERVERS / "sdk_forecast_next.py")])
        client.snapshot("v1", path)
        titles = {t["name"]: t["inputSchema"]["title"] for t in json.loads(path.read_text())["tools"]}
        assert titles["forecast"] == "forecastArguments"
        changes = client.diff(path, "v2")
    finally:
        client.close()
    assert [(c.name, c.change, c.path, c.before, c.after, c.breaking) for c in changes] == [
        ("forecast → daily_forecast", "renamed", None, "forecast", "daily_forecast", True),
        ("alerts", "changed", "inputSchema.properties.level.const", '["minor", "severe"]', '["severe"]', True),
        ("alerts", "changed", "inputSchema.properties.level.default", "minor", "severe", False),
    ]


def test_any_value_a_caller_could_send_before_and_cannot_now_is_breaking() -> None:
    def level(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str | None, bool]]:
        return [(c.path, c.breaking) for c in compare({"tools": [tool("t", {"x": before})]},
                                                       {"tools": [tool("t", {"x": after})]})]  # fmt: skip

    x = "inputSchema.properties.x"
    enum = {"type": "string", "enum": ["a", "b"]}
    assert level(enum, {"type": "string", "const": "a"}) == [(f"{x}.const", True)]  # enum -> const
    assert level({"type": "string", "const": "a"}, enum) == [(f"{x}.enum", False)]  # const -> enum: wider
    assert level({"const": "a"}, {"const": "b"}) == [(f"{x}.const", True)]
    assert level({"type": "string"}, enum) == [(f"{x}.enum", True)]  # anything -> a few
    assert level(enum, {"type": "string"}) == [(f"{x}.enum", False)]
    assert level({"type": "number"}, {"type": "integer"}) == [(f"{x}.type", True)]
    assert level({"type": "integer"}, {"type": "number"}) == [(f"{x}.type", False)]
    assert level({"type": ["string", "null"]}, {"type": "string"}) == [(f"{x}.type", True)]
    assert level({}, {"type": "string"}) == [(f"{x}.type", True)]
    assert level({"type": "integer"}, {"type": "integer", "minimum": 1}) == [(f"{x}.minimum", True)]
    assert level({"type": "integer", "maximum": 9}, {"type": "integer", "maximum": 10}) == [(f"{x}.maximum", False)]
    assert level({"type": "string", "maxLength": 9}, {"type": "string", "maxLength": 5}) == [(f"{x}.maxLength", True)]
    assert level({"type": "string"}, {"type": "string", "pattern": "^a"}) == [(f"{x}.pattern", True)]
    assert level({"type": "string", "pattern": "^a"}, {"type": "string"}) == [(f"{x}.pattern", False)]
    assert level({"type": "object"}, {"type": "object", "additionalProperties": False}) == [
        (f"{x}.additionalProperties", True)
    ]
    assert level({"type": "array", "items": {"type": "number"}}, {"type": "array", "items": {"type": "integer"}}) == [
        (f"{x}.items.type", True)
    ]
    assert level({"anyOf": [{"type": "string"}, {"type": "null"}]}, {"anyOf": [{"type": "string"}]}) == [
        (f"{x}.anyOf", True)
    ]
    assert level({"title": "X", "description": "d"}, {"title": "Y", "description": "e"}) == [
        (f"{x}.description", False),
        (f"{x}.title", False),
    ]

    # What a caller reads goes the other way: a value it could not get before now comes.
    def read(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str | None, bool]]:
        shape = {"type": "object", "properties": {"kind": before}}
        changed = {"type": "object", "properties": {"kind": after}}
        return [(c.path, c.breaking) for c in compare({"tools": [tool("t", {}, outputSchema=shape)]},
                                                       {"tools": [tool("t", {}, outputSchema=changed)]})]  # fmt: skip

    kind = "outputSchema.properties.kind"
    assert read({"enum": ["a", "b"]}, {"enum": ["a", "b", "c"]}) == [(f"{kind}.enum", True)]
    assert read({"enum": ["a", "b"]}, {"enum": ["a"]}) == [(f"{kind}.enum", False)]
    assert read({"type": "integer"}, {"type": "number"}) == [(f"{kind}.type", True)]


def renamed_listing(count: int, prefix: str) -> dict[str, Any]:
    """``count`` tools, each its own schema (titled after the tool, as the SDK does)."""
    tools = [tool(f"{prefix}{i}", {f"p{i}": {"type": "string", "title": f"P{i}"}}, [f"p{i}"], description=f"Tool {i}.")
             for i in range(count)]  # fmt: skip
    for one in tools:
        one["inputSchema"]["title"] = f"{one['name']}Arguments"
    return {"tools": tools}


def test_three_thousand_renamed_tools_are_each_matched_to_their_new_name() -> None:
    old, new = renamed_listing(3000, "tool_"), renamed_listing(3000, "renamed_")
    new["tools"].reverse()  # the order a listing comes in is not the match
    changes = compare(old, new)
    assert len(changes) == 3000 and all(c.change == "renamed" and c.breaking for c in changes)
    assert {(c.before, c.after) for c in changes} == {(f"tool_{i}", f"renamed_{i}") for i in range(3000)}
    assert changes[0].name == "tool_0 → renamed_0"


def test_a_schema_keyword_added_narrows_and_removed_widens() -> None:
    def level(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str | None, bool]]:
        return [(c.path, c.breaking) for c in compare({"tools": [tool("t", {"x": before})]},
                                                       {"tools": [tool("t", {"x": after})]})]  # fmt: skip

    x = "inputSchema.properties.x"
    assert level({"type": "array"}, {"type": "array", "items": {"type": "string"}}) == [(f"{x}.items", True)]
    assert level({"type": "array", "items": {"type": "string"}}, {"type": "array"}) == [(f"{x}.items", False)]
    assert level({"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}) == [(f"{x}.$ref", True)]  # cannot tell: breaking
    assert level({"const": None}, {}) == [(f"{x}.const", False)]  # null was the one value; now any
    assert level({}, {"const": None}) == [(f"{x}.const", True)]
