"""Qualified tool names and argument checks (pure functions: no server needed)."""

from __future__ import annotations

import re

import pytest

from mcp_notebook import ArgumentError
from mcp_notebook.core.naming import MAX_LENGTH, ToolNames, qualified_name
from mcp_notebook.core.validation import check_structured_output, validate_arguments

SAFE = re.compile(r"^[a-zA-Z0-9_-]+$")


def test_plain_names_are_readable_and_reversible() -> None:
    names = ToolNames()
    assert names.add("github", "create_issue") == "mcp__github__create_issue"
    assert names.resolve("mcp__github__create_issue") == ("github", "create_issue")
    assert names.resolve("mcp__other__tool") == ("other", "tool")  # lossless names decode alone


@pytest.mark.parametrize(
    ("server", "tool"),
    [
        ("my.server", "get weather"),
        ("s", "résumé/parse"),
        ("s", "x" * 200),
        ("a" * 100, "tool"),
        ("srv", "tool__with__underscores" * 5),
    ],
)
def test_any_pair_gets_a_safe_bounded_stable_name(server: str, tool: str) -> None:
    names = ToolNames()
    name = names.add(server, tool)
    assert SAFE.match(name) and len(name) <= MAX_LENGTH
    assert name == qualified_name(server, tool)  # stable across sessions
    assert names.resolve(name) == (server, tool)


def test_names_that_sanitise_alike_do_not_collide() -> None:
    names = ToolNames()
    pairs = [("s", "a.b"), ("s", "a b"), ("s", "a_b"), ("s", "a/b")]
    qualified = [names.add(*p) for p in pairs]
    assert len(set(qualified)) == len(pairs)
    assert [names.resolve(q) for q in qualified] == pairs
    long_pairs = [("s", "t" * 70 + str(i)) for i in range(20)]
    assert len({names.add(*p) for p in long_pairs}) == 20


def test_unknown_name() -> None:
    with pytest.raises(KeyError):
        ToolNames().resolve("not_a_tool")


TOOL = {
    "name": "search",
    "inputSchema": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100},
            "mode": {"type": "string", "enum": ["fast", "deep"]},
            "email": {"type": "string", "format": "email"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
    "outputSchema": {"type": "object", "properties": {"hits": {"type": "integer"}}, "required": ["hits"]},
}


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": "x"},
        {"query": "x", "limit": 5, "mode": "deep"},
        {"query": "x", "limit": 5.0},
        {"query": "x", "email": "a@b.org", "tags": ["a"]},
    ],
)
def test_valid_arguments_pass(arguments: dict) -> None:
    validate_arguments(TOOL, arguments)


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({}, r"'query' is required"),
        ({"query": ""}, r"query: '' should be non-empty \(minLength\)"),
        ({"query": "x", "limit": 0}, r"limit: 0 is less than the minimum of 1 \(minimum\)"),
        ({"query": "x", "limit": True}, r"limit: True is not of type 'integer'"),
        ({"query": "x", "mode": "slow"}, r"mode: 'slow' is not one of \['fast', 'deep'\] \(enum\)"),
        ({"query": "x", "tags": ["a", 2]}, r"tags\[1\]: 2 is not of type 'string'"),
        ({"query": "x", "colour": "red"}, r"Additional properties are not allowed \('colour' was unexpected\)"),
    ],
)
def test_invalid_arguments_name_field_and_rule(arguments: dict, expected: str) -> None:
    with pytest.raises(ArgumentError, match=expected) as info:
        validate_arguments(TOOL, arguments)
    assert str(info.value).startswith("tool 'search': ")
    assert "validate=False" in str(info.value)


def test_broken_schema_does_not_block_the_call() -> None:
    validate_arguments({"name": "t", "inputSchema": {"type": "object", "properties": {"x": {"type": 7}}}}, {"x": 1})


def test_structured_output_checked_against_output_schema() -> None:
    assert check_structured_output(TOOL, {"hits": 3}) is None
    assert "hits" in (check_structured_output(TOOL, {"hits": "many"}) or "")
    assert check_structured_output({"name": "t"}, {"anything": 1}) is None
