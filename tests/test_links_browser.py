"""A server's text in a cell's output, in a real (headless) Chromium in JupyterLab and
Notebook 7 (tests/servers/hostile_links.py): JupyterLab makes a link of every ``scheme://``,
``data:`` and ``www.`` in text output, so an address the link policy refuses is shown broken
there (``http[:]//…``), readable and never a link, in the server's log lines, its progress
messages, the one line of its error, a usage error quoting its schema and the stderr of a
server that would not start (its error, and %mcp load's ✗ line quoting it); an ``https:``
address stays a link, and an address the person typed stays as typed. One Jupyter server and one
browser for the module."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.frontends import WAIT_MS, jupyter_server
from support.peers import SERVERS

pytestmark = pytest.mark.browser

HOSTILE = f"{sys.executable} {SERVERS / 'hostile_links.py'}"
CELLS = [
    f"%load_ext mcp_notebook\n%mcp add hostile -- {HOSTILE}",
    "%mcp call hostile.chatty",  # log lines, a progress message, then an error quoting them
    "%mcp call hostile.pick where=nowhere",  # a usage error quoting the tool's schema
    f"%mcp add broken -- {HOSTILE} --stderr",  # a server's stderr in its startup error
]
REFUSED = ("http://example.com/x", "file:///etc/passwd", "data:text/html", "www.example.com/w")
# Every link in the notebook's outputs: where it goes, and what it says.
LINKS = "() => [...document.querySelectorAll('.jp-Notebook .jp-OutputArea a')].map(a => [a.href, a.textContent])"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("notebooks")
    for url in jupyter_server(folder):
        yield url, folder


@pytest.mark.parametrize("app", ["lab", "notebooks"])
def test_no_address_a_server_wrote_in_text_output_is_a_link_unless_allowed(
    notebook: Any, server: tuple[str, Path], app: str
) -> None:
    nb = notebook(CELLS, app=app)
    nb.run_all(0, 1, 2, 3)
    nb.cell(1).locator(".jp-OutputArea-output", has_text="RPCError").wait_for(timeout=WAIT_MS)
    links = nb.page.evaluate(LINKS)
    refused = [link for link in links if any(r in f"{link[0]} {link[1]}" for r in (*REFUSED, "www.example"))]
    assert refused == [], links
    # Besides the allowed one, only JupyterLab's own links to a path on its server (a word
    # such as /etc/passwd): no address out of it.
    assert {href for href, _ in links if href and not href.startswith(server[0])} <= {"https://example.org/ok"}
    # Each route said what the server wrote, readable, with the refused addresses broken.
    said = {i: nb.output(i) for i in (1, 2, 3)}
    assert "[hostile info] links: info:" in said[1] and "[hostile warning] links: warning:" in said[1], said
    for i, kind in ((1, "RPCError: could not reach"), (2, "UsageError: tool 'pick'"), (3, "StartupError")):
        assert kind in said[i], said
        assert "http[:]//example.com/x" in said[i] and "www[.]example.com/w" in said[i], said
        assert "file[:]///etc/passwd" in said[i] and "data[:]text/html" in said[i], said
        assert "https://example.org/ok" in said[i], said


def test_a_server_text_in_our_own_lines_is_no_link_and_what_the_person_typed_is_as_typed(
    notebook: Any, server: tuple[str, Path]
) -> None:
    """%mcp load's ✗ line quotes the stderr of a server that would not start: its refused
    addresses broken; %mcp roots add's line shows the file: address of the folder the person
    gave as it is."""
    folder = server[1]
    config = folder / "broken.json"
    entry = {"command": sys.executable, "args": [str(SERVERS / "hostile_links.py"), "--stderr"]}
    config.write_text(json.dumps({"mcpServers": {"broken": entry}}))
    nb = notebook([f"%load_ext mcp_notebook\n%mcp load {config}", f"%mcp roots add {folder}"])
    nb.run_all(0, 1)
    nb.cell(1).locator(".jp-OutputArea-output", has_text="added root").wait_for(timeout=WAIT_MS)
    links = nb.page.evaluate(LINKS)
    assert [link for link in links if any(r in f"{link[0]} {link[1]}" for r in (*REFUSED, "www.example"))] == []
    said = nb.output(0)
    assert "✗ broken:" in said and "http[:]//example.com/x" in said and "www[.]example.com/w" in said, said
    assert "https://example.org/ok" in said, said
    assert f"✓ added root {folder.as_uri()}" in nb.output(1)
