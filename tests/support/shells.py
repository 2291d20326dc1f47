"""IPython with the extension loaded, for the tests that drive the magics in this process:
cells run as a notebook runs them, and a shell working in a notebook folder of its own."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from mcp_notebook import get_client
from mcp_notebook.core.config.scopes import CONFIG_DIR_ENV


def run(shell: InteractiveShell, cell: str) -> Any:
    """Run a cell as a user would; raise what the cell raised."""
    result = shell.run_cell(cell, store_history=True)  # as a notebook does (`;` needs it)
    result.raise_error()
    return result.result


def line(shell: InteractiveShell, text: str) -> Any:
    """A value from ``%mcp text``, not shown (run_cell would print it)."""
    return shell.run_line_magic("mcp", text)


@contextmanager
def extension_loaded() -> Iterator[InteractiveShell]:
    """The process's IPython with ``%load_ext mcp_notebook``; unloaded after."""
    shell = InteractiveShell.instance()
    run(shell, "%load_ext mcp_notebook")
    try:
        yield shell
    finally:
        run(shell, "%unload_ext mcp_notebook")


@contextmanager
def in_notebook_folder(folder: Path, user_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    """The extension loaded, then working in ``folder`` (made if missing) with ``user_dir`` as
    the private user config folder; the servers added meanwhile are removed after."""
    before = set(get_client().servers)
    # Loaded before the chdir: the kernel-wide client's roots (set on first load) stay the
    # folder the tests run from, as other modules expect.
    with extension_loaded() as shell:
        folder.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(CONFIG_DIR_ENV, str(user_dir))
        monkeypatch.chdir(folder)
        try:
            yield shell
        finally:
            for name in set(get_client().servers) - before:
                get_client().remove(name)
