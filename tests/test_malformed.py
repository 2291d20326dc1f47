"""Malformed messages from a hostile server (tests/servers/hostile.py): each goes to the
server's diagnostics and nothing else is lost. The call it came with returns at once (a lost
reply would wait out the timeout instead), and the connection goes on. Over stdio, read by
the background loop (awaited calls) or by a blocking caller's own thread, and over
Streamable HTTP."""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from servers import hostile
from support.peers import SERVERS
from support.processes import free_port, running
from support.waiting import WAIT, wait_for

from mcp_notebook import ArgumentError, CallResult, Client, ProtocolError, Server

HOSTILE = [sys.executable, str(SERVERS / "hostile.py")]
GARBAGE = {"nested-too-deep", "undecodable-notification"}  # not JSON at all: kept as the raw line


@pytest.fixture(scope="module")
def stdio_server(module_client: Client) -> Server:
    return module_client.add("hostile", HOSTILE[0], HOSTILE[1:])


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    port = free_port()
    with running([*HOSTILE, "--http", str(port)], port):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module")
def http_server(module_client: Client, http_url: str) -> Server:
    server = module_client.add("hostile-http", url=http_url, transport="http")
    wait_for(lambda: listening(server))  # its own stream's messages have come: counts stay put
    return server


def listening(server: Server) -> bool:
    return any(log.get("data") == "still listening" for log in server.logs)


def call(server: Server, how: str, tool: str, arguments: dict[str, Any], on_progress: Any = None) -> CallResult:
    if how == "blocking":
        return server.call_tool(tool, arguments, timeout=WAIT, on_progress=on_progress)
    return asyncio.run(server.acall_tool(tool, arguments, timeout=WAIT, on_progress=on_progress))


def check_nothing_lost(server: Server, kind: str, how: str) -> None:
    before = Counter(server.diagnostics)
    progress: list[Any] = []
    result = call(server, how, "bad", {"kind": kind}, on_progress=lambda *args: progress.append(args))
    assert result.text == f"after {kind}"
    assert call(server, how, "echo", {"message": "next"}).text == "next"
    noted = list((Counter(server.diagnostics) - before).elements())
    assert len(noted) == 1, noted
    if kind not in GARBAGE:
        assert noted[0].startswith("skipped a malformed message (")
    assert progress == []  # no malformed progress reached the caller's callback


@pytest.mark.parametrize("how", ["blocking", "awaited"])
@pytest.mark.parametrize("kind", sorted(hostile.BAD))
def test_a_malformed_message_over_stdio_loses_nothing(stdio_server: Server, kind: str, how: str) -> None:
    check_nothing_lost(stdio_server, kind, how)


@pytest.mark.parametrize("how", ["blocking", "awaited"])
# An event stream is decoded with replacement characters (the SSE standard): there that one is good.
@pytest.mark.parametrize("kind", sorted(set(hostile.BAD) - {"undecodable-notification"}))
def test_a_malformed_message_over_http_loses_nothing(http_server: Server, kind: str, how: str) -> None:
    check_nothing_lost(http_server, kind, how)


def test_the_servers_own_stream_outlives_malformed_messages(http_server: Server) -> None:
    # The GET stream brings every malformed kind, then a good log message: its reader goes on.
    assert listening(http_server)
    assert all(isinstance(log, dict) for log in http_server.logs)


def test_a_malformed_request_gets_an_error_reply(stdio_server: Server) -> None:
    assert stdio_server.call_tool("bad", {"kind": "request-params-string"}).text == "after request-params-string"
    answer = '"id": "p1", "error": {"code": -32600, "message": "malformed: ping params that are a string'
    assert wait_for(lambda: answer in stdio_server.stderr)


@pytest.mark.parametrize("how", ["blocking", "awaited"])
@pytest.mark.parametrize("kind", sorted(hostile.BAD_REPLIES))
def test_an_unreadable_reply_fails_its_call_at_once(stdio_server: Server, kind: str, how: str) -> None:
    before = Counter(stdio_server.diagnostics)
    with pytest.raises(ProtocolError, match="sent a reply that cannot be read: ") as info:
        call(stdio_server, how, "bad_reply", {"kind": kind})
    assert "\n" not in str(info.value)
    if kind.startswith("undecodable"):
        assert "0xe9" in str(info.value) and "is not UTF-8" in str(info.value)
    assert len(list((Counter(stdio_server.diagnostics) - before).elements())) == 1  # the line is kept
    assert call(stdio_server, how, "echo", {"message": "next"}).text == "next"


def test_a_log_level_outside_the_spec_is_kept(stdio_server: Server) -> None:
    # Servers write "warn" for "warning": the message is shown and kept, not skipped.
    assert stdio_server.call_tool("log", {"level": "warn", "data": "disk almost full"}).text == "logged"
    assert any(log.get("level") == "warn" and log.get("data") == "disk almost full" for log in stdio_server.logs)


def test_unusable_listing_entries_are_skipped(stdio_server: Server) -> None:
    """A listing entry with nothing to name it by is skipped; mistyped optional fields are
    dropped; the rest of the listing is used."""
    prompts = stdio_server.list_prompts(refresh=True)
    assert [p.name for p in prompts] == ["mangled"]
    assert prompts[0].title is None and prompts[0].arguments == [{"name": "a", "required": True}]
    notes = "\n".join(stdio_server.diagnostics)
    assert "skipped a prompts entry that is a number, not an object: 5" in notes
    assert "skipped a prompts entry whose name is a number, not a string" in notes
    assert "prompts entry 'mangled': dropped title (not str), 2 argument(s) without a name" in notes
    with pytest.raises(ArgumentError, match="missing required argument 'a'"):
        stdio_server.get_prompt("mangled")
    assert stdio_server.get_prompt("mangled", {"a": "x"}).text == "hi"
