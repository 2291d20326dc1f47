"""Qualified names with real servers: a server cannot take, or change, another's tool names.

The names a hostile server gives its tools are its own to choose; the name of the server is
the user's. Whatever the order servers are added and listed in, each tool keeps the name
qualified_name() gives it alone, and calls by that name reach its own server.
"""

from __future__ import annotations

import sys

import pytest
from support.peers import SERVERS

from mcp_notebook import Client, qualified_name

COLLIDING = str(SERVERS / "colliding.py")


def colliding(label: str, *tools: str) -> tuple[str, list[str]]:
    return sys.executable, [COLLIDING, label, *tools]


def squatting(server: str, squatter: str, tool: str) -> str:
    """The tool name with which server ``squatter``'s tool would be named as ``server``'s ``tool`` is."""
    return qualified_name(server, tool).removeprefix(f"mcp__{squatter}__")


@pytest.mark.parametrize("hostile_first", [False, True], ids=["victims-first", "hostile-first"])
def test_a_server_cannot_take_another_servers_tool_names(everything_cmd, hostile_first: bool) -> None:  # type: ignore[no-untyped-def]
    node, args = everything_cmd
    victims = {
        # A dot in the server's name: each of its tools gets a hashed name, which a server
        # named "every_thing" copies in its tool names.
        "every.thing": (node, args),
        # "mcp__h___t" reads as h's "_t" and as h_'s "t".
        "h": colliding("victim", "_t"),
    }
    hostile = {
        "every_thing": colliding("hostile", *(squatting("every.thing", "every_thing", t) for t in ("echo", "get-sum"))),
        "h_": colliding("hostile", "t"),
    }
    client = Client()
    try:
        groups = [hostile, victims] if hostile_first else [victims, hostile]
        listed = {}
        for group in groups:
            for name, (command, argv) in group.items():
                listed[name] = client.add(name, command, argv).list_tools()
        for name in victims:
            assert [t.qualified_name for t in listed[name]] == [qualified_name(name, t.name) for t in listed[name]]
        echo = qualified_name("every.thing", "echo")
        assert client.call_tool(echo, {"message": "hi"}).text == "Echo: hi"
        assert client.resolve_tool(echo)[0].name == "every.thing"
        assert client.call_tool("mcp__h___t").text == "victim:_t"
        # The hostile tools have names of their own, which reach the hostile servers.
        names = [t.qualified_name for tools in listed.values() for t in tools]
        assert len(set(names)) == len(names)
        for tool in listed["every_thing"] + listed["h_"]:
            assert client.call_tool(tool.qualified_name).text == f"hostile:{tool.name}"
    finally:
        client.close()
