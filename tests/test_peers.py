"""Other real servers: mcp-server-time (PyPI) and a server built on the official Python SDK."""

from __future__ import annotations

import json
import sys
import threading

from support.peers import SERVERS

from mcp_notebook import Client

WAIT = 20.0


def test_mcp_server_time(client: Client) -> None:
    server = client.add("time", sys.executable, ["-m", "mcp_server_time", "--local-timezone", "UTC"])
    assert server.server_info["name"] == "mcp-time"
    tools = {t.name for t in server.list_tools()}
    assert {"get_current_time", "convert_time"} <= tools
    now = json.loads(server.call_tool("get_current_time", {"timezone": "Europe/Paris"}).text)
    assert now["timezone"] == "Europe/Paris"
    converted = json.loads(
        server.call_tool(
            "convert_time", {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
        ).text
    )
    assert converted["target"]["datetime"].split("T")[1].startswith("21:00")
    failed = server.call_tool("get_current_time", {"timezone": "Not/AZone"})
    assert failed.is_error and "Not/AZone" in failed.text


def test_pagination_follows_every_cursor(client: Client) -> None:
    server = client.add("paged", sys.executable, [str(SERVERS / "paged_server.py"), "95"])
    tools = server.list_tools()
    assert len(tools) == 96 and len({t.name for t in tools}) == 96  # 95 + add_tool, 10 a page
    assert len(server.list_resources()) == 23
    assert len(server.list_prompts()) == 12
    assert server.read_resource("paged://item/7").text == "contents of paged://item/7"
    assert server.call_tool("tool_042", {"x": 1}).text == "tool_042(1)"


def test_list_changed_refreshes_the_cached_listing(client: Client) -> None:
    # Legacy: the server declares tools.listChanged only at initialize (its 2026-07-28
    # discover says false, so nothing is listened for there: test_modern_features.py).
    server = client.add("paged", sys.executable, [str(SERVERS / "paged_server.py"), "5"], protocol="legacy")
    assert "added_later" not in {t.name for t in server.list_tools()}
    changed = threading.Event()
    server.on_notification(lambda method, params: method == "notifications/tools/list_changed" and changed.set())
    assert server.call_tool("add_tool").text == "added"
    assert changed.wait(WAIT)
    # The notification came before the reply: the listing is already stale-free.
    assert "added_later" in {t.name for t in server.list_tools()}
    assert server.call_tool("added_later", {}).text == "added_later(None)"
