"""Choosing the protocol era against real peers: legacy-only servers (server-everything,
mcp-server-time and mcp-server-git on the 1.x SDK, from the venv scripts/setup makes),
dual-era SDK servers (the demo, mcp-server-time on the 2.x SDK), a modern-only SDK server,
and a server silent before initialize; --protocol, the "protocol" config key, %mcp list
and %mcp status. The era_note says what the probe heard: asserted instead of any timing."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from support.peers import EVERYTHING, ROOT, SERVERS, faulty_cmd, node
from support.processes import free_port, running
from support.shells import in_notebook_folder, line, run
from support.waiting import wait_for

from mcp_notebook import Client, ProtocolError, RPCError, get_client
from mcp_notebook.commands.serverdisplay import ServerStatus
from mcp_notebook.core.config.scopes import user_file
from mcp_notebook.core.config.servers import parse_config
from mcp_notebook.core.session import handshake
from mcp_notebook.errors import ConfigError

LEGACY_BIN = ROOT / ".kernels" / "legacy-servers" / "bin"
DEMO = [sys.executable, "-m", "mcp_notebook.demo"]
MODERN_ONLY = [sys.executable, str(SERVERS / "sdk_modern.py"), "--modern-only"]
LEGACY_ASKED = "legacy asked: initialize, no probe"


@pytest.fixture
def patient_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """A probe that outwaits a slow start on a busy machine: what a server answers to
    server/discover is asserted, not whether it started within the usual 3 s."""
    monkeypatch.setattr(handshake, "PROBE_TIMEOUT", 60.0)


def legacy_server(name: str) -> str:
    path = LEGACY_BIN / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run scripts/setup (it builds .kernels/legacy-servers)")
    return str(path)


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "notes.txt").write_text("hello\n")
    return repo


# -- auto against each kind of peer ----------------------------------------------------------


@pytest.mark.parametrize("which", ["time", "git"])
@pytest.mark.usefixtures("patient_probe")
def test_legacy_python_servers_answer_the_probe_with_an_error(client: Client, which: str, git_repo: Path) -> None:
    # The 1.x SDK answers a server/discover sent before initialize with an error at once:
    # auto goes legacy on that answer, never on a timeout.
    if which == "time":
        server = client.add("time", legacy_server("mcp-server-time"))
        result = server.call_tool("get_current_time", {"timezone": "UTC"})
        assert json.loads(result.text)["timezone"] == "UTC"
    else:
        server = client.add("git", legacy_server("mcp-server-git"))
        result = server.call_tool("git_status", {"repo_path": str(git_repo)})
        assert "notes.txt" in result.text
    assert server.protocol_version == "2025-11-25"
    note = server.era_note or ""
    assert note.startswith("server/discover answered -32") and note.endswith(": legacy"), note
    assert "no answer" not in note


@pytest.mark.usefixtures("patient_probe")
def test_server_everything_stdio_is_legacy(client: Client, everything_cmd: tuple[str, list[str]]) -> None:
    node, args = everything_cmd
    server = client.add("everything", node, args)
    assert server.protocol_version == "2025-11-25"
    assert server.era_note == "server/discover answered -32601: legacy"
    assert server.call_tool("echo", {"message": "hi"}).text == "Echo: hi"


@pytest.mark.parametrize("command", [DEMO, [sys.executable, "-m", "mcp_server_time"]], ids=["demo", "time-2x"])
@pytest.mark.usefixtures("patient_probe")
def test_dual_era_sdk_servers_speak_modern(client: Client, command: list[str]) -> None:
    server = client.add("dual", command[0], command[1:])
    assert server.protocol_version == "2026-07-28"
    assert server.era_note == "server/discover answered: modern"
    assert server.list_tools()


def test_silent_server_connects_legacy_and_a_restart_does_not_probe(client: Client) -> None:
    command, args = faulty_cmd("silent-before-init")
    server = client.add("silent", command, args)
    assert server.protocol_version == "2025-11-25"
    assert (server.era_note or "").startswith("no answer to server/discover in ")
    assert (server.era_note or "").endswith(": legacy")
    # The probe timed out, as it does on such a server: in the history, not as a failure.
    (probe,) = [c for c in client.calls("silent") if c.method == "server/discover"]
    assert probe.outcome.startswith("legacy server (no answer to server/discover in ") and not probe.failed
    assert client.calls("silent", errors=True) == []
    assert wait_for(lambda: "ignoring server/discover before initialize" in server.stderr)
    # Seen legacy: a restart starts with initialize; the new process never sees a probe
    # (its stderr is in order: a probe's line would come before the listing's).
    server.restart()
    assert server.era_note == LEGACY_ASKED
    assert server.call_tool("echo", {"message": "again"}).text == "again"
    server.list_tools(refresh=True)
    assert wait_for(lambda: "listing tools" in server.stderr)
    assert "ignoring" not in server.stderr


def test_a_probe_that_fails_otherwise_is_an_error_in_the_history(client: Client) -> None:
    # Only a legacy server's refusals (-32601, a silence …) are the probe's expected
    # answers; "database down" is a failure, whatever era the handshake then chose.
    command, args = faulty_cmd("discover-fails")
    server = client.add("broken", command, args)
    assert server.era_note == "server/discover answered -32603: legacy"  # the era: as before
    (probe,) = client.calls("broken", errors=True)
    assert probe.method == "server/discover" and probe.failed
    assert "database down" in probe.outcome, probe.outcome
    assert probe.outcome.endswith("; taken for a legacy server (server/discover answered -32603)")


HTTP_PEERS = {
    # server-everything answers a discover without a session with a -32000 error page.
    "everything-http": ("streamableHttp", "mcp", "2025-11-25", "server/discover answered -32000: legacy"),
    "everything-sse": ("sse", "sse", "2025-11-25", "legacy HTTP+SSE (it has no modern form): no probe"),
    "sdk-http": ("sdk", "mcp", "2026-07-28", "server/discover answered: modern"),
}


@pytest.mark.usefixtures("patient_probe")
@pytest.mark.parametrize("peer", list(HTTP_PEERS))
def test_remote_servers_under_auto(client: Client, peer: str) -> None:
    mode, path, version, chosen = HTTP_PEERS[peer]
    port = free_port()
    if mode == "sdk":
        command, env = [sys.executable, str(SERVERS / "sdk_modern.py"), "--http", str(port)], None
    else:
        command, env = [node(), str(EVERYTHING), mode], {"PORT": str(port)}
    with running(command, port, env):
        server = client.add("remote", url=f"http://127.0.0.1:{port}/{path}")
        assert server.protocol_version == version
        assert server.list_tools()
        facts = ServerStatus(server).facts
        assert facts["chosen"] == chosen
        assert facts["protocol"].startswith(version)
        # server-everything's refusal (-32000 on an HTTP 400 page) is a legacy server's: no error.
        assert not [c for c in client.calls("remote", errors=True) if c.method == "server/discover"]
        client.remove("remote")


@pytest.mark.usefixtures("patient_probe")
def test_a_call_after_a_server_upgraded_to_modern_only_follows_the_new_era(client: Client) -> None:
    # A legacy session with server-everything; then, on the same URL, a modern-only server
    # that runs slow_task as a task. The call's listing finds the session gone (404), the
    # new session is modern (initialize refused, probed again): the call is planned in that
    # era, and so its task is followed to its result.
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    with running([node(), str(EVERYTHING), "streamableHttp"], port, {"PORT": str(port)}) as legacy:
        server = client.add("upgraded", url=url)
        assert server.protocol_version == "2025-11-25"
        legacy.kill()
        legacy.wait()
    with running([sys.executable, str(SERVERS / "sdk_tasks.py"), "--http", str(port), "--modern-only"], port):
        result = server.call_tool("slow_task", {"seconds": 0})
        assert server.protocol_version == "2026-07-28"
        assert result.text == "slept 0 s", result


# -- pins --------------------------------------------------------------------------------------


def test_legacy_pin_on_a_modern_only_server_says_what_to_do(client: Client) -> None:
    with pytest.raises(RPCError) as info:
        client.add("modern", MODERN_ONLY[0], MODERN_ONLY[1:], protocol="legacy")
    message = str(info.value)
    assert "\n" not in message and "2026-07-28" in message and "use protocol auto" in message, message
    server = client.add("modern", MODERN_ONLY[0], MODERN_ONLY[1:])  # auto speaks it
    assert server.protocol_version == "2026-07-28"
    assert server.call_tool("add", {"a": 2, "b": 3}).structured == {"result": 5}


def test_modern_pin_on_server_everything_says_what_to_do(client: Client, everything_cmd: tuple[str, list[str]]) -> None:
    node, args = everything_cmd
    with pytest.raises(ProtocolError) as info:
        client.add("everything", node, args, protocol="2026-07-28")
    message = str(info.value)
    assert "\n" not in message and "does not speak protocol 2026-07-28" in message
    assert "use protocol auto" in message


def test_a_pinned_legacy_version_is_spoken(client: Client) -> None:
    server = client.add("demo", DEMO[0], DEMO[1:], protocol="2025-06-18")
    assert server.protocol_version == "2025-06-18"
    assert server.era_note == "2025-06-18 asked: initialize, no probe"
    assert server.call_tool("query_penguins", {"species": "Gentoo", "limit": 1}).structured["count"] == 124


# -- the magics and config files ---------------------------------------------------------------


@pytest.fixture
def ip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    with in_notebook_folder(tmp_path, tmp_path / "user", monkeypatch) as shell:
        yield shell


def test_bad_protocol_is_a_usage_error_naming_the_choices(ip: InteractiveShell) -> None:
    with pytest.raises(UsageError) as info:
        line(ip, f"add demo --protocol 2026 -- {' '.join(DEMO)}")
    message = str(info.value)
    assert "\n" not in message and "--protocol" in message
    assert all(choice in message for choice in ("auto", "legacy", "2026-07-28", "2025-11-25")), message
    with pytest.raises(UsageError, match="no legacy SSE transport"):
        line(ip, "add remote http://127.0.0.1:9/sse --transport sse --protocol 2026-07-28")
    assert "demo" not in get_client() and "remote" not in get_client()


@pytest.mark.usefixtures("patient_probe")
def test_status_and_list_show_the_version_the_era_and_how_it_was_chosen(
    ip: InteractiveShell, everything_cmd: tuple[str, list[str]]
) -> None:
    node, args = everything_cmd
    run(ip, f"%mcp add demo -- {' '.join(DEMO)}")
    run(ip, f"%mcp add everything -- {node} {' '.join(args)}")
    run(ip, f"%mcp add old --protocol legacy -- {' '.join(DEMO)}")
    demo, everything, old = (repr(line(ip, f"status {name}")) for name in ("demo", "everything", "old"))
    assert "2026-07-28 (modern, stateless)" in demo and "server/discover answered: modern" in demo
    assert "2025-11-25 (legacy session)" in everything and "server/discover answered -32601: legacy" in everything
    assert "2025-11-25 (legacy session)" in old and "pinned: legacy" in old
    line(ip, "restart everything")
    assert "spoke legacy at the last connect: not probed again" in repr(line(ip, "status everything"))
    html = line(ip, "status everything")._repr_html_()
    assert "2025-11-25 (legacy session)" in html
    frame = line(ip, "list").set_index("name")
    assert frame.loc["demo", "protocol"] == "2026-07-28"
    assert frame.loc["everything", "protocol"] == "2025-11-25"


def test_config_protocol_key_loads_lists_and_saves(ip: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    later = {"command": "python", "args": DEMO[1:], "protocol": "2025-06-18", "disabled": True}
    Path(".mcp.json").write_text(json.dumps({"mcpServers": {"later": later}}))
    run(ip, "%mcp load --trust")
    # Before it connects, the list shows what it is pinned to.
    assert line(ip, "list").set_index("name").loc["later", "protocol"] == "2025-06-18"
    line(ip, "restart later")
    assert get_client()["later"].protocol_version == "2025-06-18"
    # Saved with --save: the pin only when it is not auto.
    run(ip, f"%mcp add pinned --protocol legacy --save user -- python {' '.join(DEMO[1:])}")
    run(ip, f"%mcp add plain --save user -- python {' '.join(DEMO[1:])}")
    saved = json.loads(user_file().read_text())["mcpServers"]
    assert saved["pinned"]["protocol"] == "legacy"
    assert "protocol" not in saved["plain"]


def test_config_protocol_key_is_checked() -> None:
    configs = parse_config({"mcpServers": {"a": {"url": "https://x.example/mcp", "protocol": "legacy"}}})
    assert configs["a"].protocol == "legacy"
    assert parse_config({"mcpServers": {"a": {"command": "x"}}})["a"].protocol == "auto"
    with pytest.raises(ConfigError, match=r"mcpServers\.a\.protocol: unknown protocol \"2026\"; use auto, legacy"):
        parse_config({"mcpServers": {"a": {"command": "x", "protocol": "2026"}}})
    with pytest.raises(ConfigError, match="no legacy SSE transport"):
        parse_config({"mcpServers": {"a": {"type": "sse", "url": "https://x.example/sse", "protocol": "2026-07-28"}}})


def test_a_tool_that_asks_the_2025_way_says_how_to_connect_it_and_works_after_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The official SDK's server, dual-era, with a tool that asks through ctx.elicit (a
    server-initiated request): on a 2026-07-28 connection the SDK cannot send it, and says
    so in its own words. Our error adds the way out, and %mcp restart --protocol legacy
    takes it."""
    with in_notebook_folder(tmp_path, tmp_path / "user", monkeypatch) as shell:
        run(shell, f"%mcp add booking -- {sys.executable} {SERVERS / 'sdk_modern.py'}")
        server = get_client()["booking"]
        assert server.protocol_version == "2026-07-28"
        with pytest.raises(RPCError) as raised:
            server.call_tool("ask_the_old_way")
        said = str(raised.value)
        assert "no back-channel for server-initiated requests" in said  # the server's own words
        assert "connect booking in that era: %mcp restart booking --protocol legacy" in said
        assert "\n" not in said
        run(shell, "%mcp restart booking --protocol legacy")
        assert server.protocol_version == "2025-11-25" and server.config.protocol == "legacy"
        handlers = get_client().runtime.handlers
        monkeypatch.setattr(handlers, "elicitation", lambda params: {"action": "decline"})
        assert server.call_tool("ask_the_old_way").text == "asked: decline"  # its question reached us
        with pytest.raises(UsageError, match="argument --protocol: invalid choice"):
            run(shell, "%mcp restart booking --protocol 1999")


def test_a_fastmcp_tool_that_asks_the_old_way_says_how_then_works_in_that_era(
    client: Client, capsys: pytest.CaptureFixture[str]
) -> None:
    """fastmcp 4 reports it in the tool's result (isError), not as a JSON-RPC error: the
    result stays as sent, and a line beside it says what to do."""
    server = client.add("fm", sys.executable, [str(SERVERS / "fastmcp_asker.py")])
    assert server.protocol_version == "2026-07-28"
    result = server.call_tool("book_table")
    assert result.is_error and "elicitation via server-initiated requests is unavailable" in result.text
    said = capsys.readouterr().err
    assert "⚠ fm: this tool asks mid-call in the 2025-11-25 way" in said
    assert "%mcp restart fm --protocol legacy" in said and said.count("⚠ fm:") == 1
    server.restart(protocol="legacy")
    assert server.protocol_version == "2025-11-25"
    client.handlers.elicitation = lambda params: {"action": "accept", "content": {"value": "Ada"}}
    assert server.call_tool("book_table", {"day": "Friday"}).text == "booked for Ada Friday"
