"""A server's limit on tool calls in flight (``maxConcurrency``, ``%mcp add
--max-concurrency N``, ``Client.add(max_concurrency=N)``): gathered calls, calls from
threads and a map's rows all take their turn, as the server itself counts
(tests/servers/sdk_modern.py's ``meet``); a call waiting for its turn keeps its timeout and
can be cancelled, and sends nothing then."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from support.peers import SERVERS
from support.processes import free_port, running
from support.shells import extension_loaded, run
from support.waiting import wait_for

from mcp_notebook import Client, ConfigError, RequestTimeout, Server, StartupError
from mcp_notebook.core.config.servers import load_config

SDK_MODERN = str(SERVERS / "sdk_modern.py")
WAIT = 20.0


def limited(client: Client, transport: str, limit: int) -> Iterator[Server]:
    if transport == "stdio":
        yield client.add("sdk", sys.executable, [SDK_MODERN], max_concurrency=limit)
        return
    port = free_port()
    with running([sys.executable, SDK_MODERN, "--http", str(port)], port):
        yield client.add("sdk", url=f"http://127.0.0.1:{port}/mcp", max_concurrency=limit)
        client.remove("sdk")  # before the server goes


@pytest.fixture(params=["stdio", "http"])
def two_at_a_time(request: pytest.FixtureRequest, client: Client) -> Iterator[Server]:
    yield from limited(client, request.param, 2)


@pytest.fixture
def one_at_a_time(client: Client) -> Iterator[Server]:
    yield from limited(client, "stdio", 1)


def calls_sent(server: Server) -> int:
    return int(server.call_tool("request_count", {"method": "tools/call"}).structured["result"])


def test_gathered_calls_threads_and_a_map_keep_to_the_servers_limit(two_at_a_time: Server) -> None:
    server = two_at_a_time

    async def gathered() -> list[Any]:
        return await asyncio.gather(*(server.acall_tool("meet", {"together": 2}) for _ in range(6)))

    # Each call waits for a partner: with two at a time, each pair meets and no third joins.
    results = [r.structured for r in asyncio.run(gathered())]
    assert all(r["met"] for r in results) and max(r["peak"] for r in results) == 2, results

    with ThreadPoolExecutor(4) as pool:  # blocking calls from threads: the same turns
        threaded = list(pool.map(lambda _: server.call_tool("meet", {"together": 2}).structured, range(4)))
    assert all(r["met"] for r in threaded) and max(r["peak"] for r in threaded) == 2, threaded

    notes: list[str] = []
    frame = server.map("meet", [{"together": 2}] * 100, concurrency=8, on_progress=lambda p: notes.append(p.note()))
    assert not frame["is_error"].any(), frame["error"].tolist()
    assert len(frame) == 100 and frame["met"].all() and frame["peak"].max() == 2  # as the server counted
    assert notes and all(n.startswith("2 at a time (sdk's maxConcurrency)") for n in notes), notes
    from mcp_notebook.commands.serverdisplay import ServerStatus

    assert "max_concurrency 2 (0 in flight, 0 waiting)" in repr(ServerStatus(server))  # what %mcp status says


def test_a_call_waiting_its_turn_times_out_or_is_cancelled_and_sends_nothing(one_at_a_time: Server) -> None:
    server = one_at_a_time
    started = threading.Event()

    async def scene() -> None:
        # The one slot is taken by a call that waits for a partner who cannot come.
        holding = asyncio.ensure_future(
            server.acall_tool("meet", {"together": 2}, on_progress=lambda *_: started.set())
        )
        await asyncio.get_running_loop().run_in_executor(None, started.wait, WAIT)
        assert started.is_set(), server.diagnostics
        with pytest.raises(RequestTimeout, match=r"sdk: no tool call could start within 0.5 s: 1 already in flight"):
            await server.acall_tool("echo", {"text": "late"}, timeout=0.5)
        waiting = asyncio.ensure_future(server.acall_tool("echo", {"text": "never"}))
        slots = server.connection.slots
        assert slots is not None
        queued = await asyncio.get_running_loop().run_in_executor(None, wait_for, lambda: slots.waiting == 1)
        assert queued, slots
        waiting.cancel()  # as Ctrl-C or a Cancel button does
        with pytest.raises(asyncio.CancelledError):
            await waiting
        holding.cancel()
        with pytest.raises(asyncio.CancelledError):
            await holding

    asyncio.run(scene())
    slots = server.connection.slots
    assert slots is not None
    # The cancels reach the background loop just after the awaits here end: wait for them.
    assert wait_for(lambda: (slots.in_flight, slots.waiting) == (0, 0)), slots
    # The slot is free again; the server saw the holding call and this one only.
    assert server.call_tool("echo", {"text": "next"}).text == "next"
    assert calls_sent(server) == 3  # meet, echo, request_count: neither queued call was sent


def test_the_limit_from_a_file_and_from_the_magic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"db": {"command": "python", "maxConcurrency": 3}}}))
    config = load_config(path)["db"]
    assert config.max_concurrency == 3 and "max_concurrency=3" in repr(config)
    path.write_text(json.dumps({"mcpServers": {"db": {"command": "python", "maxConcurrency": 0}}}))
    with pytest.raises(ConfigError, match=r"db\.maxConcurrency: must be a whole number of calls, 1 or more"):
        load_config(path)
    with pytest.raises(ConfigError, match="max_concurrency must be a whole number of calls, 1 or more, not 0"):
        Client().add("db", "python", max_concurrency=0, connect=False)

    monkeypatch.chdir(tmp_path)
    with extension_loaded() as ip:
        with pytest.raises(UsageError, match="max_concurrency must be a whole number"):
            run(ip, "%mcp add db --max-concurrency 0 -- python -m nothing")
        with pytest.raises(StartupError):  # saved all the same: its command may exist elsewhere
            run(ip, "%mcp add db --max-concurrency 2 --save project -- python -m no_such_module_here")
        saved = json.loads((tmp_path / ".mcp.json").read_text())
        assert saved["mcpServers"]["db"]["maxConcurrency"] == 2
        run(ip, "%mcp remove db --save")  # from this process's client (other tests share it) and the file
