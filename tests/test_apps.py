"""MCP Apps against real app servers (the npm examples over stdio, an SDK app server in both
eras): which tools have a view and who calls them, the view's document read and checked, the
extension declared only when asked for, and tools only a view calls kept out of functions,
schemas and maps. The sans-IO rules: tests/test_apps_protocol.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from support.kernels import run_headless
from support.peers import APP_SEGMENTS, APP_VANILLA, APPS_SERVER, node

from mcp_notebook import Client, Handlers
from mcp_notebook.core.protocol import apps

DECLARED = {apps.EXTENSION: {"mimeTypes": [apps.MIME_TYPE]}}


@pytest.fixture
def client() -> Iterator[Client]:
    client = Client()
    try:
        yield client
    finally:
        client.close()


@pytest.mark.parametrize(
    ("server", "tool", "uri"),
    [(APP_VANILLA, "get-time", "ui://get-time/mcp-app.html"),
     (APP_SEGMENTS, "get-customer-data", "ui://customer-segmentation/mcp-app.html")],
)  # fmt: skip
def test_an_example_app_server_lists_its_view_and_serves_its_document(
    client: Client, server: Any, tool: str, uri: str
) -> None:
    handle = client.add("app", node(), [str(server), "--stdio"])
    (listed,) = [t for t in handle.list_tools() if t.name == tool]
    assert listed.app == uri and listed.visibility == ("model", "app") and not listed.app_only
    read = handle.request("resources/read", {"uri": uri})
    document = apps.document_of(read)
    assert document.html.lstrip().lower().startswith("<!doctype html>")
    assert document.ui == {}  # nothing declared: the default policy, no permissions
    assert "connect-src 'none'" in apps.content_security_policy(document.ui)


@pytest.mark.parametrize("protocol", ["legacy", "auto"])
def test_the_extension_is_declared_only_when_the_handlers_ask(protocol: str) -> None:
    for extensions, expected in ((None, False), (DECLARED, True)):
        client = Client(handlers=Handlers(extensions=extensions))
        try:
            handle = client.add("apps", APPS_SERVER[0], APPS_SERVER[1:], protocol=protocol)
            assert json.loads(handle.call_tool("supports_apps").text) is expected
        finally:
            client.close()


def test_a_tool_only_its_view_calls_is_listed_as_such_and_kept_out_of_python(client: Client) -> None:
    handle = client.add("apps", APPS_SERVER[0], APPS_SERVER[1:])
    tools = {t.name: t for t in handle.list_tools()}
    assert tools["pick_rows"].app_only and tools["pick_rows"].visibility == ("app",)
    assert tools["pick"].app == "ui://pick/app.html" and not tools["pick"].app_only
    assert "pick" in dir(handle.tools) and "pick_rows" not in dir(handle.tools)
    names = [s["function"]["name"] for s in handle.tool_schemas()]
    assert "mcp__apps__pick" in names and not any("pick_rows" in n for n in names)
    with pytest.raises(ValueError, match=r"apps\.pick_rows is called only by its server's app"):
        handle.map("pick_rows", [{"limit": 1}])


def test_a_declared_policy_keeps_good_domains_and_drops_the_rest(client: Client) -> None:
    handle = client.add("apps", APPS_SERVER[0], APPS_SERVER[1:])
    document = apps.document_of(handle.request("resources/read", {"uri": "ui://pick/app.html"}))
    policy = apps.content_security_policy(document.ui)
    assert "connect-src 'self' https://api.example.com;" in policy and "script-src *" not in policy
    assert apps.dropped_domains(document.ui) == ["https://x.example; script-src *"]
    assert apps.allow_attribute(document.ui) == "camera" and document.prefers_border is True


def test_a_headless_run_says_the_view_in_a_line_and_declares_nothing(tmp_path: Any) -> None:
    cells = [
        "%load_ext mcp_notebook",
        f"%mcp add apps -- {' '.join(APPS_SERVER)}",
        "r = %mcp call apps.pick\nprint(r.text, r.app)",
        "d = %mcp call apps.supports_apps\nprint('declared', d.text)",
    ]
    nb = run_headless(cells, tmp_path)
    outputs = [o for cell in nb.cells for o in cell.outputs]
    text = "".join(o.get("text", "") for o in outputs)
    assert "picked Adelie None" in text  # the result as always; no view
    assert "apps.pick has an interactive view (ui://pick/app.html), not shown here" in text
    assert "declared false" in text
    assert not [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]


def test_what_a_view_says_reaches_python_and_its_calls_keep_to_the_rules(client: Client) -> None:
    """The view's messages as the browser relays them (static/appview.js sends these to the
    kernel): kept on r.app and given to on_message; a tool call allowed only for a tool its
    views may call. Here without a browser: what the frame sends is data either way."""
    import asyncio

    from mcp_notebook.notebook.appview import AppHandle
    from mcp_notebook.runtime.asking.interaction import AppCall

    handle = client.add("apps", APPS_SERVER[0], APPS_SERVER[1:])
    (pick,) = [t for t in handle.list_tools() if t.name == "pick"]
    result = handle.call_tool("pick")  # plain Python: no view shows, none declared
    assert result.app is None
    document = apps.document_of(handle.request("resources/read", {"uri": "ui://pick/app.html"}))
    app = AppHandle(AppCall(handle, pick.raw, {}, result, document, apps.content_security_policy(document.ui)))
    assert app.view.html.startswith('<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="default-src')
    assert app.view.allow == "camera" and app.view.tool_result == result.raw
    heard: list[Any] = []
    app.on_message(heard.append)
    said = {"role": "user", "content": [{"type": "text", "text": "<i>Gentoo</i> picked"}]}
    app._received(None, {"id": "1", "method": "ui/message", "params": said}, [])
    app._received(None, {"id": "2", "method": "ui/update-model-context", "params": {"structuredContent": {"n": 3}}}, [])
    assert app.messages == [said] == heard and app.model_context == {"structuredContent": {"n": 3}}
    replies: list[Any] = []

    async def calls() -> None:
        sent = asyncio.Event()

        def send(reply: Any) -> None:  # what goes back to the frame
            replies.append(reply)
            sent.set()

        app.view.send = send  # type: ignore[method-assign]
        app._received(None, {"id": "3", "method": "tools/call", "params": {"name": "model_only"}}, [])
        app._received(None, {"id": "4", "method": "tools/call", "params": {"name": "pick_rows", "arguments": {}}}, [])
        app._received(None, {"id": "5", "method": "tools/list", "params": {}}, [])
        while len(replies) < 3:  # the calls run as tasks of this loop
            await sent.wait()
            sent.clear()

    asyncio.run(asyncio.wait_for(calls(), 30))
    by_id = {r["id"]: r for r in replies}
    assert "not a tool this server's views may call" in by_id["3"]["error"]["message"]
    assert by_id["4"]["result"]["structuredContent"] == {"result": [0, 1, 2]}
    listed = {t["name"] for t in by_id["5"]["result"]["tools"]}  # what its views may call, not model_only
    assert {"pick", "pick_rows", "probe"} <= listed and "model_only" not in listed


def test_what_a_closed_frame_asks_later_is_refused(client: Client) -> None:
    """A frame that said it was closed (static/appview.js: its output cleared, the view
    navigated away) gets nothing more done: its later requests are refused, unsent; another
    frame of the same view goes on."""
    import asyncio

    from mcp_notebook.notebook.appview import AppHandle
    from mcp_notebook.runtime.asking.interaction import AppCall

    handle = client.add("apps", APPS_SERVER[0], APPS_SERVER[1:])
    (pick,) = [t for t in handle.list_tools() if t.name == "pick"]
    result = handle.call_tool("pick")
    document = apps.document_of(handle.request("resources/read", {"uri": "ui://pick/app.html"}))
    app = AppHandle(AppCall(handle, pick.raw, {}, result, document, apps.content_security_policy(document.ui)))
    replies: dict[str, Any] = {}

    async def asks() -> None:
        sent = asyncio.Event()

        def send(reply: Any) -> None:
            replies[reply["id"]] = reply
            sent.set()

        app.view.send = send  # type: ignore[method-assign]
        app._received(None, {"event": "closed", "render": "gone"}, [])
        call = {"name": "pick_rows", "arguments": {}}
        app._received(None, {"id": "1", "method": "tools/call", "params": call, "render": "gone"}, [])
        app._received(None, {"id": "2", "method": "ui/message", "params": {"content": []}, "render": "gone"}, [])
        app._received(None, {"id": "3", "method": "tools/call", "params": call, "render": "here"}, [])
        while len(replies) < 3:
            await sent.wait()
            sent.clear()

    asyncio.run(asyncio.wait_for(asks(), 30))
    assert replies["1"]["error"]["message"] == replies["2"]["error"]["message"] == "the view was closed"
    assert app.messages == [] and app.pending == 0
    assert replies["3"]["result"]["structuredContent"] == {"result": [0, 1, 2]}
