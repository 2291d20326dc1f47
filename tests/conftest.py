"""Shared fixtures: real peers (server-everything, mcp-server-time, an SDK server) and
the deliberately faulty server."""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_notebook import Client
from mcp_notebook.core.scopes import CONFIG_DIR_ENV

ROOT = Path(__file__).resolve().parent.parent
SERVERS = Path(__file__).resolve().parent / "servers"
EVERYTHING = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"


def node() -> str:
    found = os.environ.get("MCP_NOTEBOOK_NODE") or shutil.which("node")
    if not found:
        pytest.fail("node is not on PATH: install Node.js >= 20 (the peers need it)")
    return found


@pytest.fixture(scope="session", autouse=True)
def user_config_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Saved servers (user and local scopes) go to a throwaway folder, in kernels started
    by tests too: no test reads or writes the real user config."""
    folder = tmp_path_factory.mktemp("user-config")
    saved = os.environ.get(CONFIG_DIR_ENV)
    os.environ[CONFIG_DIR_ENV] = str(folder)
    yield folder
    if saved is None:
        os.environ.pop(CONFIG_DIR_ENV, None)
    else:
        os.environ[CONFIG_DIR_ENV] = saved


@pytest.fixture(scope="session")
def everything_cmd() -> tuple[str, list[str]]:
    if not EVERYTHING.exists():
        pytest.fail(f"{EVERYTHING} is missing: run `npm ci` in {ROOT} first")
    return node(), [str(EVERYTHING), "stdio"]


def wait_for(predicate: Callable[[], object], timeout: float = 20.0) -> bool:
    """Poll a condition with a deadline, for facts nothing signals (a dead pid, a server's
    stderr arriving on its own pipe); whether it came true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())


def faulty_cmd(mode: str) -> tuple[str, list[str]]:
    return sys.executable, [str(SERVERS / "faulty.py"), mode]


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


def check_resource_updates(server: Any, wait: float = 20.0) -> None:
    """server-everything sends resources/updated for a subscribed resource once its
    toggle-subscriber-updates tool turns them on: the subscription's callback must run."""
    uri = server.list_resources()[0].uri
    updated = threading.Event()
    server.subscribe(uri, lambda u, params: u == uri and updated.set())
    server.call_tool("toggle-subscriber-updates")
    try:
        assert updated.wait(wait), "no resources/updated notification arrived"
    finally:
        server.call_tool("toggle-subscriber-updates")
        server.unsubscribe(uri)
