"""subscriptions/listen against a raw modern server that answers on cue
(tests/servers/listen_raw.py): acknowledgements out of order, untagged notifications;
and %mcp read --refresh against the official SDK's server (tests/servers/sdk_modern.py)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from support.peers import SERVERS
from support.shells import extension_loaded

from mcp_notebook import Client
from mcp_notebook.runtime.client import get_client

WAIT = 20.0
LISTEN_RAW = str(SERVERS / "listen_raw.py")
SDK_MODERN = str(SERVERS / "sdk_modern.py")
TAG = "io.modelcontextprotocol/subscriptionId"


def test_concurrent_subscribes_keep_both_uris_whatever_order_they_are_acknowledged_in(client: Client) -> None:
    # The server acknowledges the second listen (naming both URIs) before the first (one URI).
    server = client.add("l", sys.executable, [LISTEN_RAW, "--hold-first"])
    updated = {uri: threading.Event() for uri in ("memo://a", "memo://b")}
    errors: list[BaseException] = []

    def follow(uri: str) -> None:
        try:
            server.subscribe(uri, lambda u, params: updated[u].set())
        except BaseException as e:  # reported by the test
            errors.append(e)

    threads = [threading.Thread(target=follow, args=(uri,)) for uri in updated]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    assert not errors and not any(t.is_alive() for t in threads), errors
    for uri, event in updated.items():
        server.call_tool("touch", {"uri": uri})
        assert event.wait(WAIT), f"no update of {uri}: {list(server.diagnostics)}"


def test_untagged_list_changes_and_updates_from_a_modern_server_are_dropped(client: Client) -> None:
    server = client.add("l", sys.executable, [LISTEN_RAW])
    seen: list[dict[str, Any]] = []
    updated = threading.Event()
    server.subscribe("memo://a", lambda uri, params: (seen.append(params), updated.set()))
    # untagged update, untagged tools/list_changed, then the update on the listen stream
    server.call_tool("touch", {"uri": "memo://a", "untagged": True})
    assert updated.wait(WAIT), list(server.diagnostics)
    assert [TAG in params.get("_meta", {}) for params in seen] == [True]
    notes = [d for d in server.diagnostics if "without a subscription id" in d]
    assert len(notes) == 1, list(server.diagnostics)  # two dropped (the update, the list change), said once


@pytest.fixture(scope="module")
def ip() -> Iterator[InteractiveShell]:
    with extension_loaded() as shell:
        yield shell


def test_read_refresh_bypasses_the_cache(ip: InteractiveShell) -> None:
    ip.run_line_magic("mcp", f"add fresh -- {sys.executable} {SDK_MODERN} --ttl-ms 600000")
    try:
        server = get_client()["fresh"]
        assert server.protocol_version == "2026-07-28"

        def reads() -> int:
            return int(server.call_tool("request_count", {"method": "resources/read"}).structured["result"])

        ip.run_line_magic("mcp", "read fresh memo://cached")
        ip.run_line_magic("mcp", "read fresh memo://cached")
        assert reads() == 1  # the second came from the cache (ttlMs)
        assert ip.run_line_magic("mcp", "read fresh memo://cached --refresh").text
        assert reads() == 2
    finally:
        ip.run_line_magic("mcp", "remove fresh")
