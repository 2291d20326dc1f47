"""Shared fixtures: real peers (server-everything), a client, a throwaway user config
folder. Helpers that are not fixtures live in tests/support."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.peers import EVERYTHING, ROOT, node

from mcp_notebook import Client
from mcp_notebook.core.scopes import CONFIG_DIR_ENV


@pytest.fixture(scope="session", autouse=True)
def user_config_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Saved servers (user and local scopes) go to a throwaway folder, in kernels started
    by tests too: no test reads or writes the real user config."""
    folder = tmp_path_factory.mktemp("user-config")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(CONFIG_DIR_ENV, str(folder))
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
