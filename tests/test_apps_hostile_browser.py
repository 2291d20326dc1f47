"""Hostile MCP Apps views in a real (headless) Chromium in JupyterLab
(tests/servers/hostile_apps.py): a view's approval card stays until it is answered, whatever
else the view asks meanwhile, and a closed view's approval is denied; a view closed before its
card shows has its calls ended (the server told, the destructive tool never run); an approval
nobody answers is denied at its deadline; no address a view sent
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


def test_a_view_closed_before_its_card_shows_ends_its_calls(notebook: Any, server: tuple[str, Path]) -> None:
    """The view is closed while its calls are under way: one at the server (hold, which runs
    until cancelled), one still looking its tool up (wipe: the tool list it waits for comes
    once the gate file exists; its approval card is not shown yet). Both end; the server is
    told of the one it runs and never sees the other."""
    gate = server[1] / "hold-gate"
    # No request timeout to end them meanwhile: only the view's closing may.
    setup = "from mcp_notebook import get_client\nget_client().settings.request_timeout = None"
    call = f"{setup}\nr = %mcp call hostile.holder"
    cancelled = "print('CANCELLED', int((await get_client()['hostile'].acall_tool('cancelled')).text))"
    nb = notebook([f"{ADD} --gate {gate}", call, PENDING.format(handle="r"), WIPES, cancelled])
    nb.run_all(0, 1)
    report = nb.cell(1).frame_locator(FRAME).locator("#report")
    report.filter(has_text="wipe=asked").wait_for(timeout=WAIT_MS)
    assert until(nb, 2, "PENDING", 2) == 2  # hold at the server, wipe waiting on the tool list
    nb.cell(1).locator(".jp-InputPrompt").click()
    nb.page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-cell-output')")
    nb.cell(1).locator(FRAME).wait_for(state="detached", timeout=WAIT_MS)
    printed(nb, 2, "PENDING")  # the kernel heard of the view's going (a message before this cell's)
    gate.touch()  # wipe's tool list comes: its card would show now, in an area gone from the page
    assert until(nb, 2, "PENDING", 0) == 0  # both ended with the view: nothing waits for nobody
    assert printed(nb, 3, "WIPES") == 0  # never run
    assert until(nb, 4, "CANCELLED", 1) == 1  # the server was told to stop hold


def test_a_views_approval_nobody_answers_is_denied_at_its_deadline(notebook: Any) -> None:
    """The view stays, nobody answers its card: denied when the server's request timeout
    has passed (as if the view's "closed" never came: the page closed abruptly)."""
    setup = "from mcp_notebook import get_client\nget_client().settings.task_timeout = 5"
    nb = notebook([ADD, f"{setup}\nr = %mcp call hostile.wiper", PENDING.format(handle="r"), WIPES])
    nb.run_all(0, 1)
    deny = nb.cell(1).locator("button.jupyter-button", has_text="Deny")
    deny.wait_for(timeout=WAIT_MS)
    report = nb.cell(1).frame_locator(FRAME).locator("#report")
    report.filter(has_text=re.compile(r"wipe=error: .*denied")).wait_for(timeout=WAIT_MS)
    deny.wait_for(state="detached", timeout=WAIT_MS)  # the card ended with its call
    assert until(nb, 2, "PENDING", 0) == 0
    assert printed(nb, 3, "WIPES") == 0
    assert "nobody answered" in nb.output(1)


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
