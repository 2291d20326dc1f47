"""A notebook's calls as a test file: ``%mcp history --export PATH --pytest --exact`` writes
a pytest module that, run by pytest in a fresh venv holding only mcp-notebook and pytest,
passes against the server it was recorded from, then fails in one readable line against a
copy whose tool answers otherwise (tests/servers/demo_changed.py with DEMO_CHANGED_OUTPUT)."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from IPython.core.error import UsageError
from support.peers import ROOT, SERVERS, uv
from support.shells import extension_loaded, run

from mcp_notebook.runtime.client import get_client

pytestmark = [pytest.mark.build, pytest.mark.timeout(300)]
SECRET = "tok-e7f1c2-never-written"


def test_an_exported_test_passes_against_its_server_then_fails_readably_against_a_changed_one(tmp_path: Path) -> None:
    exported = tmp_path / "test_demo.py"
    with extension_loaded() as ip:
        get_client().clear_history()  # the calls of this test only (a module before it may have called a "demo")
        run(ip, f"%mcp add demo --env API_TOKEN={SECRET} -- python {SERVERS / 'demo_changed.py'}")
        try:
            run(ip, "%mcp call demo.query_penguins species=Gentoo limit=2")
            run(ip, "%mcp read demo penguins://about")
            run(ip, '%mcp prompt demo.explore question="Which species is heaviest?"')
            with pytest.raises(UsageError, match="--exact and --volatile go with --export PATH --pytest"):
                run(ip, f"%mcp history demo --export {exported} --exact")
            run(ip, f"%mcp history demo --export {exported} --pytest --exact --volatile taken,ttlMs")
        finally:
            get_client().remove("demo")
    text = exported.read_text()
    ast.parse(text)  # valid Python
    assert SECRET not in text and "os.environ['MCP_DEMO_API_TOKEN']" in text
    assert text.count("\ndef test_") == 3 and "volatile=('taken', 'ttlMs')" in text

    venv = tmp_path / "venv"  # nothing but mcp-notebook (with the demo's SDK) and pytest
    subprocess.run([uv(), "venv", "--quiet", "--python", sys.executable, str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run([uv(), "pip", "install", "--quiet", "--python", python, f"{ROOT}[demo]", "pytest"], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["MCP_DEMO_API_TOKEN"] = SECRET

    def pytest_run(**more: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(exported)],
            cwd=tmp_path, env={**env, **more}, capture_output=True, text=True, timeout=240,
        )  # fmt: skip

    passed = pytest_run()
    assert passed.returncode == 0 and "3 passed" in passed.stdout, passed.stdout + passed.stderr
    failed = pytest_run(DEMO_CHANGED_OUTPUT="1")
    assert failed.returncode == 1 and "1 failed, 2 passed" in failed.stdout, failed.stdout
    said = re.search(r"AssertionError: (demo\.query_penguins: .*)", failed.stdout)
    assert said, failed.stdout
    assert re.fullmatch(
        r"demo\.query_penguins: the result differs from the recorded one at rows\[0\]\.body_mass_g: "
        r"expected \d+, received \d+",
        said.group(1),
    ), said.group(1)


def test_an_exported_file_is_python_and_holds_no_secret_whatever_was_recorded() -> None:
    from mcp_notebook.core.config.servers import ServerConfig
    from mcp_notebook.core.history.calls import Call
    from mcp_notebook.core.history.replay import pytest_module

    def recorded(method: str, params: dict[str, object], result: dict[str, object]) -> Call:
        call = Call("expect_ok", {"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        call.duration, call.answer = 0.1, result
        return call

    secret_uri = "https://h.example/x?api_key=sk-SECRET-0042"
    calls = [
        recorded("tools/call", {"name": "take_½", "arguments": {"x": 1}},
                 {"content": [], "structuredContent": {"token": "sk-SECRET-0043", "n": 1}}),
        recorded("resources/read", {"uri": secret_uri}, {"contents": [{"uri": secret_uri, "text": "t"}]}),
    ]  # fmt: skip
    text = pytest_module(calls, {"expect_ok": ServerConfig("expect_ok", command="python")}, exact=True)
    ast.parse(text)  # a tool named take_½ and a server named like an import: still valid Python
    assert "SECRET" not in text and "def expect_ok(" not in text
    assert "volatile=('token',)" in text and "volatile=('uri',)" in text
