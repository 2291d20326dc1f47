"""Real frontends in a real (headless) Chromium, driven as a person drives them: one Jupyter
server per test module (it serves JupyterLab at /lab and Notebook 7 at /notebooks), one
browser, and a ``NotebookPage`` that opens a notebook, runs its cells with Shift+Enter and
reads their outputs as shown.

Needs Debian's chromium (/usr/bin/chromium), playwright, jupyterlab and notebook; .ci/run
installs them. Never ``playwright install`` (it downloads a browser).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .kernels import KERNELS_DIR
from .processes import free_port, stop

CHROMIUM = "/usr/bin/chromium"
# Debian's Chromium as the tests launch it: without the background-networking flags it tries
# hosts this machine cannot reach.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]  # fmt: skip
WAIT_MS = 60_000
FAILURES = Path(os.environ.get("TMPDIR", "/tmp"))
# A tool's view (MCP Apps), and a cell that prints each selection made in the demo's
# scatter view of the call before it (``r``), as Python receives it.
APP_FRAME = "iframe.mcp-notebook-app"
SELECTION = (
    "import ipywidgets as w\n"
    "out = w.Output()\n"
    "def said(context):\n"
    "    rows = context['structuredContent']['selected']\n"
    "    out.append_stdout(f\"SELECTED {len(rows)} {sorted({p['species'] for p in rows})}\\n\")\n"
    "r.app.on_context(said)\n"
    "out"
)

# The notebook's session is ready and its kernel connected and idle (the app's own state;
# window.jupyterapp in JupyterLab and Notebook 7 alike, with expose_app_in_browser).
KERNEL_READY = """() => {
    const app = window.jupyterapp;
    const panel = app && app.shell.currentWidget;
    const context = panel && panel.sessionContext;
    const kernel = context && context.session && context.session.kernel;
    return !!(context && context.isReady && kernel && kernel.connectionStatus === 'connected'
              && kernel.status === 'idle');
}"""
# Every cell's output text and the values its fields hold, one line each.
SHOWN = """() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')].map((cell, i) => {
    const out = cell.querySelector('.jp-Cell-outputArea');
    if (!out) return `cell ${i}: no output`;
    const fields = [...out.querySelectorAll('input, select, textarea')].map(e => {
        const box = e.closest('.widget-inline-hbox');
        const label = box ? box.innerText.split('\\n')[0] : e.type;
        const value = e.tagName === 'SELECT' ? [...e.selectedOptions].map(o => o.text).join('|')
            : e.type === 'checkbox' ? String(e.checked) : e.value;
        return `${label}=${JSON.stringify(value)}`;
    });
    return `cell ${i}: ${JSON.stringify(out.innerText)} fields: ${fields.join(', ')}`;
}).join('\\n')"""
# The input prompt of cell i: "[ ]:", "[*]:" or "[n]:".
PROMPT = (
    "(i => document.querySelectorAll('.jp-Notebook .jp-Cell')[i].querySelector('.jp-InputPrompt').innerText.trim())"
)


def write_notebook(path: Path, cells: list[str], kernel: str = "python3") -> None:
    """A notebook of these code cells, with no outputs, for ``kernel``, for a frontend to open."""
    notebook = {
        "cells": [
            {"cell_type": "code", "id": f"c{i}", "metadata": {}, "source": src, "outputs": [], "execution_count": None}
            for i, src in enumerate(cells)
        ],
        "metadata": {"kernelspec": {"name": kernel, "display_name": kernel, "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(notebook))


def jupyter_server(folder: Path, secret: str = "", kernels: Path | None = None) -> Iterator[str]:
    """A Jupyter server on loopback for ``folder`` (JupyterLab and Notebook 7), with this
    venv's kernel, the ones scripts/setup made and those in ``kernels`` (a Jupyter data
    folder); its address. Its kernels find ``secret`` in $MCP_NOTEBOOK_TEST_SECRET (tests
    check it never shows)."""
    port = free_port()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    # the other ipykernel versions' kernels
    env["JUPYTER_PATH"] = os.pathsep.join(str(p) for p in (kernels, KERNELS_DIR / "share" / "jupyter") if p)
    env["MCP_NOTEBOOK_TOKEN_STORE"] = "memory"  # no tokens left behind
    env["MCP_NOTEBOOK_TEST_SECRET"] = secret
    # JupyterLab's and Notebook 7's settings and workspaces of the server's own: a theme a
    # test (or a person) left in ~/.jupyter does not change what the next run sees. News
    # declined there, so no page asks about it.
    settings = Path(tempfile.mkdtemp(prefix="mcp-notebook-lab-"))
    news = settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    news.parent.mkdir(parents=True)
    news.write_text(json.dumps({"fetchNews": "false"}))
    env["JUPYTERLAB_SETTINGS_DIR"] = str(settings)
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(settings / "workspaces")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip", "127.0.0.1", f"--port={port}",
         "--IdentityProvider.token=", "--ServerApp.password=", "--allow-root", f"--ServerApp.root_dir={folder}",
         # window.jupyterapp: the tests wait on the kernel's real state
         "--LabApp.expose_app_in_browser=True", "--JupyterNotebookApp.expose_app_in_browser=True"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status", timeout=2)
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                shutil.rmtree(settings, ignore_errors=True)
                pytest.fail("the Jupyter server did not start within 60 s", pytrace=False)
            time.sleep(0.2)
    try:
        yield url
    finally:
        stop(server)
        shutil.rmtree(settings, ignore_errors=True)


def voila_command() -> list[str] | None:
    """How to run Voilà: $MCP_NOTEBOOK_VOILA (one in another environment), else this venv's."""
    if os.environ.get("MCP_NOTEBOOK_VOILA"):
        return [os.environ["MCP_NOTEBOOK_VOILA"]]
    if importlib.util.find_spec("voila") is None:
        return None
    return [sys.executable, "-m", "voila"]


def launch(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


class NotebookPage:
    """A notebook open in a tab, run as a person runs it."""

    def __init__(self, page: Any, url: str, name: str) -> None:
        self.page, self.name = page, name
        page.goto(url)
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=WAIT_MS)
        # The toolbar's indicator can say idle before the notebook has a kernel: a Shift+Enter
        # then is lost. Wait for the session to be ready and its kernel connected and idle.
        page.wait_for_function(KERNEL_READY, timeout=WAIT_MS)
        self.cells = page.locator(".jp-Notebook .jp-Cell")

    def cell(self, i: int) -> Any:
        return self.cells.nth(i)

    def run(self, i: int) -> None:
        """Run cell i as a person would; done once the notebook took it (its prompt left
        [ ]). The cell before must have finished."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        cell = self.cells.nth(i)
        focused = cell.locator(".cm-editor.cm-focused")  # typing goes to this cell
        deadline = time.monotonic() + WAIT_MS / 1000
        # A click that lands while the notebook still moves (scrolled to the cell, a view
        # above it growing) selects another place; a person clicks again, and so does this.
        while True:
            cell.locator(".jp-InputArea-editor").click(timeout=WAIT_MS)
            try:
                focused.wait_for(timeout=2000)
                break
            except PlaywrightTimeout:
                if time.monotonic() > deadline:
                    raise
        self.page.keyboard.press("Shift+Enter")
        self.page.wait_for_function(f"() => {PROMPT}({i}) !== '[ ]:'", timeout=WAIT_MS)

    def finished(self, i: int) -> None:
        """Until cell i shows its execution count ([n]:, not [*]:)."""
        self.page.wait_for_function(f"() => /^\\[\\d+\\]:$/.test({PROMPT}({i}))", timeout=WAIT_MS)

    def run_all(self, *cells: int) -> None:
        for i in cells:
            self.run(i)
            self.finished(i)

    def output(self, i: int) -> str:
        return str(self.cells.nth(i).locator(".jp-Cell-outputArea").inner_text())

    def button(self, i: int, label: str) -> Any:
        button = self.cells.nth(i).locator("button.jupyter-button", has_text=label)
        button.wait_for(timeout=WAIT_MS)
        return button

    def field(self, i: int, label: str, kind: str = "input") -> Any:
        """The input of cell i's field whose label reads ``label``."""
        return self.cells.nth(i).locator(".widget-inline-hbox", has_text=label).locator(kind).first

    def type_into(self, box: Any, text: str) -> None:
        """Select what the box holds and type ``text`` over it, key by key."""
        box.click()
        self.page.keyboard.press("Control+a")
        box.press_sequentially(text, delay=60)

    def shoot(self, i: int, path: Path, dark: bool = False) -> None:
        """A screenshot of cell i at ``path`` (NAME.png); with ``dark``, also NAME-dark.png in
        JupyterLab's dark theme (then back to the light one)."""
        self.cells.nth(i).screenshot(path=str(path))
        if dark:
            self._theme("JupyterLab Dark", "false")
            self.cells.nth(i).screenshot(path=str(path.with_name(f"{path.stem}-dark.png")))
            self._theme("JupyterLab Light", "true")

    def _theme(self, theme: str, light: str) -> None:
        self.page.evaluate(f"window.jupyterapp.commands.execute('apputils:change-theme', {{theme: '{theme}'}})")
        self.page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{light}'", timeout=WAIT_MS)
        # JupyterLab shows a splash while the theme's styles load: the shot waits for it to go.
        self.page.wait_for_function("() => !document.querySelector('#jupyterlab-splash')", timeout=WAIT_MS)

    def save(self) -> None:
        self.page.keyboard.press("Control+s")

    def screenshot_on_failure(self, tag: str) -> Path:
        path = FAILURES / f"mcp-notebook-{tag}-failure.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def shown(self) -> str:
        """What each cell's output shows, its fields' values too (a screenshot shows only
        what is scrolled into view): for a failure's report."""
        return str(self.page.evaluate(SHOWN))
