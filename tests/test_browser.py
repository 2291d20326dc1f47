"""JupyterLab in a real (headless) Chromium: click Approve, fill and accept an elicitation
form, log in to an OAuth server through the login card, and read the cells' outputs.
Screenshots for the README: MCP_NOTEBOOK_SCREENSHOTS=docs.

Needs Debian's chromium (/usr/bin/chromium), playwright and jupyterlab; .ci/run installs
them. Elsewhere, without chromium, the test is skipped with that reason.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from kernels import CHROMIUM_ARGS, write_notebook

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent
# Screenshots land in a temporary folder; MCP_NOTEBOOK_SCREENSHOTS=docs refreshes the README's.
DOCS = Path(os.environ.get("MCP_NOTEBOOK_SCREENSHOTS") or Path(os.environ.get("TMPDIR", "/tmp")) / "mcp-notebook-shots")
WAIT_MS = 60_000

if not Path(CHROMIUM).exists() and not os.environ.get("CI"):
    pytest.skip("no /usr/bin/chromium here (apt-get install chromium; CI installs it)", allow_module_level=True)
playwright = (
    pytest.importorskip("playwright.sync_api")
    if not os.environ.get("CI")
    else __import__("playwright.sync_api").sync_api
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# The notebook's session is ready and its kernel connected and idle (JupyterLab's own state).
KERNEL_READY = """() => {
    const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const context = panel && panel.sessionContext;
    const kernel = context && context.session && context.session.kernel;
    return !!(context && context.isReady && kernel && kernel.connectionStatus === 'connected'
              && kernel.status === 'idle');
}"""
# The input prompt of cell i: "[ ]:", "[*]:" or "[n]:".
PROMPT = (
    "(i => document.querySelectorAll('.jp-Notebook .jp-Cell')[i].querySelector('.jp-InputPrompt').innerText.trim())"
)

CELLS = [
    "%load_ext mcp_notebook",
    "%mcp add demo -- python -m mcp_notebook.demo",
    "r = %mcp call demo.delete_penguins species=Adelie\nr.text",
    "r = %mcp call demo.add_observation\nr.text",
]


@pytest.fixture(scope="module")
def protected_demo() -> Iterator[str]:
    """The demo server behind its own authorization server (which approves at once)."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "mcp_notebook.demo", "--http", str(port), "--oauth"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                proc.kill()
                pytest.fail("the demo server with --oauth did not start")
            time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    proc.kill()
    proc.wait()


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory, protected_demo: str) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("lab")
    cells = [*CELLS, f"%mcp add secure {protected_demo}"]
    write_notebook(folder / "prompts.ipynb", cells)
    port = _free_port()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env["JUPYTER_PATH"] = ""  # only this venv's kernel
    env["MCP_NOTEBOOK_TOKEN_STORE"] = "memory"  # no tokens left behind
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip", "127.0.0.1", f"--port={port}",
         "--IdentityProvider.token=", "--ServerApp.password=", "--allow-root", f"--ServerApp.root_dir={folder}",
         "--LabApp.expose_app_in_browser=True"],  # window.jupyterapp: the test waits on the kernel's real state
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
                pytest.fail("JupyterLab did not start within 60 s")
            time.sleep(0.2)
    try:
        yield url
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()


def test_approve_and_elicitation_in_jupyterlab(lab: str) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
        )
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        try:
            page.goto(f"{lab}/lab/tree/prompts.ipynb")
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=WAIT_MS)
            news = page.get_by_role("button", name="No", exact=True)  # JupyterLab asks about its news
            try:
                news.click(timeout=5000)
            except Exception:
                pass  # not asked this time
            # The toolbar's indicator can say idle before the notebook has a kernel: a Shift+Enter
            # then is lost. Wait for the session to be ready and its kernel connected and idle.
            page.wait_for_function(KERNEL_READY, timeout=WAIT_MS)
            cells = page.locator(".jp-Notebook .jp-Cell")

            def run(i: int) -> None:
                """Run cell i as a person would; done once the notebook took it (its prompt
                left [ ]). The cell before must have finished."""
                cell = cells.nth(i)
                cell.locator(".jp-InputArea-editor").click()
                cell.locator(".cm-editor.cm-focused").wait_for(timeout=WAIT_MS)  # typing goes to this cell
                page.keyboard.press("Shift+Enter")
                page.wait_for_function(f"() => {PROMPT}({i}) !== '[ ]:'", timeout=WAIT_MS)

            def finished(i: int) -> None:
                """Until cell i shows its execution count ([n]:, not [*]:)."""
                page.wait_for_function(f"() => /^\\[\\d+\\]:$/.test({PROMPT}({i}))", timeout=WAIT_MS)

            def output(i: int) -> str:
                return cells.nth(i).locator(".jp-OutputArea").inner_text()

            run(0)
            finished(0)
            run(1)
            finished(1)
            assert "✓ demo" in output(1)
            run(2)
            approve = cells.nth(2).locator("button.jupyter-button", has_text="Approve")
            approve.wait_for(timeout=WAIT_MS)
            DOCS.mkdir(exist_ok=True)
            cells.nth(2).screenshot(path=str(DOCS / "approval.png"))
            approve.click()
            finished(2)
            assert "deleted 152 Adelie" in output(2)
            run(3)
            accept = cells.nth(3).locator("button.jupyter-button", has_text="Accept")
            accept.wait_for(timeout=WAIT_MS)
            cells.nth(3).locator(".widget-dropdown", has_text="Species").locator("select").select_option(label="Gentoo")
            cells.nth(3).locator(".widget-dropdown", has_text="Island").locator("select").select_option(label="Dream")
            cells.nth(3).screenshot(path=str(DOCS / "elicitation.png"))
            accept.click()
            finished(3)
            assert "recorded a female Gentoo of 4000 g on Dream" in output(3)
            page.screenshot(path=str(DOCS / "prompts-notebook.png"), full_page=True)

            # OAuth: the login card's link opens the authorization page in a new tab; it
            # approves and sends the browser back to the kernel's listener; the cell goes on.
            run(4)
            link = cells.nth(4).locator("a", has_text="Log in")
            link.wait_for(timeout=WAIT_MS)
            cells.nth(4).screenshot(path=str(DOCS / "login.png"))
            with page.expect_popup() as opened:
                link.click()
            tab = opened.value
            tab.wait_for_load_state()
            assert "Login complete" in tab.content()
            finished(4)
            assert "✓ secure" in output(4) and "logged in" in output(4)
        except BaseException:
            failure = Path(os.environ.get("TMPDIR", "/tmp")) / "mcp-notebook-browser-failure.png"
            page.screenshot(path=str(failure), full_page=True)
            print(f"screenshot of the failure: {failure}")
            raise
        finally:
            browser.close()
