"""Faults, with real subprocesses: each gives a one-line error and leaves what can be used usable."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections import Counter
from pathlib import Path

import pytest
from support.kernels import Kernel, text_of
from support.peers import SERVERS, faulty_cmd, node
from support.waiting import WAIT, wait_for

from mcp_notebook import (
    Client,
    Handlers,
    MessageTooLarge,
    NotConnected,
    ProtocolError,
    RequestTimeout,
    Server,
    ServerExited,
    Settings,
    StartupError,
    Status,
)
from mcp_notebook.core.session.session import ClientSession
from mcp_notebook.core.transports.stdio.transport import StdioTransport


def test_a_failed_start_shows_the_lines_that_say_why(client: Client) -> None:
    """Node's "Cannot find module" ends in a stack's tail and a version footer; the error
    shows the line with the cause (the whole stderr stays in server.stderr)."""
    with pytest.raises(StartupError) as info:
        client.add("missing", node(), ["/nonexistent/server.js"])
    message = str(info.value)
    assert "stderr: Error: Cannot find module '/nonexistent/server.js'" in message
    assert "Node.js v" not in message and " at " not in message and "\n" not in message
    assert "Node.js v" in client["missing"].stderr
    with pytest.raises(StartupError, match=r"stderr: .*No module named no_such_mcp_module"):
        client.add("nomodule", sys.executable, ["-m", "no_such_mcp_module"])


def test_garbage_on_stdout_is_skipped_and_kept(client: Client) -> None:
    server = client.add("garbage", *faulty_cmd("garbage"))
    assert server.call_tool("echo", {"message": "still fine"}).text == "still fine"
    assert any("Loading model weights" in line for line in server.diagnostics)


def test_exit_mid_call_fails_pending_at_once_with_stderr(client: Client) -> None:
    server = client.add("dies", *faulty_cmd("ok"))
    with pytest.raises(ServerExited) as info:
        server.call_tool("die", timeout=WAIT)
    message = str(info.value)
    assert "code 3" in message and "segfault in tool handler" in message
    assert "\n" not in message
    assert info.value.returncode == 3
    assert server.status is Status.FAILED
    with pytest.raises(NotConnected, match="restart"):
        server.call_tool("echo", {"message": "x"})
    server.restart()
    assert server.call_tool("echo", {"message": "back"}).text == "back"


def test_exit_mid_call_async(client: Client) -> None:
    server = client.add("dies", *faulty_cmd("ok"))

    async def main() -> None:
        await server.acall_tool("die", timeout=WAIT)

    with pytest.raises(ServerExited, match="code 3"):
        asyncio.run(main())


def test_never_answers_initialize(client: Client) -> None:
    with pytest.raises(StartupError) as info:
        client.add("slow", *faulty_cmd("no-init"), startup_timeout=1)
    message = str(info.value)
    assert "did not answer within 1 s" in message
    assert "still booting" in message and "faulty.py" in message
    assert client["slow"].status is Status.FAILED


def test_crash_at_start_names_the_reason(client: Client) -> None:
    with pytest.raises(StartupError, match=r"exited during startup with code 2.*MY_API_KEY is not set"):
        client.add("crash", *faulty_cmd("crash-at-start"))


def test_unsupported_protocol_version_is_refused(client: Client) -> None:
    with pytest.raises(ProtocolError, match=r"'1999-01-01'.*2025-11-25"):
        client.add("old", *faulty_cmd("bad-version"))


@pytest.mark.parametrize("version", ["2025-06-18", "2025-03-26", "2024-11-05"])
def test_older_protocol_versions_are_accepted(client: Client, version: str) -> None:
    # Offered 2025-11-25; a server that answers an older supported version is used at that one.
    server = client.add(f"v{version[:4]}", *faulty_cmd(f"version={version}"))
    assert server.protocol_version == version
    assert server.call_tool("echo", {"message": "hi"}).text == "hi"


def test_gathered_calls_share_one_listing(client: Client) -> None:
    # Calls gathered before the tool listing is cached need it (validation, approval):
    # they wait for one tools/list together instead of sending one each.
    server = client.add("gather", *faulty_cmd("ok"))

    async def many() -> list[str]:
        results = await asyncio.gather(*(server.acall_tool("echo", {"message": str(i)}) for i in range(20)))
        return [r.text for r in results]

    assert asyncio.run(many()) == [str(i) for i in range(20)]
    assert wait_for(lambda: "listing tools" in server.stderr)  # stderr is read on the loop
    assert server.stderr.count("listing tools") == 1


def test_command_not_found(client: Client) -> None:
    with pytest.raises(StartupError, match=r"command 'no-such-mcp-server' not found"):
        client.add("missing", "no-such-mcp-server", ["--stdio"])


def test_command_not_found_says_only_that() -> None:
    """Not also asyncio's "Unknown child process pid N, will report returncode 255" (the
    launcher that reported the failed exec was reaped behind asyncio's child watcher): it
    came about four times in five, in a fresh process."""
    script = textwrap.dedent("""
        from mcp_notebook import Client
        client = Client()
        for _ in range(5):
            try:
                client.add("missing", "no-such-mcp-server")
            except Exception as e:
                print(type(e).__name__)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=WAIT)
    assert done.stdout.split() == ["StartupError"] * 5, done.stdout + done.stderr
    assert done.stderr == ""


def test_missing_cwd(client: Client, tmp_path: Path) -> None:
    with pytest.raises(StartupError, match="not found"):
        client.add("nowhere", sys.executable, ["-c", "pass"], cwd=tmp_path / "absent")


@pytest.mark.parametrize("tool", ["big", "big_tail"])
def test_oversized_message_fails_that_call_only(tool: str) -> None:
    client = Client(settings=Settings(max_message_size=1 << 20))
    try:
        server = client.add("big", *faulty_cmd("ok"))
        with pytest.raises(MessageTooLarge, match=r"over the 1\.0 MiB limit.*max_message_size"):
            server.call_tool(tool, {"size": 3 << 20}, timeout=WAIT)
        assert server.call_tool("echo", {"message": "after"}).text == "after"
        assert len(server.call_tool(tool, {"size": 1000}).text) == 1000
    finally:
        client.close()


def test_timeout_cancels_on_server_and_keeps_connection(client: Client) -> None:
    server = client.add("hang", *faulty_cmd("ok"))
    with pytest.raises(RequestTimeout, match=r"tools/call to server 'hang' got no answer in 0\.3 s"):
        server.call_tool("hang", timeout=0.3)
    assert wait_for(lambda: "cancelled" in server.stderr)
    assert "timed out" in server.stderr
    assert server.call_tool("echo", {"message": "alive"}).text == "alive"


def test_async_cancel_sends_cancelled(client: Client) -> None:
    server = client.add("hang", *faulty_cmd("ok"))

    async def main() -> None:
        task = asyncio.ensure_future(server.acall_tool("hang"))
        assert await asyncio.to_thread(wait_for, lambda: "hanging on request" in server.stderr)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert wait_for(lambda: "cancelled" in server.stderr and "by the user" in server.stderr)
    assert server.call_tool("echo", {"message": "alive"}).text == "alive"


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="needs the main thread")
def test_keyboard_interrupt_cancels_and_keeps_connection(client: Client) -> None:
    server = client.add("hang", *faulty_cmd("ok"))

    def interrupt() -> None:
        if wait_for(lambda: "hanging on request" in server.stderr):
            os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        server.call_tool("hang", timeout=WAIT)
    assert wait_for(lambda: "cancelled" in server.stderr and "by the user" in server.stderr)
    assert server.call_tool("echo", {"message": "alive"}).text == "alive"


def test_stderr_is_buffered_not_printed(client: Client, capfd: pytest.CaptureFixture[str]) -> None:
    server = client.add("talky", *faulty_cmd("ok"))
    server.call_tool("echo", {"message": "x"})
    assert "faulty server starting" in server.stderr
    out, err = capfd.readouterr()
    assert "faulty server starting" not in out + err


def test_close_stops_the_process(client: Client) -> None:
    server = client.add("ok", *faulty_cmd("ok"))
    pid = server.pid
    assert pid is not None
    server.close()
    assert server.status is Status.CLOSED
    assert wait_for(lambda: not _alive(pid))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purpose.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # gone between the two looks (read gives ESRCH)
        return False


def _group_members(pgid: int) -> list[int]:
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                members.append(int(entry))
    return members


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigkill_of_parent_leaves_no_server_behind(tmp_path: Path) -> None:
    # A wrapper (sh) whose child is the real server, as with npx or uvx: the grandchild
    # is beyond a parent-death signal; the reaper must take the whole group.
    script = textwrap.dedent(
        f"""
        import os, sys, time
        sys.path.insert(0, {str(SERVERS.parent)!r})
        from support.peers import faulty_cmd
        from mcp_notebook import Client
        client = Client()
        command, args = faulty_cmd("ok")
        wrapped = client.add("wrapped", "sh", ["-c", " ".join([command, *args]) + "; echo unreachable"])
        direct = client.add("direct", command, args)
        print(os.getpgid(wrapped.pid), os.getpgid(direct.pid), flush=True)
        time.sleep(60)
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert proc.stdout is not None
        groups = [int(p) for p in proc.stdout.readline().split()]
        assert len(groups) == 2
        assert all(_group_members(g) for g in groups)
        assert len(_group_members(groups[0])) >= 2  # sh and its python child (and the launcher)
    finally:
        proc.kill()
        proc.wait()
    assert wait_for(lambda: not any(_group_members(g) for g in groups)), "server processes outlived their parent"


def _escapees(pidfile: Path) -> dict[str, int]:
    """The pids the escaping server wrote (see tests/servers/escaping.py), once all three are there."""
    found: dict[str, int] = {}

    def complete() -> bool:
        found.clear()
        if pidfile.exists():
            found.update((what, int(pid)) for what, pid in (line.split() for line in pidfile.read_text().splitlines()))
        return found.keys() == {"server", "setsid", "daemon"}

    assert wait_for(complete), f"the server did not start its processes: {found}"
    return dict(found)


def _kill_all(pids: dict[str, int]) -> None:
    """Whatever the test found, leave nothing running on the machine."""
    for pid in pids.values():
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _is_subreaper() -> bool:
    import ctypes

    flag = ctypes.c_int()
    ctypes.CDLL(None).prctl(37, ctypes.byref(flag))  # PR_GET_CHILD_SUBREAPER
    return bool(flag.value)


def _survivors(pids: dict[str, int]) -> dict[str, int]:
    return {what: pid for what, pid in pids.items() if _alive(pid)}


@pytest.mark.parametrize("env", [{"LC_CTYPE": "C"}, {"LANG": "C"}])
def test_the_server_gets_the_environment_it_was_given(tmp_path: Path, env: dict[str, str]) -> None:
    """The server sees its locale variables as given, whatever the interpreter that starts
    it does with its own (Python coerces a C locale to C.UTF-8)."""
    seen = tmp_path / "lc_ctype"
    script = f'printf %s "${{LC_CTYPE-unset}}" > {seen}; exec {sys.executable} {SERVERS / "colliding.py"} env echo'
    client = Client()
    try:
        client.add("env", "sh", ["-c", script], env=env)
        assert seen.read_text() == {**os.environ, **env}.get("LC_CTYPE", "unset")
    finally:
        client.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="child subreapers are Linux's")
@pytest.mark.parametrize("how", ["remove", "close", "exit"])
def test_no_process_of_a_server_outlives_its_connection(tmp_path: Path, how: str) -> None:
    """A child in a session of its own and a double-forked daemon, both ignoring SIGTERM:
    beyond any process group, yet gone once the connection is (removed, closed, or the
    server itself exited)."""
    pidfile = tmp_path / "pids"
    client = Client()
    pids: dict[str, int] = {}
    try:
        server = client.add("escaping", sys.executable, [str(SERVERS / "escaping.py"), str(pidfile)])
        pids = _escapees(pidfile)
        assert server.pid == pids["server"]  # the server's own pid, as %mcp status shows it
        assert _survivors(pids) == pids
        assert not _is_subreaper()  # the launcher is; we must not be (we would reap strays)
        if how == "remove":
            client.remove("escaping")
        elif how == "close":
            client.close()
        else:
            os.kill(pids["server"], signal.SIGKILL)
        assert wait_for(lambda: not _survivors(pids)), f"outlived the connection: {_survivors(pids)}"
    finally:
        client.close()
        _kill_all(pids)


@pytest.mark.kernel
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="child subreapers are Linux's")
def test_sigkill_of_the_kernel_leaves_no_process_of_a_server(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    kernel = Kernel(cwd=str(tmp_path))
    pids: dict[str, int] = {}
    try:
        escaping = SERVERS / "escaping.py"
        out = text_of(kernel.run(f"%load_ext mcp_notebook\n%mcp add escaping -- {sys.executable} {escaping} {pidfile}"))
        assert "✓ escaping" in out, out
        pids = _escapees(pidfile)
        assert _survivors(pids) == pids
        pid = kernel.km.provisioner.pid  # type: ignore[union-attr]
        os.kill(pid, signal.SIGKILL)
        assert wait_for(lambda: not _survivors(pids)), f"outlived the kernel: {_survivors(pids)}"
    finally:
        _kill_all(pids)
        kernel.close()


def test_server_to_client_requests(client: Client) -> None:
    server = client.add("asker", *faulty_cmd("ok"))
    pong = json.loads(server.call_tool("ask", {"method": "ping"}).text)
    assert pong["result"] == {}
    # No roots handler was given: the server gets a clear JSON-RPC error, the call goes on.
    refused = json.loads(server.call_tool("ask", {"method": "roots/list"}).text)
    assert refused["error"]["code"] == -32601 and "roots/list" in refused["error"]["message"]


def test_server_cancels_its_own_request(everything_cmd) -> None:  # type: ignore[no-untyped-def]
    started, cancelled = threading.Event(), threading.Event()

    async def elicit(params: dict) -> dict:
        started.set()
        try:
            await asyncio.sleep(WAIT)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return {"action": "decline"}

    client = Client(handlers=Handlers(elicitation=elicit))
    try:
        server = client.add("asker", *faulty_cmd("ok"))
        assert server.call_tool("ask_later").text == "asked s1"
        assert started.wait(WAIT)
        assert server.call_tool("cancel_ask").text == "cancelled it"
        assert cancelled.wait(WAIT)
        assert server.call_tool("echo", {"message": "still here"}).text == "still here"
        assert "reply to s1" not in server.stderr  # the spec: no answer to a cancelled request
    finally:
        client.close()


def test_interpreter_exit_closes_servers(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(SERVERS.parent)!r})
        from support.peers import faulty_cmd
        from mcp_notebook import get_client
        server = get_client().add("s", *faulty_cmd("ok"))
        print(server.pid, flush=True)
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=WAIT, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    pid = int(out.stdout.split()[0])
    assert wait_for(lambda: not _alive(pid))


def test_async_timeout_cancels_on_server(client: Client) -> None:
    server = client.add("hang", *faulty_cmd("ok"))

    async def main() -> None:
        await server.acall_tool("hang", timeout=0.3)

    with pytest.raises(RequestTimeout, match=r"0\.3 s"):
        asyncio.run(main())
    assert wait_for(lambda: "timed out" in server.stderr)
    assert server.call_tool("echo", {"message": "alive"}).text == "alive"


def test_removed_servers_do_not_linger(client: Client) -> None:
    """Closing cancels the timers that refer to a connection (the request timeout's): a
    removed server, its session and its transport are freed then, not when they would fire."""
    kinds = (Server, ClientSession, StdioTransport)

    def alive() -> Counter[str]:
        gc.collect()
        return Counter(type(o).__name__ for o in gc.get_objects() if type(o) in kinds)

    before = alive()
    for i in range(50):
        server = client.add("cycle", *faulty_cmd("ok"))
        assert server.call_tool("echo", {"message": str(i)}).text == str(i)
        client.remove("cycle")
    del server
    # None more than before (objects earlier tests left may be freed meanwhile: fewer is fine).
    assert wait_for(lambda: not alive() - before), f"still alive: {alive() - before}"


def test_messages_read_on_the_loop_wait_behind_those_a_callers_thread_handed_over() -> None:
    # A blocking caller's thread reads the pipe while the loop's own read is already due: what
    # the loop reads next (the call's answer) must not overtake the notifications the thread
    # handed over before it (a cell would count its log lines before the last ones came).
    from mcp_notebook.core.transports.inbox import Inbox

    seen: list[str] = []

    class Sink:
        def on_message(self, message: dict[str, object], raw: object = None, related: object = None) -> None:
            seen.append(str(message.get("method") or "answer"))

        def on_too_large(self, request_id: object, size: int) -> None: ...

        def on_closed(self, error: object) -> None: ...

    loop = asyncio.new_event_loop()
    inbox = Inbox()
    held, ran = threading.Event(), threading.Event()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    try:

        async def bind() -> None:
            inbox.bind(Sink())  # type: ignore[arg-type]

        thread.start()
        asyncio.run_coroutine_threadsafe(bind(), loop).result(timeout=10)
        loop.call_soon_threadsafe(held.wait)  # the loop is busy; then its read is due
        loop.call_soon_threadsafe(lambda: (inbox.deliver({"id": 1, "result": {}}), ran.set()))
        for i in range(3):  # meanwhile a caller's thread reads three notifications and hands them over
            assert inbox.deliver({"method": f"notifications/message {i}"}) is False
        held.set()
        assert ran.wait(timeout=10)
        asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop).result(timeout=10)  # what it queued has run
        assert seen == [f"notifications/message {i}" for i in range(3)] + ["answer"]
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
