"""The request history (%mcp history), its exported replay script, and each server's
transcript (%mcp transcript), against the demo server, server-everything and a hostile
server, over stdio and Streamable HTTP."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tracemalloc
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from IPython.core.error import UsageError
from support.peers import ROOT, faulty_cmd, node
from support.processes import free_port, running
from support.shells import extension_loaded, line

from mcp_notebook import Client, Handlers, Server, get_client
from mcp_notebook.core.history.calls import Call
from mcp_notebook.core.history.replay import env_name
from mcp_notebook.core.session import handshake
from mcp_notebook.errors import RequestTimeout

SERVERS = Path(__file__).resolve().parent / "servers"
EVERYTHING = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"
SECRET = "s3cret-value-that-must-not-leak"


@pytest.fixture(scope="module")
def demo(module_client: Client) -> Server:
    return module_client.add("demo", sys.executable, ["-m", "mcp_notebook.demo"], env={"DEMO_API_TOKEN": SECRET})


def test_each_request_is_recorded_with_its_outcome(module_client: Client, demo: Server) -> None:
    demo.list_tools()  # (a request too: listed first, so that what follows is only the calls)
    module_client.runtime.history.clear()
    ok = demo.call_tool("query_penguins", {"species": "Gentoo", "limit": 2})
    demo.call_tool("query_penguins", {"species": "Nope"}, validate=False)  # the server says it failed
    with pytest.raises(Exception, match="Unknown resource"):
        demo.read_resource("penguins://nope")
    frame = module_client.history("demo")
    assert list(frame["method"]) == ["tools/call", "tools/call", "resources/read"], frame
    assert list(frame["name"]) == ["query_penguins", "query_penguins", "penguins://nope"]
    assert frame["arguments"][0] == {"species": "Gentoo", "limit": 2}
    assert frame["outcome"][0] == "ok"
    assert frame["outcome"][1].startswith("tool error: ")
    assert "Unknown resource: penguins://nope" in frame["outcome"][2]
    assert frame["bytes_in"][0] > len(ok.text) and frame["bytes_out"][0] > 0
    assert (frame["duration"] >= 0).all()
    assert str(frame["time"].dtype).startswith("datetime64")
    errors = module_client.history(errors=True)
    assert list(errors["outcome"].str.slice(0, 5)) == ["tool ", "RPCEr"]
    assert list(module_client.history(last=1)["method"]) == ["resources/read"]


def test_big_values_are_elided_and_secret_arguments_hidden(module_client: Client, demo: Server) -> None:
    module_client.runtime.history.clear()
    long = "x" * 5000
    arguments = {"species": "Gentoo", "api_key": SECRET, "options": [{"token": SECRET}], "note": long}
    assert not demo.call_tool("query_penguins", arguments, validate=False).is_error  # it ignores the extras
    row = module_client.history().iloc[-1]
    assert row["arguments"]["api_key"] == "***" and row["arguments"]["options"] == [{"token": "***"}]
    script = module_client.export_history()
    assert SECRET not in script
    assert f"'api_key': os.environ[{env_name('demo', 'api_key')!r}]" in script
    assert f"'options': [{{'token': os.environ[{env_name('demo', 'token')!r}]}}]" in script
    assert len(row["arguments"]["note"]) < 300 and "5000 characters" in row["arguments"]["note"]
    transcript = module_client.transcript("demo", last=2)
    for text in (repr(module_client.history()), module_client.history()._repr_html_(), repr(transcript),
                 transcript._repr_html_(), repr(module_client.calls())):  # fmt: skip
        assert SECRET not in text
    assert "5000 characters" in transcript["payload"].iloc[0]


def _results(server: Server) -> list[str]:
    """Three calls of each kind a script replays; their texts, in order."""
    return [
        server.call_tool("query_penguins", {"species": "Adelie", "limit": 1}).text,
        server.read_resource("penguins://about").text,
        server.get_prompt("explore", {"question": "how heavy?"}).text,
        server.call_tool("summarize_penguins", {}).text,
    ]


def test_an_exported_script_replays_the_calls_outside_the_notebook(
    module_client: Client, demo: Server, tmp_path: Path
) -> None:
    module_client.runtime.history.clear()
    texts = _results(demo)
    with pytest.raises(Exception, match="Unknown resource"):
        demo.read_resource("penguins://nope")  # failed: not replayed
    path = tmp_path / "replay.py"
    script = module_client.export_history(path)
    assert SECRET not in script and path.read_text() == script
    variable = env_name("demo", "DEMO_API_TOKEN")
    assert f"os.environ[{variable!r}]" in script
    env = {**os.environ, "PYTHONPATH": str(ROOT), variable: SECRET}
    out = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == "".join(f"{t}\n" for t in texts)


def test_secret_headers_of_a_remote_server_are_read_from_the_environment(tmp_path: Path) -> None:
    port = free_port()
    client = Client()
    try:
        with running([sys.executable, "-m", "mcp_notebook.demo", "--http", str(port)], port):
            url = f"http://127.0.0.1:{port}/mcp"
            headers = {"Authorization": f"Bearer {SECRET}", "X-Trace": "plain"}
            server = client.add("web", url=url, headers=headers)
            text = server.call_tool("query_penguins", {"species": "Chinstrap", "limit": 1}).text
            script = client.export_history()
            assert SECRET not in script
            assert f"os.environ[{env_name('web', 'Authorization')!r}]" in script and "'X-Trace': 'plain'" in script
            for shown in (repr(client.history()), client.transcript("web")._repr_html_(), repr(client.calls())):
                assert SECRET not in shown
            path = tmp_path / "replay.py"
            path.write_text(script)
            env = {**os.environ, "PYTHONPATH": str(ROOT), env_name("web", "Authorization"): f"Bearer {SECRET}"}
            out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env, timeout=120)
            assert out.returncode == 0, out.stderr
            assert out.stdout == f"{text}\n"
    finally:
        client.close()


@pytest.fixture(params=["stdio", "http"])
def hostile(request: pytest.FixtureRequest, client: Client) -> Iterator[Server]:
    if request.param == "stdio":
        yield client.add("hostile", sys.executable, [str(SERVERS / "hostile_text.py")])
        return
    proc = subprocess.Popen([sys.executable, str(SERVERS / "hostile_text.py"), "--http"], stdout=subprocess.PIPE,
                            text=True)  # fmt: skip
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().split()[-1])
        yield client.add("hostile", url=f"http://127.0.0.1:{port}/mcp")
    finally:
        proc.kill()
        proc.wait()


def test_a_transcript_interleaves_the_servers_messages_and_escapes_them(client: Client, hostile: Server) -> None:
    hostile.list_tools(refresh=True)
    hostile.call_tool("logs")
    frame = client.transcript("hostile")
    call = frame.index[(frame["method"] == "tools/call")][-1]
    rid = frame["id"][call]
    after = frame.loc[call:]
    reply = after.index[(after["kind"] == "response") & (after["id"] == rid)][0]
    between = frame.loc[call + 1 : reply - 1]
    assert list(between["method"]) == ["notifications/message"] * 3  # the logs, as they came
    assert list(frame["direction"][[call, reply]]) == ["→ sent", "← received"]
    html = frame._repr_html_()
    assert "<img" not in html and "<script" not in html  # the descriptions, logs and results: shown, escaped
    assert "&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)" in html
    assert "\x1b" not in repr(frame) and "\x1b" not in "".join(frame["payload"])


def test_a_servers_request_and_its_answer_sit_between_the_call_and_its_reply() -> None:
    client = Client(handlers=Handlers(elicitation=lambda params: {"action": "decline"}))
    try:
        server = client.add("hostile", sys.executable, [str(SERVERS / "hostile_text.py")])
        assert "decline" in server.call_tool("ask").text
        frame = client.transcript("hostile", last=4)
        assert list(zip(frame["direction"], frame["kind"], frame["method"].fillna(""), strict=True)) == [
            ("→ sent", "request", "tools/call"),
            ("← received", "request", "elicitation/create"),
            ("→ sent", "response", ""),
            ("← received", "response", ""),
        ]
        assert frame["id"].iloc[1] == frame["id"].iloc[2] == "ask-1"
        assert '"action": "decline"' in frame["payload"].iloc[2]
        assert list(client.history("hostile")["method"])[-1] == "tools/call"  # its own requests are not ours
    finally:
        client.close()


def test_an_answer_that_comes_after_its_call_timed_out_is_in_the_transcript() -> None:
    # The call is over (a timeout), so no call shows its answer: the transcript keeps it itself,
    # after the cancel it was told, where it came.
    client = Client()
    try:
        server = client.add("late", sys.executable, [str(SERVERS / "faulty.py"), "ok"])
        with pytest.raises(RequestTimeout):
            server.call_tool("hang", timeout=0.2)
        hung = client.calls("late")[-1]
        assert hung.failed and "RequestTimeout" in hung.outcome
        assert server.call_tool("release").text == "released"  # the server answers the hung call first
        frame = client.transcript("late", last=4)
        rows = list(zip(frame["direction"], frame["kind"], frame["method"].fillna(""), strict=True))
        assert rows == [
            ("→ sent", "notification", "notifications/cancelled"),
            ("→ sent", "request", "tools/call"),
            ("← received", "response", ""),
            ("← received", "response", ""),
        ], rows
        assert frame["id"].iloc[2] == str(hung.message["id"]) and "late answer to" in frame["payload"].iloc[2]
        assert "released" in frame["payload"].iloc[3]
    finally:
        client.close()


def test_each_call_keeps_its_own_answer_whatever_else_the_server_sends() -> None:
    # A malformed answer to an id not yet used, an answer in a batch, a second answer to the
    # same call: the history shows each call the answer its caller got, a big one elided.
    client = Client()
    try:
        server = client.add("odd", sys.executable, [str(SERVERS / "faulty.py"), "ok"])
        assert server.call_tool("ghost").text == "ghost sent"
        assert server.call_tool("batched").text == "batched"
        assert client.calls("odd")[-1].result["content"][0]["text"] == "batched"  # not the GHOST line
        assert server.call_tool("twice").text == "B" * 100_000
        twice = client.calls("odd")[-1]
        assert twice.ok and twice.bytes_in is not None and twice.bytes_in > 100_000
        shown = twice.result["content"][0]["text"]
        assert shown.startswith("BBB") and len(shown) < 1_000  # kept as shown, never whole
        assert server.call_tool("echo", {"message": "after"}).text == "after"  # the second answer took nothing
        payloads = list(client.transcript("odd")["payload"])
        assert any('"second"' in p for p in payloads)  # the second answer is in the transcript, as it came
    finally:
        client.close()


def test_an_answer_with_a_byte_order_mark_is_shown() -> None:
    # JSON readers take a UTF-8 byte-order mark; the history reads the body it kept as the
    # transport did, and a view never raises.
    port = free_port()
    client = Client()
    with running([sys.executable, str(SERVERS / "faulty_http.py"), str(port)], port):
        try:
            server = client.add("bom", url=f"http://127.0.0.1:{port}/ok/mcp", transport="http")
            assert server.call_tool("bom").text == "café"
            (call,) = [c for c in client.calls("bom") if c.name == "bom"]
            assert call.outcome == "ok" and call.result["content"][0]["text"] == "café"
            frame = client.history("bom")
            assert list(frame[frame["name"] == "bom"]["outcome"]) == ["ok"]
            assert "café" in " ".join(client.transcript("bom")["payload"])
        finally:
            client.close()


def test_an_input_required_retry_is_in_the_transcript_and_one_call_in_the_history() -> None:
    answer = {"action": "accept", "content": {"name": "Ada", "party": 4}}
    client = Client(handlers=Handlers(elicitation=lambda params: answer))
    try:
        server = client.add("sdk", sys.executable, [str(SERVERS / "sdk_modern.py")])
        assert server.call_tool("book_table", {"day": "monday"}).text == "booked 4 for Ada monday"
        calls = client.history("sdk")
        assert list(calls["method"])[-1] == "tools/call" and list(calls["outcome"])[-1] == "ok"
        assert (calls["name"] == "book_table").sum() == 1
        frame = client.transcript("sdk")
        sent = frame[(frame["direction"] == "→ sent") & (frame["method"] == "tools/call")]
        assert len(sent) == 2 and sent["id"].nunique() == 2  # the call, then its retry with the answers
        assert "inputResponses" in sent["payload"].iloc[1] and "Ada" in sent["payload"].iloc[1]
    finally:
        client.close()


@pytest.mark.parametrize("mode", ["stdio", "streamableHttp"])
def test_server_everything_history_and_transcript(client: Client, mode: str) -> None:
    def check(server: Server) -> None:
        assert server.call_tool("echo", {"message": "hi"}).text == "Echo: hi"
        calls = client.history(server.name)
        calls = calls[calls["method"] == "tools/call"]  # (it may list its tools again meanwhile)
        assert list(calls["outcome"]) == ["ok"] and calls["arguments"].iloc[0] == {"message": "hi"}
        # Kept as written (a stdio line, an HTTP body), not as the message's dicts; read back when viewed.
        record = [c for c in client.calls(server.name) if c.method == "tools/call"][-1]
        assert isinstance(record.raw_out, bytes) and record.message["params"]["arguments"] == {"message": "hi"}
        assert record.bytes_out == len(json.dumps(record.message, separators=(",", ":")))
        frame = client.transcript(server.name)
        rid = frame[frame["method"] == "tools/call"]["id"].iloc[-1]
        reply = frame[(frame["kind"] == "response") & (frame["id"] == rid)]
        assert "Echo: hi" in reply["payload"].iloc[0] and reply["direction"].iloc[0] == "← received"
        # A big reply is kept as shown (elided), never whole: once the caller lets it go, it is gone.
        big = "x" * 3_000_000
        tracemalloc.start()
        try:
            assert len(server.call_tool("echo", {"message": big}).text) == len("Echo: ") + len(big)
            gc.collect()
            held = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        assert held < 1_000_000
        frame = client.transcript(server.name)
        reply = frame[frame["kind"] == "response"].iloc[-1]
        assert reply["bytes"] > len(big) and "3000006 characters" in str(reply["payload"])
        last = client.history(server.name).iloc[-1]
        assert last["outcome"] == "ok" and last["bytes_in"] > len(big)
        # A key is a server's word (a schema's property): a line break in it ends no comment of
        # the exported script, nor is its code.
        injected = {"message": "hi", "token\nprint('pwned')": "x"}
        assert not server.call_tool("echo", injected, validate=False).is_error
        source = client.export_history()
        assert not any(line.startswith("print('pwned')") for line in source.splitlines()), source
        compile(source, "replay.py", "exec")

    if mode == "stdio":
        check(client.add("everything", node(), [str(EVERYTHING), "stdio"]))
        return
    port = free_port()
    with running([node(), str(EVERYTHING), mode], port, {"PORT": str(port)}):
        check(client.add("everything", url=f"http://127.0.0.1:{port}/mcp"))


def test_the_history_size_bounds_the_rings_and_zero_turns_recording_off(client: Client) -> None:
    client.settings.history_size = 0
    demo = client.add("demo", sys.executable, ["-m", "mcp_notebook.demo"])
    demo.call_tool("query_penguins", {"species": "Gentoo", "limit": 1})
    assert client.calls() == [] and client.transcript("demo").empty
    client.settings.history_size = 3
    client.restart("demo")
    for n in range(1, 6):
        demo.call_tool("query_penguins", {"species": "Gentoo", "limit": n})
    assert [c.params["arguments"]["limit"] for c in client.calls()] == [3, 4, 5]
    assert len(client.transcript("demo")) == 3


def test_the_magics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with extension_loaded() as ip:
        line(ip, f"add hdemo -- {sys.executable} -m mcp_notebook.demo")
        try:
            ip.run_line_magic("config", "MCPMagics.history_size = 50")
            assert get_client().settings.history_size == 50
            get_client()["hdemo"].call_tool("query_penguins", {"species": "Gentoo", "limit": 1})
            frame = line(ip, "history hdemo --last 1")
            assert isinstance(frame, pd.DataFrame) and list(frame["name"]) == ["query_penguins"]
            assert line(ip, "history hdemo --errors").empty  # (the kernel's other servers may have failed calls)
            assert list(line(ip, "transcript hdemo --last 2")["kind"]) == ["request", "response"]
            bad_lines = ["history --last 0", "history --bogus", "history nosuch", "transcript", "history hdemo --clear"]
            for bad in [*bad_lines, "transcript hdemo --last x", "history --export x.py --last 2"]:
                with pytest.raises(UsageError):
                    line(ip, bad)
            path = tmp_path / "again.py"
            assert line(ip, f"history hdemo --export {path}") is None
            assert f"wrote {path}: 1 call to replay" in capsys.readouterr().out
            assert "hdemo.call_tool('query_penguins', {'species': 'Gentoo', 'limit': 1})" in path.read_text()
            assert line(ip, "history --clear") is None and line(ip, "history").empty
            ip.run_line_magic("config", "MCPMagics.history_size = 0")  # off at once, for a live connection too
            get_client()["hdemo"].call_tool("query_penguins", {"species": "Gentoo", "limit": 1})
            assert line(ip, "history").empty
        finally:
            ip.run_line_magic("config", "MCPMagics.history_size = 1000")
            line(ip, "remove hdemo")


def test_an_exported_script_names_each_server_once_and_hides_a_uri_secret() -> None:
    from mcp_notebook.core.config.servers import ServerConfig
    from mcp_notebook.core.history.calls import Call
    from mcp_notebook.core.history.replay import script

    def done(server: str, method: str, params: dict[str, object]) -> Call:
        call = Call(server, {"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        call.duration = 0.1
        call.answer = {"content": []}  # (a result, as the history keeps it)
        return call

    calls = [
        done("a-b", "tools/call", {"name": "t", "arguments": {"x": float("inf"), "y": float("nan")}}),
        done("a_b", "tools/call", {"name": "t", "arguments": {}}),
        done("class", "resources/read", {"uri": f"https://api.example/x.csv?api_key={SECRET}"}),
    ]
    configs = {n: ServerConfig(n, command="python", args=["-m", "mcp_notebook.demo"]) for n in ("a-b", "a_b", "class")}
    source = script(calls, configs)
    compile(source, "replay.py", "exec")  # "class" is no variable's name
    assert SECRET not in source and "os.environ['MCP_CLASS_URI_1']" in source
    assert "float('inf')" in source and "float('nan')" in source
    adds = [line for line in source.splitlines() if "client.add(" in line]
    assert len({line.split(" = ")[0] for line in adds}) == 3  # a-b and a_b: two servers, two names


def test_the_history_keeps_arguments_as_sent(module_client: Client, demo: Server) -> None:
    module_client.runtime.history.clear()
    arguments = {"species": "Gentoo", "limit": 1}
    for limit in (1, 2):
        arguments["limit"] = limit  # one dict, reused
        demo.call_tool("query_penguins", arguments)
    calls = module_client.history("demo")
    assert [a["limit"] for a in calls[calls["method"] == "tools/call"]["arguments"]] == [1, 2]
    with pytest.raises(Exception, match="Unknown resource"):  # a URI's secret: hidden in the history too
        demo.read_resource("penguins://nope?api_key=" + SECRET)
    assert SECRET not in " ".join(map(str, module_client.history("demo")["name"]))
    sent = module_client.transcript("demo")
    sent = sent[sent["direction"] == "→ sent"]  # (the server's error may echo what it was sent)
    assert SECRET not in sent["summary"].str.cat() + sent["payload"].astype(str).str.cat()


def test_a_call_made_while_the_caller_handles_an_error_is_recorded_as_it_ended(
    module_client: Client, demo: Server
) -> None:
    module_client.runtime.history.clear()
    try:
        raise ValueError("the caller's own, handled")
    except ValueError:
        result = demo.call_tool("query_penguins", {"species": "Gentoo", "limit": 1})
    (call,) = [c for c in module_client.calls("demo") if c.method == "tools/call"]
    assert call.outcome == "ok", call.outcome  # not the ValueError, handled before the call began
    assert call.result["content"][0]["text"] == result.text


SQLITE = ROOT / ".kernels" / "legacy-servers" / "bin" / "mcp-server-sqlite"


@pytest.mark.parametrize("peer", ["sqlite", "everything"])
def test_the_era_probe_a_legacy_server_refuses_is_no_error(
    peer: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The client sent the probe, not the user, and its refusal is how the era is told: the
    # history says what it meant, --errors leaves it out, the transcript keeps it whole.
    # The refusal is what is tested, so the probe waits for it: on two busy cores the Python
    # server took over the 3 s a probe waits to start (then silence tells the era instead).
    monkeypatch.setattr(handshake, "PROBE_TIMEOUT", 30.0)
    if peer == "sqlite" and not SQLITE.exists():
        pytest.fail(f"{SQLITE} is missing: run scripts/setup (it installs mcp-server-sqlite)")
    command = f"{SQLITE} --db-path {tmp_path / 'x.db'}" if peer == "sqlite" else f"{node()} {EVERYTHING} stdio"
    with extension_loaded() as ip:
        client = get_client()
        line(ip, "history --clear")
        line(ip, f"add legacy -- {command}")
        try:
            assert client["legacy"].protocol_version == "2025-11-25"
            frame = line(ip, "history legacy")
            probe = frame[frame["method"] == "server/discover"]
            assert len(probe) == 1 and probe["outcome"].iloc[0].startswith("legacy server (server/discover answered -3")
            assert (frame[frame["method"] == "initialize"]["outcome"] == "ok").all()
            assert line(ip, "history legacy --errors").empty
            assert client.history("legacy", errors=True).empty
            assert not any(c.failed for c in client.calls("legacy"))
            shown = line(ip, "transcript legacy")
            assert list(shown["kind"][:3]) == ["request", "error", "request"]
            assert list(shown["method"][:1]) == ["server/discover"]
        finally:
            line(ip, "remove legacy")


class BusyCalls(deque[Call]):
    """The history's calls as another thread's blocking requests append to them (their
    recorder.sent): one after each of ours, and one during every read by iteration."""

    def append(self, call: Call) -> None:
        super().append(call)
        super().append(Call("other", {"jsonrpc": "2.0", "id": 0, "method": "tools/call"}))

    def _appending(self, calls: Iterator[Call]) -> Iterator[Call]:
        for call in calls:
            super().append(Call("other", {"jsonrpc": "2.0", "id": 0, "method": "tools/call"}))
            yield call

    def __iter__(self) -> Iterator[Call]:
        return self._appending(super().__iter__())

    def __reversed__(self) -> Iterator[Call]:
        return self._appending(super().__reversed__())


def test_the_era_probe_is_noted_without_searching_the_history(client: Client) -> None:
    # Searching the shared calls for the probe raced other threads' requests ("deque mutated
    # during iteration" failed the connect): the handshake is handed the probe's call instead.
    client.runtime.history.calls = BusyCalls(maxlen=client.runtime.history.size)
    command, args = faulty_cmd("ok")
    server = client.add("legacy", command, args)
    assert server.era_note == "server/discover answered -32601: legacy"
    history = client.runtime.history
    history.calls = deque(deque.__iter__(history.calls), maxlen=history.size)  # read it quietly now
    (probe,) = [c for c in client.calls("legacy") if c.method == "server/discover"]
    assert probe.outcome == "legacy server (server/discover answered -32601)" and not probe.failed
