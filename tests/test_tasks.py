"""Tool calls a server runs as tasks, followed to their end: the 2025-11-25 experimental form
against server-everything (``simulate-research-query`` requires task augmentation), and the
2026-07-28 extension ``io.modelcontextprotocol/tasks`` against tests/servers/sdk_tasks.py (an
official-SDK server; the SDK has the extension mechanism but no tasks extension, so the
server writes it from the spec's text), over stdio and Streamable HTTP; %mcp tasks; on a
terminal. In a real kernel: tests/test_tasks_kernel.py."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from support.kernels import run_headless
from support.peers import EVERYTHING, TASKS_SERVER, node
from support.processes import free_port, running
from support.terminal import ipython

from mcp_notebook import Client, Handlers, Interaction, Server
from mcp_notebook.core.protocol.tasks import TASK_COLUMNS, TaskRecord
from mcp_notebook.errors import ProtocolError, RequestTimeout, RPCError

WAIT = 30.0  # seconds: a deadline for events, never a sleep


def wait_until(condition: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    pytest.fail(f"waited {WAIT:g} s for {what}")


def running_task(client: Client, tool: str) -> TaskRecord:
    """The task of ``tool`` once the server has said it works on it (a status message)."""
    return wait_until(  # type: ignore[no-any-return]
        lambda: next((r for r in client.runtime.tasks.records() if r.tool == tool and r.message), None),
        f"a running {tool} task",
    )


def cancelled_on_the_server(server: Server, record: TaskRecord) -> None:
    """The server says the task is cancelled: tasks/cancel reached it."""
    wait_until(lambda: record.status == "cancelled", "the task to be cancelled here")
    assert server.request("tasks/get", {"taskId": record.task_id})["status"] == "cancelled"


async def cancel_awaited(client: Client, call: Any, tool: str) -> TaskRecord:
    """Start an awaited call, cancel it once its task runs; the await ends cancelled."""
    pending = asyncio.ensure_future(call)
    record = await asyncio.get_running_loop().run_in_executor(None, running_task, client, tool)
    pending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await pending
    return record


# -- 2025-11-25: task augmentation (server-everything) --------------------------------------


@pytest.fixture
def everything(client: Client) -> Server:
    return client.add("everything", node(), [str(EVERYTHING), "stdio"])


def test_a_tool_that_requires_a_task_returns_its_result(client: Client, everything: Server) -> None:
    result = everything.call_tool("simulate-research-query", {"topic": "tides"})
    assert "# Research Report: tides" in result.text
    assert not result.is_error
    [record] = client.runtime.tasks.records("everything")
    assert (record.tool, record.status, record.modern) == ("simulate-research-query", "completed", False)
    assert record.created  # the server's createdAt


def test_awaited_the_same(client: Client, everything: Server) -> None:
    result = asyncio.run(everything.acall_tool("simulate-research-query", {"topic": "moons"}))
    assert "# Research Report: moons" in result.text
    assert [r.status for r in client.runtime.tasks.records()] == ["completed"]


def test_the_input_a_task_needs_is_asked_like_a_server_request(client: Client, everything_cmd: Any) -> None:
    # An ambiguous query asks for a clarification (elicitation/create while tasks/result waits).
    asked: list[dict[str, Any]] = []

    def elicit(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {"interpretation": "snake"}}

    client.runtime.handlers = Handlers(elicitation=elicit)
    server = client.add("everything", *everything_cmd)
    result = server.call_tool("simulate-research-query", {"topic": "python", "ambiguous": True})
    assert "could have multiple interpretations" in asked[0]["message"]
    assert "**Clarification**: snake" in result.text


def test_cancelling_sends_tasks_cancel(client: Client, everything: Server) -> None:
    call = everything.acall_tool("simulate-research-query", {"topic": "slow"})
    record = asyncio.run(cancel_awaited(client, call, "simulate-research-query"))
    cancelled_on_the_server(everything, record)
    assert everything.call_tool("echo", {"message": "still here"}).text == "Echo: still here"


def test_asking_for_a_task_where_the_tool_has_none_is_a_plain_call(client: Client, everything: Server) -> None:
    # task=True asks only where a tool says tasks are optional (server-everything has none such).
    assert everything.call_tool("echo", {"message": "x"}, task=True).text == "Echo: x"
    assert client.runtime.tasks.records() == []


# -- 2026-07-28: the io.modelcontextprotocol/tasks extension (tests/servers/sdk_tasks.py) ------


@pytest.fixture(params=["stdio", "http"])
def modern(request: pytest.FixtureRequest, client: Client) -> Iterator[Server]:
    if request.param == "stdio":
        yield client.add("tasks", TASKS_SERVER[0], TASKS_SERVER[1:])
        return
    port = free_port()
    with running([*TASKS_SERVER, "--http", str(port)], port):
        yield client.add("tasks", url=f"http://127.0.0.1:{port}/mcp")


def test_a_modern_task_is_polled_to_its_result(client: Client, modern: Server) -> None:
    assert modern.protocol_version == "2026-07-28"
    assert modern.call_tool("slow_task", {"seconds": 0.3}).text == "slept 0.3 s"
    assert asyncio.run(modern.acall_tool("slow_task", {"seconds": 0.3})).text == "slept 0.3 s"
    records = client.runtime.tasks.records("tasks")
    assert [(r.status, r.modern, r.message) for r in records] == [("completed", True, None)] * 2
    assert records[0].poll_ms == 100  # the server's pollIntervalMs


def test_a_modern_task_asks_its_input_with_tasks_update(client: Client, modern: Server) -> None:
    asked: list[dict[str, Any]] = []

    def elicit(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"action": "accept", "content": {"ok": len(asked) == 1}}

    client.runtime.handlers.elicitation = elicit
    assert modern.call_tool("confirm_task", {"item": "a.txt"}).text == "deleted a.txt"
    assert asyncio.run(modern.acall_tool("confirm_task", {"item": "b.txt"})).text == "kept b.txt"
    assert [a["message"] for a in asked] == ["Delete a.txt?", "Delete b.txt?"]  # each asked once


def test_cancelling_a_modern_task_sends_tasks_cancel(client: Client, modern: Server) -> None:
    record = asyncio.run(cancel_awaited(client, modern.acall_tool("slow_task", {"seconds": 60}), "slow_task"))
    cancelled_on_the_server(modern, record)
    assert modern.call_tool("slow_task", {"seconds": 0}).text == "slept 0 s"


@pytest.mark.parametrize("awaited", [False, True])
def test_a_task_past_the_calls_timeout_is_cancelled_and_named(client: Client, modern: Server, awaited: bool) -> None:
    """A call's timeout is its task's deadline, start to end (a task that stays working for
    an hour here), not only the wait for the tools/call reply."""
    call = (
        (lambda: asyncio.run(modern.acall_tool("slow_task", {"seconds": 3600}, timeout=1.5)))
        if awaited
        else (lambda: modern.call_tool("slow_task", {"seconds": 3600}, timeout=1.5))
    )
    said = r"slow_task on server 'tasks' did not finish within the call's timeout of 1.5 s; its task \S+ was cancelled"
    with pytest.raises(RequestTimeout, match=said):
        call()
    [record] = client.runtime.tasks.records()
    assert record.status == "cancelled" and record.message == "not finished within 1.5 s"
    cancelled_on_the_server(modern, record)  # tasks/cancel reached it
    assert modern.call_tool("slow_task", {"seconds": 0}).text == "slept 0 s"  # the connection goes on


def test_where_nobody_can_stop_a_call_task_timeout_is_its_deadline(client: Client, modern: Server) -> None:
    """No timeout given and nobody to press Cancel (plain Python without a terminal, as under
    cron): the task_timeout setting ends the wait; a call's own timeout=None waits."""
    client.runtime.interaction = Interaction()  # nobody (on a terminal, Ctrl-C would be there)
    client.settings.task_timeout = 1.0
    with pytest.raises(RequestTimeout, match=r"within task_timeout \(1 s\), the limit where nobody can stop a call"):
        modern.call_tool("slow_task", {"seconds": 3600})
    cancelled_on_the_server(modern, client.runtime.tasks.records()[-1])
    assert modern.call_tool("slow_task", {"seconds": 1.2}, timeout=None).text == "slept 1.2 s"


def test_a_headless_notebook_run_ends_a_task_at_task_timeout(tmp_path: Path) -> None:
    """nbclient (as papermill) runs a notebook nobody watches: a task that stays working
    ends at task_timeout with tasks/cancel sent, and the run goes on to its next cell."""
    cells = [
        "%load_ext mcp_notebook\n%config MCPMagics.task_timeout = 2",
        f"%mcp add tasks -- {' '.join(TASKS_SERVER)}",
        "%mcp call tasks.slow_task seconds=3600",
        "from mcp_notebook import get_client\nprint('SEEN', get_client()['tasks'].call_tool('task_requests').text)",
    ]
    nb = run_headless(cells, tmp_path, allow_errors=True)
    said = "".join(o.get("text", "") + o.get("evalue", "") for o in nb.cells[2].outputs)
    assert "did not finish within task_timeout (2 s)" in said, said
    seen = "".join(o.get("text", "") for o in nb.cells[3].outputs)
    assert "tasks/cancel" in seen.split(), seen


def test_a_legacy_task_past_the_calls_timeout_is_cancelled(client: Client, everything: Server) -> None:
    with pytest.raises(RequestTimeout, match="simulate-research-query on server 'everything' did not finish"):
        everything.call_tool("simulate-research-query", {"topic": "slow"}, timeout=1)
    [record] = client.runtime.tasks.records()
    cancelled_on_the_server(everything, record)


def tasks_server(client: Client, *options: str) -> Server:
    """tests/servers/sdk_tasks.py with options (stdio)."""
    return client.add("tasks", TASKS_SERVER[0], [*TASKS_SERVER[1:], *options])


def requests_seen(server: Server) -> list[str]:
    """The tasks/* requests the server has seen, in order."""
    return server.call_tool("task_requests").text.split()


@pytest.mark.parametrize("eager", ["inline", "bare"])
def test_a_task_created_completed_returns_its_result(client: Client, eager: str) -> None:
    # inline: the created task carries its result; bare: a plain Task, the result left for tasks/get.
    server = tasks_server(client, "--eager", eager)
    assert server.call_tool("slow_task", {"seconds": 0}).text == "slept 0 s"
    [record] = client.runtime.tasks.records()
    assert record.status == "completed"
    assert requests_seen(server) == ([] if eager == "inline" else ["tasks/get"])


def test_a_task_created_asking_is_answered_before_any_poll(client: Client) -> None:
    client.runtime.handlers.elicitation = lambda params: {"action": "accept", "content": {"ok": True}}
    server = tasks_server(client, "--eager", "inline")
    assert server.call_tool("confirm_task", {"item": "a.txt"}).text == "deleted a.txt"
    assert requests_seen(server)[0] == "tasks/update"  # the created task's inputRequests, at once


def test_a_task_asking_what_is_not_a_question_fails_and_is_cancelled(client: Client) -> None:
    server = tasks_server(client, "--ask", "ping")
    with pytest.raises(ProtocolError, match="'ping', which is not a question this client answers"):
        server.call_tool("confirm_task", {"item": "a.txt"})
    [record] = client.runtime.tasks.records()
    assert record.status == "failed" and "not a question" in str(record.message)
    assert requests_seen(server)[-1] == "tasks/cancel"  # it would wait for an answer forever
    assert "tasks/update" not in requests_seen(server)


def test_a_task_nobody_here_can_answer_fails_and_is_cancelled(client: Client) -> None:
    server = tasks_server(client)  # no elicitation handler: nobody to ask
    with pytest.raises(RPCError, match="asked for input and mcp-notebook has no handler for elicitation/create"):
        server.call_tool("confirm_task", {"item": "a.txt"})
    [record] = client.runtime.tasks.records()
    assert record.status == "failed" and "no handler for elicitation/create" in str(record.message)
    assert requests_seen(server)[-1] == "tasks/cancel"


def test_a_task_whose_status_makes_no_sense_fails_and_is_cancelled(client: Client) -> None:
    server = tasks_server(client, "--fail-get", "status")
    with pytest.raises(ProtocolError, match="unknown status 'paused'"):
        server.call_tool("slow_task", {"seconds": 60})
    [record] = client.runtime.tasks.records()
    assert record.status == "failed" and "unknown status 'paused'" in str(record.message)
    assert requests_seen(server) == ["tasks/get", "tasks/cancel"]  # nobody follows it: stopped


def test_a_task_the_server_refuses_to_show_fails_without_a_cancel(client: Client) -> None:
    server = tasks_server(client, "--fail-get", "unknown")
    with pytest.raises(RPCError, match="unknown task"):
        server.call_tool("slow_task", {"seconds": 60})
    [record] = client.runtime.tasks.records()
    assert record.status == "failed" and "unknown task" in str(record.message)
    assert requests_seen(server) == ["tasks/get"]  # the server's own word: nothing to cancel


# -- %mcp tasks ----------------------------------------------------------------------------


def test_mcp_tasks_lists_them() -> None:
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mcp_notebook")
    try:
        shell.run_line_magic("mcp", f"add everything -- {node()} {EVERYTHING} stdio")
        shell.run_line_magic("mcp", f"add tasks -- {' '.join(TASKS_SERVER)}")
        shell.run_line_magic("mcp", "call everything.simulate-research-query topic=tides")
        shell.run_line_magic("mcp", "call tasks.slow_task seconds=0.1")
        frame = shell.run_line_magic("mcp", "tasks")
        assert isinstance(frame, pd.DataFrame) and list(frame.columns) == TASK_COLUMNS
        assert list(frame["tool"]) == ["simulate-research-query", "slow_task"]
        assert list(frame["status"]) == ["completed", "completed"]
        one = shell.run_line_magic("mcp", "tasks tasks")
        assert list(one["server"]) == ["tasks"] and one["created"][0].endswith("Z")
        with pytest.raises(UsageError, match="no server named 'nope'"):
            shell.run_line_magic("mcp", "tasks nope")
    finally:
        shell.run_line_magic("mcp", "remove everything")
        shell.run_line_magic("mcp", "remove tasks")
        shell.run_line_magic("unload_ext", "mcp_notebook")


# -- on a terminal: a status line, Ctrl-C -------------------------------------------------


def t_status(term: Any) -> str:
    """What the server says of the terminal's last task."""
    return str(term.run("c['tasks'].request('tasks/get', {'taskId': t.task_id})['status']")).split()[-1]


def test_a_status_line_on_a_terminal_and_ctrl_c_cancels(tmp_path: Path) -> None:
    term = ipython(tmp_path)
    try:
        term.run("%load_ext mcp_notebook")
        term.run(f"%mcp add tasks -- {' '.join(TASKS_SERVER)}")
        out = term.run("r = %mcp call tasks.slow_task seconds=0.6")
        assert "[tasks.slow_task] task working: step" in out and "HBox(" not in out, out
        term.send("r = %mcp call tasks.slow_task seconds=60")
        term.expect(r"\[tasks\.slow_task\] task working: step 1/3")
        term.child.sendintr()
        assert "KeyboardInterrupt" in term.wait_prompt()
        term.run("import time; from mcp_notebook import get_client; c = get_client()")
        term.run("t = c.runtime.tasks.records()[-1]")
        # A wait with a deadline for the cancel to be acknowledged here, then the server's word.
        term.run("any(t.status == 'cancelled' or time.sleep(0.01) for _ in range(3000))")
        assert t_status(term) == "'cancelled'"
    finally:
        term.close()
