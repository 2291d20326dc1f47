"""Hostile MCP Apps views in a real (headless) Chromium in JupyterLab
(tests/servers/hostile_apps.py): a view's approval card stays until it is answered, whatever
else the view asks meanwhile, and a closed view's approval is denied; no address a view sent
becomes a link unless the policy allowed it; a view finds no WebRTC. One Jupyter server and
one browser for the module."""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.frontends import APP_FRAME as FRAME
from support.frontends import WAIT_MS, NotebookPage, jupyter_server
from support.peers import SERVERS

pytestmark = pytest.mark.browser

ADD = f"%load_ext mcp_notebook\n%mcp add hostile -- {sys.executable} {SERVERS / 'hostile_apps.py'}"
WIPES = "print('WIPES', int((await get_client()['hostile'].acall_tool('wipes')).text))"
PENDING = "print('PENDING', {handle}.app.pending)"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("notebooks")
    for url in jupyter_server(folder):
        yield url, folder


def printed(nb: NotebookPage, cell: int, tag: str) -> int:
    """Run ``cell`` (it prints ``TAG n``) and read n."""
    nb.run(cell)
    nb.finished(cell)
    match = re.search(rf"{tag} (\d+)", nb.output(cell))
    assert match, nb.output(cell)
    return int(match.group(1))


def until(nb: NotebookPage, cell: int, tag: str, value: int) -> int:
    """Run ``cell`` until it prints ``TAG value`` (each run waits for its own output), or a minute."""
    deadline = time.monotonic() + 60
    while (seen := printed(nb, cell, tag)) != value and time.monotonic() < deadline:
        pass
    return seen


def test_a_views_approval_card_stays_while_it_asks_more_and_deny_ends_the_call(notebook: Any) -> None:
    nb = notebook(
        [ADD, "from mcp_notebook import get_client\nr = %mcp call hostile.wiper", PENDING.format(handle="r"), WIPES]
    )
    nb.run_all(0, 1)
    deny = nb.cell(1).locator("button.jupyter-button", has_text="Deny")
    deny.wait_for(timeout=WAIT_MS)  # the view asked for wipe: its card shows under the view
    frame = nb.cell(1).frame_locator(FRAME)
    report = frame.locator("#report")
    report.filter(has_text="wipe=asked").wait_for(timeout=WAIT_MS)
    # The view asks more, twice (each of these requests used to clear the cards area).
    for answered in ("4/4", "8/8"):
        frame.locator("#more").click()
        report.filter(has_text=f"more={answered}").wait_for(timeout=WAIT_MS)
    # Its other requests are over (the kernel says so; its output comes after theirs), and
    # the card is still there, still asking.
    assert until(nb, 2, "PENDING", 1) == 1
    assert deny.count() == 1 and deny.is_enabled()
    deny.click()
    report.filter(has_text=re.compile(r"wipe=error: .*denied")).wait_for(timeout=WAIT_MS)
    assert until(nb, 2, "PENDING", 0) == 0  # the call ended
    assert printed(nb, 3, "WIPES") == 0  # and the server never saw it
    nb.cell(1).locator("button.jupyter-button", has_text="Deny").wait_for(state="detached", timeout=WAIT_MS)


def test_a_closed_views_pending_approval_is_denied(notebook: Any) -> None:
    nb = notebook(
        [ADD, "from mcp_notebook import get_client\nr = %mcp call hostile.wiper", PENDING.format(handle="r"), WIPES]
    )
    nb.run_all(0, 1)
    nb.cell(1).locator("button.jupyter-button", has_text="Deny").wait_for(timeout=WAIT_MS)
    assert printed(nb, 2, "PENDING") == 1  # the approval waits
    # The person clears the view's output: the view is closed, nobody can answer its card.
    nb.cell(1).locator(".jp-InputPrompt").click()
    nb.page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-cell-output')")
    nb.cell(1).locator(FRAME).wait_for(state="detached", timeout=WAIT_MS)
    assert until(nb, 2, "PENDING", 0) == 0  # denied: the call ended
    assert printed(nb, 3, "WIPES") == 0


REFUSED = ("refused-plain-http", "refused-data", "refused-file", "refused-js", "refused-www", "in-a-message",
           "www-message", "in-a-log", "in-a-server-log")  # fmt: skip
LINKS = "() => [...document.querySelectorAll('.jp-Notebook a')].map(a => a.href + ' ' + a.textContent)"


def test_no_address_a_view_sent_is_a_link_unless_allowed_and_it_has_no_webrtc(notebook: Any) -> None:
    nb = notebook([ADD, "r = %mcp call hostile.reach"])
    nb.run_all(0, 1)
    report = nb.cell(1).frame_locator(FRAME).locator("#report")
    report.filter(has_text="allowed=offered").wait_for(timeout=WAIT_MS)
    notes = nb.cell(1).locator(".jp-Cell-outputArea")
    notes.filter(has_text="in-a-log").wait_for(timeout=WAIT_MS)
    notes.filter(has_text="in-a-server-log").wait_for(timeout=WAIT_MS)  # the server's, in its call for the view
    said = dict(line.split("=", 1) for line in report.inner_text().splitlines())
    assert [said[f"refused-{i}"] for i in range(5)] == ["refused"] * 5
    shown = nb.output(1)
    for word in REFUSED:  # each one is said, as text
        assert word in shown, word
    links = nb.page.evaluate(LINKS)
    assert [a for a in links if any(word in a for word in REFUSED)] == [], links
    assert [a for a in links if "example.com" in a] == ["https://example.com/allowed https://example.com/allowed"]
    # WebRTC: nothing to make a connection with in its window, and each frame it made to run
    # a script of its own (a fresh window, WebRTC and all) gone before it loaded.
    report.filter(has_text="frames=made").wait_for(timeout=WAIT_MS)
    said = dict(line.split("=", 1) for line in report.inner_text().splitlines())
    assert said["rtc"] == "none" and said["rtc_new"] == said["rtc_webkit"] == "failed", said
    frames = {k: v for k, v in said.items() if k.startswith("frame_")}
    assert frames == dict.fromkeys(
        ("frame_parsed", "frame_srcdoc", "frame_js", "frame_html", "frame_shadow"), "removed"
    )
    assert not [k for k, v in said.items() if k.startswith("child_")], said  # none of their scripts ran
