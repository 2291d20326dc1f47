"""Subscriptions, per-request logging and caching hints on a modern (2026-07-28) server:
tests/servers/sdk_modern.py (the official SDK, dual-era) over stdio and Streamable HTTP,
and the same server spoken to in the legacy era where behaviour must not change."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from support.peers import SERVERS
from support.processes import free_port, running
from support.shells import extension_loaded

from mcp_notebook import Client, Server
from mcp_notebook.core.protocol.caching import Freshness, ResultCache, freshness
from mcp_notebook.core.protocol.subscriptions import Listen, Subscriptions, listen_filter
from mcp_notebook.runtime.client import get_client

WAIT = 20.0
SDK_MODERN = str(SERVERS / "sdk_modern.py")


def start(client: Client, transport: str, *options: str, protocol: str = "auto") -> Iterator[Server]:
    """A fresh sdk_modern (each test changes it: grow_tools adds a tool)."""
    if transport == "stdio":
        yield client.add("m", sys.executable, [SDK_MODERN, *options], protocol=protocol)
        return
    port = free_port()
    with running([sys.executable, SDK_MODERN, "--http", str(port), *options], port):
        yield client.add("m", url=f"http://127.0.0.1:{port}/mcp", protocol=protocol)
        client.remove("m")  # before the server goes


@pytest.fixture(params=["stdio", "http"])
def modern(request: pytest.FixtureRequest, client: Client) -> Iterator[Server]:
    yield from start(client, request.param)


def count(server: Server, method: str) -> int:
    """How many ``method`` requests the server got (it counts them)."""
    return int(server.call_tool("request_count", {"method": method}).structured["result"])


def notified(server: Server, method: str) -> threading.Event:
    event = threading.Event()
    server.on_notification(lambda m, params: event.set() if m == method else None)
    return event


# -- subscriptions ---------------------------------------------------------------------


def test_a_new_tool_is_listed_after_the_servers_notice(modern: Server) -> None:
    assert modern.protocol_version == "2026-07-28"
    assert "grown" not in [t.name for t in modern.list_tools()]
    changed = notified(modern, "notifications/tools/list_changed")
    modern.call_tool("grow_tools")
    assert changed.wait(WAIT), modern.diagnostics  # it came through subscriptions/listen
    assert "grown" in [t.name for t in modern.list_tools()]
    assert count(modern, "subscriptions/listen") == 1 and count(modern, "resources/subscribe") == 0


def test_a_subscribed_resource_reports_its_updates(modern: Server) -> None:
    updated = threading.Event()
    seen: list[Any] = []
    modern.subscribe("memo://cached", lambda uri, params: (seen.append(uri), updated.set()))
    modern.call_tool("touch_memo")
    assert updated.wait(WAIT), modern.diagnostics
    assert seen == ["memo://cached"]
    # Unsubscribed: a new subscription without it replaces the old one, which is ended.
    modern.unsubscribe("memo://cached")
    assert modern.connection.subscriptions == {}
    assert count(modern, "subscriptions/listen") == 3  # on connect, with the URI, without it
    changed = notified(modern, "notifications/tools/list_changed")
    modern.call_tool("grow_tools")  # the list changes still come, once
    assert changed.wait(WAIT)


def test_a_restarted_server_is_listened_to_again(client: Client) -> None:
    (server,) = start(client, "stdio")
    server.restart()
    changed = notified(server, "notifications/tools/list_changed")
    server.list_tools()
    server.call_tool("grow_tools")
    assert changed.wait(WAIT), server.diagnostics
    assert "grown" in [t.name for t in server.list_tools()]


def test_notifications_of_another_subscription_are_ignored() -> None:
    subs = Subscriptions()
    old, new = Listen({"toolsListChanged": True}), Listen({"toolsListChanged": True})
    subs.sent(old, 1)
    assert subs.acknowledged({"_meta": {"io.modelcontextprotocol/subscriptionId": 1}, "notifications": {}})
    subs.sent(new, 2)
    tagged = {"_meta": {"io.modelcontextprotocol/subscriptionId": 2}}
    assert not subs.accepts("notifications/tools/list_changed", tagged)  # not acknowledged yet
    assert subs.acknowledged({**tagged, "notifications": {"toolsListChanged": True}}) == (new, old)
    assert subs.accepts("notifications/tools/list_changed", tagged)
    assert not subs.accepts(
        "notifications/tools/list_changed", {"_meta": {"io.modelcontextprotocol/subscriptionId": 1}}
    )
    assert not subs.accepts(
        "notifications/tools/list_changed", {"_meta": {"io.modelcontextprotocol/subscriptionId": {}}}
    )
    assert subs.accepts("notifications/message", {"level": "info"})  # request-scoped: untagged
    caps = {"tools": {"listChanged": True}, "resources": {"subscribe": True}, "prompts": {"listChanged": False}}
    assert listen_filter(caps, ["b", "a"]) == {"toolsListChanged": True, "resourceSubscriptions": ["a", "b"]}


@pytest.fixture(scope="module")
def ip() -> Iterator[InteractiveShell]:
    with extension_loaded() as shell:
        yield shell


def add_in(shell: InteractiveShell, name: str, protocol: str) -> Server:
    """sdk_modern added with %mcp add, spoken to in the era asked for."""
    shell.run_line_magic("mcp", f"add {name} -- {sys.executable} {SDK_MODERN}")
    server = get_client()[name]
    if protocol == "legacy":
        server.connection.config.protocol = "legacy"
        server.restart()
    assert (server.protocol_version == "2026-07-28") == (protocol == "auto")
    return server


def test_subscribe_magic_on_a_modern_server(ip: InteractiveShell) -> None:
    # (The legacy era's: test_magics.py, server-everything; the SDK offers no resource
    # subscriptions at 2025-11-25.)
    server = add_in(ip, "memo", "auto")
    try:
        view = ip.run_line_magic("mcp", "subscribe memo memo://cached")
        updated = threading.Event()
        server.subscribe("memo://cached", lambda uri, params: updated.set())  # a callback through the API too
        ip.run_line_magic("mcp", "call memo.touch_memo")
        assert updated.wait(WAIT), server.diagnostics
        assert view.count >= 1
        ip.run_line_magic("mcp", "unsubscribe memo memo://cached")
        assert count(server, "resources/subscribe") == 0 and count(server, "subscriptions/listen") == 3
    finally:
        ip.run_line_magic("mcp", "remove memo")


# -- logging ---------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_log_lines_show_in_the_calling_cell_on_both_eras(
    protocol: str, ip: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    server = add_in(ip, "logger", protocol)
    try:
        # Modern: every request asks for info and above (the default level), as the SDK
        # server logs unasked at 2025-11-25.
        capsys.readouterr()
        assert ip.run_line_magic("mcp", "call logger.log_twice").text == "logged"
        out = capsys.readouterr().out
        assert "[logger info] first line" in out and "[logger warning] second line" in out, out
        # A modern server is told the level on each request: it has no logging/setLevel.
        assert count(server, "logging/setLevel") == 0
    finally:
        ip.run_line_magic("mcp", "remove logger")


def test_a_modern_server_is_asked_for_info_until_a_level_is_set(client: Client) -> None:
    (server,) = start(client, "stdio")
    server.call_tool("log_twice")
    assert [entry["data"] for entry in server.logs] == ["first line", "second line"]
    server.set_log_level("warning")
    server.call_tool("log_twice")
    assert [entry["data"] for entry in server.logs][2:] == ["second line"]
    server.restart()  # the level stays set (a new session: its logs start afresh)
    server.call_tool("log_twice")
    assert [entry["data"] for entry in server.logs] == ["second line"]


# -- caching hints ---------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_listing_within_its_ttl_comes_from_the_cache(transport: str, client: Client) -> None:
    for server in start(client, transport, "--ttl-ms", "600000"):
        first = server.list_tools()
        assert [t.name for t in server.list_tools()] == [t.name for t in first]
        assert count(server, "tools/list") == 1  # served from the cache
        server.list_tools(refresh=True)
        assert count(server, "tools/list") == 2
        # resources/read: cached when the server gave a ttl
        assert server.read_resource("memo://cached").text == server.read_resource("memo://cached").text
        assert count(server, "resources/read") == 1
        server.read_resource("memo://cached", refresh=True)
        assert count(server, "resources/read") == 2


def test_a_listing_past_its_ttl_is_fetched_again(client: Client) -> None:
    (server,) = start(client, "stdio")  # ttlMs 0: stale at once
    server.list_tools()
    server.list_tools()
    assert count(server, "tools/list") == 2
    server.read_resource("memo://cached")
    server.read_resource("memo://cached")
    assert count(server, "resources/read") == 2


def test_a_legacy_listing_stays_cached_until_it_changes(client: Client) -> None:
    (server,) = start(client, "stdio", "--ttl-ms", "0", protocol="legacy")
    assert server.protocol_version == "2025-11-25"
    server.list_tools()
    server.list_tools()
    assert count(server, "tools/list") == 1


def test_private_results_are_kept_per_authorization_context() -> None:
    result = {"contents": [], "ttlMs": 60000, "cacheScope": "private"}
    cache = ResultCache()
    cache.put("resources/read", "memo://x", result, freshness(result, modern=True, now=0, context="alice"), now=0)
    assert cache.get("resources/read", "memo://x", now=1, context="alice") is result
    assert cache.get("resources/read", "memo://x", now=1, context="bob") is None  # another token
    assert cache.get("resources/read", "memo://x", now=61, context="alice") is None  # past its ttl
    public = {**result, "cacheScope": "public"}
    assert freshness(public, modern=True, now=0, context="alice") == Freshness(60.0, None)
    assert freshness(result, modern=False, now=0, context="alice").until is None  # legacy: until changed
    assert freshness({"ttlMs": -5}, modern=True, now=0, context="").until == 0  # negative: stale
