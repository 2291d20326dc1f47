"""A client for the official MCP conformance suite, built on mcp-notebook's Python API.

The suite's runner starts a mock server and runs ``python tests/conformance/client.py URL``
with the scenario's name in ``MCP_CONFORMANCE_SCENARIO``; the client plays its part and
exits (0 when it ran through; the runner judges the traffic it saw).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable

import httpx

from mcp_notebook import Client, Handlers, Server, accept_defaults
from mcp_notebook.core.oauth import LoginRequest
from mcp_notebook.core.tokens import MemoryStore
from mcp_notebook.runtime.interaction import ConsoleInteraction

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


@scenario("sep-2322-client-request-state")
def request_state(server: Server) -> None:
    # Each tool asks for input (an elicitation) and checks the retry; one between them
    # must carry nothing of the others' rounds; one answers without a resultType.
    for tool in ("test_mrtr_echo_state", "test_mrtr_unrelated", "test_mrtr_no_state", "test_mrtr_no_result_type"):
        print(server.call_tool(tool).text)


def authorized(server: Server) -> None:
    """Every auth/* scenario: log in on the 401 (headlessly), then use every tool (a scope
    step-up may come with one)."""
    for tool in server.list_tools():
        try:
            server.call_tool(tool.name, {}, validate=False)
        except Exception as e:  # the suite judges the traffic; a refused call is part of some scenarios
            print(f"{tool.name}: {type(e).__name__}: {e}", file=sys.stderr)


class Headless(ConsoleInteraction):
    """Logs in without a browser: the suite's authorization endpoint redirects at once, so
    GET it without following and hand over where it points (the redirect URI + code)."""

    def can_login(self) -> bool:
        return True

    async def alogin(self, request: LoginRequest) -> str:
        async with httpx.AsyncClient(follow_redirects=False) as http:
            response = await http.get(request.url)
        location = response.headers.get("location")
        if not location:
            raise RuntimeError(f"the authorization endpoint answered HTTP {response.status_code} without a redirect")
        return location


def main() -> int:
    name = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    known = name in SCENARIOS or name.startswith("auth/")
    if len(sys.argv) < 2 or not known:
        print(f"usage: MCP_CONFORMANCE_SCENARIO={{{','.join(SCENARIOS)},auth/…}} {sys.argv[0]} URL", file=sys.stderr)
        return 2
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    client = Client(handlers=Handlers(elicitation=accept_defaults), interaction=Headless())
    client.approval.mode = "never"  # nobody is there to approve
    client.token_store = MemoryStore()
    oauth = {k: context[k] for k in ("client_id", "client_secret") if context.get(k)}
    oauth["client_metadata_url"] = "https://conformance-test.local/client-metadata.json"
    try:
        server = client.add("conformance", url=sys.argv[-1], transport="http", oauth=oauth)
        SCENARIOS.get(name, authorized)(server)
    finally:
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
