"""A hostile HTTP server (tests/servers/hostile_http.py): reply streams that never end, header
values that cannot be sent back, redirects to another origin, POSTs never answered. Each
fails the one call (or the connect) at once, in one line, and frees what it held."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator

import pytest
from IPython.core.interactiveshell import InteractiveShell
from support.peers import EVERYTHING, SERVERS, node
from support.processes import free_port, running
from support.waiting import WAIT

from mcp_notebook import Client, MCPError, ProtocolError, RequestTimeout, Settings, StartupError, Status
from mcp_notebook.runtime import Server

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts sockets in /proc/self/fd")


@pytest.fixture(scope="module")
def elsewhere() -> Iterator[str]:
    """Another origin (another port): redirects point here, and nothing may reach it."""
    port = free_port()
    with running([sys.executable, str(SERVERS / "hostile_http.py"), str(port)], port):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def hostile(elsewhere: str) -> Iterator[str]:
    port = free_port()
    with running([sys.executable, str(SERVERS / "hostile_http.py"), str(port), elsewhere], port):
        yield f"http://127.0.0.1:{port}"


def counts(base: str) -> dict[str, int]:
    with urllib.request.urlopen(f"{base}/counts") as response:
        return dict(json.load(response))


def eventually(check: Callable[[], bool], what: str) -> None:
    """Wait (with a deadline) for something another process or thread does."""
    deadline = time.monotonic() + WAIT
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(what)
        time.sleep(0.02)


def sockets() -> int:
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            n += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
        except OSError:
            pass  # closed meanwhile (the listing's own fd)
    return n


def in_thread(fn: Callable[[], object]) -> object:
    """``fn()`` on a thread of its own; fails the test, rather than hanging it, if it never returns."""
    outcome: list[object] = []
    thread = threading.Thread(target=lambda: outcome.append(_outcome(fn)), daemon=True)
    thread.start()
    thread.join(WAIT * 3)
    assert outcome, "the call never returned"
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def _outcome(fn: Callable[[], object]) -> object:
    try:
        return fn()
    except BaseException as e:
        return e


def connect(client: Client, url: str, transport: str = "http") -> Server:
    server = client.add("hostile", url=url, transport=transport)
    assert server.call_tool("echo").text == "echo"
    return server


# -- reply streams that never end ------------------------------------------------------


def test_timed_out_calls_close_their_reply_streams_on_both_paths(client: Client, hostile: str) -> None:
    server = connect(client, f"{hostile}/endless/mcp")
    transport = server.connection.transport
    before = sockets()
    for _ in range(20):
        with pytest.raises(RequestTimeout, match=r"got no answer in 0\.2 s"):
            asyncio.run(server.acall_tool("keepalive", timeout=0.2))
    eventually(lambda: counts(hostile)["open"] == 0, "timed-out awaited calls left their streams open")
    # A few pooled connections (the cancel notifications'), not one per call:
    eventually(lambda: sockets() <= before + 4, "timed-out awaited calls kept their sockets")
    assert not transport._requests  # nor their tasks

    def blocking_timeouts() -> None:
        for _ in range(20):
            with pytest.raises(RequestTimeout, match=r"got no answer in 0\.2 s"):
                server.call_tool("keepalive", timeout=0.2)

    in_thread(blocking_timeouts)  # the blocking API honours the timeout: it used to wait for ever
    eventually(lambda: counts(hostile)["open"] == 0, "timed-out blocking calls left their streams open")
    eventually(lambda: sockets() <= before + 4, "timed-out blocking calls kept their sockets")
    assert not transport._pumped
    assert asyncio.run(server.acall_tool("echo")).text == "echo"
    assert server.call_tool("echo").text == "echo"
    assert server.status is Status.CONNECTED


def test_a_hung_post_is_freed_when_its_call_times_out(client: Client, hostile: str) -> None:
    server = connect(client, f"{hostile}/endless/mcp")
    before = sockets()
    for _ in range(10):
        with pytest.raises(RequestTimeout):
            asyncio.run(server.acall_tool("hang", timeout=0.2))
    eventually(lambda: sockets() <= before + 4, "timed-out POSTs kept their sockets")
    assert not server.connection.transport._requests  # nor their tasks
    assert server.call_tool("echo").text == "echo"


def test_a_call_with_no_timeout_ends_at_the_read_timeout_in_one_line(hostile: str) -> None:
    """``timeout=None`` leaves only the socket's read timeout (a setting) to end the wait: the
    call fails with that timeout (it used to raise a TypeError while telling the server)."""
    client = Client(settings=Settings(read_timeout=0.3))
    try:
        server = connect(client, f"{hostile}/endless/mcp")
        with pytest.raises(RequestTimeout, match=r"tools/call to .* got no answer in 0\.3 s"):
            in_thread(lambda: server.call_tool("hang", timeout=None))
        assert server.call_tool("echo").text == "echo"
    finally:
        client.close()


def test_a_cancelled_awaited_call_closes_its_reply_stream(client: Client, hostile: str) -> None:
    server = connect(client, f"{hostile}/endless/mcp")

    async def cancel_midway() -> None:
        call = asyncio.ensure_future(server.acall_tool("keepalive", timeout=None))
        while counts(hostile)["open"] == 0:  # the stream is open: the call is under way
            await asyncio.sleep(0.02)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

    asyncio.run(asyncio.wait_for(cancel_midway(), WAIT))
    eventually(lambda: counts(hostile)["open"] == 0, "the cancelled call's stream stayed open")
    assert server.call_tool("echo").text == "echo"


def test_a_stream_kept_open_after_its_reply_is_closed(client: Client, hostile: str) -> None:
    server = connect(client, f"{hostile}/endless/mcp")
    assert in_thread(lambda: server.call_tool("tail").text) == "tail"  # used to wait for the stream's end
    eventually(lambda: counts(hostile)["open"] == 0, "the blocking call's stream stayed open")
    assert asyncio.run(server.acall_tool("tail")).text == "tail"
    eventually(lambda: counts(hostile)["open"] == 0, "the awaited call's stream stayed open")


def test_progress_still_restarts_the_timeout_over_http(client: Client) -> None:
    """The loop ends a blocking read at the deadline; a deadline that progress moved is the
    one that counts."""
    port = free_port()
    with running([node(), str(EVERYTHING), "streamableHttp"], port, {"PORT": str(port)}):
        server = client.add("everything", url=f"http://127.0.0.1:{port}/mcp", transport="http")
        params = {"duration": 3, "steps": 30}
        # 3 s of work with progress every 0.1 s outlives a 2 s timeout: each report restarts it.
        done = server.call_tool("trigger-long-running-operation", params, timeout=2, on_progress=lambda *a: None)
        assert "completed" in done.text
        done = asyncio.run(
            server.acall_tool("trigger-long-running-operation", params, timeout=2, on_progress=lambda *a: None)
        )
        assert "completed" in done.text


# -- header values a server hands over -------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("sid-nonascii", r"sent an MCP-Session-Id that cannot be sent back: it holds a non-ASCII character"),
        ("sid-huge", r"sent an MCP-Session-Id that cannot be sent back: it is 100,000 characters long"),
        ("sid-crlf", r"RemoteProtocolError: illegal header line"),  # h11 refuses it before we see it
    ],
)
def test_a_session_id_that_cannot_be_sent_back_fails_the_connect(
    client: Client, hostile: str, path: str, expected: str, capfd: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(MCPError, match=expected) as info:
        client.add("bad", url=f"{hostile}/{path}/mcp", transport="http", startup_timeout=WAIT)
    assert "\n" not in str(info.value) and "\r" not in str(info.value)
    server = client["bad"]
    assert server.status is Status.FAILED and server.error == str(info.value)
    assert "Traceback" not in capfd.readouterr().err  # nothing printed by a task that died


def test_a_huge_session_id_shows_as_failed_in_the_listing(hostile: str) -> None:
    shell = InteractiveShell.instance()
    try:
        shell.run_line_magic("load_ext", "mcp_notebook")
        with pytest.raises(ProtocolError, match="100,000 characters long"):
            shell.run_line_magic("mcp", f"add huge {hostile}/sid-huge/mcp --transport http")
        frame = shell.run_line_magic("mcp", "list").set_index("name")
        assert frame.loc["huge", "status"] == "failed"
        assert "MCP-Session-Id" in frame.loc["huge", "error"]
        shell.run_line_magic("mcp", "remove huge")
    finally:
        shell.run_line_magic("unload_ext", "mcp_notebook")


def test_an_event_id_that_cannot_be_sent_back_fails_the_call_in_one_line(
    client: Client, hostile: str, capfd: pytest.CaptureFixture[str]
) -> None:
    """The stream drops before the reply; resuming it would send that id in Last-Event-ID."""
    server = connect(client, f"{hostile}/endless/mcp")
    expected = r"closed the reply stream before answering and it cannot be resumed: its last event id holds"
    with pytest.raises(MCPError, match=expected + r" a non-ASCII character \(a header carries visible ASCII only\);"):
        server.call_tool("badid", timeout=WAIT)
    with pytest.raises(MCPError, match=expected):
        asyncio.run(server.acall_tool("badid", timeout=WAIT))
    assert "Traceback" not in capfd.readouterr().err
    assert server.call_tool("echo").text == "echo"


# -- redirects: never followed, explained ----------------------------------------------


@pytest.mark.parametrize(
    ("path", "transport", "target"),
    [
        ("redirect/mcp", "http", "mcp"),
        ("redirect/mcp", "auto", "mcp"),
        ("redirect-sse/sse", "sse", "sse"),  # the legacy event stream's GET
        ("redirect-post/sse", "sse", "messages"),  # the legacy endpoint's POST
    ],
)
def test_a_redirect_is_explained_and_not_followed(
    client: Client, hostile: str, elsewhere: str, path: str, transport: str, target: str
) -> None:
    before = counts(elsewhere)["requests"]
    with pytest.raises(MCPError) as info:
        client.add("moved", url=f"{hostile}/{path}", transport=transport, startup_timeout=WAIT)
    message = str(info.value)
    assert f"redirects to {elsewhere}/{target} (HTTP 307)" in message, message
    assert "add that URL if you trust it" in message and "\n" not in message
    assert "exited" not in message and "content type" not in message
    assert client["moved"].status is Status.FAILED
    assert counts(elsewhere)["requests"] == before  # nothing reached the other origin


def test_a_redirect_after_connecting_fails_the_call_on_both_paths(client: Client, hostile: str, elsewhere: str) -> None:
    server = client.add("moved", url=f"{hostile}/redirect-later/mcp", transport="http")
    before = counts(elsewhere)["requests"]
    shown = rf"redirects to {elsewhere}/mcp\?token=\*\*\* \(HTTP 307\)"  # a secret in the URL is hidden
    with pytest.raises(MCPError, match=shown):
        server.call_tool("echo", validate=False)
    with pytest.raises(MCPError, match=shown):
        asyncio.run(server.acall_tool("echo", validate=False))
    assert counts(elsewhere)["requests"] == before
    assert server.status is Status.CONNECTED  # the call failed, not the connection


def test_a_legacy_endpoint_on_another_origin_is_refused(client: Client, hostile: str, elsewhere: str) -> None:
    before = counts(elsewhere)["requests"]
    with pytest.raises(ProtocolError, match="named an endpoint on another origin; refused") as info:
        client.add("cross", url=f"{hostile}/cross-sse/sse", transport="sse")
    assert "\n" not in str(info.value)
    assert counts(elsewhere)["requests"] == before


# -- legacy HTTP+SSE -------------------------------------------------------------------


def test_a_legacy_post_never_answered_times_out_on_both_paths(client: Client, hostile: str) -> None:
    server = client.add("deaf", url=f"{hostile}/hang-post/sse", transport="sse")
    with pytest.raises(RequestTimeout, match=r"ping to server 'deaf' got no answer in 0\.3 s"):
        in_thread(lambda: server.request("ping", timeout=0.3))
    with pytest.raises(RequestTimeout, match=r"ping to server 'deaf' got no answer in 0\.3 s"):
        in_thread(lambda: asyncio.run(server.arequest("ping", timeout=0.3)))
    eventually(lambda: not server.connection.transport._requests, "the timed-out POSTs kept their tasks")


def test_remote_startup_failures_are_worded_as_remote(hostile: str) -> None:
    client = Client(settings=Settings(startup_timeout=WAIT))
    try:
        with pytest.raises(StartupError) as info:
            client.add("gone", url=f"{hostile}/no-endpoint/sse", transport="sse")
        message = str(info.value)
        assert "could not connect" in message and "closed its event stream without naming an endpoint" in message
        assert "exited" not in message and "\n" not in message
    finally:
        client.close()
