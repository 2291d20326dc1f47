"""Remote servers: server-everything in its streamableHttp and sse modes, the demo server
over --http and --sse (the official SDK's HTTP transports), auto-detection, HTTP faults."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell
from support.peers import EVERYTHING, SERVERS, check_resource_updates, node
from support.processes import free_port, running, serve
from support.waiting import WAIT

from mcp_notebook import (
    ArgumentError,
    Client,
    MCPError,
    MessageTooLarge,
    RequestTimeout,
    SessionExpired,
    Settings,
    StartupError,
    Status,
)


@pytest.fixture(scope="module", params=["streamableHttp", "sse"])
def everything_url(request: pytest.FixtureRequest) -> Iterator[str]:
    port = free_port()
    with running([node(), str(EVERYTHING), request.param], port, {"PORT": str(port)}):
        yield f"http://127.0.0.1:{port}/{'mcp' if request.param == 'streamableHttp' else 'sse'}"


def test_auto_trying_streamable_http_first_leaves_no_error_in_the_history(client: Client, everything_url: str) -> None:
    """A legacy HTTP+SSE server refuses the Streamable HTTP initialize (404) before auto falls
    back: an expected refusal, noted as the era probe's is; pinned to http it is the error."""
    client.add("everything", url=everything_url)
    assert client.history(errors=True).empty, client.history(errors=True)[["method", "outcome"]]
    outcomes = client.history()["outcome"].tolist()
    if everything_url.endswith("/sse"):
        assert "legacy HTTP+SSE server (initialize got HTTP 404)" in outcomes, outcomes
        with pytest.raises(MCPError, match="404"):
            client.add("pinned", url=everything_url, transport="http")
        failed = client.history("pinned", errors=True)
        assert failed["method"].tolist() == ["initialize"], failed[["method", "outcome"]]


def test_everything_over_http(client: Client, everything_url: str) -> None:
    server = client.add("everything", url=everything_url)
    assert server.status is Status.CONNECTED
    assert server.transport_name == ("http" if everything_url.endswith("/mcp") else "sse")  # auto-detected
    assert server.protocol_version == "2025-11-25"
    assert {"echo", "get-sum"} <= {t.name for t in server.list_tools()}
    assert server.call_tool("echo", {"message": "hi"}).text == "Echo: hi"
    first = server.list_resources()[0]
    assert server.read_resource(first.uri).contents[0]["uri"] == first.uri
    assert server.list_resource_templates() and server.list_prompts()
    assert "Paris" in server.get_prompt("args-prompt", {"city": "Paris"}).text
    seen: list[float] = []
    done = server.call_tool(
        "trigger-long-running-operation", {"duration": 1, "steps": 2}, on_progress=lambda p, t, m: seen.append(p)
    )
    assert "completed" in done.text and seen == [1, 2]
    got = threading.Event()
    server.on_notification(lambda method, params: method == "notifications/message" and got.set())
    server.set_log_level("debug")
    server.call_tool("toggle-simulated-logging")
    try:
        assert got.wait(WAIT)
    finally:
        server.call_tool("toggle-simulated-logging")


def test_subscriptions_over_http(client: Client, everything_url: str) -> None:
    check_resource_updates(client.add("everything", url=everything_url), WAIT)


def test_expired_session_renews_reads_but_never_resends_a_call(client: Client) -> None:
    """The demo server (the official SDK) restarted on the same port forgets its sessions:
    it answers the old one with 404, as the spec says. (Sessions are the legacy era's: the
    demo speaks both, so it is pinned to legacy here.)"""
    port = free_port()
    command = [sys.executable, "-m", "mcp_notebook.demo", "--http", str(port)]
    proc = serve(command, port)
    try:
        server = client.add("demo", url=f"http://127.0.0.1:{port}/mcp", protocol="legacy")
        client.approval.mode = "never"
        for _ in range(2):
            proc.kill()
            proc.wait()
            proc = serve(command, port)
        assert len(server.list_tools(refresh=True)) == 7  # a new session, transparently
        proc.kill()
        proc.wait()
        proc = serve(command, port)
        with pytest.raises(SessionExpired, match=r"HTTP 404\); a new session is open, but the call was not sent again"):
            server.call_tool("query_penguins", {"limit": 1})
        assert server.call_tool("query_penguins", {"limit": 1}).structured["count"] == 344  # the new session works
    finally:
        proc.kill()
        proc.wait()


def test_legacy_sse_reconnects_when_its_stream_drops(client: Client) -> None:
    port = free_port()
    command = [sys.executable, "-m", "mcp_notebook.demo", "--sse", str(port)]
    proc = serve(command, port)
    try:
        server = client.add("demo", url=f"http://127.0.0.1:{port}/sse", transport="sse")
        proc.kill()
        proc.wait()
        proc = serve(command, port)
        # The stream dropped with the server: the next use (or the background retry) opens
        # a new stream, which is a new legacy session.
        assert server.call_tool("query_penguins", {"limit": 1}, timeout=WAIT).structured["count"] == 344
        assert server.status is Status.CONNECTED
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("mode", ["http", "sse"])
def test_an_argument_json_cannot_hold_is_refused_at_once_and_the_connection_stays_usable(
    client: Client, mode: str
) -> None:
    port = free_port()
    with running([sys.executable, "-m", "mcp_notebook.demo", f"--{mode}", str(port)], port):
        url = f"http://127.0.0.1:{port}/{'mcp' if mode == 'http' else 'sse'}"
        server = client.add("demo", url=url, transport=mode)
        with pytest.raises(ArgumentError, match="not JSON serializable; nothing was sent"):
            server.call_tool("query_penguins", {"limit": object()}, validate=False)
        assert server.call_tool("query_penguins", {"limit": 1}).structured["count"] == 344
        record = client.calls("demo")[-1]
        assert isinstance(record.raw_out, bytes) and record.bytes_out == len(record.raw_out)  # the body as sent


@pytest.mark.parametrize("mode", ["--http", "--sse"])
def test_demo_server_over_http_with_magics(mode: str) -> None:
    port = free_port()
    proc = serve([sys.executable, "-m", "mcp_notebook.demo", mode, str(port)], port)
    shell = InteractiveShell.instance()
    try:
        shell.run_line_magic("load_ext", "mcp_notebook")
        path = "mcp" if mode == "--http" else "sse"
        transport = "http" if mode == "--http" else "sse"
        shell.run_line_magic("mcp", f"add remote http://127.0.0.1:{port}/{path} --transport {transport}")
        frame = shell.run_line_magic("mcp", "list").set_index("name")
        assert frame.loc["remote", "status"] == "connected" and frame.loc["remote", "transport"] == transport
        result = shell.run_line_magic("mcp", "call remote.query_penguins species=Gentoo limit=2")
        assert result.structured["count"] == 124
        assert shell.run_line_magic("mcp", "read remote penguins://data.csv").to_frame().shape == (344, 8)
        shell.run_line_magic("mcp", "remove remote")
    finally:
        shell.run_line_magic("unload_ext", "mcp_notebook")
        proc.kill()
        proc.wait()


def test_connection_refused_is_one_line(client: Client) -> None:
    with pytest.raises(MCPError) as info:
        client.add("nowhere", url=f"http://127.0.0.1:{free_port()}/mcp", transport="http")
    assert "cannot reach" in str(info.value) and "\n" not in str(info.value)
    assert client["nowhere"].status is Status.FAILED


def test_bearer_token_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "tok-" + "9" * 20
    monkeypatch.setenv("REMOTE_TOKEN", secret)
    port = free_port()
    proc = serve([sys.executable, "-m", "mcp_notebook.demo", "--http", str(port)], port)
    shell = InteractiveShell.instance()
    try:
        shell.run_line_magic("load_ext", "mcp_notebook")
        shell.run_line_magic("mcp", f"add remote http://127.0.0.1:{port}/mcp --bearer-env REMOTE_TOKEN")
        shown = [
            repr(shell.run_line_magic("mcp", "status remote")),
            shell.run_line_magic("mcp", "status remote")._repr_html_(),
            shell.run_line_magic("mcp", "list").to_string(),
            repr(shell.run_line_magic("mcp", "call remote.query_penguins limit=1")),
        ]
        from mcp_notebook import get_client

        shown += [repr(get_client()["remote"]), repr(get_client()["remote"].config)]
        assert not any(secret in text for text in shown)
        assert get_client()["remote"].config.headers["Authorization"] == f"Bearer {secret}"  # it was sent
        shell.run_line_magic("mcp", "remove remote")
    finally:
        shell.run_line_magic("unload_ext", "mcp_notebook")
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def faulty_http() -> Iterator[str]:
    port = free_port()
    with running([sys.executable, str(SERVERS / "faulty_http.py"), str(port)], port):
        yield f"http://127.0.0.1:{port}"


def test_http_faults_fail_only_their_call(faulty_http: str) -> None:
    client = Client(settings=Settings(max_message_size=1 << 20))
    try:
        server = client.add("faulty", url=f"{faulty_http}/ok/mcp", transport="http")
        assert server.call_tool("echo").text == "fine"
        with pytest.raises(MessageTooLarge, match=r"over the 1\.0 MiB limit"):
            server.call_tool("big", timeout=WAIT)
        with pytest.raises(MCPError, match="closed the reply stream before answering; run the call again"):
            server.call_tool("cut", timeout=WAIT)
        with pytest.raises(MCPError, match="not JSON"):
            server.call_tool("garbage", timeout=WAIT)
        with pytest.raises(MessageTooLarge):
            server.call_tool("bigjson", timeout=WAIT)
        with pytest.raises(RequestTimeout):
            server.call_tool("hang", timeout=0.5)
        assert server.call_tool("echo").text == "fine"  # still usable after each
    finally:
        client.close()


def test_a_raised_limit_reaches_a_live_http_connection(faulty_http: str) -> None:
    client = Client(settings=Settings(max_message_size=1 << 20))
    try:
        server = client.add("faulty", url=f"{faulty_http}/ok/mcp", transport="http")
        for tool in ("big", "bigjson"):  # a 3 MB SSE event, a 3 MB JSON body
            with pytest.raises(MessageTooLarge, match=r"client\.settings\.max_message_size = "):
                server.call_tool(tool, timeout=WAIT)
        client.settings.max_message_size = 8 << 20  # as the message says: no restart
        for tool in ("big", "bigjson"):
            assert len(server.call_tool(tool, timeout=WAIT).text) == 3_000_000
    finally:
        client.close()


def test_a_json_body_cut_off_at_the_limit_is_too_large_if_the_limit_is_raised_meanwhile(faulty_http: str) -> None:
    # The body is read, and cut, under the limit read as it began: raised meanwhile (here
    # at once after that read), the bytes cut off are still too large, not "not JSON".
    client = Client(settings=Settings(max_message_size=1 << 20))
    try:
        server = client.add("faulty", url=f"{faulty_http}/ok/mcp", transport="http")
        assert server.call_tool("echo").text == "fine"  # (its listing read before the limit is swapped)
        transport = server.connection.transport
        assert transport is not None
        reads: list[int] = []

        def raised_after_one_read() -> int:
            reads.append(1)
            return 1 << 20 if len(reads) == 1 else 8 << 20

        transport.limit = raised_after_one_read
        with pytest.raises(MessageTooLarge):
            server.call_tool("bigjson", timeout=WAIT)
        assert len(server.call_tool("bigjson", timeout=WAIT).text) == 3_000_000  # asked again: it passes
    finally:
        client.close()


def test_a_raised_limit_reaches_a_live_legacy_stream(client: Client) -> None:
    # Every legacy answer comes on the one event stream opened at connect: its reader
    # must take a limit raised after that, not the one the stream was opened with.
    port = free_port()
    with running([sys.executable, "-m", "mcp_notebook.demo", "--sse", str(port)], port):
        client.settings.max_message_size = 8 << 10
        server = client.add("demo", url=f"http://127.0.0.1:{port}/sse", transport="sse")
        session = server.connection.session
        client.settings.max_message_size = 1 << 20
        csv = server.read_resource("penguins://data.csv", timeout=WAIT)
        assert len(csv.text) > 8 << 10 and len(csv.to_frame()) == 344
        # Read on the stream it had: not on a new one (a stream refusing an event ends,
        # and the next use reconnects, which would hide a stale limit).
        assert server.connection.session is session and not session.closed


def test_a_resumable_reply_stream_is_resumed(faulty_http: str, client: Client) -> None:
    server = client.add("faulty", url=f"{faulty_http}/ok/mcp", transport="http")
    assert server.call_tool("resumable", timeout=WAIT).text == "resumed"  # via GET + Last-Event-ID


def test_a_forgotten_session_is_never_sent_a_call_twice(faulty_http: str, client: Client) -> None:
    import json
    import urllib.request

    server = client.add("faulty", url=f"{faulty_http}/ok/mcp", transport="http")
    server.call_tool("forget")
    before = json.load(urllib.request.urlopen(f"{faulty_http}/ok/counts")).get("echo", 0)
    with pytest.raises(SessionExpired, match="not sent again"):
        server.call_tool("echo")
    assert "echo" in {t.name for t in server.list_tools(refresh=True)}  # the new session serves reads
    assert server.call_tool("echo").text == "fine"
    after = json.load(urllib.request.urlopen(f"{faulty_http}/ok/counts"))["echo"]
    assert after == before + 1  # the call the 404 refused ran once: when run again by hand


def test_a_server_that_never_answers_initialize(faulty_http: str) -> None:
    client = Client(settings=Settings(startup_timeout=1.0))
    try:
        with pytest.raises(StartupError, match="did not answer within 1 s") as info:
            client.add("silent", url=f"{faulty_http}/silent/mcp", transport="http")
        assert "\n" not in str(info.value)
        assert "check the URL" in str(info.value) and "command" not in str(info.value)  # a remote server's words
    finally:
        client.close()


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("html", r"HTTP 500 .*an HTML page"),
        ("auth", r"needs a login \(http://127\.0\.0\.1:\d+\) and nobody can log in here"),
        ("forbidden", r"HTTP 403 \(access is forbidden\) with 'not for you'"),
        ("down", r"HTTP 503 \(Service Unavailable\) with 'upstream unavailable, try later'"),
    ],
)
def test_http_error_pages_are_one_line(client: Client, faulty_http: str, path: str, expected: str) -> None:
    with pytest.raises(MCPError, match=expected) as info:
        client.add("bad", url=f"{faulty_http}/{path}/mcp", transport="http")
    assert "\n" not in str(info.value) and "<html>" not in str(info.value)
    # Its answer to the era probe, too, is an error, not a legacy server's expected refusal.
    (probe,) = [c for c in client.calls("bad") if c.method == "server/discover"]
    assert probe.failed and probe in client.calls("bad", errors=True), probe.outcome


def test_tls_is_verified_and_a_ca_bundle_can_be_trusted(tmp_path: Path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    port = free_port()
    proc = serve([sys.executable, str(SERVERS / "faulty_http.py"), str(port), str(cert), str(key)], port)
    url = f"https://127.0.0.1:{port}/ok/mcp"
    try:
        strict = Client()
        with pytest.raises(MCPError, match="CERTIFICATE_VERIFY_FAILED") as info:
            strict.add("selfsigned", url=url, transport="http")
        assert "\n" not in str(info.value)
        strict.close()
        trusting = Client(settings=Settings(tls_verify=str(cert)))
        assert trusting.add("selfsigned", url=url, transport="http").call_tool("echo").text == "fine"
        trusting.close()
    finally:
        proc.kill()
        proc.wait()


def test_concurrent_reads_share_one_new_session(faulty_http: str, client: Client) -> None:
    import asyncio

    server = client.add("faulty", url=f"{faulty_http}/ok/mcp", transport="http")
    server.call_tool("forget")
    old = server.connection.transport.session_id

    async def many() -> list[int]:
        return [len(t) for t in await asyncio.gather(*(server.alist_tools(refresh=True) for _ in range(5)))]

    assert asyncio.run(many()) == [9] * 5  # faulty_http.py's tools
    assert server.connection.transport.session_id != old and server.status is Status.CONNECTED
