"""Servers behind real gateways: supergateway 4.0.0 (npm) serving server-everything (stdio)
over Streamable HTTP, in its default (stateless) mode and with ``--stateful``. It answers the
2026-07-28 ``server/discover`` probe with HTTP 404 and -32601, as a legacy server does: the
client falls back to ``initialize`` and lists what server-everything lists directly, through
the Python API and the real ``mcp-notebook`` command. A listing that is empty because the
server declared no such capability says so (on stderr for the command line)."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.cli import cli, data
from support.peers import EVERYTHING, ROOT, SERVERS, node
from support.processes import free_port, running

from mcp_notebook import Client

SUPERGATEWAY = ROOT / "node_modules/supergateway/dist/index.js"
LOOPBACK = ROOT / "tests/support/loopback.cjs"  # supergateway binds every interface: loopback only
LISTINGS = ("tools", "resources", "prompts")


@pytest.fixture(scope="module", params=["stateless", "stateful"])
def gateway(request: pytest.FixtureRequest) -> Iterator[str]:
    """supergateway in front of server-everything over stdio: its /mcp URL."""
    if not SUPERGATEWAY.exists():
        pytest.fail("node_modules/supergateway is missing: run npm ci (package-lock.json pins 4.0.0)")
    port = free_port()
    everything = shlex.join([node(), str(EVERYTHING), "stdio"])
    command = [node(), "--require", str(LOOPBACK), str(SUPERGATEWAY), "--stdio", everything, "--port", str(port),
               "--outputTransport", "streamableHttp", "--logLevel", "none"]  # fmt: skip
    if request.param == "stateful":
        command.append("--stateful")
    with running(command, port):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module")
def direct() -> Iterator[dict[str, set[str]]]:
    """What server-everything lists over stdio, to this client: the names of each listing."""
    client = Client()
    try:
        server = client.add("everything", node(), [str(EVERYTHING), "stdio"])
        yield names(server)
    finally:
        client.close()


def names(server: Any) -> dict[str, set[str]]:
    return {
        "tools": {t.name for t in server.list_tools()},
        "resources": {r.uri for r in server.list_resources()},
        "prompts": {p.name for p in server.list_prompts()},
    }


def test_a_legacy_server_behind_supergateway_is_spoken_to_legacy(gateway: str, direct: dict[str, set[str]]) -> None:
    client = Client()
    try:
        server = client.add("gw", url=gateway)
        assert server.protocol_version not in (None, "2026-07-28"), server.era_note
        assert server.era_note == "server/discover answered -32601: legacy"
        assert names(server) == direct
        assert direct["tools"] and direct["resources"] and direct["prompts"]
        assert server.call_tool("echo", {"message": "through"}).text == "Echo: through"
    finally:
        client.close()


@pytest.mark.parametrize("listing", LISTINGS)
def test_the_command_line_lists_through_supergateway(
    gateway: str, direct: dict[str, set[str]], listing: str, tmp_path: Path, cli_home: dict[str, str]
) -> None:
    rows = data(listing, "gw", "--url", gateway, cwd=tmp_path, env=cli_home)
    assert isinstance(rows, list)
    key = "uri" if listing == "resources" else "name"
    assert {row[key] for row in rows} == direct[listing]


@pytest.mark.parametrize("listing", ["resources", "prompts"])
def test_an_empty_listing_of_a_server_that_offers_none_says_so_on_stderr(
    listing: str, tmp_path: Path, cli_home: dict[str, str]
) -> None:
    # hostile_links.py declares only the tools capability.
    given = ["--", sys.executable, str(SERVERS / "hostile_links.py")]
    out, notes = cli(listing, "links", *given, cwd=tmp_path, env=cli_home)
    assert out.startswith("(none")
    assert f"server 'links' offers no {listing}" in notes
    out, notes = cli("tools", "links", *given, cwd=tmp_path, env=cli_home)
    assert "visit" in out and "offers no" not in notes
