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
