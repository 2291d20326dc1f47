"""What ``mcp-notebook`` writes to stdout, as a shell redirects it: to a file or pipe the whole
value, never cut (a resource read byte for byte), notes on stderr; on a terminal a long call
result is cut, and stderr and the exit status say so. ``--format markdown`` of a hostile
server's text: no raw HTML, no link but an https: (or local http:) one."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from support.cli import cli
from support.peers import SERVERS

from mcp_notebook.cli import exits

TABLES = [sys.executable, str(SERVERS / "tables_raw.py")]
SHAPES = ["--", sys.executable, str(SERVERS / "hostile_shapes.py")]
HOSTILE = ["--", sys.executable, str(SERVERS / "hostile_text.py")]


def to_file(*args: str, cwd: Path) -> tuple[bytes, str, int]:
    """``mcp-notebook ARGS > file``: the file's bytes, stderr and the exit status."""
    out = cwd / "stdout.bin"
    with open(out, "wb") as f:
        done = subprocess.run([sys.executable, "-m", "mcp_notebook", *args], cwd=cwd, stdin=subprocess.DEVNULL,
                              stdout=f, stderr=subprocess.PIPE, text=True, timeout=120)  # fmt: skip
    return out.read_bytes(), done.stderr, done.returncode


def on_terminal(*args: str, cwd: Path) -> tuple[str, str, int]:
    """``mcp-notebook ARGS`` with stdout a terminal (a pseudo-terminal), stderr a pipe: what
    the terminal showed, stderr and the exit status."""
    import pty

    main, child = pty.openpty()
    shown: list[bytes] = []

    def drain() -> None:  # a terminal's buffer is small: read as the program writes
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the program's side closed
                return
            if not chunk:
                return
            shown.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        done = subprocess.run([sys.executable, "-m", "mcp_notebook", *args], cwd=cwd, stdin=subprocess.DEVNULL,
                              stdout=child, stderr=subprocess.PIPE, text=True, timeout=120)  # fmt: skip
    finally:
        os.close(child)
    reader.join(timeout=60)
    os.close(main)
    return b"".join(shown).decode().replace("\r\n", "\n"), done.stderr, done.returncode


def test_read_to_a_file_is_the_resource_byte_for_byte(tmp_path: Path) -> None:
    given = ["--", *TABLES, "5"]  # a 5 MB CSV, and the same table as a Parquet blob
    sent = json.loads(cli("--format", "json", "read", "t", "table://data.csv", *given, cwd=tmp_path)[0])
    text = sent["contents"][0]["text"]
    assert len(text) > 5_000_000
    written, notes, status = to_file("read", "t", "table://data.csv", *given, cwd=tmp_path)
    assert status == 0 and written == text.encode(), (status, len(written), notes)
    assert "Large output" not in notes and "cut" not in notes
    # A blob's bytes, decoded: `read … > data.parquet` is the file.
    sent = json.loads(cli("--format", "json", "read", "t", "table://data.parquet", *given, cwd=tmp_path)[0])
    written, notes, status = to_file("read", "t", "table://data.parquet", *given, cwd=tmp_path)
    assert status == 0 and written == base64.b64decode(sent["contents"][0]["blob"]), notes


def test_a_call_to_a_file_or_pipe_is_whole_and_notes_go_to_stderr(tmp_path: Path) -> None:
    written, notes, status = to_file("call", "h.big", *SHAPES, cwd=tmp_path)
    lines = written.decode().splitlines()
    assert status == 0 and len(lines) == 100_000 and lines[-1] == "line 0099999 of the big text", notes
    assert "⚠" not in written.decode() and "cut" not in notes
    piped, notes = cli("--format", "markdown", "call", "h.big", *SHAPES, cwd=tmp_path)
    assert "line 0099999 of the big text" in piped and "cut" not in notes


def test_on_a_terminal_a_long_result_is_cut_and_the_exit_status_says_so(tmp_path: Path) -> None:
    shown, notes, status = on_terminal("call", "h.big", *SHAPES, cwd=tmp_path)
    assert status == 6, (status, notes)
    assert exits.CUT == 6
    assert "line 0000000 of the big text" in shown and "line 0099999" not in shown
    assert "⚠" not in shown  # the notes are not the value
    assert "output cut" in notes and "redirect" in notes and "exit status 6" in notes
    # A read's value is the data: whole even on a terminal (its control characters escaped).
    shown, notes, status = on_terminal("read", "t", "table://data.csv", "--", *TABLES, "0.3", cwd=tmp_path)
    assert status == 0 and "cut" not in notes, notes
    rows = shown.splitlines()
    assert rows[0] == "id,x,name,flag,day" and len(rows) > 7000 and rows[-1].endswith(",2026-01-" + rows[-1][-2:])


def links_in(markdown: str) -> list[str]:
    """The addresses a CommonMark renderer (with tables) makes links or images of."""
    parser = MarkdownIt("commonmark").enable("table")
    found: list[str] = []

    def walk(tokens: list) -> None:  # type: ignore[type-arg]
        for token in tokens:
            if token.type in ("link_open", "image"):
                found.append(str(token.attrGet("href") or token.attrGet("src")))
            walk(token.children or [])

    walk(parser.parse(markdown))
    return found


@pytest.mark.parametrize("source", ["table", "listing", "text"])
def test_markdown_shows_a_servers_html_and_links_as_text(source: str, tmp_path: Path) -> None:
    if source == "table":
        out, _ = cli("--format", "markdown", "call", "h.links", *SHAPES, cwd=tmp_path)
    elif source == "listing":
        out, _ = cli("--format", "markdown", "tools", *HOSTILE, cwd=tmp_path)
    else:
        out, _ = cli("--format", "markdown", "call", "h.text", *HOSTILE, cwd=tmp_path)
    page = MarkdownIt("commonmark").enable("table").render(out)
    for markup in ("<img", "<script", "<b>", "onerror=alert(1)>"):
        assert markup not in page, (markup, out)
    assert all(link.startswith(("https:", "http://127.0.0.1")) for link in links_in(out)), links_in(out)
    if source == "table":
        assert "javascript:alert(1)" in page and "<table>" in page  # shown, as text, in a table
        assert page.count("<tr>") == 4  # the header and three rows: no | or newline split a cell
        assert "a|b c &amp; &lt;b&gt;d&lt;/b&gt;" in page
    if source == "listing":
        assert "&lt;script&gt;alert(2)&lt;/script&gt;" in page
