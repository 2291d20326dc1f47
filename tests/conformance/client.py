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
from typing import Any

import httpx

from mcp_notebook import Client, Handlers, Server, accept_defaults
from mcp_notebook.core.auth.oauth import LoginRequest
from mcp_notebook.core.auth.tokens import MemoryStore
from mcp_notebook.runtime.asking.interaction import ConsoleInteraction

SCENARIOS: dict[str, Callable[[Server], None]] = {}
CONTEXT: dict[str, Any] = {}  # what the suite hands a scenario (MCP_CONFORMANCE_CONTEXT)


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


# -- 2026-07-28: stateless requests and the HTTP headers that mirror them ------------------


@scenario("request-metadata")
def request_metadata(server: Server) -> None:
    # The suite refuses the first request (-32022, naming the version it speaks); the
    # connection tries again at that version, and every request carries the _meta.
    server.list_tools()


@scenario("http-standard-headers")
def standard_headers(server: Server) -> None:
    for tool in server.list_tools():
        server.call_tool(tool.name)
    for resource in server.list_resources():
        server.read_resource(resource.uri)
    for prompt in server.list_prompts():
        server.get_prompt(prompt.name)


@scenario("http-custom-headers")
def custom_headers(server: Server) -> None:
    server.list_tools()  # what the tools mirror into headers
    for call in CONTEXT.get("toolCalls", []):
        # As the suite gives them: a null where the schema says boolean is the point of one.
        print(server.call_tool(call["name"], call["arguments"], validate=False).text)


@scenario("http-invalid-tool-headers")
def invalid_tool_headers(server: Server) -> None:
    # The tools whose x-mcp-header annotations are invalid are not listed, so not called.
    for tool in server.list_tools():
        required = tool.input_schema.get("required") or []
        print(server.call_tool(tool.name, dict.fromkeys(required, "us-west1")).text)


@scenario("json-schema-ref-no-deref")
def schema_ref(server: Server) -> None:
    # The tool's inputSchema has a $ref to a network URL: listing (and keeping) it must not fetch it.
    for tool in server.list_tools():
        print(tool.name, json.dumps(tool.input_schema)[:200])


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
    CONTEXT.update(context)
    client = Client(handlers=Handlers(elicitation=accept_defaults), interaction=Headless())
    client.approval.mode = "never"  # nobody is there to approve
    client.token_store = MemoryStore()
    oauth = {k: context[k] for k in ("client_id", "client_secret") if context.get(k)}
    oauth["client_metadata_url"] = "https://conformance-test.local/client-metadata.json"
    if name.startswith("auth/client-credentials"):
        # A client that logs in as itself: its secret, or its key (PKCS#8 PEM) and algorithm.
        oauth["grant"] = "client_credentials"
        if context.get("private_key_pem"):
            oauth["private_key"] = context["private_key_pem"]
            oauth["signing_alg"] = context.get("signing_algorithm")
    elif name == "auth/wif-jwt-bearer":
        # Workload identity: the platform's JWT is the grant (the suite also hands over a
        # wrong-audience and an expired one, which a workload would never be given).
        oauth.update(grant="jwt_bearer", assertion=context["valid_jwt"])
    elif name == "auth/enterprise-managed-authorization":
        # The identity provider's ID token, exchanged there for an ID-JAG, then for a token.
        oauth.update(grant="id_jag", id_token=context["idp_id_token"], idp_token_endpoint=context["idp_token_endpoint"],
                     idp_client_id=context.get("idp_client_id"))  # fmt: skip
    try:
        server = client.add("conformance", url=sys.argv[-1], transport="http", oauth=oauth)
        SCENARIOS.get(name, authorized)(server)
    finally:
        client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
