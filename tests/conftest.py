"""Shared fixtures: real peers (server-everything), a client, a throwaway user config folder
and IPython folder per process; the tiers' checks (tests/support/tiers.py), --no-skips, and
the order modules start in (the longest first).
Helpers that are not fixtures live in tests/support."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import tiers
from support.frontends import NotebookPage, launch, write_notebook
from support.kernels import kernel_spec
from support.peers import EVERYTHING, ROOT, node
from support.processes import free_port, running
from support.waiting import WAIT

from mcp_notebook import Client
from mcp_notebook.core.config.scopes import CONFIG_DIR_ENV

SUPPORT = Path(__file__).parent / "support"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--no-skips", action="store_true", help="a skipped test fails the run (CI: nothing is left out)")


# The modules that take minutes (CI's --durations), longest first. They start first: with
# whole modules handed out (--dist loadfile), a long one started last would run alone at
# the end while the other workers wait.
FIRST = [
    "test_notebooks.py", "test_conformance.py", "test_browser.py", "test_apps_browser.py", "test_voila.py",
    "test_tasks.py", "test_terminal.py", "test_wheel.py", "test_dask.py", "test_tasks_kernel.py",
    "test_remote.py", "test_modern_http.py", "test_history.py", "test_apps.py",
]  # fmt: skip


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(FIRST)))  # stable: each module's order kept


def pytest_runtest_setup(item: pytest.Item) -> None:
    tiers.check(item)


def _skipped(config: pytest.Config) -> int:
    """How many tests were skipped, when --no-skips makes that a failure (0 otherwise)."""
    if not config.getoption("no_skips") or hasattr(config, "workerinput"):
        return 0  # (pytest-xdist's workers: their controller has every report)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    return len(reporter.stats.get("skipped", [])) if reporter else 0


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if exitstatus == pytest.ExitCode.OK and _skipped(session.config):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    if skipped := _skipped(config):
        terminalreporter.write_line(f"--no-skips: {skipped} skipped (listed below), so the run fails", red=True)


@pytest.fixture(scope="session", autouse=True)
def fork_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The Python servers the tests start (the demo, tests/servers/sdk_*.py) are forked from
    one that imported the MCP SDK already (tests/support/forkserver.py): a start costs a fork,
    not 1.4 s of CPU. MCP_NOTEBOOK_TESTS_NO_FORKSERVER=1 starts them as usual."""
    if os.environ.get("MCP_NOTEBOOK_TESTS_NO_FORKSERVER"):
        yield
        return
    path = tmp_path_factory.mktemp("forkserver") / "socket"
    server = subprocess.Popen([sys.executable, str(SUPPORT / "forkserver.py"), str(path)], stdin=subprocess.PIPE)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MCP_NOTEBOOK_TEST_FORKSERVER", str(path))
        mp.setenv("MCP_NOTEBOOK_TEST_FORKSERVER_PYTHON", sys.executable)
        shim = str(SUPPORT / "forkshim")
        path = os.pathsep.join(p for p in (shim, os.environ.get("PYTHONPATH")) if p)
        mp.setenv("PYTHONPATH", path)
        mp.setenv("MCP_NOTEBOOK_TEST_FORKSERVER_PYTHONPATH", path)  # a server given another starts as usual
        yield
    assert server.stdin is not None
    server.stdin.close()  # it ends at its stdin's end
    server.wait(WAIT)


@pytest.fixture(scope="session", autouse=True)
def user_config_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Saved servers (user and local scopes) go to a throwaway folder, in kernels started
    by tests too: no test reads or writes the real user config. (One per process: each
    pytest-xdist worker has its own.)"""
    folder = tmp_path_factory.mktemp("user-config")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(CONFIG_DIR_ENV, str(folder))
        yield folder


@pytest.fixture(scope="session", autouse=True)
def ipython_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """IPython's profile and history database, for this process's shell and the kernels it
    starts: a throwaway one per process, not the user's (which other runs share)."""
    folder = tmp_path_factory.mktemp("ipython")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("IPYTHONDIR", str(folder))
        yield folder


@pytest.fixture(scope="session")
def everything_cmd() -> tuple[str, list[str]]:
    if not EVERYTHING.exists():
        pytest.fail(f"{EVERYTHING} is missing: run `npm ci` in {ROOT} first")
    return node(), [str(EVERYTHING), "stdio"]


@pytest.fixture
def client() -> Iterator[Client]:
    c = Client()
    yield c
    c.close()


@pytest.fixture(scope="module")
def module_client() -> Iterator[Client]:
    c = Client()
    yield c
    c.close()


@pytest.fixture(scope="module")
def everything(module_client: Client, everything_cmd: tuple[str, list[str]]):  # type: ignore[no-untyped-def]
    command, args = everything_cmd
    return module_client.add("everything", command, args)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium for a module's browser tests (tests/support/frontends.py launches it)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = launch(p)
        yield chromium
        chromium.close()


@pytest.fixture
def notebook(server: tuple[str, Path], browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """``open(cells, kernel=..., app="lab"|"notebooks")``: a notebook of these cells, open in
    a new tab of the module's Chromium, on the module's Jupyter server (its ``server``
    fixture: the address and the folder); a failure leaves a screenshot and what showed."""
    url, folder = server
    opened: list[NotebookPage] = []
    failed = request.session.testsfailed

    def open_(cells: list[str], kernel: str = "python3", app: str = "lab") -> NotebookPage:
        if kernel != "python3":
            kernel_spec(kernel)  # one scripts/setup made: the test fails now if it is missing
        name = re.sub(r"\W+", "-", request.node.name).strip("-") + ".ipynb"
        write_notebook(folder / name, cells, kernel)
        page = browser.new_page(viewport={"width": 1200, "height": 1000})
        # ?reset: a fresh workspace, not the last test's notebook open beside this one
        path = f"lab/tree/{name}?reset" if app == "lab" else f"notebooks/{name}"
        opened.append(NotebookPage(page, f"{url}/{path}", name))
        return opened[-1]

    yield open_
    for nb in opened:
        if request.session.testsfailed > failed:  # the call's report is counted before teardown
            print(f"screenshot of the failure: {nb.screenshot_on_failure(request.node.name)}")
            print(f"shown:\n{nb.shown()}")
        nb.page.close()


# -- the demo over HTTP, and a home of one's own: the command line's tests (test_cli*.py) --


@pytest.fixture(scope="module")
def demo_http() -> Iterator[str]:
    """The demo over Streamable HTTP, for the module."""
    port = free_port()
    with running([sys.executable, "-m", "mcp_notebook.demo", "--http", str(port)], port):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module")
def demo_oauth() -> Iterator[str]:
    """The demo behind its authorization server (which approves at once), for the module."""
    port = free_port()
    with running([sys.executable, "-m", "mcp_notebook.demo", "--http", str(port), "--oauth"], port):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture
def cli_home(tmp_path: Path) -> dict[str, str]:
    """Environment for a run with saved servers and tokens of this test's own (the user
    scope's folder, a token file), as a process's env additions."""
    return {"MCP_NOTEBOOK_CONFIG_DIR": str(tmp_path / "config"), "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
            "MCP_NOTEBOOK_TOKEN_STORE": "file"}  # fmt: skip
