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
