"""Input-required rounds (2026-07-28): a call the server answers with questions is answered
by the client's handlers and sent again, and the caller gets the final result.

Real peers: the official SDK's server (tests/servers/sdk_modern.py: ``Resolve`` parameters
are input-required rounds at 2026-07-28, ``elicitation/create`` before), over stdio and
Streamable HTTP, dual-era and modern-only; a raw stdio server (tests/servers/mrtr_raw.py)
for what no real server does on cue (never done asking, a state-only round, -32021) and to
record what the client sent.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from support.peers import SERVERS
from support.processes import free_port, running

from mcp_notebook import Client, Handlers, accept_defaults
from mcp_notebook.core.session.session import current_server
from mcp_notebook.errors import ProtocolError, RequestCancelled, RPCError

SDK = str(SERVERS / "sdk_modern.py")
RAW = str(SERVERS / "mrtr_raw.py")
WAIT = 30.0


def elicit(params: dict[str, Any]) -> dict[str, Any]:
    assert current_server.get() in ("sdk", "raw")  # handlers learn whose question it is
    return {"action": "accept", "content": {"name": "Ada", "party": 4}}


def sample(params: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": {"type": "text", "text": "hi there"}, "model": "test"}


def roots(params: dict[str, Any]) -> dict[str, Any]:
    return {"roots": [{"uri": "file:///data/a", "name": "a"}]}


@pytest.fixture
def answering() -> Iterator[Client]:
    c = Client(handlers=Handlers(elicitation=elicit, sampling=sample, roots=roots))
    yield c
    c.close()


@pytest.fixture(params=["stdio", "http"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def add_sdk(client: Client, transport: str, modern_only: bool, stack: Any, protocol: str = "auto") -> Any:
    flags = ["--modern-only"] if modern_only else []
    if transport == "stdio":
        return client.add("sdk", sys.executable, [SDK, *flags], protocol=protocol)
    port = free_port()
    stack.enter_context(running([sys.executable, SDK, *flags, "--http", str(port)], port))
    return client.add("sdk", url=f"http://127.0.0.1:{port}/mcp", protocol=protocol)


@pytest.mark.parametrize("modern_only", [False, True], ids=["dual-era", "modern-only"])
def test_rounds_answered_by_the_handlers(answering: Client, transport: str, modern_only: bool) -> None:
    """An elicitation form, a sampling request and a roots request, each asked by the SDK's
    Resolve in an input-required round, are answered and the tool's result comes back, for
    blocking and awaited calls alike (two awaited at once: neither gets the other's state)."""
    import contextlib

    with contextlib.ExitStack() as stack:
        server = add_sdk(answering, transport, modern_only, stack)
        assert server.protocol_version == "2026-07-28"
        assert server.call_tool("book_table", {"day": "monday"}).text == "booked 4 for Ada monday"
        assert server.call_tool("ask_llm").text == "model said: hi there"
        assert server.call_tool("list_my_roots").text == "roots: file:///data/a"

        async def both() -> list[str]:
            results = await asyncio.gather(
                server.acall_tool("book_table", {"day": "friday"}), server.acall_tool("ask_llm")
            )
            return [r.text for r in results]

        assert asyncio.run(both()) == ["booked 4 for Ada friday", "model said: hi there"]


def test_a_legacy_pinned_connection_asks_through_elicitation_create(answering: Client) -> None:
    server = answering.add("sdk", sys.executable, [SDK], protocol="legacy")
    assert server.protocol_version != "2026-07-28"
    assert server.call_tool("book_table", {"day": "monday"}).text == "booked 4 for Ada monday"


def test_headless_policy_answers_the_round(transport: str) -> None:
    """With nobody to ask, accept_defaults answers: it accepts a form whose fields all have
    defaults and declines one that needs a person (the tool says so)."""
    import contextlib

    c = Client(handlers=Handlers(elicitation=accept_defaults))
    try:
        with contextlib.ExitStack() as stack:
            server = add_sdk(c, transport, True, stack)
            assert server.call_tool("book_default").text == "booked 2 for Guest"
            declined = server.call_tool("book_table", {"day": "monday"})
            assert declined.is_error and "decline" in declined.text
    finally:
        c.close()


# -- the raw server: what the client sends, and what it does with a server that misbehaves --


@pytest.fixture
def raw(answering: Client) -> Any:
    return answering.add("raw", sys.executable, [RAW])


def recorded(server: Any) -> list[dict[str, Any]]:
    return [c for c in json.loads(server.call_tool("record").text) if c["name"] != "record"]


def test_request_state_echoed_exactly_under_a_new_id_and_never_elsewhere(raw: Any) -> None:
    got = json.loads(raw.call_tool("stateful").text)
    assert got == {"echoed": True, "answers": {"who": {"action": "accept", "content": {"name": "Ada", "party": 4}}}}
    assert json.loads(raw.call_tool("plain").text) == {"inputResponses": None, "requestState": None}
    first, retry, plain = recorded(raw)
    assert first["id"] != retry["id"] and "requestState" not in first and "inputResponses" not in first
    assert plain["name"] == "plain" and "requestState" not in plain and "inputResponses" not in plain


def test_a_state_only_round_is_retried_with_the_state_alone(raw: Any) -> None:
    assert raw.call_tool("state_only").text == "state came back: wait"
    _first, retry = recorded(raw)
    assert "inputResponses" not in retry and retry["requestState"] == "wait"


@pytest.mark.parametrize("awaited", [False, True], ids=["blocking", "awaited"])
def test_a_server_that_never_stops_asking_is_cut_off(raw: Any, awaited: bool) -> None:
    with pytest.raises(ProtocolError, match=r"still asked for input after 10 rounds") as caught:
        if awaited:
            asyncio.run(raw.acall_tool("forever"))
        else:
            raw.call_tool("forever")
    assert "\n" not in str(caught.value)
    assert len(recorded(raw)) == 11  # the first request and ten retries, then nothing more
    assert raw.call_tool("plain").text  # the connection is still usable


def test_missing_client_capability_is_one_line_naming_it(raw: Any) -> None:
    with pytest.raises(RPCError) as caught:
        raw.call_tool("needs_cap")
    message = str(caught.value)
    assert "needs the client capability elicitation" in message and "Handlers(elicitation=" in message
    assert "\n" not in message


def test_cancelling_while_the_questions_are_answered_ends_the_whole_request() -> None:
    """An awaited call cancelled while its question is open: the question is withdrawn
    (its handler cancelled) and no retry reaches the server."""
    asked, withdrawn = threading.Event(), threading.Event()

    async def slow(params: dict[str, Any]) -> dict[str, Any]:
        asked.set()
        try:
            await asyncio.Event().wait()  # a person who never answers
        except asyncio.CancelledError:
            withdrawn.set()
            raise
        return {}

    c = Client(handlers=Handlers(elicitation=slow))
    try:
        server = c.add("raw", sys.executable, [RAW])

        async def call_then_cancel() -> None:
            task = asyncio.ensure_future(server.acall_tool("slow_ask"))
            assert await asyncio.get_running_loop().run_in_executor(None, asked.wait, WAIT)
            task.cancel()
            with pytest.raises((asyncio.CancelledError, RequestCancelled)):
                await task

        asyncio.run(asyncio.wait_for(call_then_cancel(), WAIT))
        assert withdrawn.wait(WAIT)
        assert [c["name"] for c in recorded(server)] == ["slow_ask"]  # never sent again
        assert server.call_tool("plain").text
    finally:
        c.close()
