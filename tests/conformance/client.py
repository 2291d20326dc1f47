"""A client for the official MCP conformance suite, built on mcp-notebook's Python API.

The suite's runner starts a mock server and runs ``python tests/conformance/client.py URL``
with the scenario's name in ``MCP_CONFORMANCE_SCENARIO``; the client plays its part and
exits (0 when it ran through; the runner judges the traffic it saw).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from mcp_notebook import Client, Handlers, Server, accept_defaults

SCENARIOS: dict[str, Callable[[Server], None]] = {}


def scenario(name: str) -> Callable[[Callable[[Server], None]], Callable[[Server], None]]:
    def register(fn: Callable[[Server], None]) -> Callable[[Server], None]:
        SCENARIOS[name] = fn
        return fn

    return register


@scenario("initialize")
def initialize(server: Server) -> None:
    server.list_tools()


@scenario("tools_call")
def tools_call(server: Server) -> None:
    result = server.call_tool("add_numbers", {"a": 5, "b": 3})
    print(result.text)


@scenario("elicitation-sep1034-client-defaults")
def elicitation_defaults(server: Server) -> None:
    print(server.call_tool("test_client_elicitation_defaults").text)


@scenario("sse-retry")
def sse_retry(server: Server) -> None:
    # The reply stream closes before the answer; the answer comes on the resumed stream.
    print(server.call_tool("test_reconnection").text)


def main() -> int:
    name = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    if len(sys.argv) < 2 or name not in SCENARIOS:
        print(f"usage: MCP_CONFORMANCE_SCENARIO={{{','.join(SCENARIOS)}}} {sys.argv[0]} URL", file=sys.stderr)
        return 2
    client = Client(handlers=Handlers(elicitation=accept_defaults))
    client.approval.mode = "never"  # nobody is there to approve
    try:
        server = client.add("conformance", url=sys.argv[-1], transport="http")
        SCENARIOS[name](server)
    finally:
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
