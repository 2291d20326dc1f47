"""Terminal IPython (in a pseudo-terminal, as a person runs it) with a hostile server: no
control character the server sent reaches the terminal, in any rendering or prompt."""

from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path

import pexpect

HOSTILE = Path(__file__).resolve().parent / "servers" / "hostile_text.py"
PROMPT = r"In \[\d+\]: "
# Any C0 control but newline and tab, DEL, C1, bidi overrides and isolates; a pty ends lines with \r\n.
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def test_terminal_shows_a_servers_control_characters_and_obeys_none(tmp_path: Path) -> None:
    env = {**os.environ, "TERM": "dumb", "PYTHONIOENCODING": "utf-8"}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "IPython", "--simple-prompt", "--no-banner", "--colors=nocolor"],
        cwd=str(tmp_path),
        env=env,
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 200),
    )
    screen = io.StringIO()
    child.logfile_read = screen

    def cell(line: str, *answers: tuple[str, str]) -> None:
        child.expect(PROMPT)
        child.sendline(line)
        for prompt, answer in answers:
            child.expect_exact(prompt)
            child.sendline(answer)

    try:
        cell("%load_ext mcp_notebook")
        cell(f"%mcp add hostile -- {sys.executable} {HOSTILE}")
        cell("%mcp status hostile")
        for listing in ("tools hostile", "resources hostile", "templates hostile", "prompts hostile", "list"):
            cell(f"table = %mcp {listing}")
            cell("print(table.to_string())")  # every column, however wide
        cell("%mcp call hostile.text")
        cell("%mcp call hostile.tool_error")
        cell("%mcp call hostile.fail")
        cell("%mcp call hostile.logs")
        cell("%mcp call hostile.progress")
        cell(
            "%mcp call hostile.ask",
            ("Accept / Decline / Cancel? [a/d/c] ", "a"),
            ("(red/choice:", "red"),
            ("[ok]: ", ""),
        )
        cell("%mcp call hostile.sample", ("asks for a model reply (empty declines): ", "hello"))
        cell("%mcp call hostile.page")
        cell("%mcp call hostile.drop", ("[a]pprove / always [A]llow / [d]eny? ", "a"))
        cell("%mcp read hostile hostile://doc")
        cell("%mcp prompt hostile.greet who=me")
        cell("%mcp logs hostile")
        cell("from mcp_notebook import get_client; get_client()['hostile']")
        cell("get_client()['hostile'].call_tool('fail')")
        cell("exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    out = screen.getvalue()
    # The progress line is ours: it is redrawn in place with \r (its text is the server's,
    # made printable, and scanned with the rest).
    ours = re.sub(r"\r *\r|\r(?=\[hostile\.progress\])", "", out.replace("\r\n", "\n"))
    shown = CONTROL.findall(ours)
    assert not shown, f"{len(shown)} control characters reached the terminal: {sorted(set(shown))}"
    # Everything was shown, with its escapes visible.
    for label in ("server:", "instructions:", "text description:", "resource title:", "template description:",
                  "prompt description:", "result:", "tool error:", "error:", "log error:", "logger:", "ask:",
                  "field title:", "choice:", "sample:", "page:", "dropped:", "read:", "prompt message:",
                  "stderr:", "stdout:"):  # fmt: skip
        assert f"{label}\\x1b[2J\\x1b[3J\\x1b[H\\x1b]0;pwned\\x07" in out, label
    assert 'answer: {"action": "accept", "content": {"colour": "red", "note": "ok"}}' in out
    assert '"text": "hello"' in out  # the sampling reply reached the server
    assert "\\u202egnp.exe\\u202c" in out and "\\x9b2J" in out
