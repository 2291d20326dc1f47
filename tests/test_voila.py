"""Voilà in a real (headless) Chromium: a widget frontend that sends allow_stdin=False.

A dashboard's button runs a blocking call in its callback. The card shows in the page and
a click approves it where a blocked callback gets clicks (ipykernel 6, by polling); on
ipykernel >= 7.4 it cannot, and the headless policy answers with a line saying what shows a
card. Voilà runs the notebook before the page connects, so the cells themselves find nobody
to click (the policy), which test_prompts_other covers with nbclient.

Needs Debian's chromium, playwright and voila (MCP_NOTEBOOK_VOILA may name a voila
executable in another environment): the browser and voila tiers (tests/support/tiers.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.frontends import APP_FRAME, SELECTION, WAIT_MS, voila_command, write_notebook
from support.kernels import browser_kernel_names, ipykernel_version, kernel_spec
from support.peers import EVERYTHING
from support.processes import free_port, stop, wait_for_port

pytestmark = [pytest.mark.browser, pytest.mark.voila]
# Not ipykernel 7.0-7.3 here: for the dashboard, a blocked cell gets only clicks sent on a
# subshell there, and Voilà sends none; for cards, 7.3 takes 7.4's way (subshells), and
# JupyterLab's tests keep it (tests/test_browser.py).
IN_THE_PAGE = [name for name in ["python3", *browser_kernel_names()] if not (7, 0) <= ipykernel_version(name) < (7, 4)]

CELLS = [
    "%load_ext mcp_notebook",
    f"%mcp add demo -- {sys.executable} -m mcp_notebook.demo",
    "import ipywidgets as w\n"
    "from mcp_notebook import get_client\n"
    "out = w.Output()\n"
    "def delete(_):\n"
    "    with out:\n"
    "        print('RESULT', get_client()['demo'].call_tool('delete_penguins', {'species': 'Adelie'}).text)\n"
    "button = w.Button(description='Delete Adelie')\n"
    "button.on_click(delete)\n"
    "display(button, out)",
]


def _kernel_python(name: str) -> str:
    if name == "python3":
        return sys.executable
    return str(json.loads(kernel_spec(name).read_text())["argv"][0])


@contextlib.contextmanager
def serve_voila(folder: Path, name: str, cells: list[str]) -> Iterator[str]:
    """Voilà serving a notebook of ``cells`` on kernel ``name`` (as the notebook's "python3"): its address."""
    voila = voila_command()
    assert voila is not None  # the voila tier's check
    spec = folder / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    argv = [_kernel_python(name), "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    spec.joinpath("kernel.json").write_text(json.dumps({"argv": argv, "display_name": name, "language": "python",
                                                        "env": env}))  # fmt: skip
    write_notebook(folder / "dashboard.ipynb", cells)
    port = free_port()
    with (folder / "voila.log").open("wb") as log:  # what rendered() shows when a cell failed
        server = subprocess.Popen(
            [*voila, "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1", "dashboard.ipynb"],
            cwd=folder, stdout=log, stderr=subprocess.STDOUT,
            env={**os.environ, "JUPYTER_PATH": str(folder / "jupyter"), "MCP_NOTEBOOK_TOKEN_STORE": "memory"},
        )  # fmt: skip
    wait_for_port(port, server, "Voilà", 60)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(server)


def rendered(page: Any, target: Any, folder: Path) -> None:
    """Until Voilà has run the notebook and the page shows ``target``. A cell that failed
    ends the wait at once: the page then says only that one failed; Voilà's log says why."""
    failed = page.get_by_text("There was an error when executing cell")
    target.or_(failed).first.wait_for(timeout=WAIT_MS * 2)
    if failed.count():
        log = (folder / "voila.log").read_text(errors="replace")[-3000:]
        pytest.fail(f"{failed.first.inner_text()}\nVoilà's log ends with:\n{log}", pytrace=False)


@pytest.fixture(params=IN_THE_PAGE)
def dashboard(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Voilà serving the dashboard on one kernel (as the notebook's "python3"): its address."""
    name = request.param
    with serve_voila(tmp_path, name, CELLS) as url:
        yield url, name


@contextlib.contextmanager
def page_at(browser: Any, url: str, tag: str) -> Iterator[Any]:
    """A page of its own (a fresh browser context) in the module's Chromium."""
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    try:
        page.goto(url, timeout=WAIT_MS)
        yield page
    except BaseException:
        failure = Path(os.environ.get("TMPDIR", "/tmp")) / f"mcp-notebook-voila-{tag}-failure.png"
        page.screenshot(path=str(failure), full_page=True)
        print(f"screenshot of the failure: {failure}")
        raise
    finally:
        context.close()


@pytest.mark.parametrize("kernel", IN_THE_PAGE)
def test_calls_that_need_a_person_ask_in_the_page(kernel: str, browser: Any, tmp_path: Path) -> None:
    """By default (no setting): %mcp form works in Voilà and its Run asks for approval in the
    page; a cell's own call that needed a person while Voilà ran the notebook (nothing sent)
    becomes a card whose Run makes it from the page, asking there. So does a call whose
    server asked a question then (the policy answered it): its Run asks in the page."""
    cells = [
        "%load_ext mcp_notebook",
        f"%mcp add demo -- {sys.executable} -m mcp_notebook.demo",
        "%mcp form demo.delete_penguins -o gone",
        "r = %mcp call demo.delete_penguins species=Gentoo",
        "%mcp call demo.add_observation",
        "%mcp call demo.no_such_tool",  # last: Voilà runs no cell after an error
    ]
    with serve_voila(tmp_path, kernel, cells) as url, page_at(browser, url, "form") as page:
        species = page.locator("select").first
        rendered(page, species, tmp_path)  # the form
        text = page.locator("body").inner_text()
        assert "forms need widgets" not in text
        assert "This call needs you" in text and "%mcp call demo.delete_penguins species=Gentoo" in text
        assert "UsageError: server 'demo' has no tool 'no_such_tool'" in text  # Voilà drops error outputs
        species.select_option(label="Adelie")
        species.select_option(label="Chinstrap")
        runs = page.locator("button.jupyter-button", has_text="Run")
        runs.nth(0).click()
        page.locator("button.jupyter-button", has_text="Approve").click(timeout=WAIT_MS)
        page.wait_for_function("() => document.body.innerText.includes('deleted 68 Chinstrap')", timeout=WAIT_MS)
        runs.nth(1).click()  # the cell's own call, made from the page
        page.locator("button.jupyter-button:not([disabled])", has_text="Approve").click(timeout=WAIT_MS)
        page.wait_for_function("() => document.body.innerText.includes('deleted 124 Gentoo')", timeout=WAIT_MS)

        text = page.locator("body").inner_text()
        assert "nothing recorded (the user chose decline)" in text  # the policy's answer, while Voilà ran it
        assert "The server asked you something during this call" in text
        runs.nth(2).click()  # made again from the page: the server's form shows there
        species = page.get_by_label("Species *", exact=True)
        species.select_option(label="Gentoo", timeout=WAIT_MS)
        species.select_option(label="Chinstrap")
        page.locator("button.jupyter-button", has_text="Accept").click()
        page.wait_for_function("() => document.body.innerText.includes('recorded a')", timeout=WAIT_MS)
        assert "recorded a female Chinstrap of 4000 g on" in page.locator("body").inner_text()


def test_voila_dashboard_callback(dashboard: tuple[str, str], browser: Any, tmp_path: Path) -> None:
    url, name = dashboard
    with page_at(browser, url, "callback") as page:
        button = page.locator("button.jupyter-button", has_text="Delete Adelie")
        rendered(page, button, tmp_path)  # the page's widget manager rendered the button
        button.click(timeout=WAIT_MS)
        assert "✓ demo" in page.locator("body").inner_text()
        if ipykernel_version(name) < (7, 0):
            approve = page.locator("button.jupyter-button", has_text="Approve")
            approve.click(timeout=WAIT_MS)  # waits until the card is rendered and enabled
            page.wait_for_function("() => document.body.innerText.includes('RESULT ')", timeout=WAIT_MS)
            assert "RESULT deleted 152 Adelie penguins" in page.locator("body").inner_text()
        else:
            page.wait_for_function("() => document.body.innerText.includes('nobody can answer')", timeout=WAIT_MS)
            text = page.locator("body").inner_text()
            assert "needs approval and nobody can answer here, so it was denied" in text
            assert "in a cell, the %mcp magics or `await client[server].acall_tool(...)` show a card" in text
            assert "Approve" not in text  # no card that could never be answered


def test_a_form_elicitation_and_a_typed_reply_in_voila(browser: Any, tmp_path: Path) -> None:
    """A server's questions during a form's Run, answered in the page: the observation form
    changed twice, a model reply typed key by key; each read back from the server."""
    cells = [
        "%load_ext mcp_notebook",
        f"%mcp add demo -- {sys.executable} -m mcp_notebook.demo",
        f"%mcp add everything -- node {EVERYTHING} stdio",
        "%mcp form demo.add_observation",
        "%mcp form everything.trigger-sampling-request",
    ]
    with serve_voila(tmp_path, "python3", cells) as url, page_at(browser, url, "questions") as page:
        runs = page.locator("button.jupyter-button", has_text="Run")
        rendered(page, runs.nth(1), tmp_path)  # both forms
        runs.nth(0).click()
        species = page.get_by_label("Species *", exact=True)
        species.select_option(label="Gentoo", timeout=WAIT_MS)
        species.select_option(label="Chinstrap")
        mass = page.get_by_label("Body mass (g)", exact=False)
        mass.click()
        page.keyboard.press("Control+a")
        mass.press_sequentially("5200", delay=60)
        mass.press("Tab")
        page.locator("button.jupyter-button", has_text="Accept").click()
        page.wait_for_function("() => document.body.innerText.includes('recorded a')", timeout=WAIT_MS)
        assert "recorded a female Chinstrap of 5200 g on" in page.locator("body").inner_text()

        page.get_by_label("prompt", exact=False).fill("greet")
        runs.nth(1).click()
        reply = page.locator("textarea").last
        reply.wait_for(timeout=WAIT_MS)
        reply.click()
        reply.press_sequentially("Bonjour !", delay=60)
        page.locator("button.jupyter-button", has_text="Approve").click()
        page.wait_for_function("() => document.body.innerText.includes('LLM sampling result')", timeout=WAIT_MS)
        assert '"text": "Bonjour !"' in page.locator("body").inner_text()


def test_a_servers_view_in_a_voila_dashboard(browser: Any, tmp_path: Path) -> None:
    """MCP Apps in Voilà: the demo's scatter view renders in the page, asks its server for
    other points when a species is left out, and a penguin clicked reaches Python."""
    cells = [
        "%load_ext mcp_notebook",
        f"%mcp add demo -- {sys.executable} -m mcp_notebook.demo",
        "r = %mcp call demo.plot_penguins",
        SELECTION,
    ]
    with serve_voila(tmp_path, "python3", cells) as url, page_at(browser, url, "app") as page:
        rendered(page, page.locator(APP_FRAME), tmp_path)
        frame = page.frame_locator(APP_FRAME)
        status = frame.locator("#status")
        status.filter(has_text="342 penguins").wait_for(timeout=WAIT_MS)
        frame.get_by_label("Gentoo").uncheck()
        status.filter(has_text="219 penguins").wait_for(timeout=WAIT_MS)
        frame.locator("circle").last.click()
        page.get_by_text("SELECTED 1 ").wait_for(timeout=WAIT_MS)
