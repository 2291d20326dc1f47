"""A tool whose name holds a control or invisible character (``ec\\x1b[mho``, which a terminal
shows as ``echo``; ``sp\\u200bace``) is shown escaped, visibly not ``echo``, wherever a
person reads it: the command line's listing, the approval prompt on a terminal, the headless
denial, a notebook's approval card and the tools DataFrame. Against a real server
(tests/servers/hostile_shapes.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import ipywidgets as w
import pexpect
from support.cli import cli
from support.peers import SERVERS
from support.terminal import Terminal

from mcp_notebook import Client
from mcp_notebook.commands.tables import tools_frame
from mcp_notebook.errors import ToolDenied
from mcp_notebook.notebook.cards import ApprovalCard
from mcp_notebook.runtime.asking.interaction import ApprovalAnswer, ApprovalRequest, Interaction

SERVER = [sys.executable, str(SERVERS / "hostile_shapes.py")]
SNEAKY = "ec\x1b[mho"
SHOWN = r"ec\x1b[mho"  # as it must read: the escape visible
INVISIBLE, SHOWN_INVISIBLE = "sp\u200bace", r"sp\u200bace"


def test_the_command_lines_listing_shows_the_names_escaped(tmp_path: Path) -> None:
    out, _ = cli("tools", "--", *SERVER, cwd=tmp_path)
    names = [line.split()[1] for line in out.splitlines()[1:]]
    assert SHOWN in names and SHOWN_INVISIBLE in names and "echo" not in names, out
    assert "\x1b" not in out and "\u200b" not in out


def test_the_terminal_approval_prompt_and_the_headless_denial_show_the_name_escaped(tmp_path: Path) -> None:
    term = Terminal([sys.executable, "-m", "mcp_notebook", "call", f"h.{SNEAKY}", "--", *SERVER], tmp_path, False)
    try:
        term.child.expect(r"\[a\]pprove / always \[A\]llow / \[d\]eny\? ")
        asked = term.child.before
        assert f"h.{SHOWN}" in asked and "h.echo" not in asked, asked
        term.send("d")
        term.child.expect(pexpect.EOF)
        assert f"h.{SHOWN} was denied" in term.child.before
        term.child.close()
        assert term.child.exitstatus == 3
    finally:
        term.close()
    _, notes = cli("call", f"h.{SNEAKY}", "--", *SERVER, cwd=tmp_path, code=3)
    assert f"h.{SHOWN}" in notes and "h.echo" not in notes and "\x1b" not in notes, notes


class Cards(Interaction):
    """Shows each approval as a notebook's card would, then denies."""

    def __init__(self) -> None:
        self.cards: list[str] = []

    def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        card = ApprovalCard(request)
        html = "".join(getattr(x, "value", "") for x in _walk(card.widget) if isinstance(x, w.HTML))
        self.cards.append(html + "\n" + card.record.asked)
        return "deny"


def _walk(widget: w.Widget) -> list[w.Widget]:
    return [widget, *(x for child in getattr(widget, "children", ()) for x in _walk(child))]


def test_a_notebooks_card_and_tools_table_show_the_names_escaped() -> None:
    cards = Cards()
    client = Client(interaction=cards)
    try:
        h = client.add("h", SERVER[0], SERVER[1:])
        frame = tools_frame(h.list_tools())
        assert SHOWN in list(frame["name"]) and SHOWN_INVISIBLE in list(frame["name"])
        assert "echo" not in list(frame["name"])
        for name, shown in ((SNEAKY, SHOWN), (INVISIBLE, SHOWN_INVISIBLE)):
            try:
                h.call_tool(name, {})
            except ToolDenied as e:
                assert f"h.{shown}" in str(e), str(e)
            card = cards.cards[-1]
            assert f"h.{shown}" in card and "h.echo" not in card and "h.space" not in card, card
    finally:
        client.close()


IGNORABLE = [0x034F, 0x115F, 0x1160, 0x17B4, 0x180B, 0x180E, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064,
             0x3164, 0xFE00, 0xFE0F, 0xFFA0, 0xE0000, 0xE0001, 0xE0041, 0xE0100, 0xE0FFF]  # fmt: skip


def test_default_ignorable_characters_are_shown_escaped_though_python_calls_some_printable() -> None:
    from mcp_notebook.core.safety.text import escape_name, shown_name

    for point in IGNORABLE:
        escaped = f"\\u{point:04x}" if point <= 0xFFFF else f"\\U{point:08x}"
        assert shown_name(f"e{chr(point)}cho") == f"e{escaped}cho", hex(point)
        assert escape_name(f"e{chr(point)}cho") == f"e{escaped}cho", hex(point)
    assert shown_name("échö Ω 名前 ✓") == "échö Ω 名前 ✓"  # visible letters and marks stay as they are


def test_a_name_with_an_ignorable_character_lists_and_is_denied_escaped(tmp_path: Path) -> None:
    out, _ = cli("tools", "--", *SERVER, cwd=tmp_path)
    names = [line.split()[1] for line in out.splitlines()[1:]]
    assert r"e\u034fcho" in names and "\u034f" not in out, out
    _, notes = cli("call", "h.e\u034fcho", "--", *SERVER, cwd=tmp_path, code=3)
    assert r"h.e\u034fcho" in notes and "\u034f" not in notes, notes


VIEW_ASKS = f"""
import asyncio, logging
from mcp_notebook import get_client
from mcp_notebook.core.protocol import apps
from mcp_notebook.notebook.appview import AppHandle
from mcp_notebook.runtime.asking.interaction import AppCall

said = []
class Kept(logging.Handler):
    def emit(self, record):
        said.append(record.getMessage())
logging.getLogger("mcp_notebook").addHandler(Kept())
logging.getLogger("mcp_notebook").setLevel(logging.INFO)
h = get_client()["h"]
(deep,) = [t for t in h.list_tools() if t.name == "deep"]
page = apps.document_of({{"contents": [{{"uri": "ui://v", "mimeType": apps.MIME_TYPE, "text": "<p>v</p>"}}]}})
app = AppHandle(AppCall(h, deep.raw, {{}}, h.call_tool("deep", {{"depth": 1}}), page, "default-src 'none'"))
app.view.send = lambda reply: None
call = {{"name": {SNEAKY!r}, "arguments": {{}}}}
app._received(None, {{"id": "1", "method": "tools/call", "params": call, "render": "r"}}, [])
await asyncio.sleep(0)  # an awaiting cell: the view's request runs on the kernel's loop, as a comm's would
"""
CLOSES = """
for _ in range(600):  # until the view's approval card asks (a minute at most)
    if any(c.__class__.__name__ == "ApprovalCard" for p in app._runs.get("r", {}).values() for c in p.cards):
        break
    await asyncio.sleep(0.1)
app._received(None, {"event": "closed", "render": "r"}, [])
print("SAID", *[line for line in said if "denied" in line], sep="\\n")
"""


def test_a_closed_views_denial_is_logged_with_the_name_escaped(tmp_path: Path) -> None:
    from support.kernels import kernel_with, text_of

    setup = f"%load_ext mcp_notebook\n%mcp add h -- {sys.executable} {SERVER[1]}"
    with kernel_with("python3", tmp_path, setup, servers=["h"]) as kernel:
        text_of(kernel.run(VIEW_ASKS))
        said = text_of(kernel.run(CLOSES))
    assert "SAID" in said and f"h.{SHOWN} denied" in said and "h.echo" not in said, said
