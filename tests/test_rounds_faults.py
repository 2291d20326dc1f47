"""Input-required rounds and the modern era against a raw stdio server that misbehaves on cue
(tests/servers/mrtr_raw.py): a read that needed an answer is never cached, a cancel racing a
round's retry never leaves the retry untold, a server asking too much (questions, text) is
refused in one line, and the capabilities declared on the probe are those of every request."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from support.peers import SERVERS

from mcp_notebook import Client, Handlers
from mcp_notebook.core.protocol.rounds import Rounds
from mcp_notebook.core.protocol.tasks import TaskRecord
from mcp_notebook.core.session.session import ClientSession
from mcp_notebook.core.transports.stdio.transport import StdioParameters, StdioTransport
from mcp_notebook.errors import MCPError, ProtocolError, RequestCancelled

RAW = str(SERVERS / "mrtr_raw.py")
WAIT = 30.0
TASKS = "io.modelcontextprotocol/tasks"


def elicit(params: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Ada"}}


@pytest.fixture
def raw() -> Iterator[Any]:
    client = Client(handlers=Handlers(elicitation=elicit))
    try:
        yield client.add("raw", sys.executable, [RAW])
    finally:
        client.close()


def seen(server: Any) -> dict[str, Any]:
    return dict(json.loads(server.call_tool("seen").text))


def reads(server: Any) -> int:
    return sum(1 for method, _ in seen(server)["capabilities"] if method == "resources/read")


def test_a_read_that_needed_an_answer_is_never_cached(raw: Any) -> None:
    """The spec: results produced through input-required rounds MUST NOT be cached, whatever
    ttlMs they carry: each read asks again (and a plain read with the same hint is cached)."""
    for _ in range(2):
        assert json.loads(raw.read_resource("memo://asks").text)["answers"] == {
            "who": {"action": "accept", "content": {"name": "Ada"}}
        }
    assert reads(raw) == 4  # twice: the first request and its retry
    raw.read_resource("memo://plain")
    raw.read_resource("memo://plain")
    assert reads(raw) == 5  # the second plain read came from the cache


def test_a_server_asking_too_many_questions_at_once_is_refused_in_one_line(raw: Any) -> None:
    asked: list[Any] = []
    raw.connection.runtime.handlers.elicitation = lambda p: asked.append(p) or elicit(p)
    with pytest.raises(ProtocolError, match=r"1000 questions at once, over the limit of 32") as caught:
        raw.call_tool("many_asks")
    assert "\n" not in str(caught.value) and not asked  # none was put to a person
    assert raw.call_tool("plain").text  # the connection is still usable


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ({"method": "ping"}, "asked 'q' with 'ping', which is not a question this client answers"),
        ("roots/list", "asked 'q' with 'None', which is not a question this client answers"),
        ({"method": "roots/list", "params": ["/"]}, "asked 'q' with params that are not an object"),
    ],
)
def test_a_round_and_a_task_refuse_what_is_not_a_question_alike(question: Any, said: str) -> None:
    """One check for both ways a modern server asks (a round's inputRequests, a task's): the
    same refusal, one line, saying what was wrong (a question's params are not its method)."""
    requests = {"q": question}
    with pytest.raises(ProtocolError) as in_round:
        Rounds("raw", "tools/call", {}).next({"resultType": "input_required", "inputRequests": requests})
    record = TaskRecord.start("raw", "t", {"taskId": "t1", "status": "input_required"}, modern=True)
    with pytest.raises(ProtocolError) as in_task:
        record.new_inputs({"inputRequests": requests})
    assert str(in_round.value) == f"tools/call to server 'raw': the server {said}"
    assert str(in_task.value) == f"raw: task 't1' {said}"


def test_probe_and_every_request_declare_the_same_capabilities(raw: Any) -> None:
    """The runtime follows tasks: server/discover declares the extension as every later request does."""
    raw.call_tool("plain")
    declared = seen(raw)["capabilities"]
    assert declared[0][0] == "server/discover"
    assert all(caps == declared[0][1] for _, caps in declared), declared
    assert TASKS in declared[0][1]["extensions"] and "elicitation" in declared[0][1]


@pytest.mark.parametrize(
    ("protocol", "refuse"),
    [("auto", "-32022"), ("2026-07-28", "-32600"), ("legacy", "-32600")],
    ids=["incompatible", "not-spoken", "legacy-refused"],
)
def test_a_server_refusing_every_era_is_shown_safely(protocol: str, refuse: str) -> None:
    """What a refusing server says (its message, its versions) reaches the one-line error
    printable and short: no escape sequence, no newline, not 5000 characters."""
    client = Client()
    try:
        with pytest.raises(MCPError) as caught:
            client.add("raw", sys.executable, [RAW, "--refuse", refuse], protocol=protocol)
    finally:
        client.close()
    message = str(caught.value)
    assert "\x1b" not in message and "\x07" not in message and "$ fake prompt" not in message, message
    assert "AAAA" in message and len(message) < 1500, len(message)


class CancellingWaker:
    """A waiting cell's waker whose person presses Cancel the moment they answer."""

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        self.cancel: Any = None

    def fileno(self) -> int:
        return self.read_fd

    def interval(self) -> float | None:
        return None

    def wake(self) -> None:
        os.write(self.write_fd, b"x")

    def serve(self) -> None:
        os.read(self.read_fd, 64)
        self.cancel()

    def close(self) -> None:
        os.close(self.read_fd)
        os.close(self.write_fd)


def tool_text(session: ClientSession, name: str) -> Any:
    return json.loads(session.request_blocking("tools/call", {"name": name, "arguments": {}})["content"][0]["text"])


def test_a_cancel_racing_the_retry_never_leaves_a_retry_untold() -> None:
    """The notebook's Cancel (the waiting cell's thread) races the loop sending the round's
    retry: either no retry is sent, or the server is told it is cancelled, or the call got
    its result. A retry the server runs for a caller that has gone is a bug (a booking made
    twice). Repeated, with the interpreter switching threads as often as it can."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    current: list[CancellingWaker] = []

    def answer_then_cancel(params: dict[str, Any]) -> dict[str, Any]:
        current[0].wake()  # the person answers and presses Cancel at once
        return elicit(params)

    session = ClientSession(
        StdioTransport(StdioParameters(sys.executable, [RAW])), name="raw", handlers=Handlers(answer_then_cancel)
    )
    switch = sys.getswitchinterval()
    try:
        asyncio.run_coroutine_threadsafe(session.start(timeout=WAIT), loop).result(WAIT)
        returned = 0
        sys.setswitchinterval(1e-6)
        for _ in range(100):
            waker = CancellingWaker()
            current[:] = [waker]
            try:
                session.request_blocking("tools/call", {"name": "slow_ask", "arguments": {}}, waker=waker)
                returned += 1
            except RequestCancelled:
                pass
            finally:
                waker.close()
        sys.setswitchinterval(switch)
        calls, told = (tool_text(session, name) for name in ("record", "seen"))
        retries = [c["id"] for c in calls if c["name"] == "slow_ask" and "inputResponses" in c]
        untold = [rid for rid in retries if rid not in told["cancelled"]]
        assert len(untold) <= returned, (untold, returned)
    finally:
        sys.setswitchinterval(switch)
        asyncio.run_coroutine_threadsafe(session.close(), loop).result(WAIT)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(WAIT)
