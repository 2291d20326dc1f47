"""Bulk calls (``Server.map`` / ``amap``) against real servers: server-everything, the demo
server; faults from tests/servers (a stdio server that hangs, an HTTP server that is busy)
and a real kill of a server process mid-map."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import sys
import threading
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import pandas as pd
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from support.peers import faulty_cmd
from support.processes import free_port, running, serve
from support.shells import run
from support.waiting import wait_for

from mcp_notebook import ApprovalRequest, Client, ToolDenied
from mcp_notebook.core.backoff import Backoff, retryable
from mcp_notebook.errors import ArgumentError, NotSent, RequestTimeout, RPCError, ServerExited
from mcp_notebook.runtime.asking.interaction import ApprovalAnswer, Interaction
from mcp_notebook.runtime.asking.progress import MapProgress
from mcp_notebook.runtime.bulk.rows import CHUNK

SERVERS_DIR = os.path.join(os.path.dirname(__file__), "servers")
DEMO = (sys.executable, ["-m", "mcp_notebook.demo"])


def sums_table(n: int) -> pd.DataFrame:
    """n rows for get-sum; every 97th row's ``a`` is text (the schema wants a number)."""
    a: list[Any] = [i if i % 97 else "not a number" for i in range(n)]
    return pd.DataFrame({"a": a, "b": [1] * n, "ignored": ["x"] * n}, index=pd.RangeIndex(1000, 1000 + n, name="row"))


def test_thousand_rows_keep_their_order_and_errors(everything: Any) -> None:
    table = sums_table(1000)
    out = everything.map("get-sum", table, concurrency=16)
    assert list(out.index) == list(table.index) and out.index.name == "row"  # aligned to the input
    bad = table["a"].map(lambda v: isinstance(v, str))
    assert out["is_error"].tolist() == bad.tolist()
    assert out.loc[bad, "error"].str.startswith("InvalidArguments: ").all()
    good = out[~bad]
    expected = [f"The sum of {a} and 1 is {a + 1}." for a in table.loc[~bad, "a"]]
    assert good["text"].tolist() == expected  # each answer in its own row, whatever order they came in
    assert good["error"].isna().all() and (out["elapsed_s"] >= 0).all()
    assert list(out.columns) == ["text", "is_error", "error", "elapsed_s"]


def test_dicts_columns_mapping_and_constants(everything: Any) -> None:
    rows = [{"x": 1}, {"x": 2}]
    out = everything.map("get-sum", rows, columns={"x": "a"}, b=10)
    assert out["text"].tolist() == ["The sum of 1 and 10 is 11.", "The sum of 2 and 10 is 12."]
    frame = pd.DataFrame({"words": ["hi", "there"]}, index=["p", "q"])
    echoed = everything.map("echo", frame, columns={"words": "message"})
    assert echoed.loc["q", "text"] == "Echo: there"
    with pytest.raises(ArgumentError, match="columns= names"):
        everything.map("echo", frame, columns={"nope": "message"})


def test_structured_fields_become_columns_and_a_generator_is_read_lazily() -> None:
    client = Client()
    produced: list[int] = []

    def species() -> Iterator[dict[str, Any]]:
        for i, name in enumerate(["Adelie", "Gentoo", "Chinstrap"] * 20):
            produced.append(i)
            yield {"species": name}

    seen: list[int] = []

    def watch(progress: MapProgress) -> None:
        seen.append(len(produced) - progress.done)  # rows read ahead of the answers

    try:
        demo = client.add("demo", *DEMO)
        out = demo.map("query_penguins", species(), concurrency=2, limit=1, on_progress=watch)
        assert out["count"].tolist()[:3] == [152, 124, 68]
        assert {"count", "rows", "is_error", "error", "elapsed_s"} <= set(out.columns)
        assert max(seen) <= 3 + 2  # the approval's look-ahead plus the slots: never the whole input
    finally:
        client.close()


def test_blocking_calls_on_another_thread_while_a_map_writes(everything: Any) -> None:
    """A map's requests (gathered and written by the loop) and blocking calls made meanwhile
    on another thread (written there) share the server's stdin: each line arrives whole
    and every answer lands where it belongs."""
    stop = threading.Event()
    answers: list[tuple[int, str]] = []

    def call_meanwhile() -> None:
        i = 0
        while i < 20 or not stop.is_set():
            answers.append((i, everything.call_tool("echo", {"message": f"side {i}"}).text))
            i += 1

    side = threading.Thread(target=call_meanwhile)
    side.start()
    try:
        out = everything.map("echo", pd.DataFrame({"message": [f"row {i}" for i in range(2000)]}), concurrency=32)
    finally:
        stop.set()
        side.join()
    assert not out["is_error"].any() and out["text"].tolist() == [f"Echo: row {i}" for i in range(2000)]
    assert len(answers) >= 20 and all(text == f"Echo: side {i}" for i, text in answers)


def test_records_are_exploded_only_when_asked() -> None:
    client = Client()
    try:
        demo = client.add("demo", *DEMO)
        rows = pd.DataFrame({"species": ["Gentoo", "Emperor", "Adelie"]}, index=pd.Index(["g", "e", "a"], name="ask"))
        kept = demo.map("query_penguins", rows, limit=2)
        assert list(kept.index) == ["g", "e", "a"] and len(kept.loc["g", "rows"]) == 2  # the list in one cell
        out = demo.map("query_penguins", rows, limit=2, explode="rows")
        assert list(out.index) == ["g", "g", "e", "a", "a"] and out.index.name == "ask"  # a row per record
        assert list(out.columns[:3]) == ["count", "species", "island"] and "rows" not in out.columns
        assert out.loc["g", "species"].tolist() == ["Gentoo", "Gentoo"] and out.loc["a", "count"].tolist() == [152, 152]
        assert out.loc["e", "is_error"] and "Emperor" in out.loc["e", "error"]  # a failed row stays, once
        with pytest.raises(
            ArgumentError, match="explode='row' is not a field of its structured result; its fields: count, rows"
        ):
            demo.map("query_penguins", rows, explode="row")
    finally:
        client.close()


def test_names_like_map_s_own_are_kept(client: Client) -> None:
    """Result fields named like the status columns, and parameters named like map's own
    arguments and options (``map_named`` echoes its parameters)."""
    shapes = client.add("shapes", sys.executable, [os.path.join(SERVERS_DIR, "shapes.py")])
    table = pd.DataFrame({"rows": [1, 2]})  # a column for the parameter ``rows``
    every = {"timeout": 3.5, "columns": "c", "retries": 2, "constants": "k"}
    named = shapes.map("map_named", table, constants=every, tool="t", retries=0)  # retries=0: the option
    assert named[["tool", "rows", "timeout", "columns", "retries", "constants"]].values.tolist() == [
        ["t", 1, 3.5, "c", 2, "k"],
        ["t", 2, 3.5, "c", 2, "k"],
    ]
    with pytest.raises(ArgumentError, match="tool given both in constants= and as a keyword"):
        shapes.map("map_named", table, constants={"tool": "a"}, tool="b")
    with pytest.raises(ArgumentError, match=r"rows is a Series; give a DataFrame.*to_frame"):
        shapes.map("map_named", table["rows"])
    answer = {"error": "none here", "n": 0, "items": [{"n": 1, "error": "x", "k": "a"}, {"n": 2}], "elapsed_s": 9}
    out = shapes.map("echo_fields", [{"fields": answer}, {"fields": {"items": []}}])
    assert list(out.columns) == ["result_error", "n", "items", "result_elapsed_s", "is_error", "error", "elapsed_s"]
    assert out.loc[0, "result_error"] == "none here" and out.loc[0, "result_elapsed_s"] == 9
    assert not out["is_error"].any() and out["error"].isna().all()
    flat = shapes.map("echo_fields", [{"fields": answer}, {"fields": {"items": []}}], explode="items")
    assert list(flat.index) == [0, 0, 1]  # an empty list: one row, its record columns empty
    assert list(flat.columns[:5]) == ["result_error", "n", "items.n", "items.error", "k"]  # clashes: field.key
    assert flat["items.n"].tolist()[:2] == [1, 2] and flat["n"].tolist()[:2] == [0, 0]
    assert flat["items.error"].tolist()[0] == "x" and flat["error"].isna().all()


def test_cancel_midway_returns_the_partial_frame(everything: Any) -> None:
    table = pd.DataFrame({"a": range(1000), "b": 1})
    progress: list[MapProgress] = []

    def cancel_after_100(p: MapProgress) -> None:
        progress.append(p)
        if p.done == 100:
            p.cancel()

    out = everything.map("get-sum", table, concurrency=8, on_progress=cancel_after_100)
    assert len(out) == len(table) and list(out.index) == list(table.index)
    done = out[out["error"].isna()]
    assert len(done) >= 100 and not done["is_error"].any()
    rest = out[out["error"].notna()]
    assert len(rest) > 500 and (rest["error"] == "cancelled").all()
    assert progress[-1].cancelled


class Counted:
    """Rows of known length that count how many were read (a list would not tell)."""

    def __init__(self, rows: list[Any]) -> None:
        self.rows, self.read = rows, 0

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[Any]:
        for row in self.rows:
            self.read += 1
            yield row


class Converted(os.PathLike[str]):
    """A cell value that counts its conversions to JSON (a path: its text)."""

    count = 0

    def __fspath__(self) -> str:
        Converted.count += 1
        return "x"


def test_rows_follow_a_tool_schema_changed_mid_map(client: Client) -> None:
    # tool_000 called with x=3 changes its own schema (it now needs "y") and says so before
    # it answers: the rows after it are checked against the new schema, not the one the map
    # started with (one at a time, so "after" is well defined).
    server = client.add("paged", sys.executable, [os.path.join(SERVERS_DIR, "paged_server.py"), "3"], protocol="legacy")
    out = server.map("tool_000", pd.DataFrame({"x": range(6)}), concurrency=1)
    assert out["text"].tolist()[:4] == [f"tool_000({x})" for x in range(4)]
    assert not out["is_error"][:4].any()
    assert out["is_error"][4:].all()
    assert all("InvalidArguments" in e and "'y'" in e for e in out["error"][4:]), out["error"].tolist()
    # Given its new parameter, a row goes through again.
    assert server.map("tool_000", [{"x": 7, "y": "z"}])["text"].tolist() == ["tool_000(7)"]


def test_a_wide_map_with_a_big_row_is_written_whole(everything: Any) -> None:
    # 1,500 rows sent in one turn of the loop (more messages than one writev takes) and a
    # 2 MB row among them (far more than the pipe holds): every row arrives intact.
    messages = [f"row {i}" for i in range(1500)]
    messages[700] = "x" * 2_000_000
    out = everything.map("echo", pd.DataFrame({"message": messages}), concurrency=1500)
    assert not out["is_error"].any()
    assert out["text"].tolist() == [f"Echo: {m}" for m in messages]


def test_a_bad_row_is_that_rows_error(everything: Any) -> None:
    out = everything.map("echo", [{"message": "a"}, 5, {"message": "c"}, "text"], concurrency=2)
    assert out["is_error"].tolist() == [False, True, False, True]  # the rows around it ran
    assert out.loc[0, "text"] == "Echo: a" and out.loc[2, "text"] == "Echo: c"
    assert out.loc[1, "error"] == "ArgumentError: map over 'echo': row 1 is a int, not a dict"
    assert out.loc[3, "error"] == "ArgumentError: map over 'echo': row 3 is a str, not a dict"


def test_an_iterator_that_fails_ends_the_map_with_the_rows_so_far(everything: Any) -> None:
    db = sqlite3.connect(":memory:")  # made on this thread: its cursors cannot be read on another
    db.execute("create table t (m text)")
    db.executemany("insert into t values (?)", [(f"m{i}",) for i in range(10)])
    out = everything.map("echo", ({"message": m} for (m,) in db.execute("select m from t")), concurrency=2)
    # The first rows are read here (shown for approval); the next one, on the loop's thread, fails.
    assert out["text"].tolist()[:3] == ["Echo: m0", "Echo: m1", "Echo: m2"] and len(out) == 4
    error = out.loc[3, "error"]
    assert out.loc[3, "is_error"] and "\n" not in error
    assert error.startswith("ArgumentError: map over 'echo': reading row 3 failed (ProgrammingError: SQLite")
    assert error.endswith("pass a list or a DataFrame instead (list(rows))")


def test_rows_not_sent_are_marked_cancelled_without_reading_them(client: Client) -> None:
    server = client.add("faulty", *faulty_cmd("ok"))
    started: list[MapProgress] = []

    def cancel_when_two_hang(count: int) -> None:
        wait_for(lambda: bool(started) and server.stderr.count("hanging on request") >= count)
        started[-1].cancel()

    # A list with a bad row after the cancel: the rest is marked from the index alone.
    rows = Counted([{}] * 4 + [5] + [{}] * 995)
    canceller = threading.Thread(target=cancel_when_two_hang, args=(2,))
    canceller.start()
    out = server.map("hang", rows, concurrency=2, on_progress=started.append)
    canceller.join()
    assert len(out) == 1000 and (out["error"] == "cancelled").all() and started[-1].finished
    assert rows.read <= 3 + 2  # the approval's look-ahead and the slots: nothing after the cancel
    # A DataFrame: its unsent rows are not converted either (a cancel ends at once, whatever is left).
    frame = pd.DataFrame({"path": [Converted() for _ in range(20_000)]}, index=pd.RangeIndex(5, 20_005, name="n"))
    Converted.count = 0
    canceller = threading.Thread(target=cancel_when_two_hang, args=(4,))
    canceller.start()
    out = server.map("hang", frame, concurrency=2, on_progress=started.append)
    canceller.join()
    assert len(out) == 20_000 and list(out.index[-2:]) == [20_003, 20_004] and (out["error"] == "cancelled").all()
    assert Converted.count <= CHUNK  # the chunk being read (a thousand rows), not the 20,000 left


def test_cancel_tells_the_server_about_calls_in_flight(client: Client) -> None:
    server = client.add("faulty", *faulty_cmd("ok"))
    started: list[MapProgress] = []

    def cancel_when_three_hang() -> None:
        wait_for(lambda: bool(started) and server.stderr.count("hanging on request") >= 3)
        started[0].cancel()  # as the Cancel button does, from another thread

    canceller = threading.Thread(target=cancel_when_three_hang)
    canceller.start()
    out = server.map("hang", [{}] * 10, concurrency=3, on_progress=started.append)
    canceller.join()
    assert len(out) == 10 and (out["error"] == "cancelled").all()
    assert wait_for(lambda: server.stderr.count("cancelled ") >= 3), server.stderr
    assert server.call_tool("echo", {"message": "still here"}).text == "still here"


def test_on_error_raise_ends_the_map_at_the_first_failed_row(client: Client) -> None:
    server = client.add("faulty", *faulty_cmd("ok"))
    rows = [{}, {}, {"fail": "row 2 is bad"}, {}, {}]  # rows 0 and 1 hang; row 2 fails at once
    with pytest.raises(RPCError, match=r"^row 2 is bad \(code -32000\)$"):
        server.map("hang", rows, concurrency=3, on_error="raise")
    assert wait_for(lambda: server.stderr.count("cancelled ") >= 2), server.stderr  # the calls in flight
    assert server.stderr.count("hanging on request") == 2  # rows after the failure were never sent
    assert server.call_tool("echo", {"message": "still here"}).text == "still here"


def test_cancelling_an_awaited_map_cancels_its_calls(client: Client) -> None:
    server = client.add("faulty", *faulty_cmd("ok"))

    async def main() -> None:
        task = asyncio.ensure_future(server.amap("hang", [{}] * 10, concurrency=2))
        hanging = await asyncio.to_thread(wait_for, lambda: server.stderr.count("hanging on request") >= 2)
        assert hanging
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert wait_for(lambda: server.stderr.count("cancelled ") >= 2), server.stderr


def test_a_server_killed_midway_ends_the_map(everything_cmd: tuple[str, list[str]], client: Client) -> None:
    server = client.add("victim", *everything_cmd)
    pid = server.pid
    assert pid is not None

    def kill_after_50(p: MapProgress) -> None:
        if p.done == 50:
            os.kill(pid, signal.SIGKILL)

    table = pd.DataFrame({"message": [f"m{i}" for i in range(1000)]})
    out = server.map("echo", table, concurrency=8, on_progress=kill_after_50)  # returns: no hang
    assert len(out) == 1000 and list(out.index) == list(range(1000))
    ok = out[~out["is_error"]]
    assert len(ok) >= 50 and (ok["text"] == "Echo: " + table.loc[ok.index, "message"]).all()
    failed = out[out["is_error"]]
    assert len(failed) > 0 and failed["error"].str.contains("exited").all(), failed["error"].unique()[:3]


def test_a_map_over_a_server_that_died_before_it_marks_every_row(client: Client) -> None:
    server = client.add("dead", *faulty_cmd("ok"))
    with pytest.raises(ServerExited):
        server.call_tool("die")  # the process exits mid-call; the call says so once the exit is seen
    # Its tools' listing is still cached: the map gets as far as its rows, and each says why.
    out = server.map("echo", [{"message": f"m{i}"} for i in range(5)], concurrency=2)
    assert len(out) == 5 and out["is_error"].all()
    assert out["error"].str.contains("NotConnected: server 'dead' is not connected: ").all(), list(out["error"])
    assert out["error"].str.contains("code 3").all(), list(out["error"])  # how it ended


def test_each_row_sent_through_a_closed_session_gets_its_own_error(client: Client) -> None:
    server = client.add("dies", *faulty_cmd("ok"))
    link = server.connection.steady()  # what a map's rows go through: over stdio, the open session
    with pytest.raises(ServerExited):
        server.call_tool("die")

    async def row() -> Any:
        return await link.request("tools/call", {"name": "echo", "arguments": {}}, None, None)

    errors = []
    for _ in range(2):
        with pytest.raises(ServerExited) as info:
            client.runtime.run(row())
        errors.append(info.value)
    # One exception shared by every row would gather each row's traceback (a map's thousands).
    assert errors[0] is not errors[1]
    assert all(str(e).startswith("tools/call: ") and "code 3" in str(e) for e in errors), errors


class Asks(Interaction):
    """Answers approvals as a person would, and keeps what it was asked."""

    def __init__(self, answer: ApprovalAnswer) -> None:
        self.answer = answer
        self.asked: list[ApprovalRequest] = []

    def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request)
        return self.answer


def test_a_destructive_tool_asks_once_per_map() -> None:
    for answer, runs in (("deny", False), ("approve", True)):
        asks = Asks(answer)
        client = Client(interaction=asks)
        try:
            demo = client.add("demo", *DEMO)
            rows = pd.DataFrame({"species": ["Adelie", "Gentoo", "Chinstrap", "Adelie"]})
            if not runs:
                with pytest.raises(ToolDenied, match="was denied; nothing was sent"):
                    demo.map("delete_penguins", rows)
                assert demo.call_tool("query_penguins", {"species": "Adelie"}).structured["count"] == 152
            else:
                out = demo.map("delete_penguins", rows, concurrency=1)
                assert out["result"].str.startswith("deleted").all()  # its structured {"result": ...}
            assert len(asks.asked) == 1
            request = asks.asked[0]
            assert request.rows == 4 and request.examples[0] == {"species": "Adelie"} and len(request.examples) == 3
            assert "for 4 rows" in request.describe()
        finally:
            client.close()


def test_headless_policy_applies_once_to_a_map(capfd: pytest.CaptureFixture[str]) -> None:
    client = Client()  # ConsoleInteraction; pytest's stdin is not a terminal: headless
    try:
        demo = client.add("demo", *DEMO)
        with pytest.raises(ToolDenied, match="nobody can answer here"):
            demo.map("delete_penguins", [{"species": "Adelie"}] * 5)
        client.interaction.headless_approval = "allow"
        out = demo.map("delete_penguins", [{"species": "Gentoo"}] * 5)
        assert not out["is_error"].any()
        assert capfd.readouterr().err.count("headless policy: allow") == 1
    finally:
        client.close()


@pytest.fixture(scope="module")
def busy_http() -> Iterator[str]:
    port = free_port()
    with running([sys.executable, os.path.join(SERVERS_DIR, "faulty_http.py"), str(port)], port):
        yield f"http://127.0.0.1:{port}"


def counts(base: str) -> dict[str, int]:
    with urllib.request.urlopen(f"{base}/ok/counts") as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


class Waits:
    """A Backoff's sleep that keeps the delays asked for and waits none of them (a test
    needs no clock); ``then`` runs at the first one."""

    def __init__(self, then: Callable[[], object] | None = None) -> None:
        self.asked: list[float] = []
        self.then = then

    async def __call__(self, seconds: float) -> None:
        self.asked.append(seconds)
        if self.then is not None:
            then, self.then = self.then, None
            await asyncio.to_thread(then)


def test_busy_server_answers_are_retried_after_their_retry_after(busy_http: str, client: Client) -> None:
    server = client.add("busy", url=f"{busy_http}/busy/mcp", transport="http")
    waits = Waits()
    out = server.map("echo", [{"key": "a"}, {"key": "b"}], retries=2, backoff=Backoff(sleep=waits))
    assert out["text"].tolist() == ["fine", "fine"] and not out["is_error"].any()
    assert counts(busy_http)["busy:a"] == 3 and counts(busy_http)["busy:b"] == 3  # 503, 429, then fine
    # Each row waited what the server asked: 7 s after the plain 503, 5 s after the 429 that
    # carried a JSON-RPC error (not a random backoff of at most a second).
    assert sorted(waits.asked) == [5.0, 5.0, 7.0, 7.0]
    once = server.map("echo", [{"key": "c"}], retries=1, backoff=Backoff(sleep=Waits()))
    assert once["is_error"].all() and once["error"].str.contains("rate limited").all()


def test_a_row_cancelled_while_it_waits_to_retry_is_cancelled(busy_http: str, client: Client) -> None:
    """Cancel while a refused row waits for its backoff: the row says cancelled, never ok."""
    server = client.add("busy", url=f"{busy_http}/busy/mcp", transport="http")
    progress: list[MapProgress] = []

    async def cancel_then_wait(seconds: float) -> None:
        progress[0].cancel()
        await asyncio.Event().wait()  # until the cancel reaches this row

    out = server.map("echo", [{"key": "w"}], retries=2, backoff=Backoff(sleep=cancel_then_wait),
                     on_progress=lambda p: progress.append(p) if not progress else None)  # fmt: skip
    assert out["is_error"].tolist() == [True] and out["error"].tolist() == ["cancelled"]


def test_a_row_json_cannot_hold_is_that_rows_error(everything: Any) -> None:
    rows = [{"message": "a"}, {"message": {(1, 2): 3}}, {"message": "c"}]  # a tuple key (groupby's to_dict)
    out = everything.map("echo", rows)
    assert out["is_error"].tolist() == [False, True, False]
    assert out["error"][1].startswith("ArgumentError: map over 'echo': row 1 cannot be sent as JSON")
    table = pd.DataFrame({"message": ["a", {(1, 2): 3}, "c"]}, index=["x", "y", "z"])
    framed = everything.map("echo", table)
    assert framed["is_error"].tolist() == [False, True, False] and "row y cannot be sent" in framed["error"]["y"]


def test_a_legacy_sse_busy_answer_is_retried_after_its_retry_after(busy_http: str, client: Client) -> None:
    server = client.add("busy-sse", url=f"{busy_http}/busy-sse/sse", transport="sse")
    waits = Waits()
    out = server.map("echo", [{"key": "a"}, {"key": "b"}], retries=1, backoff=Backoff(sleep=waits))
    assert out["text"].tolist() == ["fine", "fine"] and not out["is_error"].any()
    assert counts(busy_http)["busy-sse:a"] == 2 and waits.asked == [7.0, 7.0]


def test_a_call_never_sent_is_retried_for_any_tool(busy_http: str, client: Client, tmp_path: Any) -> None:
    """Connection refused: the request never left, so even a tool not annotated idempotent
    (faulty_http's ``echo``) goes again. The server sits behind a proxy that is stopped
    before the map and started again at the backoff's first wait."""
    port = free_port()
    proxy = [sys.executable, os.path.join(SERVERS_DIR, "recording_proxy.py"), str(port), f"{busy_http}/ok/mcp"]
    proxy.append(str(tmp_path / "log"))
    with running(proxy, port):
        server = client.add("behind", url=f"http://127.0.0.1:{port}/mcp", transport="http")
        server.list_tools()  # the map needs no listing then
    started: list[Any] = []
    waits = Waits(lambda: started.append(serve(proxy, port)))
    try:
        out = server.map("echo", [{"message": "m"}], retries=1, backoff=Backoff(sleep=waits))
        assert not out["is_error"].any() and out["text"].tolist() == ["fine"], out["error"].tolist()
        assert len(waits.asked) == 1 and len(started) == 1
        # Without retries it is the row's error, one line, saying what happened.
        for proc in started:
            proc.kill()
            proc.wait()
        failed = server.map("echo", [{"message": "m"}])
        assert failed["error"].str.startswith("NotSent: cannot reach http://127.0.0.1").all()
    finally:
        for proc in started:
            proc.kill()
            proc.wait()


def test_what_is_retried() -> None:
    from mcp_notebook.core.transports import HttpStatusError

    busy = HttpStatusError("busy", 503, retry_after=2.0)
    assert retryable(busy, may_repeat=False)  # refused: it did not run
    assert retryable(NotSent("connection refused"), may_repeat=False)  # never sent
    lost = RequestTimeout("no answer")
    assert not retryable(lost, may_repeat=False) and retryable(lost, may_repeat=True)
    assert not retryable(ServerExited("gone"), may_repeat=True)
    assert retryable(RPCError(-32000, "overloaded", http_status=429), may_repeat=False)
    assert not retryable(RPCError(-32602, "bad params"), may_repeat=True)  # the server answered: it ran
    for permanent in (400, 401, 403, 404, 307):  # the same request gets the same answer
        assert not retryable(HttpStatusError("no", permanent), may_repeat=True)
    failed = HttpStatusError("internal error", 500)  # it may have run
    assert not retryable(failed, may_repeat=False) and retryable(failed, may_repeat=True)
    backoff = Backoff(base=1.0, cap=10.0, rng=lambda: 1.0)
    assert [backoff.delay(n) for n in range(5)] == [1.0, 2.0, 4.0, 8.0, 10.0]
    assert backoff.delay(0, retry_after=3.0) == 3.0


@pytest.fixture
def shell(everything_cmd: tuple[str, list[str]]) -> Iterator[InteractiveShell]:
    ip = InteractiveShell.instance()
    run(ip, "%load_ext mcp_notebook")
    node, args = everything_cmd
    run(ip, f"%mcp add everything -- {node} {' '.join(args)}")
    yield ip
    run(ip, "%mcp remove everything")
    run(ip, "%unload_ext mcp_notebook")


def test_map_magic(shell: InteractiveShell) -> None:
    assert shell.user_ns is not None
    shell.user_ns["df"] = pd.DataFrame({"a": [1, 2, 3], "other": ["x", "y", "z"]}, index=["r1", "r2", "r3"])
    out = run(shell, "%mcp map everything.get-sum $df --concurrency 2 --retries 1 --timeout 30 b=10 -o sums")
    assert out["text"].tolist() == [f"The sum of {a} and 10 is {a + 10}." for a in (1, 2, 3)]
    assert list(out.index) == ["r1", "r2", "r3"] and shell.user_ns["sums"] is out
    shell.user_ns["column"] = shell.user_ns["df"]["a"]
    # key=value pairs are parameters whatever their names; --timeout is the option.
    run(shell, f"%mcp add shapes -- {sys.executable} {os.path.join(SERVERS_DIR, 'shapes.py')}")
    try:
        named = run(shell, "%mcp map shapes.map_named $df --timeout 30 timeout=3 tool=t rows=2 retries=1")
        assert named[["tool", "rows", "timeout", "retries"]].values.tolist() == [["t", 2, 3.0, 1]] * 3
    finally:
        run(shell, "%mcp remove shapes")
    for bad, why in [
        ("%mcp map everything.get-sum", "give SERVER.TOOL and \\$ROWS"),
        ("%mcp map everything.get-sum $df --concurrency lots", "--concurrency takes a number"),
        ("%mcp map everything.get-sum $df --fast", "unknown option"),
        ("%mcp map everything.get-sum $nothing", "no variable 'nothing'"),
        ("%mcp map everything.get-sum $column", "is a Series; give a DataFrame"),
        ("%mcp map everything.get-sum $df --concurrency 0", "at least 1"),
        ("%mcp map everything.get-sum $df --explode", "--explode takes the name of a field"),
        ("%mcp map everything.get-structured-content $df --explode wind", "explode='wind' is not a field"),
    ]:
        with pytest.raises((UsageError, ArgumentError), match=why):
            shell.run_line_magic("mcp", bad[len("%mcp ") :])


def test_ctrl_c_returns_the_frame_so_far(client: Client) -> None:
    server = client.add("faulty", *faulty_cmd("ok"))

    def interrupt_when_two_hang() -> None:
        wait_for(lambda: server.stderr.count("hanging on request") >= 2)
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C

    interrupter = threading.Thread(target=interrupt_when_two_hang)
    interrupter.start()
    out = server.map("hang", [{}] * 6, concurrency=2)
    interrupter.join()
    assert len(out) == 6 and (out["error"] == "cancelled").all()
    assert wait_for(lambda: server.stderr.count("cancelled ") >= 2), server.stderr


def test_an_integer_field_with_a_failed_row_stays_integer() -> None:
    """A failed row leaves its fields missing: the count column is Int64 with <NA>, not floats."""
    import sys

    from mcp_notebook import Client

    client = Client()
    try:
        demo = client.add("demo", sys.executable, ["-m", "mcp_notebook.demo"])
        rows = [{"species": "Gentoo"}, {"species": "Emperor"}, {"species": "Adelie"}]
        frame = demo.map("query_penguins", rows, limit=1)
        assert str(frame["count"].dtype) == "Int64"
        assert frame["count"].tolist()[0] == 124 and frame["is_error"].tolist() == [False, True, False]
    finally:
        client.close()


def test_a_map_s_log_lines_name_their_row_over_http(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    """Over Streamable HTTP a log message comes on its call's own reply stream, so a map's
    log line says which row it is about; over stdio nothing says, so no row is named."""
    assert shell.user_ns is not None
    shell.user_ns["fits"] = pd.DataFrame({"epochs": [1, 2, 3]}, index=["a", "b", "c"])
    port = free_port()
    with running([sys.executable, "-m", "mcp_notebook.demo", "--http", str(port)], port):
        run(shell, f"%mcp add web http://127.0.0.1:{port}/mcp")
        run(shell, f"%mcp add local -- {sys.executable} -m mcp_notebook.demo")
        try:
            for name in ("web", "local"):
                run(shell, f"%mcp loglevel {name} info")  # a modern server logs only when asked
            capsys.readouterr()
            out = run(shell, "%mcp map web.fit_model $fits seconds_per_epoch=0.01 --concurrency 3")
            assert out["is_error"].tolist() == [False] * 3
            lines = sorted(line for line in capsys.readouterr().out.splitlines() if line.startswith("[web info]"))
            assert lines == [
                "[web info] row a: epoch 1: loss 0.500",
                "[web info] row b: epoch 1: loss 0.500",
                "[web info] row b: epoch 2: loss 0.333",
                "[web info] row c: epoch 1: loss 0.500",
                "[web info] row c: epoch 2: loss 0.333",
                "[web info] row c: epoch 3: loss 0.250",
            ]
            run(shell, "%mcp map local.fit_model $fits seconds_per_epoch=0.01 --concurrency 3")
            lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[local info]")]
            assert len(lines) == 6 and not any("row" in line for line in lines), lines
        finally:
            run(shell, "%mcp remove web")
            run(shell, "%mcp remove local")
