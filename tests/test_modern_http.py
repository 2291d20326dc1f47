"""Streamable HTTP at 2026-07-28 against the official SDK's server (tests/servers/sdk_modern.py,
dual-era and modern-only): sessionless (no session id, no GET stream), the headers that
mirror the body (Mcp-Method, Mcp-Name, Mcp-Param-* from x-mcp-header, Base64 where a value
needs it), tools with invalid annotations left out, a broken reply stream sent again (a
read) or not (a call). What the client sends is seen by a recording reverse proxy
(tests/servers/recording_proxy.py); the SDK server checks the headers itself (-32020).
Legacy peers under auto stay legacy."""

from __future__ import annotations

import base64
import functools
import json
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from support.peers import EVERYTHING, SERVERS, node
from support.processes import free_port, running

from mcp_notebook import Client, MCPError, RequestTimeout, RPCError, Server
from mcp_notebook.core.transports.http.streamable import StreamableHttpTransport

MODERN = "2026-07-28"


@pytest.fixture(scope="module", params=["dual-era", "modern-only"])
def sdk_url(request: pytest.FixtureRequest) -> Iterator[str]:
    port = free_port()
    flags = ["--header-tools"] + (["--modern-only"] if request.param == "modern-only" else [])
    with running([sys.executable, str(SERVERS / "sdk_modern.py"), "--http", str(port), *flags], port):
        yield f"http://127.0.0.1:{port}/mcp"


class Proxy:
    """The recording proxy in front of the SDK server: ``log()`` is what the client sent."""

    def __init__(self, url: str, path: Path) -> None:
        self.url, self.path = url, path

    def log(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        return [json.loads(line) for line in self.path.read_text(encoding="utf-8").splitlines()]

    def posts(self, method: str) -> list[dict[str, Any]]:
        return [r for r in self.log() if r["http"] == "POST" and (r["body"] or {}).get("method") == method]


def proxy(sdk_url: str, tmp_path: Path, *cut: str, faults: tuple[tuple[str, str], ...] = ()) -> Iterator[Proxy]:
    """The proxy cutting the first reply stream of each method in ``cut``; ``faults``:
    other (flag, method) faults of the proxy's, in order."""
    port = free_port()
    log = tmp_path / "requests.jsonl"
    flags = [arg for method in cut for arg in ("--cut", method)] + [arg for fault in faults for arg in fault]
    command = [sys.executable, str(SERVERS / "recording_proxy.py"), str(port), sdk_url, str(log), *flags]
    with running(command, port):
        yield Proxy(f"http://127.0.0.1:{port}/mcp", log)


@pytest.fixture
def recorded(sdk_url: str, tmp_path: Path) -> Iterator[Proxy]:
    yield from proxy(sdk_url, tmp_path)


@pytest.fixture
def client() -> Iterator[Client]:
    c = Client()
    c.approval.mode = "never"
    yield c
    c.close()


def header(record: dict[str, Any], name: str) -> str | None:
    return next((v for k, v in record["headers"].items() if k.lower() == name.lower()), None)


def test_listings_calls_and_a_read_are_sessionless_with_their_headers(client: Client, recorded: Proxy) -> None:
    server = client.add("sdk", url=recorded.url, transport="http")
    assert server.protocol_version == MODERN
    assert {"echo", "add", "route"} <= {t.name for t in server.list_tools()}
    assert server.call_tool("add", {"a": 2, "b": 3}).structured == {"result": 5}
    assert server.read_resource("memo://cached").text == "a memo"
    client.close()
    log = recorded.log()
    assert [r["http"] for r in log if r["http"] != "POST"] == []  # no GET stream, no DELETE
    assert all(header(r, "Mcp-Session-Id") is None for r in log)
    for r in log:
        assert header(r, "Mcp-Method") == r["body"]["method"]
        assert header(r, "MCP-Protocol-Version") == MODERN
    (call,) = recorded.posts("tools/call")
    assert header(call, "Mcp-Name") == "add"
    (read,) = recorded.posts("resources/read")
    assert header(read, "Mcp-Name") == "memo://cached"


@pytest.mark.parametrize("region", ["eu-west1", "Zürich ", "=?base64?literal?="])
def test_an_x_mcp_header_argument_goes_in_its_header(client: Client, recorded: Proxy, region: str) -> None:
    server = client.add("sdk", url=recorded.url, transport="http")
    server.list_tools()
    # The SDK server refuses a call whose Mcp-Param-Region is missing or does not match (-32020).
    assert server.call_tool("route", {"region": region, "note": "n"}).text == f"routed to {region} n"
    (call,) = recorded.posts("tools/call")
    sent = header(call, "Mcp-Param-Region")
    if region == "eu-west1":
        assert sent == region
    else:
        assert sent == "=?base64?" + base64.b64encode(region.encode()).decode() + "?="
    assert header(call, "Mcp-Param-Note") is None  # not annotated: not mirrored


def test_a_call_refused_for_its_headers_lists_tools_again_and_retries_once(client: Client, recorded: Proxy) -> None:
    server = client.add("sdk", url=recorded.url, transport="http")
    # No listing yet (no validation, no approval): the first try carries no Mcp-Param-Region,
    # the server answers -32020, the tools are listed and the call goes again with it.
    assert server.call_tool("route", {"region": "eu-west1"}, validate=False).text == "routed to eu-west1"
    first, second = recorded.posts("tools/call")
    assert header(first, "Mcp-Param-Region") is None and header(second, "Mcp-Param-Region") == "eu-west1"
    assert len(recorded.posts("tools/list")) == 1
    # The history: the refusal, then the retry as it ended (ok, with its answer), though it
    # was sent while the refusal was being handled.
    refused, retried = [c for c in client.calls("sdk") if c.method == "tools/call"]
    assert "(code -32020)" in refused.outcome, refused.outcome
    assert retried.outcome == "ok", retried.outcome
    assert retried.result["content"][0]["text"] == "routed to eu-west1"


def test_a_tool_with_an_invalid_x_mcp_header_is_left_out_and_said_once(
    sdk_url: str, recorded: Proxy, capsys: pytest.CaptureFixture[str]
) -> None:
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mcp_notebook")
    try:
        shell.run_line_magic("mcp", f"add sdk {recorded.url} --transport http")
        capsys.readouterr()
        frame = shell.run_line_magic("mcp", "tools sdk")
        names = set(frame["name"])
        assert "route" in names and "spoiled" not in names and "echo" in names
        said = capsys.readouterr().out.splitlines()
        assert said == [
            "⚠ server 'sdk': 1 tool left out for invalid x-mcp-header annotations "
            "(e.g. 'spoiled': parameter 'value' has x-mcp-header 'Bad Name', not a header name)"
        ]
        shell.run_line_magic("mcp", "tools sdk --refresh")
        assert capsys.readouterr().out == ""  # once
    finally:
        shell.run_line_magic("mcp", "remove sdk")
        shell.run_line_magic("unload_ext", "mcp_notebook")


def test_a_broken_reply_stream_is_sent_again_for_a_read_never_for_a_call(
    client: Client, sdk_url: str, tmp_path: Path
) -> None:
    for cutting in proxy(sdk_url, tmp_path, "resources/read", "tools/call"):
        server = client.add("sdk", url=cutting.url, transport="http")
        assert server.read_resource("memo://cached").text == "a memo"
        first, again = cutting.posts("resources/read")
        assert first["body"]["id"] != again["body"]["id"]  # a new id
        with pytest.raises(MCPError) as info:
            server.call_tool("echo", {"text": "once"})
        assert "may have run" in str(info.value) and "\n" not in str(info.value)
        assert len(cutting.posts("tools/call")) == 1
        assert server.call_tool("echo", {"text": "twice"}).text == "twice"  # the connection is fine


WAIT = 20.0


def eventually(check: Any, what: str) -> None:
    """Wait (with a deadline) for something another process or thread does."""
    deadline = time.monotonic() + WAIT
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(what)
        time.sleep(0.02)


def notified(server: Server, method: str) -> threading.Event:
    event = threading.Event()
    server.on_notification(lambda m, params: event.set() if m == method else None)
    return event


def listening_anew(server: Server, first: int | str) -> bool:
    """Whether a subscription other than ``first`` is live (acknowledged)."""
    live = server.connection.listening.listens.live
    return live is not None and live.id != first and live.agreed is not None


def test_a_subscription_whose_stream_breaks_is_opened_anew(client: Client, sdk_url: str, tmp_path: Path) -> None:
    # The first subscriptions/listen is acknowledged, then its stream breaks. Sent again under
    # another id, the server would tag everything with an id the session does not know: it
    # must be failed, so that a new subscription is opened and the list changes still come.
    for breaking in proxy(sdk_url, tmp_path, faults=(("--break", "subscriptions/listen"),)):
        server = client.add("sdk", url=breaking.url, transport="http")
        first = breaking.posts("subscriptions/listen")[0]["body"]["id"]
        eventually(
            functools.partial(listening_anew, server, first),
            f"no new subscription after the first broke: {list(server.diagnostics)}",
        )
        assert breaking.posts("subscriptions/listen")[1]["body"]["id"] != f"{first}.1"  # a new one, not a re-send
        changed = notified(server, "notifications/tools/list_changed")
        server.call_tool("grow_tools")
        assert changed.wait(WAIT), list(server.diagnostics)
        assert "grown" in [t.name for t in server.list_tools()]


def test_a_json_reply_cut_off_on_the_blocking_path_is_sent_again(client: Client, sdk_url: str, tmp_path: Path) -> None:
    for cutting in proxy(sdk_url, tmp_path, faults=(("--cut-json", "resources/read"),)):
        server = client.add("sdk", url=cutting.url, transport="http")
        assert server.connection.session is not None and server.connection.session.can_block
        assert server.read_resource("memo://cached").text == "a memo"  # from this thread: the blocking path
        first, again = cutting.posts("resources/read")
        assert again["body"]["id"] == f"{first['body']['id']}.1"
        assert server.call_tool("echo", {"text": "still"}).text == "still"


def test_a_legacy_json_reply_cut_off_fails_its_call_in_one_line(client: Client, tmp_path: Path) -> None:
    port = free_port()
    with running([node(), str(EVERYTHING), "streamableHttp"], port, {"PORT": str(port)}):
        for cutting in proxy(f"http://127.0.0.1:{port}/mcp", tmp_path, faults=(("--cut-json", "tools/call"),)):
            server = client.add("everything", url=cutting.url, transport="http")
            assert server.protocol_version != MODERN
            with pytest.raises(MCPError) as info:
                server.call_tool("echo", {"message": "once"})
            assert "closed the reply stream before answering" in str(info.value) and "\n" not in str(info.value)
            assert len(cutting.posts("tools/call")) == 1  # never sent again
            assert server.call_tool("echo", {"message": "twice"}).text.endswith("twice")


def test_a_request_sent_again_then_given_up_leaves_no_trace(client: Client, sdk_url: str, tmp_path: Path) -> None:
    faults = (("--cut", "resources/read"), ("--hang", "resources/read"))
    for cutting in proxy(sdk_url, tmp_path, faults=faults):
        server = client.add("sdk", url=cutting.url, transport="http")
        with pytest.raises(RequestTimeout):
            server.read_resource("memo://cached", timeout=8)
        first, again = cutting.posts("resources/read")
        assert again["body"]["id"] == f"{first['body']['id']}.1"
        transport = server.connection.transport
        assert isinstance(transport, StreamableHttpTransport)
        assert transport.first_id(again["body"]["id"]) == again["body"]["id"]  # its alias is gone
        assert server.read_resource("memo://cached").text == "a memo"


def test_server_everything_over_http_under_auto_stays_legacy(client: Client) -> None:
    port = free_port()
    with running([node(), str(EVERYTHING), "streamableHttp"], port, {"PORT": str(port)}):
        server = client.add("everything", url=f"http://127.0.0.1:{port}/mcp")
        assert server.protocol_version == "2025-11-25"
        assert server.call_tool("echo", {"message": "hi"}).text.endswith("hi")


def test_the_demo_over_legacy_sse_under_auto_still_falls_back(client: Client) -> None:
    port = free_port()
    with running([sys.executable, "-m", "mcp_notebook.demo", "--sse", str(port)], port):
        server = client.add("demo", url=f"http://127.0.0.1:{port}/sse")
        assert server.transport_name == "sse" and server.protocol_version not in (None, MODERN)
        assert server.call_tool("query_penguins", {"species": "Gentoo", "limit": 2}).structured["count"] == 124


def test_an_initialize_answered_404_with_method_not_found_is_a_modern_server_not_legacy_sse(client: Client) -> None:
    # A modern server answers an unknown method (initialize) with HTTP 404 and -32601: that
    # is its answer to show, not a sign of a legacy HTTP+SSE server to fall back to.
    port = free_port()
    with running([sys.executable, str(SERVERS / "faulty_http.py"), str(port)], port):
        with pytest.raises(RPCError) as info:
            client.add("unknown", url=f"http://127.0.0.1:{port}/unknown/mcp", protocol="legacy")
        assert info.value.code == -32601 and "initialize" in str(info.value)
        assert client.servers["unknown"].transport_name == "http"
