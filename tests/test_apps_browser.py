"""MCP Apps in a real (headless) Chromium in JupyterLab: a tool's view renders in the cell
that called it, and what a person does in it reaches the server through the notebook; a
hostile view stays in its frame. What the view shows is read from inside its frame.
One Jupyter server and one browser for the module."""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.frontends import APP_FRAME as FRAME
from support.frontends import SELECTION, WAIT_MS, NotebookPage, jupyter_server
from support.peers import APP_SEGMENTS, APP_VANILLA, APPS_SERVER

pytestmark = pytest.mark.browser

COUNT_CALLS = (
    "import mcp_notebook\n"
    "print('CALLS', sum(1 for c in mcp_notebook.get_client().calls('{server}') "
    "if c.method == 'tools/call' and c.params.get('name') == '{tool}'))"
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    folder = tmp_path_factory.mktemp("notebooks")
    for url in jupyter_server(folder):
        yield url, folder


def calls_seen(nb: NotebookPage, cell: int) -> int:
    nb.run(cell)
    nb.finished(cell)
    match = re.search(r"CALLS (\d+)", nb.output(cell))
    assert match, nb.output(cell)
    return int(match.group(1))


@pytest.mark.parametrize("app", ["lab", "notebooks"])  # JupyterLab, Notebook 7
def test_npm_views_render_in_their_cells_and_call_their_tools_through_the_notebook(notebook: Any, app: str) -> None:
    nb = notebook(
        [
            "%load_ext mcp_notebook",
            f"%mcp add app -- node {APP_VANILLA} --stdio\n%mcp add seg -- node {APP_SEGMENTS} --stdio",
            "r = %mcp call app.get-time\nr.structured",
            COUNT_CALLS.format(server="app", tool="get-time"),
            "r = %mcp call seg.get-customer-data",
            COUNT_CALLS.format(server="seg", tool="get-customer-data"),
        ],
        app=app,
    )
    nb.run_all(0, 1, 2)
    frame = nb.cell(2).frame_locator(FRAME)
    shown = frame.locator("#server-time")
    # The tool's result reached the view: it shows the time the call returned.
    shown.filter(has_text=re.compile(r"\d{4}-\d\d-\d\dT")).wait_for(timeout=WAIT_MS)
    first = shown.inner_text()
    assert calls_seen(nb, 3) == 1
    frame.locator("#get-time-btn").click()  # the view's own tools/call, through the notebook
    shown.filter(has_text=re.compile(r"\d{4}-\d\d-\d\dT")).filter(has_not_text=first).wait_for(timeout=WAIT_MS)
    assert calls_seen(nb, 3) == 2

    # customer-segmentation loads its customers itself, with a second get-customer-data through
    # the notebook, then draws its chart (Chart.js, inline: no CDN) and a legend of segments.
    nb.run_all(4)
    frame = nb.cell(4).frame_locator(FRAME)
    legend = frame.locator(".legend-item")
    legend.first.wait_for(timeout=WAIT_MS)
    deadline = time.monotonic() + 60
    while (count := calls_seen(nb, 5)) < 2 and time.monotonic() < deadline:
        pass  # each look is a cell run, which waits for its own output
    assert count == 2
    # Its filters work in the page (this app asks the server nothing more): a person changes
    # an axis, then leaves a segment out.
    frame.locator("#x-axis").select_option("nps")
    legend.first.click()
    frame.locator(".legend-item.hidden").wait_for(timeout=WAIT_MS)
    assert legend.count() >= 2 and frame.locator(".legend-item.hidden").count() == 1


THEME = "(theme) => window.jupyterapp.commands.execute('apputils:change-theme', {theme})"


@pytest.mark.parametrize("app", ["lab", "notebooks"])
def test_the_demos_scatter_view_replots_and_its_selection_reaches_python(notebook: Any, app: str) -> None:
    nb = notebook(
        [
            "%load_ext mcp_notebook",
            f"%mcp add demo -- {sys.executable} -m mcp_notebook.demo",
            "r = %mcp call demo.plot_penguins",
            SELECTION,
            COUNT_CALLS.format(server="demo", tool="penguin_points"),
        ],
        app=app,
    )
    nb.run_all(0, 1, 2, 3)
    frame = nb.cell(2).frame_locator(FRAME)
    status = frame.locator("#status")
    status.filter(has_text="342 penguins").wait_for(timeout=WAIT_MS)  # the call's result, drawn
    assert frame.locator("circle").count() == 342
    assert calls_seen(nb, 4) == 0
    frame.get_by_label("Chinstrap").uncheck()  # the view asks its server for other points
    status.filter(has_text="274 penguins").wait_for(timeout=WAIT_MS)
    assert frame.locator("circle.Chinstrap").count() == 0
    assert calls_seen(nb, 4) == 1
    # A person drags a box over the whole plot: every penguin shown is selected, and Python hears of it.
    box = frame.locator("svg#plot").bounding_box()
    assert box is not None
    nb.page.mouse.move(box["x"] + 2, box["y"] + 2)
    nb.page.mouse.down()
    nb.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=5)
    nb.page.mouse.move(box["x"] + box["width"] - 2, box["y"] + box["height"] - 2, steps=5)
    nb.page.mouse.up()
    printed = nb.cell(3).locator("[data-mime-type='application/vnd.jupyter.stdout']")
    printed.filter(has_text="SELECTED 274 ['Adelie', 'Gentoo']").wait_for(timeout=WAIT_MS)
    frame.locator("circle").last.click()  # a click takes one penguin out again (the last drawn is on top)
    printed.filter(has_text="SELECTED 273 ").wait_for(timeout=WAIT_MS)
    if app == "lab":  # the person switches JupyterLab to its dark theme: the view follows
        assert frame.locator("html.dark").count() == 0
        nb.page.evaluate(THEME, "JupyterLab Dark")
        frame.locator("html.dark").wait_for(state="attached", timeout=WAIT_MS)
        nb.page.evaluate(THEME, "JupyterLab Light")
        frame.locator("html:not(.dark)").wait_for(state="attached", timeout=WAIT_MS)  # and back, for the next tests


def test_a_hostile_view_stays_in_its_frame(notebook: Any) -> None:
    add = f"%mcp add apps -- {' '.join(APPS_SERVER)}"
    declared = "d = %mcp call apps.supports_apps\nprint('declared', d.text)"
    nb = notebook(["%load_ext mcp_notebook", add, declared, "r = %mcp call apps.probe"])
    nb.run_all(0, 1, 2, 3)
    assert "declared true" in nb.output(2)  # where views show, the server is told
    report = nb.cell(3).frame_locator(FRAME).locator("#report")
    report.filter(has_text="pick_rows=").wait_for(timeout=WAIT_MS)
    report.filter(has_text="csp=connect-src").wait_for(timeout=WAIT_MS)
    said = dict(line.split("=", 1) for line in report.inner_text().splitlines())
    assert said["parent"] == "blocked" and said["top"] == "blocked"  # not the notebook page
    assert said["storage"] == "blocked"  # an opaque origin: no storage of the notebook's
    assert said["cookie"] in ("blocked", "empty")
    assert said["fetch"] == "failed" and said["csp"] == "connect-src"  # an undeclared domain
    assert said["model_only"] == "refused"  # not a tool its views may call
    assert said["js_link"] == "refused"
    assert json.loads(said["pick_rows"]) == {"result": [0, 1]}  # a tool for its views: called
    # The flood's line comes once the view's limiter has counted a second of it.
    nb.cell(3).locator(".jp-Cell-outputArea", has_text="dropped").wait_for(timeout=WAIT_MS)
    notes = nb.output(3)
    assert "<b>bold</b><img src=x onerror=alert(1)>" in notes  # its message, as text
    assert "not a link" in notes and "javascript:alert(1)" in notes  # as text: escaped HTML, no scheme://
    assert nb.cell(3).locator("a", has_text="javascript").count() == 0  # never a link
    assert re.search(r"sent too many messages: \d+ dropped", notes), notes
    assert notes.count("flood") == 20 and "go to the logger only" in notes
    assert nb.cell(3).locator(FRAME).evaluate("f => f.style.height") == "4000px"  # 10^7 px asked
    assert nb.cell(3).locator(".jp-OutputArea-output img").count() == 0  # no HTML of its own in the page


def test_a_view_shows_from_the_cell_magic_the_api_awaited_or_not_and_a_forms_run(notebook: Any) -> None:
    nb = notebook(
        [
            f"%load_ext mcp_notebook\n%mcp add demo -- {sys.executable} -m mcp_notebook.demo",
            "%%mcp_call demo.plot_penguins\n{'species': ['Gentoo']}",
            "from mcp_notebook import get_client\n"
            "r = get_client()['demo'].call_tool('plot_penguins', {'species': ['Chinstrap']})",
            "r = await get_client()['demo'].acall_tool('plot_penguins', {'species': ['Adelie']})",
            "%mcp form demo.plot_penguins",
        ]
    )
    nb.run_all(0)
    # Each view drawn before the next cell runs, as a person watches it: a view's frame grows
    # when it has drawn (size-changed), which moves the cells below it.
    for cell, shown in [(1, "123 penguins"), (2, "68 penguins"), (3, "151 penguins")]:
        nb.run_all(cell)
        nb.cell(cell).frame_locator(FRAME).locator("#status", has_text=shown).wait_for(timeout=WAIT_MS)
        grown = nb.cell(cell).locator(FRAME).element_handle()
        nb.page.wait_for_function("frame => frame.style.height !== '150px'", arg=grown, timeout=WAIT_MS)
    nb.run_all(4)
    nb.button(4, "Run").click()  # the form's own call: its view shows in the form
    drawn = re.compile(r"^\d+ penguins$")
    nb.cell(4).frame_locator(FRAME).locator("#status", has_text=drawn).wait_for(timeout=WAIT_MS)
