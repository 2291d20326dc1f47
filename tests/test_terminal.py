"""Terminal IPython as a person uses it: in a pseudo-terminal (pexpect), with the real
prompt_toolkit prompt, typed at line by line; plain Python in a terminal; and IPython run
without a terminal (a script with stdin from /dev/null or a pipe)."""

from __future__ import annotations

import os
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support.peers import EVERYTHING, node
from support.processes import free_port, running
from support.terminal import Terminal, environment, ipython, plain

from mcp_notebook.runtime.asking.terminal import read_line
from mcp_notebook.runtime.loop import LoopThread

DEMO = f"{sys.executable} -m mcp_notebook.demo"


@pytest.fixture(scope="module")
def demo_oauth() -> Iterator[str]:
    port = free_port()
    with running([sys.executable, "-m", "mcp_notebook.demo", "--http", str(port), "--oauth"], port):
        yield f"http://127.0.0.1:{port}/mcp"


_URL = r"(http://127\.0\.0\.1:\d+/authorize\?\S+)"


def browse(url: str) -> None:
    """What a browser does: the authorization page (the demo approves at once) sends it to
    the loopback listener, which answers with a page."""
    page = httpx.get(url, follow_redirects=True, timeout=30)
    assert page.status_code == 200 and "Login complete" in page.text, page.text


def test_terminal_login_comes_back_by_itself_and_leaves_stdin_alone(demo_oauth: str, tmp_path: Path) -> None:
    """%mcp add, restart and login each print the authorization URL and end when the
    browser comes back to the loopback listener; the next line typed runs (not swallowed)."""
    term = ipython(tmp_path)
    try:
        term.run("%load_ext mcp_notebook")
        for line in (f"%mcp add o {demo_oauth}", "%mcp restart o", "%mcp login o"):
            term.send(line)
            url = term.expect(_URL).group(1)
            assert "o needs you to log in at http://127.0.0.1" in plain(term.child.before)
            browse(url)  # while the prompt waits, as a person's browser would
            out = term.wait_prompt()
            assert "✓ o: penguins" in out, out
            assert term.run("print(12345)").strip().splitlines()[-1] == "12345"
            term.run("%mcp logout o")
    finally:
        term.close()


def test_terminal_login_by_pasting(demo_oauth: str, tmp_path: Path) -> None:
    """A remote machine's way: the browser cannot reach the listener; the person pastes
    the address it landed on. Ctrl-D instead cancels the login."""
    term = ipython(tmp_path)
    try:
        term.run("%load_ext mcp_notebook")
        term.send(f"%mcp add o {demo_oauth}")
        term.expect("paste the address it landed on")
        term.child.sendeof()
        out = term.wait_prompt(timeout=30)
        assert "mcp-notebook: stdin ended: login cancelled" in out
        assert "the login to 'o' was cancelled" in out, out
        term.send("%mcp login o")
        url = term.expect(_URL).group(1)
        term.expect("paste the address it landed on")
        landed = httpx.get(url, follow_redirects=False).headers["location"]  # not followed
        term.send(landed)
        out = term.wait_prompt()
        assert "✓ o: penguins" in out, out
        assert term.run("print(12345)").strip().splitlines()[-1] == "12345"
    finally:
        term.close()


def test_plain_python_login_leaves_stdin_alone(demo_oauth: str, tmp_path: Path) -> None:
    """Plain Python in a terminal (ConsoleInteraction): the login ends when the browser
    comes back, and the script's own input() gets the next line typed."""
    script = tmp_path / "login.py"
    script.write_text(
        "from mcp_notebook import Client\n"
        "client = Client()\n"
        f"client.add('o', url={demo_oauth!r})\n"
        "print('CONNECTED', client['o'].status.value)\n"
        "print('TYPED', input('next> '))\n"
        "client.close()\n"
    )
    term = Terminal([sys.executable, str(script)], tmp_path, ipython=False)
    try:
        browse(term.expect(_URL).group(1))
        term.expect("CONNECTED connected")
        term.expect("next> ")
        term.send("hello")
        term.expect("TYPED hello")
    finally:
        term.close()


def test_plain_python_login_without_a_listener_ends_on_enter(demo_oauth: str, tmp_path: Path) -> None:
    """The login's redirect port is taken, so nothing listens for the browser: Enter with
    nothing pasted ends the login as cancelled, in one line, at once (not "5 minutes")."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        script = tmp_path / "login.py"
        script.write_text(
            "from mcp_notebook import Client, MCPError\n"
            "client = Client()\n"
            "try:\n"
            f"    client.add('o', url={demo_oauth!r}, oauth={{'redirect_port': {port}}})\n"
            "except MCPError as e:\n"
            "    print('FAILED', e)\n"
            "print('TYPED', input('next> '))\n"
            "client.close()\n"
        )
        term = Terminal([sys.executable, str(script)], tmp_path, ipython=False)
        try:
            term.expect("press Enter")
            term.send("")
            failed = term.expect(r"FAILED [^\r\n]*\r\n").group(0)  # the whole line, not what came so far
            assert "the login to 'o' was cancelled" in failed, failed
            term.expect("next> ")
            term.send("hello")
            term.expect("TYPED hello")
        finally:
            term.close()


def test_terminal_ipython_asks_on_stdin(tmp_path: Path) -> None:
    term = ipython(tmp_path)
    try:
        term.run("%load_ext mcp_notebook")
        term.run(f"%mcp add demo -- {DEMO}")
        term.send("r = %mcp call demo.delete_penguins species=Gentoo")
        term.expect(r"\[a\]pprove / always \[A\]llow / \[d\]eny\? ")
        assert "Approve demo.delete_penguins" in plain(term.child.before)
        term.run("a")
        assert "deleted 124 Gentoo penguins" in term.run("print(r.text)")
        term.send("r = %mcp call demo.add_observation")
        assert "demo asks: Describe the penguin you saw" in plain(term.expect("Accept / Decline / Cancel").string)
        for answer, field in (("a", "Species"), ("Gentoo", "Island"), ("Biscoe", "Body Mass"), ("6000", "Sex")):
            term.send(answer)
            term.expect(field)
        term.run("")  # the default
        assert "recorded a female Gentoo of 6000 g on Biscoe" in term.run("print(r.text)")
        term.send("%mcp call demo.delete_penguins species=Adelie")
        term.expect(r"\[d\]eny\? ")
        assert "demo.delete_penguins was denied; nothing was sent" in term.run("d")
    finally:
        term.close()


def test_end_of_input_on_a_terminal_ends_the_question(tmp_path: Path) -> None:
    """Ctrl-D at a required field cancels the form, at an approval denies: one line each,
    and the session goes on."""
    term = ipython(tmp_path)
    try:
        term.run("%load_ext mcp_notebook")
        term.run(f"%mcp add demo -- {DEMO}")
        term.send("r = %mcp call demo.add_observation")
        term.expect("Accept / Decline / Cancel")
        term.send("a")
        term.expect(r"Species \*")
        term.child.sendeof()
        out = term.wait_prompt(timeout=30)
        assert "mcp-notebook: stdin ended: cancelled" in out
        assert "Species" not in out and "required" not in out, out  # not asked again
        assert "nothing recorded (the user chose cancel)" in term.run("print(r.text)")
        term.send("%mcp call demo.delete_penguins species=Gentoo")
        term.expect(r"\[d\]eny\? ")
        term.child.sendeof()
        out = term.wait_prompt(timeout=30)
        assert "mcp-notebook: stdin ended: denied" in out
        assert "demo.delete_penguins was denied; nothing was sent" in out
        term.run(f"%mcp add everything -- {node()} {EVERYTHING} stdio")
        term.send("r = %mcp call everything.trigger-sampling-request prompt=hi maxTokens=5")
        term.expect("asks for a model reply")
        term.child.sendeof()
        out = term.wait_prompt(timeout=30)
        assert "mcp-notebook: stdin ended: declined" in out, out
        assert "declined" in term.run("print(r.text)")
    finally:
        term.close()


def bounded_output(proc: subprocess.Popen[bytes], limit: int, timeout: float = 120) -> bytes:
    """All the process prints until it ends; stops at ``limit`` bytes (a loop that never
    ends) or at the deadline."""
    assert proc.stdout is not None
    fd, size = proc.stdout.fileno(), 0
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    try:
        while size < limit:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail("the run did not end: " + b"".join(chunks)[-2000:].decode(errors="replace"))
            if not select.select([fd], [], [], left)[0]:
                continue
            data = os.read(fd, 65536)
            if not data:
                break
            chunks.append(data)
            size += len(data)
    finally:
        proc.kill()
        proc.wait()
    return b"".join(chunks)


def test_closed_stdin_in_a_form_cancels_it(tmp_path: Path) -> None:
    """Asking on stdin (forced) while stdin ends inside a form with a required field: the
    form is cancelled once, not asked again forever."""
    lines = [
        "%load_ext mcp_notebook",
        "%config MCPMagics.prompt_mode = 'stdin'",
        f"%mcp add demo -- {DEMO}",
        "%mcp call demo.add_observation",
        "a",  # accept; then stdin ends at the first field
    ]
    proc = subprocess.Popen([sys.executable, "-m", "IPython", "--no-banner", "--colors=NoColor"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            cwd=tmp_path, env=environment(tmp_path))  # fmt: skip
    assert proc.stdin is not None
    proc.stdin.write(("\n".join(lines) + "\n").encode())
    proc.stdin.close()
    out = bounded_output(proc, limit=100_000)
    text = out.decode(errors="replace")
    assert len(out) < 100_000 and text.count("required") == 0, text[-2000:]
    assert "mcp-notebook: stdin ended: cancelled" in text
    assert "nothing recorded (the user chose cancel)" in text


def test_progress_on_a_terminal_is_a_text_line(tmp_path: Path) -> None:
    term = ipython(tmp_path)
    try:
        term.run("%load_ext mcp_notebook")
        term.run(f"%mcp add demo -- {DEMO}")
        term.run("%config MCPMagics.show_logs = False")
        out = term.run("r = %mcp call demo.fit_model epochs=10 seconds_per_epoch=0.05")
        assert "HBox(" not in out and "Progress" not in out, out
        assert "[demo.fit_model] 100% (10/10) epoch 10/10" in out, out
        assert "\n" not in out.strip() and "\r" in out.strip(), out  # one line, redrawn in place
    finally:
        term.close()


def test_ipython_without_a_terminal_is_headless(tmp_path: Path) -> None:
    """`ipython script.ipy < /dev/null`: nobody can answer, so the headless policy decides
    (here: allow); progress is a couple of text lines, not a widget's repr."""
    script = tmp_path / "run.ipy"
    script.write_text(
        "%load_ext mcp_notebook\n"
        "%config MCPMagics.headless_approval = 'allow'\n"
        f"%mcp add demo -- {DEMO}\n"
        "r = %mcp call demo.delete_penguins species=Gentoo\n"
        "print('RESULT', r.text)\n"
        "r = %mcp call demo.fit_model epochs=20 seconds_per_epoch=0.01\n"
        "print('RESULT', r.text)\n"
        "r = %mcp call demo.plot_penguins\n"
        "print('POINTS', len(r.structured['points']), r.app)\n"
    )
    with open(os.devnull) as devnull:
        out = subprocess.run([sys.executable, "-m", "IPython", "--colors=NoColor", str(script)], stdin=devnull,
                             capture_output=True, text=True, timeout=120, cwd=tmp_path,
                             env=environment(tmp_path))  # fmt: skip
    text = out.stdout + out.stderr
    assert "RESULT deleted 124 Gentoo penguins" in text, text
    assert "headless policy: allow" in text
    assert "HBox(" not in text
    progress = [line for line in out.stdout.splitlines() if line.startswith("[demo.fit_model]")]
    assert 1 <= len(progress) <= 2 and progress[-1].startswith("[demo.fit_model] 100% (20/20)"), out.stdout
    assert "RESULT fitted in 20 epochs" in text
    # A tool with a view (MCP Apps): its result as always, and one line.
    assert "POINTS 219 None" in text  # 342, less the 123 Gentoo measured (deleted above)
    assert "demo.plot_penguins has an interactive view (ui://penguins/scatter.html), not shown here" in text


def test_a_question_on_the_background_loop_fails_at_once() -> None:
    """Waiting for a person on the loop's thread would stop every connection: it is a bug
    that must show, never a hang."""
    loop = LoopThread("test-guard")

    async def ask() -> str | None:
        return read_line("never asked? ")

    try:
        with pytest.raises(RuntimeError, match="background loop's thread"):
            loop.run(ask())
    finally:
        loop.shutdown()
