"""Qualified tool names and argument checks (pure functions: no server needed)."""

from __future__ import annotations

import random
import re

import pytest

from mcp_notebook import ArgumentError
from mcp_notebook.core import naming
from mcp_notebook.core.arguments.validation import check_structured_output, validate_arguments
from mcp_notebook.core.naming import MAX_LENGTH, ToolNames, is_plain, qualified_name, split_qualified_name

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


# Parts chosen to meet at the separator: underscores at either end, "__" inside, unsafe and
# non-ASCII characters, hash-like tails, lengths around the 64-character limit.
TRICKY = [
    "h", "h_", "_t", "t", "_", "__", "a", "b", "c", "a__b", "b__c", "a_", "_a", "__a", "a__", "a-", "-",
    "x.y", "x_y", "x y", "é", "e", "résumé", "r_sum_", "\ud800", "0123456789abcdef", "t_0123456789abcdef",
    "t_0123456789abcdef0123456789abcdef", "t_0123456789ABCDEF", "s" * 27, "s" * 28, "s" * 54, "t" * 55, "t" * 70, "",
]  # fmt: skip
PAIRS = [(s, t) for s in TRICKY for t in TRICKY]


def test_no_two_pairs_share_a_name() -> None:
    """The name is a function of the pair, so it must be one-to-one: a server can never
    name its tools so that another server's tool gets, or loses, their name."""
    rng = random.Random(12)
    alphabet = "a_-.é0f"
    randoms = [
        ("".join(rng.choices(alphabet, k=rng.randint(0, 6))), "".join(rng.choices(alphabet, k=rng.randint(0, 70))))
        for _ in range(20000)
    ]
    pairs = set(PAIRS) | set(randoms)
    by_name: dict[str, tuple[str, str]] = {}
    for pair in pairs:
        name = qualified_name(*pair)
        assert SAFE.match(name) and len(name) <= MAX_LENGTH, pair
        assert by_name.setdefault(name, pair) == pair, f"{pair} and {by_name[name]} are both {name}"
        # A plain name decodes to its pair alone; any other name decodes to nothing.
        assert split_qualified_name(name) == (pair if is_plain(*pair) else None), pair


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("h", "_t"), ("h_", "t")),
        (("a", "b__c"), ("a__b", "c")),
        (("a", "_b"), ("a_", "b")),
        # A server named to look like another once sanitised, whose tool mimics that one's hashed name.
        (("my.srv", "t"), ("my_srv", qualified_name("my.srv", "t").removeprefix("mcp__my_srv__"))),
    ],
)
def test_names_do_not_depend_on_order(first: tuple[str, str], second: tuple[str, str]) -> None:
    forward, backward = ToolNames(), ToolNames()
    names = [forward.add(*first), forward.add(*second)]
    assert [backward.add(*second), backward.add(*first)][::-1] == names
    assert names == [qualified_name(*first), qualified_name(*second)] and names[0] != names[1]
    for names_ in (forward, backward):
        assert [names_.resolve(n) for n in names] == [first, second]


def test_the_first_pair_keeps_its_name_if_the_hash_ever_collides(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two pairs with the same 64-bit hash cannot be found on purpose: pretend we found one.
    monkeypatch.setattr(naming, "qualified_name", lambda server, tool: "mcp__same_0123456789abcdef")
    names = ToolNames()
    first = names.add("one", "t.x")
    second = names.add("two", "t.x")
    assert first == "mcp__same_0123456789abcdef" and second != first and len(second) <= MAX_LENGTH
    assert names.add("one", "t.x") == first and names.add("two", "t.x") == second
    assert names.resolve(first) == ("one", "t.x") and names.resolve(second) == ("two", "t.x")


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


@pytest.mark.parametrize(
    "kind", ["string", "boolean", "null", "array", "object", ["string", "null"], ["array", "object"]]
)
def test_a_plain_typed_argument_is_accepted_exactly_when_jsonschema_accepts_it(kind: str | list[str]) -> None:
    """The quick check (isinstance for a property with a plain type only) never says yes
    where jsonschema says no: True is not a string, 1 is not a boolean, a tuple is not an array."""
    import jsonschema

    schema = {"type": "object", "properties": {"x": {"type": kind, "description": "d"}}, "required": ["x"]}
    tool = {"name": "t", "inputSchema": schema}
    for value in ["s", "", True, False, 0, 1, 1.5, None, [], [1], {}, {"a": 1}, (1, 2)]:
        accepted = jsonschema.Draft202012Validator(schema).is_valid({"x": value})
        try:
            validate_arguments(tool, {"x": value})
        except ArgumentError:
            assert not accepted, (kind, value)
        else:
            assert accepted, (kind, value)
