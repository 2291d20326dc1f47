"""A hostile server's text, over stdio and Streamable HTTP: every text rendering shows its
control characters as escapes, and the data stays as the server sent it."""

from __future__ import annotations

import inspect
import pydoc
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_notebook import Client, RPCError
from mcp_notebook.commands import display, serverdisplay, tables
from mcp_notebook.core.safety.text import CONTROL, escape, printable
from mcp_notebook.runtime import Server

SERVER = Path(__file__).resolve().parent / "servers" / "hostile_text.py"
sys.path.insert(0, str(SERVER.parent))
from hostile_text import evil  # noqa: E402


def test_printable_shows_controls_and_keeps_lines() -> None:
    assert printable("a\tb\nc") == "a\tb\nc"
    assert printable("\x1b[2Jclear") == "\\x1b[2Jclear"
    assert printable("\x1b]52;c;eA==\x07") == "\\x1b]52;c;eA==\\x07"
    assert printable("red\x1b[31m text\x1b[0m") == "red text"  # colours are dropped
    assert printable("one\r\ntwo\rover") == "one\ntwo\\rover"
    assert printable("\x9b2J \u202eabc\u202c \x00\x7f") == "\\x9b2J \\u202eabc\\u202c \\x00\\x7f"
    assert escape("<b>\x1b</b>") == "&lt;b&gt;\\x1b&lt;/b&gt;"


@pytest.fixture(params=["stdio", "http"], scope="module")
def hostile(request: pytest.FixtureRequest) -> Iterator[Server]:
    client = Client()
    proc = None
    try:
        if request.param == "http":
            proc = subprocess.Popen([sys.executable, str(SERVER), "--http"], stdout=subprocess.PIPE, text=True)
            assert proc.stdout is not None
            port = int(proc.stdout.readline().split()[-1])
            yield client.add("hostile", url=f"http://127.0.0.1:{port}/mcp")
        else:
            yield client.add("hostile", sys.executable, [str(SERVER)])
    finally:
        client.close()
        if proc is not None:
            proc.kill()
            proc.wait()


def renderings(server: Server) -> dict[str, str]:
    """Every text rendering of what the server sent, as a terminal would show it."""
    out = {
        "repr": repr(server),
        "summary": serverdisplay.summary_line(server, {"tools": 1}),
        "status": repr(serverdisplay.ServerStatus(server)),
        "text": display.call_result_text(server.call_tool("text")),
        "tool error": display.call_result_text(server.call_tool("tool_error")),
        "read": display.read_result_text(server.read_resource("hostile://doc")),
        "prompt": display.prompt_result_text(server.get_prompt("greet", {"who": "me"})),
    }
    with pytest.raises(RPCError) as failed:
        server.call_tool("fail")
    out["error"] = str(failed.value)
    server.call_tool("logs")
    out["logs"] = repr(serverdisplay.ServerLogs(server))
    out["tools"] = tables.tools_frame(server.list_tools()).to_string()
    out["resources"] = tables.resources_frame(server.list_resources()).to_string()
    out["templates"] = tables.templates_frame(server.list_resource_templates()).to_string()
    out["prompts"] = tables.prompts_frame(server.list_prompts()).to_string()
    # A tool's function: its docstring (title, descriptions, choices, default, format, output
    # schema) and signature, as help() and ? show them.
    out["function doc"] = server.tools.text.__doc__
    out["help"] = pydoc.render_doc(server.tools.text, renderer=pydoc.plaintext)
    out["signature"] = str(inspect.signature(server.tools.text))
    return out


def test_every_text_rendering_shows_control_characters(hostile: Server) -> None:
    for name, text in renderings(hostile).items():
        assert not CONTROL.findall(text), f"{name}: {CONTROL.findall(text)}"
        assert "\\x1b[2J" in text and "\\x1b]52;c;" in text and "\\u202e" in text, name  # shown, not dropped
    logs = repr(serverdisplay.ServerLogs(hostile))
    assert "log error:" in logs and "logger:" in logs
    status = repr(serverdisplay.ServerStatus(hostile))
    assert "instructions:\\x1b[2J" in status and "server:\\x1b[2J" in status


def test_the_data_stays_as_sent(hostile: Server) -> None:
    assert hostile.call_tool("text").text == evil("result")
    with pytest.raises(RPCError) as failed:
        hostile.call_tool("fail")
    assert failed.value.message == evil("error") and failed.value.data == evil("data")
    assert hostile.get_tool("text").description == evil("text description")
    assert hostile.server_info["name"] == evil("server") and hostile.instructions == evil("instructions")


def test_a_functions_docstring_shows_every_part_printable(hostile: Server) -> None:
    doc = hostile.tools.text.__doc__
    for part in ("text title", "text description", "count", "format", "said", "type"):
        assert f"{part}:\\x1b[2J" in doc, part  # each part there, shown as escapes
    assert "'choice:\\x1b[2J" in doc and "default 'default:\\x1b[2J" in doc
    assert not CONTROL.findall(doc) and doc.count("\n") > 10  # lines kept
